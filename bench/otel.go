//go:build unix

package main

import (
	"flag"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/dylan-gluck/spcstr/internal/testshared"
	"github.com/dylan-gluck/spcstr/state"
)

var (
	otelBench  = flag.Bool("otel", true, "also measure spcstr otel's export throughput to a local OpenTelemetry Collector")
	otelEvents = flag.Int("otel-events", 100000, "events in the project spcstr otel ships")
)

// otelGoal is the export throughput goal, in events per second: a
// 100,000-event backlog (a busy week of one developer) ships in under a
// minute.
const otelGoal = 2000

// benchOtel ships a project of *otelEvents events to a local Collector
// (built by scripts/otelcol-build, receiving OTLP/HTTP, debug exporter)
// with the release-built spcstr (spcstr otel), and prints events per second.
func benchOtel(spcstr, tmp string) error {
	fmt.Println()
	fmt.Println("building the OpenTelemetry Collector (scripts/otelcol-build, cached after the first run) ...")
	out, err := exec.Command("scripts/otelcol-build").Output()
	if err != nil {
		return fmt.Errorf("scripts/otelcol-build: %w", err)
	}
	collector := strings.TrimSpace(string(out))
	root, err := newProject(filepath.Join(tmp, "otel"))
	if err != nil {
		return err
	}
	if err := synthesize(root, *otelEvents); err != nil {
		return err
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	addr := ln.Addr().String()
	ln.Close()
	cfg := filepath.Join(tmp, "otelcol.yaml")
	if err := os.WriteFile(cfg, []byte(`receivers:
  otlp:
    protocols:
      http:
        endpoint: `+addr+`
exporters:
  debug:
    verbosity: basic
service:
  telemetry:
    metrics:
      level: none
    logs:
      level: warn
  pipelines:
    traces: {receivers: [otlp], exporters: [debug]}
    logs: {receivers: [otlp], exporters: [debug]}
    metrics: {receivers: [otlp], exporters: [debug]}
`), 0o644); err != nil {
		return err
	}
	col := exec.Command(collector, "--config", cfg)
	logf, err := os.Create(filepath.Join(tmp, "otelcol.log"))
	if err != nil {
		return err
	}
	defer logf.Close()
	col.Stdout, col.Stderr = logf, logf
	if err := col.Start(); err != nil {
		return err
	}
	defer func() { _ = col.Process.Kill(); _ = col.Wait() }()
	for deadline := time.Now().Add(60 * time.Second); ; time.Sleep(100 * time.Millisecond) {
		if c, err := net.DialTimeout("tcp", addr, time.Second); err == nil {
			c.Close()
			break
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("the Collector did not listen on %s", addr)
		}
	}
	ship := func() (time.Duration, string, error) {
		t0 := time.Now()
		out, err := exec.Command(spcstr, "otel", "--dir", root, "--endpoint", "http://"+addr).CombinedOutput()
		return time.Since(t0), strings.TrimSpace(string(out)), err
	}
	d, msg, err := ship()
	if err != nil {
		return fmt.Errorf("spcstr otel: %w: %s", err, msg)
	}
	again, _, err := ship()
	if err != nil {
		return err
	}
	rate := float64(*otelEvents) / d.Seconds()
	mark := "ok"
	if rate < otelGoal {
		mark = "MISSED"
	}
	fmt.Printf("%-50s %6.0f  (goal ≥ %d)  %s (%d events in %.2f s: %s; a rerun with nothing new: %s)\n",
		"otel export to a local Collector (events/s)", rate, otelGoal, mark, *otelEvents, d.Seconds(), msg, ms(again))
	return nil
}

// synthesize writes n events straight into the project's logs: the
// captured session's events replayed as one new session after another
// (the recorder would take minutes for 100,000).
func synthesize(root string, n int) error {
	return testshared.SynthesizeLogs(state.Layout{Root: root}.LogsDir(), "bench/testdata/events.jsonl", n)
}
