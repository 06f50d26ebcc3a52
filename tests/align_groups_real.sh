#!/bin/sh
# SPDX-License-Identifier: MIT
# Clocks and collective waits of ranks exported without a kernel table, on a real capture:
# msinsight's st/level2 has 4 ranks in several communication groups; ranks 1 and 3 hold
# analysis.db, communication.json and step_trace_time.csv only. Their collectives come from
# communication.json (Start Timestamp + Elapse Time), so they are aligned and their waits
# judged. Rank 1's offset is checked against one computed here from the files alone: the
# median, over the ops whose exact name rank 1's communication.json and rank 0's
# kernel_details.csv share, of the difference of their end times. Skipped (77) without
# ../shared.
srcdir=${ASCPROF_SRCDIR:-.}
bin=${ASCPROF_BIN:-./ascprof-tui}
shared=${ASCPROF_SHARED:-$srcdir/../shared}
dir=$shared/fixtures-real/msinsight/test/st/level2
[ -d "$dir/rank_1_ascend_pt" ] || { echo "SKIP: no $dir"; exit 77; }
[ -x "$bin" ] || { echo "SKIP: no binary"; exit 77; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/ascprof-align-XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT INT TERM
fail=0

"$bin" --no-index --report --json "$dir" >"$tmp/r.json" 2>/dev/null || { echo "FAIL: --report --json"; exit 1; }
"$bin" --no-index --report "$dir" >"$tmp/r.txt" 2>/dev/null || { echo "FAIL: --report"; exit 1; }

# the report's alignment, per rank: offset (us), matched, collective_ok, from the text table
awk '/^rank alignment/ { on = 1; next } on && /^  [0-9]/ { print $1, $4, $6 } on && !/^  / { on = 0 }' \
  "$tmp/r.txt" >"$tmp/align"
# the last 12 digits of the integer part and the fraction: exact in a double
us='function us(s,   i, f) { i = s; f = ""; if (index(s, ".")) { i = substr(s, 1, index(s, ".") - 1); f = "0" substr(s, index(s, ".")) }
  if (length(i) > 12) i = substr(i, length(i) - 11); return (i + 0) + (f + 0) }'
# rank 0's kernel table: name, end (us)
awk -F, "$us"'
  NR == 1 { for (i = 1; i <= NF; i++) { if ($i == "Name") n = i; if ($i ~ /^Start Time/) s = i; if ($i ~ /^Duration/) d = i }; next }
  $n ~ /^hcom_/ { gsub(/[ \t]/, "", $s); gsub(/[ \t]/, "", $d); printf "%s %.3f\n", $n, us($s) + $d }' \
  "$dir/rank_0_ascend_pt/ASCEND_PROFILER_OUTPUT/kernel_details.csv" | sort >"$tmp/k0"
# rank 1's communication.json: name, end (us)
grep -o '"hcom_[^"@]*@[^"]*": {"Communication Time Info": {"Start Timestamp(us)": [0-9.]*, "Elapse Time(ms)": [0-9.eE+-]*' \
  "$dir/rank_1_ascend_pt/ASCEND_PROFILER_OUTPUT/communication.json" |
  awk "$us"'
  { name = $1; sub(/^"/, "", name); sub(/@.*/, "", name); s = $7; sub(/,$/, "", s)
    printf "%s %.3f\n", name, us(s) + $10 * 1000 }' | sort >"$tmp/c1"
join "$tmp/c1" "$tmp/k0" | awk '{ printf "%.3f\n", $2 - $3 }' | sort -g >"$tmp/diffs"
n=$(wc -l <"$tmp/diffs")
[ "$n" -ge 4 ] || { echo "FAIL: only $n ops shared by rank 1's communication.json and rank 0's kernel table"; fail=1; }
# nearest-rank median, as the alignment takes it
want=$(awk -v n="$n" '{ v[NR] = $1 } END { k = int((n + 1) / 2); if (k < 1) k = 1; printf "%.3f", v[k] }' "$tmp/diffs")
got=$(awk '$1 == 1 { print $2 }' "$tmp/align")
awk -v a="$got" -v b="$want" 'BEGIN { d = a - b; if (d < 0) d = -d; exit !(d <= 0.002) }' ||
  { echo "FAIL: rank 1's collective offset $got us, from the files $want us (over $n ops)"; fail=1; }
for r in 1 3; do
  m=$(awk -v r="$r" '$1 == r { print $3 }' "$tmp/align")
  [ -n "$m" ] && [ "$m" -ge 4 ] || { echo "FAIL: rank $r: $m collectives matched, want 4 or more"; fail=1; }
done
# their waits are judged: no "no collective of this rank was matched" and a known gain
if grep -q "no collective of this rank was matched on a peer rank" "$tmp/r.txt"; then
  echo "FAIL: a rank's wait is still unjudged:"; grep -n "no collective of this rank was matched" "$tmp/r.txt"; fail=1
fi
ok=$(grep -c '"collective_ok": true' "$tmp/r.json")
[ "$ok" = 4 ] || { echo "FAIL: collective_ok true on $ok ranks, want 4"; fail=1; }
# every rank of st/level2 shares a group with rank 0, and a cluster output's ranks have no
# collective lists: no rank is said to be aligned through another
cdir=$shared/fixtures-real/msinsight/server/src/test/test_data/cluster_analysis_output
[ -d "$cdir" ] && "$bin" --no-index --report "$cdir" >"$tmp/c.txt" 2>/dev/null
if grep -q "through rank" "$tmp/r.txt" "$tmp/c.txt" 2>/dev/null; then
  echo "FAIL: a rank said aligned through another:"; grep -n "through rank" "$tmp/r.txt" "$tmp/c.txt" | head -3; fail=1
fi
[ $fail = 0 ] && echo "align groups: rank 1 offset $got us = $want us from the files ($n ops); ranks 1 and 3 aligned and judged"
exit $fail
