// Package feedback owns the multi-agent feedback loop
// (docs/feedback-and-strategies.md): which domains a code change belongs to
// (configurable rules, config.go and route.go), the review → test planning
// → testing phases per domain and the result markers agents print
// (loop.go, marker.go), iteration limits and escalation from
// .claude/config/orchestration-limits.yaml, the gate that tracks changes,
// takes results and blocks Stop with the next step per domain (gate.go),
// and the read-only loader the dashboard and the export use (load.go).
// Its state lives in .spcstr/sessions/<id>/feedback-loop.json. The loop is
// off unless `feedback.enabled: true` is set in .spcstr/config.yaml.
package feedback
