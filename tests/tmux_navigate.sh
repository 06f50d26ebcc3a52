#!/bin/sh
# SPDX-License-Identifier: MIT
# Real-terminal test: the explorer on fixtures/demo in a detached tmux session, driven by
# keys as a person would: Overview, 2 Timeline, 3 Ops, s sort, ? help, q back, Q quit.
# Each screen must show what it is for, the current tab must be the one drawn bold, and
# after Q the explorer must be gone at once with the terminal restored and the shell usable.
. "${ASCPROF_SRCDIR:-.}/tests/tmux_lib.sh"

t_start=$(now_ms)
# at 100 columns the program's name gives way to the tabs and the rank
tabs='^ 1 Overview  2 Timeline  3 Ops  4 Steps  5 Ranks  6 Bottleneck  7 Memory  8 Comm  0 +rank 0 \(1/2\)$'

start_shell 100x30
start_tui fixtures/demo
log "explorer started (pid $TUI_PID)"

# Overview: the one-screen triage, once the demo is loaded (the status line says so)
wait_for_text '^ 1-8 views  Tab next .* \? help  q quit$' 20
wait_for_text '^ Verdict \(rank 0\): NPU compute \(expected gain ' 5
wait_for_text "$tabs" 5
wait_for_text '^ Capture +fixtures/demo$' 5
wait_for_text '^ Rank +Window +NPU busy +Host-only' 5
wait_for_text '^ Warnings ' 5
wait_for_tab "1 Overview"

# 2: Timeline, Host/Device swimlanes
T send-keys -t "$pane" 2
wait_for_text '^ w/s zoom  a/d pan ' 5
wait_for_text "$tabs" 5
wait_for_text '^ Host$' 5
wait_for_text '^ Device$' 5
wait_for_text '^ Stream [0-9]+ ' 5
wait_for_text 'lane: [0-9]+ events? in view' 5
expect_no_text 'Verdict' "the Timeline"
wait_for_tab "2 Timeline"

# 3: Ops, sorted by total time
T send-keys -t "$pane" 3
wait_for_text '^ scope device   phase all   sort total   [0-9]+ ops$' 5
wait_for_text '^ name +count +total ms' 5
wait_for_text 'MatMulV2 +19 ' 5
wait_for_text '^ s sort  S reverse  c scope ' 5
wait_for_tab "3 Ops"
# the first row is the op with the largest total
wait_for_line 4 '^.MatMulV2 +19 ' 5

# s: the next sort column (count): MEMCPY_ASYNC and SDMA (28 each) come first
T send-keys -t "$pane" s
wait_for_text '^ scope device   phase all   sort count   [0-9]+ ops$' 5
wait_for_line 4 '^.(MEMCPY_ASYNC|SDMA) +28 ' 5

# ?: every key, from the action table
T send-keys -t "$pane" '?'
wait_for_text '^ j/k scroll  / search  q back ' 5
wait_for_text '^ Keys \(the same table drives dispatch, this screen and --list-keys\)$' 5
wait_for_text '^ Everywhere$' 5
wait_for_text '^   Q +quit +Quit at once$' 5
wait_for_tab "" # help is not one of the numbered views: no tab is current

# q: back to Ops, still sorted by count
T send-keys -t "$pane" q
wait_for_no_text '^ Keys \(the same table' 5
wait_for_text '^ scope device   phase all   sort count   [0-9]+ ops$' 5
wait_for_tab "3 Ops"

# Q: quits at once, the terminal restored, the shell usable
T0=$(now_ms)
T send-keys -t "$pane" Q
wait_exit 1
log "Q: the explorer exited in ${ELAPSED_MS} ms"
expect_rc 0
expect_restored
# the shell's own screen is back, with the command line that started the explorer
expect_line "${PROMPT}'$bin' 'fixtures/demo'; echo rc=\$?" "the shell's screen"

log "PASS in $(($(now_ms) - t_start)) ms"
exit 0
