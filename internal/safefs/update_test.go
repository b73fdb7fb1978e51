//go:build unix

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

func TestOpenOwn(t *testing.T) {
	dir := t.TempDir()
	outside := filepath.Join(t.TempDir(), "outside")
	_ = os.WriteFile(outside, []byte("x"), 0o644)
	_ = os.WriteFile(filepath.Join(dir, "small"), []byte("abc"), 0o644)
	_ = os.WriteFile(filepath.Join(dir, "big"), make([]byte, 100), 0o644)
	_ = os.Symlink("small", filepath.Join(dir, "link-in"))
	_ = os.Symlink(outside, filepath.Join(dir, "link-out"))
	_ = os.Symlink("/dev/zero", filepath.Join(dir, "zero"))
	_ = os.Symlink("missing", filepath.Join(dir, "dangling"))
	_ = os.Mkdir(filepath.Join(dir, "folder"), 0o755)
	if err := syscall.Mkfifo(filepath.Join(dir, "fifo"), 0o644); err != nil {
		t.Fatal(err)
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer root.Close()
	tests := []struct {
		name string
		flag int
		want error
		size int64
	}{
		{"small", os.O_RDWR, nil, 3},
		{"small", os.O_RDONLY, nil, 3},
		{"new", os.O_RDWR | os.O_CREATE, nil, 0},
		{"new-ro", os.O_RDONLY, fs.ErrNotExist, 0},
		{"big", os.O_RDONLY, ErrTooLarge, 0},
		{"link-in", os.O_RDWR, ErrNotRegular, 0},
		{"link-out", os.O_RDWR | os.O_CREATE, ErrNotRegular, 0},
		{"zero", os.O_RDONLY, ErrNotRegular, 0},
		{"dangling", os.O_RDWR | os.O_CREATE, ErrNotRegular, 0},
		{"folder", os.O_RDWR, ErrNotRegular, 0},
		{"folder", os.O_RDONLY, ErrNotRegular, 0},
		{"fifo", os.O_RDWR, ErrNotRegular, 0},
		{"fifo", os.O_RDONLY, ErrNotRegular, 0},
	}
	for _, tt := range tests {
		done := make(chan struct{})
		go func() {
			defer close(done)
			f, fi, err := OpenOwn(root, tt.name, tt.flag, 0o644, 64)
			if !errors.Is(err, tt.want) || (err == nil) != (tt.want == nil) {
				t.Errorf("OpenOwn(%s, %#x) = %v, want %v", tt.name, tt.flag, err, tt.want)
			}
			if err == nil {
				if fi.Size() != tt.size {
					t.Errorf("%s: size %d, want %d", tt.name, fi.Size(), tt.size)
				}
				f.Close()
			}
		}()
		select {
		case <-done:
		case <-time.After(5 * time.Second):
			t.Fatalf("OpenOwn(%s) blocked", tt.name)
		}
	}
	if data, _ := os.ReadFile(outside); string(data) != "x" {
		t.Errorf("file outside changed: %q", data)
	}
}

func TestTryLock(t *testing.T) {
	root, err := os.OpenRoot(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer root.Close()
	unlock, ok, err := TryLock(root, ".x.lock")
	if err != nil || !ok {
		t.Fatalf("free lock: %v %v", ok, err)
	}
	if _, ok, err := TryLock(root, ".x.lock"); ok || err != nil {
		t.Fatalf("held lock taken: %v %v", ok, err)
	}
	unlock()
	unlock, ok, err = TryLock(root, ".x.lock")
	if err != nil || !ok {
		t.Fatalf("released lock: %v %v", ok, err)
	}
	unlock()
}

func TestReadHead(t *testing.T) {
	dir := t.TempDir()
	_ = os.WriteFile(filepath.Join(dir, "own"), []byte("abcdef"), 0o644)
	_ = os.Symlink("own", filepath.Join(dir, "link"))
	_ = os.Symlink("/dev/zero", filepath.Join(dir, "zero"))
	_ = os.Mkdir(filepath.Join(dir, "folder"), 0o755)
	linkedDir := filepath.Join(t.TempDir(), "linked")
	_ = os.Symlink(dir, linkedDir)
	if err := syscall.Mkfifo(filepath.Join(dir, "fifo"), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		dir, name string
		want      error
	}{
		{dir, "own", nil},
		{dir, "missing", fs.ErrNotExist},
		{dir, "link", ErrNotRegular},
		{dir, "zero", ErrNotRegular},
		{dir, "folder", ErrNotRegular},
		{dir, "fifo", ErrNotRegular},
		{linkedDir, "own", ErrNotRegular},
	}
	for _, tt := range tests {
		done := make(chan struct{})
		go func() {
			defer close(done)
			buf := make([]byte, 4)
			n, size, err := ReadHead(tt.dir, tt.name, buf)
			if !errors.Is(err, tt.want) || (err == nil) != (tt.want == nil) {
				t.Errorf("ReadHead(%s) = %v, want %v", tt.name, err, tt.want)
			}
			if err == nil && (string(buf[:n]) != "abcd" || size != 6) {
				t.Errorf("ReadHead(%s) = %q, size %d", tt.name, buf[:n], size)
			}
		}()
		select {
		case <-done:
		case <-time.After(5 * time.Second):
			t.Fatalf("ReadHead(%s) blocked", tt.name)
		}
	}
}
