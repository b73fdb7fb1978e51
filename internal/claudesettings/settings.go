// Package settings owns Claude Code's settings.json files as spcstr edits
// and reads them: registering spcstr's hook for every event
// (Document.Install), removing exactly spcstr's own entries
// (Document.Uninstall), and listing the hook handlers a file declares
// (Document.Handlers) for spcstr doctor.
//
// Users keep these files in git and diff them, so an edit keeps every other
// key and hook, the keys' order, and the text of everything it did not
// touch (see jsontree.go for how and why). Saving backs the previous file up
// beside it and replaces it atomically, through a symlink if the file is
// one. A file that does not parse is an error and is never written.
package claudesettings

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"

	"github.com/rogpeppe/go-internal/diff"

	"github.com/dylan-gluck/spcstr/internal/hookio"
	"github.com/dylan-gluck/spcstr/internal/safefs"
)

// Excluded lists events spcstr never registers. WorktreeCreate: a
// registered WorktreeCreate hook replaces Claude Code's own git worktree
// creation (the hook must create the worktree and print its path), and
// spcstr does not create worktrees, so registering it would break
// "claude --worktree" and subagent worktrees. Install removes spcstr
// entries found on these events.
var Excluded = []string{hookio.WorktreeCreate}

// ExcludedWhy explains Excluded to users, for init's output and doctor.
const ExcludedWhy = "a WorktreeCreate hook replaces Claude Code's own git worktree creation, and spcstr does not create worktrees"

// Events returns the events spcstr registers: hookio.KnownEvents less
// Excluded, in documentation order.
func Events() []string {
	out := make([]string, 0, len(hookio.KnownEvents))
	for _, e := range hookio.KnownEvents {
		if !slices.Contains(Excluded, e) {
			out = append(out, e)
		}
	}
	return out
}

// BackupSuffix is appended to a settings file's name for the copy of its
// previous contents that Save keeps.
const BackupSuffix = ".bak"

// ProjectFile is <root>/.claude/settings.json (shared, committed).
func ProjectFile(root string) string { return filepath.Join(root, ".claude", "settings.json") }

// LocalFile is <root>/.claude/settings.local.json (personal).
func LocalFile(root string) string { return filepath.Join(root, ".claude", "settings.local.json") }

// UserFile is the user's settings file: $CLAUDE_CONFIG_DIR/settings.json
// when that is set, else $HOME/.claude/settings.json.
func UserFile(getenv func(string) string) (string, error) {
	if dir := getenv("CLAUDE_CONFIG_DIR"); dir != "" {
		return filepath.Join(dir, "settings.json"), nil
	}
	home := getenv("HOME")
	if home == "" {
		h, err := os.UserHomeDir()
		if err != nil {
			return "", fmt.Errorf("find the user settings file: %w", err)
		}
		home = h
	}
	return filepath.Join(home, ".claude", "settings.json"), nil
}

// ErrShape marks a settings file that is valid JSON but not shaped like
// settings (the top level or "hooks" is not an object, an event is not an
// array).
var ErrShape = errors.New("not a valid settings file")

// Document is one settings file in memory.
type Document struct {
	// Path is where the file lives (or will be created).
	Path string
	// Exists is false when the file was missing.
	Exists bool
	// BackupDir is where Save keeps the copy of the previous file ("":
	// beside it). A project's files keep theirs in a folder git ignores
	// (spcstr init sets .spcstr/backups), never as an untracked file
	// beside a committed one.
	BackupDir string

	orig  []byte
	root  *node
	st    style
	dirty bool
}

