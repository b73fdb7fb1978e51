//go:build unix

package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/dylan-gluck/spcstr/internal/hookio"
	"github.com/dylan-gluck/spcstr/logs"
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
// with the release-built spcstr-otel, and prints events per second.
func benchOtel(tmp string) error {
	fmt.Println()
	fmt.Println("building the OpenTelemetry Collector (scripts/otelcol-build, cached after the first run) and spcstr-otel ...")
	out, err := exec.Command("scripts/otelcol-build").Output()
	if err != nil {
		return fmt.Errorf("scripts/otelcol-build: %w", err)
	}
	collector := strings.TrimSpace(string(out))
	helper := filepath.Join(tmp, "spcstr-otel")
	if err := build(helper, "./cmd/spcstr-otel"); err != nil {
		return err
	}
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
		out, err := exec.Command(helper, "--dir", root, "--endpoint", "http://"+addr).CombinedOutput()
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

// synthesize writes n events straight into the project's logs in spcstr's
// layout: the captured session's events replayed as one new session after
// another, 10 ms apart (the recorder would take minutes for 100,000).
func synthesize(root string, n int) error {
	f, err := os.Open("bench/testdata/events.jsonl")
	if err != nil {
		return err
	}
	defer f.Close()
	var events []map[string]json.RawMessage
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 4<<20)
	for sc.Scan() {
		var m map[string]json.RawMessage
		if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
			return err
		}
		events = append(events, m)
	}
	dir := filepath.Join(root, ".spcstr", "logs")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	files := map[string]*bytes.Buffer{}
	at := time.Date(2026, 11, 1, 9, 0, 0, 0, time.UTC)
	for i := range n {
		ev := events[i%len(events)]
		sid := fmt.Sprintf("%08x-0000-4000-8000-%012x", i/len(events), i/len(events))
		ev["session_id"], _ = json.Marshal(sid)
		payload, _ := json.Marshal(ev)
		var name string
		_ = json.Unmarshal(ev["hook_event_name"], &name)
		e := logs.Entry{Timestamp: at.Add(time.Duration(i) * 10 * time.Millisecond), SessionID: sid, Event: name,
			Input: payload, Outcome: &logs.Outcome{DurationMS: 1.5}}
		line, err := e.Encode()
		if err != nil {
			return err
		}
		file := hookio.SnakeName(name)
		b := files[file]
		if b == nil {
			b = bytes.NewBufferString("[\n")
			files[file] = b
		} else {
			b.WriteString(",\n")
		}
		b.Write(line)
	}
	for k, b := range files {
		b.WriteString("\n]")
		if err := os.WriteFile(filepath.Join(dir, k+".json"), b.Bytes(), 0o644); err != nil {
			return err
		}
	}
	return nil
}
