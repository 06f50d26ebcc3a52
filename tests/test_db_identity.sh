#!/bin/sh
# SPDX-License-Identifier: MIT
# The same capture read as text and as Db gives identical reports. The generator writes
# each capture twice from one seed: as text, and as torch_npu's Db export (--export db:
# ascend_pytorch_profiler_<rank>.db and analysis.db, no text files). The Db reader gives
# the timeline, StepTraceTime, the kernel table (with its PMU counters), the memory
# tables and the communication files (CommAnalyzer*), not the operator tables, so the
# text copy is read without those; everything else in the report (metrics,
# steps, phases, bottlenecks, top ops, alignment, messages, text and JSON) must be byte
# for byte the same, apart from the capture's path, the tables' names and the list of
# columns the analysis does not read (the Db path keeps only the counters it reads).
gen=${ASCPROF_GEN:-tools/ascprof-gen}
bin=${ASCPROF_BIN:-./ascprof-tui}
[ -x "$gen" ] && [ -x "$bin" ] || { echo "SKIP: no generator or binary"; exit 77; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/ascprof-dbid-XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT INT TERM

# the report with the capture's path and the tables' names (step_trace_time.csv or
# analysis.db's StepTraceTime, memory_record.csv or MEMORY_RECORD ...) made the same
strip() {
  sed -e "s#$1#CAPTURE#g" -e 's#step_trace_time\.csv#STEP_TABLE#g' -e 's#analysis\.db:StepTraceTime#STEP_TABLE#g' \
    -e 's#memory_record\.csv#MEMORY_RECORD#g' -e 's#ascend_pytorch_profiler_[0-9]*\.db:MEMORY_RECORD#MEMORY_RECORD#g' \
    -e 's#operator_memory\.csv#OP_MEMORY#g' -e 's#ascend_pytorch_profiler_[0-9]*\.db:OP_MEMORY#OP_MEMORY#g' \
    -e 's#npu_module_mem\.csv#NPU_MODULE_MEM#g' -e 's#ascend_pytorch_profiler_[0-9]*\.db:NPU_MODULE_MEM#NPU_MODULE_MEM#g' \
    -e 's#kernel_details\.csv#KERNELS#g' -e 's#ascend_pytorch_profiler_[0-9]*\.db:COMPUTE_TASK_INFO#KERNELS#g' \
    -e 's#communication\.json#COMM#g' -e 's#analysis\.db:CommAnalyzerTime#COMM#g' \
    -e 's#communication_matrix\.json#COMM_MATRIX#g' -e 's#analysis\.db:CommAnalyzerMatrix#COMM_MATRIX#g' \
    -E -e 's/[0-9]+ column\(s\) not used by the analysis, kept for drill-down: [^"]*/UNUSED COLUMNS/'
}

fail=0 n=0
check() { # name, generator arguments
  name=$1
  shift
  n=$((n + 1))
  t=$tmp/t$n d=$tmp/d$n
  "$gen" --out "$t" "$@" >/dev/null || { echo "FAIL: $name: generator (text)"; fail=$((fail + 1)); return; }
  "$gen" --out "$d" --export db "$@" >/dev/null || { echo "FAIL: $name: generator (db)"; fail=$((fail + 1)); return; }
  if ! ls "$d"/*/ASCEND_PROFILER_OUTPUT/ascend_pytorch_profiler_*.db >/dev/null 2>&1 ||
    ls "$d"/*/ASCEND_PROFILER_OUTPUT/trace_view.json >/dev/null 2>&1; then
    echo "FAIL: $name: the Db capture is not Db-only"
    fail=$((fail + 1))
    return
  fi
  rm -f "$t"/*/ASCEND_PROFILER_OUTPUT/operator_details.csv \
    "$t"/*/ASCEND_PROFILER_OUTPUT/op_statistic.csv "$t"/*/ASCEND_PROFILER_OUTPUT/api_statistic.csv
  for mode in "--report" "--report --json"; do
    # shellcheck disable=SC2086
    "$bin" $mode "$t" | strip "$t" >"$tmp/text.out"
    # shellcheck disable=SC2086
    "$bin" $mode "$d" | strip "$d" >"$tmp/db.out"
    if ! cmp -s "$tmp/text.out" "$tmp/db.out"; then
      echo "FAIL: $name: $mode differs between text and Db:"
      diff -u "$tmp/text.out" "$tmp/db.out" | head -40
      fail=$((fail + 1))
    elif [ "$(wc -l <"$tmp/text.out")" -lt 40 ]; then
      echo "FAIL: $name: $mode is too short to mean anything"
      fail=$((fail + 1))
    fi
  done
  "$bin" --summary "$d" >"$tmp/summary.out"
  grep -q 'source: Db: the only export of this rank' "$tmp/summary.out" || {
    echo "FAIL: $name: --summary does not say the Db was read"; fail=$((fail + 1)); }
  # the communication lanes by name and size: the Db's groupName is HCCL's communicator
  # name, as a real Db holds it; the lane is named by the group's order, as the text's
  grep -E '^rank |^    communication ' "$tmp/summary.out" >"$tmp/db.comm"
  "$bin" --summary "$t" | grep -E '^rank |^    communication ' >"$tmp/text.comm"
  if grep -q 'communication' "$tmp/text.comm" && ! cmp -s "$tmp/text.comm" "$tmp/db.comm"; then
    echo "FAIL: $name: the communication lanes differ between text and Db:"
    diff -u "$tmp/text.comm" "$tmp/db.comm" | head -20
    fail=$((fail + 1))
  fi
}

check "two ranks, collectives" --ranks 2 --steps 4 --prefill 1 --ops 24 --comm
check "one rank, ProfilerStep#N, step rows, memory" --ranks 1 --steps 6 --prefill 2 --step-marks profilerstep \
  --step-trace rows --memory
check "hostile and Chinese names" --ranks 2 --steps 3 --ops 12 --hostile --chinese
check "four ranks, a slow one" --ranks 4 --steps 3 --ops 16 --slow-rank 2 --slow-factor 1.5
# the sequence and size rules planted: small, misaligned transfers; the rope built from small ops
check "small transfers, unfused rope" --ranks 2 --steps 3 --ops 24 --comm --packet-bytes 1000 --unfused-rope
# the kernel and memory advice plants (issue 43): block counts against a chip, static Adds with
# new shapes (the Db carries OP State), device allocations between steps, PMU ratios with a
# bound pipe but on RmsNorm
check "advice plants" --ranks 1 --steps 6 --prefill 2 --chip Ascend910B3 --block-dim 8 --new-shapes --alloc-storm 3 \
  --pmu-bound

# both exports of one run: text by default, Db with --source db, and --summary says why
b=$tmp/both
"$gen" --out "$b" --ranks 2 --steps 3 --ops 12 --export both >/dev/null || exit 1
"$bin" --summary "$b" >"$tmp/s.text"
"$bin" --summary --source db "$b" >"$tmp/s.db"
grep -q 'source: text: both exports hold the run' "$tmp/s.text" &&
  grep -q 'trace: trace_view.json' "$tmp/s.text" || {
  echo "FAIL: with both exports the text one is not read by default"; fail=$((fail + 1)); }
grep -q 'source: Db: --source db' "$tmp/s.db" && grep -q 'trace: ascend_pytorch_profiler_0.db' "$tmp/s.db" || {
  echo "FAIL: --source db does not read the Db export"; fail=$((fail + 1)); }
"$bin" --summary --source text "$d" >"$tmp/s.dbonly" 2>&1
grep -q 'has only a Db export; it is read all the same' "$tmp/s.dbonly" || {
  echo "FAIL: --source text on a Db-only capture does not say so"; fail=$((fail + 1)); }

echo "text vs Db: $((n * 2)) report pairs, $fail failed"
[ "$fail" -eq 0 ]
