//go:build unix

package hookio

import (
	"bytes"
	"errors"
	"os"
	"syscall"
	"testing"
	"time"
)

// blockingPipe is a pipe like the one Claude Code gives a hook as stdin:
// blocking, so not the runtime poller's (os.Pipe's are non-blocking).
func blockingPipe() (r, w *os.File, err error) {
	var fds [2]int
	if err := syscall.Pipe(fds[:]); err != nil {
		return nil, nil, err
	}
	return os.NewFile(uintptr(fds[0]), "stdin"), os.NewFile(uintptr(fds[1]), "writer"), nil
}

// TestReadPayloadPipe reads real pipes the way the hook reads its stdin:
// chunked writes arrive whole, a stdin nobody closes times out with what
// arrived, and the payload cap holds.
func TestReadPayloadPipe(t *testing.T) {
	big := bytes.Repeat([]byte("x"), 300<<10)
	tests := []struct {
		name     string
		chunks   [][]byte
		close    bool
		timeout  time.Duration
		want     []byte
		wantErr  error
		maxWaitS float64
	}{
		{"one write", [][]byte{[]byte(`{"a":1}`)}, true, 5 * time.Second, []byte(`{"a":1}`), nil, 4},
		{"chunks over 64 KiB", [][]byte{big[:100<<10], big[100<<10:]}, true, 5 * time.Second, big, nil, 4},
		{"empty", nil, true, 5 * time.Second, []byte{}, nil, 4},
		{"never closed", [][]byte{[]byte(`{"partial":`)}, false, 300 * time.Millisecond, []byte(`{"partial":`), ErrStdinTimeout, 4},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, w, err := blockingPipe()
			if err != nil {
				t.Fatal(err)
			}
			defer r.Close()
			defer w.Close()
			go func() {
				for _, c := range tt.chunks {
					_, _ = w.Write(c)
					time.Sleep(5 * time.Millisecond)
				}
				if tt.close {
					w.Close()
				}
			}()
			if _, ok, _ := readFileDeadline(r, 0, time.Now(), 0); !ok {
				t.Fatal("the blocking pipe is not read with poll")
			}
			t0 := time.Now()
			got, err := ReadPayload(r, tt.timeout)
			if !errors.Is(err, tt.wantErr) {
				t.Fatalf("err = %v, want %v", err, tt.wantErr)
			}
			if !bytes.Equal(got, tt.want) {
				t.Errorf("read %d bytes, want %d", len(got), len(tt.want))
			}
			if s := time.Since(t0).Seconds(); s > tt.maxWaitS {
				t.Errorf("took %.1fs", s)
			}
		})
	}
}

// TestReadFileDeadlineCap: a pipe with more than the limit yields
// limit bytes (ReadPayload's limit is MaxPayloadBytes+1, so that the caller
// can tell a payload was over the cap).
func TestReadFileDeadlineCap(t *testing.T) {
	r, w, err := blockingPipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	go func() {
		defer w.Close()
		chunk := bytes.Repeat([]byte("y"), 256<<10)
		for i := 0; i < 8; i++ {
			if _, err := w.Write(chunk); err != nil {
				return
			}
		}
	}()
	const limit = 1<<20 + 1
	got, ok, err := readFileDeadline(r, limit, time.Now().Add(10*time.Second), 10*time.Second)
	if !ok || err != nil || len(got) != limit {
		t.Fatalf("read %d bytes, ok %v, err %v; want %d", len(got), ok, err, limit)
	}
}
