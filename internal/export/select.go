package export

import (
	"errors"
	"fmt"
	"os"
	"sort"
	"strings"
	"time"

	"github.com/dylan-gluck/spcstr/internal/jsonfile"
	"github.com/dylan-gluck/spcstr/internal/safefs"
	"github.com/dylan-gluck/spcstr/internal/termtext"
	"github.com/dylan-gluck/spcstr/state"
)

// Errors of session selection. Callers test them with errors.Is.
var (
	// ErrNoProject: the folder has no .spcstr/.
	ErrNoProject = errors.New("no .spcstr folder")
	// ErrNoSessions: .spcstr/ holds no session.
	ErrNoSessions = errors.New("no sessions recorded")
	// ErrUnknownSession: no session has that id or prefix.
	ErrUnknownSession = errors.New("unknown session")
	// ErrAmbiguous: several sessions start with that prefix.
	ErrAmbiguous = errors.New("ambiguous session id")
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

// AmbiguousError lists the sessions a prefix matches.
type AmbiguousError struct {
	Prefix     string
	Candidates []SessionInfo
}

func (e *AmbiguousError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%v %q matches %d sessions; give more of the id:", ErrAmbiguous, e.Prefix, len(e.Candidates))
	for _, c := range e.Candidates {
		fmt.Fprintf(&b, "\n  %s", c.ID)
		if !c.UpdatedAt.IsZero() {
			fmt.Fprintf(&b, "  (updated %s)", c.UpdatedAt.UTC().Format("2006-01-02 15:04:05 UTC"))
		}
	}
	return b.String()
}

func (e *AmbiguousError) Is(target error) bool { return target == ErrAmbiguous }

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
		return nil, fmt.Errorf("%w: %q is not a session id (letters, digits, '.', '_' and '-' only)", ErrUnknownSession, termtext.Cut(sel.ID, 80))
	}
	infos, err := Sessions(l)
	if err != nil {
		return nil, err
	}
	if len(infos) == 0 {
		return nil, fmt.Errorf("%w in %s yet (sessions appear once Claude Code runs with spcstr's hooks registered)", ErrNoSessions, l.Dir())
	}
	switch {
	case sel.ID != "":
		var matches []SessionInfo
		for _, in := range infos {
			if in.ID == sel.ID {
				return []string{in.ID}, nil
			}
			if strings.HasPrefix(in.ID, sel.ID) {
				matches = append(matches, in)
			}
		}
		switch len(matches) {
		case 0:
			return nil, unknown(sel.ID, infos)
		case 1:
			return []string{matches[0].ID}, nil
		}
		return nil, &AmbiguousError{Prefix: sel.ID, Candidates: matches}
	case sel.All:
		ids := make([]string, len(infos))
		for i, in := range infos {
			ids[i] = in.ID
		}
		return ids, nil
	}
	return []string{infos[0].ID}, nil
}

// unknown builds the error for an id that matches nothing, naming the most
// recent sessions.
func unknown(id string, infos []SessionInfo) error {
	const show = 5
	var b strings.Builder
	fmt.Fprintf(&b, "%v %q; recent sessions:", ErrUnknownSession, id)
	for i, in := range infos {
		if i == show {
			fmt.Fprintf(&b, "\n  … and %d more", len(infos)-show)
			break
		}
		fmt.Fprintf(&b, "\n  %s", in.ID)
	}
	return &unknownError{msg: b.String()}
}

type unknownError struct{ msg string }

func (e *unknownError) Error() string        { return e.msg }
func (e *unknownError) Is(target error) bool { return target == ErrUnknownSession }
