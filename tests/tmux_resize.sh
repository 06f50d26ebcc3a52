#!/bin/sh
# SPDX-License-Identifier: MIT
# Real-terminal test: window resizes, as a person dragging a terminal's corner.
# 1. On fixtures/demo: sizes above, at and below the minimum (60x12); below it the screen
#    must say "terminal too small" with the size, at or above it the views draw again,
#    and the frame after the last resize must be the same as a full redraw (C-l).
# 2. A storm of 20 quick resizes (some tiny, some large) while a generated ~300 MB
#    capture loads: the explorer must survive, draw the Overview at 100x30 at the end
#    and quit cleanly with Q.
. "${ASCPROF_SRCDIR:-.}/tests/tmux_lib.sh"

# Every wait polls for a state; W is how long before a state that never comes fails the
# test. A loaded CI machine may take seconds for what takes milliseconds alone, and a
# generous limit costs nothing when the state comes.
W=$TMUX_WAIT

t_start=$(now_ms)

resize() {
  T resize-window -t "$pane" -x "$1" -y "$2" || fail "tmux could not resize to $1x$2"
}

# settled FILE MS: waits until the screen is the same three times in a row, 300 ms apart
# (tmux may parse a frame in pieces, and a loaded machine may deliver them late), leaving it
# in FILE and in $tmp/screen; false when it does not settle within MS.
settled() {
  _deadline=$(($(now_ms) + $2))
  _same=0
  snap
  cp "$tmp/screen" "$1"
  while [ "$_same" -lt 2 ]; do
    [ "$(now_ms)" -lt "$_deadline" ] || return 1
    sleep 0.3
    snap
    if cmp -s "$1" "$tmp/screen"; then
      _same=$((_same + 1))
    else
      _same=0
      cp "$tmp/screen" "$1"
    fi
  done
}

# expect_whole_frame W H ERE: waits for the frame at the new size (the status line on the
# last line, the tab bar on the first, ERE somewhere), then checks that a full redraw
# (C-l) changes nothing: what ncurses believes is on the screen is what is there.
expect_whole_frame() {
  wait_for_line "$2" ' \? help  q (back  Q )?quit$' "$W"
  wait_for_line 1 '^ (ascprof-tui  )?1 Overview' "$W"
  wait_for_text "$3" "$W"
  [ "$(T display -p -t "$pane" '#{pane_width}x#{pane_height}')" = "$1x$2" ] ||
    fail "the pane should be $1x$2"
  settled "$tmp/before-redraw" $((W * 1000)) || fail "$1x$2: the screen does not settle in ${W}s"
  T send-keys -t "$pane" C-l
  # a full redraw clears and repaints: compare the frame it settles on (a redraw that
  # has not started yet leaves the same screen, which is no failure either)
  settled "$tmp/after-redraw" $((W * 1000)) || fail "$1x$2: the screen does not settle after C-l in ${W}s"
  if ! cmp -s "$tmp/before-redraw" "$tmp/after-redraw"; then
    echo "--- before C-l ---"
    cat "$tmp/before-redraw"
    fail "$1x$2: a full redraw (C-l) changed the screen: the frame after the resize was incomplete"
  fi
}

# ---- 1. sizes around the minimum, on the demo --------------------------------------------
start_shell 100x30
start_tui fixtures/demo
wait_for_text '^ Verdict \(rank 0\)' "$W"

for size in 80x24 59x30 100x11 40x8 1x1 60x12 120x40 100x30; do
  w=${size%x*} h=${size#*x}
  resize "$w" "$h"
  if [ "$w" -lt 60 ] || [ "$h" -lt 12 ]; then
    if [ "$w" -eq 1 ]; then
      # one cell: the message is cut to an ellipsis, not wrapped
      wait_for_line 1 '^…$' "$W"
    else
      wait_for_line 1 '^terminal too small$' "$W"
      wait_for_line 2 "^${w}x${h}, need 60x12\$" "$W"
      expect_no_text '1 Overview  2 Timeline' "a too-small terminal"
    fi
  else
    # 12 lines leave no room for the verdict; 24 do
    if [ "$h" -ge 24 ]; then
      expect_whole_frame "$w" "$h" '^ Verdict \(rank 0\)'
    else
      expect_whole_frame "$w" "$h" '^ Capture +fixtures/demo$'
    fi
  fi
done
log "sizes 80x24 59x30 100x11 40x8 1x1 60x12 120x40 100x30: ok"

# the views draw at the minimum size too
resize 60 12
expect_whole_frame 60 12 '^ Capture +fixtures/demo$'
T send-keys -t "$pane" 3
wait_for_line 2 '^ scope device ' "$W"
wait_for_line 12 'Q quit$' "$W"
T send-keys -t "$pane" 2
wait_for_line 4 '^ Host$' "$W"
wait_for_line 12 'Q quit$' "$W"
T send-keys -t "$pane" 1
resize 100 30
expect_whole_frame 100 30 '^ Verdict \(rank 0\)'

T0=$(now_ms)
T send-keys -t "$pane" Q
wait_exit 10
expect_rc 0
expect_restored

# ---- 2. a resize storm while a ~300 MB capture loads -------------------------------------
t_gen=$(now_ms)
gen_capture "$tmp/cap" --ranks 1 --target-bytes 300000000
log "generated a $(du -sm "$tmp/cap" | cut -f1) MB capture in $(($(now_ms) - t_gen)) ms"

t_load=$(now_ms)
start_tui --no-index "$tmp/cap"
# a fast machine may be done before the first look: the storm then hits the Overview
wait_for_any "$W" '^ loading rank 0: ' '^ Verdict \(rank 0\)'
storm="100x30 61x13 59x11 30x5 160x50 80x24 1x1 200x60 60x12 45x20 120x8 100x30 70x20 10x3 90x40 60x11 150x45 64x16 20x20 100x30"
n=0
for size in $storm; do
  resize "${size%x*}" "${size#*x}"
  n=$((n + 1))
  # quick, but not so quick that tmux merges the resizes into one
  sleep 0.02
done
kill -0 "$TUI_PID" 2>/dev/null || fail "the explorer died during the resize storm"
# the first frame after the storm says whether it ended during the load
wait_for_any "$W" '^ (loading rank 0: |analysing )' '^ Verdict \(rank 0\)'
if [ "$MATCHED" = 1 ]; then phase="still loading"; else phase="loaded"; fi
log "$n resizes in $(($(now_ms) - t_load)) ms from the start, explorer alive, $phase"

# the explorer loads on and draws the Overview at the final size
wait_for_text '^ Verdict \(rank 0\)' "$W"
log "Overview drawn $(($(now_ms) - t_load)) ms after the start"
# the Verdict may be on screen before the frame at the final size is whole: wait for each
wait_for_text '^ Capture +/.*(/cap|…)$' "$W"
wait_for_exact_line ' 1 Overview  2 Timeline  3 Ops  4 Steps  5 Ranks  6 Bottleneck  7 Memory  8 Comm  0    rank 0 (1/1)' "$W"
expect_whole_frame 100 30 '^ Verdict \(rank 0\)'

T0=$(now_ms)
T send-keys -t "$pane" Q
wait_exit 10
expect_rc 0
expect_restored
[ -z "$(procs_mentioning "$tmp/cap")" ] || fail "processes still reading the capture: $(procs_mentioning "$tmp/cap")"

log "PASS in $(($(now_ms) - t_start)) ms"
exit 0
