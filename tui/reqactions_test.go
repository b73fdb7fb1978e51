package tui

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/dylan-gluck/spcstr/internal/registry"
	"github.com/dylan-gluck/spcstr/internal/requirements"
	"github.com/dylan-gluck/spcstr/tui/reqs"
)

// TestRequirementActionsEndToEnd drives the requirements pane with the real
// actions (as cmd/tui.go wires them): s and x must change the state file the
// hooks read, the pane after its reload, and what the next hook sees.
func TestRequirementActionsEndToEnd(t *testing.T) {
	f := newFixture(t)
	f.populate(t)
	f.policies(t)
	opt := f.options()
	opt.ReqActions = reqs.DefaultActions()
	m := New(context.Background(), opt)
	m.tick = 0
	m = drive(t, m, m.Init())
	m = send(t, m, tea.WindowSizeMsg{Width: 120, Height: 40})
	root := f.layout.Root
	const name = "pre_commit_review" // single_use, triggered and unmet in the fixture

	check := func(step string, want bool) {
		t.Helper()
		// (a) the state file
		file, err := requirements.Locate(root).Load()
		if err != nil {
			t.Fatalf("%s: state file: %v", step, err)
		}
		if got := file.IsSatisfied(name, requirements.ScopeSingleUse, registry.ShortID(idBusy), float64(time.Now().Unix())); got != want {
			t.Errorf("%s: state file %s says satisfied=%v, want %v", step, requirements.Locate(root).Path, got, want)
		}
		// (b) the pane, after its reload
		fr := plain(m)
		mark := "☐ " + name
		if want {
			mark = "✓ " + name
		}
		if !strings.Contains(fr, mark) {
			t.Errorf("%s: pane does not show %q:\n%s", step, mark, fr)
		}
		// (c) what the next hook sees
		sts, err := requirements.Statuses(root, idBusy)
		if err != nil {
			t.Fatalf("%s: Statuses: %v", step, err)
		}
		found := false
		for _, st := range sts {
			if st.Name == name {
				found = true
				if st.Satisfied != want {
					t.Errorf("%s: Statuses says satisfied=%v, want %v", step, st.Satisfied, want)
				}
			}
		}
		if !found {
			t.Fatalf("%s: Statuses lacks %s: %+v", step, name, sts)
		}
	}

	m = send(t, m, press("4", "j")...)
	check("before", false)
	// s asks first; n leaves the state alone.
	m = send(t, m, press("s")...)
	if fr := plain(m); !strings.Contains(fr, "Satisfy "+name+" for this session? y/n") {
		t.Errorf("s: no question in the footer:\n%s", fr)
	}
	m = send(t, m, press("n")...)
	check("after s, n", false)
	m = send(t, m, press("s", "y")...)
	if fr := plain(m); !strings.Contains(fr, "satisfied for this session: "+name) {
		t.Errorf("s: no confirmation in the footer:\n%s", fr)
	}
	check("after s, y", true)
	if file, err := requirements.Locate(root).Load(); err != nil {
		t.Fatal(err)
	} else if b, _ := json.Marshal(file.Requirements[name]); !strings.Contains(string(b), `"satisfied_by":"dashboard"`) {
		t.Errorf("the state file does not record satisfied_by dashboard: %s", b)
	}
	// Another session of the branch is not satisfied by a session-level s.
	if sts, _ := requirements.Statuses(root, idBg); satisfied(sts, name) {
		t.Errorf("s for %s satisfied %s for %s too", idBusy, name, idBg)
	}
	m = send(t, m, press("x")...)
	if fr := plain(m); !strings.Contains(fr, "Clear "+name+" for this session? y/n") {
		t.Errorf("x: no question in the footer:\n%s", fr)
	}
	m = send(t, m, press("y")...)
	if fr := plain(m); !strings.Contains(fr, "cleared: "+name) {
		t.Errorf("x: no confirmation in the footer:\n%s", fr)
	}
	check("after x", false)
}

func satisfied(sts []requirements.Status, name string) bool {
	for _, st := range sts {
		if st.Name == name {
			return st.Satisfied
		}
	}
	return false
}
