package cmd

import (
	"context"
	"os/exec"
	"strings"
	"testing"

	"github.com/spf13/cobra"
)

// TestHookBinaryLinksNoDashboard guards the hook path: every package
// linked into spcstr runs its init on every hook call, so Bubble Tea, Lip
// Gloss and the terminal libraries (whose inits build parser tables and
// width caches) must stay in the spcstr-tui companion binary.
func TestHookBinaryLinksNoDashboard(t *testing.T) {
	banned := []string{"charm.land/", "github.com/charmbracelet/", "github.com/mattn/go-runewidth",
		"github.com/fsnotify/", "github.com/dylan-gluck/spcstr/tui"}
	out, err := exec.Command("go", "list", "-deps", "github.com/dylan-gluck/spcstr/cmd/spcstr").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	for _, pkg := range strings.Fields(string(out)) {
		for _, b := range banned {
			if strings.HasPrefix(pkg, b) {
				t.Errorf("spcstr links %s: its init would run on every hook call", pkg)
			}
		}
	}
	out, err = exec.Command("go", "list", "-deps", "github.com/dylan-gluck/spcstr/cmd/spcstr-tui").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	if !strings.Contains(string(out), "charm.land/bubbletea/v2\n") {
		t.Errorf("spcstr-tui does not link Bubble Tea: this test no longer checks anything")
	}
}

// TestTuiFlagsRoundTrip: the flags spcstr hands the companion parse back to
// the same values.
func TestTuiFlagsRoundTrip(t *testing.T) {
	for _, f := range []TuiFlags{
		{},
		{Dir: "/p/with space", Bell: true},
		{All: true, Registry: "/r/reg.json", Title: "demo"},
		{Dir: "-C", Title: "--all"},
	} {
		var got TuiFlags
		c := NewTuiCmd(func(_ context.Context, _ *cobra.Command, g TuiFlags) error { got = g; return nil })
		c.SetArgs(f.Args())
		if err := c.Execute(); err != nil {
			t.Fatalf("%+v: %v", f, err)
		}
		if got != f {
			t.Errorf("%+v came back as %+v", f, got)
		}
	}
}
