package otelship_test

import (
	"compress/gzip"
	"encoding/hex"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"sync"
	"testing"
	"time"

	collogs "go.opentelemetry.io/proto/otlp/collector/logs/v1"
	colmetrics "go.opentelemetry.io/proto/otlp/collector/metrics/v1"
	coltrace "go.opentelemetry.io/proto/otlp/collector/trace/v1"
	commonpb "go.opentelemetry.io/proto/otlp/common/v1"
	logspb "go.opentelemetry.io/proto/otlp/logs/v1"
	metricspb "go.opentelemetry.io/proto/otlp/metrics/v1"
	tracepb "go.opentelemetry.io/proto/otlp/trace/v1"
	"google.golang.org/protobuf/proto"
)

// receiver is an OTLP/HTTP (protobuf) endpoint that keeps everything it
// is sent. The unit tests ship to it directly; the Collector test has the
// Collector forward to it what it received.
type receiver struct {
	srv *httptest.Server
	mu  sync.Mutex
	// Every span, log record and metric data point received, copies
	// included: the dedup views below are what the tests assert on.
	spans   []*tracepb.Span
	logs    []*logspb.LogRecord
	metrics []*metricspb.Metric
	// fail makes the endpoint answer 503 while set.
	fail     bool
	requests int
	// headers are the last request's headers; resources every resource's
	// attributes.
	headers   http.Header
	resources [][]*commonpb.KeyValue
	// delay slows every answer down (so that a run can be killed midway).
	delay time.Duration
}

func newReceiver(t testing.TB) *receiver {
	r := &receiver{}
	r.srv = httptest.NewServer(http.HandlerFunc(r.handle))
	t.Cleanup(r.srv.Close)
	return r
}

func (r *receiver) URL() string { return r.srv.URL }

func (r *receiver) setDelay(d time.Duration) {
	r.mu.Lock()
	r.delay = d
	r.mu.Unlock()
}

func (r *receiver) received() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.requests
}

func (r *receiver) setFail(b bool) {
	r.mu.Lock()
	r.fail = b
	r.mu.Unlock()
}

func (r *receiver) handle(w http.ResponseWriter, req *http.Request) {
	r.mu.Lock()
	r.requests++
	fail, delay := r.fail, r.delay
	r.mu.Unlock()
	time.Sleep(delay)
	if fail {
		http.Error(w, "unavailable", http.StatusServiceUnavailable)
		return
	}
	var body io.Reader = req.Body
	if req.Header.Get("Content-Encoding") == "gzip" {
		gz, err := gzip.NewReader(req.Body)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		body = gz
	}
	data, err := io.ReadAll(body)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.headers = req.Header.Clone()
	var resp proto.Message
	switch req.URL.Path {
	case "/v1/traces":
		var m coltrace.ExportTraceServiceRequest
		if err = proto.Unmarshal(data, &m); err == nil {
			for _, rs := range m.ResourceSpans {
				r.resources = append(r.resources, rs.GetResource().GetAttributes())
				for _, ss := range rs.ScopeSpans {
					r.spans = append(r.spans, ss.Spans...)
				}
			}
		}
		resp = &coltrace.ExportTraceServiceResponse{}
	case "/v1/logs":
		var m collogs.ExportLogsServiceRequest
		if err = proto.Unmarshal(data, &m); err == nil {
			for _, rl := range m.ResourceLogs {
				for _, sl := range rl.ScopeLogs {
					r.logs = append(r.logs, sl.LogRecords...)
				}
			}
		}
		resp = &collogs.ExportLogsServiceResponse{}
	case "/v1/metrics":
		var m colmetrics.ExportMetricsServiceRequest
		if err = proto.Unmarshal(data, &m); err == nil {
			for _, rm := range m.ResourceMetrics {
				for _, sm := range rm.ScopeMetrics {
					r.metrics = append(r.metrics, sm.Metrics...)
				}
			}
		}
		resp = &colmetrics.ExportMetricsServiceResponse{}
	default:
		http.NotFound(w, req)
		return
	}
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	out, _ := proto.Marshal(resp)
	w.Header().Set("Content-Type", "application/x-protobuf")
	_, _ = w.Write(out)
}

// uniqueSpans dedups by span id: the receiver-side dedup spcstr's
// deterministic ids allow. It fails the test when two copies of one span
// differ (a resent span must be the same span).
func (r *receiver) uniqueSpans(t testing.TB) map[string]*tracepb.Span {
	t.Helper()
	r.mu.Lock()
	defer r.mu.Unlock()
	out := map[string]*tracepb.Span{}
	for _, s := range r.spans {
		id := hex.EncodeToString(s.SpanId)
		if prev, ok := out[id]; ok {
			if !proto.Equal(prev, s) {
				t.Errorf("span %s (%s) received twice with different content", id, s.Name)
			}
			continue
		}
		out[id] = s
	}
	return out
}

// uniqueLogs dedups by the log.record.uid attribute.
func (r *receiver) uniqueLogs(t testing.TB) map[string]*logspb.LogRecord {
	t.Helper()
	r.mu.Lock()
	defer r.mu.Unlock()
	out := map[string]*logspb.LogRecord{}
	for _, l := range r.logs {
		uid := attr(l.Attributes, "log.record.uid")
		if uid == "" {
			t.Errorf("log record without log.record.uid: %v", l)
			continue
		}
		if prev, ok := out[uid]; ok {
			if !proto.Equal(prev, l) {
				t.Errorf("log record %s received twice with different content", uid)
			}
			continue
		}
		out[uid] = l
	}
	return out
}

func (r *receiver) counts() (spans, logs, metrics int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.spans), len(r.logs), len(r.metrics)
}

// sums returns the latest value of each data point of a cumulative sum,
// keyed by its attributes.
func (r *receiver) sums(name string) map[string]int64 {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := map[string]int64{}
	for _, m := range r.metrics {
		if m.Name != name || m.GetSum() == nil {
			continue
		}
		for _, dp := range m.GetSum().DataPoints {
			out[attrKey(dp.Attributes)] = dp.GetAsInt()
		}
	}
	return out
}

func attr(kvs []*commonpb.KeyValue, key string) string {
	for _, kv := range kvs {
		if kv.Key == key {
			switch v := kv.Value.Value.(type) {
			case *commonpb.AnyValue_StringValue:
				return v.StringValue
			case *commonpb.AnyValue_BoolValue:
				if v.BoolValue {
					return "true"
				}
				return "false"
			case *commonpb.AnyValue_IntValue:
				return strconv.FormatInt(v.IntValue, 10)
			}
		}
	}
	return ""
}

// attrKey renders the attributes the metric tests look at.
func attrKey(kvs []*commonpb.KeyValue) string {
	s := ""
	for _, k := range []string{"type", "tool_name", "outcome", "source", "decision", "hook", "model"} {
		if v := attr(kvs, k); v != "" {
			s += k + "=" + v + " "
		}
	}
	return s
}
