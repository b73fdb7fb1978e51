package state

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"time"

	"github.com/dylan-gluck/spcstr/internal/jsonfile"
	"github.com/dylan-gluck/spcstr/internal/safefs"
)

// UpdateOptions tune Update. The zero value keeps DefaultKeep entries and
// decodes the whole state.
type UpdateOptions struct {
	// Keep bounds the lists (see Session.Bound); ≤ 0 means DefaultKeep.
	Keep int
	// Lazy lists the sections fn does not read and changes only by
	// appending (see Section); they are left encoded when the file allows.
	Lazy Section
}

// maxStateBytes bounds how much of a state.json is read: a bounded state
// is far smaller, so anything larger is not one of ours.
const maxStateBytes = 64 << 20

// Update is the one way a session's state changes: under the session's
// exclusive lock it loads state.json (or starts a new state when there is
// none, or when the file was corrupt and has been set aside), calls fn,
// bounds the result (Session.Bound) and writes it atomically. created
// tells fn that the state is new. Parallel hooks of one session therefore
// never lose an update.
func (l Layout) Update(ctx context.Context, id string, now time.Time, opt UpdateOptions, fn func(s *Session, created bool) error) (*Session, error) {
	path, err := l.StatePath(id)
	if err != nil {
		return nil, err
	}
	// Every path below .spcstr/ is resolved inside it: a symlinked
	// sessions/<id> or state.json never leads a read or write outside.
	top, rel, err := safefs.BeneathCreate(path)
	if err != nil {
		return nil, err
	}
	defer top.Close()
	// The lock, the read and the write all happen in the session's
	// folder: one root there saves walking sessions/<id> for each.
	root, err := safefs.OpenRootCreate(top, filepath.Dir(rel))
	if err != nil {
		return nil, fmt.Errorf("open folder for %s: %w", path, err)
	}
	defer root.Close()
	rel = filepath.Base(rel)
	unlock, err := jsonfile.LockIn(ctx, root, rel)
	if err != nil {
		return nil, err
	}
	defer unlock()
	var s Session
	fresh, readErr := false, read(root, rel, &s, AllSections&^opt.Lazy)
	switch {
	case readErr == nil:
	case errors.Is(readErr, fs.ErrNotExist):
		fresh, readErr = true, nil
	case errors.Is(readErr, jsonfile.ErrCorrupt):
		fresh = true
	default:
		return nil, readErr
	}
	if fresh {
		s = *New(id, l.Root, now)
		if readErr != nil {
			s.Errors = append(s.Errors, Error{
				Timestamp: now, Type: ErrorSpcstr,
				Message: fmt.Sprintf("state.json could not be read and was set aside; this session's earlier state is in that file (spcstr rebuild %s restores it from the logs): %v", id, readErr),
			})
		}
	}
	s.Normalize()
	s.markDropped()
	// A file that parses but lacks the basics ("{}", "null", a hand
	// edit) is completed: the folder names the session.
	s.SessionID = id
	if s.CreatedAt.IsZero() {
		s.CreatedAt = now
	}
	if s.ProjectDir == "" {
		s.ProjectDir = l.Root
	}
	if err := fn(&s, fresh); err != nil {
		return nil, err
	}
	if err := s.merge(); err != nil {
		return nil, err
	}
	s.Bound(opt.Keep)
	s.Version = SchemaVersion
	pieces, err := s.encode()
	if err != nil {
		return nil, fmt.Errorf("encode %s: %w", path, err)
	}
	// The lock held here serialises every writer, as the spare needs.
	if err := safefs.ReplaceViaSpareV(root, rel, pieces, 0o644); err != nil {
		return nil, fmt.Errorf("write %s: %w", path, err)
	}
	return &s, nil
}

// read loads path into s, decoding the sections in need (all of them for a
// file not in the sectioned layout). A file that is not a regular file of
// at most maxStateBytes, or does not parse, is set aside and reported
// with jsonfile.ErrCorrupt.
func read(root *os.Root, rel string, s *Session, need Section) error {
	path := filepath.Join(root.Name(), rel)
	data, err := safefs.ReadFileIn(root, rel, maxStateBytes)
	if err == nil {
		var ok bool
		ok, err = decodeSectioned(data, s, need)
		if !ok {
			*s = Session{}
			err = jsonfile.Decode(data, s)
		}
	}
	if err == nil || errors.Is(err, fs.ErrNotExist) {
		return err
	}
	aside := jsonfile.SetAsideName(rel, time.Now())
	if rerr := root.Rename(rel, aside); rerr != nil {
		return fmt.Errorf("%w: %s: %v (and could not set it aside: %v)", jsonfile.ErrCorrupt, path, err, rerr)
	}
	return fmt.Errorf("%w: %s set aside as %s: %v", jsonfile.ErrCorrupt, path, filepath.Base(aside), err)
}

// Load reads one session's state without locking: state.json is always
// replaced whole, and ReadReplaced reads again when a writer reused the
// file mid-read, so a reader sees a complete document. A damaged file is
// reported, not moved (only writers set files aside).
func (l Layout) Load(id string) (*Session, error) {
	path, err := l.StatePath(id)
	if err != nil {
		return nil, err
	}
	data, err := safefs.ReadReplaced(path, safefs.MaxStateBytes)
	if err != nil {
		return nil, err
	}
	var s Session
	if err := jsonfile.Decode(data, &s); err != nil {
		return nil, fmt.Errorf("%w: %s: %v", jsonfile.ErrCorrupt, path, err)
	}
	s.Normalize()
	return &s, nil
}

// SessionIDs lists the sessions that have a folder under .spcstr/sessions,
// skipping names that are not valid session ids.
func (l Layout) SessionIDs() ([]string, error) {
	entries, err := os.ReadDir(l.SessionsDir())
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return nil, nil
		}
		return nil, err
	}
	var ids []string
	for _, e := range entries {
		if e.IsDir() && ValidSessionID(e.Name()) {
			ids = append(ids, e.Name())
		}
	}
	sort.Strings(ids)
	return ids, nil
}

// StaleTempAge is how old a temporary state file must be before
// RemoveStaleTemps removes it: a live write takes milliseconds.
const StaleTempAge = time.Minute

// RemoveStaleTemps removes the temporary files (".state.json<digits>")
// that hooks killed mid-write left in a session's folder, once they are
// older than StaleTempAge. The spare file Update writes through
// (".state.json.spare", see safefs.ReplaceViaSpare) is not one: it stays.
// The recorder calls it at most once a minute per session, so the folder
// listing stays off most hooks.
func (l Layout) RemoveStaleTemps(id string, now time.Time) (int, error) {
	path, err := l.StatePath(id)
	if err != nil {
		return 0, err
	}
	root, rel, err := safefs.Beneath(path)
	if err != nil {
		return 0, err
	}
	defer root.Close()
	return safefs.RemoveStaleTemps(root, filepath.Dir(rel), StateFile, now.Add(-StaleTempAge))
}
