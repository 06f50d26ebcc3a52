# SPDX-License-Identifier: MIT
# Helpers for the real-terminal tests (tests/tmux_*.sh), sourced by them.
#
# Each test runs the explorer in a detached tmux session on a private server
# (tmux -L ascprof-test-PID, no user configuration), types into its shell with
# send-keys and reads the screen with capture-pane, as a person at a terminal would.
# Nothing here sleeps a fixed time to let something happen: every wait polls the screen
# (or /proc) every 50 ms up to a timeout, and a timeout fails with the last screen.
#
# Exit codes follow Automake: 77 skip (no tmux), 1 failure, 0 success.

if ! command -v tmux >/dev/null 2>&1; then
  echo "SKIP: tmux is not installed"
  exit 77
fi
if [ ! -r /proc/self/stat ]; then
  echo "SKIP: no /proc (processes are found through /proc/PID/stat)"
  exit 77
fi
# never talk to the tmux of whoever runs the tests
unset TMUX TMUX_PANE

abs() { case $1 in /*) printf '%s\n' "$1" ;; *) printf '%s/%s\n' "$(pwd)" "$1" ;; esac; }
srcdir=$(abs "${ASCPROF_SRCDIR:-.}")
bin=$(abs "${ASCPROF_BIN:-./ascprof-tui}")
gen=$(abs "${ASCPROF_GEN:-./tools/ascprof-gen}")
if [ ! -x "$bin" ]; then
  echo "FAIL: no explorer binary at $bin (build first, or set ASCPROF_BIN)"
  exit 1
fi

# How long the library's own waits (shell prompt, start, exit status, restore) poll before
# failing: generous, since a loaded CI machine may take seconds for what takes
# milliseconds alone, and a state that comes ends the wait at once.
TMUX_WAIT=${ASCPROF_TMUX_WAIT:-60}

test_name=$(basename "$0" .sh)
tmp=$(mktemp -d "${TMPDIR:-/tmp}/ascprof-$test_name-XXXXXX") || exit 1
sock=ascprof-test-$$
pane=ascprof-test:0.0
PROMPT='ascprof-test> '
TUI_PID=
socket_path=
marker=0

cat >"$tmp/tmux.conf" <<'EOF'
set -g default-terminal xterm-256color
set -g status off
set -g history-limit 2000
set -g escape-time 0
EOF

T() { tmux -L "$sock" -f "$tmp/tmux.conf" "$@"; }

cleanup() {
  # the explorer this test started, if a failure left it running: only that pid
  if [ -n "$TUI_PID" ] && kill -0 "$TUI_PID" 2>/dev/null; then
    kill -KILL "$TUI_PID" 2>/dev/null
  fi
  T kill-server 2>/dev/null
  # tmux 3.3 leaves its socket file behind
  [ -z "$socket_path" ] || rm -f "$socket_path"
  rm -rf "$tmp"
}
trap cleanup EXIT
trap 'echo "FAIL: $test_name: interrupted"; exit 1' INT TERM HUP

log() { echo "$test_name: $*"; }

now_ms() { date +%s%3N; }

# to_ms SECONDS (may have decimals)
to_ms() { awk -v s="$1" 'BEGIN { printf "%d\n", s * 1000 }'; }

snap() { T capture-pane -p -t "$pane" >"$tmp/screen" 2>/dev/null; }

dump_screen() {
  snap
  echo "--- last screen ($(T display -p -t "$pane" '#{pane_width}x#{pane_height}' 2>/dev/null)) ---"
  cat "$tmp/screen"
  echo "--- end of screen ---"
}

fail() {
  echo "FAIL: $test_name: $*"
  dump_screen
  exit 1
}

# wait_for_text ERE [SECONDS]: polls the screen until a line matches the extended
# regular expression; fails with the last screen after SECONDS (default 10).
wait_for_text() {
  _deadline=$(($(now_ms) + $(to_ms "${2:-10}")))
  while :; do
    snap
    grep -Eq -- "$1" "$tmp/screen" && return 0
    [ "$(now_ms)" -lt "$_deadline" ] || fail "timed out after ${2:-10}s waiting for /$1/ on the screen"
    sleep 0.05
  done
}

# wait_for_no_text ERE [SECONDS]: until no line matches.
wait_for_no_text() {
  _deadline=$(($(now_ms) + $(to_ms "${2:-10}")))
  while :; do
    snap
    grep -Eq -- "$1" "$tmp/screen" || return 0
    [ "$(now_ms)" -lt "$_deadline" ] || fail "timed out after ${2:-10}s waiting for /$1/ to leave the screen"
    sleep 0.05
  done
}

# wait_for_any SECONDS ERE...: until one of the patterns matches; sets MATCHED to its
# index (1..n).
wait_for_any() {
  _deadline=$(($(now_ms) + $(to_ms "$1")))
  _secs=$1
  shift
  MATCHED=
  while :; do
    snap
    _i=0
    for _p in "$@"; do
      _i=$((_i + 1))
      if grep -Eq -- "$_p" "$tmp/screen"; then
        MATCHED=$_i
        return 0
      fi
    done
    [ "$(now_ms)" -lt "$_deadline" ] || fail "timed out after ${_secs}s waiting for any of: $*"
    sleep 0.05
  done
}

# wait_for_line N ERE [SECONDS]: until line N of the screen (1-based) matches.
wait_for_line() {
  _deadline=$(($(now_ms) + $(to_ms "${3:-10}")))
  while :; do
    snap
    sed -n "${1}p" "$tmp/screen" | grep -Eq -- "$2" && return 0
    [ "$(now_ms)" -lt "$_deadline" ] || fail "timed out after ${3:-10}s waiting for line $1 to match /$2/"
    sleep 0.05
  done
}

# wait_for_prompt [SECONDS] [only]: until the last non-blank line of the screen is the
# shell's prompt alone (the shell is waiting for a command); with "only", until the prompt
# is all there is on the screen (after clear). Type a command only at the prompt: what is
# typed while the shell is busy is echoed at once, and clear would wipe it.
wait_for_prompt() {
  _deadline=$(($(now_ms) + $(to_ms "${1:-5}")))
  while :; do
    snap
    if [ "${2:-}" = only ]; then
      [ "$(sed '/^ *$/d' "$tmp/screen")" = "${PROMPT% }" ] && return 0
    else
      [ "$(sed '/^ *$/d' "$tmp/screen" | tail -n 1)" = "${PROMPT% }" ] && return 0
    fi
    [ "$(now_ms)" -lt "$_deadline" ] || fail "timed out after ${1:-5}s waiting for the shell prompt"
    sleep 0.05
  done
}

# expect_text ERE [WHAT]: the screen as it is now must match (no waiting).
expect_text() {
  snap
  grep -Eq -- "$1" "$tmp/screen" || fail "${2:-the screen} should show /$1/"
}

# expect_line TEXT [WHAT]: a line of the screen as it is now must be exactly TEXT (a
# line the terminal wrapped counts as one: capture-pane -J).
expect_line() {
  T capture-pane -p -J -t "$pane" | sed 's/ *$//' >"$tmp/joined"
  grep -Fxq -- "$1" "$tmp/joined" || fail "${2:-the screen} should show the line '$1'"
}

# wait_for_exact_line TEXT [SECONDS]: until a line of the screen is exactly TEXT (joined
# as expect_line does).
wait_for_exact_line() {
  _deadline=$(($(now_ms) + $(to_ms "${2:-10}")))
  while :; do
    T capture-pane -p -J -t "$pane" | sed 's/ *$//' >"$tmp/joined"
    grep -Fxq -- "$1" "$tmp/joined" && return 0
    [ "$(now_ms)" -lt "$_deadline" ] || fail "timed out after ${2:-10}s waiting for the line '$1'"
    sleep 0.05
  done
}

# expect_no_text ERE [WHAT]: the screen as it is now must not match.
expect_no_text() {
  snap
  if grep -Eq -- "$1" "$tmp/screen"; then fail "${2:-the screen} should not show /$1/"; fi
}

# line N of the screen (1-based), trailing blanks trimmed by tmux
screen_line() { snap; sed -n "${1}p" "$tmp/screen"; }

# the tab drawn bold in the title bar (the current view), e.g. "3 Ops"; capture-pane -e
# keeps the attributes. Bold marks the current tab both in colour and in monochrome.
active_tab() {
  esc=$(printf '\033')
  T capture-pane -e -p -t "$pane" | head -n 1 |
    sed -n "s/.*${esc}\[1m\(${esc}\[[0-9;]*m\)* \([1-6] [A-Za-z]*\) .*/\2/p"
}

