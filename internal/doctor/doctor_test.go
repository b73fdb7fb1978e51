package doctor

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/dylan-gluck/spcstr/internal/claudesettings"
	"github.com/dylan-gluck/spcstr/internal/hookio"
	"github.com/dylan-gluck/spcstr/internal/safefs"
)

// fixture is a project with spcstr installed and healthy; cases break it.
type fixture struct {
	t    *testing.T
	root string
	home string
	exe  string
	env  *Env
	path map[string]string // what LookPath finds
}

func newFixture(t *testing.T) *fixture {
	t.Helper()
	dir := t.TempDir()
	f := &fixture{t: t, root: filepath.Join(dir, "proj"), home: filepath.Join(dir, "home"),
		exe: filepath.Join(dir, "bin", "spcstr"), path: map[string]string{}}
	for _, d := range []string{".spcstr/logs", ".spcstr/sessions", ".git"} {
		f.mkdir(filepath.Join(f.root, d))
	}
	f.mkdir(f.home)
	f.write(f.exe, "#!/bin/sh\n")
	_ = os.Chmod(f.exe, 0o755)
	f.path["spcstr"] = f.exe
	f.write(filepath.Join(f.root, ".gitignore"), ".spcstr/\n")
	f.write(filepath.Join(f.root, ".git", "HEAD"), "ref: refs/heads/main\n")
	doc, _ := claudesettings.Load(claudesettings.ProjectFile(f.root))
	doc.Install(claudesettings.HookCommand{Program: "spcstr", Line: "spcstr hook"}, claudesettings.Events())
	if _, err := doc.Save(); err != nil {
		t.Fatal(err)
	}
	f.env = &Env{
		Root:   f.root,
		Getenv: func(k string) string { return map[string]string{"HOME": f.home}[k] },
		LookPath: func(name string) (string, error) {
			if p, ok := f.path[name]; ok {
				return p, nil
			}
			return "", errors.New("not found")
		},
		Executable: f.exe,
		Now:        time.Now(),
		Version:    "spcstr v1",
		// A program's "version" is its file's second line: nothing written
		// here is executed (no ETXTBSY under parallel tests).
		ReadVersion: func(prog string) (string, error) {
			b, err := os.ReadFile(prog)
			lines := strings.Split(string(b), "\n")
			if err != nil || len(lines) < 2 || lines[1] == "" {
				return "", errors.New("exit status 1")
			}
			return lines[1], nil
		},
	}
	return f
}

func (f *fixture) mkdir(p string) {
	if err := os.MkdirAll(p, 0o755); err != nil {
		f.t.Fatal(err)
	}
}

func (f *fixture) write(p, text string) {
	f.mkdir(filepath.Dir(p))
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		f.t.Fatal(err)
	}
}

// edit rewrites the project settings file through fn.
func (f *fixture) edit(path string, fn func(d *claudesettings.Document)) {
	d, err := claudesettings.Load(path)
	if err != nil {
		f.t.Fatal(err)
	}
	fn(d)
	if _, err := d.Save(); err != nil {
		f.t.Fatal(err)
	}
}

func hooksJSON(event, matcher, command string) string {
	m := ""
	if matcher != "" {
		m = `"matcher": "` + matcher + `", `
	}
	return `{"hooks": {"` + event + `": [{` + m + `"hooks": [{"type": "command", "command": "` + command + `"}]}]}}`
}

// installLean puts spcstr-hook of spcstr's version beside spcstr and
// registers it, as go install ./cmd/... and spcstr init do.
func (f *fixture) installLean() string {
	lean := filepath.Join(filepath.Dir(f.exe), "spcstr-hook")
	f.write(lean, "#!/bin/sh\nspcstr v1\n")
	if err := os.Chmod(lean, 0o755); err != nil {
		f.t.Fatal(err)
	}
	doc, _ := claudesettings.Load(claudesettings.ProjectFile(f.root))
	doc.Install(claudesettings.HookCommand{Program: lean, Line: lean}, claudesettings.Events())
	if _, err := doc.Save(); err != nil {
		f.t.Fatal(err)
	}
	f.env = withFreshSettings(f.env)
	return lean
}

