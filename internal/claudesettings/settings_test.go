package claudesettings

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/dylan-gluck/spcstr/internal/hookio"
)

var (
	short = HookCommand{Program: "spcstr", Line: "spcstr hook", OnPath: true}
	abs   = HookCommand{Program: "/opt/spcstr/bin/spcstr", Line: "/opt/spcstr/bin/spcstr hook"}
)

func parse(t *testing.T, text string) *Document {
	t.Helper()
	d, err := Parse("settings.json", []byte(text))
	if err != nil {
		t.Fatalf("Parse: %v", err)
	}
	return d
}

// others lists the handlers that are not spcstr's, as event/matcher/command.
func others(d *Document) []string {
	var out []string
	for _, h := range d.Handlers() {
		if !h.Spcstr {
			out = append(out, h.Event+"|"+h.Matcher+"|"+h.Command+"|"+strings.Join(h.Args, " "))
		}
	}
	return out
}

// spcstrByEvent maps each event to the spcstr commands registered on it.
func spcstrByEvent(d *Document) map[string][]string {
	out := map[string][]string{}
	for _, h := range d.Handlers() {
		if h.Spcstr {
			out[h.Event] = append(out[h.Event], h.Command)
		}
	}
	return out
}

// topKeys returns the top-level keys of a JSON object in file order.
func topKeys(t *testing.T, data []byte) []string {
	t.Helper()
	dec := json.NewDecoder(strings.NewReader(string(data)))
	var keys []string
	if _, err := dec.Token(); err != nil {
		t.Fatal(err)
	}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			t.Fatal(err)
		}
		keys = append(keys, tok.(string))
		var skip json.RawMessage
		if err := dec.Decode(&skip); err != nil {
			t.Fatal(err)
		}
	}
	return keys
}

