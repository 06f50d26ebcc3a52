#!/bin/sh
# SPDX-License-Identifier: MIT
# The analysis core (src/) must never include curses: the report and the tests link it alone.
srcdir=${ASCPROF_SRCDIR:-.}
if grep -rlE '#include[[:space:]]*[<"](n?curses|ncursesw/)' "$srcdir/src"; then
  echo "FAIL: src/ includes curses"
  exit 1
fi
echo "PASS: src/ is free of curses"