func TestHealthy(t *testing.T) {
	f := newFixture(t)
	f.installLean()
	r := Run(context.Background(), f.env, DefaultChecks())
	if !r.Healthy {
		var b bytes.Buffer
		_ = r.WriteText(&b)
		t.Fatalf("not healthy:\n%s", b.String())
	}
	for _, fd := range r.Findings {
		if fd.Severity != OK {
			t.Errorf("finding %+v", fd)
		}
	}
	var b bytes.Buffer
	_ = r.WriteText(&b)
	if !strings.Contains(b.String(), "No problems found.") {
		t.Errorf("text:\n%s", b.String())
	}
}

func TestProblems(t *testing.T) {
	tests := []struct {
		name   string
		break_ func(f *fixture)
		check  string
		sev    Severity
		msg    string
	}{
		{"no hooks anywhere", func(f *fixture) { _ = os.Remove(claudesettings.ProjectFile(f.root)) },
			"hooks", Error, "not registered for any hook event"},
		{"one event missing", func(f *fixture) {
			f.edit(claudesettings.ProjectFile(f.root), func(d *claudesettings.Document) {
				d.Uninstall()
				var all []string
				for _, e := range claudesettings.Events() {
					if e != hookio.SessionEnd {
						all = append(all, e)
					}
				}
				d.Install(claudesettings.HookCommand{Program: "spcstr", Line: "spcstr hook"}, all)
			})
		}, "hooks", Error, "not registered for 1 event(s): SessionEnd"},
		{"hidden behind a matcher", func(f *fixture) {
			f.edit(claudesettings.ProjectFile(f.root), func(d *claudesettings.Document) {
				d.Uninstall()
				d.Install(claudesettings.HookCommand{Program: "spcstr", Line: "spcstr hook"}, claudesettings.Events()[1:])
			})
			f.write(claudesettings.LocalFile(f.root), hooksJSON(hookio.SessionStart, "startup", "spcstr hook"))
		}, "hooks", Warning, `runs only when matcher "startup" matches`},
		{"invalid requirement", func(f *fixture) {
			f.write(filepath.Join(f.root, ".claude", "requirements.yaml"),
				"requirements:\n  commit_plan:\n    enabled: true\n    scope: forever\n")
		}, "requirements", Warning, `"commit_plan"`},
		{"unusable feedback section", func(f *fixture) {
			f.write(filepath.Join(f.root, ".spcstr", "config.yaml"), "feedback:\n  enabled: true\n  no_such_key: 1\n")
		}, "feedback", Error, "no_such_key"},
		{"unknown observability verbosity", func(f *fixture) {
			f.write(filepath.Join(f.root, ".spcstr", "config.yaml"), "observability:\n  verbosity: loud\n")
		}, "observe", Error, `observability.verbosity "loud"`},
		{"disableAllHooks in the local file", func(f *fixture) {
			f.write(claudesettings.LocalFile(f.root), `{"disableAllHooks": true}`)
		}, "hooks", Error, `"disableAllHooks": true`},
		{"managed settings allow only managed hooks", func(f *fixture) {
			p := filepath.Join(f.home, "managed-settings.json")
			f.write(p, `{"allowManagedHooksOnly": true}`)
			f.env.ManagedFiles = []string{p}
		}, "hooks", Error, "allow only managed hooks"},
		{"WorktreeCreate registered", func(f *fixture) {
			f.write(claudesettings.LocalFile(f.root), hooksJSON(hookio.WorktreeCreate, "", "spcstr hook"))
		}, "hooks", Error, "registers spcstr for WorktreeCreate"},
		{"registered twice with different commands", func(f *fixture) {
			f.write(filepath.Join(f.home, ".claude", "settings.json"), hooksJSON(hookio.Stop, "", f.exe+" hook"))
		}, "hooks", Warning, "recorded twice"},
		{"unparsable user settings", func(f *fixture) {
			f.write(filepath.Join(f.home, ".claude", "settings.json"), `{"hooks": {,}}`)
		}, "hooks", Error, "user settings file cannot be read"},
		{"registered program missing", func(f *fixture) {
			f.write(claudesettings.LocalFile(f.root), hooksJSON(hookio.Stop, "", "/nowhere/spcstr hook"))
		}, "binary", Error, "/nowhere/spcstr does not exist"},
		{"registered bare name not on PATH", func(f *fixture) { delete(f.path, "spcstr") },
			"binary", Error, "spcstr is not on PATH: the hooks fail"},
		{"another spcstr first on PATH", func(f *fixture) {
			other := filepath.Join(f.home, "bin", "spcstr")
			f.write(other, "x")
			_ = os.Chmod(other, 0o755)
			f.path["spcstr"] = other
		}, "binary", Warning, "is not this binary"},
		{"no .spcstr folder", func(f *fixture) { _ = os.RemoveAll(filepath.Join(f.root, ".spcstr")) },
			"project", Error, ".spcstr/ does not exist"},
		{"config does not parse", func(f *fixture) {
			f.write(filepath.Join(f.root, ".spcstr", "config.yaml"), "logs:\n  max_bytes: [1\n")
		}, "config", Error, "does not parse"},
		{"a pricing section with a misspelt key", func(f *fixture) {
			f.write(filepath.Join(f.root, ".spcstr", "config.yaml"), "pricing:\n  claude-x: {inptu: 1}\n")
		}, "config", Error, "pricing: section is not usable"},
		{"a gate that failed open", func(f *fixture) {
			f.write(filepath.Join(f.root, ".spcstr", "logs", "decisions.json"),
				"[\n"+`{"request_id":"r","session_id":"s","timestamp":"2026-01-02T03:04:05Z","source":"requirements","hook":"PreToolUse","decision":"allow","reason":"gate-error","error":"lock timed out","dry_run":false,"duration_ms":1}`+"\n]\n")
		}, "gates", Warning, "1 gate decision(s) failed open"},
		{"a stop_block_limit above Claude Code's cap", func(f *fixture) {
			f.write(filepath.Join(f.root, ".spcstr", "config.yaml"), "stop_block_limit: 12\n")
		}, "gates", Warning, "above Claude Code's own cap of 8"},
		{"a bad requirements fail_mode", func(f *fixture) {
			f.write(filepath.Join(f.root, ".spcstr", "config.yaml"), "requirements:\n  fail_mode: shut\n")
		}, "gates", Error, `requirements.fail_mode "shut"`},
		{"a corrupt file set aside", func(f *fixture) {
			f.write(filepath.Join(f.root, ".spcstr", "sessions", "abc", "state.json.corrupt-20260102T030405.000000000Z"), "{")
		}, "corrupt", Warning, "sessions/abc/state.json did not parse and was set aside on"},
		{"a leftover temp file", func(f *fixture) {
			p := filepath.Join(f.root, ".spcstr", "sessions", "abc", ".state.json2938475")
			f.write(p, "{")
			old := time.Now().Add(-time.Hour)
			_ = os.Chtimes(p, old, old)
		}, "tempfiles", Warning, "left by an interrupted write"},
		{".spcstr not ignored", func(f *fixture) { f.write(filepath.Join(f.root, ".gitignore"), "bin/\n") },
			"gitignore", Warning, "not ignored by git"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t)
			tt.break_(f)
			r := Run(context.Background(), f.env, DefaultChecks())
			if r.Healthy {
				t.Errorf("reported healthy")
			}
			found := false
			for _, fd := range r.Findings {
				if fd.Severity.Problem() && fd.Fix == "" {
					t.Errorf("problem without a fix: %+v", fd)
				}
				if fd.Check == tt.check && fd.Severity == tt.sev && strings.Contains(fd.Message, tt.msg) {
					found = true
				}
			}
			if !found {
				var b bytes.Buffer
				_ = r.WriteText(&b)
				t.Errorf("no %s %s finding with %q:\n%s", tt.check, tt.sev, tt.msg, b.String())
			}
		})
	}
}

