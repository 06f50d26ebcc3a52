#!/bin/sh
# SPDX-License-Identifier: MIT
# Screen tests: each tests/screens/*.keys script drives the explorer headless (keys from
# the script, no terminal) on a capture, and every screen it dumps must equal the expected
# screen stored beside it. demo_*.keys and plain *.keys run on fixtures/demo; real_*.keys
# on a real two-rank capture from ../shared (skipped when absent). A script may say how it
# runs in lines of its own:
#   #@ gen NAME ARGS   generate capture NAME with ascprof-gen ARGS, and run beside it
#   #@ args ARGS       the command line instead of the capture path (e.g. --compare a b)
# ASCPROF_UPDATE_SCREENS=1 rewrites the expected screens (review the diff before committing).
# ASCPROF_SCREENS_ARGS: options put before every script's command line (test_index.sh runs
# the scripts with --no-index and twice with --index-dir: the screens must not change).
# ASCPROF_VALGRIND=1 runs every script under valgrind (memcheck, full leak check): any
# error or leak fails the script (.ci/run does this in the plain build).
srcdir=${ASCPROF_SRCDIR:-.}
bin=${ASCPROF_BIN:-./ascprof-tui}
gen=${ASCPROF_GEN:-./tools/ascprof-gen}
case $bin in /*) ;; *) bin=$(pwd)/$bin ;; esac
if [ "${ASCPROF_VALGRIND:-0}" = 1 ] && [ -n "${ASCPROF_EMULATOR:-}" ]; then
  echo "SKIP: valgrind cannot run a program under the emulator (the native build runs it)"
  exit 77
fi
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
# the index cache of every run here lies in the temp dir, never the user's
export XDG_CACHE_HOME=$out/cache
trap 'rm -rf "$out"' EXIT INT TERM
# real captures are opened as $real_rel from a directory whose ../shared is the shared tree:
# the source tree when ../shared is beside it, else a temp directory with a link to it
realdir=$srcdir
if [ ! -d "$srcdir/../shared/fixtures-real" ] && [ -d "$shared/fixtures-real" ]; then
  mkdir -p "$out/root/src" && ln -s "$(cd "$shared" && pwd)" "$out/root/shared" || exit 1
  realdir=$out/root/src
fi
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
  keys_abs=$(cd "$(dirname "$keys")" && pwd)/$(basename "$keys")
  mkdir -p "$out/$name"
  # run from the source tree, or beside the generated captures, so that the capture paths
  # on screen are the same everywhere
  rundir=$srcdir
  case "$name" in real_*) rundir=$realdir ;; esac
  if grep -q '^#@ gen ' "$keys"; then
    rundir=$out/$name/captures
    mkdir -p "$rundir"
    if ! grep '^#@ gen ' "$keys" | while read -r _ _ cap args; do
           # shellcheck disable=SC2086 # ARGS are words
           "$gen" --out "$rundir/$cap" $args >/dev/null || exit 1
         done; then
      echo "FAIL: $name: ascprof-gen failed"
      fail=$((fail + 1))
      continue
    fi
  fi
  args=$(sed -n 's/^#@ args //p' "$keys")
  [ -n "$args" ] || args=$capture
  # shellcheck disable=SC2086 # ARGS are words
  if ! (cd "$rundir" && OUT="$out/$name" run_bin --script "$keys_abs" --size 100x30 ${ASCPROF_SCREENS_ARGS:-} $args \
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
