#!/bin/sh
# SPDX-License-Identifier: MIT
# A lone kernel_details.csv (no trace, no step table) takes its steps from its Step Id
# column (issue 40, item 7): one step per value, from its first kernel's start to its last
# kernel's end, in time order whatever the rows' order, labelled "Step ID"; rows without a
# Step Id (N/A) belong to none. Without the column: no steps, as before.
bin=${ASCPROF_BIN:-./ascprof-tui}
[ -x "$bin" ] || { echo "SKIP: no binary"; exit 77; }
command -v python3 >/dev/null || { echo "SKIP: no python3"; exit 77; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/ascprof-stepid-XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT INT TERM
mkdir -p "$tmp/a" "$tmp/b"
# steps 7 and 9, rows out of time order; a row of step N/A between them
cat >"$tmp/a/kernel_details.csv" <<'CSV'
Step Id,Model ID,Task ID,Stream ID,Name,Type,Accelerator Core,Start Time(us),Duration(us),Wait Time(us),Block Dim
9,4294967295,5,2,MatMulV2,MatMulV2,AI_CORE,1000300.0,50.0,0,24
7,4294967295,1,2,MatMulV2,MatMulV2,AI_CORE,1000000.0,40.0,0,24
7,4294967295,2,2,RmsNorm,RmsNorm,AI_VECTOR_CORE,1000100.0,30.5,0,24
N/A,4294967295,3,2,Cast,Cast,AI_VECTOR_CORE,1000200.0,10.0,0,24
9,4294967295,4,2,RmsNorm,RmsNorm,AI_VECTOR_CORE,1000250.0,20.0,0,24
CSV
cut -d, -f2- "$tmp/a/kernel_details.csv" >"$tmp/b/kernel_details.csv"
"$bin" --report --json "$tmp/a/kernel_details.csv" >"$tmp/a.json" || exit 1
"$bin" --report --json "$tmp/b/kernel_details.csv" >"$tmp/b.json" || exit 1
python3 - "$tmp" <<'PY'
import json, sys
tmp = sys.argv[1]
a = json.load(open(f"{tmp}/a.json"))["ranks"][0]["steps"]
b = json.load(open(f"{tmp}/b.json"))["ranks"][0]["steps"]
got = [(s["label"], s["start_us"], s["dur_us"]) for s in a["list"]]
# relative to the first kernel (1000000 us): step 7 0..130.5, step 9 250..350
want = [("Step 7", 0.0, 130.5), ("Step 9", 250.0, 100.0)]
bad = []
if a["source"] != "the kernel table's Step Id" or len(got) != 2 or any(
        g[0] != w[0] or abs(g[1] - w[1]) > 1e-3 or abs(g[2] - w[2]) > 1e-3 for g, w in zip(got, want)):
    bad.append(f"with Step Id: source {a['source']!r}, steps {got}, want {want}")
if b["list"] or b["source"] != "none":
    bad.append(f"without Step Id: source {b['source']!r}, {len(b['list'])} steps, want none")
if bad:
    print("FAIL: " + "\nFAIL: ".join(bad))
    sys.exit(1)
print(f"kernel Step Id: {got}")
PY
