package recorder

import (
	"context"
	"crypto/sha256"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/dylan-gluck/spcstr/internal/config"
	"github.com/dylan-gluck/spcstr/internal/gate"
	"github.com/dylan-gluck/spcstr/internal/hookio"
	"github.com/dylan-gluck/spcstr/state"
)

// fileTree lists every entry under dir with its mode, size, modification time
// and content hash: two equal trees are the same files, untouched.
func fileTree(t *testing.T, dir string) string {
	t.Helper()
	var lines []string
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		fi, err := os.Lstat(p)
		if err != nil {
			return err
		}
		sum := ""
		if fi.Mode().IsRegular() {
			data, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			sum = fmt.Sprintf("%x", sha256.Sum256(data))
		}
		rel, _ := filepath.Rel(dir, p)
		lines = append(lines, fmt.Sprintf("%s %v %d %d %s", rel, fi.Mode(), fi.Size(), fi.ModTime().UnixNano(), sum))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(lines)
	return strings.Join(lines, "\n")
}

// transcriptAt writes a transcript whose main agent used ctx tokens of
// context at each timestamp.
func transcriptAt(t *testing.T, path string, lines ...string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
}

func usageLine(id, at string, ctx int) string {
	return fmt.Sprintf(`{"type":"assistant","sessionId":"s1","timestamp":%q,"message":{"id":%q,"model":"claude-x","role":"assistant","content":[{"type":"text","text":"working"}],"usage":{"input_tokens":%d,"output_tokens":100,"cache_read_input_tokens":0,"cache_creation_input_tokens":0}}}`, at, id, ctx)
}

// TestDryRunReplaysLogs: a recorded session replayed through a new
// configuration gives the decisions the strategies would have taken at
// each event, with the tokens of that moment, and leaves .spcstr/ exactly
// as it was (every file, byte and modification time).
func TestDryRunReplaysLogs(t *testing.T) {
	p := newGateProject(t, "strategies:\n  session-reminder:\n    text: hi\n")
	tr := filepath.Join(p.root, "transcript.jsonl")
	// 10:00:01 SessionStart … 10:00:04 Stop (the gate project's clock).
	transcriptAt(t, tr,
		usageLine("m1", "2026-01-18T10:00:01Z", 20_000),
		usageLine("m2", "2026-01-18T10:00:02Z", 30_000),
		usageLine("m3", "2026-01-18T10:00:03Z", 190_000))
	p.hook(hookio.SessionStart, map[string]any{"source": "startup", "transcript_path": tr})
	p.hook(hookio.PreToolUse, map[string]any{"tool_name": "Agent", "tool_use_id": "a1", "tool_input": map[string]any{"subagent_type": "x", "prompt": "p"}})
	p.hook(hookio.PreToolUse, map[string]any{"tool_name": "Agent", "tool_use_id": "a2", "tool_input": map[string]any{"subagent_type": "x", "prompt": "p"}})
	p.hook(hookio.Stop, map[string]any{"stop_hook_active": false})

	// The configuration to try: the compaction gate, clean-state (a
	// required file is missing), and a notify command that must not run.
	cfgText := "strategies:\n  token-budget:\n    deny_agents_above: 85%\n  clean-state:\n    require_files: [MISSING.md]\n" +
		"  notify:\n    command: 'touch " + filepath.Join(p.root, "notified") + "'\n"
	p.write(".spcstr/config.yaml", cfgText)
	before := fileTree(t, filepath.Join(p.root, ".spcstr"))
	cfg, err := config.Load(filepath.Join(p.root, ".spcstr/config.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	rep, err := DryRun(context.Background(), DryRunOptions{Layout: state.Layout{Root: p.root}, Config: cfg, SessionID: "s1",
		Getenv: func(string) string { return "" }})
	if err != nil {
		t.Fatal(err)
	}
	if after := fileTree(t, filepath.Join(p.root, ".spcstr")); after != before {
		t.Fatalf(".spcstr changed:\nbefore\n%s\nafter\n%s", before, after)
	}
	if _, err := os.Stat(filepath.Join(p.root, "notified")); err == nil {
		t.Fatal("the notify command ran during a dry run")
	}
	var got []string
	for _, st := range rep.Steps {
		for _, d := range st.Decisions {
			got = append(got, fmt.Sprintf("%d %s %s %s %s", st.Index, st.Event, d.Source, d.Decision, d.Reason))
		}
	}
	want := []string{
		// a1 at 10:00:02: 30k of context; a2 at 10:00:03: 190k, over 85 %.
		"3 PreToolUse strategy:token-budget deny context-over-limit:95%",
		"4 Stop strategy:clean-state block missing-files,uncommitted-changes",
		"4 Stop strategy:notify allow notified:finished:command",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("decisions\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if rep.Events != 4 || rep.SessionID != "s1" || strings.Join(rep.Strategies, ",") != "token-budget,clean-state,notify" {
		t.Fatalf("report = %+v", rep)
	}
	var b strings.Builder
	if err := rep.WriteText(&b); err != nil {
		t.Fatal(err)
	}
	for _, w := range []string{"#3 2026-01-18 10:00:03 PreToolUse Agent\n  strategy:token-budget would deny (context-over-limit:95%)\n      COMPACTION REQUIRED",
		"3 decisions, on 2 of 4 events: 1 deny, 1 block, 1 allow."} {
		if !strings.Contains(b.String(), w) {
			t.Errorf("text lacks %q:\n%s", w, b.String())
		}
	}
}

// TestDryRunMarksRecordedOnly: a strategy in its own dry run is reported
// as recorded, not enforced.
func TestDryRunMarksRecordedOnly(t *testing.T) {
	p := newGateProject(t, "")
	p.hook(hookio.Stop, nil)
	p.write(".spcstr/config.yaml", "strategies:\n  clean-state:\n    require_files: [MISSING.md]\n    dry_run: true\n")
	cfg, _ := config.Load(filepath.Join(p.root, ".spcstr/config.yaml"))
	rep, err := DryRun(context.Background(), DryRunOptions{Layout: state.Layout{Root: p.root}, Config: cfg, SessionID: "s1", Getenv: func(string) string { return "" }})
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Steps) != 1 || len(rep.Steps[0].Decisions) != 1 || !rep.Steps[0].Decisions[0].DryRun || rep.Steps[0].Decisions[0].Decision != gate.Block {
		t.Fatalf("steps = %+v", rep.Steps)
	}
	var b strings.Builder
	_ = rep.WriteText(&b)
	if !strings.Contains(b.String(), "strategy:clean-state would block (missing-files,uncommitted-changes) [dry-run: recorded, not enforced]") {
		t.Fatalf("text:\n%s", b.String())
	}
	if _, err := DryRun(context.Background(), DryRunOptions{Layout: state.Layout{Root: p.root}, Config: cfg, SessionID: "nope"}); err == nil {
		t.Fatal("an unknown session replayed")
	}
}
