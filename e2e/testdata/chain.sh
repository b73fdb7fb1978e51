#!/usr/bin/env bash
# chain.sh SPCSTR RUNS_DIR HELPER [ARG...]
#
# HOOK_COMMAND for the harness scenarios that ship their own helper hook
# (stop-block, permissions): runs `SPCSTR hook` and then HELPER on the same
# stdin, as two hooks registered for one event would. Claude Code sees only
# the helper's answer and exit code (that is what the scenario is about);
# spcstr's stdin, exit code, stdout and stderr are kept as
# RUNS_DIR/hook.XXXXXXXX{,.rc,.out,.err} so the test can check that spcstr
# ran for every event, exited 0 and printed nothing.
set -u
spcstr=$1 runs=$2
shift 2
mkdir -p "$runs"
base=$(mktemp "$runs/hook.XXXXXXXX") || exit 1
cat >"$base"
"$spcstr" hook <"$base" >"$base.out" 2>"$base.err"
echo $? >"$base.rc"
exec "$@" <"$base"
