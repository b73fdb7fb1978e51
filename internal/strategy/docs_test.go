package strategy

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dylan-gluck/spcstr/internal/feedback"
)

// The configuration examples in docs/feedback-and-strategies.md load
// without problems, so the documentation cannot drift from the code.
func TestDocsExamples(t *testing.T) {
	data, err := os.ReadFile("../../docs/feedback-and-strategies.md")
	if err != nil {
		t.Fatal(err)
	}
	var blocks []string
	for _, part := range strings.Split(string(data), "```yaml\n")[1:] {
		blocks = append(blocks, part[:strings.Index(part, "```")])
	}
	found := 0
	documented := map[string]bool{}
	for _, b := range blocks {
		cfg := cfgFrom(t, b)
		switch {
		case strings.HasPrefix(b, "strategies:"):
			found++
			if p := Validate(cfg); len(p) != 0 {
				t.Errorf("strategies example: %v", p)
			}
			for _, a := range Active(cfg) {
				documented[a.Name] = true
			}
		case strings.HasPrefix(b, "inter_phase:"):
			found++
			lim, err := feedback.LoadLimits(filepath.Dir(cfg.Path), filepath.Base(cfg.Path))
			if err != nil || lim.MaxFailures("frontend", feedback.PhaseTesting) != 5 || lim.MaxFeedbackIterations != 5 {
				t.Errorf("limits example: %v %+v", err, lim)
			}
		case strings.HasPrefix(b, "feedback:"):
			found++
			c, err := feedback.LoadConfig(cfg)
			if err != nil || !c.Enabled || c.Route(".claude/tools/x.ts") != "tools" {
				t.Errorf("feedback example: %v %+v", err, c)
			}
		}
	}
	for _, name := range BuiltinNames() {
		if !documented[name] {
			t.Errorf("no example enables %s", name)
		}
		if !strings.Contains(string(data), "| "+name+" |") {
			t.Errorf("the strategies table lacks %s", name)
		}
	}
	if found != 6 { // the command strategy example included
		t.Fatalf("found %d examples", found)
	}
}
