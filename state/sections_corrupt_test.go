package state

import (
	"bytes"
	"context"
	"hash/crc32"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// written records a session by one update that fill makes, and returns
// its state.json's path, bytes and lines.
func written(t *testing.T, l Layout, id string, fill func(*Session)) (path string, data []byte, lines [][]byte) {
	t.Helper()
	if _, err := l.Update(context.Background(), id, t0, UpdateOptions{}, func(s *Session, _ bool) error {
		fill(s)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	path, _ = l.StatePath(id)
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return path, data, bytes.Split(data, []byte("\n"))
}

// Issue 23 row 8: a damaged line in a section a hook leaves encoded used
// to be copied back as it was, hook after hook: state.json stayed
// unparsable. It is now found, the file set aside (kept), and a fresh
// state says so.
func TestDamagedLazySectionSetAside(t *testing.T) {
	l := Layout{Root: t.TempDir()}
	ctx := context.Background()
	const id = "damaged"
	path, _, lines := written(t, l, id, func(s *Session) {
		s.Prompts = append(s.Prompts, Prompt{Timestamp: t0, Prompt: "hello"})
	})
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

// Sums made another way (an older spcstr wrote CRC-32C) match nothing:
// the kept sections are checked by a scan, read whole and written back
// with this version's sums, and no entry is lost.
func TestForeignSectionSumsAreCheckedNotTrusted(t *testing.T) {
	l := Layout{Root: t.TempDir()}
	ctx := context.Background()
	const id = "oldsums"
	path, data, lines := written(t, l, id, func(s *Session) {
		s.Prompts = append(s.Prompts, Prompt{Timestamp: t0, Prompt: "hello"})
		s.Errors = append(s.Errors, Error{Timestamp: t0, Message: "boom"})
	})
	var s Session
	if ok, err := decodeSectioned(data, &s, AllSections); !ok || err != nil {
		t.Fatalf("decodeSectioned: ok=%v err=%v", ok, err)
	}
	castagnoli := crc32.MakeTable(crc32.Castagnoli)
	old := make([]string, len(s.SectionSums))
	for i := range s.SectionSums {
		line := bytes.TrimSuffix(bytes.TrimPrefix(lines[i+1], []byte(sectionLine[i].prefix)), []byte(sectionLine[i].suffix))
		if got := sectionSum(line); got != s.SectionSums[i] {
			t.Fatalf("section %d: recorded sum %d, sectionSum %d", i, s.SectionSums[i], got)
		}
		old[i] = strconv.FormatUint(uint64(crc32.Checksum(line, castagnoli)), 10)
	}
	head := lines[0]
	start := bytes.Index(head, []byte(`"section_sums":[`))
	end := bytes.IndexByte(head[start:], ']')
	if start < 0 || end < 0 {
		t.Fatalf("no section_sums in the head: %s", head)
	}
	lines[0] = slices.Concat(head[:start], []byte(`"section_sums":[`+strings.Join(old, ",")), head[start+end:])
	if err := os.WriteFile(path, bytes.Join(lines, []byte("\n")), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := l.Update(ctx, id, t0, UpdateOptions{Lazy: SectionNotifications}, func(*Session, bool) error { return nil }); err != nil {
		t.Fatal(err)
	}
	back, err := l.Load(id)
	if err != nil {
		t.Fatal(err)
	}
	if len(back.Prompts) != 1 || back.Prompts[0].Prompt != "hello" || len(back.Errors) != 1 || back.Errors[0].Message != "boom" {
		t.Errorf("entries lost or damage reported: prompts %+v errors %+v", back.Prompts, back.Errors)
	}
	for i, want := range old {
		if strconv.FormatInt(back.SectionSums[i], 10) == want {
			t.Errorf("section %d still carries the CRC-32C sum %s", i, want)
		}
	}
}

// A finished agent left encoded and tracked again without
// LoadDoneSubagents (a bug) is still written once, finished: state.json
// never holds an id twice.
func TestFinishedAgentWrittenOnce(t *testing.T) {
	l := Layout{Root: t.TempDir()}
	ctx := context.Background()
	if _, err := l.Update(ctx, "agents", t0, UpdateOptions{}, func(s *Session, _ bool) error {
		s.Subagents = map[string]SubagentUsage{"a1": {Cursor: TranscriptCursor{Offset: 50}, Done: true}, "a2": {Cursor: TranscriptCursor{Offset: 7}}}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if _, err := l.Update(ctx, "agents", t0, UpdateOptions{Lazy: AllSections}, func(s *Session, _ bool) error {
		if _, ok := s.Subagents["a1"]; ok {
			t.Error("the finished agent was decoded by an update that left it encoded")
		}
		s.Subagents["a1"] = SubagentUsage{} // no LoadDoneSubagents first
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	path, _ := l.StatePath("agents")
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if n := bytes.Count(data, []byte(`"a1":`)); n != 1 {
		t.Errorf("a1 written %d times:\n%s", n, data)
	}
	back, err := l.Load("agents")
	if err != nil {
		t.Fatal(err)
	}
	if a := back.Subagents["a1"]; !a.Done || a.Cursor.Offset != 50 || back.Subagents["a2"].Cursor.Offset != 7 {
		t.Errorf("agents after the update: %+v", back.Subagents)
	}
}
