package pricing

import "testing"

func TestTotal(t *testing.T) {
	cc := SessionCost{Source: SourceClaudeCode, Estimate: Estimate{USD: 1, Priced: true}}
	est := SessionCost{Source: SourceEstimate, Estimate: Estimate{USD: 0.5, Priced: true}}
	lower := SessionCost{Source: SourceEstimate, Estimate: Estimate{USD: 0.25, Priced: false, Unpriced: []string{"m"}}}
	tests := []struct {
		name string
		add  []SessionCost
		want string
		any  bool
	}{
		{"nothing", nil, "$0", false},
		{"claude code's only", []SessionCost{cc}, "$1.00", true},
		{"with an estimate", []SessionCost{cc, est}, "~$1.50", true},
		{"with an unpriced model", []SessionCost{cc, est, lower}, "≥$1.75", true},
		{"no tokens adds nothing", []SessionCost{{Source: SourceEstimate}}, "$0", false},
		{"a tiny sum", []SessionCost{{Source: SourceClaudeCode, Estimate: Estimate{USD: 0.001, Priced: true}}}, "<$0.01", true},
	}
	for _, tt := range tests {
		var tot Total
		for _, e := range tt.add {
			tot.Add(e)
		}
		if got := tot.String(); got != tt.want || tot.Any != tt.any {
			t.Errorf("%s: %q any=%v, want %q any=%v", tt.name, got, tot.Any, tt.want, tt.any)
		}
		var m Total
		m.Merge(tot)
		if m != tot {
			t.Errorf("%s: merged %+v, want %+v", tt.name, m, tot)
		}
	}
}
