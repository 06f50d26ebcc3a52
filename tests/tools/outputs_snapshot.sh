#!/bin/sh
# SPDX-License-Identifier: MIT
# Every output of the report modes on a fixed set of captures, and the generator's own
# (gen.NAME.*: each capture written again, as checksums), into OUTDIR, so that a
# restructuring commit can show its outputs byte-identical to its parent's:
#
#   tests/tools/outputs_snapshot.sh BUILD_BEFORE /tmp/snap.before
#   tests/tools/outputs_snapshot.sh BUILD_AFTER  /tmp/snap.after
#   diff -r /tmp/snap.before /tmp/snap.after
#
# BUILD is a configured build tree (ascprof-tui and tools/ascprof-gen built). The captures
# are generated once into $ASCPROF_SNAP_CAPTURES (default /tmp/ascprof-snap-captures) and
# reused, so both runs read the same paths; the real fixtures are read from ../shared
# beside the checkout when it is there. The screens are the screen tests' business
# (tests/test_screens.sh compares them byte for byte). Nothing is written anywhere else:
# the index goes to a directory of its own under OUTDIR's parent, removed afterwards.
set -eu
build=$(cd "$1" && pwd)
out=$2
here=$(cd "$(dirname "$0")/../.." && pwd)
caps=${ASCPROF_SNAP_CAPTURES:-/tmp/ascprof-snap-captures}
tui=$build/ascprof-tui
gen=$build/tools/ascprof-gen
mkdir -p "$out" "$caps"
idx=$(mktemp -d)
trap 'rm -rf "$idx"' EXIT

# name: generator arguments (each capture written once for the reports below); and the
# same capture written again by this build's generator into the index directory, kept as
# checksums with what the generator said (and its self-check where the options allow it),
# so that a change to the generator shows too: the cached captures would hide it
make_capture() {
	name=$1
	shift
	[ -f "$caps/$name/ground_truth.txt" ] || "$gen" --out "$caps/$name" --force "$@" >/dev/null
	case " $* " in
	*" --export "* | *" --truncate-at "*) check= ;;
	*) check=--self-check ;;
	esac
	rm -rf "$idx/gen"
	"$gen" --out "$idx/gen" $check "$@" >"$out/gen.$name.out" 2>&1 || echo "exit $?" >>"$out/gen.$name.out"
	(cd "$idx/gen" && find . -type f | LC_ALL=C sort | xargs sha256sum) >"$out/gen.$name.sums"
	rm -rf "$idx/gen"
}
make_capture demo --demo
make_capture vllm2 --ranks 2 --shape vllm --steps 20 --prefill 4 --comm --seed 3
make_capture legacy --ranks 2 --shape vllm,legacy --steps 16 --prefill 5 --default-export --seed 4
make_capture graph --ranks 2 --shape vllm,graph --steps 16 --prefill 5 --seed 5
make_capture train --ranks 2 --shape train --steps 6 --comm --memory --seed 6
make_capture db --ranks 2 --steps 8 --export db --comm --memory --seed 8
make_capture both --ranks 2 --steps 8 --export both --comm --seed 9
make_capture cl --ranks 4 --steps 6 --ops 40 --comm --cluster-db --slow-rank 2 --seed 10
make_capture moe --ranks 2 --shape vllm,moe --steps 10 --prefill 3 --comm --seed 11
make_capture hostile --ranks 1 --steps 6 --hostile --gbk --bom --crlf --ragged 3 --excel 2 --seed 12
make_capture cut --ranks 1 --steps 8 --truncate-at 200000 --seed 13
make_capture env --ranks 1 --steps 6 --freq-drop 30 --env ASCEND_LAUNCH_BLOCKING=1 --seed 14
# a rank without a trace: its kernel table alone
if [ ! -d "$caps/lone" ]; then
	k=$(find "$caps/demo" -name kernel_details.csv | sort | head -n 1)
	mkdir -p "$caps/lone"
	cp "$k" "$caps/lone/kernel_details.csv"
fi

run() { # name, then the arguments
	name=$1
	shift
	"$tui" --index-dir "$idx" "$@" >"$out/$name.out" 2>"$out/$name.err" || echo "exit $?" >>"$out/$name.err"
}

for c in demo vllm2 legacy graph train db both cl moe hostile cut env lone; do
	run "$c.report" --report "$caps/$c"
	run "$c.report.json" --report --json "$caps/$c"
	run "$c.summary" --summary "$caps/$c"
	run "$c.summary.json" --summary --json "$caps/$c"
done
run both.db.report --report --json --source db "$caps/both"
run compare.report --report --compare "$caps/demo" "$caps/vllm2"
run compare.report.json --report --json --compare "$caps/demo" "$caps/demo"
run compare.ranks --report --compare-ranks 0 2 "$caps/cl"
# digests, and the directory of digests opened as a capture
rm -rf "$idx/dg"
run digest.write --digest "$idx/dg" "$caps/vllm2"
run digest.report --report --json "$idx/dg"
# the index, written then read back
run demo.indexed1 --report --json "$caps/demo"
run demo.indexed2 --report --json "$caps/demo"

real=$here/../shared/fixtures-real
if [ -d "$real" ]; then
	n=0
	for d in $(find "$real" -type d \( -name '*_ascend_pt' -o -name 'PROF_0*' -o -name 'cluster_analysis_output' -o -name 'level*' \) | sort); do
		n=$((n + 1))
		run "real$n.report" --report --json "$d"
		run "real$n.summary" --summary "$d"
		echo "$d" | sed "s|$real/||" >"$out/real$n.path"
	done
fi
# what varies between runs of one binary: load times, the index's own paths and states
for f in "$out"/*; do
	sed -i -E -e 's/ in [0-9.]+ s\b/ in T s/g' \
		-e 's/"(walk|merge|finish|seconds|load_seconds)": *[0-9.e+-]+/"\1": T/g' \
		-e "s|$idx|IDX|g" "$f"
done
echo "snapshot of $(ls "$out" | wc -l) files in $out"
