// Package export owns session summaries: `spcstr export` turns one
// session's state.json, its entries in the shared event logs
// (.spcstr/logs/<event>.json), its decisions (.spcstr/logs/decisions.json)
// and, through Sources, its requirement status and feedback-loop history
// into a Markdown report or a JSON document with a versioned schema
// (Schema, documented in SCHEMA.md and schema.json beside this file).
//
// The event logs are shared by every session of a project and may hold
// hundreds of megabytes, so they are streamed: a file is read line by line,
// a line is kept only when its session id bytes match (checked before any
// JSON decoding), and of a kept line only the envelope (timestamp, event,
// outcome) is decoded; the payload is decoded only for the few events whose
// payload the summary needs (agent calls made inside subagents, for the
// agent tree). A log that is not in spcstr's one-entry-per-line layout
// falls back to the general streaming decoder (logs.Scan).
//
// Nothing here writes under .spcstr/: an export only reads.
package export