func TestInstall(t *testing.T) {
	tests := []struct {
		name string
		in   string
		hc   HookCommand
		// want: the spcstr command per event after Install (checked for
		// every registered event unless listed here).
		want     map[string][]string
		keys     []string // top-level keys in order, when checked
		contains []string // substrings the output must contain
		// roundTrip: Uninstall after Install gives the input back byte
		// for byte.
		roundTrip bool
	}{
		{name: "empty file", in: "", hc: short, keys: []string{"hooks"}},
		{name: "whitespace only", in: " \n\n", hc: short, keys: []string{"hooks"}},
		{name: "empty object", in: "{}\n", hc: short, keys: []string{"hooks"}, roundTrip: true},
		{
			name: "other keys in unusual order, kept in order and text",
			in: `{
  "zeta": {"b": 2, "a": 1},
  "model": "opus",
  "env": {"URL": "http://x/?a=1&b=<2>", "ESC": "\u00e9\u003c"},
  "alpha": [3, 2.50, 1e3]
}
`,
			hc:        short,
			keys:      []string{"zeta", "model", "env", "alpha", "hooks"},
			contains:  []string{`"zeta": {"b": 2, "a": 1},`, `"ESC": "\u00e9\u003c"`, `[3, 2.50, 1e3]`, `"URL": "http://x/?a=1&b=<2>"`},
			roundTrip: true,
		},
		{
			name: "other tools' hooks on the same events, with matchers",
			in: `{
  "hooks": {
    "PreToolUse": [
      {
        "matcher": "Bash",
        "hooks": [
          {
            "type": "command",
            "command": "python3 ~/.claude/guard.py",
            "timeout": 5
          }
        ]
      }
    ],
    "Stop": [
      {
        "hooks": [
          {
            "type": "command",
            "command": "say done"
          }
        ]
      }
    ],
    "MyFutureEvent": []
  },
  "permissions": {
    "allow": [
      "Bash(ls:*)"
    ]
  }
}
`,
			hc:        short,
			keys:      []string{"hooks", "permissions"},
			contains:  []string{`"timeout": 5`, `"MyFutureEvent": []`},
			roundTrip: true,
		},
		{
			name: "previous registration by absolute path is replaced in place, not duplicated",
			in: `{
  "hooks": {
    "PreToolUse": [
      {
        "hooks": [
          {
            "type": "command",
            "command": "/old/place/spcstr hook"
          }
        ]
      }
    ]
  }
}
`,
			hc:   short,
			want: map[string][]string{hookio.PreToolUse: {"spcstr hook"}},
		},
		{
			name: "a prefix and an EVENT argument survive a program change",
			in:   `{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "SPCSTR_AUTO_INIT=1 '/my tools/spcstr' hook stop"}]}]}}`,
			hc:   abs,
			want: map[string][]string{hookio.Stop: {"SPCSTR_AUTO_INIT=1 /opt/spcstr/bin/spcstr hook stop"}},
		},
		{
			name: "exec form keeps its args",
			in:   `{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "/old/spcstr", "args": ["hook"]}]}]}}`,
			hc:   short,
			want: map[string][]string{hookio.Stop: {"spcstr"}},
		},
		{
			name: "spcstr behind a matcher or an if is moved to a matcher-less group",
			in: `{"hooks": {
  "PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "spcstr hook"}, {"type": "command", "command": "lint"}]}],
  "PostToolUse": [{"hooks": [{"type": "command", "command": "spcstr hook", "if": "Bash(git *)"}]}]
}}`,
			hc: short,
			want: map[string][]string{
				hookio.PreToolUse:  {"spcstr hook"},
				hookio.PostToolUse: {"spcstr hook"},
			},
			contains: []string{`"command": "lint"`},
		},
		{
			name: "duplicates collapse to one",
			in: `{"hooks": {"Stop": [
  {"hooks": [{"type": "command", "command": "spcstr hook"}]},
  {"matcher": "*", "hooks": [{"type": "command", "command": "spcstr hook Stop"}]}
]}}`,
			hc:   short,
			want: map[string][]string{hookio.Stop: {"spcstr hook"}},
		},
		{
			name: "a matcher on an event that ignores matchers does not shadow",
			in:   `{"hooks": {"Stop": [{"matcher": "whatever", "hooks": [{"type": "command", "command": "spcstr hook"}]}]}}`,
			hc:   short,
			want: map[string][]string{hookio.Stop: {"spcstr hook"}},
		},
		{
			name: "spcstr on WorktreeCreate is removed",
			in: `{"hooks": {"WorktreeCreate": [{"hooks": [{"type": "command", "command": "spcstr hook"}]}],
  "WorktreeRemove": [{"hooks": [{"type": "command", "command": "cleanup.sh"}]}]}}`,
			hc:       short,
			contains: []string{`"command": "cleanup.sh"`},
		},
		{
			name:      "tab indentation is kept",
			in:        "{\n\t\"model\": \"opus\"\n}\n",
			hc:        short,
			contains:  []string{"\n\t\"hooks\": {\n\t\t\"SessionStart\": [\n\t\t\t{\n"},
			roundTrip: true,
		},
		{
			name:      "CRLF newlines are kept",
			in:        "{\r\n  \"model\": \"opus\"\r\n}\r\n",
			hc:        short,
			contains:  []string{"\r\n  \"hooks\": {\r\n    \"SessionStart\": [\r\n"},
			roundTrip: true,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := parse(t, tt.in)
			before := others(d)
			ch := d.Install(tt.hc, Events())
			if ch.Empty() {
				t.Fatalf("Install changed nothing")
			}
			out := d.Bytes()
			if !json.Valid(out) {
				t.Fatalf("output is not valid JSON:\n%s", out)
			}
			re := parse(t, string(out))
			if got := others(re); !slices.Equal(got, before) {
				t.Errorf("other handlers changed:\n got %q\nwant %q", got, before)
			}
			got := spcstrByEvent(re)
			for _, e := range Events() {
				want := []string{tt.hc.Line}
				if w, ok := tt.want[e]; ok {
					want = w
				}
				if !slices.Equal(got[e], want) {
					t.Errorf("%s: spcstr commands %q, want %q", e, got[e], want)
				}
			}
			for _, e := range Excluded {
				if len(got[e]) > 0 {
					t.Errorf("%s registered: %q", e, got[e])
				}
			}
			if tt.keys != nil {
				if k := topKeys(t, out); !slices.Equal(k, tt.keys) {
					t.Errorf("top-level keys %q, want %q", k, tt.keys)
				}
			}
			for _, s := range tt.contains {
				if !strings.Contains(string(out), s) {
					t.Errorf("output lacks %q:\n%s", s, out)
				}
			}

			// Idempotent: a second Install changes nothing.
			again := parse(t, string(out))
			if ch := again.Install(tt.hc, Events()); !ch.Empty() || again.Changed() {
				t.Errorf("second Install changed something: %+v", ch)
			}
			if len(again.Handlers()) != len(re.Handlers()) {
				t.Errorf("second Install changed the handlers")
			}

			if tt.roundTrip {
				u := parse(t, string(out))
				u.Uninstall()
				if string(u.Bytes()) != tt.in {
					t.Errorf("Uninstall after Install:\n%s\nwant the original:\n%s", u.Bytes(), tt.in)
				}
			}
		})
	}
}

