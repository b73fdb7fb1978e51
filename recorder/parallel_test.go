package recorder

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/dylan-gluck/spcstr/internal/gate"
	"github.com/dylan-gluck/spcstr/internal/hookio"
)

// barrierGate decides only once every one of n hooks has reached it: were
// gates run under the session's lock, the first would hold the lock and
// the others could never arrive.
type barrierGate struct {
	n       int
	mu      sync.Mutex
	arrived int
	all     chan struct{}
}

func (g *barrierGate) Name() string     { return "barrier" }
func (g *barrierGate) FailClosed() bool { return true }
func (g *barrierGate) Evaluate(ctx context.Context, in *gate.Input) ([]gate.Verdict, error) {
	if in.Name != hookio.PreToolUse {
		return nil, nil
	}
	g.mu.Lock()
	g.arrived++
	if g.arrived == g.n {
		close(g.all)
	}
	g.mu.Unlock()
	select {
	case <-g.all:
	case <-ctx.Done():
		return nil, ctx.Err()
	case <-time.After(2 * time.Minute):
		return nil, fmt.Errorf("only %d of %d hooks reached their gate together", g.arrived, g.n)
	}
	return []gate.Verdict{{Decision: gate.Deny, Reason: "barrier", Message: "all together"}}, nil
}

// Six parallel PreToolUse hooks of one session (parallel tool calls,
// background agents) run their gates at the same time: no gate runs under
// the session's lock. Each event is in its log before its gate runs, and
// all six events, answers and decisions are kept, the state counting six.
func TestParallelGatesOutsideTheLock(t *testing.T) {
	p := newProject(t)
	const n = 6
	g := &barrierGate{n: n, all: make(chan struct{})}
	var seenLogged []int
	var seenMu sync.Mutex
	p.gates = func(gate.Setup) []gate.Gate { return []gate.Gate{g} }
	p.run([]byte(`{"session_id":"s-par","hook_event_name":"SessionStart","source":"startup"}`), "")
	var wg sync.WaitGroup
	outs := make([]string, n)
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var out, errOut bytes.Buffer
			pl := fmt.Sprintf(`{"session_id":"s-par","hook_event_name":"PreToolUse","tool_name":"Bash","tool_use_id":"toolu_%d","tool_input":{"command":"ls"}}`, i)
			now := t0.Add(time.Duration(10+i) * time.Second)
			Run(context.Background(), Options{Stdin: strings.NewReader(pl), Stdout: &out, Stderr: &errOut,
				Getenv: func(k string) string { return p.env[k] }, Now: func() time.Time { return now },
				Gates: func(s gate.Setup) []gate.Gate {
					return []gate.Gate{&loggedProbe{p: p, id: fmt.Sprintf("toolu_%d", i), seen: func(ok bool) {
						seenMu.Lock()
						defer seenMu.Unlock()
						if ok {
							seenLogged = append(seenLogged, i)
						}
					}}, g}
				},
				Alive: func(int) bool { return true }})
			outs[i] = out.String()
		}()
	}
	wg.Wait()
	for i, out := range outs {
		if !strings.Contains(out, `"permissionDecision":"deny"`) || !strings.Contains(out, "all together") {
			t.Errorf("hook %d answered %q", i, out)
		}
	}
	if len(seenLogged) != n {
		t.Errorf("%d of %d events were in their log when their gates ran", len(seenLogged), n)
	}
	if got := len(p.log("pre_tool_use")); got != n {
		t.Errorf("%d PreToolUse events logged, want %d", got, n)
	}
	if got := len(p.log("answers")); got != n {
		t.Errorf("%d answers recorded, want %d", got, n)
	}
	if got := len(p.log("decisions")); got != n {
		t.Errorf("%d decisions recorded, want %d", got, n)
	}
	if s := p.state("s-par"); s.EventCounts[hookio.PreToolUse] != n {
		t.Errorf("state counts %d PreToolUse, want %d", s.EventCounts[hookio.PreToolUse], n)
	}
}

// loggedProbe is a gate that checks its event is already in its log.
type loggedProbe struct {
	p    *project
	id   string
	seen func(bool)
}

func (g *loggedProbe) Name() string     { return "probe" }
func (g *loggedProbe) FailClosed() bool { return false }
func (g *loggedProbe) Evaluate(_ context.Context, in *gate.Input) ([]gate.Verdict, error) {
	if in.Name != hookio.PreToolUse {
		return nil, nil
	}
	data, _ := readLog(g.p, "pre_tool_use")
	g.seen(bytes.Contains(data, []byte(`"tool_use_id":"`+g.id+`"`)))
	return nil, nil
}

func readLog(p *project, snake string) ([]byte, error) {
	return os.ReadFile(p.layout().LogPath(snake))
}
