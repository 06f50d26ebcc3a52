#!/bin/sh
# SPDX-License-Identifier: MIT
# The kernel and memory advice rules (block_dim, pipe_bound, dynamic_shape, memory_ops) on
# the real level 0, 1 and 2 captures, text and Db: every rank gets a status for each, and
# the status follows what the files hold: no PMU columns in the kernel table (level 0) ->
# pipe_bound not applicable, PMU columns -> judged; a text export records no device ->
# block_dim not applicable (core count unknown); the Db's NPU_INFO names Ascend910B (20 to 30
# AI Cores, 40 to 48 Vector) -> judged where its blockDim values are there (level 0 writes 0:
# not applicable). On db/level1 rank 0 the block_dim count and time
# are cross-checked against a query of the Db itself (sqlite3): long (20 us and more) AI
# Core and Vector tasks whose blockDim is under the family's lowest counts.
# Skipped (77) without ../shared.
srcdir=${ASCPROF_SRCDIR:-.}
bin=${ASCPROF_BIN:-./ascprof-tui}
shared=${ASCPROF_SHARED:-$srcdir/../shared}
base=$shared/fixtures-real/msinsight/test/data/pytorch
[ -d "$base/text/level1" ] || { echo "SKIP: no $base"; exit 77; }
[ -x "$bin" ] || { echo "SKIP: no binary"; exit 77; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/ascprof-advk-XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT INT TERM

fail=0 seen=0
# status RULE FILE: the statuses of the rule's entries, one a line
status() { grep -A2 "\"rule\": \"$1\"" "$2" | sed -n 's/.*"status": "\([^"]*\)".*/\1/p'; }
for v in text/level0 text/level1 text/level2 db/level0 db/level1 db/level2; do
  dir=$base/$v
  [ -d "$dir" ] || continue
  seen=$((seen + 1))
  "$bin" --report --json "$dir" >"$tmp/r.json" 2>/dev/null || { echo "FAIL: $v: --report --json"; fail=1; continue; }
  ranks=$(ls -d "$dir"/*_ascend_pt | wc -l)
  for rule in block_dim pipe_bound dynamic_shape memory_ops; do
    n=$(status $rule "$tmp/r.json" | grep -Ec '^(triggered|checked|not applicable)$')
    [ "$n" = "$ranks" ] || { echo "FAIL: $v: $rule has $n statuses for $ranks ranks"; fail=1; }
  done
  # PMU columns in the text kernel table (the Db's TASK_PMU_INFO rows) decide pipe_bound
  k=$(ls "$dir"/rank0*/ASCEND_PROFILER_OUTPUT/kernel_details.csv 2>/dev/null | head -1)
  d=$(ls "$dir"/rank0*/ASCEND_PROFILER_OUTPUT/ascend_pytorch_profiler_*.db 2>/dev/null | head -1)
  pmu=no
  [ -n "$k" ] && head -1 "$k" | grep -q 'aic_mac_ratio\|aiv_vec_ratio' && pmu=yes
  if [ -n "$d" ] && command -v sqlite3 >/dev/null; then
    rows=$(sqlite3 "$d" 'SELECT count(*) FROM TASK_PMU_INFO' 2>/dev/null) # no table: none
    [ "${rows:-0}" -gt 0 ] && pmu=yes
  fi
  first=$(status pipe_bound "$tmp/r.json" | head -1)
  if [ $pmu = yes ]; then
    [ "$first" != "not applicable" ] || { echo "FAIL: $v: PMU columns, pipe_bound not applicable"; fail=1; }
  elif [ -n "$k" ] || command -v sqlite3 >/dev/null; then
    [ "$first" = "not applicable" ] || { echo "FAIL: $v: no PMU columns, pipe_bound $first"; fail=1; }
  fi
  first=$(status block_dim "$tmp/r.json" | head -1)
  case $v in
  text/*) [ "$first" = "not applicable" ] && grep -q '"reason": "core count unknown' "$tmp/r.json" ||
    { echo "FAIL: $v: block_dim $first without a device record"; fail=1; } ;;
  db/*) # level 0 writes blockDim 0 (not recorded): nothing to judge, said so
    dims=$(sqlite3 "$d" 'SELECT count(*) FROM COMPUTE_TASK_INFO WHERE blockDim > 0' 2>/dev/null)
    if [ "${dims:-0}" -gt 0 ]; then
      [ "$first" != "not applicable" ] || { echo "FAIL: $v: the Db's NPU_INFO gives no core count"; fail=1; }
    else
      [ "$first" = "not applicable" ] && grep -q '"reason": "no Block Dim on the AI Core' "$tmp/r.json" ||
        { echo "FAIL: $v: no Block Dim recorded, block_dim $first"; fail=1; }
    fi ;;
  esac
done
[ $seen -ge 4 ] || { echo "FAIL: only $seen real captures found"; fail=1; }

# db/level1 rank 0: the finding against the Db read by sqlite3
d=$base/db/level1/rank0_ascend_pt/ASCEND_PROFILER_OUTPUT/ascend_pytorch_profiler_0.db
if [ -f "$d" ] && command -v sqlite3 >/dev/null; then
  want=$(sqlite3 "$d" "SELECT count(*) || ' ' || sum(t.endNs - t.startNs) FROM COMPUTE_TASK_INFO c
    JOIN TASK t ON t.globalTaskId = c.globalTaskId JOIN STRING_IDS s ON s.id = c.taskType
    WHERE t.endNs - t.startNs >= 20000 AND ((s.value IN ('AI_CORE', 'MIX_AIC', 'MIXED_AIC') AND c.blockDim < 20)
    OR (s.value IN ('AI_VECTOR_CORE', 'MIX_AIV', 'MIXED_AIV') AND c.blockDim < 40))")
  "$bin" --report --json "$base/db/level1/rank0_ascend_pt" >"$tmp/r0.json" 2>/dev/null
  got=$(grep -A12 '"rule": "block_dim"' "$tmp/r0.json" |
    sed -n 's/.*"count": \([0-9]*\).*/\1/p; s/.*"total_us": \([0-9.]*\).*/\1/p' | tr '\n' ' ')
  set -- $got
  gotns=$(awk -v u="$2" 'BEGIN { printf "%.0f", u * 1000 }')
  [ "$1 $gotns" = "$want" ] || { echo "FAIL: db/level1 rank 0 block_dim: $1 kernels, $gotns ns; the Db says $want"; fail=1; }
else
  echo "note: no sqlite3 or no db/level1: the block_dim cross-check not run"
fi
[ $fail = 0 ] && echo "PASS: every real capture's ranks report the four rules, as their files allow"
exit $fail
