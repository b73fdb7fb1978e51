package state

import (
	"errors"
	"fmt"
	"strings"
	"testing"
)

func TestFindSessionID(t *testing.T) {
	ids := []string{"aaaa2222", "aaaa1111", "bbbb3333", "cc"}
	many := make([]string, 8)
	for i := range many {
		many[i] = fmt.Sprintf("dd%d", i)
	}
	tests := []struct {
		ids     []string
		id      string
		want    string
		wantErr error
		errHas  []string
	}{
		{ids: ids, id: "aaaa1111", want: "aaaa1111"},
		{ids: ids, id: "bb", want: "bbbb3333"},
		{ids: []string{"cc", "ccdd"}, id: "cc", want: "cc"}, // an exact id wins over the ids it prefixes
		{ids: ids, id: "aaaa", wantErr: ErrAmbiguousSession,
			errHas: []string{`ambiguous session id "aaaa" matches 2 sessions; give more of the id:`, "\n  aaaa2222\n  aaaa1111"}},
		{ids: ids, id: "zz", wantErr: ErrUnknownSession, errHas: []string{`unknown session "zz" in WHERE; sessions:`, "\n  aaaa2222"}},
		{ids: nil, id: "zz", wantErr: ErrUnknownSession, errHas: []string{`unknown session "zz" in WHERE`}},
		{ids: many, id: "zz", wantErr: ErrUnknownSession, errHas: []string{"dd4\n  … and 3 more"}},
		{ids: ids, id: "", wantErr: ErrUnknownSession, errHas: []string{"give a session id"}},
		{ids: ids, id: "../etc", wantErr: ErrUnknownSession, errHas: []string{"not a session id"}},
		{ids: ids, id: strings.Repeat("é", 100), wantErr: ErrUnknownSession},
	}
	for _, tc := range tests {
		got, err := FindSessionID(tc.ids, tc.id, "WHERE")
		if tc.wantErr != nil {
			if !errors.Is(err, tc.wantErr) {
				t.Errorf("FindSessionID(%q) err = %v, want %v", tc.id, err, tc.wantErr)
				continue
			}
			for _, s := range tc.errHas {
				if !strings.Contains(err.Error(), s) {
					t.Errorf("FindSessionID(%q): error %q lacks %q", tc.id, err, s)
				}
			}
			if len(err.Error()) > 400 {
				t.Errorf("FindSessionID(%q): error not bounded: %d bytes", tc.id, len(err.Error()))
			}
			continue
		}
		if err != nil || got != tc.want {
			t.Errorf("FindSessionID(%q) = %q, %v; want %q", tc.id, got, err, tc.want)
		}
	}
}
