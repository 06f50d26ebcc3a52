#!/bin/sh
# SPDX-License-Identifier: MIT
# GC_RECORD read as the text export's "Python GC" lane (issue 38). One generated run with
# both exports; the same GC pauses planted in both: GC_RECORD rows in the Db, "GC" events
# (cat GC) on a "Python GC" process in trace_view.json. The pauses: one at the start of
# every 40th torch op, 2 ms long (inside the steps), and two before the first step. The gc rule must
# count in both readings the pauses inside the steps' span, which STEP_TIME gives
# independently of either reader, and say the same.
gen=${ASCPROF_GEN:-tools/ascprof-gen}
bin=${ASCPROF_BIN:-./ascprof-tui}
[ -x "$gen" ] && [ -x "$bin" ] || { echo "SKIP: no generator or binary"; exit 77; }
command -v sqlite3 >/dev/null 2>&1 || { echo "SKIP: no sqlite3"; exit 77; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/ascprof-dbgc-XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT INT TERM
c=$tmp/c
"$gen" --out "$c" --ranks 1 --steps 4 --ops 12 --step-marks profilerstep --export both >/dev/null || exit 1
od=$(echo "$c"/*/ASCEND_PROFILER_OUTPUT)
db=$od/ascend_pytorch_profiler_0.db
[ -f "$db" ] && [ -f "$od/trace_view.json" ] || { echo "FAIL: no export pair"; exit 1; }
sqlite3 "$db" "
  CREATE TABLE IF NOT EXISTS GC_RECORD (startNs INTEGER, endNs INTEGER, globalTid INTEGER);
  INSERT INTO GC_RECORD SELECT CAST(startNs AS INTEGER), CAST(startNs AS INTEGER) + 2000000,
    ((globalTid >> 32) + 1) << 32 | (globalTid & 4294967295) FROM PYTORCH_API WHERE rowid % 40 = 1;
  INSERT INTO GC_RECORD SELECT min(startNs) - 2000000 - 100000 * k, min(startNs) - 1990000 - 100000 * k,
    (SELECT globalTid FROM GC_RECORD LIMIT 1) FROM STEP_TIME, (SELECT 0 AS k UNION ALL SELECT 1) GROUP BY k;" || exit 1
want=$(sqlite3 "$db" "SELECT count(*) FROM GC_RECORD g, (SELECT min(startNs) s, max(endNs) e FROM STEP_TIME) t
  WHERE g.startNs < t.e AND g.endNs > t.s")
all=$(sqlite3 "$db" "SELECT count(*) FROM GC_RECORD")
# the same pauses as text events: the file's closing bracket replaced by them
sqlite3 "$db" "SELECT printf(', {\"ph\": \"M\", \"name\": \"process_name\", \"pid\": %d, \"tid\": 0,
  \"args\": {\"name\": \"Python GC\"}}', globalTid >> 32) FROM GC_RECORD LIMIT 1;
  SELECT printf(', {\"ph\": \"X\", \"name\": \"GC\", \"pid\": %d, \"tid\": %d, \"ts\": \"%d.%03d\",
  \"dur\": %d.%03d, \"cat\": \"GC\"}', globalTid >> 32, globalTid & 4294967295, startNs / 1000,
  startNs % 1000, (endNs - startNs) / 1000, (endNs - startNs) % 1000) FROM GC_RECORD;" >"$tmp/gc.json" || exit 1
sed -e '$ s/]$//' "$od/trace_view.json" >"$tmp/t.json" && cat "$tmp/gc.json" >>"$tmp/t.json" &&
  echo ']' >>"$tmp/t.json" && mv "$tmp/t.json" "$od/trace_view.json" || exit 1

fail=0
[ "$want" -ge 2 ] && [ "$all" -gt "$want" ] || { echo "FAIL: planted $all pauses, $want inside the steps"; fail=1; }
for s in text db; do
  "$bin" --no-index --report --source $s "$c" | grep 'GC events' >"$tmp/$s.gc"
  grep -q "^ *- *$want GC events in steps\|[^0-9]$want GC events in steps" "$tmp/$s.gc" || {
    echo "FAIL: $s: the gc rule does not count $want pauses in the steps:"; cat "$tmp/$s.gc"; fail=1; }
  "$bin" --no-index --summary --source $s "$c" | grep 'host-gc' >"$tmp/$s.lane"
  n=$(sed -n 's/.*: \([0-9]*\) events$/\1/p' "$tmp/$s.lane" | awk '{ n += $1 } END { print n + 0 }')
  [ "$n" -eq "$all" ] || { echo "FAIL: $s: $n events on the GC lanes, not $all"; cat "$tmp/$s.lane"; fail=1; }
done
cmp -s "$tmp/text.gc" "$tmp/db.gc" || { echo "FAIL: the gc rule differs between text and Db"; diff "$tmp/text.gc" "$tmp/db.gc"; fail=1; }
echo "GC_RECORD: $want of $all pauses in the steps, fail=$fail"
exit $fail
