package export

import (
	"errors"
	"fmt"
	"os"
	"sort"
	"time"

	"github.com/dylan-gluck/spcstr/internal/jsonfile"
	"github.com/dylan-gluck/spcstr/internal/safefs"
	"github.com/dylan-gluck/spcstr/state"
)

// Errors of session selection. Callers test them with errors.Is.
var (
	// ErrNoProject: the folder has no .spcstr/.
	ErrNoProject = errors.New("no .spcstr folder")
	// ErrNoSessions: .spcstr/ holds no session.
	ErrNoSessions = errors.New("no sessions recorded")
	// ErrUnknownSession: no session has that id or prefix
	// (state.FindSessionID's error).
	ErrUnknownSession = state.ErrUnknownSession
	// ErrAmbiguous: several sessions start with that prefix.
	ErrAmbiguous = state.ErrAmbiguousSession
)

// Selector picks the sessions to export: ID (an id or a unique prefix of
// one), otherwise every session when All, otherwise the newest.
type Selector struct {
	ID  string
	All bool
}

// SessionInfo is a session as listed for selection.
type SessionInfo struct {
	ID        string
	UpdatedAt time.Time
	// Err is set when state.json could not be read.
	Err error
}

// Sessions lists the project's sessions, newest first (by state.json's
// updated_at, else created_at; ties by id). Only the two timestamps are
// decoded from each state.json.
func Sessions(l state.Layout) ([]SessionInfo, error) {
	if !l.Exists() {
		return nil, fmt.Errorf("%w in %s or its parents (run spcstr init there)", ErrNoProject, l.Root)
	}
	ids, err := l.SessionIDs()
	if err != nil {
		return nil, fmt.Errorf("list sessions: %w", err)
	}
	infos := make([]SessionInfo, 0, len(ids))
	for _, id := range ids {
		info := SessionInfo{ID: id}
		info.UpdatedAt, info.Err = stamp(l, id)
		if errors.Is(info.Err, os.ErrNotExist) {
			continue // a folder without state.json (not a session yet)
		}
		infos = append(infos, info)
	}
	sort.SliceStable(infos, func(i, j int) bool {
		if !infos[i].UpdatedAt.Equal(infos[j].UpdatedAt) {
			return infos[i].UpdatedAt.After(infos[j].UpdatedAt)
		}
		return infos[i].ID < infos[j].ID
	})
	return infos, nil
}

func stamp(l state.Layout, id string) (time.Time, error) {
	path, err := l.StatePath(id)
	if err != nil {
		return time.Time{}, err
	}
	data, err := safefs.ReadReplaced(path, safefs.MaxStateBytes)
	if err != nil {
		return time.Time{}, err
	}
	var s struct {
		CreatedAt time.Time `json:"created_at"`
		UpdatedAt time.Time `json:"updated_at"`
	}
	if err := jsonfile.Decode(data, &s); err != nil {
		return time.Time{}, fmt.Errorf("%w: %s: %v", jsonfile.ErrCorrupt, path, err)
	}
	if s.UpdatedAt.IsZero() {
		return s.CreatedAt, nil
	}
	return s.UpdatedAt, nil
}

// Select resolves a Selector to session ids (newest first for All).
func Select(l state.Layout, sel Selector) ([]string, error) {
	if sel.ID != "" && !state.ValidSessionID(sel.ID) {
		_, err := state.FindSessionID(nil, sel.ID, l.SessionsDir()) // refused before any file is read
		return nil, err
	}
	infos, err := Sessions(l)
	if err != nil {
		return nil, err
	}
	if len(infos) == 0 {
		return nil, fmt.Errorf("%w in %s yet (sessions appear once Claude Code runs with spcstr's hooks registered)", ErrNoSessions, l.Dir())
	}
	ids := make([]string, len(infos)) // newest first
	for i, in := range infos {
		ids[i] = in.ID
	}
	switch {
	case sel.ID != "":
		id, err := state.FindSessionID(ids, sel.ID, l.SessionsDir())
		if err != nil {
			return nil, err
		}
		return []string{id}, nil
	case sel.All:
		return ids, nil
	}
	return ids[:1], nil
}
