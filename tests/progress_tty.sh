#!/bin/sh
# SPDX-License-Identifier: MIT
# The progress line of --report, --summary and --report --compare (src/report/progress.c): on stderr only, and
# only when stderr is a terminal. In a pipe or a file nothing at all reaches stderr and
# stdout is the same bytes; on a pseudo-terminal (util-linux `script`) the line shows the
# loading with bytes read of the total and the analysis with ranks done, is redrawn in
# place (carriage returns, no newlines) and is cleared at the end, and stdout (redirected
# to a file) is still the same bytes as without a terminal.
gen=${ASCPROF_GEN:-tools/ascprof-gen}
bin=${ASCPROF_BIN:-./ascprof-tui}
case $bin in /*) ;; *) bin=$(pwd)/$bin ;; esac
[ -x "$gen" ] && [ -x "$bin" ] || { echo "SKIP: no generator or binary"; exit 77; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/ascprof-progress-XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT INT TERM
cap=$tmp/cap
"$gen" --out "$cap" --ranks 2 --ops 8 --steps 3 >/dev/null || exit 1
fail=0

# not a terminal: stderr stays empty in every mode
for mode in "--report --json" "--report" "--summary --json" "--summary" "--report --json --compare $cap"; do
  # shellcheck disable=SC2086
  "$bin" $mode "$cap" >"$tmp/out" 2>"$tmp/err" || { echo "FAIL: $mode exited with $?"; fail=1; }
  if [ -s "$tmp/err" ]; then
    echo "FAIL: $mode wrote to stderr without a terminal:"; cat "$tmp/err"; fail=1
  fi
done
"$bin" --report --json "$cap" >"$tmp/plain.json" 2>/dev/null
"$bin" --report --json --compare "$cap" "$cap" >"$tmp/plain.compare.json" 2>/dev/null

command -v script >/dev/null 2>&1 || { echo "SKIP: no script(1) for a pseudo-terminal"; exit 77; }
script --version 2>/dev/null | grep -q util-linux || { echo "SKIP: script(1) is not util-linux's"; exit 77; }

# on a terminal: stdout to a file, stderr (the terminal) logged by script
for mode in report summary; do
  log=$tmp/tty.$mode
  script -qec "'$bin' --$mode --json '$cap' >'$tmp/tty.$mode.json'" "$log" >/dev/null 2>&1 </dev/null ||
    { echo "FAIL: --$mode on a terminal exited with an error"; fail=1; continue; }
  # what the program wrote: the log less script's own first and last lines
  sed -e '1{/^Script started/d}' -e '${/^Script done/d}' "$log" >"$tmp/tty.$mode.err"
  grep -q 'ascprof-tui: loading [0-9][0-9]* files: .* of .* read (0%)' "$tmp/tty.$mode.err" ||
    { echo "FAIL: --$mode: no loading line with bytes read"; cat -v "$tmp/tty.$mode.err"; fail=1; }
  if [ $mode = report ]; then
    grep -q 'ascprof-tui: analysing: [0-2]/2 ranks done' "$tmp/tty.$mode.err" ||
      { echo "FAIL: --report: no analysing line"; cat -v "$tmp/tty.$mode.err"; fail=1; }
    cmp -s "$tmp/tty.report.json" "$tmp/plain.json" ||
      { echo "FAIL: --report's stdout differs on a terminal"; fail=1; }
  fi
  # redrawn in place: one line (the terminal turns the final newline, if any, into CR LF)
  lines=$(tr -d '\r' <"$tmp/tty.$mode.err" | grep -c .)
  [ "$lines" -eq 1 ] || { echo "FAIL: --$mode: $lines lines of progress, want 1 redrawn"; cat -v "$tmp/tty.$mode.err"; fail=1; }
  # cleared at the end: the last bytes are CR, ESC [ K (and script's newline)
  tail=$(tr -d '\n' <"$tmp/tty.$mode.err" | tail -c 4 | od -An -c | tr -s ' ')
  case $tail in
    *'[ K \r 033 [ K'* | *'\r 033 [ K'*) ;;
    *) echo "FAIL: --$mode: the line is not cleared at the end (ends with:$tail)"; fail=1 ;;
  esac
done
# --report --compare: a line per capture, each cleared; the output as without a terminal
script -qec "'$bin' --report --json --compare '$cap' '$cap' >'$tmp/tty.compare.json'" "$tmp/tty.compare" \
  >/dev/null 2>&1 </dev/null || { echo "FAIL: --report --compare on a terminal exited with an error"; fail=1; }
n=$(tr '\r' '\n' <"$tmp/tty.compare" | grep -c 'ascprof-tui: analysing: [0-2]/2 ranks done')
[ "$n" -ge 2 ] || { echo "FAIL: --report --compare: $n analysing lines, want one per capture"; fail=1; }
cmp -s "$tmp/tty.compare.json" "$tmp/plain.compare.json" ||
  { echo "FAIL: --report --compare's stdout differs on a terminal"; fail=1; }
exit $fail
