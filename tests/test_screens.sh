#!/bin/sh
# SPDX-License-Identifier: MIT
# Screen tests: each tests/screens/*.keys script drives the explorer headless (keys from
# the script, no terminal) on a capture, and every screen it dumps must equal the expected
# screen stored beside it. demo_*.keys and plain *.keys run on fixtures/demo; real_*.keys
# on a real two-rank capture from ../shared (skipped when absent).
# ASCPROF_UPDATE_SCREENS=1 rewrites the expected screens (review the diff before committing).
# ASCPROF_VALGRIND=1 runs every script under valgrind (memcheck, full leak check): any
# error or leak fails the script (.ci/run does this in the plain build).
srcdir=${ASCPROF_SRCDIR:-.}
bin=${ASCPROF_BIN:-./ascprof-tui}
case $bin in /*) ;; *) bin=$(pwd)/$bin ;; esac
run_bin() {
  if [ "${ASCPROF_VALGRIND:-0}" = 1 ]; then
    valgrind -q --error-exitcode=1 --leak-check=full --track-fds=no "$bin" "$@"
  else
    "$bin" "$@"
  fi
}
shared=${ASCPROF_SHARED:-$srcdir/../shared}
real_rel=../shared/fixtures-real/msinsight/test/data/pytorch/text/level1
out=$(mktemp -d "${TMPDIR:-/tmp}/ascprof-screens-XXXXXX") || exit 1
trap 'rm -rf "$out"' EXIT INT TERM
export TERM=xterm-256color LC_ALL=C.UTF-8 TZ=UTC

pass=0 fail=0 skipped=0
for keys in "$srcdir"/tests/screens/*.keys; do
  name=$(basename "$keys" .keys)
  case "$name" in
    real_*)
      if [ ! -d "$shared/fixtures-real" ]; then
        echo "SKIP: $name (no ../shared/fixtures-real)"
        skipped=$((skipped + 1))
        continue
      fi
      capture=$real_rel ;;
    *) capture=fixtures/demo ;;
  esac
  mkdir -p "$out/$name"
  # run from the source tree so that the capture path on screen is the same everywhere
  if ! (cd "$srcdir" && OUT="$out/$name" run_bin --script "$keys" --size 100x30 "$capture" \
        >"$out/$name/stdout" 2>"$out/$name/stderr"); then
    echo "FAIL: $name: the explorer exited with an error"
    cat "$out/$name/stderr"
    fail=$((fail + 1))
    continue
  fi
  for got in "$out/$name"/*.txt; do
    [ -e "$got" ] || continue
    want="$srcdir/tests/screens/$(basename "$got")"
    if [ "${ASCPROF_UPDATE_SCREENS:-0}" = 1 ]; then
      cp "$got" "$want"
    fi
    if [ ! -f "$want" ]; then
      echo "FAIL: $name: no expected screen $(basename "$want")"
      fail=$((fail + 1))
    elif diff -u "$want" "$got" >"$out/diff"; then
      pass=$((pass + 1))
    else
      echo "FAIL: $name: $(basename "$got") differs from the expected screen:"
      cat "$out/diff"
      fail=$((fail + 1))
    fi
  done
done
echo "screens: $pass passed, $fail failed, $skipped skipped"
[ "$fail" -eq 0 ] || exit 1
[ "$pass" -gt 0 ] || exit 77
exit 0
