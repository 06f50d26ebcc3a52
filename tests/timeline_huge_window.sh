#!/bin/sh
# SPDX-License-Identifier: MIT
# The Timeline on a window of years (issue 22): events at both ends of the time range
# that is kept, a "dur" of 95 years, args nested 200 deep. The ruler's step once
# overflowed (span x 12) and its tick loop then ran for ever at 100 % CPU; a range (v)
# on the fitted window put its ends on the ruler as offset x columns, past int64 too. The
# explorer must draw the Timeline, zoom and pan to the window's limits and back, open the
# drawer (which says what of the args it left out), mark a range, and quit: headless,
# under a timeout that only a hang reaches.
srcdir=${ASCPROF_SRCDIR:-.}
bin=${ASCPROF_BIN:-./ascprof-tui}
case $bin in /*) ;; *) bin=$(pwd)/$bin ;; esac
tmp=$(mktemp -d "${TMPDIR:-/tmp}/ascprof-hugewin-XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT INT TERM
fail() { echo "FAIL: timeline_huge_window: $*"; exit 1; }

out=$tmp/cap/w_ascend_pt/ASCEND_PROFILER_OUTPUT
mkdir -p "$out"
# every event's args nest 200 deep (the drawer reads them, and says what it left out)
deep=$(awk 'BEGIN { for (i = 0; i < 200; i++) printf "["; printf "1"; for (i = 0; i < 200; i++) printf "]" }')
cat >"$out/trace_view.json" <<JSON
[{"ph": "M", "name": "process_name", "pid": 7, "tid": 0, "args": {"name": "Python"}},
{"ph": "X", "name": "early", "pid": 7, "tid": 1, "ts": "-2999999999999999", "dur": 5, "args": {"deep": $deep, "k": "v"}},
{"ph": "X", "name": "long", "pid": 7, "tid": 1, "ts": "100.0", "dur": 2999999999999999, "args": {"deep": $deep, "k": "v"}},
{"ph": "X", "name": "late", "pid": 7, "tid": 1, "ts": "2999999999999999", "dur": 5, "args": {"deep": $deep, "k": "v"}}]
JSON
cat >"$tmp/keys" <<'KEYS'
2
:dump $OUT/1.txt
j
. Enter
:dump $OUT/2.txt
s s s s s s s s a a a a a a a a a a
:dump $OUT/3.txt
d d d d d d d d d d d d d d d d d d d d d d d d
w w w w w w w w w w w w w w w w w w w w w w w w w w w w w w w w w w w w w w w w w w w w w w w w w w w w w w w w w w w w w w
:dump $OUT/4.txt
f v j v
:dump $OUT/5.txt
q
KEYS
export TERM=xterm-256color LC_ALL=C.UTF-8 TZ=UTC
# 60 s: the whole script takes milliseconds; only a hang gets near
(cd "$tmp" && OUT=$tmp timeout 60 "$bin" --script "$tmp/keys" --size 100x30 cap >"$tmp/stdout" 2>"$tmp/stderr")
rc=$?
[ "$rc" -ne 124 ] || fail "the explorer hung (killed after 60 s)"
[ "$rc" -eq 0 ] || { cat "$tmp/stderr"; fail "the explorer exited with $rc"; }
for n in 1 2 3 4; do
  [ -s "$tmp/$n.txt" ] || fail "no screen $n"
  grep -q '^ w/s zoom' "$tmp/$n.txt" || { cat "$tmp/$n.txt"; fail "screen $n is not the Timeline"; }
done
# the ruler of the fitted window has labelled ticks (a step of 1 would print none)
sed -n 3p "$tmp/1.txt" | grep -Eq '\|-?[0-9.e+]+s' || { cat "$tmp/1.txt"; fail "no ruler ticks in seconds on the first screen"; }
# the range's end on the ruler of a window of years, and its totals said (the hint line
# gives way to the message)
[ -s "$tmp/5.txt" ] || fail "no screen 5"
sed -n 3p "$tmp/5.txt" | grep -q ']' || { cat "$tmp/5.txt"; fail "no range end on the ruler of screen 5"; }
grep -q 'range of ' "$tmp/5.txt" || { cat "$tmp/5.txt"; fail "no range message on screen 5"; }
# the drawer opened on an event with deeply nested args: the note, and the key after them
grep -q '(1 value nested more than 64 deep shown as 0)' "$tmp/2.txt" || { cat "$tmp/2.txt"; fail "the drawer lacks the depth note"; }
grep -q '^ *k: v' "$tmp/2.txt" || { cat "$tmp/2.txt"; fail "the drawer lacks the arg after the deep one"; }
# the day-long "dur" was cut, with a message naming the file and the byte offset
"$bin" --summary "$tmp/cap" >"$tmp/summary" 2>&1 || fail "--summary failed"
grep -Eq 'trace_view.json.*(byte|offset) [0-9]+.*"dur" \(2999999999999999 us\) is longer than a day; kept with duration 0' "$tmp/summary" ||
  { cat "$tmp/summary"; fail "no message for the day-long dur"; }
echo "PASS: timeline_huge_window"
exit 0
