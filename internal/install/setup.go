// Package setup owns installing spcstr into a project and taking it out
// again (spcstr init / spcstr uninstall): registering the hook in a Claude
// Code settings file through package settings, creating .spcstr/ with its
// logs/ and sessions/ folders, and git-ignoring .spcstr/. Every step is
// idempotent, and a dry run computes the same changes and writes nothing.
package install

import (
	"bytes"
	"errors"
	"fmt"
	"github.com/dylan-gluck/spcstr/internal/safefs"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/dylan-gluck/spcstr/internal/claudesettings"
	"github.com/dylan-gluck/spcstr/state"
)

// Options says what to install and where.
type Options struct {
	// Root is the project root (where .spcstr/ lives).
	Root string
	// Global registers in the user's settings file instead of the
	// project's.
	Global bool
	// DryRun computes every change and writes nothing.
	DryRun bool
	// Command is the hook command to register (claudesettings.ResolveCommand).
	Command claudesettings.HookCommand
	// Getenv reads the environment (HOME, CLAUDE_CONFIG_DIR); os.Getenv
	// when nil.
	Getenv func(string) string
	// StatusLine registers spcstr's status line command too: "on", or
	// claudesettings.StatusLineKeep to leave one the user has alone ("":
	// no status line).
	StatusLine string
}

// FileResult is what happened to one settings file.
type FileResult struct {
	Path   string
	Change claudesettings.Change
	// Backup is the copy of the previous file ("" when none was made).
	Backup string
	// Diff is the unified diff of the change ("" when none).
	Diff string
	// Created is true when the file did not exist before.
	Created bool
	// Removed is true when uninstall deleted the file: it held nothing
	// but spcstr's hooks, and an empty "{}" would be left otherwise.
	Removed bool
}

// Result is what Init or Uninstall did (or, in a dry run, would do).
type Result struct {
	Root    string
	DryRun  bool
	Global  bool
	Command claudesettings.HookCommand
	Files   []FileResult
	// CreatedDirs lists the folders created under the root.
	CreatedDirs []string
	// Gitignore is the .gitignore path; GitignoreDiff its change ("" when
	// .spcstr/ was already ignored there).
	Gitignore     string
	GitignoreDiff string
	// ProjectSkipped says why the project folder was left alone ("" when
	// it was set up).
	ProjectSkipped string
	// Notes are things the user should know (another settings file also
	// registers spcstr, leftovers kept, ...).
	Notes []string
}

// Changed reports whether anything was (or would be) changed.
func (r *Result) Changed() bool {
	if len(r.CreatedDirs) > 0 || r.GitignoreDiff != "" {
		return true
	}
	for _, f := range r.Files {
		if f.Diff != "" {
			return true
		}
	}
	return false
}

func (o *Options) getenv(k string) string {
	if o.Getenv == nil {
		return os.Getenv(k)
	}
	return o.Getenv(k)
}

// settingsFiles returns the file Init writes and the other files Claude
// Code also reads hooks from.
func (o *Options) settingsFiles() (target string, others []string, err error) {
	user, err := claudesettings.UserFile(o.getenv)
	if err != nil {
		return "", nil, err
	}
	if o.Global {
		return user, []string{claudesettings.ProjectFile(o.Root), claudesettings.LocalFile(o.Root)}, nil
	}
	return claudesettings.ProjectFile(o.Root), []string{claudesettings.LocalFile(o.Root), user}, nil
}

