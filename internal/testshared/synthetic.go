package testshared

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"time"

	"github.com/dylan-gluck/spcstr/logs"
)

// SynthesizeLogs writes n events straight into logDir (a project's
// .spcstr/logs), in spcstr's log layout: the captured session in
// eventsFile (JSON Lines of hook payloads, such as
// bench/testdata/events.jsonl) replayed as one new session after another,
// 10 ms apart, as the recorder would have logged them. It is how tests and
// benchmarks get a large project fast (the recorder would take minutes for
// 100,000 events). Existing logs are replaced.
func SynthesizeLogs(logDir, eventsFile string, n int) error {
	f, err := os.Open(eventsFile)
	if err != nil {
		return err
	}
	defer f.Close()
	var events []map[string]json.RawMessage
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 4<<20)
	for sc.Scan() {
		var m map[string]json.RawMessage
		if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
			return fmt.Errorf("%s: %w", eventsFile, err)
		}
		events = append(events, m)
	}
	if err := sc.Err(); err != nil {
		return err
	}
	if len(events) == 0 {
		return fmt.Errorf("%s: no events", eventsFile)
	}
	if err := os.MkdirAll(logDir, 0o755); err != nil {
		return err
	}
	files := map[string]*bytes.Buffer{}
	at := time.Date(2026, 11, 1, 9, 0, 0, 0, time.UTC)
	for i := range n {
		ev := events[i%len(events)]
		sid := fmt.Sprintf("%08x-0000-4000-8000-%012x", i/len(events), i/len(events))
		ev["session_id"], _ = json.Marshal(sid)
		payload, err := json.Marshal(ev)
		if err != nil {
			return err
		}
		var name string
		_ = json.Unmarshal(ev["hook_event_name"], &name)
		e := logs.Entry{Timestamp: at.Add(time.Duration(i) * 10 * time.Millisecond), SessionID: sid, Event: name,
			Input: payload, Outcome: &logs.Outcome{DurationMS: 1.5}}
		line, err := e.Encode()
		if err != nil {
			return err
		}
		file := logs.Name(logs.Events, name)
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
		if err := os.WriteFile(filepath.Join(logDir, k+logs.Ext), files[k].Bytes(), 0o644); err != nil {
			return err
		}
	}
	return nil
}
