package logs

import (
	"path/filepath"
	"testing"
)

// BenchmarkAppendInflight compares an append whose log has a slot with one
// that marks itself with a marker folder (a log without a slot), and the
// check every hook makes when nothing was interrupted.
func BenchmarkAppendInflight(b *testing.B) {
	for _, name := range []string{"stop.json", "some_future_event.json"} {
		b.Run(name, func(b *testing.B) {
			p := filepath.Join(b.TempDir(), name)
			e := entry(1)
			for b.Loop() {
				if err := Append(ctx, p, e, Options{}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
	b.Run("check", func(b *testing.B) {
		dir := b.TempDir()
		if err := Append(ctx, filepath.Join(dir, "stop.json"), entry(1), Options{}); err != nil {
			b.Fatal(err)
		}
		for b.Loop() {
			if err := RepairInterrupted(ctx, dir); err != nil {
				b.Fatal(err)
			}
		}
	})
}