func TestNotProblems(t *testing.T) {
	tests := []struct {
		name   string
		break_ func(f *fixture)
	}{
		{"a young temp file is a write in progress", func(f *fixture) {
			f.write(filepath.Join(f.root, ".spcstr", "logs", ".stop.json123"), "[")
		}},
		{"lock files are not leftovers", func(f *fixture) {
			f.write(filepath.Join(f.root, ".spcstr", "logs", ".stop.json.lock"), "")
			old := time.Now().Add(-time.Hour)
			_ = os.Chtimes(filepath.Join(f.root, ".spcstr", "logs", ".stop.json.lock"), old, old)
		}},
		{"a state's spare file is not a leftover", func(f *fixture) {
			p := filepath.Join(f.root, ".spcstr", "sessions", "abc", ".state.json"+safefs.SpareSuffix)
			f.write(p, "{}")
			old := time.Now().Add(-time.Hour)
			_ = os.Chtimes(p, old, old)
		}},
		{"not a git repository", func(f *fixture) {
			_ = os.RemoveAll(filepath.Join(f.root, ".git"))
			_ = os.Remove(filepath.Join(f.root, ".gitignore"))
		}},
		{"a matcher on an event that ignores matchers", func(f *fixture) {
			f.write(claudesettings.LocalFile(f.root), hooksJSON(hookio.Stop, "Bash", "spcstr hook"))
		}},
		{"the same command in two files runs once", func(f *fixture) {
			f.write(filepath.Join(f.home, ".claude", "settings.json"), hooksJSON(hookio.Stop, "", "spcstr hook"))
		}},
		{"disableAllHooks false", func(f *fixture) {
			f.write(claudesettings.LocalFile(f.root), `{"disableAllHooks": false}`)
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t)
			tt.break_(f)
			r := Run(context.Background(), f.env, DefaultChecks())
			if !r.Healthy {
				var b bytes.Buffer
				_ = r.WriteText(&b)
				t.Errorf("not healthy:\n%s", b.String())
			}
		})
	}
}

