package state

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/dylan-gluck/spcstr/internal/termtext"
)

// Errors of FindSessionID. Callers test them with errors.Is.
var (
	// ErrUnknownSession: no session has that id or starts with it.
	ErrUnknownSession = errors.New("unknown session")
	// ErrAmbiguousSession: several sessions start with that prefix.
	ErrAmbiguousSession = errors.New("ambiguous session id")
)

// lookupShown is how many candidates an error of FindSessionID names.
const lookupShown = 5

// FindSessionID is the one lookup of a session by id or prefix (spcstr
// export, cost, focus, replay and strategy dry-run use it): id itself when
// it is among ids, else the one id that starts with it. ids are the
// sessions to choose from, in the order an error should name them (newest
// first when the caller knows); where says where they were looked for. An
// id that matches none (or is no session id at all) wraps
// ErrUnknownSession, one that matches several ErrAmbiguousSession; both
// errors name up to five candidates, the same words for every command.
func FindSessionID(ids []string, id, where string) (string, error) {
	if id == "" {
		return "", fmt.Errorf("%w: give a session id or the start of one", ErrUnknownSession)
	}
	if !ValidSessionID(id) {
		return "", fmt.Errorf("%w: %q is not a session id (letters, digits, '.', '_' and '-' only)", ErrUnknownSession, termtext.Cut(id, 80))
	}
	if slices.Contains(ids, id) {
		return id, nil
	}
	var match []string
	for _, s := range ids {
		if strings.HasPrefix(s, id) {
			match = append(match, s)
		}
	}
	switch len(match) {
	case 1:
		return match[0], nil
	case 0:
		msg := fmt.Sprintf("%q in %s", id, where)
		if len(ids) > 0 {
			msg += "; sessions:" + listIDs(ids)
		}
		return "", fmt.Errorf("%w %s", ErrUnknownSession, msg)
	}
	return "", fmt.Errorf("%w %q matches %d sessions; give more of the id:%s", ErrAmbiguousSession, id, len(match), listIDs(match))
}

// listIDs lists up to lookupShown ids, one a line.
func listIDs(ids []string) string {
	var b strings.Builder
	for i, s := range ids {
		if i == lookupShown {
			fmt.Fprintf(&b, "\n  … and %d more", len(ids)-lookupShown)
			break
		}
		b.WriteString("\n  " + s)
	}
	return b.String()
}

// FindSession is FindSessionID over the sessions recorded under
// .spcstr/sessions (by name).
func (l Layout) FindSession(id string) (string, error) {
	ids, err := l.SessionIDs()
	if err != nil {
		return "", fmt.Errorf("list sessions: %w", err)
	}
	return FindSessionID(ids, id, l.SessionsDir())
}
