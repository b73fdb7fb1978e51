package install

import (
	"bytes"
	"errors"
	"github.com/dylan-gluck/spcstr/internal/safefs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dylan-gluck/spcstr/internal/claudesettings"
)

var hc = claudesettings.HookCommand{Program: "spcstr", Line: "spcstr hook", OnPath: true, Why: "test"}

func project(t *testing.T) (root string, opts Options) {
	t.Helper()
	dir := t.TempDir()
	root = filepath.Join(dir, "proj")
	home := filepath.Join(dir, "home")
	for _, d := range []string{root, home} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	env := map[string]string{"HOME": home}
	return root, Options{Root: root, Command: hc, Getenv: func(k string) string { return env[k] }}
}

func write(t *testing.T, path, text string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

func read(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestInitFreshProject(t *testing.T) {
	root, opts := project(t)
	res, err := Init(opts)
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range []string{".spcstr", ".spcstr/logs", ".spcstr/sessions"} {
		if fi, err := os.Stat(filepath.Join(root, d)); err != nil || !fi.IsDir() {
			t.Errorf("%s not created", d)
		}
	}
	if got := read(t, filepath.Join(root, ".gitignore")); got != ".spcstr/\n" {
		t.Errorf(".gitignore = %q", got)
	}
	doc, err := claudesettings.Load(claudesettings.ProjectFile(root))
	if err != nil || len(doc.SpcstrCommands()) != 1 {
		t.Fatalf("settings: %v %v", doc, err)
	}
	if !res.Changed() || res.Files[0].Backup != "" || !res.Files[0].Created {
		t.Errorf("result %+v", res.Files[0])
	}
	var out bytes.Buffer
	if err := res.WriteInit(&out); err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{"Hook command: spcstr hook", "Created .claude/settings.json: spcstr runs on 32 events", "Not registered: WorktreeCreate", "Added .spcstr/ to .gitignore"} {
		if !strings.Contains(out.String(), s) {
			t.Errorf("output lacks %q:\n%s", s, out.String())
		}
	}

	// Again: nothing changes, and it says so.
	before := read(t, claudesettings.ProjectFile(root))
	res, err = Init(opts)
	if err != nil {
		t.Fatal(err)
	}
	out.Reset()
	_ = res.WriteInit(&out)
	if res.Changed() || !strings.Contains(out.String(), "Already set up: nothing changed.") {
		t.Errorf("second init changed something:\n%s", out.String())
	}
	if read(t, claudesettings.ProjectFile(root)) != before {
		t.Errorf("second init rewrote settings.json")
	}
	if _, err := os.Stat(claudesettings.ProjectFile(root) + claudesettings.BackupSuffix); err == nil {
		t.Errorf("a no-op init made a backup")
	}
}

func TestGitignore(t *testing.T) {
	tests := []struct{ in, want string }{
		{"node_modules/", "node_modules/\n.spcstr/\n"},
		{"node_modules/\n", "node_modules/\n.spcstr/\n"},
		{"/.spcstr\n", "/.spcstr\n"},
		{"build\r\n.spcstr/\r\n", "build\r\n.spcstr/\r\n"},
		{"# .spcstr/\n", "# .spcstr/\n.spcstr/\n"},
		{"bin\r\nobj", "bin\r\nobj\r\n.spcstr/\r\n"},
	}
	for _, tt := range tests {
		root, opts := project(t)
		write(t, filepath.Join(root, ".gitignore"), tt.in)
		if _, err := Init(opts); err != nil {
			t.Fatal(err)
		}
		if got := read(t, filepath.Join(root, ".gitignore")); got != tt.want {
			t.Errorf(".gitignore %q became %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestInitDryRunWritesNothing(t *testing.T) {
	root, opts := project(t)
	write(t, filepath.Join(root, ".gitignore"), "bin/\n")
	opts.DryRun = true
	res, err := Init(opts)
	if err != nil {
		t.Fatal(err)
	}
	entries, _ := os.ReadDir(root)
	if len(entries) != 1 || read(t, filepath.Join(root, ".gitignore")) != "bin/\n" {
		t.Errorf("dry run wrote something: %v", entries)
	}
	var out bytes.Buffer
	_ = res.WriteInit(&out)
	for _, s := range []string{"Dry run: nothing was written", "--- /dev/null", "+++ b/.claude/settings.json",
		`+            "command": "spcstr hook"`, "--- a/.gitignore", "+.spcstr/", "create folder .spcstr/logs/"} {
		if !strings.Contains(out.String(), s) {
			t.Errorf("dry run output lacks %q:\n%s", s, out.String())
		}
	}
}

func TestInitRefusesUnparsableSettings(t *testing.T) {
	root, opts := project(t)
	bad := "{\n  \"model\": \"opus\",\n}\n"
	write(t, claudesettings.ProjectFile(root), bad)
	_, err := Init(opts)
	if !errors.Is(err, claudesettings.ErrSyntax) || !strings.Contains(err.Error(), "line 3") || !strings.Contains(err.Error(), "changed nothing") {
		t.Fatalf("Init = %v", err)
	}
	if read(t, claudesettings.ProjectFile(root)) != bad {
		t.Errorf("the unparsable file was changed")
	}
	if _, err := os.Stat(filepath.Join(root, ".spcstr")); err == nil {
		t.Errorf(".spcstr created although init failed")
	}
}

func TestInitGlobal(t *testing.T) {
	root, opts := project(t)
	opts.Global = true
	res, err := Init(opts)
	if err != nil {
		t.Fatal(err)
	}
	user, _ := claudesettings.UserFile(opts.Getenv)
	if !strings.Contains(read(t, user), `"spcstr hook"`) {
		t.Errorf("user settings not written")
	}
	if _, err := os.Stat(claudesettings.ProjectFile(root)); err == nil {
		t.Errorf("--global wrote the project's settings")
	}
	if res.ProjectSkipped != "" || len(res.CreatedDirs) == 0 {
		t.Errorf("project not set up: %+v", res)
	}

	// From the home folder: no .spcstr/ there.
	home := opts.Getenv("HOME")
	opts.Root = home
	res, err = Init(opts)
	if err != nil {
		t.Fatal(err)
	}
	if res.ProjectSkipped == "" {
		t.Errorf("init --global in the home folder set it up as a project")
	}
	if _, err := os.Stat(filepath.Join(home, ".spcstr")); err == nil {
		t.Errorf("~/.spcstr created")
	}
}

func TestInitNotesOtherRegistration(t *testing.T) {
	root, opts := project(t)
	user, _ := claudesettings.UserFile(opts.Getenv)
	write(t, user, `{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "/old/spcstr hook"}]}]}}`)
	res, err := Init(opts)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Notes) != 1 || !strings.Contains(res.Notes[0], "recorded twice") || !strings.Contains(res.Notes[0], "--global") {
		t.Errorf("notes = %q", res.Notes)
	}
	_ = root
}

func TestInitNotesAbsolutePathInSharedFile(t *testing.T) {
	_, opts := project(t)
	opts.Command = claudesettings.HookCommand{Program: "/x/spcstr", Line: "/x/spcstr hook"}
	res, err := Init(opts)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Notes) != 1 || !strings.Contains(res.Notes[0], "works only on this machine") {
		t.Errorf("notes = %q", res.Notes)
	}
}

func TestUninstall(t *testing.T) {
	root, opts := project(t)
	orig := `{
  "hooks": {
    "Stop": [
      {
        "hooks": [
          {
            "type": "command",
            "command": "say done"
          }
        ]
      }
    ]
  }
}
`
	write(t, claudesettings.ProjectFile(root), orig)
	if _, err := Init(opts); err != nil {
		t.Fatal(err)
	}
	write(t, claudesettings.LocalFile(root), `{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "spcstr hook Stop"}]}]}, "x": 1}`)

	dry := opts
	dry.DryRun = true
	installed := read(t, claudesettings.ProjectFile(root))
	if _, err := Uninstall(dry); err != nil {
		t.Fatal(err)
	}
	if read(t, claudesettings.ProjectFile(root)) != installed {
		t.Errorf("dry run changed the file")
	}

	res, err := Uninstall(opts)
	if err != nil {
		t.Fatal(err)
	}
	if got := read(t, claudesettings.ProjectFile(root)); got != orig {
		t.Errorf("after uninstall:\n%s\nwant the original:\n%s", got, orig)
	}
	if got := read(t, claudesettings.LocalFile(root)); got != "{\n  \"x\": 1\n}" {
		t.Errorf("local after uninstall: %q", got)
	}
	if _, err := os.Stat(filepath.Join(root, ".spcstr")); err != nil {
		t.Errorf(".spcstr removed")
	}
	var out bytes.Buffer
	_ = res.WriteUninstall(&out)
	for _, s := range []string{"Removed spcstr from 32 events in .claude/settings.json", "Removed spcstr from 1 event in .claude/settings.local.json", "kept .spcstr/"} {
		if !strings.Contains(out.String(), s) {
			t.Errorf("output lacks %q:\n%s", s, out.String())
		}
	}

	res, err = Uninstall(opts)
	if err != nil {
		t.Fatal(err)
	}
	out.Reset()
	_ = res.WriteUninstall(&out)
	if !strings.Contains(out.String(), "not registered") {
		t.Errorf("second uninstall:\n%s", out.String())
	}
}

// TestInitRefusesNonRegularGitignore: a committed .gitignore that is a
// symlink to /dev/zero is refused with a clear error, never read whole
// (before, init read until it ran out of memory).
func TestInitRefusesNonRegularGitignore(t *testing.T) {
	root, opts := project(t)
	if err := os.Symlink("/dev/zero", filepath.Join(root, ".gitignore")); err != nil {
		t.Fatal(err)
	}
	_, err := Init(opts)
	if !errors.Is(err, safefs.ErrNotRegular) || !strings.Contains(err.Error(), ".gitignore") {
		t.Fatalf("Init = %v, want a not-a-regular-file error naming .gitignore", err)
	}
}
