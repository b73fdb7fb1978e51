package recorder

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// hookMemLimitKB is the address-space limit (ulimit -v) the hostile
// repositories' hooks run under: 1 GiB, as issue 23 asks. A Go binary
// reserves a few hundred MB of address space at start, so this leaves a
// hook about 300 MB of heap; an explosion fails the test with "out of
// memory" instead of eating the machine.
const hookMemLimitKB = 1 << 20

// underLimit runs the real spcstr binary with args in p's root under
// hookMemLimitKB and a deadline.
func underLimit(t *testing.T, p *project, stdin []byte, args ...string) hookResult {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	sh := fmt.Sprintf(`ulimit -v %d || exit 97; exec "$0" "$@"`, hookMemLimitKB)
	cmd := exec.CommandContext(ctx, "sh", append([]string{"-c", sh, spcstrBin}, args...)...)
	cmd.Dir = p.root
	cmd.Env = append([]string{"PATH=" + os.Getenv("PATH")}, p.envList()...)
	cmd.Stdin = bytes.NewReader(stdin)
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	err := cmd.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatalf("run spcstr: %v", err)
	}
	if ctx.Err() != nil {
		t.Fatalf("spcstr %v: killed after 2 minutes: %.300s", args, errOut.String())
	}
	if code == 97 {
		t.Fatal("ulimit -v refused")
	}
	return hookResult{code, out.String(), errOut.String()}
}

// healthy fails t unless a hook run exited 0 without a runtime trace or
// raw terminal controls on stderr.
func healthy(t *testing.T, what string, res hookResult) {
	t.Helper()
	if res.code != 0 || strings.Contains(res.stderr, "fatal error") || strings.Contains(res.stderr, "goroutine ") {
		t.Fatalf("%s: exit %d: %.600s", what, res.code, res.stderr)
	}
	if strings.ContainsAny(res.stderr, "\x1b\x07\u009b\u009d") {
		t.Errorf("%s: raw controls on stderr: %q", what, res.stderr)
	}
}

// aliasBomb is issue 23's 591-byte bomb: ten anchors, each a list of ten
// aliases of the one before, indented by prefix.
func aliasBomb(prefix string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%sa0: &a0 [x, x, x, x, x, x, x, x, x, x]\n", prefix)
	for i := 1; i < 10; i++ {
		fmt.Fprintf(&b, "%sa%d: &a%d [%s*a%d]\n", prefix, i, i, strings.Repeat(fmt.Sprintf("*a%d, ", i-1), 9), i-1)
	}
	return b.String()
}

func deepFlow(n int) string {
	return "x: " + strings.Repeat("[", n) + strings.Repeat("]", n) + "\n"
}

func ev(name, id, rest string) string {
	s := `{"hook_event_name":"` + name + `","session_id":"` + id + `"`
	if rest != "" {
		s += "," + rest
	}
	return s + "}"
}

// readableByStrictTools parses every file of the logs folder with
// Python's json module and with jq (issue 23 row 6: the README promises
// both read every log).
func readableByStrictTools(t *testing.T, p *project) {
	t.Helper()
	files, _ := filepath.Glob(filepath.Join(p.root, ".spcstr", "logs", "*.json"))
	if len(files) == 0 {
		t.Fatal("no logs")
	}
	py := exec.Command("python3", append([]string{"-c", "import json,sys\nfor f in sys.argv[1:]:\n  json.load(open(f))"}, files...)...)
	if out, err := py.CombinedOutput(); err != nil {
		t.Errorf("python3 json: %v\n%.500s", err, out)
	}
	jq, err := exec.LookPath("jq")
	if err != nil {
		t.Fatal("jq is needed (scripts/test installs it)")
	}
	for _, f := range files {
		if out, err := exec.Command(jq, "empty", f).CombinedOutput(); err != nil {
			t.Errorf("jq on %s: %v: %.300s", filepath.Base(f), err, out)
		}
	}
}

