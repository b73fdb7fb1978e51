package doctor

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/dylan-gluck/spcstr/state"
)

// The findings spcstr doctor --fix mends carry what to do as a value (kind
// and target), not only as text: --fix acts on Repair, and the text a
// person reads may say anything. Findings --fix cannot mend carry none.
func TestRecordFindingsCarryRepairs(t *testing.T) {
	f := newFixture(t)
	l := state.Layout{Root: f.root}
	const broken, torn = "broken-state", "torn-log"
	sp, _ := l.StatePath(broken)
	f.write(sp, `{"session_id":`)
	op, _ := l.ObservabilityPath(torn)
	f.write(op, "{\"ts\":\"2026-01-01T00:00:00Z\"}\n{\"ts\":\"2026-01-\n{\"ts\":\"2026-01-01T00:00:01Z\"}\n")

	r := Run(context.Background(), f.env, []Check{RecordsCheck()})
	got := map[RepairKind]Repair{}
	for _, fd := range r.Findings {
		if fd.Repair.Kind == "" {
			if fd.Severity != OK && strings.Contains(fd.Fix, "--fix") {
				t.Errorf("finding says --fix mends it but carries no repair: %+v", fd)
			}
			continue
		}
		got[fd.Repair.Kind] = fd.Repair
	}
	if rb := got[RepairRebuildState]; rb.Session != broken {
		t.Errorf("rebuild repair %+v, want session %s (findings %+v)", rb, broken, r.Findings)
	}
	if dt := got[RepairDropTorn]; dt.Path != op {
		t.Errorf("drop-torn repair %+v, want path %s (findings %+v)", dt, op, r.Findings)
	}
	// --json carries them too.
	var b strings.Builder
	if err := r.WriteJSON(&b); err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Findings []struct {
			Repair *Repair `json:"repair"`
		} `json:"findings"`
	}
	if err := json.Unmarshal([]byte(b.String()), &doc); err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, fd := range doc.Findings {
		if fd.Repair != nil {
			n++
		}
	}
	if n != 2 {
		t.Errorf("%d findings with a repair in --json, want 2:\n%s", n, b.String())
	}
}
