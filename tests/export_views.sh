#!/bin/sh
# SPDX-License-Identifier: MIT
# :export from the Timeline, Ranks and Cluster views (issue 40, item 6), on a generated
# four-rank capture, each checked against an independent reading:
#   - the Timeline fitted to the rank: one row per complete event of rank 0's trace
#     (Python's json module counts them); zoomed: only events that overlap the view; with a
#     range (v ... v): only events that overlap the range, fewer than the view's;
#   - Ranks: one row per rank, compute_ms the JSON report's compute_us / 1000;
#   - Cluster: one row per rank and step, steps 1..N in order on every rank.
gen=${ASCPROF_GEN:-tools/ascprof-gen}
bin=${ASCPROF_BIN:-./ascprof-tui}
case $bin in /*) ;; *) bin=$(pwd)/$bin ;; esac
[ -x "$gen" ] && [ -x "$bin" ] || { echo "SKIP: no generator or binary"; exit 77; }
command -v python3 >/dev/null || { echo "SKIP: no python3"; exit 77; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/ascprof-export-XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT INT TERM
"$gen" --out "$tmp/cap" --ranks 4 --comm --steps 6 --ops 40 --seed 3 >/dev/null || exit 1
cat >"$tmp/keys" <<KEYS
2
Colon "export $tmp/tl_all.csv" Enter
Colon "zoom 10 20" Enter
Colon "export $tmp/tl_zoom.csv" Enter
v
Colon "zoom 10 30" Enter
v
Colon "export $tmp/tl_range.csv" Enter
5
Colon "export $tmp/ranks.csv" Enter
0
Colon "export $tmp/cluster.csv" Enter
KEYS
(cd "$tmp" && "$bin" --script "$tmp/keys" --size 100x30 cap >/dev/null 2>"$tmp/err") || { cat "$tmp/err"; exit 1; }
"$bin" --report --json "$tmp/cap" >"$tmp/report.json" || exit 1
trace=$(dirname "$(ls "$tmp"/cap/*/profiler_info_0.json)")/ASCEND_PROFILER_OUTPUT/trace_view.json
python3 - "$tmp" "$trace" <<'PY' || exit 1
import csv, json, sys
tmp, trace = sys.argv[1], sys.argv[2]
def rows(name):
    with open(f"{tmp}/{name}", newline="") as f:
        return list(csv.DictReader(f))
bad = []
ev = json.load(open(trace))
ev = ev["traceEvents"] if isinstance(ev, dict) else ev
complete = sum(1 for e in ev if e.get("ph") == "X")
al, zoom, rng = rows("tl_all.csv"), rows("tl_zoom.csv"), rows("tl_range.csv")
if len(al) != complete:
    bad.append(f"timeline fitted: {len(al)} rows, the trace has {complete} complete events")
def overlap(rs, a, b, what):
    for r in rs:
        s, d = float(r["start_ms"]), float(r["dur_us"]) / 1e3
        if not (s < b and s + d > a) and not (d == 0 and a <= s < b):
            bad.append(f"{what}: {r['name']} at {s} ms ({d} ms) is outside [{a}, {b})")
            return
overlap(zoom, 10, 20, "timeline zoomed")
overlap(rng, 15, 20, "timeline range")
if not zoom or not rng or len(rng) >= len(zoom):
    bad.append(f"timeline: {len(zoom)} rows in the view, {len(rng)} in the range inside it")
if {r["rank"] for r in al} != {"0"}:
    bad.append("timeline: rows of another rank than the selected one")
rep = json.load(open(f"{tmp}/report.json"))
ranks = rows("ranks.csv")
want = {str(r["rank"]): r["metrics"]["compute_us"] for r in rep["ranks"]}
got = {r["rank"]: float(r["compute_ms"]) * 1e3 for r in ranks}
if set(got) != set(want) or any(abs(got[k] - want[k]) > 0.01 for k in want):
    bad.append(f"ranks: compute {got} against the report's {want}")
cl = rows("cluster.csv")
for k in want:
    steps = [r["step"] for r in cl if r["rank"] == k]
    if steps != [str(i) for i in range(1, 7)]:
        bad.append(f"cluster: rank {k}'s steps {steps}")
if bad:
    print("FAIL: " + "\nFAIL: ".join(bad))
    sys.exit(1)
print(f"export: timeline {len(al)} events (all), {len(zoom)} in the view, {len(rng)} in the range; "
      f"{len(ranks)} ranks; {len(cl)} cluster rows")
PY
