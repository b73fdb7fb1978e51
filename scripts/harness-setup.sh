#!/usr/bin/env bash
# harness-setup.sh [HARNESS_SRC [DEST]]
#
# Installs the offline Claude Code harness for the end-to-end tests (e2e/):
# copies HARNESS_SRC (default: the harness/ folder of the shared test data
# beside this repository, or beside the main checkout when run from a git worktree) to DEST (default: a
# fresh /tmp/spcstr-harness.XXXXXX), runs `npm ci` there, checks that the
# Claude Code binary starts, and prints DEST on stdout (everything else goes
# to stderr). Use it as:
#
#   export SPCSTR_HARNESS="$(scripts/harness-setup.sh)"
#   go test ./e2e/
#
# Needs npm (node >= 20), python3 and git. HARNESS_SRC may also be given as
# the environment variable SPCSTR_HARNESS_SRC.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
src="${1:-${SPCSTR_HARNESS_SRC:-}}"
if [ -z "$src" ]; then
  for cand in "$root/../shared/harness" \
              "$(dirname "$(git -C "$root" rev-parse --path-format=absolute --git-common-dir 2>/dev/null || echo /nonexistent/.git)")/../shared/harness"; do
    if [ -f "$cand/run-scenario.sh" ]; then src="$cand"; break; fi
  done
fi
if [ -z "$src" ] || [ ! -f "$src/run-scenario.sh" ] || [ ! -f "$src/package-lock.json" ]; then
  echo "harness-setup: no harness found (looked for ../shared/harness); pass its path as the first argument" >&2
  exit 2
fi
for tool in npm python3 git; do
  command -v "$tool" >/dev/null || { echo "harness-setup: $tool is required" >&2; exit 2; }
done

dest="${2:-}"
if [ -z "$dest" ]; then
  dest="$(mktemp -d /tmp/spcstr-harness.XXXXXX)"
elif [ -e "$dest" ] && [ -n "$(ls -A "$dest")" ]; then
  echo "harness-setup: $dest exists and is not empty" >&2
  exit 2
fi
mkdir -p "$dest"
src="$(cd "$src" && pwd)"
dest="$(cd "$dest" && pwd)"

echo "harness-setup: copying $src to $dest" >&2
# The shared copy is read-only; the scratch copy must be writable for npm.
tar -C "$src" --exclude=./node_modules -cf - . | tar -C "$dest" -xf -
chmod -R u+w "$dest"

echo "harness-setup: npm ci in $dest" >&2
(cd "$dest" && npm ci --no-audit --no-fund >&2)

# run-scenario.sh falls back to the platform binary when npm skipped the
# postinstall that links bin/claude.exe; check that one of them starts.
bin="$dest/node_modules/.bin/claude"
if ! "$bin" --version >/dev/null 2>&1; then
  bin=""
  for b in "$dest"/node_modules/@anthropic-ai/claude-code-linux-*/claude; do
    [ -x "$b" ] && bin="$b" && break
  done
fi
if [ -z "$bin" ]; then
  echo "harness-setup: npm ci finished but no runnable claude binary was installed" >&2
  exit 1
fi
echo "harness-setup: $("$bin" --version 2>&1 | head -1)" >&2
echo "$dest"
