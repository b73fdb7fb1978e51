//go:build unix

package logs

import (
	"errors"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/dylan-gluck/spcstr/internal/safefs"
)

// TestReadersRefuseNonRegular plants a FIFO and a device where a log
// belongs: every reader returns an error at once instead of blocking on the
// FIFO (a dashboard or export would hang) or reading forever.
func TestReadersRefuseNonRegular(t *testing.T) {
	fifo := filepath.Join(t.TempDir(), "post_tool_use.json")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	nop := func([]byte) error { return nil }
	readers := map[string]func(path string) error{
		"ScanFile": func(p string) error { return ScanFile(p, nop) },
		"Tail":     func(p string) error { _, _, err := Tail(p, 0, nop); return err },
		"TailEntries": func(p string) error {
			_, _, err := TailEntries(p, 0, func([]byte, int64) error { return nil })
			return err
		},
		"Stream":     func(p string) error { return Stream(p, func() {}, nop) },
		"TailWindow": func(p string) error { _, err := TailWindow(p, 1<<20, nop); return err },
		"Backward":   func(p string) error { return Backward(p, 1<<20, nop) },
	}
	for _, path := range []string{fifo, "/dev/zero"} {
		for name, read := range readers {
			done := make(chan error, 1)
			go func() { done <- read(path) }()
			select {
			case err := <-done:
				if !errors.Is(err, safefs.ErrNotRegular) {
					t.Errorf("%s(%s) = %v, want ErrNotRegular", name, path, err)
				}
			case <-time.After(5 * time.Second):
				t.Fatalf("%s(%s) blocked", name, path)
			}
		}
	}
}
