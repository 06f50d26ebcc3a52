#!/bin/sh
# SPDX-License-Identifier: MIT
# The fuzz harnesses' seed corpora (tests/fuzz/seed.sh: the demo and the generator's
# shapes) replayed through every harness without libFuzzer (tests/fuzz/replay_<harness>):
# with the findings kept in tests/fuzz/regress/<harness>/ (run under ASan+UBSan in CI's
# sanitized build); the differential ones hold each scanner's instruction sets (SSE2, AVX2, AVX-512 BW on
# x86-64; NEON on aarch64) to the scalar body and to jsmn and libcsv, and the rest run
# the loaders, analysis and report over damaged inputs. make fuzz's own harnesses need
# clang's libFuzzer on the build machine; these build with the project's compiler, so the
# same seeds run on aarch64 under qemu-user ($ASCPROF_EMULATOR in a cross build).
srcdir=${ASCPROF_SRCDIR:-.}
build=${ASCPROF_BUILDDIR:-.}
gen=${ASCPROF_GEN:-tools/ascprof-gen}
[ -x "$gen" ] || { echo "SKIP: no generator"; exit 77; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/ascprof-replay-XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT INT TERM
sh "$srcdir/tests/fuzz/seed.sh" "$srcdir" "$gen" "$tmp/seeds" >/dev/null || { echo "FAIL: seed.sh"; exit 1; }
fail=0
for h in elem trace csv discover comm profinfo digest db cluster; do
  prog=$build/tests/fuzz/replay_$h
  [ -x "$prog" ] || { echo "FAIL: no $prog"; fail=1; continue; }
  [ -n "$(ls "$tmp/seeds/$h")" ] || { echo "FAIL: no seeds for $h"; fail=1; continue; }
  # the findings kept as regressions (tests/fuzz/regress/<harness>/: inputs that once failed
  # a sanitizer or a crosscheck), with the seeds
  set -- "$tmp/seeds/$h"
  [ -d "$srcdir/tests/fuzz/regress/$h" ] && set -- "$@" "$srcdir/tests/fuzz/regress/$h"
  if out=$(TMPDIR=$tmp ${ASCPROF_EMULATOR:+"$ASCPROF_EMULATOR"} "$prog" "$@" 2>&1); then
    echo "$h: $out"
  else
    echo "FAIL: $h: $(printf '%s\n' "$out" | tail -n 5)"
    fail=1
  fi
done
exit "$fail"
