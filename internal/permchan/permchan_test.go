package permchan

import (
	"context"
	"errors"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// shortDir is a private folder with a short path (a Unix socket's path is
// limited to about 100 bytes; t.TempDir's can be longer).
func shortDir(t *testing.T) string {
	t.Helper()
	d, err := os.MkdirTemp("", "pc")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = os.RemoveAll(d) })
	dir := filepath.Join(d, "spcstr")
	if err := MakeDir(dir); err != nil {
		t.Fatal(err)
	}
	return dir
}

type asked struct {
	a   Answer
	err error
	req *Request
}

func ask(t *testing.T, ctx context.Context, dir, root string, wait time.Duration) <-chan asked {
	t.Helper()
	out := make(chan asked, 1)
	req := &Request{SessionID: "s1", ToolName: "Bash", ToolInput: []byte(`{"command":"npm publish"}`),
		AskedAt: time.Now(), Deadline: time.Now().Add(wait)}
	go func() {
		a, err := Ask(ctx, dir, SocketPath(dir, root), req)
		out <- asked{a, err, req}
	}()
	return out
}

func next(t *testing.T, s *Server) *Pending {
	t.Helper()
	select {
	case p := <-s.Requests():
		return p
	case <-time.After(10 * time.Second):
		t.Fatal("no request reached the dashboard")
	}
	return nil
}

func TestCheckDir(t *testing.T) {
	base := t.TempDir()
	good := filepath.Join(base, "good")
	if err := MakeDir(good); err != nil {
		t.Fatalf("MakeDir: %v", err)
	}
	open := filepath.Join(base, "open")
	if err := os.Mkdir(open, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(open, 0o755); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(base, "link")
	if err := os.Symlink(good, link); err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(base, "file")
	if err := os.WriteFile(file, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		dir  string
		safe bool
	}{{good, true}, {open, false}, {link, false}, {file, false}} {
		err := CheckDir(tc.dir)
		if (err == nil) != tc.safe {
			t.Errorf("CheckDir(%s) = %v, want safe=%v", filepath.Base(tc.dir), err, tc.safe)
		}
		if !tc.safe && !errors.Is(err, ErrUnsafeDir) {
			t.Errorf("CheckDir(%s) = %v, want ErrUnsafeDir", filepath.Base(tc.dir), err)
		}
	}
	if err := MakeDir(open); !errors.Is(err, ErrUnsafeDir) {
		t.Errorf("MakeDir on a folder others can enter = %v, want ErrUnsafeDir", err)
	}
}

func TestDirAndSocketPath(t *testing.T) {
	env := map[string]string{"XDG_RUNTIME_DIR": "/run/user/1000"}
	if got := Dir(func(k string) string { return env[k] }); got != "/run/user/1000/spcstr" {
		t.Errorf("Dir = %s", got)
	}
	env["XDG_RUNTIME_DIR"] = "relative"
	if got := Dir(func(k string) string { return env[k] }); !strings.Contains(got, "spcstr-") {
		t.Errorf("Dir with a relative runtime dir = %s, want the /tmp fallback", got)
	}
	a, b := SocketPath("/d", "/p/one"), SocketPath("/d", "/p/two")
	if a == b || a != SocketPath("/d", "/p/one/") || strings.Contains(a, "one") {
		t.Errorf("SocketPath: %s %s", a, b)
	}
}

func TestWaitFrom(t *testing.T) {
	for v, want := range map[string]time.Duration{
		"": DefaultWait, "30": 30 * time.Second, "1m": time.Minute, "0": 0, "junk": DefaultWait,
		"-5s": DefaultWait, "2h": MaxWait, "10x": DefaultWait,
	} {
		if got := WaitFrom(func(string) string { return v }); got != want {
			t.Errorf("WaitFrom(%q) = %v, want %v", v, got, want)
		}
	}
}

func TestNoDashboard(t *testing.T) {
	dir := shortDir(t)
	got := <-ask(t, context.Background(), dir, "/p", time.Minute)
	if !errors.Is(got.err, ErrNoDashboard) {
		t.Fatalf("Ask with no dashboard = %v, want ErrNoDashboard", got.err)
	}
	// A folder that is not private is never used, even with a listener.
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if _, err := Listen(dir, "/p", nil); !errors.Is(err, ErrUnsafeDir) {
		t.Fatalf("Listen in a shared folder = %v, want ErrUnsafeDir", err)
	}
}

func TestAnswers(t *testing.T) {
	for _, tc := range []struct {
		name string
		ans  Answer
	}{
		{"allow", Answer{Behavior: Allow}},
		{"deny with message", Answer{Behavior: Deny, Message: "use the staging registry"}},
		{"always", Answer{Behavior: Allow, Always: true}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := shortDir(t)
			s, err := Listen(dir, "/p", nil)
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			res := ask(t, context.Background(), dir, "/p", time.Minute)
			p := next(t, s)
			if p.Request.ToolName != "Bash" || !strings.Contains(string(p.Request.ToolInput), "npm publish") {
				t.Errorf("request = %+v", p.Request)
			}
			if err := p.Reply(tc.ans); err != nil {
				t.Fatalf("Reply: %v", err)
			}
			got := <-res
			if got.err != nil {
				t.Fatalf("Ask: %v", got.err)
			}
			want := tc.ans
			want.Nonce = got.req.Nonce
			if got.a != want {
				t.Errorf("hook got %+v, want %+v", got.a, want)
			}
			<-p.Gone()
			if err := p.Reply(tc.ans); !errors.Is(err, ErrGone) {
				t.Errorf("second Reply = %v, want ErrGone", err)
			}
		})
	}
}

