package card

import (
	"testing"
	"time"
)

func TestWaited(t *testing.T) {
	for _, c := range []struct {
		d    time.Duration
		want string
	}{
		{-time.Second, "0s"},
		{400 * time.Millisecond, "0s"},
		{time.Second, "1s"},
		{14*time.Second + 900*time.Millisecond, "14s"},
		{59 * time.Second, "59s"},
		{2*time.Minute + 5*time.Second + 300*time.Millisecond, "2m05s"},
		{time.Hour + 3*time.Minute, "1h03m"},
	} {
		if got := waited(c.d); got != c.want {
			t.Errorf("waited(%v) = %q, want %q", c.d, got, c.want)
		}
	}
}
