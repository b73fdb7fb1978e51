package recorder

// The session registry (~/.claude/sessions.json, the Python framework's)
// and the session's Claude Code process.

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"time"

	"github.com/dylan-gluck/spcstr/internal/gitrepo"
	"github.com/dylan-gluck/spcstr/internal/hookio"
	"github.com/dylan-gluck/spcstr/internal/projects"
	"github.com/dylan-gluck/spcstr/internal/registry"
)

// register keeps the session registry current: SessionStart (or the first
// event of a session spcstr had not seen) registers, SessionEnd removes,
// and the first event of each minute refreshes last_active.
func (r *run) register(ctx context.Context, created bool) {
	path := registry.Path(r.opt.Getenv)
	var err error
	switch {
	case r.name == hookio.SessionEnd:
		err = registry.Remove(ctx, path, r.ev.SessionID)
	case r.name == hookio.SessionStart || created:
		err = registry.Register(ctx, path, r.ev.SessionID, r.registryEntry(r.now), r.opt.Alive)
	case r.touch:
		// last_active, refreshed at most once a minute per session; an
		// entry the framework's write undid is registered again.
		started := r.now
		if !r.startedAt.IsZero() {
			started = r.startedAt
		}
		err = registry.Touch(ctx, path, r.ev.SessionID, registry.Now(r.now), r.registryEntry(started))
	}
	if err != nil {
		fmt.Fprintf(r.opt.Stderr, "spcstr hook: session registry: %v\n", err)
	}
	if r.name == hookio.SessionStart {
		// The machine's list of recorded projects (spcstr tui --all): a
		// read, and a write at most once an hour per project.
		if err := projects.Remember(ctx, projects.Path(r.opt.Getenv), r.layout.Root, r.now); err != nil {
			fmt.Fprintf(r.opt.Stderr, "spcstr hook: %v\n", err)
		}
	}
}

// registryEntry is this session's registry entry, started at started.
func (r *run) registryEntry(started time.Time) registry.Entry {
	ppid := r.claudePID()
	branch := r.branch // the state's, from its cached HEAD stamp
	if branch == "" {
		if repo, ok := gitrepo.Find(r.layout.Root); ok {
			branch = repo.Branch()
		}
	}
	return registry.Entry{
		PID: os.Getpid(), PPID: ppid, ProjectDir: r.layout.Root, Branch: branch,
		StartedAt: registry.Now(started), LastActive: registry.Now(r.now),
	}
}

// claudePID is the session's Claude Code process: $CLAUDE_PID when it is
// a process id, else the hook's parent (Claude Code runs hooks itself).
func (r *run) claudePID() int {
	if p, err := strconv.Atoi(r.opt.Getenv("CLAUDE_PID")); err == nil && p > 0 {
		return p
	}
	return os.Getppid()
}
