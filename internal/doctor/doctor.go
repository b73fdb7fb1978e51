// Package doctor owns "spcstr doctor": a list of checks that look at an
// installation (the binary, the hook registrations in every settings file
// Claude Code reads, .spcstr/config.yaml, files set aside as corrupt, git
// ignoring .spcstr/, leftover temporary files) and report findings, each
// with a severity and, for a problem, a concrete fix.
//
// Adding a check: write a func(context.Context, *Env) []Finding (in this
// package, or in the domain package that knows what to check, wrapped
// here) and list it in DefaultChecks. Env loads shared inputs (the settings
// files) once for all checks.
//
// The --json output is one Report object:
//
//	{
//	  "version": 1,                  // schema version of this object
//	  "project": "/abs/project/root",
//	  "healthy": false,              // no finding of severity warning or error
//	  "summary": {"ok": 5, "info": 1, "warning": 1, "error": 1},
//	  "findings": [
//	    {"check": "hooks", "severity": "error",   // ok | info | warning | error
//	     "message": "what was found",
//	     "fix": "what to do about it",           // omitted when nothing to do
//	     "path": "/file/concerned",             // omitted when none
//	     "repair": {"kind": "rebuild-state",    // what --fix does, omitted when nothing:
//	                "session": "…"}}            // rebuild-state (session) or drop-torn-lines (path)
//	  ]
//	}
package doctor

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"time"

	"github.com/dylan-gluck/spcstr/internal/buildinfo"
	"github.com/dylan-gluck/spcstr/internal/claudesettings"
	"github.com/dylan-gluck/spcstr/state"
)

// Severity grades a finding. Warning and Error are problems (doctor exits
// 1); OK and Info are not.
type Severity string

// Severities, from harmless to serious.
const (
	OK      Severity = "ok"
	Info    Severity = "info"
	Warning Severity = "warning"
	Error   Severity = "error"
)

// Problem reports whether the severity makes the installation unhealthy.
func (s Severity) Problem() bool { return s == Warning || s == Error }

// Finding is one thing a check found.
type Finding struct {
	// Check is the name of the check that found it (filled in by Run).
	Check    string   `json:"check"`
	Severity Severity `json:"severity"`
	Message  string   `json:"message"`
	// Fix says what to do; required for problems.
	Fix string `json:"fix,omitempty"`
	// Path is the file or folder concerned, when there is one.
	Path string `json:"path,omitempty"`
	// Repair is what spcstr doctor --fix does about it (zero: nothing).
	// Fix is the text a person reads; Repair is what --fix acts on.
	Repair Repair `json:"repair,omitzero"`
}

// RepairKind names a mend spcstr doctor --fix knows how to make.
type RepairKind string

// The repairs spcstr doctor --fix makes (records.go finds them).
const (
	// RepairRebuildState rebuilds Repair.Session's state.json from its
	// logs (a damaged one is set aside first).
	RepairRebuildState RepairKind = "rebuild-state"
	// RepairDropTorn moves the torn lines of the observability log at
	// Repair.Path to <name>.torn.
	RepairDropTorn RepairKind = "drop-torn-lines"
)

// Repair is a finding's mend as a value: its kind and what it applies to.
type Repair struct {
	Kind RepairKind `json:"kind"`
	// Session is the session concerned (RepairRebuildState).
	Session string `json:"session,omitempty"`
	// Path is the file concerned (RepairDropTorn).
	Path string `json:"path,omitempty"`
}

// Check is one named check.
type Check struct {
	Name string
	Run  func(ctx context.Context, env *Env) []Finding
}

// DefaultChecks is the list spcstr doctor runs, in order.
func DefaultChecks() []Check {
	return []Check{
		{Name: "project", Run: checkProject},
		{Name: "binary", Run: checkBinary},
		{Name: "hooks", Run: checkHooks},
		{Name: "config", Run: checkConfig},
		{Name: "observe", Run: checkObservability},
		{Name: "requirements", Run: checkRequirements},
		{Name: "feedback", Run: checkFeedback},
		{Name: "strategies", Run: checkStrategies},
		{Name: "gates", Run: checkGates},
		{Name: "corrupt", Run: checkCorrupt},
		{Name: "records", Run: checkRecords},
		{Name: "gitignore", Run: checkGitignore},
		{Name: "tempfiles", Run: checkTempFiles},
		{Name: "otel", Run: checkOtel},
		{Name: "recorder", Run: checkRecorder},
		{Name: "notify", Run: checkNotify},
	}
}

// Env is what checks look at. Every field has a default from DefaultEnv;
// tests replace them.
type Env struct {
	// Root is the project root.
	Root string
	// Getenv reads the environment.
	Getenv func(string) string
	// LookPath finds a program on PATH.
	LookPath func(string) (string, error)
	// Executable is the running spcstr binary ("" when unknown).
	Executable string
	// Version is the running spcstr's version line (buildinfo.String).
	Version string
	// ReadVersion reads a program's version line from its file, never by
	// running it (readBinaryVersion).
	ReadVersion func(prog string) (string, error)
	// ManagedFiles are the organization's managed settings files.
	ManagedFiles []string
	// Git is the git program, "" when git is not installed.
	Git string
	// Now is the time of the run.
	Now time.Time
	// TmuxOption reads a global tmux option (nil: the user's tmux).
	TmuxOption func(ctx context.Context, name string) (string, error)
	// ConfigFile, when set, is the config.yaml the checks read instead of
	// the project's (spcstr strategy validate --config).
	ConfigFile string

	once     sync.Once
	settings []SettingsFile
}

