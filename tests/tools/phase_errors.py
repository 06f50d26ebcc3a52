#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Phase errors per capture shape: generates captures with ascprof-gen (several seeds, with
and without ProfilerStep markers, and rewritten to vLLM-Ascend's default export), reads each
rank's steps from `ascprof-tui --report --json` and compares them per step with the planted
ground_truth.txt. A step read `unknown` counts as an error; so does a step count that differs
(all of that rank's steps). Confident errors (a wrong phase, not unknown, stated with medium or
high confidence: the worst defect) are counted apart, after the errors ("conf N"). Usage, from a
build directory:

    python3 ../wt/tests/tools/phase_errors.py [--seeds N] [--steps N] [--variant V] [SHAPE ...]

where SHAPE is a --shape value (default: every shape issue 34 names) and V one of the
variants (markers, none, default-export, no-shapes; default: all)."""
import argparse
import json
import os
import subprocess
import tempfile

SHAPES = ["vllm", "vllm,short", "vllm,legacy", "vllm,mla", "vllm,mixed=4", "vllm,mla,mixed=4",
          "vllm,graph", "vllm,graph,short", "vllm,graph,mixed=4", "vllm,graph,mla,mixed=4",
          "vllm,annotate,mixed=4", "vllm,moe,mixed=4", "vllm,mla,moe,graph,mixed=4", "marked"]
VARIANTS = [("markers", ["--step-marks", "profilerstep"]), ("none", ["--step-marks", "none"]),
            ("default-export", ["--step-marks", "profilerstep", "--default-export"]),
            ("no-shapes", ["--step-marks", "profilerstep", "--default-export"])]


def truth(path):
    t = {}
    with open(path) as f:
        for line in f:
            if "=" in line:
                k, v = line.rstrip("\n").split("=", 1)
                t[k] = v
    return t


def run(gen, tui, shape, name, extra, seed, steps, prefill, ranks):
    with tempfile.TemporaryDirectory() as d:
        out = os.path.join(d, "c")
        args = [gen, "--out", out, "--steps", str(steps), "--prefill", str(prefill), "--ops", "40",
                "--ranks", str(ranks), "--seed", str(seed)]
        if shape != "marked":
            args += ["--shape", shape]
        elif extra and extra[0] == "--step-marks":  # the marked shape's own markers, or none
            extra = [] if "--default-export" in extra or extra[1] == "profilerstep" else extra
            extra = extra + ["--default-export"] if name in ("default-export", "no-shapes") else extra
        subprocess.run(args + extra, check=True, stdout=subprocess.DEVNULL)
        if name == "no-shapes":  # a level without Input Shapes: the column renamed away
            for root, _, files in os.walk(out):
                if "kernel_details.csv" in files:
                    subprocess.run(["sed", "-i", "1s/Input Shapes/Input Shapez/",
                                    os.path.join(root, "kernel_details.csv")], check=True)
        t = truth(os.path.join(out, "ground_truth.txt"))
        rep = json.loads(subprocess.run([tui, "--no-index", "--report", "--json", out], check=True,
                                        capture_output=True).stdout)
    planted = wrong = confident = 0
    for r in rep["ranks"]:
        n = int(t["rank.%d.steps" % r["rank"]])
        got = r["steps"]["list"]
        planted += n
        if len(got) != n:
            wrong += n
            continue
        for k, s in enumerate(got):
            bad = s["phase"] != t["rank.%d.step.%d.phase" % (r["rank"], k)]
            wrong += bad
            confident += bad and s["phase"] != "unknown" and s["phase_confidence"] in ("medium", "high")
    return planted, wrong, confident


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--gen", default="./tools/ascprof-gen")
    ap.add_argument("--tui", default="./ascprof-tui")
    ap.add_argument("--seeds", type=int, default=3)
    ap.add_argument("--steps", type=int, default=40)
    ap.add_argument("--prefill", type=int, default=10)
    ap.add_argument("--variant", choices=[v[0] for v in VARIANTS])
    ap.add_argument("shapes", nargs="*", default=SHAPES)
    a = ap.parse_args()
    for shape in a.shapes:
        cells = []
        for name, extra in VARIANTS:
            if a.variant and name != a.variant:
                continue
            planted = wrong = confident = 0
            for seed in range(1, a.seeds + 1):
                p, w, c = run(a.gen, a.tui, shape, name, extra, seed, a.steps, a.prefill,
                              (2, 4, 1)[(seed - 1) % 3])
                planted += p
                wrong += w
                confident += c
            cells.append("%s %d/%d (%.1f %%, conf %d)" % (name, wrong, planted, 100.0 * wrong / planted,
                                                        confident))
        print("%-22s %s" % (shape, "  ".join(cells)), flush=True)


if __name__ == "__main__":
    main()
