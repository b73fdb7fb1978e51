package recorder

import (
	"bytes"
	"context"
	"reflect"
	"strings"
	"testing"

	"github.com/dylan-gluck/spcstr/internal/buildinfo"
)

func TestParseArgs(t *testing.T) {
	tests := []struct {
		args []string
		want Args
	}{
		{nil, Args{}},
		{[]string{"PreToolUse"}, Args{Event: "PreToolUse"}},
		{[]string{"session_start"}, Args{Event: "session_start"}},
		{[]string{"--dry-run"}, Args{DryRun: true}},
		{[]string{"-dry-run", "Stop"}, Args{Event: "Stop", DryRun: true}},
		{[]string{"Stop", "--dry-run"}, Args{Event: "Stop", DryRun: true}},
		{[]string{"--dry-run=false", "Stop"}, Args{Event: "Stop"}},
		{[]string{"--dry-run=1"}, Args{DryRun: true}},
		{[]string{"--dry-run=maybe"}, Args{Ignored: []string{"--dry-run=maybe"}}},
		{[]string{"--version"}, Args{Version: true}},
		{[]string{"-version"}, Args{Version: true}},
		{[]string{"--help"}, Args{Help: true}},
		{[]string{"-h", "Stop"}, Args{Event: "Stop", Help: true}},
		{[]string{"--unknown", "session_start", "extra"}, Args{Event: "session_start", Ignored: []string{"--unknown", "extra"}}},
		{[]string{"--", "--dry-run"}, Args{Event: "--dry-run"}},
		{[]string{"-"}, Args{Event: "-"}},
	}
	for _, tt := range tests {
		if got := ParseArgs(tt.args); !reflect.DeepEqual(got, tt.want) {
			t.Errorf("ParseArgs(%q) = %+v; want %+v", tt.args, got, tt.want)
		}
	}
}

// Main answers --help and --version without reading stdin, and says on
// stderr what it ignores; control characters in an ignored argument never
// reach the terminal raw.
func TestMainArguments(t *testing.T) {
	run := func(args ...string) (string, string) {
		var out, errOut bytes.Buffer
		getenv := func(string) string { return "" }
		if code := Main(context.Background(), args, Options{Stdin: strings.NewReader(""), Stdout: &out, Stderr: &errOut, Getenv: getenv}); code != 0 {
			t.Fatalf("%q: exit %d", args, code)
		}
		return out.String(), errOut.String()
	}
	if out, _ := run("--version"); strings.TrimSpace(out) != buildinfo.String() {
		t.Errorf("--version printed %q", out)
	}
	if out, _ := run("--help"); !strings.HasPrefix(out, "usage: spcstr hook") {
		t.Errorf("--help printed %q", out)
	}
	_, errOut := run("--bogus\x1b]0;x\x07")
	if !strings.Contains(errOut, `ignoring "--bogus\x1b]0;x\a"`) || strings.ContainsRune(errOut, 0x1b) {
		t.Errorf("stderr %q", errOut)
	}
}

// "statusline" is never taken for an event name: Main runs the status
// line command, which prints its line and records no hook event.
func TestMainStatusLine(t *testing.T) {
	dir := t.TempDir()
	var out, errb bytes.Buffer
	in := `{"session_id":"s-1","cwd":"` + dir + `","model":{"display_name":"Opus"},"cost":{"total_cost_usd":0.5}}`
	code := Main(context.Background(), []string{"statusline"}, Options{Stdin: strings.NewReader(in), Stdout: &out, Stderr: &errb,
		Getenv: func(string) string { return "" }})
	if code != 0 || out.String() != "Opus · $0.50\n" {
		t.Errorf("exit %d, line %q, stderr %q", code, out.String(), errb.String())
	}
	if got := statusLineRun([]string{"--run", "my-line --x"}); got != "my-line --x" {
		t.Errorf("--run: %q", got)
	}
	if got := statusLineRun([]string{"--run=a b"}); got != "a b" {
		t.Errorf("--run=: %q", got)
	}
}
