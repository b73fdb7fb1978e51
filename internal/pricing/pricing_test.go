package pricing

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/dylan-gluck/spcstr/internal/config"
	"github.com/dylan-gluck/spcstr/state"
)

func TestKey(t *testing.T) {
	for in, want := range map[string]string{
		"claude-sonnet-4-5-20250929":      "claude-sonnet-4-5",
		"claude-sonnet-4-5-20250929[1m]":  "claude-sonnet-4-5",
		"Claude-Opus-4-1-20250805":        "claude-opus-4-1",
		"claude-opus-4-6":                 "claude-opus-4-6",
		"claude-sonnet-4-20250514":        "claude-sonnet-4",
		"opus":                            "opus",
		"claude-haiku-4-5-20251001 ":      "claude-haiku-4-5",
		"claude-3-5-sonnet-20241022":      "claude-3-5-sonnet",
		"claude-opus-4-5-20251101-beta-x": "claude-opus-4-5-20251101-beta-x",
	} {
		if got := Key(in); got != want {
			t.Errorf("Key(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestCost(t *testing.T) {
	tab := Default()
	tests := []struct {
		name     string
		tok      state.Tokens
		model    string
		usd      float64
		priced   bool
		unpriced []string
	}{
		{"no tokens", state.Tokens{}, "claude-sonnet-4-5", 0, false, nil},
		{"each kind priced apart", state.Tokens{ByModel: map[string]state.ModelUsage{
			"claude-sonnet-4-5-20250929": {Input: 1_000_000, Output: 1_000_000, CacheRead: 1_000_000, CacheCreation: 1_000_000}}},
			"", 3 + 15 + 0.30 + 3.75, true, nil},
		{"two models", state.Tokens{ByModel: map[string]state.ModelUsage{
			"claude-opus-4-1-20250805":  {Output: 100_000},
			"claude-haiku-4-5-20251001": {Input: 2_000_000}}},
			"", 7.5 + 2, true, nil},
		{"one model not in the table: no price at all", state.Tokens{ByModel: map[string]state.ModelUsage{
			"claude-opus-4-6":           {Output: 100},
			"claude-haiku-4-5-20251001": {Input: 2_000_000}}},
			"", 0, false, []string{"claude-opus-4-6"}},
		{"a model with no tokens does not count", state.Tokens{ByModel: map[string]state.ModelUsage{
			"mystery":          {},
			"claude-haiku-4-5": {Output: 1_000_000}}},
			"", 5, true, nil},
		{"an older state: totals at the session's model", state.Tokens{Input: 1_000_000}, "claude-sonnet-4-5[1m]", 3, true, nil},
		{"an older state with an unknown model", state.Tokens{Input: 10}, "claude-opus-5-5", 0, false, []string{"claude-opus-5-5"}},
		{"an older state without a model", state.Tokens{Input: 10}, "", 0, false, []string{"unknown"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := tab.Cost(tt.tok, tt.model)
			if e.Priced != tt.priced || !near(e.USD, tt.usd) || !reflect.DeepEqual(e.Unpriced, tt.unpriced) {
				t.Errorf("Cost = %+v, want USD %v priced %v unpriced %v", e, tt.usd, tt.priced, tt.unpriced)
			}
		})
	}
}

func near(a, b float64) bool { return a-b < 1e-9 && b-a < 1e-9 }

func TestLoadOverrides(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "config.yaml")
	os.WriteFile(p, []byte("pricing:\n  claude-opus-5-5: {input: 5, output: 25, cache_read: 0.5, cache_write: 6.25}\n  claude-sonnet-4-5-20250929: {input: 1, output: 2}\n"), 0o644)
	cfg, err := config.Load(p)
	if err != nil {
		t.Fatal(err)
	}
	tab, err := Load(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if pr, ok := tab.Lookup("claude-opus-5-5"); !ok || pr.Output != 25 {
		t.Errorf("added model: %+v %v", pr, ok)
	}
	if pr, _ := tab.Lookup("claude-sonnet-4-5"); pr.Input != 1 || pr.CacheRead != 0 {
		t.Errorf("replaced model: %+v", pr)
	}
	if _, ok := Default().Lookup("claude-opus-5-5"); ok {
		t.Error("Load changed the bundled table")
	}

	os.WriteFile(p, []byte("pricing:\n  x: {input: -1}\n"), 0o644)
	cfg, _ = config.Load(p)
	if _, err := Load(cfg); err == nil || !strings.Contains(err.Error(), "negative") {
		t.Errorf("negative price: %v", err)
	}
	os.WriteFile(p, []byte("pricing:\n  x: {inptu: 1}\n"), 0o644)
	cfg, _ = config.Load(p)
	if _, err := Load(cfg); err == nil {
		t.Error("a misspelt key is accepted")
	}
}

func TestFormat(t *testing.T) {
	for usd, want := range map[float64]string{0: "<$0.01", 0.004: "<$0.01", 0.42: "$0.42", 12.3: "$12.30", 1234.4: "$1,234", 1234567: "$1,234,567"} {
		if got := Format(usd); got != want {
			t.Errorf("Format(%v) = %q, want %q", usd, got, want)
		}
	}
}
