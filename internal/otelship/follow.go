package otelship

import (
	"context"
	"fmt"
	"io"
	"time"

	"github.com/fsnotify/fsnotify"

	"github.com/dylan-gluck/spcstr/internal/otelcursor"
	"github.com/dylan-gluck/spcstr/internal/termtext"
)

// MinInterval is the shortest time between two passes of Follow: it never
// polls faster than this, however busy the logs are.
const MinInterval = time.Second

// FollowSettle is how long Follow leaves a new entry before shipping it, so
// that the decisions the hook writes right after an event go with it.
const FollowSettle = 2 * time.Second

// Follow ships what is new, then keeps shipping as the logs change (it
// watches .spcstr/logs; with no change it still looks every 30 s), until
// ctx is done. It writes a progress line to progress (rewritten in place)
// and retries a failed pass with a growing delay, up to a minute.
func Follow(ctx context.Context, opt Options, progress io.Writer) error {
	if !opt.Layout.Exists() {
		return ErrNoProject
	}
	if opt.Settle <= 0 {
		opt.Settle = FollowSettle
	}
	w, err := fsnotify.NewWatcher()
	if err != nil {
		return fmt.Errorf("watch logs: %w", err)
	}
	defer w.Close()
	if err := w.Add(opt.Layout.LogsDir()); err != nil {
		return fmt.Errorf("watch %s: %w", opt.Layout.LogsDir(), err)
	}
	var total Stats
	backoff := time.Duration(0)
	for {
		st, err := Ship(ctx, opt)
		total.add(st)
		status := ""
		if err != nil {
			if ctx.Err() != nil {
				return nil
			}
			backoff = min(max(2*backoff, 2*time.Second), time.Minute)
			status = fmt.Sprintf(" · failed, retrying in %s: %s", backoff, termtext.Strip(err.Error()))
		} else {
			backoff = 0
		}
		behind := ""
		if cur, cerr := otelcursor.Load(opt.Layout); cerr == nil {
			if b, _, berr := otelcursor.Behind(opt.Layout, cur); berr == nil && b > 0 {
				behind = fmt.Sprintf(" · %d bytes to go", b)
			}
		}
		fmt.Fprintf(progress, "\rspcstr otel → %s: %d events, %d decisions shipped (%d spans, %d log records)%s%s\x1b[K",
			opt.Endpoint, total.Events, total.Decisions, total.Spans, total.LogRecords, behind, status)
		wait := MinInterval
		if backoff > 0 {
			wait = backoff
		}
		// Pace: at most one pass per MinInterval (or the backoff), then
		// wait for a change; a pending settle window is rechecked.
		select {
		case <-ctx.Done():
			fmt.Fprintln(progress)
			return nil
		case <-time.After(wait):
		}
		if err == nil && behind == "" {
			if !waitChange(ctx, w, 30*time.Second) {
				fmt.Fprintln(progress)
				return nil
			}
		}
	}
}

// waitChange waits for a write in the logs folder, or for timeout. It
// returns false when ctx is done.
func waitChange(ctx context.Context, w *fsnotify.Watcher, timeout time.Duration) bool {
	t := time.NewTimer(timeout)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return false
		case <-t.C:
			return true
		case ev, ok := <-w.Events:
			if !ok {
				return true
			}
			if ev.Op&(fsnotify.Write|fsnotify.Create|fsnotify.Rename) != 0 {
				return true
			}
		case err := <-w.Errors:
			_ = err // a watch error: a pass, which reads the logs themselves, is due
			return true
		}
	}
}