// SettingsFile is one settings file Claude Code reads hooks from.
type SettingsFile struct {
	// Scope is "local", "project" or "user", in Claude Code's precedence
	// order (local wins).
	Scope string
	Path  string
	// Doc is nil when the file could not be read or parsed (Err).
	Doc *claudesettings.Document
	Err error
}

// DefaultEnv is the real environment for the project at root.
func DefaultEnv(root string) *Env {
	e := &Env{
		Root:         root,
		Getenv:       os.Getenv,
		LookPath:     exec.LookPath,
		ManagedFiles: managedFiles(),
		Now:          time.Now(),
		Version:      buildinfo.String(),
		ReadVersion:  readBinaryVersion,
	}
	if exe, err := os.Executable(); err == nil {
		e.Executable = exe
	}
	if git, err := exec.LookPath("git"); err == nil {
		e.Git = git
	}
	return e
}

func managedFiles() []string {
	var dir string
	switch runtime.GOOS {
	case "darwin":
		dir = "/Library/Application Support/ClaudeCode"
	case "windows":
		dir = `C:\Program Files\ClaudeCode`
	default:
		dir = "/etc/claude-code"
	}
	files := []string{filepath.Join(dir, "managed-settings.json")}
	more, _ := filepath.Glob(filepath.Join(dir, "managed-settings.d", "*.json"))
	return append(files, more...)
}

// Layout is the project's .spcstr layout.
func (e *Env) Layout() state.Layout { return state.Layout{Root: e.Root} }

// ConfigPath is the config.yaml the checks read: ConfigFile, else the
// project's .spcstr/config.yaml.
func (e *Env) ConfigPath() string {
	if e.ConfigFile != "" {
		return e.ConfigFile
	}
	return e.Layout().ConfigPath()
}

// Settings loads the local, project and user settings files once.
func (e *Env) Settings() []SettingsFile {
	e.once.Do(func() {
		files := []SettingsFile{
			{Scope: "local", Path: claudesettings.LocalFile(e.Root)},
			{Scope: "project", Path: claudesettings.ProjectFile(e.Root)},
		}
		if user, err := claudesettings.UserFile(e.Getenv); err == nil {
			files = append(files, SettingsFile{Scope: "user", Path: user})
		} else {
			files = append(files, SettingsFile{Scope: "user", Err: err})
		}
		for i := range files {
			if files[i].Err == nil {
				files[i].Doc, files[i].Err = claudesettings.Load(files[i].Path)
			}
		}
		e.settings = files
	})
	return e.settings
}

// Rel shows path relative to the project root when inside it.
func (e *Env) Rel(path string) string {
	if rel, err := filepath.Rel(e.Root, path); err == nil && !strings.HasPrefix(rel, "..") {
		return rel
	}
	return path
}

// Report is the result of a run (and the --json document).
type Report struct {
	Version  int       `json:"version"`
	Project  string    `json:"project"`
	Healthy  bool      `json:"healthy"`
	Summary  Summary   `json:"summary"`
	Findings []Finding `json:"findings"`
}

// Summary counts findings by severity.
type Summary struct {
	OK      int `json:"ok"`
	Info    int `json:"info"`
	Warning int `json:"warning"`
	Error   int `json:"error"`
}

// ReportVersion is the version of the Report schema.
const ReportVersion = 1

// Run runs the checks in order and collects their findings.
func Run(ctx context.Context, env *Env, checks []Check) *Report {
	r := &Report{Version: ReportVersion, Project: env.Root, Healthy: true, Findings: []Finding{}}
	for _, c := range checks {
		if ctx.Err() != nil {
			r.Findings = append(r.Findings, Finding{Check: c.Name, Severity: Error,
				Message: "interrupted before this check ran", Fix: "run spcstr doctor again"})
			continue
		}
		for _, f := range c.Run(ctx, env) {
			if f.Check == "" {
				f.Check = c.Name
			}
			r.Findings = append(r.Findings, f)
		}
	}
	for _, f := range r.Findings {
		switch f.Severity {
		case OK:
			r.Summary.OK++
		case Info:
			r.Summary.Info++
		case Warning:
			r.Summary.Warning++
		case Error:
			r.Summary.Error++
		}
		if f.Severity.Problem() {
			r.Healthy = false
		}
	}
	return r
}

// WriteJSON writes the report as indented JSON.
func (r *Report) WriteJSON(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(r)
}

// WriteText writes the report for a person: one line per finding, its fix
// indented below it, and a closing verdict.
func (r *Report) WriteText(w io.Writer) error {
	var b strings.Builder
	fmt.Fprintf(&b, "spcstr doctor: %s\n", r.Project)
	width := 0 // the longest check name sets the column
	for _, f := range r.Findings {
		width = max(width, len(f.Check))
	}
	for _, f := range r.Findings {
		label := string(f.Severity)
		if f.Severity.Problem() {
			label = strings.ToUpper(label)
		}
		fmt.Fprintf(&b, "  %-7s  %-*s  %s\n", label, width, f.Check, f.Message)
		if f.Fix != "" {
			fmt.Fprintf(&b, "  %-7s  %-*s  fix: %s\n", "", width, "", f.Fix)
		}
	}
	if r.Healthy {
		b.WriteString("No problems found.\n")
	} else {
		n := r.Summary.Warning + r.Summary.Error
		fmt.Fprintf(&b, "%d problem%s found (%d error%s, %d warning%s).\n",
			n, plural(n), r.Summary.Error, plural(r.Summary.Error), r.Summary.Warning, plural(r.Summary.Warning))
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}