// TestHostileRepositories is issue 23's table: each repository (or
// payload) made a hook exit 2 with a runtime trace, run for minutes, eat
// gigabytes, leak raw escapes, or lose the meaning of the durable record.
// Every hook runs under a 1 GiB address-space limit and must exit 0.
func TestHostileRepositories(t *testing.T) {
	const id = "hostile-repo"
	start := ev("SessionStart", id, `"source":"startup"`)
	read := ev("PreToolUse", id, `"tool_name":"Read","tool_use_id":"r1","tool_input":{"file_path":"a.go"}`)
	bigContent := strings.Repeat("w", 100<<10)
	writeIn := `"tool_name":"Write","tool_use_id":"w1","tool_input":{"file_path":"big.go","content":"` + bigContent + `"}`
	tests := []struct {
		name     string
		files    map[string]string // relative path: content
		links    map[string]string // relative path: symlink target
		payloads []string
		args     [][]string // other commands run under the limit
		check    func(t *testing.T, p *project, results []hookResult)
	}{
		{
			name:     "1 alias bomb in long-running.feature_schema",
			files:    map[string]string{".spcstr/config.yaml": "strategies:\n  long-running:\n    feature_schema:\n" + aliasBomb("      ")},
			payloads: []string{start, read},
			args:     [][]string{{"doctor"}, {"req", "list"}},
			check: func(t *testing.T, p *project, _ []hookResult) {
				if n := len(p.log("pre_tool_use")); n != 1 {
					t.Errorf("pre_tool_use.json has %d entries", n)
				}
				if !strings.Contains(fmt.Sprint(p.state(id).Errors), "bounds") {
					t.Errorf("config over bounds not reported: %v", p.state(id).Errors)
				}
			},
		},
		{
			name: "1b alias bomb as a manifest's current_phase",
			files: map[string]string{
				".spcstr/config.yaml":             "strategies:\n  precompact-context: {}\n",
				".claude/.output/x/MANIFEST.yaml": aliasBomb("") + "current_phase: *a9\n",
			},
			payloads: []string{start, ev("PreCompact", id, `"trigger":"auto"`)},
		},
		{
			name:     "2 deep nesting in config.yaml",
			files:    map[string]string{".spcstr/config.yaml": deepFlow(100_000)},
			payloads: []string{start, read},
			args:     [][]string{{"doctor"}},
		},
		{
			name: "2 deep nesting in requirements.yaml",
			files: map[string]string{
				".spcstr/config.yaml":       "feedback:\n  enabled: true\n",
				".claude/requirements.yaml": deepFlow(100_000),
			},
			payloads: []string{start, read, ev("Stop", id, "")},
			args:     [][]string{{"req", "list"}, {"req", "status"}},
		},
		{
			name: "3 progress_file ../secret/id_rsa",
			files: map[string]string{
				".spcstr/config.yaml": "strategies:\n  long-running:\n    progress_file: ../secret/id_rsa\n    feature_list: features.json\n    hooks: [SessionStart]\n",
				"features.json":       `[{"description":"d","passes":false}]`,
				"../secret/id_rsa":    "SECRET-KEY-MATERIAL\n",
			},
			payloads: []string{start},
			check:    noSecret,
		},
		{
			name: "3 committed symlinks to outside files",
			files: map[string]string{
				".spcstr/config.yaml": "strategies:\n  long-running:\n    hooks: [SessionStart]\n",
				"../secret/id_rsa":    "SECRET-KEY-MATERIAL\n",
				"../secret/list.json": `[{"description":"SECRET-KEY-MATERIAL","passes":false}]`,
			},
			links: map[string]string{
				"claude-progress.txt": "../secret/id_rsa",
				"feature_list.json":   "../secret/list.json",
			},
			payloads: []string{start},
			check:    noSecret,
		},
		{
			name: "4 a .git file naming a committed folder with a symlink out",
			files: map[string]string{
				".git":                      "gitdir: .fakegit\n",
				".fakegit/HEAD":             "ref: refs/heads/settings\n",
				"../elsewhere/keep":         "x",
				".spcstr/config.yaml":       "dry_run: false\n",
				".claude/requirements.yaml": "requirements:\n  commit_plan:\n    enabled: true\n    scope: session\n",
			},
			links:    map[string]string{".fakegit/requirements": "../../elsewhere"},
			payloads: []string{start, ev("PreToolUse", id, `"tool_name":"Edit","tool_use_id":"e1","tool_input":{"file_path":"a.go"}`), ev("SessionEnd", id, `"reason":"exit"`)},
			args:     [][]string{{"req", "satisfy", "--session", id, "commit_plan"}},
			check: func(t *testing.T, p *project, _ []hookResult) {
				if got := tree(t, filepath.Join(filepath.Dir(p.root), "elsewhere")); strings.Join(got, " ") != "./ keep" {
					t.Errorf("written through the symlink: %v", got)
				}
			},
		},
		{
			name:     "5 a Write over 64 KiB keeps file_path, and rebuild agrees",
			payloads: []string{start, ev("PreToolUse", id, writeIn), ev("PostToolUse", id, writeIn+`,"tool_response":{"type":"create","filePath":"big.go","content":"`+bigContent+`"}`)},
			check: func(t *testing.T, p *project, _ []hookResult) {
				entries := p.log("post_tool_use")
				if len(entries) != 1 {
					t.Fatalf("post_tool_use.json has %d entries", len(entries))
				}
				in, _ := entries[0]["input"].(map[string]any)
				ti, _ := in["tool_input"].(map[string]any)
				if ti["file_path"] != "big.go" || in["tool_use_id"] != "w1" {
					t.Errorf("small fields lost: %.300v", in)
				}
				tr, _ := entries[0]["truncated"].(map[string]any)
				if tr["tool_input.content"] == nil || tr["tool_response.content"] == nil {
					t.Errorf("cut not marked by path: %v", tr)
				}
				before := p.state(id).Files
				healthy(t, "rebuild", underLimit(t, p, nil, "rebuild", id))
				after := p.state(id).Files
				if fmt.Sprint(before) != fmt.Sprint(after) || !strings.Contains(fmt.Sprint(after), "big.go") {
					t.Errorf("files: hooks wrote %v, rebuild %v", before, after)
				}
			},
		},
		{
			name: "6 deep payloads, lone surrogates: every log readable by jq and Python",
			payloads: []string{
				start,
				ev("PostToolUse", id, `"tool_name":"Bash","tool_use_id":"d1","tool_input":{"command":"x"},"tool_response":`+strings.Repeat("[", 254)+strings.Repeat("]", 254)),
				ev("UserPromptSubmit", id, `"prompt":"a\ud800b"`),
				ev("Stop", id, `"x":`+strings.Repeat("[", 3000)+strings.Repeat("]", 3000)),
			},
			check: func(t *testing.T, p *project, _ []hookResult) {
				if n := len(p.log("rejected")); n != 1 {
					t.Errorf("rejected.json has %d entries, want the 3,000-deep payload", n)
				}
				readableByStrictTools(t, p)
			},
		},
		{
			name:     "9 escapes in a config parse error stay off stderr",
			files:    map[string]string{".spcstr/config.yaml": "x: [\x1b]52;c;aGVsbG8=\x07\x1b]0;owned\x07\n  : :\n"},
			payloads: []string{start},
			args:     [][]string{{"rebuild", "\x1b[31mred\x1b]0;title\x07"}, {"doctor"}},
		},
		{
			name:     "11 a 100 MB payload",
			payloads: []string{start, ev("PostToolUse", id, `"tool_name":"Write","tool_use_id":"h1","tool_input":{"file_path":"huge.txt","content":"`+strings.Repeat("h", 100<<20)+`"}`)},
			check: func(t *testing.T, p *project, results []hookResult) {
				if n := len(p.log("rejected")); n != 1 {
					t.Errorf("rejected.json has %d entries, want the 100 MB payload", n)
				}
				if !strings.Contains(results[1].stderr, "larger than") {
					t.Errorf("not reported: %q", results[1].stderr)
				}
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := newProject(t)
			for name, content := range tt.files {
				write(t, filepath.Join(p.root, name), content)
			}
			for name, target := range tt.links {
				if err := os.Symlink(target, filepath.Join(p.root, name)); err != nil {
					t.Fatal(err)
				}
			}
			var results []hookResult
			for i, pl := range tt.payloads {
				res := underLimit(t, p, []byte(pl), "hook")
				healthy(t, fmt.Sprintf("hook %d", i), res)
				results = append(results, res)
			}
			for _, args := range tt.args {
				res := underLimit(t, p, nil, args...)
				if res.code > 1 || strings.Contains(res.stderr, "fatal error") || strings.ContainsAny(res.stdout+res.stderr, "\x1b\x07") {
					t.Errorf("%q: exit %d: %.600q", args, res.code, res.stdout+res.stderr)
				}
			}
			if tt.check != nil {
				tt.check(t, p, results)
			}
		})
	}
}

