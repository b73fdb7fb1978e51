//go:build unix

package logs

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

func lines(t *testing.T, path string) []string {
	t.Helper()
	var out []string
	if err := ScanLines(path, func(l []byte) error { out = append(out, string(l)); return nil }); err != nil {
		t.Fatal(err)
	}
	return out
}

func sessionFile(t *testing.T) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), ".spcstr", "sessions", "s1", ObservabilityFile)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	return p
}

// Appends add lines in order; a torn tail (no final newline) is skipped by
// readers, then cut off by the next append and kept in <name>.torn;
// blank lines are skipped.
func TestAppendLinesTornTail(t *testing.T) {
	p := sessionFile(t)
	if err := AppendLines(p, []byte("{\"n\":1}\n{\"n\":2}\n")); err != nil {
		t.Fatal(err)
	}
	f, _ := os.OpenFile(p, os.O_WRONLY|os.O_APPEND, 0)
	f.WriteString("\n{\"n\":3,\"tor")
	f.Close()
	if got := lines(t, p); strings.Join(got, "|") != `{"n":1}|{"n":2}` {
		t.Fatalf("torn tail read as %q", got)
	}
	if err := AppendLines(p, []byte("{\"n\":4}\n")); err != nil {
		t.Fatal(err)
	}
	if got := lines(t, p); strings.Join(got, "|") != `{"n":1}|{"n":2}|{"n":4}` {
		t.Fatalf("after append: %q", got)
	}
	if torn, err := os.ReadFile(p + TornSuffix); err != nil || string(torn) != "{\"n\":3,\"tor\n" {
		t.Fatalf("torn line not kept: %q %v", torn, err)
	}
	if err := AppendLines(p, []byte("{}")); err == nil {
		t.Fatal("lines without a final newline accepted")
	}
}

// A FIFO or folder where the log belongs is set aside, never blocked on;
// a symlink out of .spcstr/ is refused.
func TestAppendLinesHostile(t *testing.T) {
	p := sessionFile(t)
	if err := syscall.Mkfifo(p, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := AppendLines(p, []byte("{}\n")); err != nil {
		t.Fatalf("FIFO: %v", err)
	}
	if got := lines(t, p); len(got) != 1 {
		t.Fatalf("after FIFO: %q", got)
	}
	aside, _ := filepath.Glob(p + ".corrupt-*")
	if len(aside) != 1 {
		t.Fatalf("set aside: %v", aside)
	}

	q := sessionFile(t)
	outside := filepath.Join(t.TempDir(), "outside")
	if err := os.Symlink(outside, q); err != nil {
		t.Fatal(err)
	}
	if err := AppendLines(q, []byte("{}\n")); err == nil {
		t.Fatal("symlink out of .spcstr followed")
	}
	if _, err := os.Stat(outside); err == nil {
		t.Fatal("file written outside .spcstr")
	}
}

// ScanLines skips a line over the cap and reads on.
func TestScanLinesLongLine(t *testing.T) {
	p := sessionFile(t)
	long := `{"x":"` + strings.Repeat("a", maxLine+10) + `"}`
	if err := AppendLines(p, []byte("{\"n\":1}\n"+long+"\n{\"n\":2}\n")); err != nil {
		t.Fatal(err)
	}
	if got := lines(t, p); strings.Join(got, "|") != `{"n":1}|{"n":2}` {
		t.Fatalf("got %d lines", len(got))
	}
}

// TailLines reads only the end: the line cut by the window is skipped.
func TestTailLines(t *testing.T) {
	p := sessionFile(t)
	if err := AppendLines(p, []byte("{\"n\":1}\n{\"n\":22}\n{\"n\":3}\n")); err != nil {
		t.Fatal(err)
	}
	var got []string
	if err := TailLines(p, 12, func(l []byte) error { got = append(got, string(l)); return nil }); err != nil {
		t.Fatal(err)
	}
	if strings.Join(got, "|") != `{"n":3}` {
		t.Fatalf("window 12: %q", got)
	}
	got = nil
	if err := TailLines(p, 17, func(l []byte) error { got = append(got, string(l)); return nil }); err != nil {
		t.Fatal(err)
	}
	if strings.Join(got, "|") != `{"n":22}|{"n":3}` {
		t.Fatalf("window on a line start: %q", got)
	}
}
