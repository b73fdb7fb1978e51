package state

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Issue 23 row 8: a damaged line in a section a hook leaves encoded used
// to be copied back as it was, hook after hook: state.json stayed
// unparsable. It is now found, the file set aside (kept), and a fresh
// state says so.
func TestDamagedLazySectionSetAside(t *testing.T) {
	l := Layout{Root: t.TempDir()}
	ctx := context.Background()
	const id = "damaged"
	if _, err := l.Update(ctx, id, t0, UpdateOptions{}, func(s *Session, _ bool) error {
		s.Prompts = append(s.Prompts, Prompt{Timestamp: t0, Prompt: "hello"})
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	path, _ := l.StatePath(id)
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	lines := bytes.Split(data, []byte("\n"))
	if !bytes.HasPrefix(lines[6], []byte(`"prompts":`)) {
		t.Fatalf("layout changed: line 7 is %q", lines[6])
	}
	lines[6] = bytes.Replace(lines[6], []byte(`"hello"`), []byte(`"hel"lo"`), 1)
	if err := os.WriteFile(path, bytes.Join(lines, []byte("\n")), 0o644); err != nil {
		t.Fatal(err)
	}
	s, err := l.Update(ctx, id, t0, UpdateOptions{Lazy: SectionPrompts}, func(*Session, bool) error { return nil })
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Errors) != 1 || !strings.Contains(s.Errors[0].Message, "prompts line does not parse") {
		t.Errorf("not reported: %+v", s.Errors)
	}
	if _, err := l.Load(id); err != nil {
		t.Errorf("state.json still unparsable: %v", err)
	}
	aside, _ := filepath.Glob(filepath.Join(filepath.Dir(path), "state.json.*"))
	if len(aside) == 0 {
		entries, _ := os.ReadDir(filepath.Dir(path))
		t.Errorf("damaged file not kept aside: %v", entries)
	}
}
