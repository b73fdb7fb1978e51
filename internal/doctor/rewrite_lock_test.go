package doctor

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/dylan-gluck/spcstr/logs"
)

// doctor --fix's rewrite of an observability log takes the lock the
// appenders take: with hooks appending throughout, no line is lost.
func TestDropTornLinesLosesNoConcurrentLine(t *testing.T) {
	dir := filepath.Join(t.TempDir(), ".spcstr", "sessions", "s-1")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, logs.ObservabilityFile)
	const writers, each = 4, 150
	var wg sync.WaitGroup
	errs := make(chan error, writers+2)
	for w := range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range each {
				if err := logs.AppendLines(path, fmt.Appendf(nil, `{"w":%d,"i":%d}`+"\n", w, i)); err != nil {
					errs <- err
					return
				}
				if i%10 == 0 { // a torn line for the fix to drop
					if err := logs.AppendLines(path, []byte("{torn\n")); err != nil {
						errs <- err
						return
					}
				}
			}
		}()
	}
	done := make(chan struct{})
	appended := stop(&wg)
	fixes := 0
	go func() {
		defer close(done)
		for {
			select {
			case <-errs:
				return
			default:
			}
			if _, err := DropTornLines(path); err != nil && !os.IsNotExist(err) {
				errs <- err
				return
			}
			fixes++
			select {
			case <-appended:
				return
			default:
			}
		}
	}()
	wg.Wait()
	<-done
	select {
	case err := <-errs:
		t.Fatal(err)
	default:
	}
	if _, err := DropTornLines(path); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for _, line := range bytes.Split(bytes.TrimSuffix(data, []byte("\n")), []byte("\n")) {
		if !json.Valid(line) {
			t.Fatalf("a torn line left after the last fix: %q", line)
		}
		seen[string(line)] = true
	}
	if len(seen) != writers*each {
		t.Fatalf("%d distinct lines after %d fixes under %d appenders, want %d: lines were lost", len(seen), fixes, writers, writers*each)
	}
	if fixes < 2 {
		t.Logf("only %d fixes ran beside the appenders", fixes)
	}
}

// stop is a channel closed once wg is done.
func stop(wg *sync.WaitGroup) <-chan struct{} {
	c := make(chan struct{})
	go func() { wg.Wait(); close(c) }()
	return c
}
