#!/usr/bin/env python3
# Copyright 2026 The Kiln Authors
# SPDX-License-Identifier: Apache-2.0
"""Issue 11's acceptance check of the profiling API, on an unmodified C program (prof_app.c):
it profiles N executions of a model; the profile must
  - name ONNX nodes of the model (read from the .onnx with the onnx package: the oracle),
  - have per-node durations (main graph) that sum, per execution, to no more than the execute
    time the program measured itself, and in the median execution to within --tolerance of it,
  - hold a Chrome trace that Perfetto's JSON importer takes: an object with traceEvents, every
    event with name/ph/pid, complete events with ts and dur, one track (pid, tid) per stream.
Usage: prof_check.py --app prof_app --kiln kiln --onnx m.onnx [--input_shape S] [--runs 5]
                     [--tolerance 0.15]"""
import argparse
import csv
import glob
import json
import os
import subprocess
import sys
import tempfile


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--app", required=True)
    ap.add_argument("--kiln", required=True)
    ap.add_argument("--onnx", required=True)
    ap.add_argument("--input_shape", default="")
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--tolerance", type=float, default=0.15)
    args = ap.parse_args()
    import onnx  # from .venv

    with tempfile.TemporaryDirectory() as tmp:
        om = os.path.join(tmp, "model")
        cmd = [args.kiln, "atc", "--framework=5", f"--model={args.onnx}", f"--output={om}"]
        if args.input_shape:
            cmd.append(f"--input_shape={args.input_shape}")
        subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)
        out = subprocess.run([args.app, om + ".om", tmp, str(args.runs)], check=True,
                             capture_output=True, text=True).stdout
        measured = [float(line.split()[1]) for line in out.splitlines()
                    if line.startswith("execute_us")]
        assert len(measured) == args.runs, out
        runs = glob.glob(os.path.join(tmp, "PROF_*"))
        assert len(runs) == 1, runs
        summary = glob.glob(os.path.join(runs[0], "summary", "op_summary_*.csv"))[0]
        with open(summary, newline="") as f:
            rows = list(csv.DictReader(f))
        names = {n.name for n in onnx.load(args.onnx).graph.node}
        per_infer = {}
        for r in rows:
            for origin in r["ONNX Nodes"].split(";"):
                assert origin in names, f"'{origin}' is not a node of {args.onnx}"
            if r["Body Depth"] == "0":
                per_infer[r["Infer ID"]] = per_infer.get(r["Infer ID"], 0.0) + float(
                    r["Task Duration(us)"])
        infers = sorted(per_infer, key=int)
        assert len(infers) == args.runs, infers
        # Each run: the nodes cannot take longer than the execute that holds them. Together: the
        # median run's nodes cover at least 1 - tolerance of it (the median, because one run the
        # scheduler preempted between two nodes says nothing about the profiler).
        failures = 0
        ratios = []
        for infer, wall in zip(infers, measured):
            ratio = per_infer[infer] / wall
            ratios.append(ratio)
            ok = ratio <= 1.0 + 1e-6
            failures += not ok
            print(f"infer {infer}: nodes sum {per_infer[infer]:.1f} us, measured {wall:.1f} us, "
                  f"ratio {ratio:.3f} {'ok' if ok else 'MORE THAN THE EXECUTE'}")
        median = sorted(ratios)[len(ratios) // 2]
        in_range = median >= 1 - args.tolerance
        failures += not in_range
        print(f"median ratio {median:.3f}, must be at least {1 - args.tolerance:.3f}: "
              f"{'ok' if in_range else 'OUT OF RANGE'}")
        trace_file = glob.glob(os.path.join(runs[0], "timeline", "msprof_*.json"))[0]
        with open(trace_file) as f:
            trace = json.load(f)
        assert isinstance(trace, dict) and isinstance(trace["traceEvents"], list)
        tracks = set()
        for e in trace["traceEvents"]:
            assert "name" in e and "ph" in e and "pid" in e, e
            if e["ph"] == "X":
                assert isinstance(e["ts"], (int, float)) and e["dur"] >= 0, e
                if e.get("cat") == "op":
                    tracks.add((e["pid"], e["tid"]))
        named = {(e["pid"], e["tid"]) for e in trace["traceEvents"]
                 if e["ph"] == "M" and e["name"] == "thread_name"}
        assert len(tracks) == 1 and tracks <= named, (tracks, named)
        print(f"{len(rows)} op rows, {len(names)} ONNX nodes, trace with "
              f"{len(trace['traceEvents'])} events on {len(tracks)} stream track(s)")
        return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
