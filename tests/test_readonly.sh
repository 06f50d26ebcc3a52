#!/bin/sh
# SPDX-License-Identifier: MIT
# Read-only: every mode leaves a capture exactly as it was. A generated capture (with
# hostile names) is fingerprinted (path, type, mode, size, mtime, ctime and content of
# every file and directory) before and after the report (also with a trace index written,
# then read back: the index goes to the cache directory, never the capture), the JSON report, the summary,
# the JSON summary, and scripted explorer runs (headless and through curses) that visit
# every view, open the drawer (args read again from the trace) and an op's detail (CSV
# cells read again). Each run starts inside the capture, so a stray file written to the
# working directory would be caught too; a directory's mtime catches a temporary file
# even when it was removed again.
gen=${ASCPROF_GEN:-tools/ascprof-gen}
bin=${ASCPROF_BIN:-./ascprof-tui}
case $bin in /*) ;; *) bin=$(pwd)/$bin ;; esac
[ -x "$gen" ] && [ -x "$bin" ] || { echo "SKIP: no generator or binary"; exit 77; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/ascprof-readonly-XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT INT TERM
cap=$tmp/cap
"$gen" --out "$cap" --ranks 2 --ops 8 --steps 3 --prefill 1 --hostile --chinese >/dev/null || exit 1

fingerprint() {
  (cd "$cap" && find . -printf '%p %y %m %s %T@ %C@\n' | LC_ALL=C sort &&
    find . -type f -exec sha256sum {} + | LC_ALL=C sort)
}
fingerprint >"$tmp/before"

cat >"$tmp/keys" <<KEYS
1
:dump $tmp/dump.1
2
j
. .
Enter
:dump $tmp/dump.2
Esc
3
Enter
:dump $tmp/dump.3
Esc
4
5
6
?
:dump $tmp/dump.4
3
Colon "export ops.csv" Enter
:dump $tmp/dump.5
Colon "export! ops.csv" Enter
Colon "export! $tmp/ops.csv" Enter
:dump $tmp/dump.6
KEYS

fail=0 runs=0
check() { # name: compare with the fingerprint taken before
  runs=$((runs + 1))
  fingerprint >"$tmp/after"
  if ! diff -u "$tmp/before" "$tmp/after" >"$tmp/diff"; then
    echo "FAIL: $1 changed the capture:"
    cat "$tmp/diff"
    fail=$((fail + 1))
    fingerprint >"$tmp/before" # report each mode's own changes
  fi
}
run() { # name, then the binary's arguments; runs inside the capture on "."
  name=$1
  shift
  if ! (cd "$cap" && TERM=xterm-256color "$bin" "$@" . >"$tmp/out" 2>"$tmp/err"); then
    echo "FAIL: $name: exit status, stderr:"
    cat "$tmp/err"
    fail=$((fail + 1))
  fi
  check "$name"
}

run report --report
run "report --json" --report --json
run summary --summary
run "summary --json" --summary --json
run "report writing an index" --report --index-dir "$tmp/idx"
run "report from the index" --report --index-dir "$tmp/idx"
(cd "$cap" && "$bin" --summary --index-dir "$tmp/idx" . >"$tmp/out")
grep -q 'index: used' "$tmp/out" || { echo "FAIL: the second open did not use the index"; fail=$((fail + 1)); }
check "summary from the index"
run "scripted explorer" --script "$tmp/keys" --size 120x40
run "scripted explorer through curses" --script "$tmp/keys" --size 120x40 --term-out "$tmp/raw"
[ -s "$tmp/dump.3" ] || { echo "FAIL: the script did not dump the op detail"; fail=$((fail + 1)); }
# :export into the capture (the explorer runs on ".") is refused, with or without !; a path
# outside it is written: the header and one row per op of the table (as many as it shows)
grep -q 'ops.csv is inside the capture' "$tmp/dump.5" ||
  { echo "FAIL: :export into the capture was not refused:"; cat "$tmp/dump.5"; fail=$((fail + 1)); }
shown=$(sed -n 's/^ scope device   phase all   sort total   \([0-9]*\) ops$/\1/p' "$tmp/dump.6")
rows=$(($(wc -l <"$tmp/ops.csv") - 1))
if ! head -n 1 "$tmp/ops.csv" | grep -q '^name,scope,phase,category,count,total_ms,' || [ -z "$shown" ] ||
   [ "$rows" -ne "$shown" ] || ! grep -q "row(s) written to $tmp/ops.csv" "$tmp/dump.6"; then
  echo "FAIL: :export wrote $rows rows for $shown ops"
  cat "$tmp/dump.6"
  fail=$((fail + 1))
fi

# --digest: into a directory outside the capture, one digest per rank; into the capture
# (a new directory there, or "." itself) refused with status 2 before anything is made
run "--digest outside" --digest "$tmp/digests"
[ "$(find "$tmp/digests" -name '*.apdigest' | wc -l)" -eq 2 ] ||
  { echo "FAIL: --digest did not write two digests"; fail=$((fail + 1)); }
# the man page: OUTDIR is created when missing, its parents too
run "--digest with missing parents" --digest "$tmp/new/deep/digests"
[ "$(find "$tmp/new/deep/digests" -name '*.apdigest' | wc -l)" -eq 2 ] ||
  { echo "FAIL: --digest did not create missing parents"; fail=$((fail + 1)); }
for out in digests ./sub/digests .; do
  (cd "$cap" && "$bin" --digest "$out" . >"$tmp/out" 2>"$tmp/err")
  rc=$?
  if [ "$rc" -ne 2 ] || ! grep -q 'digests never go into a capture' "$tmp/err"; then
    echo "FAIL: --digest $out inside the capture: status $rc"
    cat "$tmp/err"
    fail=$((fail + 1))
  fi
  check "--digest $out (refused)"
done

# Issue 41, item 4: the directories a run reads reach above the path given. Opened as an
# ASCEND_PROFILER_OUTPUT, the run reads profiler_info in the worker directory above it:
# --digest there is refused; --index-dir there, or a cache directory that is a symlink
# into the capture, is refused before anything is made (the run goes on, without index).
apo=$(find "$cap" -type d -name ASCEND_PROFILER_OUTPUT | LC_ALL=C sort | head -n 1)
worker=$(dirname "$apo")
"$bin" --digest "$worker/digests" "$apo" >"$tmp/out" 2>"$tmp/err"
rc=$?
if [ "$rc" -ne 2 ] || ! grep -q 'digests never go into a capture' "$tmp/err"; then
  echo "FAIL: --digest into the worker above the output directory opened: status $rc"
  cat "$tmp/err"
  fail=$((fail + 1))
fi
check "--digest into the worker directory above (refused)"
"$bin" --report --index-dir "$worker/idx" "$apo" >"$tmp/out" 2>"$tmp/err"
rc=$?
if [ "$rc" -ne 0 ] || ! cat "$tmp/out" "$tmp/err" | grep -q 'index directory lies inside the capture' ||
   ! grep -q '1 rank(s) analysed' "$tmp/out"; then
  echo "FAIL: --index-dir in the worker directory above: status $rc, stderr:"
  cat "$tmp/err"
  fail=$((fail + 1))
fi
check "--index-dir in the worker directory above (refused)"
ln -s "$cap" "$tmp/xdg-into-capture"
(cd "$cap" && XDG_CACHE_HOME="$tmp/xdg-into-capture" "$bin" --report . >"$tmp/out" 2>"$tmp/err")
if ! cat "$tmp/out" "$tmp/err" | grep -q 'index directory lies inside the capture'; then
  echo "FAIL: a cache directory linked into the capture was not refused:"
  cat "$tmp/err"
  fail=$((fail + 1))
fi
check "cache directory linked into the capture (refused)"

# --report with --summary: two outputs, neither silently wins: refused (status 2, a message,
# nothing on standard output), in either order
for pair in "--report --summary" "--summary --report" "-s -r"; do
  # shellcheck disable=SC2086 # the pair is two words
  (cd "$cap" && "$bin" $pair . >"$tmp/out" 2>"$tmp/err")
  rc=$?
  if [ "$rc" -ne 2 ] || [ -s "$tmp/out" ] || ! grep -q 'two different outputs; give one' "$tmp/err"; then
    echo "FAIL: $pair: status $rc, $(wc -c <"$tmp/out") bytes out, stderr: $(cat "$tmp/err")"
    fail=$((fail + 1))
  fi
done

# Db exports: SQLite opened read-only and immutable creates no journal, WAL, shm or lock
# file, also where it could not (a directory without write permission), and changes no
# byte. A generated Db capture (--export db, hostile names) and, when ../shared is there,
# a copy of the real torch_npu Db fixture are made read-only and read by every mode; the
# drawer reads an event's row again.
db_modes() { # name
  chmod -R a-w "$cap"
  fingerprint >"$tmp/before"
  run "$1 report" --report
  run "$1 report --json" --report --json
  run "$1 summary" --summary
  run "$1 summary --json" --summary --json
  grep -q '"kind": "db"' "$tmp/out" || { echo "FAIL: $1 was not read as Db"; fail=$((fail + 1)); }
  run "$1 scripted explorer" --script "$tmp/keys" --size 120x40
  run "$1 scripted explorer through curses" --script "$tmp/keys" --size 120x40 --term-out "$tmp/raw"
  grep -q 'Db row' "$tmp/dump.2" || { echo "FAIL: $1: the drawer did not show the Db row"; fail=$((fail + 1)); }
  chmod -R u+w "$cap"
}
cap=$tmp/gendb
"$gen" --out "$cap" --ranks 2 --ops 8 --steps 3 --prefill 1 --hostile --chinese --export db >/dev/null || exit 1
db_modes "generated Db"
shared=${ASCPROF_SHARED:-../shared}
real=$shared/fixtures-real/msinsight/test/data/pytorch/db/level1
if [ -d "$real" ]; then
  cap=$tmp/dbcap
  cp -R "$real" "$cap" || exit 1
  db_modes "real Db"
else
  echo "(no $real: the real Db fixture not checked)"
fi

echo "read-only: $((runs - fail)) passed, $fail failed"
[ "$fail" -eq 0 ]
