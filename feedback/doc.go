// Package feedback owns seed 002's multi-agent feedback loop as
// ../shared/SPEC.md §6 fixes it: which domains a code change belongs to,
// the review → test planning → testing phases per domain, the result
// markers agents print, iteration limits and escalation, and the Stop gate
// that enforces them. Its state lives in
// .spcstr/sessions/<id>/feedback-loop.json.
package feedback
