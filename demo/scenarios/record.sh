#!/bin/sh
# Re-records the demo's bundled sessions with the real-client harness
# (e2e/harness; capture only: no hook command) and bundles them into
# demo/sessions/. Needs the Claude Code CLI (scripts/install-claude).
# Usage: demo/scenarios/record.sh
set -eu
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
out=$(mktemp -d "${TMPDIR:-/tmp}/spcstr-demo-rec.XXXXXX")
(cd "$root" && go build -o "$out/run" ./e2e/harness/run)
for s in feature background compact docs; do
	(cd "$root" && "$out/run" "$here/$s.json" "$out/$s") >"$out/$s.log" 2>&1
	python3 "$here/bundle.py" "$out/$s" "$s" "$here/../sessions"
done
echo "recorded into $here/../sessions (runs kept in $out)"