// Init registers opts.Command for every event in the project's (or the
// user's) settings file, creates .spcstr/{logs,sessions} and adds .spcstr/
// to the project's .gitignore. A settings file that does not parse stops
// everything before anything is written.
func Init(opts Options) (*Result, error) {
	r := &Result{Root: opts.Root, DryRun: opts.DryRun, Global: opts.Global, Command: opts.Command}
	switch opts.StatusLine {
	case "", "on", claudesettings.StatusLineKeep:
	default:
		return nil, fmt.Errorf("--statusline=%q: want --statusline or --statusline=keep", opts.StatusLine)
	}
	target, others, err := opts.settingsFiles()
	if err != nil {
		return nil, err
	}
	if !opts.Global {
		if err := inProject(opts.Root, target); err != nil {
			return nil, err
		}
	}
	doc, err := claudesettings.Load(target)
	if err != nil {
		return nil, untouched(err)
	}
	if !opts.Global {
		doc.BackupDir = state.Layout{Root: opts.Root}.BackupsDir()
	}
	change := doc.Install(opts.Command, claudesettings.Events())
	if opts.StatusLine != "" {
		if note := doc.InstallStatusLine(opts.Command, opts.StatusLine); note != "" {
			r.Notes = append(r.Notes, note)
		}
	}
	fr := FileResult{Path: target, Change: change, Diff: doc.Diff(r.Rel(target)), Created: !doc.Exists}

	if opts.Global && isHome(opts.Root, opts.getenv) {
		r.ProjectSkipped = "the current folder is your home folder, not a project: run spcstr init --global (or spcstr init) in a project to record it"
	} else {
		if err := r.projectDirs(opts.DryRun); err != nil {
			return nil, err
		}
		if err := r.gitignore(opts.DryRun); err != nil {
			return nil, err
		}
	}
	if !opts.DryRun {
		if fr.Backup, err = doc.Save(); err != nil {
			return nil, err
		}
	}
	r.Files = append(r.Files, fr)
	if !opts.Global && !opts.Command.OnPath && !change.Empty() {
		r.Notes = append(r.Notes, fmt.Sprintf("%s is usually committed, and an absolute path works only on this machine: "+
			"for a shared file, put spcstr on PATH and run spcstr init again", r.Rel(target)))
	}
	for _, other := range others {
		od, err := claudesettings.Load(other)
		if err != nil {
			r.Notes = append(r.Notes, fmt.Sprintf("could not read %s to check for other registrations: %v", r.Rel(other), err))
			continue
		}
		for _, c := range od.SpcstrCommands() {
			if c != opts.Command.Line {
				r.Notes = append(r.Notes, fmt.Sprintf(
					"%s also registers spcstr as %q: Claude Code runs both commands, so events would be recorded twice; "+
						"remove one (spcstr uninstall%s removes that file's entries)", r.Rel(other), c, uninstallFlag(other, opts.Root)))
				break
			}
		}
	}
	return r, nil
}

// Uninstall removes spcstr's entries from the project's settings.json and
// settings.local.json (or, with Global, the user's settings file). It keeps
// .spcstr/ (the recorded sessions) and the .gitignore line.
func Uninstall(opts Options) (*Result, error) {
	r := &Result{Root: opts.Root, DryRun: opts.DryRun, Global: opts.Global}
	target, others, err := opts.settingsFiles()
	if err != nil {
		return nil, err
	}
	paths := []string{target}
	if !opts.Global {
		paths = append(paths, claudesettings.LocalFile(opts.Root))
		others = others[1:]
	}
	var docs []*claudesettings.Document
	for _, p := range paths {
		if !opts.Global {
			if err := inProject(opts.Root, p); err != nil {
				return nil, err
			}
		}
		d, err := claudesettings.Load(p)
		if err != nil {
			return nil, untouched(err)
		}
		if !opts.Global {
			d.BackupDir = state.Layout{Root: opts.Root}.BackupsDir()
		}
		docs = append(docs, d)
	}
	for _, d := range docs {
		if !d.Exists {
			continue
		}
		change := d.Uninstall()
		if note := d.UninstallStatusLine(); note != "" {
			r.Notes = append(r.Notes, note)
		}
		fr := FileResult{Path: d.Path, Change: change, Diff: d.Diff(r.Rel(d.Path))}
		if d.Emptied() && !opts.Global { // the user file stays, even empty
			fr.Removed, fr.Diff = true, d.RemovalDiff(r.Rel(d.Path))
			if !opts.DryRun {
				if err := d.Remove(); err != nil {
					return nil, err
				}
			}
			r.Files = append(r.Files, fr)
			continue
		}
		if !opts.DryRun {
			if fr.Backup, err = d.Save(); err != nil {
				return nil, err
			}
		}
		r.Files = append(r.Files, fr)
	}
	for _, other := range others {
		if od, err := claudesettings.Load(other); err == nil && len(od.SpcstrCommands()) > 0 {
			r.Notes = append(r.Notes, fmt.Sprintf("%s still registers spcstr (run spcstr uninstall%s to remove it)",
				r.Rel(other), uninstallFlag(other, opts.Root)))
		}
	}
	if (state.Layout{Root: opts.Root}).Exists() {
		r.Notes = append(r.Notes, fmt.Sprintf("kept %s (the recorded sessions) and its .gitignore line; delete them yourself if you no longer want them",
			r.Rel(state.Layout{Root: opts.Root}.Dir())+string(filepath.Separator)))
	}
	return r, nil
}

