//go:build unix

package hookio

import (
	"errors"
	"fmt"
	"os"
	"time"

	"golang.org/x/sys/unix"
)

// readFileDeadline reads f (the hook's stdin: a pipe or a file) until EOF,
// at most limit bytes, waiting in poll(2) for at most until the deadline:
// no goroutine, timer or thread hand-off, which on the hook's hot path cost
// more than the read itself. ok is false when f cannot be read this way
// (the caller falls back to a reading goroutine).
func readFileDeadline(f *os.File, limit int64, deadline time.Time, timeout time.Duration) (data []byte, ok bool, err error) {
	raw, err := f.SyscallConn()
	if err != nil {
		return nil, false, nil
	}
	var fd int
	if err := raw.Control(func(p uintptr) { fd = int(p) }); err != nil {
		return nil, false, nil
	}
	if fl, err := unix.FcntlInt(uintptr(fd), unix.F_GETFL, 0); err != nil || fl&unix.O_NONBLOCK != 0 {
		return nil, false, nil // a non-blocking fd belongs to the runtime's poller
	}
	// Chunks of growing size, joined once at the end: a large payload
	// costs about twice its size at peak, not the four times that an
	// append-grown buffer does.
	var ch chunks
	buf := make([]byte, 0, 64<<10)
	pfd := []unix.PollFd{{Fd: int32(fd), Events: unix.POLLIN}}
	for ch.n+int64(len(buf)) < limit {
		wait := time.Until(deadline)
		if wait <= 0 {
			return ch.join(buf), true, fmt.Errorf("%w (%v)", ErrStdinTimeout, timeout)
		}
		n, err := unix.Poll(pfd, int(min(wait.Milliseconds()+1, 1<<30)))
		if errors.Is(err, unix.EINTR) {
			continue
		}
		if err != nil {
			return ch.join(buf), true, err
		}
		if n == 0 {
			continue // the deadline is checked above
		}
		if len(buf) == cap(buf) {
			buf = ch.next(buf)
		}
		room := buf[len(buf):min(int64(cap(buf)), limit-ch.n)]
		m, err := unix.Read(fd, room)
		switch {
		case errors.Is(err, unix.EINTR), errors.Is(err, unix.EAGAIN):
			continue
		case err != nil:
			return ch.join(buf), true, err
		case m == 0:
			return ch.join(buf), true, nil // EOF
		}
		buf = buf[:len(buf)+m]
	}
	return ch.join(buf), true, nil
}
