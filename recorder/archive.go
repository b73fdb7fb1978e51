package recorder

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/dylan-gluck/spcstr/internal/safefs"
	"github.com/dylan-gluck/spcstr/state"
)

// Transcript archive (archive_transcripts: true): at SessionEnd the
// session's transcript, and the regular files in its subagents folder
// (<transcript dir>/<session id>/subagents/), are copied under
// .spcstr/sessions/<id>/: transcript.jsonl and subagents/<name>, with
// archive.json saying what was copied and what was left out. Only
// SessionEnd does this, so no other hook pays for it.

// Archive caps: one file larger than archiveMaxFile, or one that would take
// the session's archive past archiveMaxTotal, is left out (and named in
// archive.json); at most archiveMaxFiles subagent files are looked at.
var (
	archiveMaxFile  int64 = 64 << 20
	archiveMaxTotal int64 = 256 << 20
	archiveMaxFiles       = 1000
)

// ArchiveManifestFile is the name of the archive's record in the session
// folder.
const ArchiveManifestFile = "archive.json"

type archiveEntry struct {
	Source string `json:"source"`
	Copy   string `json:"copy,omitempty"`
	Bytes  int64  `json:"bytes"`
	Reason string `json:"reason,omitempty"`
}

type archiveManifest struct {
	ArchivedAt time.Time      `json:"archived_at"`
	MaxBytes   int64          `json:"max_bytes"`
	Copied     []archiveEntry `json:"copied"`
	Skipped    []archiveEntry `json:"skipped"`
}

// archiveTranscripts copies session id's transcripts (see above). It
// returns the first error that stopped it; files it could not read are
// recorded as skipped instead.
func archiveTranscripts(l state.Layout, id, transcriptPath string, now time.Time) error {
	if transcriptPath == "" {
		return errors.New("archive_transcripts: the session has no transcript_path")
	}
	dir, err := l.SessionDir(id)
	if err != nil {
		return err
	}
	root, rel, err := safefs.BeneathCreate(filepath.Join(dir, ArchiveManifestFile))
	if err != nil {
		return err
	}
	defer root.Close()
	base := filepath.Dir(rel) // sessions/<id>, below .spcstr
	m := &archiveManifest{ArchivedAt: now.UTC(), MaxBytes: archiveMaxTotal, Copied: []archiveEntry{}, Skipped: []archiveEntry{}}
	var total int64
	copyOne := func(f *os.File, fi fs.FileInfo, source, dest string) {
		e := archiveEntry{Source: source, Bytes: fi.Size()}
		switch {
		case fi.Size() > archiveMaxFile:
			e.Reason = fmt.Sprintf("larger than %d bytes", archiveMaxFile)
		case total+fi.Size() > archiveMaxTotal:
			e.Reason = fmt.Sprintf("the archive would pass %d bytes", archiveMaxTotal)
		}
		if e.Reason == "" {
			data, err := io.ReadAll(io.LimitReader(f, min(archiveMaxFile, archiveMaxTotal-total)+1))
			switch {
			case err != nil:
				e.Reason = "read: " + err.Error()
			case int64(len(data)) > min(archiveMaxFile, archiveMaxTotal-total):
				e.Reason = "it grew past the cap while being read"
			default:
				if err := root.MkdirAll(filepath.Dir(filepath.Join(base, dest)), 0o755); err != nil {
					e.Reason = "write: " + err.Error()
				} else if err := safefs.Replace(root, filepath.Join(base, dest), data, 0o600, false); err != nil {
					e.Reason = "write: " + err.Error()
				}
				e.Bytes = int64(len(data))
			}
		}
		if e.Reason != "" {
			m.Skipped = append(m.Skipped, e)
			return
		}
		e.Copy = filepath.ToSlash(dest)
		total += e.Bytes
		m.Copied = append(m.Copied, e)
	}

	if f, fi, err := safefs.Open(transcriptPath); err != nil {
		m.Skipped = append(m.Skipped, archiveEntry{Source: transcriptPath, Reason: err.Error()})
	} else {
		copyOne(f, fi, transcriptPath, "transcript.jsonl")
		f.Close()
	}
	subDir := filepath.Join(filepath.Dir(transcriptPath), id, "subagents")
	if sub, err := os.OpenRoot(subDir); err == nil {
		entries, _ := fs.ReadDir(sub.FS(), ".")
		n := 0
		for _, d := range entries {
			name := d.Name()
			if !d.Type().IsRegular() || strings.HasPrefix(name, ".") {
				continue // only regular files inside the folder: no symlink, no folder
			}
			if n++; n > archiveMaxFiles {
				m.Skipped = append(m.Skipped, archiveEntry{Source: filepath.Join(subDir, name), Reason: fmt.Sprintf("more than %d subagent files", archiveMaxFiles)})
				continue
			}
			f, fi, err := safefs.OpenIn(sub, name)
			if err != nil {
				m.Skipped = append(m.Skipped, archiveEntry{Source: filepath.Join(subDir, name), Reason: err.Error()})
				continue
			}
			copyOne(f, fi, filepath.Join(subDir, name), filepath.Join("subagents", name))
			f.Close()
		}
		sub.Close()
	}
	data, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return err
	}
	return safefs.Replace(root, rel, append(data, '\n'), 0o644, false)
}
