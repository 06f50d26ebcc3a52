#!/bin/sh
# SPDX-License-Identifier: MIT
# The same bytes on every machine. `--report --json` and `--summary --json` of the demo,
# of the generator's capture shapes and of every directory of the real fixtures, from the
# binary under test (ASCPROF_BIN) and from a reference, compared byte for byte, with the
# summary's load timings masked (they are measured, not computed):
# - in a cross build (make check-arm64) the reference is a native build's binary
#   (ASCPROF_NATIVE_BIN, ASCPROF_NATIVE_GEN): aarch64 under the emulator against x86-64;
#   the generator's captures are written by both generators and compared too;
# - in a native build the reference is the same binary with every scanner on its scalar
#   body (ASCPROF_SCAN=scalar, ASCPROF_CSV_SCAN=base), the vector bodies against it.
# Paths are the same on both sides (the same argument from the same directory), and each
# side has its own index cache (--no-index: what is computed, not what was kept).
gen=${ASCPROF_GEN:-tools/ascprof-gen}
bin=${ASCPROF_BIN:-./ascprof-tui}
srcdir=${ASCPROF_SRCDIR:-.}
shared=${ASCPROF_SHARED:-$srcdir/../shared}
[ -x "$gen" ] && [ -x "$bin" ] || { echo "SKIP: no generator or binary"; exit 77; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/ascprof-archid-XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT INT TERM

if [ -n "${ASCPROF_NATIVE_BIN:-}" ]; then
  [ -x "$ASCPROF_NATIVE_BIN" ] || { echo "FAIL: ASCPROF_NATIVE_BIN=$ASCPROF_NATIVE_BIN is not a program"; exit 1; }
  ref_gen=${ASCPROF_NATIVE_GEN:-$(dirname "$ASCPROF_NATIVE_BIN")/tools/ascprof-gen}
  ref() { "$ASCPROF_NATIVE_BIN" "$@"; }
  what="$bin against the native $ASCPROF_NATIVE_BIN"
else
  ref_gen=$gen
  ref() { ASCPROF_SCAN=scalar ASCPROF_CSV_SCAN=base "$bin" "$@"; }
  what="$bin against its scalar scanners"
fi
echo "comparing $what"

# the summary's measured times: load_seconds, the trace's phase_seconds block, the index's
# seconds
mask() {
  sed -E -e 's/^( *"(load_seconds|seconds)": )[-0-9.e+]+/\1T/' \
    -e '/"phase_seconds": \{/,/\}/s/^( *"[a-z_]+": )[-0-9.e+]+/\1T/'
}

fail=0 n=0
compare() { # label, path
  for mode in "--report --json" "--summary --json"; do
    n=$((n + 1))
    # shellcheck disable=SC2086
    XDG_CACHE_HOME=$tmp/cache-ref ref $mode --no-index "$2" 2>"$tmp/ref.err" | mask >"$tmp/ref.out"
    # shellcheck disable=SC2086
    XDG_CACHE_HOME=$tmp/cache-test "$bin" $mode --no-index "$2" 2>"$tmp/test.err" | mask >"$tmp/test.out"
    if ! cmp -s "$tmp/ref.out" "$tmp/test.out"; then
      echo "FAIL: $1: $mode differs:"
      diff -u "$tmp/ref.out" "$tmp/test.out" | head -n 30
      fail=$((fail + 1))
    elif ! cmp -s "$tmp/ref.err" "$tmp/test.err"; then
      echo "FAIL: $1: $mode says other things on stderr:"
      diff -u "$tmp/ref.err" "$tmp/test.err" | head -n 10
      fail=$((fail + 1))
    elif [ ! -s "$tmp/test.out" ]; then
      echo "FAIL: $1: $mode printed nothing"
      fail=$((fail + 1))
    fi
  done
}

cd "$tmp" || exit 1
cp -R "$srcdir/fixtures/demo" demo && chmod -R u+w demo
compare demo demo

# The generator's shapes, each written by both generators: the captures themselves must
# be the same bytes (the generator is ours too, and the tests' truth comes from it).
shapes="--demo
--ranks 2 --comm --steps 6 --ops 60 --seed 3
--ranks 4 --comm --steps 4 --ops 40 --slow-rank 2 --cluster-db --memory
--shape vllm --steps 12 --prefill 3 --seed 8
--shape vllm,graph,mla --steps 10 --prefill 2 --seed 9
--shape vllm,moe --ranks 2 --steps 8 --seed 10
--shape vllm,mixed=3,annotate --steps 10 --seed 11
--shape train --ranks 2 --comm --steps 4 --seed 12
--step-marks profilerstep --step-trace rows --steps 6 --prefill 2 --seed 4
--ranks 1 --seed 13 --steps 4 --hostile --chinese --gbk --bom --crlf --tabs --ragged 3 --excel 2
--ranks 2 --seed 3 --steps 6 --truncate-at 200000 --wrapper --pretty
--ranks 2 --steps 4 --export both --memory --seed 6
--ranks 1 --seed 2 --raw"
g=0
echo "$shapes" | {
  while IFS= read -r args; do
    g=$((g + 1))
    # shellcheck disable=SC2086
    "$ref_gen" --out "gen$g" $args >/dev/null 2>"$tmp/gen.err" || { echo "FAIL: the generator: $args"; cat "$tmp/gen.err"; fail=$((fail + 1)); continue; }
    if [ "$ref_gen" != "$gen" ]; then
      # shellcheck disable=SC2086
      "$gen" --out "gen$g.t" $args >/dev/null 2>&1 || { echo "FAIL: the generator under test: $args"; fail=$((fail + 1)); continue; }
      # the names carry no time of day: both write the same directories and bytes
      if ! diff -r "gen$g" "gen$g.t" >"$tmp/gen.diff" 2>&1; then
        echo "FAIL: the generators write different captures for $args:"
        head -n 10 "$tmp/gen.diff"
        fail=$((fail + 1))
      fi
      rm -rf "gen$g.t"
    fi
    compare "generated $args" "gen$g"
    rm -rf "gen$g"
  done
  echo "$fail $n" >"$tmp/counts"
}
read -r fail n <"$tmp/counts"

if [ -d "$shared/fixtures-real" ]; then
  real=$(cd "$shared/fixtures-real" && pwd)
  # every directory, the capture roots and the parts of them alike: each is an input a
  # user may name; one copy of the tree is read on both sides, by the same path
  find "$real" -type d | LC_ALL=C sort >"$tmp/dirs"
  while IFS= read -r d; do
    compare "${d#"$real"/}" "$d"
  done <"$tmp/dirs"
else
  echo "note: no $shared/fixtures-real; the real captures are not compared"
fi

echo "$n comparisons, $fail differ"
[ "$n" -gt 0 ] || { echo "FAIL: nothing compared"; exit 1; }
[ "$fail" -eq 0 ] || exit 1
exit 0
