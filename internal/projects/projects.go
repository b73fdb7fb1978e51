// Package projects owns the list of projects spcstr has recorded on this
// machine (spcstr-projects.json, beside the session registry), which
// spcstr tui --all reads to show every project's sessions. spcstr init and
// the hook's SessionStart add a project to it; nothing else writes it.
//
// The list is small and cheap to keep: at most MaxProjects entries, a
// project is rewritten at most once per Refresh (a SessionStart of a
// project seen recently reads the file and writes nothing), every update
// is one locked atomic read-modify-write (internal/jsonfile), a list that
// does not parse is set aside as <name>.corrupt-<time> and a new one
// started, and projects whose folder (or .spcstr/) is gone are dropped
// quietly, by readers and by the next write.
package projects

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"time"

	"github.com/dylan-gluck/spcstr/internal/jsonfile"
	"github.com/dylan-gluck/spcstr/internal/registry"
	"github.com/dylan-gluck/spcstr/internal/safefs"
	"github.com/dylan-gluck/spcstr/state"
)

// FileName is the list's file name, in the registry's folder.
const FileName = "spcstr-projects.json"

// MaxProjects bounds the list: beyond it, the projects seen least
// recently are dropped.
const MaxProjects = 200

// Refresh is how stale a project's last_seen may be before a SessionStart
// writes it again.
const Refresh = time.Hour

// maxBytes caps the list read: far more than MaxProjects entries need.
const maxBytes = 1 << 20

// Project is one recorded project.
type Project struct {
	// Path is the project root (the folder holding .spcstr/), absolute.
	Path string `json:"path"`
	// LastSeen is when spcstr init or a SessionStart last recorded it.
	LastSeen time.Time `json:"last_seen"`
}

// File is the list document.
type File struct {
	Version  int       `json:"version"`
	Projects []Project `json:"projects"`
}

// Path returns the list's path: $SPCSTR_PROJECTS, else FileName in the
// folder of the session registry (~/.claude, or $SPCSTR_REGISTRY's).
func Path(getenv func(string) string) string {
	if p := getenv("SPCSTR_PROJECTS"); p != "" {
		return p
	}
	return filepath.Join(filepath.Dir(registry.Path(getenv)), FileName)
}

// Remember records that the project at root was used now. It reads the
// list and returns without writing when root is in it and was seen less
// than Refresh ago; otherwise it updates it under its lock, dropping
// projects whose .spcstr/ is gone and keeping at most MaxProjects.
func Remember(ctx context.Context, path, root string, now time.Time) error {
	root, err := filepath.Abs(root)
	if err != nil {
		return fmt.Errorf("projects list: %w", err)
	}
	if f, err := read(path); err == nil {
		for _, p := range f.Projects {
			if p.Path == root && now.Sub(p.LastSeen) < Refresh && !p.LastSeen.After(now) {
				return nil
			}
		}
	}
	var f File
	err = jsonfile.Update(ctx, path, &f, func(fresh bool, _ error) (bool, error) {
		if fresh {
			f = File{}
		}
		f.Version = 1
		kept := []Project{{Path: root, LastSeen: now.UTC()}}
		for _, p := range f.Projects {
			if p.Path != root && filepath.IsAbs(p.Path) && recorded(p.Path) {
				kept = append(kept, p)
			}
		}
		sort.SliceStable(kept, func(i, j int) bool { return kept[i].LastSeen.After(kept[j].LastSeen) })
		if len(kept) > MaxProjects {
			kept = kept[:MaxProjects]
		}
		f.Projects = kept
		return true, nil
	})
	if err != nil {
		return fmt.Errorf("projects list: %w", err)
	}
	return nil
}

// Load returns the recorded projects whose .spcstr/ still exists, most
// recently seen first. A missing or unreadable list has none (a writer
// sets a corrupt one aside; a reader never moves it).
func Load(path string) []Project {
	f, err := read(path)
	if err != nil {
		return nil
	}
	seen := map[string]bool{}
	var out []Project
	for _, p := range f.Projects {
		if p.Path == "" || !filepath.IsAbs(p.Path) || seen[p.Path] || !recorded(p.Path) {
			continue
		}
		seen[p.Path] = true
		out = append(out, p)
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].LastSeen.After(out[j].LastSeen) })
	if len(out) > MaxProjects {
		out = out[:MaxProjects]
	}
	return out
}

func read(path string) (File, error) {
	var f File
	data, err := safefs.ReadFile(path, maxBytes)
	if err != nil {
		return f, err
	}
	if err := json.Unmarshal(data, &f); err != nil {
		return f, err
	}
	return f, nil
}

// recorded reports whether root still holds a .spcstr folder.
func recorded(root string) bool {
	fi, err := os.Stat(state.Layout{Root: root}.Dir())
	return err == nil && fi.IsDir()
}
