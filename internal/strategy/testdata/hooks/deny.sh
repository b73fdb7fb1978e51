#!/bin/sh
# Denies a Bash call whose command mentions --force (reads the payload).
if grep -q -- '--force' ; then
  echo "no force pushes here" >&2
  exit 2
fi
exit 0