// Load reads and parses the settings file at path. A missing file is an
// empty document (Exists false); a file that does not parse is an error
// wrapping ErrSyntax or ErrShape.
func Load(path string) (*Document, error) {
	data, err := safefs.ReadFile(path, safefs.MaxConfigBytes)
	if errors.Is(err, fs.ErrNotExist) {
		d, _ := Parse(path, nil)
		return d, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	if data == nil {
		data = []byte{}
	}
	return Parse(path, data)
}

// Parse parses settings file contents; empty contents are an empty object.
// Nil data stands for a missing file (Exists false).
func Parse(path string, data []byte) (*Document, error) {
	d := &Document{Path: path, Exists: data != nil, orig: data, st: detectStyle(data)}
	if len(bytes.TrimSpace(data)) == 0 {
		d.root = newObject()
		return d, nil
	}
	root, err := parseTree(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if root.kind != kindObject {
		return nil, fmt.Errorf("%s: %w: the top level is not a JSON object", path, ErrShape)
	}
	if hooks := root.get("hooks"); hooks != nil {
		if hooks.kind != kindObject {
			return nil, fmt.Errorf("%s: %w: \"hooks\" is not an object", path, ErrShape)
		}
		for _, m := range hooks.members {
			if m.val.kind != kindArray {
				return nil, fmt.Errorf("%s: %w: hooks.%s is not an array", path, ErrShape, m.key)
			}
		}
	}
	d.root = root
	return d, nil
}

// Changed reports whether the document differs from the file it was read
// from.
func (d *Document) Changed() bool {
	return d.dirty && !bytes.Equal(d.Bytes(), d.orig)
}

// Bytes returns the document's current text: the original bytes when
// nothing changed, else the original with only the changed containers
// re-laid-out in the file's indentation.
func (d *Document) Bytes() []byte {
	if !d.dirty {
		return d.orig
	}
	var buf bytes.Buffer
	d.root.encode(&buf, d.st, 0)
	trimmed := bytes.TrimRight(d.orig, " \t\r\n")
	if len(d.orig) == 0 || len(trimmed) < len(d.orig) {
		buf.WriteString(d.st.newline)
	}
	return buf.Bytes()
}

// Diff returns a unified diff from the file as read to the document as it
// is now, labelled with label (a path as the user should see it); "" when
// nothing changed.
func (d *Document) Diff(label string) string {
	if !d.Changed() {
		return ""
	}
	return UnifiedDiff(label, d.orig, d.Bytes(), d.Exists)
}

// UnifiedDiff is a unified diff of a file's old and new contents, git style
// (a/ and b/ labels; /dev/null for a file that did not exist).
func UnifiedDiff(label string, old, new []byte, existed bool) string {
	oldLabel := "a/" + label
	if !existed {
		oldLabel = "/dev/null"
	}
	return string(diff.Diff(oldLabel, old, "b/"+label, new))
}

// ErrChangedMeanwhile is returned by Save when the file changed on disk
// after it was loaded (Claude Code or an editor wrote it): run again.
var ErrChangedMeanwhile = errors.New("the file changed while spcstr was editing it; run the command again")

// Save writes the document back when it changed. It first copies the
// previous file to Path+BackupSuffix (returned as backup; "" when there was
// no previous file), then replaces the file atomically with the same
// permissions. A symlinked settings file (dotfiles) is written through the
// link, which stays in place.
func (d *Document) Save() (backup string, err error) {
	if !d.Changed() {
		return "", nil
	}
	target := d.Path
	if real, err := filepath.EvalSymlinks(d.Path); err == nil {
		target = real
	}
	perm := fs.FileMode(0o644)
	if fi, err := os.Stat(target); err == nil {
		perm = fi.Mode().Perm()
		now, err := safefs.ReadFile(target, safefs.MaxConfigBytes)
		if err != nil {
			return "", fmt.Errorf("read %s: %w", d.Path, err)
		}
		if !d.Exists || !bytes.Equal(now, d.orig) {
			return "", fmt.Errorf("%s: %w", d.Path, ErrChangedMeanwhile)
		}
	} else if d.Exists {
		return "", fmt.Errorf("%s: %w", d.Path, ErrChangedMeanwhile)
	}
	if err := os.MkdirAll(filepath.Dir(target), 0o755); err != nil {
		return "", fmt.Errorf("create %s: %w", filepath.Dir(target), err)
	}
	if d.Exists {
		backup = d.Path + BackupSuffix
		if d.BackupDir != "" {
			if err := os.MkdirAll(d.BackupDir, 0o700); err != nil {
				return "", fmt.Errorf("back up %s: %w", d.Path, err)
			}
			backup = filepath.Join(d.BackupDir, filepath.Base(d.Path)+BackupSuffix)
		}
		if err := WriteFileAtomic(backup, d.orig, perm); err != nil {
			return "", fmt.Errorf("back up %s: %w", d.Path, err)
		}
	}
	data := d.Bytes()
	if err := WriteFileAtomic(target, data, perm); err != nil {
		return backup, fmt.Errorf("write %s: %w", d.Path, err)
	}
	d.orig, d.Exists, d.dirty = data, true, false
	return backup, nil
}

// Emptied reports whether the document changed and is now an empty object
// (it held nothing but spcstr's hooks, which were removed).
func (d *Document) Emptied() bool {
	return d.Changed() && d.root.kind == kindObject && len(d.root.members) == 0
}

// RemovalDiff is a unified diff deleting the file (for a dry run of Remove).
func (d *Document) RemovalDiff(label string) string {
	return string(diff.Diff("a/"+label, d.orig, "/dev/null", nil))
}

// Remove deletes the file instead of saving it as an empty object, for a
// document that Emptied, and then its folder when that is left empty (the
// .claude/ that init created). Like Save, it refuses when the file changed
// on disk since it was loaded.
func (d *Document) Remove() error {
	now, err := safefs.ReadFile(d.Path, safefs.MaxConfigBytes)
	if err != nil {
		return fmt.Errorf("read %s: %w", d.Path, err)
	}
	if !bytes.Equal(now, d.orig) {
		return fmt.Errorf("%s: %w", d.Path, ErrChangedMeanwhile)
	}
	if err := os.Remove(d.Path); err != nil {
		return fmt.Errorf("remove %s: %w", d.Path, err)
	}
	_ = os.Remove(filepath.Dir(d.Path)) // only succeeds when the folder is empty
	d.orig, d.Exists, d.dirty = nil, false, false
	return nil
}

// Bool returns a top-level boolean key; set is false when it is absent or
// not a boolean.
func (d *Document) Bool(key string) (value, set bool) {
	return d.root.get(key).boolean()
}

// WriteFileAtomic replaces path with data: a temp file in the same folder
// (".<name>.tmp-<random>"), fsynced, given perm, then renamed over path, so
// readers (Claude Code watches its settings files) see the old file or the
// new one, never half of one. It works the same on Windows, where
// renameio does not build and os.Rename replaces in one step.
func WriteFileAtomic(path string, data []byte, perm fs.FileMode) error {
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return err
	}
	tmp := f.Name()
	_, err = f.Write(data)
	if err == nil {
		err = f.Chmod(perm)
	}
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp, path)
	}
	if err != nil {
		_ = os.Remove(tmp)
	}
	return err
}
