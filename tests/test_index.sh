#!/bin/sh
# SPDX-License-Identifier: MIT
# The persistent trace index (src/load/trace_index.c), through the binary:
# - a reopen maps the index ("index: used") and its reports (text and JSON) are byte for
#   byte those of a first open without an index: on a generated capture of two ranks, the
#   demo, a trace cut short (its loader's message given again), and real fixtures (torch_npu levels 0 and 1, a small trace_view.json, msprof of a vLLM run);
# - CSV tables have indexes of their own (every table here: ASCPROF_INDEX_CSV_MIN_BYTES=0):
#   a table edited in place to the same size is read afresh, the others still used;
# - a trace edited in place to the same size is read afresh (the index is rebuilt, the
#   report is the edited trace's), even with its mtime put back;
# - a corrupt index (a flipped byte, a cut-short file) is detected by its checksums and
#   rebuilt with a message; the analysis' index (analysis_index.h) too, its message in the report;
# - captures without a text trace (real Db exports, the CSV-only level2 capture, damaged
#   tables, a generated Db export): reports byte-identical through the tables' and the
#   analysis' indexes;
# - the explorer: every screen test gives its screens with --no-index, writing an index and
#   reading it; on a generated capture the screens of a reopen (the analysis, the classes and
#   the timeline index from the index) are byte for byte those of --no-index; a corrupt or
#   stale analysis index is made again;
# - the writes come after the result: a first --summary says "written after this output"
#   (text and JSON) and the next open uses them; a report read by head (SIGPIPE) still
#   leaves them written, its exit status SIGPIPE's as without an index; --digest writes
#   them after its digests; the explorer on its loader's thread after publication (timed);
# - two opens at once both succeed with the right report and leave one whole index;
# - a cache directory that cannot be written: the tool works, without an index, and says why;
# - --no-index neither reads nor writes; --max-trace-bytes refuses a trace as without an index;
# - the cache is bounded: past the limit the least recently used index goes (ASCPROF_INDEX_MAX_BYTES).
# Everything is written under a temporary directory; the fixtures are only read.
gen=${ASCPROF_GEN:-tools/ascprof-gen}
bin=${ASCPROF_BIN:-./ascprof-tui}
srcdir=${ASCPROF_SRCDIR:-.}
shared=${ASCPROF_SHARED:-$srcdir/../shared}
[ -x "$gen" ] && [ -x "$bin" ] || { echo "SKIP: no generator or binary"; exit 77; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/ascprof-index-XXXXXX") || exit 1
trap 'chmod -R u+w "$tmp" 2>/dev/null; rm -rf "$tmp"' EXIT INT TERM
idx=$tmp/idx
fail=0 passed=0
bad() { echo "FAIL: $*"; fail=$((fail + 1)); }
ok() { passed=$((passed + 1)); }

# the index state the text summary gives for the first rank with a trace
state() { # capture, index options...
  c=$1
  shift
  "$bin" --summary "$@" "$c" 2>"$tmp/state.err" | sed -n 's/^  index: \([a-z ]*\).*/\1/p' | head -n 1 | sed 's/,$//'
}

# reports of a first open without an index, of an open writing it and of one reading it
same_report_bytes() { # name, capture
  name=$1 c=$2
  rm -rf "$idx"
  for mode in "--report" "--report --json"; do
    # shellcheck disable=SC2086 # the mode is one or two words
    "$bin" $mode --no-index "$c" >"$tmp/plain" 2>/dev/null
    # shellcheck disable=SC2086
    "$bin" $mode --index-dir "$idx" "$c" >"$tmp/first" 2>/dev/null
    # shellcheck disable=SC2086
    "$bin" $mode --index-dir "$idx" "$c" >"$tmp/again" 2>/dev/null
    if [ ! -s "$tmp/plain" ] || ! cmp -s "$tmp/plain" "$tmp/first" || ! cmp -s "$tmp/plain" "$tmp/again"; then
      bad "$name: $mode differs with the index"
      diff "$tmp/plain" "$tmp/again" | head -n 20
    else
      ok
    fi
  done
}

# the same, and a reopen uses the trace's index
same_reports() { # name, capture
  same_report_bytes "$@"
  st=$(state "$c" --index-dir "$idx")
  if [ "$st" = used ]; then ok; else bad "$name: a reopen says index '$st', not used"; fi
}

cap=$tmp/cap
"$gen" --out "$cap" --ranks 2 --ops 30 --steps 4 --prefill 1 >/dev/null || exit 1
same_reports generated "$cap"
same_reports demo "$srcdir/fixtures/demo"

# the writes come after the output: a first --summary says so (no size yet), the next uses them
rm -rf "$idx"
"$bin" --summary --index-dir "$idx" "$cap" >"$tmp/sum" 2>"$tmp/sum.err"
ntab=$(($(find "$cap" -name '*.csv' | wc -l) / 2)) # per rank (every table has an index here)
n=$(grep -c "^  index: written after this output; tables: $ntab written ($ntab of them after this output)\$" "$tmp/sum")
[ "$n" -eq 2 ] && [ ! -s "$tmp/sum.err" ] && ok || { bad "a first --summary: $n ranks say their writes come after it"; grep index: "$tmp/sum"; cat "$tmp/sum.err"; }
[ "$(state "$cap" --index-dir "$idx")" = used ] && ok || bad "after a first --summary: the index is not used"
rm -rf "$idx"
"$bin" --summary --json --index-dir "$idx" "$cap" >"$tmp/sum.json" 2>/dev/null
n=$(grep -c '"deferred": true' "$tmp/sum.json")
k=$(grep -c "\"tables_deferred\": $ntab," "$tmp/sum.json")
[ "$n" -eq 2 ] && [ "$k" -eq 2 ] && ok || bad "a first --summary --json: $n ranks with deferred writes, $k with their tables', not 2"
"$bin" --summary --json --index-dir "$idx" "$cap" >"$tmp/sum.json" 2>/dev/null
n=$(grep -c '"deferred": false' "$tmp/sum.json")
[ "$n" -eq 2 ] && ok || bad "a second --summary --json: $n ranks without deferred writes, not 2"
# a reader that stops early (head): the indexes are still written, and the exit is SIGPIPE's
# as without them (a JSON report of 200 KB, more than a pipe holds)
big=$tmp/big
"$gen" --out "$big" --ranks 4 --ops 300 --steps 4 >/dev/null || exit 1
rm -rf "$idx"
( "$bin" --report --json --no-index "$big"; echo $? >"$tmp/rc0" ) | head -c 10 >/dev/null
( "$bin" --report --json --index-dir "$idx" "$big"; echo $? >"$tmp/rc1" ) | head -c 10 >/dev/null
[ "$(cat "$tmp/rc0")" = 141 ] && [ "$(cat "$tmp/rc1")" = 141 ] && ok ||
  bad "a report read by head: exit $(cat "$tmp/rc1") with the index, $(cat "$tmp/rc0") without (not SIGPIPE's 141)"
[ "$(state "$big" --index-dir "$idx")" = used ] && ok || bad "a report read by head: no trace index written"
grep -l -a -x 'analysis.*' "$idx"/*.idx >/dev/null 2>&1 && ok || bad "a report read by head: no analysis index"
# --digest writes the capture's indexes after its digests
rm -rf "$idx"
"$bin" --digest "$tmp/digests" --index-dir "$idx" "$cap" >/dev/null 2>&1 || bad "--digest: exit status"
[ "$(state "$cap" --index-dir "$idx")" = used ] && ok || bad "--digest wrote no index"
# a trace cut short: its loader's message comes back from the index, in its place
cut=$tmp/cut
"$gen" --out "$cut" --ranks 1 --ops 30 --steps 4 >/dev/null || exit 1
t=$(find "$cut" -name trace_view.json)
head -c $(($(wc -c <"$t") * 2 / 3)) "$t" >"$tmp/part"
cat "$tmp/part" >"$t"
same_reports "a cut trace" "$cut"
"$bin" --report --index-dir "$idx" "$cut" 2>&1 | grep -q 'the file is cut short' && ok ||
  bad "a cut trace: no message from the index"
# a Db export: its trace has no index, its analysis has
dbc=$tmp/dbc
if "$gen" --out "$dbc" --ranks 2 --ops 30 --steps 4 --comm --memory --export db >/dev/null 2>&1; then
  rm -rf "$idx"
  for mode in "--report" "--report --json"; do
    # shellcheck disable=SC2086
    "$bin" $mode --no-index "$dbc" >"$tmp/plain" 2>/dev/null
    # shellcheck disable=SC2086
    "$bin" $mode --index-dir "$idx" "$dbc" >"$tmp/first" 2>/dev/null
    # shellcheck disable=SC2086
    "$bin" $mode --index-dir "$idx" "$dbc" >"$tmp/again" 2>/dev/null
    if [ -s "$tmp/plain" ] && cmp -s "$tmp/plain" "$tmp/first" && cmp -s "$tmp/plain" "$tmp/again"; then ok; else
      bad "Db export: $mode differs with the index"
      diff "$tmp/plain" "$tmp/again" | head -n 20
    fi
  done
  [ -n "$(grep -l -a -x 'analysis.*' "$idx"/*.idx)" ] && ok || bad "Db export: no analysis index"
else
  bad "the generator cannot write a Db export"
fi
real=$shared/fixtures-real
if [ -d "$real" ]; then
  for f in msinsight/test/data/pytorch/text/level0 msinsight/test/data/pytorch/text/level1 \
    msinsight/server/src/test/test_data/heatMap vllm-ascend/prof_unpack/PROF_GROUP_20260823_165254/PROF_Memory; do
    [ -d "$real/$f" ] && same_reports "$f" "$real/$f"
  done
  # no trace or no text trace: the tables' and the analysis' indexes only (Db exports, the
  # CSV-only level2 capture, damaged tables beside a cluster_analysis_output)
  for f in msinsight/test/data/pytorch/db/level0 msinsight/server/src/test/test_data/full_db \
    msinsight/test/st/level2 msinsight/server/src/test/test_data; do
    [ -d "$real/$f" ] && same_report_bytes "$f" "$real/$f"
  done
else
  echo "note: no $real; the real fixtures are not compared"
fi

# an edit in place to the same size, the mtime put back: ctime still tells
trace=$(find "$cap" -name trace_view.json | LC_ALL=C sort | head -n 1)
grep -q '"RmsNorm"' "$trace" || bad "no RmsNorm kernel in $trace to edit"
rm -rf "$idx"
"$bin" --report --index-dir "$idx" "$cap" >/dev/null 2>&1
size0=$(wc -c <"$trace")
touch -r "$trace" "$tmp/stamp"
# a kernel renamed, same length, written over the same file (same inode)
sed 's/"RmsNorm"/"XmsNorm"/g' "$trace" >"$tmp/edited"
cat "$tmp/edited" >"$trace"
touch -r "$tmp/stamp" "$trace"
[ "$(wc -c <"$trace")" -eq "$size0" ] || bad "the edit changed the trace's size"
"$bin" --summary --index-dir "$idx" "$cap" >"$tmp/sum" 2>&1
n=$(grep -c 'index: rebuilt' "$tmp/sum")
u=$(grep -c 'index: used' "$tmp/sum")
[ "$n" -eq 1 ] && [ "$u" -eq 1 ] && ok || bad "an edited trace: $n ranks rebuilt (not 1), $u used (not 1)"
"$bin" --report --json --no-index "$cap" >"$tmp/plain" 2>/dev/null
"$bin" --report --json --index-dir "$idx" "$cap" >"$tmp/again" 2>/dev/null
if cmp -s "$tmp/plain" "$tmp/again" && grep -q XmsNorm "$tmp/again"; then ok; else bad "an edited trace: the report is not the edited one"; fi

# a CSV table edited in place to the same size: its index is rebuilt, the others used,
# and the report is the edited table's (op_statistic's totals beside the trace's)
csv=$(find "$cap" -name op_statistic.csv | LC_ALL=C sort | head -n 1)
if [ -n "$csv" ]; then
  "$bin" --report --index-dir "$idx" "$cap" >/dev/null 2>&1
  touch -r "$csv" "$tmp/stamp"
  sed '2s/^\([^,]*\),\([^,]*\),\([0-9]\)/\1,\2,9/' "$csv" >"$tmp/edited"
  cmp -s "$csv" "$tmp/edited" && bad "the op_statistic.csv edit changed nothing"
  cat "$tmp/edited" >"$csv"
  touch -r "$tmp/stamp" "$csv"
  "$bin" --summary --index-dir "$idx" "$cap" >"$tmp/sum" 2>&1
  grep -q 'index: used.*tables:.* 1 rebuilt' "$tmp/sum" && ok || { bad "an edited table: no rebuilt table"; grep index: "$tmp/sum"; }
  "$bin" --report --json --no-index "$cap" >"$tmp/plain" 2>/dev/null
  "$bin" --report --json --index-dir "$idx" "$cap" >"$tmp/again" 2>/dev/null
  cmp -s "$tmp/plain" "$tmp/again" && ok || bad "an edited table: the report is not the edited one"
  "$bin" --summary --index-dir "$idx" "$cap" >"$tmp/sum" 2>&1
  grep -q 'index: used.*tables: [0-9]* used$' "$tmp/sum" && ok || { bad "after an edited table: not every table used"; grep index: "$tmp/sum"; }
fi

# a corrupt index: a byte flipped in its payload, then one cut short
for how in flip cut; do
  # the largest trace index (a line of its key names its kind)
  # shellcheck disable=SC2046 # index names have no spaces
  one=$(ls -S $(grep -l -a -x trace "$idx"/*.idx) | head -n 1)
  sz=$(wc -c <"$one")
  if [ $how = flip ]; then
    at=$((sz / 2))
    byte=$(od -An -tu1 -j "$at" -N1 "$one" | tr -d ' ')
    printf "$(printf '\\%03o' $(((byte + 1) % 256)))" | dd of="$one" bs=1 seek="$at" conv=notrunc 2>/dev/null
  else
    truncate -s $((sz - 100)) "$one"
  fi
  "$bin" --summary --index-dir "$idx" "$cap" >"$tmp/sum" 2>&1
  if grep -q 'index: rebuilt' "$tmp/sum" && grep -q -E 'fails its checksum|cut short' "$tmp/sum"; then
    ok
  else
    bad "a corrupt index ($how) was not rebuilt with a message"
    grep -i index "$tmp/sum"
  fi
  st=$(state "$cap" --index-dir "$idx")
  if [ "$st" = used ]; then ok; else bad "after rebuilding ($how): index '$st', not used"; fi
done

# the analysis' index: a byte flipped in it is found, said, and the analysis made again;
# the next report is the plain one again
"$bin" --report --no-index "$cap" >"$tmp/plain" 2>/dev/null
"$bin" --report --index-dir "$idx" "$cap" >/dev/null 2>&1
one=$(grep -l -a -x 'analysis.*' "$idx"/*.idx | head -n 1)
if [ -n "$one" ]; then
  at=$(($(wc -c <"$one") - 20))
  printf 'Z' | dd of="$one" bs=1 seek="$at" conv=notrunc 2>/dev/null
  "$bin" --report --index-dir "$idx" "$cap" >"$tmp/c1" 2>/dev/null
  grep -q 'fails its checksum; the analysis is made again and its index rebuilt' "$tmp/c1" && ok ||
    bad "a corrupt analysis index: no message in the report"
  # named as the capture's, not as its first file's (issue 41, item 11: api_statistic.csv)
  if grep 'the analysis is made again' "$tmp/c1" | grep -q '\.csv:'; then
    bad "the analysis index's message names one CSV file: $(grep 'the analysis is made again' "$tmp/c1")"
  else
    ok
  fi
  "$bin" --report --index-dir "$idx" "$cap" >"$tmp/c2" 2>/dev/null
  cmp -s "$tmp/plain" "$tmp/c2" && ok || bad "after a corrupt analysis index: the report differs"
else
  bad "no analysis index was written"
fi

# the explorer through the index: every screen test with --no-index and twice with an index
# (the first open writes it, the others read it) must give the expected screens
for sargs in "--no-index" "--index-dir $tmp/sidx" "--index-dir $tmp/sidx"; do
  if ASCPROF_SCREENS_ARGS="$sargs" sh "$srcdir/tests/test_screens.sh" >"$tmp/screens.log" 2>&1; then
    ok
  else
    bad "screen tests with $sargs:"
    grep -E 'FAIL|^[-+][^-+]' "$tmp/screens.log" | head -n 20
  fi
done

# and a generated capture (memory tables, advice, two ranks) opened by the explorer: the
# demo's screen scripts give byte for byte the screens of --no-index on a first open and
# on a reopen, which reads the analysis from the index (the bench figures say); a corrupt
# or stale analysis index is made again, the screens the same
ecap=$tmp/ecap
"$gen" --out "$ecap" --ranks 2 --ops 30 --steps 4 --prefill 1 --memory >/dev/null || exit 1
scripts="bottleneck comm memory ops ops_group overview ranks steps timeline"
explore() { # outdir, explorer options...
  o=$1
  shift
  mkdir -p "$o"
  for k in $scripts; do
    if ! OUT=$o ASCPROF_BENCH_OUT=$o/$k.bench TERM=xterm-256color LC_ALL=C.UTF-8 TZ=UTC \
         "$bin" --script "$srcdir/tests/screens/$k.keys" --size 100x30 "$@" "$ecap" >/dev/null 2>"$o/$k.err"; then
      bad "explorer $k $*: exit status"
      head -n 5 "$o/$k.err"
    fi
  done
}
same_screens() { # name, outdir, the state every run's analysis index must have
  n=0
  for f in "$tmp/xe0"/*.txt; do
    n=$((n + 1))
    cmp -s "$f" "$2/$(basename "$f")" || { bad "$1: $(basename "$f") differs"; diff "$f" "$2/$(basename "$f")" | head -n 10; }
  done
  [ "$n" -ge 9 ] && ok || bad "$1: only $n screens"
  got=$(cat "$2"/*.bench | sed -n 's/^analysis_index //p' | sort -u | tr '\n' ' ')
  [ "$got" = "$3 " ] && ok || bad "$1: analysis index '$got', not '$3'"
  if [ -n "${4:-}" ]; then
    got=$(cat "$2"/*.bench | sed -n 's/^timeline_index //p' | sort -u | tr '\n' ' ')
    [ "$got" = "$4 " ] && ok || bad "$1: timeline index '$got', not '$4'"
  fi
}
eidx=$tmp/eidx
explore "$tmp/xe0" --no-index
OUT=$tmp/xe1 ASCPROF_BENCH_OUT=$tmp/xe1.bench TERM=xterm-256color "$bin" --script "$srcdir/tests/screens/overview.keys" \
  --size 100x30 --index-dir "$eidx" "$ecap" >/dev/null 2>&1
grep -qx 'analysis_index written' "$tmp/xe1.bench" && ok || bad "explorer: the first open wrote no analysis index"
grep -qx 'timeline_index written' "$tmp/xe1.bench" && ok || bad "explorer: the first open wrote no timeline index"
# written after publication, on the loader's thread; quitting waits for them (q)
grep -qx 'index_write_ms [0-9.]*' "$tmp/xe1.bench" && ok || bad "explorer: no deferred index writes timed"
explore "$tmp/xe2" --index-dir "$eidx"
same_screens "explorer reopen" "$tmp/xe2" used used
# the timeline index (classes and per-lane index, mapped in place): a byte flipped in its
# payload is caught by its checksum and the index built again, the screens the same
tl=$(grep -l -a -x 'timeline.*' "$eidx"/*.idx | head -n 1)
if [ -n "$tl" ]; then
  at=$(($(wc -c <"$tl") / 2))
  printf 'Z' | dd of="$tl" bs=1 seek="$at" conv=notrunc 2>/dev/null
  mkdir -p "$tmp/xt0"
  OUT=$tmp/xt0 ASCPROF_BENCH_OUT=$tmp/xt0.bench TERM=xterm-256color LC_ALL=C.UTF-8 TZ=UTC "$bin" \
    --script "$srcdir/tests/screens/timeline.keys" --size 100x30 --index-dir "$eidx" "$ecap" >/dev/null 2>&1
  grep -qx 'timeline_index rebuilt' "$tmp/xt0.bench" && ok || bad "explorer: a corrupt timeline index was not rebuilt"
  for f in "$tmp"/xt0/*.txt; do
    cmp -s "$f" "$tmp/xe0/$(basename "$f")" || bad "explorer with a corrupt timeline index: $(basename "$f") differs"
  done
  explore "$tmp/xt1" --index-dir "$eidx"
  same_screens "explorer after a rebuilt timeline index" "$tmp/xt1" used used
else
  bad "explorer: no timeline index"
fi
one=$(grep -l -a -x 'analysis.*' "$eidx"/*.idx | head -n 1)
if [ -n "$one" ]; then
  # within the payload: the few bytes that 8-align the chunk table after it are never read
  at=$(($(wc -c <"$one") / 2))
  printf 'Z' | dd of="$one" bs=1 seek="$at" conv=notrunc 2>/dev/null
  OUT=$tmp/xe3 ASCPROF_BENCH_OUT=$tmp/xe3.bench TERM=xterm-256color "$bin" --script "$srcdir/tests/screens/overview.keys" \
    --size 100x30 --index-dir "$eidx" "$ecap" >/dev/null 2>&1
  grep -qx 'analysis_index rebuilt' "$tmp/xe3.bench" && ok || bad "explorer: a corrupt analysis index was not rebuilt"
  explore "$tmp/xe4" --index-dir "$eidx"
  same_screens "explorer after a corrupt analysis index" "$tmp/xe4" used
else
  bad "explorer: no analysis index"
fi
# a table touched: its analysis is stale (the key has every file's mtime), made afresh
touch -d '2002-02-02' "$(find "$ecap" -name 'memory_record.csv' | head -n 1)"
explore "$tmp/xe0" --no-index
explore "$tmp/xe5" --index-dir "$eidx"
same_screens "explorer, a table touched" "$tmp/xe5" "rebuilt used"

# two opens at once, on an empty cache
rm -rf "$idx"
"$bin" --report --no-index "$cap" >"$tmp/plain" 2>/dev/null
"$bin" --report --index-dir "$idx" "$cap" >"$tmp/c1" 2>"$tmp/e1" &
p1=$!
"$bin" --report --index-dir "$idx" "$cap" >"$tmp/c2" 2>"$tmp/e2" &
p2=$!
wait $p1 && wait $p2 || bad "two opens at once: an exit status"
if cmp -s "$tmp/plain" "$tmp/c1" && cmp -s "$tmp/plain" "$tmp/c2"; then ok; else bad "two opens at once: a report differs"; fi
leftover=$(find "$idx" -name '.tmp-*' | wc -l)
[ "$leftover" -eq 0 ] && ok || bad "two opens at once left $leftover temporary files"
"$bin" --report --index-dir "$idx" "$cap" >"$tmp/c3" 2>/dev/null
st=$(state "$cap" --index-dir "$idx")
if [ "$st" = used ] && cmp -s "$tmp/plain" "$tmp/c3"; then ok; else bad "after two opens at once: index '$st'"; fi

# --max-trace-bytes under a trace's size: refused as without an index, though one is there
"$bin" --report --max-trace-bytes 1000 --no-index "$cap" >"$tmp/plain" 2>/dev/null
"$bin" --report --max-trace-bytes 1000 --index-dir "$idx" "$cap" >"$tmp/c1" 2>/dev/null
"$bin" --summary --max-trace-bytes 1000 --index-dir "$idx" "$cap" >"$tmp/sum" 2>&1
if cmp -s "$tmp/plain" "$tmp/c1" && [ "$(grep -c 'index: not written (a part of the trace is over' "$tmp/sum")" -eq 2 ]; then
  ok
else
  bad "--max-trace-bytes with an index: not refused as without one"
  grep index "$tmp/sum"
fi
"$bin" --report --no-index "$cap" >"$tmp/plain" 2>/dev/null

# a cache that cannot be written: a read-only directory (root writes anyway, so a path
# under a plain file too)
mkdir -p "$tmp/ro"
chmod 555 "$tmp/ro"
: >"$tmp/plainfile"
for dir in "$tmp/ro" "$tmp/plainfile/sub"; do
  [ "$dir" = "$tmp/ro" ] && [ "$(id -u)" -eq 0 ] && continue
  "$bin" --report --index-dir "$dir" "$cap" >"$tmp/c1" 2>/dev/null || bad "read-only cache $dir: exit status"
  if cmp -s "$tmp/plain" "$tmp/c1"; then ok; else bad "read-only cache $dir: the report differs"; fi
  "$bin" --summary --index-dir "$dir" "$cap" >"$tmp/sum" 2>&1
  if grep -q 'index: not written (cannot' "$tmp/sum"; then ok; else bad "read-only cache $dir: no reason given"; grep index "$tmp/sum"; fi
done

# --no-index neither writes nor reads; XDG_CACHE_HOME names the default place
rm -rf "$idx"
XDG_CACHE_HOME=$tmp/xdg "$bin" --report --no-index "$cap" >/dev/null 2>&1
[ ! -e "$tmp/xdg" ] && ok || bad "--no-index wrote $tmp/xdg"
XDG_CACHE_HOME=$tmp/xdg "$bin" --report "$cap" >/dev/null 2>&1
n=$(find "$tmp/xdg/ascprof-tui" -name '*.idx' 2>/dev/null | wc -l)
# one per rank's trace, one per CSV table (the test environment indexes every table), one
# for the analysis
ntab=$(find "$cap" -name '*.csv' | wc -l)
[ "$n" -eq $((2 + ntab + 1)) ] && ok || bad "XDG_CACHE_HOME: $n indexes for two ranks, $ntab tables and the analysis"
if XDG_CACHE_HOME=$tmp/xdg "$bin" --summary --no-index "$cap" | grep -q 'index:'; then
  bad "--no-index: the summary names an index"
else
  ok
fi

# the bound: room for this capture's two indexes only; the demo's, used long ago, go
lim=$(cat "$tmp/xdg/ascprof-tui"/*.idx | wc -c)
rm -rf "$idx"
"$bin" --report --index-dir "$idx" "$srcdir/fixtures/demo" >/dev/null 2>&1
touch -d '2001-01-01' "$idx"/*.idx
ASCPROF_INDEX_MAX_BYTES=$lim "$bin" --report --index-dir "$idx" "$cap" >/dev/null 2>&1
left=$(find "$idx" -name '*.idx' | wc -l)
total=$(cat "$idx"/*.idx | wc -c)
used=$("$bin" --summary --index-dir "$idx" "$cap" | grep -c 'index: used')
if [ "$left" -eq "$n" ] && [ "$total" -le "$lim" ] && [ "$used" -eq 2 ]; then
  ok
else
  bad "the bound: $left indexes, $total bytes over a limit of $lim, $used of 2 ranks used"
fi

# a cache directory that is a regular file: said to be no directory (it read "Permission
# denied"), the report made without an index (issue 41, item 11)
echo x >"$tmp/a-file"
"$bin" --summary --index-dir "$tmp/a-file" "$cap" >"$tmp/f1" 2>&1
if grep -q "index: not written (cannot create $tmp/a-file: Not a directory)" "$tmp/f1" &&
   ! grep -q 'Permission denied' "$tmp/f1"; then
  ok
else
  bad "--index-dir naming a file: $(grep 'index:' "$tmp/f1" | head -n 2)"
fi

echo "index: $passed passed, $fail failed"
[ "$fail" -eq 0 ]
