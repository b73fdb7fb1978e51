package permchan

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"os"
	"sync"
	"syscall"
	"time"
)

// Server is a dashboard's lease and the requests posted to it: while it
// listens, the project's PermissionRequest hooks post their requests to it.
type Server struct {
	ln   net.Listener
	path string
	reqs chan *Pending
	now  func() time.Time
	done chan struct{}
	once sync.Once
	wg   sync.WaitGroup
}

// Listen takes the lease of the project rooted at root: it makes the
// channel folder dir (0700, checked) and listens on the project's socket
// in it. A socket left by a dashboard that died is replaced; one another
// dashboard listens on gives ErrLeaseHeld. now is the clock (nil: time.Now).
func Listen(dir, root string, now func() time.Time) (*Server, error) {
	if now == nil {
		now = time.Now
	}
	if err := MakeDir(dir); err != nil {
		return nil, err
	}
	path := SocketPath(dir, root)
	ln, err := net.Listen("unix", path)
	if err != nil && errors.Is(err, syscall.EADDRINUSE) {
		if c, derr := net.DialTimeout("unix", path, time.Second); derr == nil {
			_ = c.Close()
			return nil, ErrLeaseHeld
		}
		// Nobody listens: a dead dashboard's socket.
		if fi, lerr := os.Lstat(path); lerr == nil && fi.Mode()&os.ModeSocket != 0 {
			_ = os.Remove(path)
		}
		ln, err = net.Listen("unix", path)
	}
	if err != nil {
		return nil, fmt.Errorf("listen for permission requests: %w", err)
	}
	if ul, ok := ln.(*net.UnixListener); ok {
		// Close removes the socket; a successor's socket is never ours
		// to remove (SetUnlinkOnClose is on by default for Listen).
		ul.SetUnlinkOnClose(true)
	}
	_ = os.Chmod(path, 0o600)
	s := &Server{ln: ln, path: path, reqs: make(chan *Pending, 16), now: now, done: make(chan struct{})}
	s.wg.Add(1)
	go s.accept()
	return s, nil
}

// Path is the socket's path.
func (s *Server) Path() string { return s.path }

// Requests delivers each request posted, once it is read whole and valid.
func (s *Server) Requests() <-chan *Pending { return s.reqs }

// Close gives the lease up: it stops listening, removes the socket and
// leaves every request not answered yet to the terminal.
func (s *Server) Close() error {
	var err error
	s.once.Do(func() {
		close(s.done)
		err = s.ln.Close()
		s.wg.Wait()
	})
	return err
}

func (s *Server) accept() {
	defer s.wg.Done()
	for {
		conn, err := s.ln.Accept()
		if err != nil {
			select {
			case <-s.done:
				return
			default:
			}
			var ne net.Error
			if errors.As(err, &ne) && ne.Timeout() {
				continue
			}
			return
		}
		s.wg.Add(1)
		go s.serve(conn)
	}
}

// serve reads one request from conn and hands it on; then it reads the
// hook's acknowledgements until the hook hangs up.
func (s *Server) serve(conn net.Conn) {
	defer s.wg.Done()
	br := bufio.NewReaderSize(conn, 4096)
	_ = conn.SetReadDeadline(s.now().Add(5 * time.Second))
	line, err := readLine(br, MaxRequestBytes)
	if err != nil {
		_ = conn.Close()
		return
	}
	p := &Pending{conn: conn, gone: make(chan struct{}), acks: make(chan ack, 4), now: s.now}
	if json.Unmarshal(line, &p.Request) != nil || p.Request.check(s.now()) != nil {
		_ = conn.Close()
		return
	}
	_ = conn.SetReadDeadline(time.Time{})
	select {
	case s.reqs <- p:
	case <-s.done:
		_ = conn.Close()
		return
	}
	go func() {
		select {
		case <-s.done:
			p.Leave()
		case <-p.gone:
		}
	}()
	defer func() {
		close(p.gone)
		p.Leave()
	}()
	for {
		line, err := readLine(br, MaxLineBytes)
		if err != nil {
			return
		}
		var a ack
		if json.Unmarshal(line, &a) == nil {
			select {
			case p.acks <- a:
			default:
			}
		}
	}
}

// Pending is one request waiting for its answer.
type Pending struct {
	Request Request
	conn    net.Conn
	gone    chan struct{}
	acks    chan ack
	now     func() time.Time
	mu      sync.Mutex
	closed  bool
}

// Gone is closed when the hook hangs up: it took an answer, it timed out,
// or Claude Code ended it (the prompt was answered in the terminal).
func (p *Pending) Gone() <-chan struct{} { return p.gone }

// Expired reports whether the request is past its deadline.
func (p *Pending) Expired() bool { return !p.now().Before(p.Request.Deadline) }

// Reply sends the answer (its nonce is the request's) and waits for the
// hook to take it: nil when it did; ErrExpired past the deadline,
// ErrGone when the hook hung up first, ErrRefused when it refused.
func (p *Pending) Reply(a Answer) error {
	if p.Expired() {
		return ErrExpired
	}
	a.Nonce = p.Request.Nonce
	if !a.Valid() {
		return fmt.Errorf("%w: not a valid answer", ErrRefused)
	}
	return p.send(a)
}

// send writes a (as is: tests forge answers with it) and waits for the ack.
func (p *Pending) send(a Answer) error {
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		return ErrGone
	}
	_ = p.conn.SetWriteDeadline(p.now().Add(2 * time.Second))
	err := writeLine(p.conn, a)
	p.mu.Unlock()
	if err != nil {
		return ErrGone
	}
	wait := time.NewTimer(time.Until(p.Request.Deadline) + time.Second)
	defer wait.Stop()
	select {
	case k := <-p.acks:
		return k.result(p.Request.Nonce)
	case <-p.gone:
		// The hook's ack, when it sent one, came before it hung up.
		select {
		case k := <-p.acks:
			return k.result(p.Request.Nonce)
		default:
		}
		return ErrGone
	case <-wait.C:
		return ErrExpired
	}
}

// Leave leaves the request to the terminal: the hook returns no answer.
func (p *Pending) Leave() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if !p.closed {
		p.closed = true
		_ = p.conn.Close()
	}
}

func (k ack) result(nonce string) error {
	if k.Accepted && k.Nonce == nonce {
		return nil
	}
	return fmt.Errorf("%w: %s", ErrRefused, k.Reason)
}
