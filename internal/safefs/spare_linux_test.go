//go:build linux

package safefs

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// TestReplaceViaSpare writes a document twice over whatever the folder
// holds: the document always ends up exactly the new data in a regular
// file, the spare ends up a regular file with one link, and nothing a
// planted spare points at is written.
func TestReplaceViaSpare(t *testing.T) {
	long := strings.Repeat("previous state, longer than the new one\n", 50)
	tests := []struct {
		name string
		// setup prepares the folder; outside is a folder beside it
		// holding files that must not change.
		setup func(t *testing.T, dir, outside string)
		// fallback: the spare cannot be made, the document is written
		// by Replace and the spare's name is left as it was.
		fallback bool
	}{
		{"first write", func(t *testing.T, dir, outside string) {}, false},
		{"rewrite", func(t *testing.T, dir, outside string) {
			put(t, filepath.Join(dir, "state.json"), long)
		}, false},
		{"shorter rewrite over a longer spare", func(t *testing.T, dir, outside string) {
			put(t, filepath.Join(dir, "state.json"), "old")
			put(t, filepath.Join(dir, ".state.json.spare"), long+long)
		}, false},
		{"spare is a symlink out", func(t *testing.T, dir, outside string) {
			put(t, filepath.Join(dir, "state.json"), "old")
			link(t, filepath.Join(outside, "target"), filepath.Join(dir, ".state.json.spare"))
		}, false},
		{"spare is a symlink to the document", func(t *testing.T, dir, outside string) {
			put(t, filepath.Join(dir, "state.json"), "old")
			link(t, "state.json", filepath.Join(dir, ".state.json.spare"))
		}, false},
		{"spare is a dangling symlink", func(t *testing.T, dir, outside string) {
			link(t, filepath.Join(outside, "missing"), filepath.Join(dir, ".state.json.spare"))
		}, false},
		{"spare is a FIFO", func(t *testing.T, dir, outside string) {
			put(t, filepath.Join(dir, "state.json"), "old")
			if err := syscall.Mkfifo(filepath.Join(dir, ".state.json.spare"), 0o644); err != nil {
				t.Fatal(err)
			}
		}, false},
		{"spare is an empty folder", func(t *testing.T, dir, outside string) {
			put(t, filepath.Join(dir, "state.json"), "old")
			mkdir(t, filepath.Join(dir, ".state.json.spare"))
		}, false},
		{"spare is a folder with a file", func(t *testing.T, dir, outside string) {
			put(t, filepath.Join(dir, "state.json"), "old")
			put(t, filepath.Join(dir, ".state.json.spare", "keep"), "kept")
		}, true},
		{"spare is a hard link", func(t *testing.T, dir, outside string) {
			put(t, filepath.Join(dir, "state.json"), "old")
			put(t, filepath.Join(dir, "other.json"), "other")
			if err := os.Link(filepath.Join(dir, "other.json"), filepath.Join(dir, ".state.json.spare")); err != nil {
				t.Fatal(err)
			}
		}, false},
		{"spare is writable by all", func(t *testing.T, dir, outside string) {
			put(t, filepath.Join(dir, ".state.json.spare"), "x")
			if err := os.Chmod(filepath.Join(dir, ".state.json.spare"), 0o666); err != nil {
				t.Fatal(err)
			}
		}, false},
		{"document is a symlink out", func(t *testing.T, dir, outside string) {
			link(t, filepath.Join(outside, "target"), filepath.Join(dir, "state.json"))
		}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			base := t.TempDir()
			dir, outside := filepath.Join(base, "sessions", "s1"), filepath.Join(base, "outside")
			mkdir(t, dir)
			put(t, filepath.Join(outside, "target"), "outside")
			tt.setup(t, dir, outside)
			before := tree(t, outside)
			otherBefore, _ := os.ReadFile(filepath.Join(dir, "other.json"))
			root, err := os.OpenRoot(base)
			if err != nil {
				t.Fatal(err)
			}
			defer root.Close()
			for i, data := range []string{"{\"write\":1,\"long\":\"" + strings.Repeat("x", 300) + "\"}\n", "{\"write\":2}\n"} {
				if err := ReplaceViaSpare(root, "sessions/s1/state.json", []byte(data), 0o644); err != nil {
					t.Fatalf("write %d: %v", i+1, err)
				}
				p := filepath.Join(dir, "state.json")
				if fi, err := os.Lstat(p); err != nil || !fi.Mode().IsRegular() {
					t.Fatalf("write %d: state.json is not a regular file: %v %v", i+1, fi, err)
				}
				if got, _ := os.ReadFile(p); string(got) != data {
					t.Fatalf("write %d: state.json = %q, want %q", i+1, got, data)
				}
				if after := tree(t, outside); after != before {
					t.Fatalf("write %d: outside changed:\n%s\nwas\n%s", i+1, after, before)
				}
				if other, _ := os.ReadFile(filepath.Join(dir, "other.json")); !bytes.Equal(other, otherBefore) {
					t.Fatalf("write %d: the hard-linked file changed: %q", i+1, other)
				}
			}
			// After the first write the spare's name holds whatever
			// state.json was; after the second, the first write's file.
			fi, err := os.Lstat(filepath.Join(dir, ".state.json.spare"))
			switch {
			case tt.fallback:
				if err != nil || !fi.IsDir() {
					t.Fatalf("the folder in the spare's place is gone: %v", err)
				}
			case err != nil:
				t.Fatalf("spare: %v", err)
			default:
				st := fi.Sys().(*syscall.Stat_t)
				if !fi.Mode().IsRegular() || st.Nlink != 1 || fi.Mode().Perm()&^0o644 != 0 {
					t.Fatalf("spare is %v with %d links", fi.Mode(), st.Nlink)
				}
				got, _ := os.ReadFile(filepath.Join(dir, ".state.json.spare"))
				if !strings.HasPrefix(string(got), "{\"write\":1,") {
					t.Errorf("spare after two writes = %.40q, want the first write", got)
				}
			}
			if temps, _ := filepath.Glob(filepath.Join(dir, ".state.json[0-9]*")); len(temps) != 0 {
				t.Errorf("temp files left: %v", temps)
			}
		})
	}
}

