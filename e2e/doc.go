// Package e2e owns the end-to-end tests that drive the real Claude Code CLI
// through the offline harness ($SPCSTR_HARNESS: the real client against a
// scripted mock of the API) with `spcstr hook` as the hook command, and check
// spcstr's state and logs against the payloads Claude Code actually sent
// (captured.jsonl). It has no code of its own outside its tests.
//
// The tests need an installed harness: set SPCSTR_HARNESS to a folder where
// `npm ci` has been run (scripts/harness-setup.sh makes one). Without it they
// fail, except under `go test -short`, where they are skipped.
package e2e
