package notify

import (
	"strings"
	"testing"
	"time"

	"github.com/dylan-gluck/spcstr/tui/store"
)

func TestTrackerNotices(t *testing.T) {
	t0 := time.Date(2026, 1, 15, 12, 0, 0, 0, time.UTC)
	tr := &Tracker{LongTurn: time.Minute}
	look := func(at time.Duration, display string) []Notice {
		return tr.Observe("p", []Row{{ID: "s1", Title: "Fix it", Display: display, Asks: "permission to use Bash"}}, t0.Add(at))
	}
	steps := []struct {
		at      time.Duration
		display string
		want    string // the notice's body, "" for none
	}{
		{0, store.StatusPermission, ""}, // first sighting: not news
		{time.Second, store.StatusPermission, ""},
		{2 * time.Second, store.StatusWorking, ""},
		{3 * time.Second, store.StatusPermission, "permission to use Bash"},
		{4 * time.Second, store.StatusWorking, ""},
		{30 * time.Second, store.StatusIdle, ""}, // a short turn
		{40 * time.Second, store.StatusWorking, ""},
		{40*time.Second + 90*time.Second, store.StatusWorking, ""},
		{40*time.Second + 2*time.Minute, store.StatusIdle, "finished its turn after 2m"},
	}
	for i, s := range steps {
		got := look(s.at, s.display)
		switch {
		case s.want == "" && len(got) != 0:
			t.Fatalf("step %d: %+v, want none", i, got)
		case s.want != "" && (len(got) != 1 || !strings.Contains(got[0].Body, s.want) || got[0].Title != "Fix it"):
			t.Fatalf("step %d: %+v, want one saying %q", i, got, s.want)
		}
	}
}

func TestSequence(t *testing.T) {
	tests := []struct {
		kind   string
		tmux   bool
		prefix string
	}{
		{"osc9", false, "\x1b]9;Fix it: waits\x1b\\"},
		{"osc777", false, "\x1b]777;notify;Fix it;waits\x1b\\"},
		{"osc99", false, "\x1b]99;i=spcstr:d=0;Fix it\x1b\\"},
		{"osc9", true, "\x1bPtmux;\x1b\x1b]9;Fix it: waits\x1b\x1b\\\x1b\\"},
	}
	for _, tt := range tests {
		if got := Sequence(tt.kind, "Fix it", "waits", tt.tmux); !strings.HasPrefix(got, tt.prefix) {
			t.Errorf("%s tmux=%v: %q, want it to start %q", tt.kind, tt.tmux, got, tt.prefix)
		}
	}
	// Text from a session cannot end the sequence or start another.
	got := Sequence("osc777", "a\x1b]0;x\x07b;c", "d\ne", false)
	if strings.Count(got, "\x1b") != 2 || strings.Contains(got, "\x07") || strings.Contains(got, "\n") || !strings.Contains(got, ";ab,c;") {
		t.Errorf("unsafe text passed through: %q", got)
	}
}

func TestChoose(t *testing.T) {
	env := func(kv ...string) func(string) string {
		return func(k string) string {
			for i := 0; i+1 < len(kv); i += 2 {
				if kv[i] == k {
					return kv[i+1]
				}
			}
			return ""
		}
	}
	if m, _ := Choose("", nil, env("KITTY_WINDOW_ID", "1")); m.Kind != "osc99" {
		t.Errorf("kitty: %+v", m)
	}
	if m, _ := Choose("auto", nil, env("TERM_PROGRAM", "WezTerm")); m.Kind != "osc9" {
		t.Errorf("WezTerm: %+v", m)
	}
	if m, _ := Choose("command", []string{"my-notify", "--urgent"}, env()); m.Kind != "command" || m.Command[0] != "my-notify" {
		t.Errorf("command: %+v", m)
	}
	if _, err := Choose("command", nil, env()); err == nil {
		t.Error("command without notify_command: no error")
	}
	if _, err := Choose("pigeon", nil, env()); err == nil {
		t.Error("unknown notify_via: no error")
	}
}
