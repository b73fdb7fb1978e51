package state

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/dylan-gluck/spcstr/internal/config"
	"github.com/dylan-gluck/spcstr/internal/gitrepo"
	"github.com/dylan-gluck/spcstr/internal/safefs"
	"github.com/dylan-gluck/spcstr/internal/termtext"
	"github.com/dylan-gluck/spcstr/logs"
)

// DirName is the name of spcstr's folder in a project.
const DirName = ".spcstr"

// Layout locates everything spcstr keeps under one project's .spcstr/
// (docs/layout.md). Paths are built only from validated names, so
// nothing it returns escapes the .spcstr folder.
type Layout struct {
	// Root is the project root (the folder holding .spcstr/).
	Root string
	// Scratch, when set, stands in for <root>/.spcstr: a replay (`spcstr
	// strategy dry-run`) keeps the state it builds there and writes
	// nothing in the project's .spcstr/.
	Scratch string
}

// Dir returns <root>/.spcstr (or Scratch).
func (l Layout) Dir() string {
	if l.Scratch != "" {
		return l.Scratch
	}
	return filepath.Join(l.Root, DirName)
}

// Exists reports whether the project has a .spcstr folder.
func (l Layout) Exists() bool {
	fi, err := os.Stat(l.Dir())
	return err == nil && fi.IsDir()
}

// SessionsDir returns <root>/.spcstr/sessions.
func (l Layout) SessionsDir() string { return filepath.Join(l.Dir(), "sessions") }

// LogsDir returns <root>/.spcstr/logs.
func (l Layout) LogsDir() string { return filepath.Join(l.Dir(), "logs") }

// ConfigPath returns <root>/.spcstr/config.yaml.
func (l Layout) ConfigPath() string { return filepath.Join(l.Dir(), "config.yaml") }

// BackupsDir is where spcstr init and uninstall keep the previous copies of
// the project's .claude/settings*.json (git ignores .spcstr/).
func (l Layout) BackupsDir() string { return filepath.Join(l.Dir(), "backups") }

// SessionDir returns the folder of one session. It fails for an id that
// ValidSessionID rejects.
func (l Layout) SessionDir(id string) (string, error) {
	if !ValidSessionID(id) {
		return "", fmt.Errorf("%w: %q", ErrInvalidSessionID, termtext.Cut(id, 80))
	}
	return filepath.Join(l.SessionsDir(), id), nil
}

// StatePath returns the state.json path of one session.
func (l Layout) StatePath(id string) (string, error) {
	d, err := l.SessionDir(id)
	if err != nil {
		return "", err
	}
	return filepath.Join(d, StateFile), nil
}

// FeedbackPath returns the feedback-loop.json path of one session.
func (l Layout) FeedbackPath(id string) (string, error) {
	d, err := l.SessionDir(id)
	if err != nil {
		return "", err
	}
	return filepath.Join(d, FeedbackFile), nil
}

// ObservabilityPath returns the observability.jsonl path of one session
// (the name is logs.ObservabilityFile).
func (l Layout) ObservabilityPath(id string) (string, error) {
	d, err := l.SessionDir(id)
	if err != nil {
		return "", err
	}
	return filepath.Join(d, logs.ObservabilityFile), nil
}

// ObservabilityPathIn returns session id's observability log when the
// configuration's observability.dir is dir: <root>/<dir>/<id>.jsonl,
// dir being relative to the project root and kept inside it (no "..", no
// symlink to a folder outside: safefs.Within). dir "" is
// ObservabilityPath.
func (l Layout) ObservabilityPathIn(dir, id string) (string, error) {
	if dir == "" {
		return l.ObservabilityPath(id)
	}
	if !ValidSessionID(id) {
		return "", fmt.Errorf("invalid session id %q", id)
	}
	d, err := safefs.Within(l.Root, filepath.FromSlash(dir))
	if err != nil {
		return "", fmt.Errorf("observability.dir: %w", err)
	}
	return filepath.Join(d, id+".jsonl"), nil
}

// ObservabilityLog returns session id's observability log where the hook
// writes it: observability.dir of the project's .spcstr/config.yaml when
// it is set and usable, else ObservabilityPath. For readers (the
// dashboard, export); it reads the config file.
func (l Layout) ObservabilityLog(id string) (string, error) {
	cfg, _ := config.Load(l.ConfigPath())
	if cfg != nil && cfg.Observability.Dir != "" {
		if p, err := l.ObservabilityPathIn(cfg.Observability.Dir, id); err == nil {
			return p, nil
		}
	}
	return l.ObservabilityPath(id)
}

// LogPath returns the path of the live log named name, a name given by
// logs.Name ("pre_tool_use", "decisions", "rejected").
func (l Layout) LogPath(name string) string {
	return filepath.Join(l.LogsDir(), name+logs.Ext)
}

// The files of a session's folder, .spcstr/sessions/<id>/ (docs/layout.md).
const (
	// StateFile is the session's state (docs/state.md).
	StateFile = "state.json"
	// FeedbackFile is the session's feedback loop, owned by the feedback
	// loop gate.
	FeedbackFile = "feedback-loop.json"
)

// ErrInvalidSessionID is returned for a session id that may not be used in a
// path.
var ErrInvalidSessionID = errors.New("invalid session id")

// ValidSessionID reports whether id may name a folder under .spcstr/sessions:
// it must match ^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$, which also rules out "."
// and "..", separators, NUL and absolute paths. (Checked by hand: a regexp
// compiled at package init would cost every hook call.)
func ValidSessionID(id string) bool {
	if len(id) == 0 || len(id) > 128 || !isAlnum(id[0]) {
		return false
	}
	for i := 1; i < len(id); i++ {
		if c := id[i]; !isAlnum(c) && c != '.' && c != '_' && c != '-' {
			return false
		}
	}
	return true
}

func isAlnum(c byte) bool {
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')
}

// FindRoot picks the project root for a hook payload (docs/layout.md):
// projectDir ($CLAUDE_PROJECT_DIR) when set; otherwise the nearest ancestor
// of cwd holding .spcstr/; otherwise the git top level of cwd; otherwise cwd.
func FindRoot(projectDir, cwd string) string {
	if projectDir != "" {
		return filepath.Clean(projectDir)
	}
	if cwd == "" {
		cwd, _ = os.Getwd()
	}
	cwd = filepath.Clean(cwd)
	for d := cwd; ; {
		if fi, err := os.Stat(filepath.Join(d, DirName)); err == nil && fi.IsDir() {
			return d
		}
		parent := filepath.Dir(d)
		if parent == d {
			break
		}
		d = parent
	}
	if repo, ok := gitrepo.Find(cwd); ok {
		return repo.Top
	}
	return cwd
}