// noSecret fails t when anything a hook printed (context for the model)
// quotes the file outside the project.
func noSecret(t *testing.T, _ *project, results []hookResult) {
	t.Helper()
	if !strings.Contains(results[0].stdout, "spcstr refused") {
		t.Errorf("refusal not reported: %.300s", results[0].stdout)
	}
	for i, r := range results {
		if strings.Contains(r.stdout, "SECRET-KEY-MATERIAL") {
			t.Errorf("hook %d gave the model an outside file: %.300s", i, r.stdout)
		}
	}
}

// TestDoctorFindsDamagedRecords: issue 23 rows 7 and 8 and the SIGKILL
// storms' state one event behind its logs. Each used to leave doctor
// saying nothing; it now names each, and doctor --fix mends each.
func TestDoctorFindsDamagedRecords(t *testing.T) {
	const id = "damaged-records"
	tests := []struct {
		name   string
		damage func(t *testing.T, p *project, keep []byte)
		says   string
	}{
		{"7 a torn line in observability.jsonl", func(t *testing.T, p *project, _ []byte) {
			path, _ := p.layout().ObservabilityPath(id)
			data, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			i := bytes.IndexByte(data, '\n')
			torn := append(append(append([]byte{}, data[:i+1]...), `{"ts":"2026-01-`+"\n"...), data[i+1:]...)
			write(t, path, string(torn))
		}, "torn lines"},
		{"8 state.json behind its logs", func(t *testing.T, p *project, keep []byte) {
			path, _ := p.layout().StatePath(id)
			write(t, path, string(keep))
		}, "events behind its logs"},
		{"8 a damaged section in state.json", func(t *testing.T, p *project, _ []byte) {
			path, _ := p.layout().StatePath(id)
			data, _ := os.ReadFile(path)
			write(t, path, strings.Replace(string(data), `"prompts":[{`, `"prompts":[{{`, 1))
		}, "does not parse"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := newProject(t)
			healthy(t, "start", underLimit(t, p, []byte(ev("SessionStart", id, `"source":"startup"`)), "hook"))
			healthy(t, "prompt", underLimit(t, p, []byte(ev("UserPromptSubmit", id, `"prompt":"hi"`)), "hook"))
			statePath, _ := p.layout().StatePath(id)
			keep, err := os.ReadFile(statePath)
			if err != nil {
				t.Fatal(err)
			}
			healthy(t, "read", underLimit(t, p, []byte(ev("PreToolUse", id, `"tool_name":"Read","tool_use_id":"r1","tool_input":{"file_path":"a.go"}`)), "hook"))
			before := p.state(id)
			tt.damage(t, p, keep)
			res := underLimit(t, p, nil, "doctor")
			if !strings.Contains(res.stdout, tt.says) {
				t.Fatalf("doctor did not say %q:\n%s", tt.says, res.stdout)
			}
			res = underLimit(t, p, nil, "doctor", "--fix")
			fixed, report, _ := strings.Cut(res.stdout, "spcstr doctor:")
			if !strings.Contains(fixed, "Fixed") || strings.Contains(report, tt.says) {
				t.Errorf("doctor --fix:\n%s\n%s", res.stdout, res.stderr)
			}
			after := p.state(id)
			if fmt.Sprint(after.EventCounts) != fmt.Sprint(before.EventCounts) {
				t.Errorf("event counts after --fix %v, hooks wrote %v", after.EventCounts, before.EventCounts)
			}
		})
	}
}

