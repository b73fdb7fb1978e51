// Package e2e owns the end-to-end tests that drive the real Claude Code CLI
// offline through the project's own harness (e2e/harness: the CLI at the
// version pinned in e2e/package.json, against a scripted mock of the
// Anthropic Messages API) with `spcstr hook` as the hook command, and check
// spcstr's state and logs against the payloads Claude Code actually sent
// (captured.jsonl). The scenarios are testdata/scenarios/*.json; those of
// testdata/continued/ run a second `claude -p --resume` of the session (a
// scenario's "then", with --fork-session for a fork) and are checked by
// TestContinued against Claude Code's figures for both runs (fork-chain.json
// by TestForkChain: a Then's own Then); testdata/cost/ holds the unknown
// model case and the status line's, which TestStatusLineInteractive runs
// in the interactive client in tmux (harness.Env.Start). It has no
// code of its own outside its tests and the harness.
//
// The tests need the CLI: scripts/install-claude installs it (npm ci into a
// cache folder), and scripts/test does everything. Without it they are
// skipped with a message saying how to run them (under scripts/test, where
// SPCSTR_E2E_REQUIRE=1, they fail instead).
//
// go test ./e2e -run TestScenarios -args -record re-records the test data
// other packages keep from these runs: recorder/testdata/captures (the
// recorder's golden inputs and part of its bundled corpus) and the
// transcripts in internal/transcript/testdata.
package e2e
