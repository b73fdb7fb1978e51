#!/bin/sh
# Re-records the demo's bundled sessions with the real-client harness
# (capture only: no hook command) and bundles them into demo/sessions/.
# Usage: demo/scenarios/record.sh [HARNESS_DIR]   (default /work/harness)
set -eu
here=$(cd "$(dirname "$0")" && pwd)
harness=${1:-/work/harness}
out=$(mktemp -d /tmp/spcstr-demo-rec.XXXXXX)
for s in feature background compact docs; do
	"$harness/run-scenario.sh" "$here/$s.json" "" "$out/$s" >"$out/$s.log" 2>&1
	python3 "$here/bundle.py" "$out/$s" "$s" "$here/../sessions"
done
echo "recorded into $here/../sessions (runs kept in $out)"
