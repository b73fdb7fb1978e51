package permchan

import (
	"bufio"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"os"
	"strings"
	"time"
)

// Wait bounds: how long the hook waits for the dashboard by default, and
// at most. `spcstr init` registers PermissionRequest with a timeout a
// little longer than the longest wait (hookio.Timeout), so that Claude
// Code never kills a hook that is still waiting on its own terms.
const (
	DefaultWait = 300 * time.Second
	MaxWait     = 600 * time.Second
)

// WaitEnv is the environment variable that sets the hook's wait (a Go
// duration, or seconds); "0" turns answering from the dashboard off.
const WaitEnv = "SPCSTR_PERMISSION_WAIT"

// WaitFrom reads the wait from WaitEnv: DefaultWait when unset or
// unreadable, capped at MaxWait; 0 means do not ask the dashboard.
func WaitFrom(getenv func(string) string) time.Duration {
	v := strings.TrimSpace(getenv(WaitEnv))
	if v == "" {
		return DefaultWait
	}
	d, err := time.ParseDuration(v)
	if err != nil {
		var secs int
		if _, serr := fmt.Sscanf(v, "%d", &secs); serr != nil || fmt.Sprint(secs) != v {
			return DefaultWait
		}
		d = time.Duration(secs) * time.Second
	}
	if d < 0 {
		return DefaultWait
	}
	return min(d, MaxWait)
}

// Ask posts req to the dashboard of the project whose socket is sock (in
// the channel folder dir) and waits for its answer until req.Deadline or
// ctx ends. It fills req's nonce and version. With no dashboard it
// returns ErrNoDashboard at once, after two lstats (and a connect when a
// dead dashboard left its socket).
//
// An answer for another nonce, or malformed, is refused (the hook tells
// the dashboard so) and the wait goes on; the first valid answer is
// acknowledged and returned.
func Ask(ctx context.Context, dir, sock string, req *Request) (Answer, error) {
	if err := CheckDir(dir); err != nil {
		return Answer{}, ErrNoDashboard
	}
	// No socket, no dashboard: a second lstat, and the network poller
	// that a connect would start is never started.
	if fi, err := os.Lstat(sock); err != nil || fi.Mode()&os.ModeSocket == 0 {
		return Answer{}, ErrNoDashboard
	}
	d := net.Dialer{Timeout: 500 * time.Millisecond}
	conn, err := d.DialContext(ctx, "unix", sock)
	if err != nil {
		return Answer{}, ErrNoDashboard
	}
	defer conn.Close()
	stop := context.AfterFunc(ctx, func() { _ = conn.Close() })
	defer stop()

	var nonce [16]byte
	if _, err := rand.Read(nonce[:]); err != nil {
		return Answer{}, fmt.Errorf("nonce: %w", err)
	}
	req.V, req.Nonce = Version, hex.EncodeToString(nonce[:])
	if req.PID == 0 {
		req.PID = os.Getpid()
	}
	if err := conn.SetDeadline(req.Deadline); err != nil {
		return Answer{}, err
	}
	if err := writeLine(conn, req); err != nil {
		return Answer{}, fmt.Errorf("post request: %w", err)
	}
	br := bufio.NewReaderSize(conn, 4096)
	for {
		line, err := readLine(br, MaxLineBytes)
		if err != nil {
			var ne net.Error
			switch {
			case errors.As(err, &ne) && ne.Timeout():
				return Answer{}, ErrTimeout
			case ctx.Err() != nil:
				return Answer{}, ctx.Err()
			}
			return Answer{}, ErrLeft
		}
		var a Answer
		reason := ""
		switch {
		case json.Unmarshal(line, &a) != nil:
			reason = "not an answer"
		case a.Nonce != req.Nonce:
			reason = "answer for another request"
		case !a.Valid():
			reason = "not a valid answer"
		}
		if reason != "" {
			_ = writeLine(conn, ack{Nonce: a.Nonce, Reason: reason})
			continue
		}
		// Taken: the dashboard's Reply waits for this line.
		_ = writeLine(conn, ack{Nonce: a.Nonce, Accepted: true})
		return a, nil
	}
}
