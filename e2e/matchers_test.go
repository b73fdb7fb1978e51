package e2e

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestMatchersAgree plays the matcher table of internal/hookio
// (testdata/matchers.json) through the real Claude Code: for every
// matcher, Claude Code runs a hook of its own with it and spcstr a command
// strategy with the same matcher, on one Write. Both must fire for the
// same matchers, and those must be the ones the table says select Write.
func TestMatchersAgree(t *testing.T) {
	requireHarness(t)
	data, err := os.ReadFile(filepath.Join("..", "internal", "hookio", "testdata", "matchers.json"))
	if err != nil {
		t.Fatal(err)
	}
	var table []struct {
		Matcher string   `json:"matcher"`
		Match   []string `json:"match"`
	}
	if err := json.Unmarshal(data, &table); err != nil {
		t.Fatal(err)
	}
	var cfg strings.Builder
	cfg.WriteString("strategies:\n")
	var own []any
	var want []string
	for i, row := range table {
		id := fmt.Sprintf("m%02d", i)
		if slices.Contains(row.Match, "Write") {
			want = append(want, id)
		}
		q, _ := json.Marshal(row.Matcher)
		fmt.Fprintf(&cfg, "  %s:\n    command: 'echo %s >> spcstr-fired.txt'\n    hooks: [PreToolUse]\n    matcher: %s\n", id, id, q)
		own = append(own, map[string]any{"matcher": row.Matcher, "hooks": []any{map[string]any{
			"type": "command", "command": fmt.Sprintf(`echo %s >> "$CLAUDE_PROJECT_DIR/cc-fired.txt"`, id)}}})
	}
	sc := map[string]any{
		"description": "one Write, with a hook of Claude Code's own and a spcstr command strategy per matcher of the table",
		"prompt":      "Write notes.txt.",
		"timeout":     120,
		"project_files": map[string]any{
			"README.md":           "# scratch project\n",
			".spcstr/config.yaml": cfg.String(),
		},
		"settings": map[string]any{"hooks": map[string]any{"PreToolUse": own}},
		"turns": []any{
			map[string]any{"tools": []any{map[string]any{"name": "Write", "input": map[string]any{"file_path": "notes.txt", "content": "one\n"}}}},
			map[string]any{"text": "Done."},
		},
	}
	file := filepath.Join(t.TempDir(), "matchers.json")
	raw, _ := json.MarshalIndent(sc, "", "  ")
	if err := os.WriteFile(file, raw, 0o644); err != nil {
		t.Fatal(err)
	}
	r := runScenario(t, scenario{name: "matchers", file: file})
	read := func(name string) []string {
		b, err := os.ReadFile(filepath.Join(r.project, name))
		if err != nil && !os.IsNotExist(err) {
			t.Fatal(err)
		}
		ids := strings.Fields(string(b))
		slices.Sort(ids)
		return ids
	}
	cc, sp := read("cc-fired.txt"), read("spcstr-fired.txt")
	if !slices.Equal(cc, want) {
		t.Errorf("Claude Code ran its own hooks for %v on a Write; the table says %v", cc, want)
	}
	if !slices.Equal(sp, cc) {
		for i, row := range table {
			id := fmt.Sprintf("m%02d", i)
			if slices.Contains(cc, id) != slices.Contains(sp, id) {
				t.Errorf("matcher %q on a Write: Claude Code ran %t, spcstr ran %t", row.Matcher, slices.Contains(cc, id), slices.Contains(sp, id))
			}
		}
	}
}

// TestAnswerReadingAgrees runs one answering script as a hook of Claude
// Code's own (on Write) and as a spcstr command strategy (on Bash): an
// answer printed while a background child still holds stdout
// (`sleep 3 & echo '{…block…}'`) and an answer with a key in two cases
// (`{"decision":"block","Decision":"approve"}`). Claude Code blocks both;
// spcstr must too, as enforced decisions (not a crash, not an allow).
func TestAnswerReadingAgrees(t *testing.T) {
	requireHarness(t)
	script := `input=$(cat); case "$input" in *keycase*) echo '{"decision":"block","Decision":"approve","reason":"keycase-WHO"}';; ` +
		`*) sleep 3 & echo '{"decision":"block","reason":"background-WHO"}';; esac`
	sc := map[string]any{
		"description": "the same answers from a hook of Claude Code's own and from a spcstr command strategy",
		"prompt":      "Write two files and run two commands.",
		"timeout":     120,
		"project_files": map[string]any{
			"README.md": "# scratch project\n",
			".spcstr/config.yaml": "strategies:\n  answers:\n    command: " + yamlQuote(strings.ReplaceAll(script, "WHO", "spcstr")) +
				"\n    hooks: [PreToolUse]\n    matcher: Bash\n",
		},
		"settings": map[string]any{"hooks": map[string]any{"PreToolUse": []any{map[string]any{"matcher": "Write", "hooks": []any{
			map[string]any{"type": "command", "command": strings.ReplaceAll(script, "WHO", "cc")}}}}}},
		"turns": []any{
			map[string]any{"tools": []any{map[string]any{"name": "Write", "input": map[string]any{"file_path": "a.txt", "content": "background\n"}}}},
			map[string]any{"tools": []any{map[string]any{"name": "Write", "input": map[string]any{"file_path": "b.txt", "content": "keycase\n"}}}},
			map[string]any{"tools": []any{map[string]any{"name": "Bash", "input": map[string]any{"command": "echo background > c.txt"}}}},
			map[string]any{"tools": []any{map[string]any{"name": "Bash", "input": map[string]any{"command": "echo keycase > d.txt"}}}},
			map[string]any{"text": "Done."},
		},
	}
	file := filepath.Join(t.TempDir(), "answers.json")
	raw, _ := json.MarshalIndent(sc, "", "  ")
	if err := os.WriteFile(file, raw, 0o644); err != nil {
		t.Fatal(err)
	}
	r := runScenario(t, scenario{name: "answers", file: file})
	for _, f := range []string{"a.txt", "b.txt"} {
		if _, err := os.Stat(filepath.Join(r.project, f)); err == nil {
			t.Errorf("Claude Code let the Write of %s through: the premise of this test is gone", f)
		}
	}
	for _, f := range []string{"c.txt", "d.txt"} {
		if _, err := os.Stat(filepath.Join(r.project, f)); err == nil {
			t.Errorf("spcstr let the Bash writing %s through where Claude Code blocked the same answer", f)
		}
	}
	data, err := os.ReadFile(filepath.Join(r.spcstr, "logs", "decisions.json"))
	if err != nil {
		t.Fatal(err)
	}
	var recs []struct {
		Decision, Reason, Message, Enforcement string
	}
	if err := json.Unmarshal(data, &recs); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"background-spcstr", "keycase-spcstr"} {
		if !slices.ContainsFunc(recs, func(r struct{ Decision, Reason, Message, Enforcement string }) bool {
			return r.Decision == "deny" && r.Message == want && r.Enforcement == "enforced"
		}) {
			t.Errorf("no enforced deny %q in decisions.json: %+v", want, recs)
		}
	}
}

// yamlQuote quotes s as a YAML double-quoted scalar (JSON's quoting is one).
func yamlQuote(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}
