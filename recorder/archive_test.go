package recorder

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/dylan-gluck/spcstr/state"
)

// The archive is size-capped: a file over the per-file cap, or one that
// would take the archive past its total, is left out and named in
// archive.json; the rest is copied.
func TestArchiveTranscriptsCaps(t *testing.T) {
	oldFile, oldTotal := archiveMaxFile, archiveMaxTotal
	archiveMaxFile, archiveMaxTotal = 100, 150
	defer func() { archiveMaxFile, archiveMaxTotal = oldFile, oldTotal }()

	root := t.TempDir()
	if err := os.MkdirAll(filepath.Join(root, state.DirName), 0o755); err != nil {
		t.Fatal(err)
	}
	claude := t.TempDir()
	tr := filepath.Join(claude, "s-1.jsonl")
	sub := filepath.Join(claude, "s-1", "subagents")
	files := map[string]int{tr: 80, filepath.Join(sub, "a.jsonl"): 60, filepath.Join(sub, "b.jsonl"): 101, filepath.Join(sub, "c.jsonl"): 70}
	for p, n := range files {
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(strings.Repeat("x", n)), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	l := state.Layout{Root: root}
	if err := archiveTranscripts(l, "s-1", tr, time.Now()); err != nil {
		t.Fatal(err)
	}
	dir, _ := l.SessionDir("s-1")
	data, err := os.ReadFile(filepath.Join(dir, ArchiveManifestFile))
	if err != nil {
		t.Fatal(err)
	}
	var m archiveManifest
	if err := json.Unmarshal(data, &m); err != nil {
		t.Fatal(err)
	}
	var copied, skipped []string
	for _, e := range m.Copied {
		copied = append(copied, filepath.Base(e.Source))
	}
	for _, e := range m.Skipped {
		skipped = append(skipped, filepath.Base(e.Source)+": "+e.Reason)
	}
	// 80 + 60 fit in 150; b is over 100; c would pass 150.
	if strings.Join(copied, ",") != "s-1.jsonl,a.jsonl" {
		t.Errorf("copied %v", copied)
	}
	if len(skipped) != 2 || !strings.Contains(skipped[0], "b.jsonl: larger than 100 bytes") || !strings.Contains(skipped[1], "c.jsonl: the archive would pass 150 bytes") {
		t.Errorf("skipped %v", skipped)
	}
	if _, err := os.Stat(filepath.Join(dir, "subagents", "b.jsonl")); err == nil {
		t.Error("a file over the cap was copied")
	}
	if got, _ := os.ReadFile(filepath.Join(dir, "subagents", "a.jsonl")); len(got) != 60 {
		t.Errorf("a.jsonl copy has %d bytes", len(got))
	}
}
