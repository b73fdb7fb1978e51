package config_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/dylan-gluck/spcstr/internal/config"
	"github.com/dylan-gluck/spcstr/internal/feedback"
	"github.com/dylan-gluck/spcstr/internal/requirements"
)

// FuzzConfigReaders feeds arbitrary bytes, as a committed repository could,
// to every reader of a project configuration file: .spcstr/config.yaml
// (and the feedback section built on it), .claude/requirements.yaml and
// the orchestration limits file. None may panic or hang; each either
// loads or returns an error. Seeds live in testdata/fuzz/FuzzConfigReaders,
// so plain `go test` runs them.
func FuzzConfigReaders(f *testing.F) {
	f.Add([]byte("dry_run: true\nlogs:\n  max_bytes: 100\nfeedback:\n  enabled: true\n"))
	f.Add([]byte("requirements:\n  a:\n    enabled: true\n    scope: session\n"))
	f.Add([]byte("inter_phase:\n  max_iterations: 3\n"))
	f.Add([]byte("a: &a [*a, *a]\n"))
	f.Add([]byte("\x00\xff\x1b]52;c;x\x07"))
	f.Fuzz(func(t *testing.T, data []byte) {
		root := t.TempDir()
		write := func(rel string) string {
			p := filepath.Join(root, rel)
			if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(p, data, 0o644); err != nil {
				t.Fatal(err)
			}
			return p
		}
		cfg, err := config.Load(write(".spcstr/config.yaml"))
		if cfg == nil {
			t.Fatalf("Load returned no config (err %v)", err)
		}
		_, _ = feedback.LoadConfig(cfg)
		write(".claude/requirements.yaml")
		getenv := func(k string) string {
			if k == "HOME" {
				return root
			}
			return ""
		}
		_, _ = requirements.LoadConfig(root, getenv)
		_, _ = feedback.LoadLimits(write(".claude/config/orchestration-limits.yaml"))
	})
}
