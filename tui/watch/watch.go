// Package watch tells the dashboard what changed under .spcstr/ (and in the
// session registry and the requirements folder) using fsnotify, never a
// polling timer. It follows folders created after it started (a new
// session's folder, .spcstr/ itself), sees the rename an atomic write ends
// with, and coalesces a burst of events into one Change so the dashboard
// rereads each changed file once.
package watch

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/fsnotify/fsnotify"

	"github.com/dylan-gluck/spcstr/state"
	"github.com/dylan-gluck/spcstr/tui/store"
)

// Change is one coalesced batch of changes.
type Change struct {
	// Sessions whose state.json was written (or whose folder appeared).
	Sessions map[string]bool
	// Feedback lists sessions whose feedback-loop.json changed.
	Feedback map[string]bool
	// Logs lists event log paths that grew.
	Logs map[string]bool
	// Rescan is set when session folders were created or removed, or
	// .spcstr/ appeared: the list should be read again.
	Rescan bool
	// Registry is set when the session registry changed.
	Registry bool
	// Requirements is set when the requirements folder changed.
	Requirements bool
	// Config is set when .spcstr/config.yaml was written, replaced or
	// removed.
	Config bool
	// Err reports a watcher error (e.g. the inotify watch limit).
	Err error
}

// Empty reports whether the change holds nothing.
func (c *Change) Empty() bool {
	return len(c.Sessions) == 0 && len(c.Feedback) == 0 && len(c.Logs) == 0 &&
		!c.Rescan && !c.Registry && !c.Requirements && !c.Config && c.Err == nil
}

func (c *Change) merge(o Change) {
	for k := range o.Sessions {
		c.mark(&c.Sessions, k)
	}
	for k := range o.Feedback {
		c.mark(&c.Feedback, k)
	}
	for k := range o.Logs {
		c.mark(&c.Logs, k)
	}
	c.Rescan = c.Rescan || o.Rescan
	c.Registry = c.Registry || o.Registry
	c.Requirements = c.Requirements || o.Requirements
	c.Config = c.Config || o.Config
	if o.Err != nil {
		c.Err = o.Err
	}
}

func (c *Change) mark(m *map[string]bool, k string) {
	if *m == nil {
		*m = map[string]bool{}
	}
	(*m)[k] = true
}

// Options configures a Watcher.
type Options struct {
	Layout state.Layout
	// RegistryPath is the session registry file (its folder is watched).
	RegistryPath string
	// RequirementsDir is the requirements folder ("" or missing: skipped).
	RequirementsDir string
	// Debounce is how long a burst must be quiet before it is delivered
	// (default 15 ms); MaxDelay bounds the wait in a continuous burst
	// (default 100 ms).
	Debounce, MaxDelay time.Duration
}

// Watcher delivers Changes. Create it with Start; read with Next.
type Watcher struct {
	opt  Options
	fsw  *fsnotify.Watcher
	out  chan Change
	done chan struct{}
	once sync.Once

	spcstr, sessions, logsDir, config, regDir, regName, reqDir string
}

// Start begins watching. The folders that do not exist yet are picked up
// when they are created.
func Start(opt Options) (*Watcher, error) {
	if opt.Debounce <= 0 {
		opt.Debounce = 15 * time.Millisecond
	}
	if opt.MaxDelay <= 0 {
		opt.MaxDelay = 100 * time.Millisecond
	}
	fsw, err := fsnotify.NewWatcher()
	if err != nil {
		return nil, err
	}
	w := &Watcher{
		opt: opt, fsw: fsw, out: make(chan Change), done: make(chan struct{}),
		spcstr:   filepath.Clean(opt.Layout.Dir()),
		sessions: filepath.Clean(opt.Layout.SessionsDir()),
		logsDir:  filepath.Clean(opt.Layout.LogsDir()),
		config:   filepath.Clean(opt.Layout.ConfigPath()),
	}
	if opt.RegistryPath != "" {
		w.regDir, w.regName = filepath.Dir(opt.RegistryPath), filepath.Base(opt.RegistryPath)
		_ = fsw.Add(w.regDir) // a missing ~/.claude: no registry to follow
	}
	if opt.RequirementsDir != "" {
		w.reqDir = filepath.Clean(opt.RequirementsDir)
		_ = fsw.Add(w.reqDir)
	}
	var pending Change
	if err := w.addTree(&pending); err != nil {
		fsw.Close()
		return nil, err
	}
	go w.loop()
	return w, nil
}

