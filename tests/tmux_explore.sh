#!/bin/sh
# SPDX-License-Identifier: MIT
# Real-terminal test of issue 19's navigation on fixtures/demo: switching rank keeps the
# Timeline's window (moved by the alignment, and back exactly); a kernel launched from two
# host ops, where ] [ follow the first flow and } { step through the others; q on the first
# view quits, with the terminal restored.
. "${ASCPROF_SRCDIR:-.}/tests/tmux_lib.sh"

t_start=$(now_ms)
start_shell 100x30
start_tui fixtures/demo
log "explorer started (pid $TUI_PID)"
wait_for_text '^ 1-8 views  Tab next .* \? help  q quit$' 20

# the Timeline zoomed to one decode step of rank 0
T send-keys -t "$pane" 2 :
T send-keys -t "$pane" -l 'zoom 21.3 27.5'
T send-keys -t "$pane" Enter
wait_for_line 2 '^ 21\.300 ms \.\. 27\.500 ms  \(6\.200 ms\)' 5
wait_for_text ' rank 0 \(1/2\)$' 5

# >: rank 1 at the same moment: the same span, not the whole window, moved by the
# collective alignment, which the status line gives
T send-keys -t "$pane" '>'
wait_for_text ' rank 1 \(2/2\)$' 5
wait_for_text '^ rank 1: the same window, aligned by collective \([+-][0-9.]+ [mu]?s\)' 5
wait_for_line 2 '^ [0-9.]+ ms \.\. [0-9.]+ ms  \(6\.200 ms\)' 5
# <: back on rank 0, the very same window
T send-keys -t "$pane" '<'
wait_for_text ' rank 0 \(1/2\)$' 5
wait_for_line 2 '^ 21\.300 ms \.\. 27\.500 ms  \(6\.200 ms\)' 5
# :rank 1 does the same as >
T send-keys -t "$pane" :
T send-keys -t "$pane" -l 'rank 1'
T send-keys -t "$pane" Enter
wait_for_text ' rank 1 \(2/2\)$' 5
wait_for_line 2 '^ [0-9.]+ ms \.\. [0-9.]+ ms  \(6\.200 ms\)' 5
T send-keys -t "$pane" '<'
wait_for_line 2 '^ 21\.300 ms \.\. 27\.500 ms  \(6\.200 ms\)' 5

# the MatMulV2 kernel on the device lane, launched from aten::mm and a CANN Node@launch
T send-keys -t "$pane" j j j l Enter
wait_for_text '^ MatMulV2  \[compute\]  rank 0 ' 5
wait_for_text '^ flows in \(\[\): aten::mm and 1 more \(\[ then }\)' 5
T send-keys -t "$pane" '['
wait_for_text '^ aten::mm  \[' 5
wait_for_text '^ followed flow 1 of 2 \(} next, \{ previous\)' 5
T send-keys -t "$pane" '}'
wait_for_text '^ Node@launch  \[scheduling\]  rank 0  CANN / ' 5
wait_for_text '^ followed flow 2 of 2 from MatMulV2 ' 5
T send-keys -t "$pane" '}'
wait_for_text '^ aten::mm  \[' 5
wait_for_text '^ followed flow 1 of 2 from MatMulV2 ' 5
T send-keys -t "$pane" '{'
wait_for_text '^ Node@launch  \[scheduling\]' 5
wait_for_text '^ followed flow 2 of 2 from MatMulV2 ' 5
# ] from the host op goes forward to the kernel again; with one flow, } has none other
T send-keys -t "$pane" ']'
wait_for_text '^ MatMulV2  \[compute\]  rank 0 ' 5
T send-keys -t "$pane" '}'
wait_for_text '^ no other flow to follow' 5

# q back to the Overview, where q quits
T send-keys -t "$pane" q
wait_for_text '^ 1-8 views  Tab next .* \? help  q quit$' 5
T0=$(now_ms)
T send-keys -t "$pane" q
wait_exit 2
log "q on the first view: the explorer exited in ${ELAPSED_MS} ms"
expect_rc 0
expect_restored

log "PASS in $(($(now_ms) - t_start)) ms"
exit 0
