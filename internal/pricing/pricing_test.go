package pricing

import (
	"math"
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

// reference is Claude Code 2.1.330's catalogue as its price list states
// it (input, output, 5-minute and 1-hour cache write, cache read per
// million tokens; the context window), written out apart from table.go.
var reference = map[string][6]float64{
	"claude-3-5-haiku":  {0.8, 4.0, 1.0, 1.6, 0.08, 200e3},
	"claude-haiku-4-5":  {1.0, 5.0, 1.25, 2.0, 0.1, 200e3},
	"claude-haiku-5-5":  {0.1, 0.5, 0.125, 0.2, 0.01, 1e6},
	"claude-3-5-sonnet": {3.0, 15.0, 3.75, 6.0, 0.3, 200e3},
	"claude-3-7-sonnet": {3.0, 15.0, 3.75, 6.0, 0.3, 200e3},
	"claude-sonnet-4-0": {3.0, 15.0, 3.75, 6.0, 0.3, 200e3},
	"claude-sonnet-4-5": {3.0, 15.0, 3.75, 6.0, 0.3, 200e3},
	"claude-sonnet-4-6": {3.0, 15.0, 3.75, 6.0, 0.3, 200e3},
	"claude-sonnet-5":   {2.0, 10.0, 2.5, 4.0, 0.2, 1e6},
	"claude-sonnet-5-5": {2.0, 10.0, 2.5, 4.0, 0.1, 1e6},
	"claude-opus-4-0":   {15.0, 75.0, 18.75, 30.0, 1.5, 200e3},
	"claude-opus-4-1":   {15.0, 75.0, 18.75, 30.0, 1.5, 200e3},
	"claude-opus-4-5":   {5.0, 25.0, 6.25, 10.0, 0.5, 200e3},
	"claude-opus-4-6":   {5.0, 25.0, 6.25, 10.0, 0.5, 200e3},
	"claude-opus-4-7":   {5.0, 25.0, 6.25, 10.0, 0.5, 1e6},
	"claude-opus-4-8":   {5.0, 25.0, 6.25, 10.0, 0.5, 1e6},
	"claude-opus-5":     {5.0, 25.0, 6.25, 10.0, 0.5, 1e6},
	"claude-opus-5-5":   {4.0, 20.0, 5.0, 8.0, 0.2, 1e6},
	"claude-fable-5":    {10.0, 50.0, 12.5, 20.0, 1.0, 1e6},
	"claude-fable-5-1":  {10.0, 50.0, 12.5, 20.0, 0.25, 1e6},
	"claude-fable-5-2":  {8.0, 40.0, 10.0, 16.0, 0.2, 1e6},
	"claude-mythos-5":   {10.0, 50.0, 12.5, 20.0, 1.0, 1e6},
	"claude-mythos-5-1": {10.0, 50.0, 12.5, 20.0, 0.25, 1e6},
	"claude-mythos-5-2": {8.0, 40.0, 10.0, 16.0, 0.2, 1e6},
}

// Every model of the catalogue is priced at its rates, each kind of token
// apart, the 1-hour cache writes at the 1-hour rate, under its dated id
// too; its context window is the catalogue's.
func TestEveryModel(t *testing.T) {
	tab := Default()
	for model, r := range reference {
		t.Run(model, func(t *testing.T) {
			// 1M input, 2M output, 3M cache read, 4M cache writes of which 1M for one hour.
			u := state.ModelUsage{Input: 1e6, Output: 2e6, CacheRead: 3e6, CacheCreation: 4e6, CacheWrite1h: 1e6}
			want := r[0] + 2*r[1] + 3*r[4] + 3*r[2] + r[3]
			for _, id := range []string{model, model + "-20261101", model + "[1m]"} {
				e := tab.Cost(state.Tokens{ByModel: map[string]state.ModelUsage{id: u}}, "")
				if !e.Priced || !near(e.USD, want) {
					t.Errorf("%s: Cost = %+v, want $%v", id, e, want)
				}
			}
			if got := tab.ContextWindow(model, 1); got != int64(r[5]) {
				t.Errorf("ContextWindow = %d, want %v", got, r[5])
			}
			if got := ContextWindow(model, 1); got != int64(r[5]) {
				t.Errorf("package ContextWindow = %d, want %v", got, r[5])
			}
		})
	}
	for model := range tab {
		if _, ok := reference[model]; !ok && model != "claude-opus-4" && model != "claude-sonnet-4" {
			t.Errorf("%s is in the table and not in Claude Code's catalogue", model)
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
		text     string
	}{
		{"no tokens", state.Tokens{}, "claude-sonnet-4-5", 0, false, nil, ""},
		{"each kind priced apart", state.Tokens{ByModel: map[string]state.ModelUsage{
			"claude-sonnet-4-5-20250929": {Input: 1_000_000, Output: 1_000_000, CacheRead: 1_000_000, CacheCreation: 1_000_000}}},
			"", 3 + 15 + 0.30 + 3.75, true, nil, "$22.05"},
		{"two models", state.Tokens{ByModel: map[string]state.ModelUsage{
			"claude-opus-4-1-20250805":  {Output: 100_000},
			"claude-haiku-4-5-20251001": {Input: 2_000_000}}},
			"", 7.5 + 2, true, nil, "$9.50"},
		{"one model not in the table: the rest is a lower bound", state.Tokens{ByModel: map[string]state.ModelUsage{
			"claude-opus-9":             {Output: 100},
			"claude-haiku-4-5-20251001": {Input: 420_000}}},
			"", 0.42, false, []string{"claude-opus-9"}, "≥ $0.42, 1 model unpriced"},
		{"two unknown models", state.Tokens{ByModel: map[string]state.ModelUsage{
			"x": {Output: 100}, "y+us": {Output: 1}, "claude-haiku-4-5": {Input: 2_000_000}}},
			"", 2, false, []string{"x", "y"}, "≥ $2.00, 2 models unpriced"},
		{"a model with no tokens does not count", state.Tokens{ByModel: map[string]state.ModelUsage{
			"mystery":          {},
			"claude-haiku-4-5": {Output: 1_000_000}}},
			"", 5, true, nil, "$5.00"},
		{"1-hour cache writes at the 1-hour rate", state.Tokens{ByModel: map[string]state.ModelUsage{
			"claude-opus-5-5": {CacheCreation: 100_000, CacheWrite1h: 100_000}}},
			"", 0.8, true, nil, "$0.80"},
		{"inference_geo us: ×1.1 on tokens, not on searches", state.Tokens{ByModel: map[string]state.ModelUsage{
			"claude-opus-5-5+us": {Input: 1_000_000, WebSearches: 10}}},
			"", 4*1.1 + 0.1, true, nil, "$4.50"},
		{"long prompt tier of haiku 5.5", state.Tokens{ByModel: map[string]state.ModelUsage{
			"claude-haiku-5-5+long": {Input: 1_000_000, Output: 1_000_000, CacheRead: 1_000_000, CacheCreation: 2_000_000, CacheWrite1h: 1_000_000},
			"claude-haiku-5-5":      {Input: 1_000_000}}},
			"", 0.5 + 2.5 + 0.05 + 0.625 + 1 + 0.1, true, nil, "$4.77"},
		{"an alias", state.Tokens{ByModel: map[string]state.ModelUsage{"opus": {Input: 1_000_000}}}, "", 4, true, nil, "$4.00"},
		{"an older state: totals at the session's model", state.Tokens{Input: 1_000_000}, "claude-sonnet-4-5[1m]", 3, true, nil, "$3.00"},
		{"an older state with an unknown model", state.Tokens{Input: 10}, "claude-opus-9-9", 0, false, []string{"claude-opus-9-9"}, ""},
		{"an older state without a model", state.Tokens{Input: 10}, "", 0, false, []string{"unknown"}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := tab.Cost(tt.tok, tt.model)
			if e.Priced != tt.priced || !near(e.USD, tt.usd) || !reflect.DeepEqual(e.Unpriced, tt.unpriced) {
				t.Errorf("Cost = %+v, want USD %v priced %v unpriced %v", e, tt.usd, tt.priced, tt.unpriced)
			}
			if got := e.String(); got != tt.text {
				t.Errorf("String = %q, want %q", got, tt.text)
			}
		})
	}
}

func TestVariantKey(t *testing.T) {
	for _, tt := range []struct {
		model, geo string
		prompt     int64
		want       string
	}{
		{"claude-opus-5-5", "", 5_000_000, "claude-opus-5-5"},
		{"claude-opus-5-5", "global", 1, "claude-opus-5-5"},
		{"claude-opus-5-5", "us", 1, "claude-opus-5-5+us"},
		{"claude-haiku-5-5", "", 100_000, "claude-haiku-5-5"},
		{"claude-haiku-5-5-20260601", "us", 100_001, "claude-haiku-5-5-20260601+long+us"},
	} {
		got := VariantKey(tt.model, tt.geo, tt.prompt)
		if got != tt.want {
			t.Errorf("VariantKey(%q, %q, %d) = %q, want %q", tt.model, tt.geo, tt.prompt, got, tt.want)
		}
		if m, _, _ := SplitVariant(got); m != tt.model {
			t.Errorf("SplitVariant(%q) model = %q", got, m)
		}
	}
}

func near(a, b float64) bool { return a-b < 1e-9 && b-a < 1e-9 }

func TestLoadOverrides(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "config.yaml")
	os.WriteFile(p, []byte("pricing:\n  claude-opus-9: {input: 5, output: 25, cache_read: 0.5, cache_write: 6.25}\n  claude-sonnet-4-5-20250929: {input: 1, output: 2, cache_write: 1}\n"), 0o644)
	cfg, err := config.Load(p)
	if err != nil {
		t.Fatal(err)
	}
	tab, err := Load(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if pr, ok := tab.Lookup("claude-opus-9"); !ok || pr.Output != 25 || pr.CacheWrite1h != 10 {
		t.Errorf("added model: %+v %v", pr, ok)
	}
	if pr, _ := tab.Lookup("claude-sonnet-4-5"); pr.Input != 1 || pr.CacheRead != 0 || pr.CacheWrite1h != 1.6 || pr.ContextWindow != 200_000 {
		t.Errorf("replaced model: %+v", pr)
	}
	if _, ok := Default().Lookup("claude-opus-9"); ok {
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

// Summed takes a fork's inherited messages out of its figure (never below
// zero) and leaves other sessions' figures alone.
func TestSummed(t *testing.T) {
	tab := Default()
	out := func(n int64) map[string]state.ModelUsage {
		return map[string]state.ModelUsage{"claude-opus-5-5": {Output: n}} // $20 per million
	}
	tests := []struct {
		name string
		s    state.Session
		want float64
	}{
		{"no fork", state.Session{ClaudeCost: &state.ClaudeCost{USD: 1.5}}, 1.5},
		{"fork, Claude Code's figure", state.Session{ClaudeCost: &state.ClaudeCost{USD: 1.5}, Inherited: out(50_000)}, 0.5},
		{"fork, estimate", state.Session{Tokens: state.Tokens{ByModel: out(75_000)}, Inherited: out(50_000)}, 0.5},
		{"inherited above the figure", state.Session{ClaudeCost: &state.ClaudeCost{USD: 0.1}, Inherited: out(50_000)}, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tab.Summed(&tt.s).USD; math.Abs(got-tt.want) > 1e-9 {
				t.Errorf("Summed = %v, want %v", got, tt.want)
			}
			if got := tab.Session(&tt.s).USD; tt.s.Inherited != nil && got == tt.want {
				t.Errorf("Session = %v: the session's own figure must keep what it inherited", got)
			}
		})
	}
}
