package otelship_test

import (
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/dylan-gluck/spcstr/internal/otelship"
	"github.com/dylan-gluck/spcstr/state"
)

// TestMain lets the test binary double as the shipper, so that the
// kill-and-resume test can SIGKILL a real process in the middle of a run.
func TestMain(m *testing.M) {
	if root := os.Getenv("SPCSTR_OTEL_TEST_SHIP"); root != "" {
		batch, _ := strconv.Atoi(os.Getenv("SPCSTR_OTEL_TEST_BATCH"))
		_, err := otelship.Ship(context.Background(), otelship.Options{
			Layout: state.Layout{Root: root}, Endpoint: os.Getenv("SPCSTR_OTEL_TEST_ENDPOINT"), Batch: batch,
			RetryFor: 10 * time.Second,
		})
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// collector runs a real OpenTelemetry Collector (built by
// scripts/otelcol-build, cached) with an OTLP receiver on a loopback port
// and an OTLP/HTTP exporter that forwards everything to sink. Its sending
// queue is off: the Collector answers spcstr only once sink has the data.
// It returns the Collector's OTLP/HTTP endpoint.
func collector(t *testing.T, sink *receiver) string {
	t.Helper()
	if testing.Short() {
		t.Skip("-short: the Collector tests build the OpenTelemetry Collector (scripts/otelcol-build, minutes on the first run) and run it")
	}
	out, err := exec.Command("../../scripts/otelcol-build").Output()
	if err != nil {
		var stderr string
		if ee, ok := err.(*exec.ExitError); ok {
			stderr = string(ee.Stderr)
		}
		t.Fatalf("scripts/otelcol-build: %v\n%s", err, stderr)
	}
	bin := strings.TrimSpace(string(out))
	port := freePort(t)
	cfg := fmt.Sprintf(`receivers:
  otlp:
    protocols:
      http:
        endpoint: 127.0.0.1:%d
exporters:
  otlp_http:
    endpoint: %s
    compression: none
    sending_queue:
      enabled: false
    retry_on_failure:
      enabled: false
service:
  telemetry:
    metrics:
      level: none
    logs:
      level: warn
  pipelines:
    traces:
      receivers: [otlp]
      exporters: [otlp_http]
    logs:
      receivers: [otlp]
      exporters: [otlp_http]
    metrics:
      receivers: [otlp]
      exporters: [otlp_http]
`, port, sink.URL())
	cfgPath := filepath.Join(t.TempDir(), "otelcol.yaml")
	if err := os.WriteFile(cfgPath, []byte(cfg), 0o644); err != nil {
		t.Fatal(err)
	}
	logPath := filepath.Join(t.TempDir(), "otelcol.log")
	logf, err := os.Create(logPath)
	if err != nil {
		t.Fatal(err)
	}
	p := exec.Command(bin, "--config", cfgPath)
	p.Stdout, p.Stderr = logf, logf
	if err := p.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() { _ = p.Wait(); close(done) }()
	t.Cleanup(func() {
		_ = p.Process.Signal(syscall.SIGTERM)
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			_ = p.Process.Kill()
			<-done
		}
		logf.Close()
		if t.Failed() {
			b, _ := os.ReadFile(logPath)
			t.Logf("Collector log:\n%s", b)
		}
	})
	addr := fmt.Sprintf("127.0.0.1:%d", port)
	for deadline := time.Now().Add(60 * time.Second); ; {
		if c, err := net.DialTimeout("tcp", addr, time.Second); err == nil {
			c.Close()
			break
		}
		select {
		case <-done:
			b, _ := os.ReadFile(logPath)
			t.Fatalf("the Collector exited:\n%s", b)
		default:
		}
		if time.Now().After(deadline) {
			t.Fatalf("the Collector did not listen on %s within 60 s", addr)
		}
		time.Sleep(100 * time.Millisecond)
	}
	return "http://" + addr
}

func freePort(t *testing.T) int {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port
}

// TestCollectorReceivesSessions ships two recorded sessions (an agents
// session, and one whose Bash calls a gate denied) through a real
// Collector, checks what came out of it, and that a second run adds
// nothing.
func TestCollectorReceivesSessions(t *testing.T) {
	sink := newReceiver(t)
	endpoint := collector(t, sink)
	l := newProject(t)
	agents := replay(t, l, "agents", "")
	denied := replay(t, l, "basic", "Bash")
	opt := otelship.Options{Layout: l, Endpoint: endpoint, RetryFor: 10 * time.Second}
	st, err := otelship.Ship(context.Background(), opt)
	if err != nil {
		t.Fatal(err)
	}
	if st.Decisions != 2 {
		t.Errorf("shipped %d decisions, want 2", st.Decisions)
	}
	checkAgentsTree(t, sink, l, agents)
	checkDenied(t, sink, denied)
	tokens := sink.sums("spcstr.token.usage")
	var input int64
	for k, v := range tokens {
		if strings.Contains(k, "type=input") {
			input += v
		}
	}
	if input <= 0 {
		t.Errorf("no input tokens in spcstr.token.usage: %v", tokens)
	}

	spans, records, metrics := sink.counts()
	again, err := otelship.Ship(context.Background(), opt)
	if err != nil {
		t.Fatal(err)
	}
	if again != (otelship.Stats{}) {
		t.Errorf("second run shipped %+v", again)
	}
	s2, r2, m2 := sink.counts()
	if s2 != spans || r2 != records || m2 != metrics {
		t.Errorf("second run added %d spans, %d log records, %d metrics", s2-spans, r2-records, m2-metrics)
	}
}

// TestCollectorKillAndResume SIGKILLs a shipping process midway through a
// 10,000-event project, runs it again, and checks that the Collector
// delivered every span and log record of a clean run, each exactly once
// after dedup by id (the copies a killed run resends are identical).
func TestCollectorKillAndResume(t *testing.T) {
	const events = 10000
	sink := newReceiver(t)
	endpoint := collector(t, sink)
	l := newProject(t)
	synthesize(t, l, events)

	// What a clean run sends: a copy of the project shipped in process.
	ref := newProject(t)
	synthesize(t, ref, events)
	refSink := newReceiver(t)
	ship(t, ref, refSink, otelship.Options{})
	wantSpans, wantLogs := refSink.uniqueSpans(t), refSink.uniqueLogs(t)
	if len(wantLogs) != events {
		t.Fatalf("clean run: %d log records, want %d", len(wantLogs), events)
	}

	sink.setDelay(150 * time.Millisecond)
	run := func() *exec.Cmd {
		p := exec.Command(os.Args[0], "-test.run=^$")
		p.Env = append(os.Environ(), "SPCSTR_OTEL_TEST_SHIP="+l.Root, "SPCSTR_OTEL_TEST_ENDPOINT="+endpoint, "SPCSTR_OTEL_TEST_BATCH=1000")
		return p
	}
	p := run()
	p.Stderr = os.Stderr
	if err := p.Start(); err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(2 * time.Minute); sink.received() < 7; {
		if time.Now().After(deadline) {
			t.Fatal("the shipper sent nothing within 2 minutes")
		}
		time.Sleep(20 * time.Millisecond)
	}
	if err := p.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	if err := p.Wait(); err == nil {
		t.Fatal("the shipper finished before it could be killed: make the project larger")
	}
	_, before, _ := sink.counts()
	if before == 0 || before >= events {
		t.Fatalf("killed after %d of %d log records: not midway", before, events)
	}
	sink.setDelay(0)
	if out, err := run().CombinedOutput(); err != nil {
		t.Fatalf("resumed run: %v\n%s", err, out)
	}
	gotSpans, gotLogs := sink.uniqueSpans(t), sink.uniqueLogs(t)
	for id, s := range wantSpans {
		if gotSpans[id] == nil {
			t.Errorf("span %s (%s) never arrived", id, s.Name)
		}
	}
	if len(gotSpans) != len(wantSpans) {
		t.Errorf("got %d distinct spans, want %d", len(gotSpans), len(wantSpans))
	}
	for uid := range wantLogs {
		if gotLogs[uid] == nil {
			t.Errorf("log record %s never arrived", uid)
		}
	}
	if len(gotLogs) != len(wantLogs) {
		t.Errorf("got %d distinct log records, want %d", len(gotLogs), len(wantLogs))
	}
	_, total, _ := sink.counts()
	t.Logf("killed after %d log records; %d received in all, %d resent", before, total, total-events)
}