func TestForgedAndStaleAnswers(t *testing.T) {
	dir := shortDir(t)
	s, err := Listen(dir, "/p", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	first := ask(t, context.Background(), dir, "/p", time.Minute)
	p1 := next(t, s)
	if err := p1.Reply(Answer{Behavior: Deny}); err != nil {
		t.Fatal(err)
	}
	<-first
	res := ask(t, context.Background(), dir, "/p", time.Minute)
	p := next(t, s)
	if p.Request.Nonce == p1.Request.Nonce {
		t.Fatal("two requests share a nonce")
	}
	// The first request's answer again: stale, refused.
	if err := p.send(Answer{Nonce: p1.Request.Nonce, Behavior: Allow}); !errors.Is(err, ErrRefused) {
		t.Errorf("stale answer = %v, want ErrRefused", err)
	}
	// A made-up nonce: refused.
	if err := p.send(Answer{Nonce: strings.Repeat("ab", 16), Behavior: Allow}); !errors.Is(err, ErrRefused) {
		t.Errorf("forged answer = %v, want ErrRefused", err)
	}
	// Not an answer at all: refused.
	if err := p.send(Answer{Nonce: p.Request.Nonce, Behavior: "maybe"}); !errors.Is(err, ErrRefused) {
		t.Errorf("invalid answer = %v, want ErrRefused", err)
	}
	if err := p.Reply(Answer{Behavior: Deny, Message: "no"}); err != nil {
		t.Fatalf("the real answer after refused ones: %v", err)
	}
	if got := <-res; got.err != nil || got.a.Behavior != Deny || got.a.Message != "no" {
		t.Errorf("hook got %+v, %v", got.a, got.err)
	}
}

func TestTimeout(t *testing.T) {
	dir := shortDir(t)
	s, err := Listen(dir, "/p", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	res := ask(t, context.Background(), dir, "/p", 300*time.Millisecond)
	p := next(t, s)
	got := <-res
	if !errors.Is(got.err, ErrTimeout) {
		t.Fatalf("Ask past its deadline = %v, want ErrTimeout", got.err)
	}
	<-p.Gone()
	if err := p.Reply(Answer{Behavior: Allow}); !errors.Is(err, ErrExpired) {
		t.Errorf("Reply past the deadline = %v, want ErrExpired", err)
	}
}

func TestExpiredOnTheDashboardsClock(t *testing.T) {
	dir := shortDir(t)
	later := func() time.Time { return time.Now().Add(2 * time.Minute) }
	s, err := Listen(dir, "/p", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	res := ask(t, context.Background(), dir, "/p", time.Minute)
	p := next(t, s)
	p.now = later
	if err := p.Reply(Answer{Behavior: Allow}); !errors.Is(err, ErrExpired) {
		t.Errorf("Reply = %v, want ErrExpired", err)
	}
	p.Leave()
	if got := <-res; !errors.Is(got.err, ErrLeft) {
		t.Errorf("Ask after Leave = %v, want ErrLeft", got.err)
	}
}

func TestDeadHook(t *testing.T) {
	dir := shortDir(t)
	s, err := Listen(dir, "/p", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	ctx, cancel := context.WithCancel(context.Background())
	res := ask(t, ctx, dir, "/p", time.Minute)
	p := next(t, s)
	cancel() // Claude Code ended the hook: the terminal answered
	<-res
	select {
	case <-p.Gone():
	case <-time.After(10 * time.Second):
		t.Fatal("the dashboard did not notice the hook's end")
	}
	if err := p.Reply(Answer{Behavior: Allow}); !errors.Is(err, ErrGone) {
		t.Errorf("Reply to a dead hook = %v, want ErrGone", err)
	}
}

func TestSecondDashboardAndStaleSocket(t *testing.T) {
	dir := shortDir(t)
	s, err := Listen(dir, "/p", nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Listen(dir, "/p", nil); !errors.Is(err, ErrLeaseHeld) {
		t.Fatalf("second dashboard = %v, want ErrLeaseHeld", err)
	}
	other, err := Listen(dir, "/other", nil)
	if err != nil {
		t.Fatalf("another project's dashboard: %v", err)
	}
	_ = other.Close()
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Lstat(s.Path()); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("socket left after Close: %v", err)
	}
	// A dashboard that died leaves its socket: the next one takes over.
	ln, err := net.Listen("unix", SocketPath(dir, "/p"))
	if err != nil {
		t.Fatal(err)
	}
	ln.(*net.UnixListener).SetUnlinkOnClose(false)
	_ = ln.Close()
	s2, err := Listen(dir, "/p", nil)
	if err != nil {
		t.Fatalf("Listen over a dead dashboard's socket: %v", err)
	}
	res := ask(t, context.Background(), dir, "/p", time.Minute)
	p := next(t, s2)
	_ = s2.Close() // quitting leaves open requests to the terminal
	if got := <-res; !errors.Is(got.err, ErrLeft) {
		t.Errorf("Ask when the dashboard quits = %v, want ErrLeft", got.err)
	}
	<-p.Gone()
}

func TestMalformedRequestsAreDropped(t *testing.T) {
	dir := shortDir(t)
	s, err := Listen(dir, "/p", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	for _, line := range []string{
		"not json\n",
		`{"v":1,"nonce":"short","session_id":"s","tool_name":"Bash","deadline":"2999-01-01T00:00:00Z"}` + "\n",
		`{"v":1,"nonce":"` + strings.Repeat("a", 32) + `","session_id":"s","tool_name":"Bash","deadline":"2000-01-01T00:00:00Z"}` + "\n",
		`{"v":2,"nonce":"` + strings.Repeat("a", 32) + `","session_id":"s","tool_name":"Bash","deadline":"2999-01-01T00:00:00Z"}` + "\n",
	} {
		c, err := net.Dial("unix", s.Path())
		if err != nil {
			t.Fatal(err)
		}
		if _, err := c.Write([]byte(line)); err != nil {
			t.Fatal(err)
		}
		buf := make([]byte, 1)
		if _, err := c.Read(buf); err == nil {
			t.Errorf("%q: the dashboard wrote to a malformed request", line)
		}
		_ = c.Close()
	}
	select {
	case p := <-s.Requests():
		t.Errorf("a malformed request was delivered: %+v", p.Request)
	default:
	}
}
