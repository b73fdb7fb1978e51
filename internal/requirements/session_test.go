package requirements_test

import (
	"context"
	"testing"

	"github.com/dylan-gluck/spcstr/internal/requirements"
)

func TestReadSession(t *testing.T) {
	p := newProject(t, planConfig)
	t.Setenv("HOME", p.home)
	if _, _, err := p.reqs().Satisfy(context.Background(), sid, []string{"commit_plan"}, true); err != nil {
		t.Fatal(err)
	}
	satisfied := func(v *requirements.SessionView) bool {
		for _, s := range v.Statuses {
			if s.Name == "commit_plan" {
				return s.Satisfied
			}
		}
		t.Fatalf("commit_plan missing: %+v", v.Statuses)
		return false
	}
	tests := []struct {
		name, session, branch string
		wantBranch            string
		wantSatisfied         bool
	}{
		{"checked-out branch", sid, "", "feature/auth", true},
		{"the session's branch is the checked-out one", sid, "feature/auth", "feature/auth", true},
		{"a session of another branch reads that branch's state", sid, "main", "main", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v, err := requirements.ReadSession(p.root, tt.session, tt.branch)
			if err != nil || v.Err != nil {
				t.Fatalf("ReadSession: %v, %v", err, v.Err)
			}
			if !v.Defined || len(v.Files) != 1 || v.Branch != tt.wantBranch || satisfied(v) != tt.wantSatisfied {
				t.Fatalf("view %+v", v)
			}
		})
	}
	if v, err := requirements.ReadSession(p.root, "", ""); err != nil || len(v.Statuses) != 0 {
		t.Fatalf("no session: %+v, %v", v, err)
	}

	empty := newProject(t, "")
	t.Setenv("HOME", empty.home)
	if v, err := requirements.ReadSession(empty.root, sid, ""); err != nil || v.Defined || len(v.Files) != 0 {
		t.Fatalf("not configured: %+v, %v", v, err)
	}
}
