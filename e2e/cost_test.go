package e2e

import (
	"bytes"
	"encoding/json"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dylan-gluck/spcstr/internal/pricing"
	"github.com/dylan-gluck/spcstr/state"
)

// claudeResult is the cost part of Claude Code's own `result` line
// (stream-json): its total and its per-model usage.
type claudeResult struct {
	Type       string  `json:"type"`
	TotalCost  float64 `json:"total_cost_usd"`
	ModelUsage map[string]struct {
		Input         int64   `json:"inputTokens"`
		Output        int64   `json:"outputTokens"`
		CacheRead     int64   `json:"cacheReadInputTokens"`
		CacheCreation int64   `json:"cacheCreationInputTokens"`
		CostUSD       float64 `json:"costUSD"`
	} `json:"modelUsage"`
}

// readResult returns the last result line of Claude Code's stdout.
func readResult(t *testing.T, out string) (claudeResult, bool) {
	t.Helper()
	return readResultFile(t, filepath.Join(out, "claude.stdout"))
}

// readResultFile returns the last result line of a stream-json stdout.
func readResultFile(t *testing.T, path string) (claudeResult, bool) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var res claudeResult
	found := false
	for _, line := range bytes.Split(data, []byte("\n")) {
		if !bytes.Contains(line, []byte(`"total_cost_usd"`)) {
			continue
		}
		var r claudeResult
		if json.Unmarshal(line, &r) == nil && r.Type == "result" {
			res, found = r, true
		}
	}
	return res, found
}

// exported is the part of spcstr's JSON export this check reads.
type exported struct {
	Sessions []struct {
		SessionID string `json:"session_id"`
		Tokens    struct {
			Input, Output int64
			CacheRead     int64 `json:"cache_read"`
			CacheCreation int64 `json:"cache_creation"`
		} `json:"tokens"`
		Cost struct {
			USD             *float64 `json:"usd"`
			Source          string   `json:"source"`
			ForkedFrom      string   `json:"forked_from"`
			InheritedUSD    *float64 `json:"inherited_usd"`
			LowerBound      bool     `json:"lower_bound"`
			Unpriced        []string `json:"unpriced_models"`
			ClaudeCodeGuess *float64 `json:"claude_code_guess_usd"`
			Models          []struct {
				Model         string   `json:"model"`
				USD           *float64 `json:"usd"`
				Input, Output int64
			} `json:"models"`
		} `json:"cost"`
	} `json:"sessions"`
}

func within1pc(got, want float64) bool {
	return math.Abs(got-want) <= 0.01*math.Abs(want)+1e-9
}

// checkCost: spcstr's export gives Claude Code's total_cost_usd (within
// 1 %) and its modelUsage token totals, marked as Claude Code's figure;
// and spcstr's own estimate from the transcripts it read (main and
// subagents) matches Claude Code's figure within 1 % too, except where a
// request is in no transcript (a compaction): there it is lower.
func checkCost(t *testing.T, r *run) {
	res, ok := readResult(t, r.out)
	if !ok {
		t.Fatal("claude.stdout has no result line with total_cost_usd")
	}
	cmd := exec.Command(spcstrBin, "export", r.sid, "--format", "json", "--dir", r.project)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("spcstr export: %v\n%s", err, stderr.String())
	}
	var ex exported
	if err := json.Unmarshal(out, &ex); err != nil || len(ex.Sessions) != 1 {
		t.Fatalf("export: %v, %d sessions", err, len(ex.Sessions))
	}
	s := ex.Sessions[0]
	var in, outT, read, write int64
	for _, m := range res.ModelUsage {
		in, outT, read, write = in+m.Input, outT+m.Output, read+m.CacheRead, write+m.CacheCreation
	}
	if s.Cost.USD == nil || !within1pc(*s.Cost.USD, res.TotalCost) {
		t.Errorf("export cost.usd %v, Claude Code's total_cost_usd %v", s.Cost.USD, res.TotalCost)
	}
	if s.Cost.Source != pricing.SourceClaudeCode {
		t.Errorf("export cost.source %q, want %q (Claude Code's cost-state line)", s.Cost.Source, pricing.SourceClaudeCode)
	}
	if got := [4]int64{s.Tokens.Input, s.Tokens.Output, s.Tokens.CacheRead, s.Tokens.CacheCreation}; got != [4]int64{in, outT, read, write} {
		t.Errorf("export tokens %v, Claude Code's modelUsage totals %v", got, [4]int64{in, outT, read, write})
	}

	// spcstr's own estimate, from the usage the recorder read.
	data, err := os.ReadFile(filepath.Join(r.spcstr, "sessions", r.sid, "state.json"))
	if err != nil {
		t.Fatal(err)
	}
	var st state.Session
	if err := json.Unmarshal(data, &st); err != nil {
		t.Fatal(err)
	}
	est := pricing.Default().Usage(st.Tokens.ByModel, st.Tokens, st.Model)
	if !est.Priced {
		t.Fatalf("estimate not priced: unpriced %v", est.Unpriced)
	}
	compacted := strings.Contains(r.sc.name, "compact")
	switch {
	case compacted && est.USD > res.TotalCost*1.01:
		t.Errorf("estimate $%.6f above Claude Code's $%.6f", est.USD, res.TotalCost)
	case !compacted && !within1pc(est.USD, res.TotalCost):
		t.Errorf("estimate $%.6f, Claude Code's $%.6f (tokens %+v)", est.USD, res.TotalCost, est.Tokens)
	}
	if !compacted {
		if got := [4]int64{est.Tokens.Input, est.Tokens.Output, est.Tokens.CacheRead, est.Tokens.CacheCreation}; got != [4]int64{in, outT, read, write} {
			t.Errorf("estimate's tokens %v, Claude Code's %v", got, [4]int64{in, outT, read, write})
		}
	}
}
