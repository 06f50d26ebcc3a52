#!/bin/sh
# SPDX-License-Identifier: MIT
# The figures the README and the man page state hold (issue 40, item 11): each limit or
# constant the text gives is found, with the same value, where the code sets it, and each
# figure they quote of the demo is what the program prints for it (--report --json). A
# change of one of these in the code fails here until the text says the new figure.
srcdir=${ASCPROF_SRCDIR:-.}
bin=${ASCPROF_BIN:-./ascprof-tui}
man=$srcdir/man/ascprof-tui.1.in
readme=$srcdir/README.md
fail=0 n=0
# DOC|a fixed string of the text (on one line of it)|SOURCE|an ERE the source must match
while IFS='|' read -r doc text src code; do
  case $doc in ''|'#'*) continue ;; esac
  n=$((n + 1))
  if ! grep -qF -- "$text" "$srcdir/$doc"; then
    echo "FAIL: $doc no longer says \"$text\" (check its figure against $src)"
    fail=1
  elif ! grep -qE -- "$code" "$srcdir/$src"; then
    echo "FAIL: $doc says \"$text\" but $src no longer matches /$code/"
    fail=1
  fi
done <<'LIST'
man/ascprof-tui.1.in|At most 16 threads read one trace, and traces under 4 MiB|src/load/trace_internal.h|define MAX_THREADS 16$
man/ascprof-tui.1.in|At most 16 threads read one trace, and traces under 4 MiB|src/load/trace_internal.h|define PARALLEL_MIN_BYTES \(4u << 20\)
man/ascprof-tui.1.in|a single cell over 16 MB|src/load/csv_table.c|define CSVT_CELL_MAX \(16u << 20\)
man/ascprof-tui.1.in|A value longer than 16 MB is cut.|src/load/db_open.c|define DB_MAX_VALUE \(16 << 20\)
man/ascprof-tui.1.in|at most 4,096 CSV tables|src/load/discover.c|define DISCOVER_MAX_CSV 4096$
man/ascprof-tui.1.in|is walked at most 5 directories deep|src/load/discover.c|define MAX_DEPTH 5$
man/ascprof-tui.1.in|At most 10000 messages are kept.|src/base/diag.h|define DIAG_MAX 10000$
man/ascprof-tui.1.in|instead of 64 KiB|src/load/capture.c|define CAPTURE_CSV_INDEX_MIN \(UINT64_C\(64\) << 10\)
man/ascprof-tui.1.in|Below 60 columns or 12 lines|tui/app.c|define MIN_W 60$
man/ascprof-tui.1.in|Below 60 columns or 12 lines|tui/app.c|define MIN_H 12$
man/ascprof-tui.1.in|instances (up to 5000, in time order) and the CSV rows of the same name (up to 2000 per|tui/views/view_ops.c|i < d->n_inst && i < 5000;
man/ascprof-tui.1.in|instances (up to 5000, in time order) and the CSV rows of the same name (up to 2000 per|tui/views/view_ops.c|shown < 2000;
man/ascprof-tui.1.in|rows in the Timeline; 16 marks; 32 zoom levels to undo|tui/views/view_timeline.c|define MAX_MARKS 16$
man/ascprof-tui.1.in|rows in the Timeline; 16 marks; 32 zoom levels to undo|tui/views/view_timeline.c|define MAX_UNDO 32$
man/ascprof-tui.1.in|5000 instances and 2000 CSV rows per table in the Op detail view; 200 per\-op|tui/views/view_timeline.c|define OP_ROWS 200$
man/ascprof-tui.1.in|that outlive their parents leave gaps in the nesting), at most 24 rows.|tui/views/view_timeline.c|define STACK_ROWS 24 
man/ascprof-tui.1.in|Fit the whole window of the rank (plus 1 %).|tui/views/view_timeline.c|pad = span / 100 \+ 1;
man/ascprof-tui.1.in|modules below 0.05 MB are counted on one line|tui/views/view_memory.c|peak_reserved_mb >= 0\.05
man/ascprof-tui.1.in|the name column takes up to 40 % of the width|tui/views/view_ops.c|w \* 2 / 5
man/ascprof-tui.1.in|Time the device neither runs a task nor takes part in a collective, in gaps of 50 us or|src/analysis/metrics.h|define IDLE_MIN_GAP_NS 50000$
LIST

# the thresholds table against the program's own (--report --json "thresholds"), and the
# README's figures of the demo against what the program prints for it
if [ -x "$bin" ] && command -v python3 >/dev/null; then
  n=$((n + 1))
  json=$(mktemp "${TMPDIR:-/tmp}/ascprof-docfig-XXXXXX") || exit 1
  trap 'rm -f "$json"' EXIT INT TERM
  "$bin" --report --json "$srcdir/fixtures/demo" >"$json" 2>/dev/null || { echo "FAIL: --report --json on the demo"; exit 1; }
  python3 - "$json" "$man" "$readme" <<'PY' || fail=1
import json, re, sys
rep, man, readme = json.load(open(sys.argv[1])), open(sys.argv[2]).read(), open(sys.argv[3]).read()
bad = []
def num(x):
    return ("%g" % x)
for t in rep["thresholds"]:
    # "host dispatch  host_bound_pct            10 %        50 %   yes"
    row = re.search(r"^%s\s+%s\s+(\S+)" % (re.escape(t["candidate"]), re.escape(t["metric"])) + r"[^\n]*?(\d[\d.]*)(?: %)?\s+(yes|context)$", man, re.M)
    if not row or row.group(1) != num(t["threshold"]) or row.group(2) != num(t["full_score_at"]) \
            or (row.group(3) == "yes") != t["scored"]:
        bad.append(f"man page thresholds: {t['metric']} is {num(t['threshold'])}, full at {num(t['full_score_at'])}, "
                   f"scored {t['scored']}; the page's row: {row.group(0) if row else 'none'}")
r0, r1 = rep["ranks"][0], rep["ranks"][1]
claims = [
    (f"its device is busy {r0['metrics']['npu_busy_pct']:.0f} % of the window", "rank 0's npu_busy_pct"),
    (f"idles) is {r0['metrics']['host_copy_exposed_pct']:.1f} %", "rank 0's host_copy_exposed_pct"),
    (f"on the demo: {r1['align']['offset_us']['collective']:.3f} us", "rank 1's collective offset"),
    (f"the first-event offset says {r1['align']['offset_us']['first']:.3f} us", "rank 1's first-event offset"),
]
ov = [c for c in r0["crosschecks"] if c["source"] == "Overlap Analysis lane"]
worst = max(abs(c[k]["diff_pct"]) for c in ov for k in ("computing", "communication_not_overlapped", "free"))
claims.append((f"Analysis lane agrees to {worst:.2f} %", "the Overlap Analysis lane's largest difference"))
flat = re.sub(r"\s+", " ", readme)
for text, what in claims:
    if text not in flat:
        bad.append(f"README: \"{text}\" ({what}, as the program prints it) is not in the text")
if bad:
    print("FAIL: " + "\nFAIL: ".join(bad))
    sys.exit(1)
PY
fi
[ $fail -eq 0 ] || exit 1
echo "doc figures: $n checks of the README's and the man page's figures against the code and the program"
