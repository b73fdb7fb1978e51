package otelship_test

import (
	"testing"

	"github.com/dylan-gluck/spcstr/internal/testshared"
	"github.com/dylan-gluck/spcstr/state"
)

// synthesize writes n events straight into the project's logs (the real
// "basic" session's events, replayed as one new session after another):
// how the tests get a large project fast.
func synthesize(t testing.TB, l state.Layout, n int) {
	t.Helper()
	if err := testshared.SynthesizeLogs(l.LogsDir(), "../../bench/testdata/events.jsonl", n); err != nil {
		t.Fatal(err)
	}
}