// TestReplaceViaSpareNoExchange: where the swap is unsupported, the written
// spare is renamed over the document.
func TestReplaceViaSpareNoExchange(t *testing.T) {
	for _, errno := range []error{unix.EINVAL, unix.ENOSYS, unix.EOPNOTSUPP, unix.EPERM} {
		t.Run(errno.Error(), func(t *testing.T) {
			stubExchange(t, func(int, string, string) error { return errno })
			dir := t.TempDir()
			put(t, filepath.Join(dir, "state.json"), "old old old")
			root := openRoot(t, dir)
			for _, data := range []string{"new new", "n"} {
				if err := ReplaceViaSpare(root, "state.json", []byte(data), 0o644); err != nil {
					t.Fatal(err)
				}
				if got, _ := os.ReadFile(filepath.Join(dir, "state.json")); string(got) != data {
					t.Fatalf("state.json = %q, want %q", got, data)
				}
				if _, err := os.Lstat(filepath.Join(dir, ".state.json.spare")); !errors.Is(err, os.ErrNotExist) {
					t.Fatalf("spare left after the rename: %v", err)
				}
			}
		})
	}
}

// TestReplaceViaSpareInterrupted: a writer stopped after writing the spare
// and before the swap leaves the document as it was, and the next write
// recovers (no trailing bytes of the abandoned content).
func TestReplaceViaSpareInterrupted(t *testing.T) {
	dir := t.TempDir()
	put(t, filepath.Join(dir, "state.json"), "old")
	root := openRoot(t, dir)
	stop := errors.New("killed")
	restore := stubExchange(t, func(int, string, string) error { return stop })
	long := strings.Repeat("abandoned ", 100)
	if err := ReplaceViaSpare(root, "state.json", []byte(long), 0o644); !errors.Is(err, stop) {
		t.Fatalf("err = %v, want the interruption", err)
	}
	if got, _ := os.ReadFile(filepath.Join(dir, "state.json")); string(got) != "old" {
		t.Fatalf("state.json = %q after an interrupted write, want old", got)
	}
	if got, _ := os.ReadFile(filepath.Join(dir, ".state.json.spare")); string(got) != long {
		t.Fatalf("spare = %.20q, want the abandoned write", got)
	}
	restore()
	if err := ReplaceViaSpare(root, "state.json", []byte("new"), 0o644); err != nil {
		t.Fatal(err)
	}
	if got, _ := os.ReadFile(filepath.Join(dir, "state.json")); string(got) != "new" {
		t.Fatalf("state.json = %q, want new", got)
	}
	if got, _ := os.ReadFile(filepath.Join(dir, ".state.json.spare")); string(got) != "old" {
		t.Fatalf("spare = %q, want old", got)
	}
}

func TestReadReplaced(t *testing.T) {
	dir := t.TempDir()
	root := openRoot(t, dir)
	p := filepath.Join(dir, "state.json")
	if _, err := ReadReplaced(p, 100); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("missing: %v", err)
	}
	for _, data := range []string{"one", "two two", "3"} {
		if err := ReplaceViaSpare(root, "state.json", []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
		if got, err := ReadReplaced(p, 100); err != nil || string(got) != data {
			t.Fatalf("ReadReplaced = %q, %v; want %q", got, err, data)
		}
	}
	if _, err := ReadReplaced(p, 0); !errors.Is(err, ErrTooLarge) {
		t.Fatalf("over the cap: %v", err)
	}
}