// TestInstallExactText pins the layout of what Install writes, in the
// style Claude Code itself writes settings.json.
func TestInstallExactText(t *testing.T) {
	in := `{
  "model": "opus",
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
	want := `{
  "model": "opus",
  "hooks": {
    "Stop": [
      {
        "hooks": [
          {
            "type": "command",
            "command": "say done"
          }
        ]
      },
      {
        "hooks": [
          {
            "type": "command",
            "command": "spcstr hook",
            "timeout": 600
          }
        ]
      }
    ],
    "SessionEnd": [
      {
        "hooks": [
          {
            "type": "command",
            "command": "spcstr hook",
            "timeout": 10
          }
        ]
      }
    ]
  }
}
`
	d := parse(t, in)
	ch := d.Install(short, []string{hookio.Stop, hookio.SessionEnd})
	if got := string(d.Bytes()); got != want {
		t.Errorf("got:\n%s\nwant:\n%s", got, want)
	}
	if !slices.Equal(ch.Added, []string{hookio.Stop, hookio.SessionEnd}) {
		t.Errorf("Added = %q", ch.Added)
	}
	diff := d.Diff(".claude/settings.json")
	for _, s := range []string{"--- a/.claude/settings.json", "+++ b/.claude/settings.json", `+            "command": "spcstr hook"`} {
		if !strings.Contains(diff, s) {
			t.Errorf("diff lacks %q:\n%s", s, diff)
		}
	}
}

func TestUninstall(t *testing.T) {
	tests := []struct {
		name    string
		in      string
		want    string
		removed []string
	}{
		{
			name: "only spcstr's entries go; look-alikes stay",
			in: `{
  "hooks": {
    "PreToolUse": [
      {
        "matcher": "Bash",
        "hooks": [
          {"type": "command", "command": "spcstr-wrapper hook"},
          {"type": "command", "command": "spcstr hook && rm -rf /"},
          {"type": "command", "command": "echo spcstr hook"},
          {"type": "command", "command": "spcstr tui"},
          {"type": "command", "command": "spcstr hook PreToolUse"},
          {"type": "http", "url": "http://spcstr/hook"}
        ]
      }
    ]
  }
}
`,
			want: `{
  "hooks": {
    "PreToolUse": [
      {
        "matcher": "Bash",
        "hooks": [
          {"type": "command", "command": "spcstr-wrapper hook"},
          {"type": "command", "command": "spcstr hook && rm -rf /"},
          {"type": "command", "command": "echo spcstr hook"},
          {"type": "command", "command": "spcstr tui"},
          {"type": "http", "url": "http://spcstr/hook"}
        ]
      }
    ]
  }
}
`,
			removed: []string{hookio.PreToolUse},
		},
		{
			name: "emptied groups and events go, others stay",
			in: `{
  "hooks": {
    "Stop": [
      {"hooks": [{"type": "command", "command": "/usr/local/bin/spcstr hook"}]},
      {"hooks": [{"type": "command", "command": "say done"}]}
    ],
    "SessionEnd": [
      {"hooks": [{"type": "command", "command": "SPCSTR_AUTO_INIT=1 \"/a b/spcstr\" hook session_end"}]}
    ],
    "Notification": []
  },
  "model": "opus"
}
`,
			want: `{
  "hooks": {
    "Stop": [
      {"hooks": [{"type": "command", "command": "say done"}]}
    ],
    "Notification": []
  },
  "model": "opus"
}
`,
			removed: []string{hookio.Stop, hookio.SessionEnd},
		},
		{
			name:    "hooks emptied by uninstall goes",
			in:      `{"model": "opus", "hooks": {"Stop": [{"hooks": [{"type": "command", "command": "spcstr hook"}]}]}}`,
			want:    "{\n  \"model\": \"opus\"\n}",
			removed: []string{hookio.Stop},
		},
		{
			name: "nothing of spcstr: untouched",
			in:   `{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "say done"}]}]}, "x": 1}`,
			want: `{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "say done"}]}]}, "x": 1}`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := parse(t, tt.in)
			ch := d.Uninstall()
			if got := string(d.Bytes()); got != tt.want {
				t.Errorf("got:\n%s\nwant:\n%s", got, tt.want)
			}
			if !slices.Equal(ch.Removed, tt.removed) {
				t.Errorf("Removed = %q, want %q", ch.Removed, tt.removed)
			}
			if d.Changed() != (len(tt.removed) > 0) {
				t.Errorf("Changed = %v", d.Changed())
			}
		})
	}
}

func TestParseErrors(t *testing.T) {
	tests := []struct {
		in   string
		want error
		msg  string
	}{
		{in: "{\n  \"a\": 1,\n}\n", want: ErrSyntax, msg: "line 3"},
		{in: "{\n  // comment\n  \"a\": 1\n}", want: ErrSyntax, msg: "line 2"},
		{in: `{"a": 1} {"b": 2}`, want: ErrSyntax},
		{in: `[1, 2]`, want: ErrShape, msg: "top level"},
		{in: `{"hooks": "spcstr hook"}`, want: ErrShape, msg: `"hooks" is not an object`},
		{in: `{"hooks": {"Stop": {"hooks": []}}}`, want: ErrShape, msg: "hooks.Stop is not an array"},
	}
	for _, tt := range tests {
		_, err := Parse("s.json", []byte(tt.in))
		if !errors.Is(err, tt.want) || !strings.Contains(err.Error(), tt.msg) {
			t.Errorf("Parse(%q) = %v, want %v mentioning %q", tt.in, err, tt.want, tt.msg)
		}
	}
}

func TestIsSpcstrCommand(t *testing.T) {
	tests := []struct {
		command string
		args    []string
		want    bool
	}{
		{"spcstr hook", nil, true},
		{"  spcstr   hook  ", nil, true},
		{"/usr/local/bin/spcstr hook", nil, true},
		{"spcstr hook PreToolUse", nil, true},
		{"spcstr hook pre_tool_use", nil, true},
		{"'/Users/me/my tools/spcstr' hook", nil, true},
		{`"/Users/me/my tools/spcstr" hook`, nil, true},
		{`/Users/me/my\ tools/spcstr hook`, nil, true},
		{"SPCSTR_AUTO_INIT=1 spcstr hook", nil, true},
		{"$HOME/go/bin/spcstr hook", nil, true},
		{`C:/tools/spcstr.exe hook`, nil, true},
		{"/usr/bin/spcstr", []string{"hook"}, true},
		{"/usr/bin/spcstr", []string{"hook", "Stop"}, true},
		{"spcstr", nil, false},
		{"spcstr tui", nil, false},
		{"spcstr hook Stop extra", nil, false},
		{"spcstr hook ../../x", nil, false},
		{"spcstr hook; rm -rf /", nil, false},
		{"spcstr hook | tee x", nil, false},
		{"spcstr hook > /dev/null", nil, false},
		{"$(which spcstr) hook", nil, false},
		{"echo spcstr hook", nil, false},
		{"spcstrx hook", nil, false},
		{"/bin/spcstr-old hook", nil, false},
		{"'spcstr hook", nil, false},
		{"spcstr hook", []string{}, false}, // exec form: program "spcstr hook" does not exist
		{"spcstr-hook", nil, true},
		{"spcstr-hook PreToolUse", nil, true},
		{"'/Users/me/my tools/spcstr-hook' stop", nil, true},
		{`C:/tools/spcstr-hook.exe`, nil, true},
		{"/usr/bin/spcstr-hook", []string{}, true},
		{"/usr/bin/spcstr-hook", []string{"Stop"}, true},
		{"spcstr-hook hook", nil, false},
		{"spcstr-hook Stop extra", nil, false},
		{"spcstr-hooks", nil, false},
	}
	for _, tt := range tests {
		if got := IsSpcstrCommand(tt.command, tt.args); got != tt.want {
			t.Errorf("IsSpcstrCommand(%q, %q) = %v, want %v", tt.command, tt.args, got, tt.want)
		}
	}
}

// Install moves a registered "spcstr hook" to spcstr-hook and back,
// keeping assignments and the EVENT argument, in both forms.
func TestInstallSwitchesRecorder(t *testing.T) {
	lean := HookCommand{Program: "spcstr-hook", Line: "spcstr-hook", OnPath: true}
	d := parse(t, `{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "X=1 spcstr hook Stop"}]}],
  "SessionEnd": [{"hooks": [{"type": "command", "command": "/usr/bin/spcstr", "args": ["hook", "SessionEnd"]}]}]}}`)
	d.Install(lean, []string{"Stop", "SessionEnd"})
	got := map[string]string{}
	for _, h := range d.Handlers() {
		got[h.Event] = h.Command + " " + strings.Join(h.Args, ",")
	}
	if got["Stop"] != "X=1 spcstr-hook Stop " || got["SessionEnd"] != "spcstr-hook SessionEnd" {
		t.Errorf("to spcstr-hook: %q", got)
	}
	d.Install(short, []string{"Stop", "SessionEnd"})
	for _, h := range d.Handlers() {
		got[h.Event] = h.Command + " " + strings.Join(h.Args, ",")
	}
	if got["Stop"] != "X=1 spcstr hook Stop " || got["SessionEnd"] != "spcstr hook,SessionEnd" {
		t.Errorf("back to spcstr hook: %q", got)
	}
}

func TestShellQuoteRoundTrip(t *testing.T) {
	for _, p := range []string{"/usr/bin/spcstr", "/Users/me/my tools/spcstr", "/tmp/it's/spcstr", `C:\Program Files\spcstr.exe`, "/a$b/spcstr"} {
		line := ShellQuote(p) + " hook"
		words, ok := splitWords(line)
		if !ok || len(words) != 2 || words[0].text != p || words[1].text != "hook" {
			t.Errorf("%q quoted as %q splits to %+v", p, line, words)
		}
		if !IsSpcstrCommand(line, nil) && strings.HasSuffix(p, "spcstr") {
			t.Errorf("%q not recognised", line)
		}
	}
	if q := ShellQuote("/usr/local/bin/spcstr"); q != "/usr/local/bin/spcstr" {
		t.Errorf("a plain path was quoted: %q", q)
	}
}

func TestResolveCommand(t *testing.T) {
	dir := t.TempDir()
	exe := filepath.Join(dir, "my tools", "spcstr")
	other := filepath.Join(dir, "other", "spcstr")
	for _, p := range []string{exe, other} {
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte("#!/bin/sh\n"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	link := filepath.Join(dir, "bin", "spcstr")
	_ = os.MkdirAll(filepath.Dir(link), 0o755)
	if err := os.Symlink(exe, link); err != nil {
		t.Fatal(err)
	}
	found := func(p string) func(string) (string, error) {
		return func(string) (string, error) { return p, nil }
	}
	notFound := func(string) (string, error) { return "", errors.New("not found") }

	tests := []struct {
		name     string
		lookPath func(string) (string, error)
		line     string
		onPath   bool
		why      string
	}{
		{"on PATH is this binary", found(exe), "spcstr hook", true, "is this binary"},
		{"on PATH through a symlink", found(link), "spcstr hook", true, "is this binary"},
		{"not on PATH", notFound, "'" + exe + "' hook", false, "not on PATH"},
		{"another spcstr on PATH", found(other), "'" + exe + "' hook", false, "different binary"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			hc := ResolveCommand(exe, tt.lookPath)
			if hc.Line != tt.line || hc.OnPath != tt.onPath || !strings.Contains(hc.Why, tt.why) {
				t.Errorf("got %+v, want line %q onPath %v why ~%q", hc, tt.line, tt.onPath, tt.why)
			}
			if !IsSpcstrCommand(hc.Line, nil) {
				t.Errorf("%q is not recognised as spcstr's", hc.Line)
			}
		})
	}
	// spcstr-hook beside spcstr is what gets registered.
	lean := filepath.Join(dir, "my tools", "spcstr-hook")
	if err := os.WriteFile(lean, []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	if hc := ResolveCommand(exe, notFound); hc.Line != "'"+lean+"'" || hc.OnPath || !IsSpcstrCommand(hc.Line, nil) {
		t.Errorf("beside spcstr, off PATH: %+v", hc)
	}
	if hc := ResolveCommand(exe, found(lean)); hc.Line != "spcstr-hook" || !hc.OnPath || !strings.Contains(hc.Why, "lean recorder") {
		t.Errorf("beside spcstr, on PATH: %+v", hc)
	}
	if hc := ResolveCommand("/tmp/go-build123/b001/exe/spcstr", notFound); hc.Warning == "" {
		t.Errorf("no warning for a go run build")
	}
}

func TestSave(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, ".claude", "settings.json")

	// A missing file is created, with no backup.
	d, err := Load(path)
	if err != nil || d.Exists {
		t.Fatalf("Load(missing) = %v, %v", d, err)
	}
	d.Install(short, Events())
	backup, err := d.Save()
	if err != nil || backup != "" {
		t.Fatalf("Save(new) = %q, %v", backup, err)
	}
	first, _ := os.ReadFile(path)

	// A second change backs up the first version and keeps the mode.
	if err := os.Chmod(path, 0o600); err != nil {
		t.Fatal(err)
	}
	d, _ = Load(path)
	d.Uninstall()
	backup, err = d.Save()
	if err != nil || backup != path+BackupSuffix {
		t.Fatalf("Save = %q, %v", backup, err)
	}
	if b, _ := os.ReadFile(backup); string(b) != string(first) {
		t.Errorf("backup holds %q, want the previous file", b)
	}
	if fi, _ := os.Stat(path); fi.Mode().Perm() != 0o600 {
		t.Errorf("mode %v, want 0600", fi.Mode().Perm())
	}

	// Unchanged: Save writes nothing.
	d, _ = Load(path)
	d.Uninstall()
	if backup, err := d.Save(); err != nil || backup != "" {
		t.Errorf("Save(unchanged) = %q, %v", backup, err)
	}

	// Changed on disk meanwhile: refused, the other writer's text kept.
	d, _ = Load(path)
	d.Install(short, Events())
	if err := os.WriteFile(path, []byte(`{"theirs": true}`), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := d.Save(); !errors.Is(err, ErrChangedMeanwhile) {
		t.Errorf("Save after a concurrent write = %v", err)
	}
	if b, _ := os.ReadFile(path); string(b) != `{"theirs": true}` {
		t.Errorf("file overwritten: %s", b)
	}
}

func TestSaveThroughSymlink(t *testing.T) {
	dir := t.TempDir()
	real := filepath.Join(dir, "dotfiles", "claude-settings.json")
	_ = os.MkdirAll(filepath.Dir(real), 0o755)
	if err := os.WriteFile(real, []byte("{}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "home", ".claude", "settings.json")
	_ = os.MkdirAll(filepath.Dir(link), 0o755)
	if err := os.Symlink(real, link); err != nil {
		t.Fatal(err)
	}
	d, err := Load(link)
	if err != nil {
		t.Fatal(err)
	}
	d.Install(short, Events())
	if _, err := d.Save(); err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Lstat(link); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Fatalf("the symlink was replaced: %v %v", fi, err)
	}
	if b, _ := os.ReadFile(real); !strings.Contains(string(b), `"spcstr hook"`) {
		t.Errorf("the link's target was not updated: %s", b)
	}
}

func TestUserFile(t *testing.T) {
	env := map[string]string{"HOME": "/home/u"}
	getenv := func(k string) string { return env[k] }
	if p, _ := UserFile(getenv); p != filepath.Join("/home/u", ".claude", "settings.json") {
		t.Errorf("UserFile = %q", p)
	}
	env["CLAUDE_CONFIG_DIR"] = "/cfg"
	if p, _ := UserFile(getenv); p != filepath.Join("/cfg", "settings.json") {
		t.Errorf("UserFile with CLAUDE_CONFIG_DIR = %q", p)
	}
}

func TestEventsExcludeWorktreeCreate(t *testing.T) {
	ev := Events()
	if slices.Contains(ev, hookio.WorktreeCreate) || len(ev) != len(hookio.KnownEvents)-1 {
		t.Errorf("Events() = %q", ev)
	}
}

func TestHandlersAndMatchers(t *testing.T) {
	d := parse(t, `{"disableAllHooks": true, "hooks": {
  "PreToolUse": [{"matcher": "Edit|Write", "hooks": [{"type": "command", "command": "spcstr hook", "async": true}]}],
  "PostToolUse": [{"matcher": "*", "hooks": [{"type": "command", "command": "spcstr hook"}]}],
  "Notification": [{"matcher": "", "hooks": [{"type": "command", "command": "spcstr hook", "if": "Bash(x)"}]}],
  "Stop": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "spcstr hook"}]}]
}}`)
	want := map[string]bool{hookio.PreToolUse: false, hookio.PostToolUse: true, hookio.Notification: false, hookio.Stop: true}
	hs := d.Handlers()
	if len(hs) != 4 {
		t.Fatalf("Handlers = %+v", hs)
	}
	for _, h := range hs {
		if h.RunsForAll() != want[h.Event] {
			t.Errorf("%s RunsForAll = %v", h.Event, h.RunsForAll())
		}
	}
	if !hs[0].Async {
		t.Errorf("async not read")
	}
	if v, set := d.Bool("disableAllHooks"); !v || !set {
		t.Errorf("disableAllHooks = %v, %v", v, set)
	}
}

// init registers an explicit timeout per event (hookio.Timeout) on the
// entries it writes and on the spcstr entries it keeps; an entry that has
// it already is left alone.
func TestInstallTimeouts(t *testing.T) {
	d := parse(t, `{"hooks":{"UserPromptSubmit":[{"hooks":[{"type":"command","command":"spcstr hook"}]}],`+
		`"Stop":[{"hooks":[{"type":"command","command":"spcstr hook","timeout":600}]}]}}`)
	ch := d.Install(short, []string{hookio.UserPromptSubmit, hookio.Stop, hookio.SessionEnd})
	if !slices.Equal(ch.Updated, []string{hookio.UserPromptSubmit}) || !slices.Equal(ch.Kept, []string{hookio.Stop}) ||
		!slices.Equal(ch.Added, []string{hookio.SessionEnd}) {
		t.Fatalf("change = %+v", ch)
	}
	got := string(d.Bytes())
	for _, want := range []string{`"command": "spcstr hook",
            "timeout": 30`, `"timeout": 600`, `"timeout": 10`} {
		if !strings.Contains(got, want) {
			t.Errorf("settings lack %s:\n%s", want, got)
		}
	}
}