func TestGitCheckIgnore(t *testing.T) {
	git, err := exec.LookPath("git")
	if err != nil {
		t.Skip("git is not installed")
	}
	f := newFixture(t)
	_ = os.RemoveAll(filepath.Join(f.root, ".git"))
	cmd := exec.Command(git, "init", "-q")
	cmd.Dir = f.root
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("git init: %v %s", err, out)
	}
	f.env.Git = git
	// Ignored by a pattern the plain .gitignore reader would not know.
	f.write(filepath.Join(f.root, ".gitignore"), ".*/\n")
	if fd := checkGitignore(context.Background(), f.env); len(fd) != 1 || fd[0].Severity != OK {
		t.Errorf("ignored by .*/: %+v", fd)
	}
	f.write(filepath.Join(f.root, ".gitignore"), "bin/\n")
	if fd := checkGitignore(context.Background(), f.env); len(fd) != 1 || fd[0].Severity != Warning {
		t.Errorf("not ignored: %+v", fd)
	}
}

func TestExtraCheckAndJSON(t *testing.T) {
	f := newFixture(t)
	checks := append(DefaultChecks(), Check{Name: "strategies", Run: func(context.Context, *Env) []Finding {
		return []Finding{{Severity: Error, Message: "two strategies block Stop", Fix: "drop one"}}
	}})
	r := Run(context.Background(), f.env, checks)
	if r.Healthy || r.Summary.Error != 1 {
		t.Fatalf("report %+v", r.Summary)
	}
	var b bytes.Buffer
	if err := r.WriteJSON(&b); err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Version  int            `json:"version"`
		Project  string         `json:"project"`
		Healthy  *bool          `json:"healthy"`
		Summary  map[string]int `json:"summary"`
		Findings []map[string]string
	}
	if err := json.Unmarshal(b.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	last := doc.Findings[len(doc.Findings)-1]
	if doc.Version != 1 || doc.Project != f.root || doc.Healthy == nil || *doc.Healthy || doc.Summary["error"] != 1 ||
		last["check"] != "strategies" || last["severity"] != "error" || last["fix"] != "drop one" {
		t.Errorf("JSON:\n%s", b.String())
	}
	b.Reset()
	_ = r.WriteText(&b)
	// Columns line up whatever the length of the check names.
	if !strings.Contains(b.String(), "\n  ERROR    strategies    two strategies block Stop\n                         fix: drop one\n") ||
		!strings.Contains(b.String(), "\n  ok       requirements  no requirements configured\n") ||
		!strings.Contains(b.String(), "1 problem found (1 error, 0 warnings).") {
		t.Errorf("text:\n%s", b.String())
	}
}