// inProject refuses a project settings file whose path leads out of the
// project (a symlinked .claude folder, or a settings file that is a
// symlink to somewhere else): spcstr writes the project's own files only,
// never a file a repository points it at.
func inProject(root, path string) error {
	realRoot, err := filepath.EvalSymlinks(root)
	if err != nil {
		return err
	}
	var where string
	switch real, err := filepath.EvalSymlinks(path); {
	case err == nil:
		where = real
	case errors.Is(err, fs.ErrNotExist):
		if fi, lerr := os.Lstat(path); lerr == nil && fi.Mode()&fs.ModeSymlink != 0 {
			target, _ := os.Readlink(path)
			return fmt.Errorf("%s is a symlink to %s, which does not exist: spcstr init writes only the project's own file; replace the symlink with a file (or remove it) and run again", path, target)
		}
		dir, derr := filepath.EvalSymlinks(filepath.Dir(path))
		if derr != nil {
			return nil // neither exists yet: created inside the project
		}
		where = filepath.Join(dir, filepath.Base(path))
	default:
		return err
	}
	if rel, err := filepath.Rel(realRoot, where); err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) || filepath.IsAbs(rel) {
		return fmt.Errorf("%s leads out of the project (to %s): spcstr writes only the project's own settings, never a file a symlink points at; "+
			"replace the symlink with a file of the project's own (or use --global for your user settings) and run again", path, where)
	}
	return nil
}

// untouched adds the reassurance and the fix to a settings file that does
// not parse.
func untouched(err error) error {
	if errors.Is(err, claudesettings.ErrSyntax) || errors.Is(err, claudesettings.ErrShape) {
		return fmt.Errorf("%w\nspcstr changed nothing: fix the file by hand (or restore its .bak copy) and run again", err)
	}
	return err
}

func uninstallFlag(path, root string) string {
	if strings.HasPrefix(path, filepath.Join(root, ".claude")+string(filepath.Separator)) {
		return ""
	}
	return " --global"
}

func isHome(root string, getenv func(string) string) bool {
	home := getenv("HOME")
	if home == "" {
		home, _ = os.UserHomeDir()
	}
	if home == "" {
		return false
	}
	a, errA := os.Stat(root)
	b, errB := os.Stat(home)
	return errA == nil && errB == nil && os.SameFile(a, b)
}

// Rel shows path relative to the project root when it is inside it.
func (r *Result) Rel(path string) string {
	if rel, err := filepath.Rel(r.Root, path); err == nil && !strings.HasPrefix(rel, "..") {
		return rel
	}
	return path
}

// projectDirs creates .spcstr/, .spcstr/logs and .spcstr/sessions.
func (r *Result) projectDirs(dryRun bool) error {
	l := state.Layout{Root: r.Root}
	for _, dir := range []string{l.Dir(), l.LogsDir(), l.SessionsDir()} {
		if fi, err := os.Stat(dir); err == nil && fi.IsDir() {
			continue
		}
		r.CreatedDirs = append(r.CreatedDirs, r.Rel(dir)+string(filepath.Separator))
		if dryRun {
			continue
		}
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return fmt.Errorf("create %s: %w", dir, err)
		}
	}
	return nil
}

// IgnoreLine is the line Init adds to .gitignore.
const IgnoreLine = state.DirName + "/"

// Ignores reports whether .gitignore contents already ignore .spcstr/ at
// the project root with a line of their own.
func Ignores(gitignore []byte) bool {
	for _, line := range strings.Split(string(gitignore), "\n") {
		switch strings.TrimSpace(line) {
		case ".spcstr", ".spcstr/", "/.spcstr", "/.spcstr/", ".spcstr/*", "/.spcstr/*", ".spcstr/**", "/.spcstr/**":
			return true
		}
	}
	return false
}

// gitignore adds IgnoreLine to <root>/.gitignore unless a line there
// already ignores .spcstr/.
func (r *Result) gitignore(dryRun bool) error {
	path := filepath.Join(r.Root, ".gitignore")
	r.Gitignore = path
	old, err := safefs.ReadFile(path, safefs.MaxConfigBytes)
	existed := err == nil
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("read %s: %w", path, err)
	}
	if Ignores(old) {
		return nil
	}
	newline := "\n"
	if bytes.Contains(old, []byte("\r\n")) {
		newline = "\r\n"
	}
	updated := bytes.Clone(old)
	if len(updated) > 0 && updated[len(updated)-1] != '\n' {
		updated = append(updated, newline...)
	}
	updated = append(updated, IgnoreLine+newline...)
	r.GitignoreDiff = claudesettings.UnifiedDiff(".gitignore", old, updated, existed)
	if dryRun {
		return nil
	}
	perm := fs.FileMode(0o644)
	if fi, err := os.Stat(path); err == nil {
		perm = fi.Mode().Perm()
	}
	if err := claudesettings.WriteFileAtomic(path, updated, perm); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}
