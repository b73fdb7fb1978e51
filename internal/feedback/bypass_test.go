package feedback

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

func TestScanTranscript(t *testing.T) {
	re := regexp.MustCompile(DefaultBypassPattern)
	path := filepath.Join(t.TempDir(), "t.jsonl")
	write := func(s string) {
		f, err := os.OpenFile(path, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
		if err != nil {
			t.Fatal(err)
		}
		f.WriteString(s)
		f.Close()
	}
	write(`{"type":"user","message":"hello"}` + "\n")
	m, next, err := ScanTranscript(path, 0, re)
	if err != nil || m != "" || next != 34 {
		t.Fatalf("first = %q %d %v", m, next, err)
	}
	// A half-written line is left for the next read.
	write(`{"type":"assistant","content":[{"name":"Skill","input":{"skill":"orchestrating-`)
	if m, n2, _ := ScanTranscript(path, next, re); m != "" || n2 != next {
		t.Fatalf("partial = %q %d", m, n2)
	}
	write("feature\"}}]}\n")
	m, next2, err := ScanTranscript(path, next, re)
	if err != nil || m != "orchestrating-feature" {
		t.Fatalf("match = %q %v", m, err)
	}
	fi, _ := os.Stat(path)
	if next2 != fi.Size() {
		t.Fatalf("next = %d, size %d", next2, fi.Size())
	}
	// Only new bytes are read: the match is not found again.
	if m, _, _ := ScanTranscript(path, next2, re); m != "" {
		t.Fatalf("rescanned: %q", m)
	}
	// A rewritten (shorter) transcript is read from the start.
	os.WriteFile(path, []byte("orchestrating-capability\n"), 0o644)
	if m, _, _ := ScanTranscript(path, next2, re); m != "orchestrating-capability" {
		t.Fatalf("after rewrite: %q", m)
	}
	// Not a regular file.
	if _, _, err := ScanTranscript(t.TempDir(), 0, re); err == nil || !strings.Contains(err.Error(), "not a regular file") {
		t.Fatalf("dir: %v", err)
	}
}