// Issue 23 row 7: a line torn off the end of observability.jsonl (a full
// disk, a kill) used to end up in the middle of the file once the next
// hook appended. The next hook now cuts it off under the log's lock and
// keeps it in observability.jsonl.torn: every line of the log parses.
func TestTornObservabilityTailCut(t *testing.T) {
	const id = "torn-observability"
	p := newProject(t)
	healthy(t, "start", underLimit(t, p, []byte(ev("SessionStart", id, `"source":"startup"`)), "hook"))
	path, _ := p.layout().ObservabilityPath(id)
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteString(`{"ts":"2026-01-15T12:0`); err != nil {
		t.Fatal(err)
	}
	f.Close()
	healthy(t, "read", underLimit(t, p, []byte(ev("PreToolUse", id, `"tool_name":"Read","tool_use_id":"r1","tool_input":{"file_path":"a.go"}`)), "hook"))
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	for i, line := range strings.Split(strings.TrimSuffix(string(data), "\n"), "\n") {
		if !json.Valid([]byte(line)) {
			t.Errorf("line %d does not parse: %q", i+1, line)
		}
	}
	if torn, err := os.ReadFile(path + ".torn"); err != nil || !strings.Contains(string(torn), `{"ts":"2026-01-15T12:0`) {
		t.Errorf("torn line not kept aside: %q %v", torn, err)
	}
	if res := underLimit(t, p, nil, "doctor"); strings.Contains(res.stdout, "torn") {
		t.Errorf("doctor still sees a torn line:\n%s", res.stdout)
	}
}
