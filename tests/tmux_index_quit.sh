#!/bin/sh
# SPDX-License-Identifier: MIT
# Real-terminal test: the explorer writes its indexes after publication, on its loader's
# thread (src/load/trace_index.c, tindex_defer); the writes are held back here
# (ASCPROF_INDEX_WRITE_DELAY_MS) so that quitting finds them pending:
#   q: the terminal is restored first (alternate screen off while the process still runs),
#      a line says the indexes are being finished, then they are written and the process
#      ends with status 0; the next open uses them (--summary: "index: used");
#   q then Ctrl-C while it waits: abandoned, status 130, no index and no temporary file;
#   SIGINT while exploring: the same.
# Each time the terminal is left as found (tmux_lib.sh's expect_restored).
. "${ASCPROF_SRCDIR:-.}/tests/tmux_lib.sh"

t_start=$(now_ms)
loaded='^ Verdict \(rank 0\)'
gen_capture "$tmp/cap" --ranks 2 --ops 30 --steps 4
idx=$tmp/idx
start_shell 100x30
type_line "export ASCPROF_INDEX_WRITE_DELAY_MS=4000"

# index files (*.idx) and temporary ones (.tmp-*) in the index directory
count() { find "$idx" -name "$1" 2>/dev/null | wc -l; }

# q: restored before the writes, which then finish
start_tui --index-dir "$idx" "$tmp/cap"
wait_for_text "$loaded" 60
pid=$TUI_PID
T send-keys -t "$pane" q
_deadline=$(($(now_ms) + 3000))
while [ "$(T display -p -t "$pane" '#{alternate_on}')" != 0 ]; do
  [ "$(now_ms)" -lt "$_deadline" ] || fail "q: the terminal was not restored within 3 s"
  sleep 0.02
done
kill -0 "$pid" 2>/dev/null || fail "q: the explorer was gone before its delayed index writes"
[ "$(count '*.idx')" -eq 0 ] || fail "q: indexes written before the delay"
wait_for_text "finishing this capture's indexes" 10
wait_exit 15
expect_rc 0
expect_restored
[ "$(count '*.idx')" -gt 0 ] || fail "q: no index written"
[ "$(count '.tmp-*')" -eq 0 ] || fail "q: a temporary file left"
used=$(ASCPROF_INDEX_WRITE_DELAY_MS=0 "$bin" --summary --index-dir "$idx" "$tmp/cap" 2>/dev/null | grep -c '^  index: used')
[ "$used" -eq 2 ] || fail "q: the next open used $used rank indexes, not 2"
log "q: restored at once, indexes written after it ($(count '*.idx') files), used on the next open"

# q, then Ctrl-C while it waits for the writes: abandoned
rm -rf "$idx"
start_tui --index-dir "$idx" "$tmp/cap"
wait_for_text "$loaded" 60
T send-keys -t "$pane" q
wait_for_text "finishing this capture's indexes" 10
T0=$(now_ms)
T send-keys -t "$pane" C-c
wait_exit 3
# the terminal is the shell's again: it echoes the ^C before the status line
wait_for_text '^(\^C)?rc=130$' "$TMUX_WAIT"
expect_restored
[ "$(count '*.idx')" -eq 0 ] || fail "Ctrl-C: $(count '*.idx') indexes written, none expected"
[ "$(count '.tmp-*')" -eq 0 ] || fail "Ctrl-C: a temporary file left"
log "q then Ctrl-C: gone in ${ELAPSED_MS} ms, no index, no temporary file"

# SIGINT while exploring, the writes pending
rm -rf "$idx"
start_tui --index-dir "$idx" "$tmp/cap"
wait_for_text "$loaded" 60
T0=$(now_ms)
kill -INT "$TUI_PID"
wait_exit 3
expect_rc 130
expect_restored
[ "$(count '*.idx')" -eq 0 ] || fail "SIGINT: $(count '*.idx') indexes written, none expected"
[ "$(count '.tmp-*')" -eq 0 ] || fail "SIGINT: a temporary file left"
log "SIGINT: gone in ${ELAPSED_MS} ms, no index, no temporary file"

log "PASS in $(($(now_ms) - t_start)) ms"
exit 0
