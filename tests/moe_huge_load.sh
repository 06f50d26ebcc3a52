#!/bin/sh
# SPDX-License-Identifier: MIT
# The MoE view's layer cells on a load far past the median: the generator's four ranks
# with rank 3's GroupedMatmul rows rewritten to 2^40 - 1 tokens (the most the analysis
# takes as a shape), some 10^8 times the others'. Its cells' level, (load / median - 0.5)
# / 1.5 x 7, was cast to int before the clamp to 0..7: 3e9 is past INT_MAX, undefined
# (-fsanitize=float-cast-overflow stops the explorer), and on x86-64 came out INT_MIN,
# clamped to the lowest glyph: the hottest rank drawn as the coolest. Rank 3's cells must
# be the tallest glyph (its load is past 2x the median, the top of the scale), the
# others' below it, headless, exit 0.
bin=${ASCPROF_BIN:-./ascprof-tui}
gen=${ASCPROF_GEN:-./tools/ascprof-gen}
case $bin in /*) ;; *) bin=$(pwd)/$bin ;; esac
[ -x "$gen" ] || { echo "SKIP: no generator"; exit 77; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/ascprof-moehuge-XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT INT TERM
fail() { echo "FAIL: moe_huge_load: $*"; exit 1; }

"$gen" --out "$tmp/moe4" --shape vllm,moe --ranks 4 --steps 6 --prefill 2 \
  --ops 48 --seed 7 --moe-hot 3:2.0 >/dev/null || fail "ascprof-gen failed"
grep -q '^moe.hot_rank=3$' "$tmp/moe4/ground_truth.txt" || fail "the generator planted no hot rank 3"
# rank 3 is the rank whose profiler_info is profiler_info_3.json
k=$(dirname "$(find "$tmp/moe4" -name profiler_info_3.json)")/ASCEND_PROFILER_OUTPUT/kernel_details.csv
[ -f "$k" ] || fail "no kernel_details.csv beside profiler_info_3.json"
# every GroupedMatmul's Input Shapes leads with the tokens, e.g. """2482,7168;16,7168,4096"""
sed -E 's/"""[0-9]+,7168;/"""1099511627775,7168;/' "$k" >"$tmp/k" && mv "$tmp/k" "$k"
[ "$(grep -c '"""1099511627775,7168;' "$k")" -ge 6 ] || fail "the shapes were not rewritten"
printf '%s\n' ':resize 100x30' 'X' ':dump $OUT/moe.txt' >"$tmp/keys"
export TERM=xterm-256color LC_ALL=C.UTF-8 TZ=UTC
(cd "$tmp" && OUT=$tmp timeout 60 "$bin" --script "$tmp/keys" --size 100x30 moe4 >"$tmp/stdout" 2>"$tmp/stderr")
rc=$?
[ "$rc" -eq 0 ] || { cat "$tmp/stderr"; fail "the explorer exited with $rc"; }
s=$tmp/moe.txt
grep -q 'cells: tokens against' "$s" || { cat "$s"; fail "the cells are not tokens (the shapes were not read)"; }
# a rank's row: the rank, its numbers (rank 3's tokens crowd the waits), then one cell per
# layer (three here) at the end
grep -Eq '^ 3 .*███$' "$s" || { cat "$s"; fail "rank 3's cells are not all at the top"; }
for r in 0 1 2; do
  row=$(grep -E "^ $r " "$s")
  [ -n "$row" ] || { cat "$s"; fail "no row for rank $r"; }
  case $row in
    *█*) cat "$s"; fail "rank $r's cells reach the top beside rank 3's: '$row'" ;;
  esac
done
echo "PASS: moe_huge_load"
exit 0
