package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/dylan-gluck/spcstr/internal/buildinfo"
)

// deps lists the packages pkg links.
func deps(t *testing.T, pkg string) []string {
	t.Helper()
	out, err := exec.Command("go", "list", "-deps", pkg).Output()
	if err != nil {
		t.Fatalf("go list -deps %s: %v", pkg, err)
	}
	return strings.Fields(string(out))
}

// TestHookBinaryLinksNoHeavyPackages guards the hook path: every package
// linked into spcstr-hook runs its init on every tool call. Bubble Tea,
// Lip Gloss and the terminal libraries (whose inits build parser tables
// and width caches), the OpenTelemetry SDK, protobuf and gRPC, the HTTP and
// TLS stacks (easyjson's root package is how they came in once:
// internal/jsoncodec's doc), the backtracking regexp engine and cobra stay
// in spcstr. Each banned family must still be linked by spcstr, or this
// test no longer checks anything.
func TestHookBinaryLinksNoHeavyPackages(t *testing.T) {
	const mod = "github.com/dylan-gluck/spcstr/"
	// A prefix ending in "/" bans a family; any other bans the package
	// and its sub-packages, except the two marked exact.
	banned := []struct {
		prefix, inSpcstr string
		exact            bool
	}{
		{"charm.land/", "charm.land/bubbletea/v2", false},
		{"github.com/charmbracelet/", "github.com/charmbracelet/x/ansi", false},
		{"github.com/fsnotify/", "github.com/fsnotify/fsnotify", false},
		{mod + "tui", mod + "tui", false},
		{"go.opentelemetry.io/", "go.opentelemetry.io/otel/sdk/trace", false},
		{"google.golang.org/protobuf", "google.golang.org/protobuf/proto", false},
		{"google.golang.org/grpc", "", false},
		{mod + "internal/otelship", mod + "internal/otelship", false},
		{"net/http", "net/http", false},
		{"crypto/tls", "crypto/tls", false},
		{"github.com/mailru/easyjson", "", true},
		{"github.com/dlclark/regexp2", "github.com/dlclark/regexp2", false},
		{mod + "internal/pyregex", mod + "internal/pyregex", false},
		{"github.com/spf13/cobra", "github.com/spf13/cobra", false},
		{mod + "cmd", mod + "cmd", true},
	}
	hook := deps(t, mod+"cmd/spcstr-hook")
	full := deps(t, mod+"cmd/spcstr")
	for _, pkg := range hook {
		for _, b := range banned {
			hit := pkg == b.prefix
			if !b.exact {
				hit = hit || strings.HasPrefix(pkg, strings.TrimSuffix(b.prefix, "/")+"/")
			}
			if hit {
				t.Errorf("spcstr-hook links %s: its init would run on every tool call", pkg)
			}
		}
	}
	for _, b := range banned {
		if b.inSpcstr != "" && !slices.Contains(full, b.inSpcstr) {
			t.Errorf("spcstr does not link %s: this test no longer checks anything for %s", b.inSpcstr, b.prefix)
		}
	}
	if !slices.Contains(hook, "github.com/mailru/easyjson/jwriter") {
		t.Errorf("spcstr-hook no longer links easyjson's writer: this test no longer checks anything")
	}
	if !slices.Contains(hook, mod+"recorder") {
		t.Errorf("spcstr-hook does not link the recorder")
	}
}

// The command line: --version prints the build's line (the same as spcstr
// --version); an EVENT and unknown flags are taken as "spcstr hook" takes
// them, and the event is recorded.
func TestRun(t *testing.T) {
	var out, errOut bytes.Buffer
	if code := run([]string{"--version"}, strings.NewReader(""), &out, &errOut); code != 0 || strings.TrimSpace(out.String()) != buildinfo.String() {
		t.Errorf("--version: exit %d, %q", code, out.String())
	}
	root := t.TempDir()
	if err := os.Mkdir(filepath.Join(root, ".spcstr"), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("CLAUDE_PROJECT_DIR", root)
	t.Setenv("SPCSTR_REGISTRY", filepath.Join(root, "registry.json"))
	out.Reset()
	payload := `{"session_id": "s-1", "hook_event_name": "SessionStart", "source": "startup", "cwd": "` + root + `"}`
	if code := run([]string{"--unknown", "session_start", "extra"}, strings.NewReader(payload), &out, &errOut); code != 0 {
		t.Fatalf("exit %d: %s", code, errOut.String())
	}
	if _, err := os.Stat(filepath.Join(root, ".spcstr", "sessions", "s-1", "state.json")); err != nil {
		t.Errorf("not recorded: %v (stderr %q)", err, errOut.String())
	}
}

// A Python-only command pattern is matched by spcstr (spcstr matchpy),
// found on PATH here; without spcstr it does not match and says why.
func TestPythonPatternsThroughSpcstr(t *testing.T) {
	dir := t.TempDir()
	// go build writes the binary in its own process, which has exited
	// before the binary runs: no write is open on it (no ETXTBSY).
	build := exec.Command("go", "build", "-o", filepath.Join(dir, "spcstr"), "github.com/dylan-gluck/spcstr/cmd/spcstr")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("build spcstr: %v\n%s", err, out)
	}
	t.Setenv("PATH", dir)
	for text, want := range map[string]bool{"git commit -m x": true, "git commit --amend": false} {
		if got, err := matchThroughSpcstr(`git\s+commit(?!.*--amend)`, text); got != want || err != nil {
			t.Errorf("%q: %v, %v; want %v", text, got, err, want)
		}
	}
	if _, err := matchThroughSpcstr(`git(?=x`, "git"); err == nil {
		t.Error("an invalid pattern matched without an error")
	}
	t.Setenv("PATH", t.TempDir())
	if ok, err := matchThroughSpcstr(`git(?!x)`, "git"); ok || err == nil || !strings.Contains(err.Error(), "spcstr") {
		t.Errorf("without spcstr: ok %v, err %v", ok, err)
	}
}
