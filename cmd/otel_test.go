package cmd

import (
	"os/exec"
	"slices"
	"strings"
	"testing"
)

// TestHookBinaryLinksNoOpenTelemetry guards the hook path: every package
// linked into spcstr runs its init on every hook call, so the OpenTelemetry
// SDK, protobuf and gRPC must stay in the spcstr-otel companion binary.
func TestHookBinaryLinksNoOpenTelemetry(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", "github.com/dylan-gluck/spcstr/cmd/spcstr").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	for _, pkg := range strings.Fields(string(out)) {
		for _, banned := range []string{"go.opentelemetry.io/", "google.golang.org/grpc", "google.golang.org/protobuf", "github.com/dylan-gluck/spcstr/internal/otelship"} {
			if strings.HasPrefix(pkg, banned) {
				t.Errorf("spcstr links %s: its init would run on every hook call", pkg)
			}
		}
	}
	out, err = exec.Command("go", "list", "-deps", "github.com/dylan-gluck/spcstr/cmd/spcstr-otel").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	if !strings.Contains(string(out), "go.opentelemetry.io/otel/sdk/trace\n") {
		t.Errorf("spcstr-otel does not link the OpenTelemetry SDK: this test no longer checks anything")
	}
}

// TestHookBinaryLinksNoHTTP: spcstr makes no network calls, and the HTTP and
// TLS stacks' package init (and size) would cost every hook call. easyjson's
// root package is how they came in once (internal/jsoncodec's doc). The
// backtracking regexp engine lives in spcstr-pyre for the same reason.
func TestHookBinaryLinksNoHTTP(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", "github.com/dylan-gluck/spcstr/cmd/spcstr").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	deps := strings.Fields(string(out))
	for _, pkg := range deps {
		switch pkg {
		case "net/http", "crypto/tls", "github.com/mailru/easyjson",
			"github.com/dlclark/regexp2", "github.com/dylan-gluck/spcstr/internal/pyregex": // spcstr-pyre's
			t.Errorf("spcstr links %s: its init would run on every hook call", pkg)
		}
	}
	if !slices.Contains(deps, "github.com/mailru/easyjson/jwriter") {
		t.Errorf("spcstr no longer links easyjson's writer: this test no longer checks anything")
	}
}
