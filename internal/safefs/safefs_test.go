package safefs

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

func TestReadFile(t *testing.T) {
	dir := t.TempDir()
	small := filepath.Join(dir, "small.yaml")
	_ = os.WriteFile(small, []byte("a: 1\n"), 0o644)
	big := filepath.Join(dir, "big.yaml")
	_ = os.WriteFile(big, make([]byte, 2000), 0o644)
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	zero := filepath.Join(dir, "zero.yaml")
	_ = os.Symlink("/dev/zero", zero)
	tests := []struct {
		path string
		want error
	}{
		{small, nil},
		{filepath.Join(dir, "missing"), fs.ErrNotExist},
		{big, ErrTooLarge},
		{fifo, ErrNotRegular},
		{zero, ErrNotRegular},
		{"/dev/urandom", ErrNotRegular},
		{dir, ErrNotRegular},
	}
	for _, tt := range tests {
		done := make(chan error, 1)
		go func() {
			_, err := ReadFile(tt.path, 1000)
			done <- err
		}()
		select {
		case err := <-done:
			if (tt.want == nil) != (err == nil) || (tt.want != nil && !errors.Is(err, tt.want)) {
				t.Errorf("%s: %v, want %v", tt.path, err, tt.want)
			}
		case <-time.After(5 * time.Second):
			t.Fatalf("%s: blocked", tt.path)
		}
	}
}

func TestSplit(t *testing.T) {
	tests := []struct{ in, dir, rel string }{
		{"/p/.spcstr/sessions/s1/state.json", "/p/.spcstr", "sessions/s1/state.json"},
		{"/p/.spcstr/logs/x.json", "/p/.spcstr", "logs/x.json"},
		{"/a/.spcstr/b/.spcstr/c.json", "/a/.spcstr/b/.spcstr", "c.json"},
		{"/home/u/.claude/sessions.json", "/home/u/.claude", "sessions.json"},
		{".spcstr/logs/a.json", ".spcstr", "logs/a.json"},
	}
	for _, tt := range tests {
		if dir, rel := Split(tt.in); dir != tt.dir || rel != tt.rel {
			t.Errorf("Split(%q) = %q, %q; want %q, %q", tt.in, dir, rel, tt.dir, tt.rel)
		}
	}
}

func TestBeneathCreateOnlyCreatesSpcstr(t *testing.T) {
	dir := t.TempDir()
	if _, _, err := BeneathCreate(filepath.Join(dir, "missing", ".spcstr", "logs", "a.json")); err == nil {
		t.Error("created .spcstr in a folder that does not exist")
	}
	if _, err := os.Stat(filepath.Join(dir, "missing")); err == nil {
		t.Error("created the project folder")
	}
	root, rel, err := BeneathCreate(filepath.Join(dir, ".spcstr", "logs", "a.json"))
	if err != nil || rel != "logs/a.json" {
		t.Fatalf("%v %q", err, rel)
	}
	root.Close()
}
