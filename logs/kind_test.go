package logs

import "testing"

func TestName(t *testing.T) {
	tests := []struct {
		kind  Kind
		event string
		want  string
	}{
		{Events, "PreToolUse", "pre_tool_use"},
		{Events, "session_start", "session_start"},
		{Events, "Decisions", "event_decisions"},
		{Events, "rejected", "event_rejected"},
		{Events, "Repairs", "event_repairs"},
		{Events, "FutureEvent", "future_event"},
		{Events, "../x", ""},
		{Decisions, "", "decisions"},
		{Decisions, "PreToolUse", "decisions"},
		{Rejected, "", "rejected"},
		{Repairs, "", "repairs"},
		{NotLog, "PreToolUse", ""},
	}
	for _, tt := range tests {
		if got := Name(tt.kind, tt.event); got != tt.want {
			t.Errorf("Name(%v, %q) = %q, want %q", tt.kind, tt.event, got, tt.want)
		}
	}
}

func TestClassify(t *testing.T) {
	tests := []struct {
		name string
		want File
	}{
		{"pre_tool_use.json", File{Events, "pre_tool_use", 0}},
		{"event_decisions.json", File{Events, "event_decisions", 0}},
		{"decisions.json", File{Decisions, "decisions", 0}},
		{"rejected.json", File{Rejected, "rejected", 0}},
		{"repairs.json", File{Repairs, "repairs", 0}},
		{"pre_tool_use.3.json", File{Events, "pre_tool_use", 3}},
		{"decisions.12.json", File{Decisions, "decisions", 12}},
		{"pre_tool_use.0.json", File{}},
		{"pre_tool_use.-1.json", File{}},
		{"pre_tool_use.+1.json", File{}},
		{"pre_tool_use.x.json", File{}},
		{"pre_tool_use.1.2.json", File{}},
		{".pre_tool_use.json.lock", File{}},
		{".pre_tool_use.json", File{}},
		{".1.json", File{}},
		{".json", File{}},
		{"pre_tool_use.json.corrupt-20260501T100000.000000000Z", File{}},
		{"notes.txt", File{}},
	}
	for _, tt := range tests {
		if got := Classify(tt.name); got != tt.want {
			t.Errorf("Classify(%q) = %+v, want %+v", tt.name, got, tt.want)
		}
	}
}

// TestNameClassifyRoundTrip: every live log name Name gives is classified
// back as its kind, and rotation produces names Classify recognises.
func TestNameClassifyRoundTrip(t *testing.T) {
	for _, k := range []Kind{Events, Decisions, Rejected, Repairs} {
		for _, ev := range []string{"PreToolUse", "Decisions", "Stop"} {
			name := Name(k, ev)
			f := Classify(name + Ext)
			if f.Kind != k || f.Name != name || f.Segment != 0 {
				t.Errorf("Classify(Name(%v, %q)+Ext) = %+v", k, ev, f)
			}
			if seg := Classify(segmentName(name, 7)); seg.Kind != k || seg.Name != name || seg.Segment != 7 {
				t.Errorf("Classify(segment 7 of %q) = %+v", name, seg)
			}
		}
	}
}

func TestKindSession(t *testing.T) {
	for k, want := range map[Kind]bool{Events: true, Decisions: true, Rejected: false, Repairs: false, NotLog: false} {
		if k.Session() != want {
			t.Errorf("%v.Session() = %v, want %v", k, !want, want)
		}
	}
}