// addTree watches .spcstr/, sessions/, every session folder and logs/, or
// the project root while .spcstr/ does not exist.
func (w *Watcher) addTree(c *Change) error {
	if _, err := os.Stat(w.spcstr); err != nil {
		return w.fsw.Add(filepath.Clean(w.opt.Layout.Root))
	}
	if err := w.fsw.Add(w.spcstr); err != nil {
		return err
	}
	if err := w.fsw.Add(w.sessions); err == nil {
		entries, _ := os.ReadDir(w.sessions)
		for _, e := range entries {
			if e.IsDir() && state.ValidSessionID(e.Name()) {
				if err := w.fsw.Add(filepath.Join(w.sessions, e.Name())); err != nil {
					return err
				}
			}
		}
	}
	_ = w.fsw.Add(w.logsDir)
	return nil
}

// Next waits for the next coalesced change. ok is false once the watcher is
// closed or ctx is done.
func (w *Watcher) Next(ctx context.Context) (Change, bool) {
	select {
	case c, ok := <-w.out:
		return c, ok
	case <-ctx.Done():
		return Change{}, false
	case <-w.done:
		return Change{}, false
	}
}

// Close stops the watcher.
func (w *Watcher) Close() error {
	var err error
	w.once.Do(func() {
		close(w.done)
		err = w.fsw.Close()
	})
	return err
}

func (w *Watcher) loop() {
	var (
		pending  Change
		quiet    = time.NewTimer(time.Hour)
		deadline = time.NewTimer(time.Hour)
		armed    bool
		ready    bool
	)
	quiet.Stop()
	deadline.Stop()
	for {
		var out chan Change
		if ready && !pending.Empty() {
			out = w.out
		}
		select {
		case <-w.done:
			return
		case ev, ok := <-w.fsw.Events:
			if !ok {
				return
			}
			var c Change
			w.classify(ev, &c)
			if c.Empty() {
				continue
			}
			pending.merge(c)
			quiet.Reset(w.opt.Debounce)
			if !armed {
				armed = true
				deadline.Reset(w.opt.MaxDelay)
			}
		case err, ok := <-w.fsw.Errors:
			if !ok {
				return
			}
			if err != nil && !errors.Is(err, fsnotify.ErrEventOverflow) {
				pending.merge(Change{Err: err})
			} else {
				pending.merge(Change{Rescan: true, Registry: true, Requirements: true, Config: true})
			}
			quiet.Reset(w.opt.Debounce)
		case <-quiet.C:
			ready = true
		case <-deadline.C:
			ready = true
		case out <- pending:
			pending, ready, armed = Change{}, false, false
			quiet.Stop()
			deadline.Stop()
		}
	}
}

// classify maps one fsnotify event onto a change, adding watches for
// folders that appeared.
func (w *Watcher) classify(ev fsnotify.Event, c *Change) {
	name := filepath.Clean(ev.Name)
	dir, base := filepath.Dir(name), filepath.Base(name)
	created := ev.Has(fsnotify.Create)
	switch {
	case name == w.spcstr && created, dir == filepath.Clean(w.opt.Layout.Root) && base == state.DirName:
		if created {
			var sub Change
			_ = w.addTree(&sub)
			c.Rescan = true
		}
	case dir == w.spcstr:
		if name == w.config && ev.Op != fsnotify.Chmod {
			c.Config = true
		}
		if created && (name == w.sessions || name == w.logsDir) {
			_ = w.fsw.Add(name)
			c.Rescan = true
			if name == w.sessions {
				entries, _ := os.ReadDir(name)
				for _, e := range entries {
					if e.IsDir() && state.ValidSessionID(e.Name()) {
						_ = w.fsw.Add(filepath.Join(name, e.Name()))
						c.mark(&c.Sessions, e.Name())
					}
				}
			}
		}
	case dir == w.sessions:
		if !state.ValidSessionID(base) {
			return
		}
		if created {
			_ = w.fsw.Add(name)
			c.mark(&c.Sessions, base) // state.json may already be there
		}
		if ev.Has(fsnotify.Create) || ev.Has(fsnotify.Remove) || ev.Has(fsnotify.Rename) {
			c.Rescan = true
		}
	case filepath.Dir(dir) == w.sessions:
		id := filepath.Base(dir)
		if !state.ValidSessionID(id) || ev.Has(fsnotify.Chmod) && !ev.Has(fsnotify.Write) && !created {
			return
		}
		switch base {
		case state.StateFile:
			c.mark(&c.Sessions, id)
		case "feedback-loop.json":
			c.mark(&c.Feedback, id)
		}
	case dir == w.logsDir:
		if (ev.Has(fsnotify.Write) || created) && store.LogFile(base) {
			c.mark(&c.Logs, name)
		}
	case w.reqDir != "" && (dir == w.reqDir || name == w.reqDir):
		c.Requirements = true
	case w.regDir != "" && dir == w.regDir:
		if base == w.regName {
			c.Registry = true
		}
	}
}
