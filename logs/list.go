package logs

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
)

// Found is one log file found in a logs folder.
type Found struct {
	// Path is the file's path.
	Path string
	File
}

// List lists the logs in dir (a project's .spcstr/logs) that keep says to
// read: regular files only (a symlink, FIFO or folder is skipped), in name
// order, each log's rotated segments (oldest first) before the live log,
// so that reading them in turn reads every log's entries in the order
// they were written. A missing folder has no logs.
func List(dir string, keep func(File) bool) ([]Found, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return nil, nil
		}
		return nil, fmt.Errorf("list logs: %w", err)
	}
	var out []Found
	for _, e := range entries {
		f := Classify(e.Name())
		if e.Type().IsRegular() && f.Kind != NotLog && keep(f) {
			out = append(out, Found{Path: filepath.Join(dir, e.Name()), File: f})
		}
	}
	// The live log (segment 0) sorts after its rotated segments.
	order := func(seg int) int {
		if seg == 0 {
			return 1 << 30
		}
		return seg
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Name != out[j].Name {
			return out[i].Name < out[j].Name
		}
		return order(out[i].Segment) < order(out[j].Segment)
	})
	return out, nil
}

// EventLogs lists the event logs in dir (.spcstr/logs): regular files only,
// rotated segments (oldest first) before their live log, logs by name.
// Whoever reads every event of a project (search, replay) starts here.
func EventLogs(dir string) ([]string, error) {
	found, err := List(dir, func(f File) bool { return f.Kind == Events })
	if err != nil {
		return nil, err
	}
	out := make([]string, len(found))
	for i, f := range found {
		out[i] = f.Path
	}
	return out, nil
}
