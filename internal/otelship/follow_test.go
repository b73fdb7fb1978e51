package otelship_test

import (
	"bytes"
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/dylan-gluck/spcstr/internal/otelship"
)

type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

func TestFollowShipsNewSessions(t *testing.T) {
	l := newProject(t)
	replay(t, l, "agents", "")
	r := newReceiver(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var progress syncBuffer
	done := make(chan error, 1)
	go func() {
		done <- otelship.Follow(ctx, otelship.Options{Layout: l, Endpoint: r.URL(), RetryFor: 5 * time.Second}, &progress)
	}()
	waitFor := func(n int) {
		t.Helper()
		for deadline := time.Now().Add(60 * time.Second); len(r.uniqueLogs(t)) < n; time.Sleep(50 * time.Millisecond) {
			if time.Now().After(deadline) {
				t.Fatalf("follow: %d log records after 60 s, want %d; progress: %q", len(r.uniqueLogs(t)), n, progress.String())
			}
		}
	}
	waitFor(23)
	replay(t, l, "basic", "")
	waitFor(23 + 34)
	// Logs go out first: wait for the pass to finish (its progress line).
	for deadline := time.Now().Add(60 * time.Second); !strings.Contains(progress.String(), "57 events"); time.Sleep(50 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("progress line: %q", progress.String())
		}
	}
	lines := strings.Split(progress.String(), "\r")
	if last := lines[len(lines)-1]; strings.Contains(last, "to go") {
		t.Errorf("progress line reports a backlog after everything was shipped: %q", last)
	}
	cancel()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if _, logs, _ := r.counts(); logs != 23+34 {
		t.Errorf("follow sent %d log records, want each of the 57 once", logs)
	}
	if !strings.Contains(progress.String(), "57 events") {
		t.Errorf("progress line: %q", progress.String())
	}
}