// TestRecorder: without spcstr-hook the hooks run spcstr hook (an info
// with an install fix); installed beside spcstr but not registered, init
// is the fix; registered, it must run and be spcstr's version.
func TestRecorder(t *testing.T) {
	f := newFixture(t)
	check := []Check{{Name: "recorder", Run: checkRecorder}}
	r := Run(context.Background(), f.env, check)
	if !r.Healthy || len(r.Findings) != 1 || r.Findings[0].Severity != Info ||
		!strings.Contains(r.Findings[0].Message, "not installed") || !strings.Contains(r.Findings[0].Fix, "go install ./cmd/...") {
		t.Fatalf("not installed: %+v", r.Findings)
	}
	lean := filepath.Join(filepath.Dir(f.exe), "spcstr-hook")
	f.write(lean, "#!/bin/sh\nspcstr v1\n")
	if err := os.Chmod(lean, 0o755); err != nil {
		t.Fatal(err)
	}
	r = Run(context.Background(), f.env, check)
	if !r.Healthy || len(r.Findings) != 1 || r.Findings[0].Fix != "run spcstr init: it registers spcstr-hook" {
		t.Fatalf("installed, not registered: %+v", r.Findings)
	}
	f.installLean()
	full := []Check{{Name: "binary", Run: checkBinary}, {Name: "recorder", Run: checkRecorder}}
	r = Run(context.Background(), f.env, full)
	if !r.Healthy || len(r.Findings) != 3 || r.Findings[2].Severity != OK || !strings.Contains(r.Findings[2].Message, "same version") {
		t.Fatalf("registered, same version: %+v", r.Findings)
	}
	f.write(lean, "#!/bin/sh\nspcstr v0\n")
	r = Run(context.Background(), f.env, full)
	if r.Healthy || r.Findings[2].Severity != Warning || !strings.Contains(r.Findings[2].Message, `"spcstr v0"`) ||
		!strings.Contains(r.Findings[2].Fix, "go install ./cmd/...") || !strings.Contains(r.Findings[2].Fix, "remove "+lean) {
		t.Fatalf("other version: %+v", r.Findings)
	}
	f.write(lean, "#!/bin/sh\n")
	r = Run(context.Background(), f.env, full)
	if r.Healthy || r.Findings[2].Severity != Error || !strings.Contains(r.Findings[2].Message, "not a build of spcstr-hook doctor can read") {
		t.Fatalf("does not run: %+v", r.Findings)
	}
	if err := os.Remove(lean); err != nil {
		t.Fatal(err)
	}
	r = Run(context.Background(), f.env, full)
	if r.Healthy || len(r.Findings) != 2 || r.Findings[1].Severity != Error || !strings.Contains(r.Findings[1].Message, "does not exist") {
		t.Fatalf("missing: %+v", r.Findings)
	}
	for _, fd := range r.Findings {
		if strings.Contains(fd.Fix, "@latest") {
			t.Errorf("a fix that fails when pasted: %q", fd.Fix)
		}
	}
}

// withFreshSettings copies env without its loaded settings files.
func withFreshSettings(e *Env) *Env {
	return &Env{Root: e.Root, Getenv: e.Getenv, LookPath: e.LookPath, Executable: e.Executable,
		ManagedFiles: e.ManagedFiles, Git: e.Git, Now: e.Now, Version: e.Version, ReadVersion: e.ReadVersion}
}
