package feedback

import "testing"

func TestStatusTable(t *testing.T) {
	l := NewLoop()
	l.ModifiedDomains = []string{"backend", "frontend"}
	l.ModifiedFiles = map[string][]string{"backend": {"api.go"}}
	l.normalize()
	l.DomainPhases["backend"].Review = Phase{Status: Pass, Agent: "reviewer"}
	l.DomainPhases["backend"].Testing = Phase{Status: Fail, Issues: []string{"flaky"}}
	rows := NewStatus(l, Limits{}).Table()
	if len(rows) != 2 || rows[0].Name != "backend" || rows[1].Name != "frontend" {
		t.Fatalf("rows = %+v", rows)
	}
	b := rows[0]
	if b.Review.Status != Pass || b.Review.Agent != "reviewer" || b.TestPlanning.Status != NotRun ||
		b.Testing.Status != Fail || len(b.Testing.Issues) != 1 || len(b.Files) != 1 {
		t.Errorf("backend row = %+v", b)
	}
	if f := rows[1]; f.Review.Status != NotRun || f.Testing.Status != NotRun {
		t.Errorf("frontend row = %+v", f)
	}
}
