#!/bin/sh
# SPDX-License-Identifier: MIT
# Real-terminal test: the explorer must go away promptly and leave the terminal as it
# found it however it is told to stop, while a generated ~300 MB capture is loading
# (CSV tables, trace parsing on every core, analysis) and once it is loaded:
#   SIGINT and SIGTERM (kill on its pid) during loading and after, Ctrl-C typed at the
#   terminal during loading: gone within 3 s;
#   Q during loading and during the analysis: gone within 1 s ("quits at once").
# Each time: no process left (the pid, the shell's children, anything reading the
# capture), alternate screen off, cursor visible, keypad and mouse modes off, the same
# tty modes as before (stty -g), and the shell answers `echo ok-N`.
. "${ASCPROF_SRCDIR:-.}/tests/tmux_lib.sh"

t_start=$(now_ms)
loading='^ loading rank 0: '
tracing='^ loading rank 0: trace [0-9.]+ [kMG]?B of '
analysing='^ analysing 1 rank\(s\)\.\.\.'
loaded='^ Verdict \(rank 0\)'

t_gen=$(now_ms)
gen_capture "$tmp/cap" --ranks 1 --target-bytes 300000000
log "generated a $(du -sm "$tmp/cap" | cut -f1) MB capture in $(($(now_ms) - t_gen)) ms"

start_shell 100x30

# stop HOW LIMIT_S RC...: stops the running explorer (HOW: INT, TERM, C-c or Q), checks
# it is gone within LIMIT_S seconds with one of the exit statuses RC..., and that nothing
# is left behind.
stop() {
  _how=$1 _limit=$2
  shift 2
  _pid=$TUI_PID
  T0=$(now_ms)
  case $_how in
    INT | TERM) kill -"$_how" "$TUI_PID" || fail "kill -$_how $TUI_PID failed" ;;
    *) T send-keys -t "$pane" "$_how" ;;
  esac
  wait_exit "$_limit"
  _ms=$ELAPSED_MS
  expect_rc "$@"
  expect_restored
  _left=$(procs_mentioning "$tmp/cap")
  [ -z "$_left" ] || fail "processes still reading the capture after $_how: $_left"
  log "$_how $phase: pid $_pid gone in ${_ms} ms, exit status $_rc, terminal restored"
}

# during the analysis the status line says "analysing" for a fraction of a second; when
# the poll misses that window the explorer has loaded and the case is one of after-loading
at_analysis() {
  wait_for_any 60 "$analysing" "$loaded"
  if [ "$MATCHED" = 1 ]; then
    phase="during the analysis"
  else
    phase="after loading (the analysis window was missed)"
  fi
}

# Every run reads the trace afresh (--no-index): a trace index written by an earlier run
# would be mapped at once and the loading states never shown.
# SIGINT while the trace is parsed (every core busy)
start_tui --no-index "$tmp/cap"
wait_for_text "$tracing" 30
phase="while the trace is read"
stop INT 3 130

# SIGTERM as early as possible: during discovery or the CSV tables
start_tui --no-index "$tmp/cap"
wait_for_text "$loading" 30
phase="while loading ($(sed -n 's/^ loading rank 0: \([a-zA-Z ]*\).*/\1/p' "$tmp/screen" | head -n 1))"
stop TERM 3 143

# Ctrl-C typed at the terminal (SIGINT to the foreground process group)
start_tui --no-index "$tmp/cap"
wait_for_text "$tracing" 30
phase="while the trace is read"
stop C-c 3 130

# Q while the trace is parsed: quits at once
start_tui --no-index "$tmp/cap"
wait_for_text "$tracing" 30
phase="while the trace is read"
stop Q 1 0

# Q during the analysis: quits at once too (it does not wait for the analysis)
start_tui --no-index "$tmp/cap"
at_analysis
stop Q 1 0

# after loading: SIGINT and SIGTERM
for sig in INT TERM; do
  start_tui --no-index "$tmp/cap"
  wait_for_text "$loaded" 60
  phase="after loading"
  case $sig in
    INT) stop INT 3 130 ;;
    TERM) stop TERM 3 143 ;;
  esac
done

log "PASS in $(($(now_ms) - t_start)) ms"
exit 0
