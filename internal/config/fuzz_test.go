package config_test

import (
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/dylan-gluck/spcstr/internal/config"
	"github.com/dylan-gluck/spcstr/internal/feedback"
	"github.com/dylan-gluck/spcstr/internal/requirements"
	"github.com/dylan-gluck/spcstr/internal/strategy"
)

// FuzzConfigReaders feeds arbitrary bytes, as a committed repository could,
// to every reader of a project configuration file: .spcstr/config.yaml
// (and the feedback section and strategies built on it),
// .claude/requirements.yaml and the orchestration limits file. None may
// panic or hang; each either loads or returns an error, within a memory
// bound (allocated bytes per input) and a time budget measured from this
// machine's speed at decoding a reference document near the size bound.
// Seeds live in testdata/fuzz/FuzzConfigReaders, so plain `go test` runs
// them (the alias bombs and deep nesting of issue 23 among them).
func FuzzConfigReaders(f *testing.F) {
	budget := readersBudget(f)
	f.Add([]byte("dry_run: true\nlogs:\n  max_bytes: 100\nfeedback:\n  enabled: true\n"))
	f.Add([]byte("requirements:\n  a:\n    enabled: true\n    scope: session\n"))
	f.Add([]byte("inter_phase:\n  max_iterations: 3\n"))
	f.Add([]byte("a: &a [*a, *a]\n"))
	f.Add([]byte("\x00\xff\x1b]52;c;x\x07"))
	f.Fuzz(func(t *testing.T, data []byte) {
		var m0, m1 runtime.MemStats
		runtime.ReadMemStats(&m0)
		start := time.Now()
		defer func() {
			took := time.Since(start)
			runtime.ReadMemStats(&m1)
			if alloc := m1.TotalAlloc - m0.TotalAlloc; alloc > maxAllocPerInput {
				t.Errorf("%d bytes of input allocated %d MB (bound %d MB)", len(data), alloc>>20, maxAllocPerInput>>20)
			}
			if took > budget {
				t.Errorf("%d bytes of input took %v (budget %v)", len(data), took, budget)
			}
		}()
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
		if cfg != nil {
			_ = strategy.Active(cfg)
		}
		write(".claude/config/orchestration-limits.yaml")
		_, _ = feedback.LoadLimits(root, ".claude/config/orchestration-limits.yaml")
	})
}

// maxAllocPerInput bounds what the readers allocate for one input of at
// most a few MB: a bounded decoder costs a small multiple of its input.
const maxAllocPerInput = 512 << 20

// readersBudget is the time one input may take: ten times what a 512 KiB
// reference document (the readers' realistic worst case) takes here, and
// at least two seconds.
func readersBudget(f *testing.F) time.Duration {
	var b strings.Builder
	b.WriteString("requirements:\n")
	for i := 0; b.Len() < 512<<10; i++ {
		b.WriteString("  r" + strings.Repeat("x", i%7) + string(rune('a'+i%26)) + ":\n    enabled: true\n    scope: session\n    trigger_tools: [Edit, Write, {tool: Bash, command_pattern: 'git commit'}]\n")
	}
	dir := f.TempDir()
	p := filepath.Join(dir, "ref.yaml")
	if err := os.WriteFile(p, []byte(b.String()), 0o644); err != nil {
		f.Fatal(err)
	}
	start := time.Now()
	_, _ = config.Load(p)
	return max(10*time.Since(start), 2*time.Second)
}