# wait_for_tab "N Name" [SECONDS]: until the current (bold) tab is N Name.
wait_for_tab() {
  _deadline=$(($(now_ms) + $(to_ms "${2:-5}")))
  while :; do
    _tab=$(active_tab)
    [ "$_tab" = "$1" ] && return 0
    [ "$(now_ms)" -lt "$_deadline" ] || fail "the current tab should be '$1', not '$_tab'"
    sleep 0.05
  done
}

pane_flags() {
  T display -p -t "$pane" \
    'alternate_on=#{alternate_on} cursor_flag=#{cursor_flag} keypad_cursor_flag=#{keypad_cursor_flag} keypad_flag=#{keypad_flag} mouse_any_flag=#{mouse_any_flag}'
}

# children_of PID: the pids whose parent is PID (read from /proc, no procps needed)
children_of() {
  for _st in /proc/[0-9]*/stat; do
    { read -r _line <"$_st"; } 2>/dev/null || continue
    # fields after the command name "(comm)": state ppid ...
    _rest=${_line##*) }
    _ppid=${_rest#* }
    _ppid=${_ppid%% *}
    if [ "$_ppid" = "$1" ]; then
      _pid=${_st#/proc/}
      echo "${_pid%/stat}"
    fi
  done
}

# procs_mentioning TEXT: pids whose command line contains TEXT (grep reads the pattern
# from a file, so that its own command line does not match)
procs_mentioning() {
  printf '%s\n' "$1" >"$tmp/pattern"
  grep -laF -f "$tmp/pattern" /proc/[0-9]*/cmdline 2>/dev/null | sed 's|^/proc/||; s|/cmdline$||'
}

shell_pid() { T display -p -t "$pane" '#{pane_pid}'; }

# type TEXT: types TEXT literally into the pane and presses Enter
type_line() {
  T send-keys -t "$pane" -l -- "$1"
  T send-keys -t "$pane" Enter
}

# start_shell [WxH]: a new private tmux server with one window running /bin/sh in the
# source directory, a recognisable prompt, the terminal modes saved for restore checks.
start_shell() {
  _size=${1:-100x30}
  T new-session -d -s ascprof-test -x "${_size%x*}" -y "${_size#*x}" -c "$srcdir" \
    -e LC_ALL=C.UTF-8 -e TERM=xterm-256color -e ENV= -e HISTFILE=/dev/null \
    'exec /bin/sh' || fail "tmux could not start a session"
  socket_path=$(T display -p '#{socket_path}')
  # the shell's own first prompt ("$ " or "# "): from then on it reads what is typed
  wait_for_text '[^ ]' "$TMUX_WAIT"
  type_line "PS1='$PROMPT'; stty -g >'$tmp/stty.before'"
  wait_for_prompt "$TMUX_WAIT"
  wait_file "$tmp/stty.before"
}

wait_file() {
  _deadline=$(($(now_ms) + $(to_ms "$TMUX_WAIT")))
  while [ ! -s "$1" ]; do
    [ "$(now_ms)" -lt "$_deadline" ] || fail "the shell did not write $1"
    sleep 0.05
  done
}

# start_tui ARGS...: runs the explorer from the pane's shell (ARGS are single-quoted on
# the command line), then echoes its exit status as rc=N. Sets TUI_PID once the explorer
# has taken the terminal (alternate screen on).
start_tui() {
  _cmd="'$bin'"
  for _a in "$@"; do _cmd="$_cmd '$_a'"; done
  wait_for_prompt "$TMUX_WAIT"
  type_line clear
  wait_for_prompt "$TMUX_WAIT" only
  type_line "$_cmd; echo rc=\$?"
  _sh=$(shell_pid)
  _deadline=$(($(now_ms) + $(to_ms "$TMUX_WAIT")))
  TUI_PID=
  while :; do
    if [ "$(T display -p -t "$pane" '#{alternate_on}')" = 1 ]; then
      TUI_PID=$(children_of "$_sh" | head -n 1)
      [ -n "$TUI_PID" ] && break
    fi
    [ "$(now_ms)" -lt "$_deadline" ] || fail "the explorer did not start ($_cmd)"
    sleep 0.05
  done
}

# wait_exit [MAX_SECONDS]: waits for the explorer to be gone; sets ELAPSED_MS (from the
# time this was called, or from $T0 when set) and fails if it took longer.
wait_exit() {
  _max=$(to_ms "${1:-3}")
  _t0=${T0:-$(now_ms)}
  _deadline=$((_t0 + _max + 2000)) # keep polling a little past the limit to report how long
  while kill -0 "$TUI_PID" 2>/dev/null; do
    if [ "$(now_ms)" -ge "$_deadline" ]; then
      fail "the explorer (pid $TUI_PID) is still running $(((_deadline - _t0) / 1000))s later"
    fi
    sleep 0.02
  done
  ELAPSED_MS=$(($(now_ms) - _t0))
  [ "$ELAPSED_MS" -le "$_max" ] || fail "the explorer took ${ELAPSED_MS} ms to exit (limit ${_max} ms)"
  T0=
}

# expect_rc ALLOWED...: the exit status the shell printed after the explorer
expect_rc() {
  wait_for_text '^rc=[0-9]+$' "$TMUX_WAIT"
  _rc=$(sed -n 's/^rc=\([0-9]*\)$/\1/p' "$tmp/screen" | tail -n 1)
  for _ok in "$@"; do [ "$_rc" = "$_ok" ] && return 0; done
  fail "the explorer exited with status $_rc (expected one of: $*)"
}

# expect_restored: the explorer is gone and left the terminal as it found it: no
# alternate screen, cursor visible, keypad and mouse modes off, the same tty modes
# (stty -g), no process left under the shell, and the shell answers a command.
expect_restored() {
  # tmux reads the pane's output asynchronously: the last bytes the explorer wrote may
  # be parsed a moment after it is gone
  _deadline=$(($(now_ms) + $(to_ms "$TMUX_WAIT")))
  while :; do
    _flags=$(pane_flags)
    case $_flags in
      "alternate_on=0 cursor_flag=1 keypad_cursor_flag=0 keypad_flag=0 mouse_any_flag=0") break ;;
    esac
    [ "$(now_ms)" -lt "$_deadline" ] || fail "the terminal was not restored: $_flags"
    sleep 0.05
  done
  # the explorer may still be ending: the terminal is restored before it finishes writing
  # its indexes (q lets them finish)
  while _left=$(children_of "$(shell_pid)"); [ -n "$_left" ]; do
    [ "$(now_ms)" -lt "$_deadline" ] || fail "processes left under the shell: $_left"
    sleep 0.05
  done
  marker=$((marker + 1))
  rm -f "$tmp/stty.after"
  wait_for_prompt "$TMUX_WAIT"
  type_line "stty -g >'$tmp/stty.after'; echo ok-$marker"
  wait_for_text "^ok-$marker\$" "$TMUX_WAIT"
  wait_for_prompt "$TMUX_WAIT"
  wait_file "$tmp/stty.after"
  cmp -s "$tmp/stty.before" "$tmp/stty.after" ||
    fail "tty modes changed: before $(cat "$tmp/stty.before"), after $(cat "$tmp/stty.after")"
  TUI_PID=
}

# gen_capture DIR ARGS...: a generated capture under the test's temporary directory
gen_capture() {
  _out=$1
  shift
  [ -x "$gen" ] || { echo "FAIL: $test_name: no generator at $gen"; exit 1; }
  "$gen" --out "$_out" "$@" >"$tmp/gen.log" 2>&1 || {
    echo "FAIL: $test_name: ascprof-gen failed:"
    cat "$tmp/gen.log"
    exit 1
  }
}