// BenchmarkStateWrite compares rewriting a 40 KiB document with a new temp
// file renamed over it (Replace) and through the spare.
func BenchmarkStateWrite(b *testing.B) {
	data := bytes.Repeat([]byte("0123456789abcdef"), 40<<10/16)
	for _, bc := range []struct {
		name  string
		write func(root *os.Root) error
	}{
		{"replace", func(root *os.Root) error { return Replace(root, "state.json", data, 0o644, false) }},
		{"spare", func(root *os.Root) error { return ReplaceViaSpare(root, "state.json", data, 0o644) }},
	} {
		b.Run(bc.name, func(b *testing.B) {
			root, err := os.OpenRoot(b.TempDir())
			if err != nil {
				b.Fatal(err)
			}
			defer root.Close()
			for b.Loop() {
				if err := bc.write(root); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func stubExchange(t *testing.T, fn func(dirfd int, a, b string) error) (restore func()) {
	saved := exchange
	exchange = fn
	restore = func() { exchange = saved }
	t.Cleanup(restore)
	return restore
}

func openRoot(t *testing.T, dir string) *os.Root {
	t.Helper()
	root, err := os.OpenRoot(dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { root.Close() })
	return root
}

func put(t *testing.T, path, data string) {
	t.Helper()
	mkdir(t, filepath.Dir(path))
	if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
}

func mkdir(t *testing.T, dir string) {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
}

func link(t *testing.T, target, at string) {
	t.Helper()
	if err := os.Symlink(target, at); err != nil {
		t.Fatal(err)
	}
}

// tree lists the files below dir with their contents.
func tree(t *testing.T, dir string) string {
	t.Helper()
	var b strings.Builder
	_ = filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			data, _ := os.ReadFile(p)
			b.WriteString(p + "=" + string(data) + "\n")
		}
		return nil
	})
	return b.String()
}

// TestUnchanged: a read is kept only when the path still names the file
// read and that file did not change under the read.
func TestUnchanged(t *testing.T) {
	dir := t.TempDir()
	info := func(name, data string, mtime time.Time) os.FileInfo {
		p := filepath.Join(dir, name)
		put(t, p, data)
		if err := os.Chtimes(p, mtime, mtime); err != nil {
			t.Fatal(err)
		}
		fi, err := os.Stat(p)
		if err != nil {
			t.Fatal(err)
		}
		return fi
	}
	t1 := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	a := info("a", "four", t1)
	b := info("b", "four", t1)
	aLonger := info("a", "four more", t1)
	aLater := info("a", "FOUR", t1.Add(time.Millisecond))
	tests := []struct {
		name              string
		before, after, at os.FileInfo
		n                 int
		want              bool
	}{
		{"nothing changed", a, a, a, 4, true},
		{"path names another file (swapped)", a, a, b, 4, false},
		{"fewer bytes read than the file had", a, a, a, 3, false},
		{"file grew during the read", a, aLonger, a, 4, false},
		{"file rewritten during the read", a, aLater, a, 4, false},
	}
	for _, tt := range tests {
		if got := unchanged(tt.before, tt.after, tt.at, tt.n); got != tt.want {
			t.Errorf("%s: unchanged = %v, want %v", tt.name, got, tt.want)
		}
	}
}

// TestReplaceViaSpareV writes a document given in pieces (empty ones
// among them, more of them than a typical write takes at once) over a
// longer one: the file is exactly their concatenation.
func TestReplaceViaSpareV(t *testing.T) {
	for _, n := range []int{0, 1, 3, 40, 1500} {
		dir := t.TempDir()
		root, err := os.OpenRoot(dir)
		if err != nil {
			t.Fatal(err)
		}
		put(t, filepath.Join(dir, "state.json"), strings.Repeat("x", 100000))
		var pieces [][]byte
		var want []byte
		for i := 0; i < n; i++ {
			p := bytes.Repeat([]byte{byte('a' + i%26)}, i%7*300) // every seventh piece is empty
			pieces = append(pieces, p)
			want = append(want, p...)
		}
		for round := 0; round < 2; round++ { // the second round overwrites the spare
			if err := ReplaceViaSpareV(root, "state.json", pieces, 0o644); err != nil {
				t.Fatalf("%d pieces: %v", n, err)
			}
			got, err := os.ReadFile(filepath.Join(dir, "state.json"))
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got, want) {
				t.Fatalf("%d pieces, round %d: %d bytes, want %d", n, round, len(got), len(want))
			}
		}
		root.Close()
	}
}
