package config

import (
	"errors"
	"os"
	"strings"
	"testing"
)

// AsksClosed reads a config that does not parse as tokens: no line-start
// text match that flow style, quotes or an odd indent walk past.
func TestAsksClosed(t *testing.T) {
	for _, tt := range []struct {
		text string
		want bool
	}{
		{"strategies:\n  mine: {command: x, hooks: [Stop], fail_mode: closed}\nstop_block_limit: [\n", true},
		{"strategies: {mine: {command: x, fail_mode: \"closed\"}}\n: : bad\n  - x\n", true},
		{"requirements:\n  fail_mode: closed # hold\n\tbad\n", true},
		{"requirements:\n  fail_mode: 'Closed'\nx: [\n", true},
		{"requirements:\n  fail_mode: clsoed\nx: [\n", true},
		{"requirements:\n  fail_mode: open\nx: [\n", false},
		{"# fail_mode: closed\nx: [\n", false},
		{"note: \"fail_mode: closed\"\nx: [\n", false},
		{"strategies:\n  clean-state:\n    require_files: [a\n", true},
		{"strategies:\n  quality-gate:\n    fail_mode:\nx: [\n", true},
		{"x: [\n", false},
	} {
		if got := AsksClosed([]byte(tt.text), []string{"clean-state"}); got != tt.want {
			t.Errorf("%q: AsksClosed = %t, want %t", tt.text, got, tt.want)
		}
	}
}

// A value of the wrong type keeps its default and switches off nothing
// else: the other keys and the sections are read.
func TestLoadValueError(t *testing.T) {
	path := t.TempDir() + "/config.yaml"
	writeFile(t, path, "stop_block_limit: three\ndry_run: true\nstate: {keep: 7}\nstrategies: {mine: {command: x, hooks: [Stop], fail_mode: closed}}\n")
	cfg, err := Load(path)
	var ve *ValueError
	if !errors.As(err, &ve) || !strings.Contains(err.Error(), "1:19") {
		t.Fatalf("err = %v, want a ValueError at 1:19", err)
	}
	if !cfg.DryRun || cfg.State.Keep != 7 || cfg.StopBlockLimit != 0 || cfg.Path != path {
		t.Fatalf("cfg = %+v", cfg)
	}
	if n, ok, err := cfg.Node("strategies"); !ok || err != nil || n == nil {
		t.Fatalf("strategies section: %v %v %v", n, ok, err)
	}
	// A file that does not parse at all is still the defaults.
	writeFile(t, path, "x: [\n")
	cfg, err = Load(path)
	if err == nil || errors.As(err, &ve) || len(cfg.Raw) != 0 {
		t.Fatalf("unparseable: cfg %+v err %v", cfg, err)
	}
}

func writeFile(t *testing.T, path, text string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
}
