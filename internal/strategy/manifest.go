package strategy

import (
	"fmt"
	"path/filepath"

	"github.com/dylan-gluck/spcstr/internal/yamlsafe"
)

// maxManifestsChecked bounds how many files the compaction gate reads
// looking for an active orchestration.
const maxManifestsChecked = 64

// manifestPhase returns the current_phase of an orchestration manifest
// (YAML or JSON, at most maxManifestBytes, a regular file), or "" when the
// file cannot be read, does not parse, or has no current_phase: the hooks
// architecture's sign that an orchestrated workflow is active.
func manifestPhase(root, path string) string {
	data, err := readInProject(root, path, maxManifestBytes)
	if err != nil {
		return ""
	}
	var doc struct {
		CurrentPhase any `yaml:"current_phase"`
	}
	if yamlsafe.Unmarshal(data, &doc) != nil || doc.CurrentPhase == nil {
		return ""
	}
	return clipText(plain(fmt.Sprint(doc.CurrentPhase)), 120)
}

// orchestrationActive reports whether a file the globs (relative to root)
// match is a manifest with a current_phase. A manifest without one (an
// agent's audit trail, not a running orchestration) does not count.
func orchestrationActive(root string, globs []string) bool {
	checked := 0
	for _, g := range globs {
		matches, _ := filepath.Glob(filepath.Join(root, filepath.FromSlash(g)))
		for _, m := range matches {
			if checked == maxManifestsChecked {
				return false
			}
			checked++
			if manifestPhase(root, m) != "" {
				return true
			}
		}
	}
	return false
}
