#!/bin/sh
# SPDX-License-Identifier: MIT
# Seed corpora for the fuzz harnesses, from the bundled demo and the generator (never
# from the real fixtures): seed.sh SRCDIR GENERATOR OUTDIR. OUTDIR/<harness>/ is rebuilt.
set -eu
src=$1
gen=$2
out=$3
rm -rf "$out"
mkdir -p "$out/elem" "$out/trace" "$out/csv" "$out/discover" "$out/comm" "$out/profinfo" "$out/digest"
work=$(mktemp -d "${TMPDIR:-/tmp}/ascprof-seed-XXXXXX")
trap 'rm -rf "$work"' EXIT

# Small generated captures in the shapes the loaders meet.
n=0
for v in "" "--minify" "--pretty --call-stack" "--wrapper --hostile" "--chinese --gbk --bom --crlf" \
	"--tabs --ragged 3 --excel 3" "--step-marks profilerstep --step-trace rows" "--truncate-at 30000" \
	"--raw" "--ranks 2 --no-info --naming host" "--shape vllm,mla,moe,graph,annotate,mixed=1 --steps 3" \
	"--shape train" "--ranks 3 --comm --step-marks profilerstep"; do
	n=$((n + 1))
	# shellcheck disable=SC2086 # the variant is a list of options
	"$gen" --out "$work/g$n" --ops 8 --steps 2 --prefill 1 --seed "$n" $v >/dev/null
done

# trace: whole small traces and their first 4 KB (libFuzzer cuts to -max_len anyway)
i=0
for f in "$work"/g*/*/ASCEND_PROFILER_OUTPUT/trace_view.json "$src"/fixtures/demo/*/ASCEND_PROFILER_OUTPUT/trace_view.json; do
	i=$((i + 1))
	head -c 65536 "$f" >"$out/trace/t$i"
	head -c 4096 "$f" >"$out/trace/h$i"
done
printf '[]' >"$out/trace/empty_array"
printf '{"traceEvents": []}' >"$out/trace/empty_wrapper"

# elem: single elements, one per line of a minified trace
"$gen" --out "$work/m" --ops 8 --steps 2 --prefill 1 --minify --hostile --call-stack >/dev/null
for f in "$work"/m/*/ASCEND_PROFILER_OUTPUT/trace_view.json; do
	sed -e 's/^\[//' -e 's/\]$//' -e 's/},{"/}\n{"/g' "$f"
done | sort -u | awk -v d="$out/elem" 'NR % 3 == 1 {printf "%s", $0 > (d "/e" NR); close(d "/e" NR)}'

# csv: every table of the demo and of the generated variants, cut to 16 KB
i=0
for f in "$src"/fixtures/demo/*/ASCEND_PROFILER_OUTPUT/*.csv "$work"/g*/*/ASCEND_PROFILER_OUTPUT/*.csv; do
	i=$((i + 1))
	head -c 16384 "$f" >"$out/csv/c$i"
done

# comm: the communication files of the --comm variant (per rank and matrix), cut to
# 16 KB, and the shapes a cluster file and a damaged one take
i=0
for f in "$work"/g*/*/ASCEND_PROFILER_OUTPUT/communication*.json; do
	i=$((i + 1))
	head -c 16384 "$f" >"$out/comm/c$i"
done
printf '{"8,9,10": {"step1": {"hcom_allReduce__1@g": {"8": {"Communication Time Info": {"Elapse Time(ms)": 1.0}}}}}, "p2p": {}}' \
	>"$out/comm/cluster"
printf '{"step1": {"collective": {"a@g": {"Communication Bandwidth Info": {"HCCS": {"Transit Size(MB)": 1}, "HCCS": {"Transit Size(MB)": 2}}}, "a@g": {}}}}' \
	>"$out/comm/repeats"

# profinfo: every profiler_info of the demo and the generated variants
i=0
for f in "$src"/fixtures/demo/*/profiler_info*.json "$work"/g*/*/profiler_info*.json; do
	i=$((i + 1))
	cp "$f" "$out/profinfo/p$i"
done
printf '{"rank_id": 0, "config": {"x": [[[[[[[[[[[[1]]]]]]]]]]]]}}' >"$out/profinfo/nested"

# discover: capture trees in the harness's record format (see fuzz_discover.c); the
# indices below are positions in its fz_dirs and fz_names tables.
byte() { printf "\\$(printf %03o "$1")"; }
record() { # where name kind file
	len=$(wc -c <"$4")
	[ "$len" -gt 3000 ] && len=3000
	byte "$1"
	byte "$2"
	printf 'R'
	byte $((len % 256))
	byte $((len / 256))
	head -c "$len" "$4"
}
name_index() {
	case $1 in
	trace_view.json) echo 0 ;; kernel_details.csv) echo 1 ;; op_statistic.csv) echo 2 ;;
	step_trace_time.csv) echo 3 ;; operator_details.csv) echo 4 ;; api_statistic.csv) echo 5 ;;
	profiler_info_0.json) echo 8 ;; profiler_info_1.json) echo 9 ;;
	profiler_metadata.json) echo 10 ;; analyse.done) echo 11 ;; *) echo "" ;;
	esac
}
for g in "$work"/g1 "$work"/g3 "$work"/g5 "$work"/g7 "$work"/g10 "$src/fixtures/demo"; do
	seed="$out/discover/$(basename "$g")"
	: >"$seed"
	r=0
	for w in "$g"/*_ascend_pt; do
		for f in "$w"/* "$w"/ASCEND_PROFILER_OUTPUT/*; do
			[ -f "$f" ] || continue
			k=$(name_index "$(basename "$f")")
			[ -n "$k" ] || continue
			case $f in */ASCEND_PROFILER_OUTPUT/*) where=$((2 + 2 * r)) ;; *) where=$((1 + 2 * r)) ;; esac
			record "$where" "$k" R "$f" >>"$seed"
		done
		r=$((r + 1))
	done
done
# the odd kinds: a directory named trace_view.json, a FIFO, symlink loops
{ byte 2; byte 0; printf 'D'; byte 0; byte 0; byte 2; byte 1; printf 'F'; byte 0; byte 0;
  byte 1; byte 8; printf 'F'; byte 0; byte 0; byte 3; byte 0; printf 'L'; byte 0; byte 0;
  byte 4; byte 0; printf 'S'; byte 0; byte 0; } >"$out/discover/odd"

# digest: the demo's digests and those of the 3-rank capture with communication.json
# (ascprof-tui beside the generator's tools/ directory), each whole (a leading odd byte)
# and as a bare payload (a leading 0: the harness adds the header)
tui=$(dirname "$gen")/../ascprof-tui
if [ -x "$tui" ]; then
	"$tui" --digest "$work/dg" "$src/fixtures/demo" >/dev/null
	"$tui" --digest "$work/dgc" "$work/g13" >/dev/null
	i=0
	for f in "$work"/dg/*.apdigest "$work"/dgc/*.apdigest; do
		i=$((i + 1))
		{ byte 1; cat "$f"; } >"$out/digest/whole$i"
		{ byte 0; tail -c +33 "$f"; } >"$out/digest/payload$i"
	done
fi

for h in elem trace csv discover comm profinfo digest; do
	echo "seed: $h: $(find "$out/$h" -type f | wc -l) inputs"
done
