package otelship_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"sort"
	"testing"
	"time"

	"github.com/dylan-gluck/spcstr/internal/hookio"
	"github.com/dylan-gluck/spcstr/logs"
	"github.com/dylan-gluck/spcstr/state"
)

// synthesize writes n events straight into the project's logs, in
// spcstr's layout: the real "basic" session's 34 events, replayed as one
// new session after another (10 ms apart), as the recorder would have
// logged them. It is how the tests get a large project fast.
func synthesize(t testing.TB, l state.Layout, n int) {
	t.Helper()
	f, err := os.Open("../../bench/testdata/events.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var events []map[string]json.RawMessage
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 4<<20)
	for sc.Scan() {
		var m map[string]json.RawMessage
		if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
			t.Fatal(err)
		}
		events = append(events, m)
	}
	files := map[string]*bytes.Buffer{}
	at := time.Date(2026, 11, 1, 9, 0, 0, 0, time.UTC)
	for i := range n {
		ev := events[i%len(events)]
		sid := fmt.Sprintf("%08x-0000-4000-8000-%012x", i/len(events), i/len(events))
		ev["session_id"], _ = json.Marshal(sid)
		payload, _ := json.Marshal(ev)
		var name string
		_ = json.Unmarshal(ev["hook_event_name"], &name)
		e := logs.Entry{Timestamp: at.Add(time.Duration(i) * 10 * time.Millisecond), SessionID: sid, Event: name,
			Input: payload, Outcome: &logs.Outcome{DurationMS: 1.5}}
		line, err := e.Encode()
		if err != nil {
			t.Fatal(err)
		}
		file := hookio.SnakeName(name)
		b := files[file]
		if b == nil {
			b = bytes.NewBufferString("[\n")
			files[file] = b
		} else {
			b.WriteString(",\n")
		}
		b.Write(line)
	}
	names := make([]string, 0, len(files))
	for k := range files {
		names = append(names, k)
	}
	sort.Strings(names)
	for _, k := range names {
		files[k].WriteString("\n]")
		if err := os.WriteFile(l.LogPath(k), files[k].Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}
