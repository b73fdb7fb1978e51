// Package state owns a project's .spcstr/ folder layout and each session's
// state.json (docs/layout.md, docs/state.md): the schema, the rules for which
// session ids may become folder names and which folder is the project root,
// and the locked, atomic read-modify-write through which every change goes.
// Readers (the dashboard, the exporter) load state.json without locks.
package state
