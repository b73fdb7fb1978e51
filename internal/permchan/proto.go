package permchan

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"time"
)

// Version is the protocol's version, in every request.
const Version = 1

// Bounds of the protocol: a request line (the tool's input, already capped
// by Claude Code, and its suggestions) and any other line.
const (
	MaxRequestBytes = 1 << 20
	MaxLineBytes    = 64 << 10
)

// Behaviors of an answer.
const (
	Allow = "allow"
	Deny  = "deny"
)

// Request is what the hook posts: one PermissionRequest, with its own
// nonce and the moment after which it can no longer be answered.
type Request struct {
	V           int             `json:"v"`
	Nonce       string          `json:"nonce"`
	SessionID   string          `json:"session_id"`
	Title       string          `json:"title,omitempty"`
	Cwd         string          `json:"cwd,omitempty"`
	ToolName    string          `json:"tool_name"`
	ToolInput   json.RawMessage `json:"tool_input,omitempty"`
	Suggestions json.RawMessage `json:"permission_suggestions,omitempty"`
	AskedAt     time.Time       `json:"asked_at"`
	Deadline    time.Time       `json:"deadline"`
	PID         int             `json:"pid"`
}

// Answer is the dashboard's answer to one request: allow (Always: with
// Claude Code's own suggestions as updatedPermissions) or deny (Message
// reaches Claude).
type Answer struct {
	Nonce    string `json:"nonce"`
	Behavior string `json:"behavior"`
	Message  string `json:"message,omitempty"`
	Always   bool   `json:"always,omitempty"`
}

// Valid reports whether a is a well-formed answer.
func (a Answer) Valid() bool {
	switch a.Behavior {
	case Allow:
		return a.Message == ""
	case Deny:
		return !a.Always
	}
	return false
}

// ack is the hook's reply to an answer: taken, or refused and why.
type ack struct {
	Nonce    string `json:"nonce"`
	Accepted bool   `json:"accepted"`
	Reason   string `json:"reason,omitempty"`
}

// Errors of the protocol.
var (
	// ErrNoDashboard: no dashboard of the project holds the lease.
	ErrNoDashboard = errors.New("no dashboard is open for this project")
	// ErrTimeout: the request's deadline passed unanswered.
	ErrTimeout = errors.New("no answer before the deadline")
	// ErrLeft: the dashboard left the request to the terminal (or quit).
	ErrLeft = errors.New("the dashboard left it to the terminal")
	// ErrExpired: an answer given after the request's deadline.
	ErrExpired = errors.New("the request can no longer be answered (past its deadline)")
	// ErrGone: the hook is gone (answered in the terminal, or killed).
	ErrGone = errors.New("the request was withdrawn (answered elsewhere, or its hook ended)")
	// ErrRefused: the hook refused the answer.
	ErrRefused = errors.New("the hook refused the answer")
	// ErrLeaseHeld: another dashboard of the project holds the lease.
	ErrLeaseHeld = errors.New("another dashboard answers this project's permission prompts")
	// ErrBadRequest: a request that does not follow the protocol.
	ErrBadRequest = errors.New("malformed permission request")
)

// readLine reads one newline-terminated line of at most limit bytes.
func readLine(r *bufio.Reader, limit int) ([]byte, error) {
	var line []byte
	for {
		chunk, err := r.ReadSlice('\n')
		if len(line)+len(chunk) > limit {
			return nil, fmt.Errorf("line longer than %d bytes", limit)
		}
		line = append(line, chunk...)
		switch {
		case err == nil:
			return bytes.TrimSpace(line), nil
		case errors.Is(err, bufio.ErrBufferFull):
			continue
		case errors.Is(err, io.EOF) && len(bytes.TrimSpace(line)) > 0:
			return nil, io.ErrUnexpectedEOF
		default:
			return nil, err
		}
	}
}

// writeLine writes v as one JSON line.
func writeLine(w io.Writer, v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	_, err = w.Write(append(b, '\n'))
	return err
}

// validNonce reports whether n looks like a nonce Ask makes (32 hex).
func validNonce(n string) bool {
	if len(n) != 32 {
		return false
	}
	for i := 0; i < len(n); i++ {
		c := n[i]
		if (c < '0' || c > '9') && (c < 'a' || c > 'f') {
			return false
		}
	}
	return true
}

func (r *Request) check(now time.Time) error {
	switch {
	case r.V != Version:
		return fmt.Errorf("%w: version %d", ErrBadRequest, r.V)
	case !validNonce(r.Nonce):
		return fmt.Errorf("%w: bad nonce", ErrBadRequest)
	case r.ToolName == "" || r.SessionID == "":
		return fmt.Errorf("%w: no tool or session", ErrBadRequest)
	case !r.Deadline.After(now):
		return fmt.Errorf("%w: past its deadline", ErrBadRequest)
	case r.Deadline.Sub(now) > MaxWait+time.Minute:
		return fmt.Errorf("%w: deadline too far", ErrBadRequest)
	}
	return nil
}
