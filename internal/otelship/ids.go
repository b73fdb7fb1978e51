package otelship

import (
	"crypto/sha256"
	"encoding/hex"
	"strings"

	"go.opentelemetry.io/otel/trace"
)

// Ids are derived from what the recorder logged, never drawn at random:
// shipping the same events twice produces the same trace and span ids, so
// a receiver (or a query) can drop the copies.

// traceID is a session's trace id: the session id itself when it is a
// UUID (as Claude Code's are: 32 hex digits), else a hash of it.
func traceID(session string) trace.TraceID {
	var id trace.TraceID
	if h := strings.ReplaceAll(session, "-", ""); len(h) == 32 {
		if b, err := hex.DecodeString(h); err == nil {
			copy(id[:], b)
			if id.IsValid() {
				return id
			}
		}
	}
	sum := sha256.Sum256([]byte("spcstr.trace\x00" + session))
	copy(id[:], sum[:])
	return id
}

// spanID derives a span id from the session, the kind of span and its key
// (a prompt id, a tool_use_id, an agent_id).
func spanID(session, kind, key string) trace.SpanID {
	sum := sha256.Sum256([]byte("spcstr.span\x00" + session + "\x00" + kind + "\x00" + key))
	var id trace.SpanID
	copy(id[:], sum[:])
	if !id.IsValid() {
		id[7] = 1
	}
	return id
}

// Span kinds (the kind part of spanID).
const (
	kindSession = "session"
	kindTurn    = "turn"
	kindTool    = "tool"
	kindAgent   = "agent"
)

func sessionSpan(session string) trace.SpanID { return spanID(session, kindSession, "") }
