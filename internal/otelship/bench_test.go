package otelship_test

import (
	"testing"

	"github.com/dylan-gluck/spcstr/internal/otelcursor"
	"github.com/dylan-gluck/spcstr/internal/otelship"
	"os"
)

// BenchmarkShip ships a 20,000-event project to an in-process OTLP
// receiver (the bench measures the real thing against a Collector).
func BenchmarkShip(b *testing.B) {
	l := newProject(b)
	synthesize(b, l, 20000)
	r := newReceiver(b)
	b.ResetTimer()
	for range b.N {
		_ = os.Remove(otelcursor.Path(l))
		ship(b, l, r, otelship.Options{})
	}
}
