package state

import (
	"context"
	"errors"
	"fmt"
	"os"
	"sort"
	"time"

	"github.com/dylan-gluck/spcstr/internal/jsonfile"
)

// Update is the one way a session's state changes: under the session's
// exclusive lock it loads state.json (or starts a new state when there is
// none, or when the file was corrupt and has been set aside), calls fn,
// bounds the result to the latest keep entries (see Session.Bound; ≤ 0
// means DefaultKeep) and writes it atomically. created tells fn that the
// state is new. Parallel hooks of one session therefore never lose an
// update.
func (l Layout) Update(ctx context.Context, id string, now time.Time, keep int, fn func(s *Session, created bool) error) (*Session, error) {
	path, err := l.StatePath(id)
	if err != nil {
		return nil, err
	}
	var s Session
	err = jsonfile.Update(ctx, path, &s, func(fresh bool, readErr error) (bool, error) {
		if fresh {
			s = *New(id, l.Root, now)
			if readErr != nil {
				s.Errors = append(s.Errors, Error{
					Timestamp: now, Type: ErrorSpcstr,
					Message: fmt.Sprintf("state.json could not be read and was set aside; this session's earlier state is in that file: %v", readErr),
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
			return false, err
		}
		s.Bound(keep)
		s.Version = SchemaVersion
		return true, nil
	})
	if err != nil {
		return nil, err
	}
	return &s, nil
}

// Load reads one session's state without locking: state.json is always
// replaced whole, so a reader sees a complete document. A damaged file is
// reported, not moved (only writers set files aside).
func (l Layout) Load(id string) (*Session, error) {
	path, err := l.StatePath(id)
	if err != nil {
		return nil, err
	}
	data, err := os.ReadFile(path)
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
