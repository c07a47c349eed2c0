#!/usr/bin/env python3
# Copyright 2026 The Kiln Authors
# SPDX-License-Identifier: Apache-2.0
"""Checks a profile a program left (issue 11: "kiln prof --application produces the same for the
official sample programs without changing them"); tests/capi/prof_check.py uses its checks too:
  - exactly one PROF_* folder, with op_summary, api_statistic, task_time and the timeline;
  - every operator row names ONNX nodes of the model (read with the onnx package: the oracle);
  - per execution, the main graph's node durations sum to no more than that execution's time
    (here its ModelExecute task), and in the median execution to at least 1 - --tolerance of it;
  - the timeline is a Chrome trace (traceEvents; name/ph/pid on every event; complete events
    with ts and dur) with the operators on one named stream track.
Usage: check_profile.py --out DIR --onnx M.onnx [--executions N] [--tolerance 0.15]
Prints one line per execution and exits 1 when a check fails."""
import argparse
import csv
import glob
import json
import os
import sys


def only_run(out):
    runs = glob.glob(os.path.join(out, "PROF_*"))
    assert len(runs) == 1, f"one PROF_* folder expected under {out}: {runs}"
    return runs[0]


def read_csv(run, prefix):
    files = glob.glob(os.path.join(run, "summary", prefix + "_*.csv"))
    assert len(files) == 1, f"{prefix}: {files}"
    with open(files[0], newline="") as f:
        return list(csv.DictReader(f))


def operator_time_per_execution(run, onnx_path):
    """{Infer ID: summed main-graph operator µs}, after checking each row's ONNX node names."""
    import onnx
    names = {n.name for n in onnx.load(onnx_path).graph.node}
    per_infer = {}
    for r in read_csv(run, "op_summary"):
        for origin in r["ONNX Nodes"].split(";"):
            assert origin in names, f"'{origin}' is not a node of {onnx_path}"
        if r["Body Depth"] == "0":
            per_infer[r["Infer ID"]] = per_infer.get(r["Infer ID"], 0.0) + float(
                r["Task Duration(us)"])
    assert per_infer, "no operator rows"
    return per_infer


def check_coverage(pairs, tolerance):
    """pairs: (label, operator µs, execution µs). Each execution: the operators cannot take longer
    than the execution that holds them. Together: the median execution's operators cover at
    least 1 - tolerance of it (the median, because one run the scheduler preempted between two
    nodes says nothing about the profiler). Prints a line each; returns the failures."""
    failures = 0
    ratios = []
    for label, ops_us, exec_us in pairs:
        ratio = ops_us / exec_us
        ratios.append(ratio)
        ok = ratio <= 1.0 + 1e-6
        failures += not ok
        print(f"execution {label}: operators {ops_us:.1f} us of {exec_us:.1f} us, ratio "
              f"{ratio:.3f}{'' if ok else ' MORE THAN THE EXECUTION'}")
    median = sorted(ratios)[len(ratios) // 2]
    in_range = median >= 1 - tolerance
    failures += not in_range
    print(f"median ratio {median:.3f} (at least {1 - tolerance:.3f}: "
          f"{'ok' if in_range else 'OUT OF RANGE'})")
    return failures


def check_trace(run):
    """The timeline: a Chrome trace Perfetto takes, operators on one named stream track."""
    timelines = glob.glob(os.path.join(run, "timeline", "msprof_*.json"))
    assert len(timelines) == 1, timelines
    with open(timelines[0]) as f:
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
    return len(trace["traceEvents"])


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", required=True)
    ap.add_argument("--onnx", required=True)
    ap.add_argument("--executions", type=int, default=0, help="expected count (0: any, >= 1)")
    ap.add_argument("--tolerance", type=float, default=0.15)
    args = ap.parse_args()
    run = only_run(args.out)
    per_infer = operator_time_per_execution(run, args.onnx)
    executes = {t["detail"].split("#")[-1]: float(t["task_time(us)"])
                for t in read_csv(run, "task_time") if t["kernel_name"] == "ModelExecute"}
    assert read_csv(run, "api_statistic"), "no acl* call in the API statistics"
    assert sorted(per_infer) == sorted(executes), (sorted(per_infer), sorted(executes))
    if args.executions:
        assert len(per_infer) == args.executions, f"{len(per_infer)} executions profiled"
    failures = check_coverage([(k, per_infer[k], executes[k]) for k in sorted(per_infer, key=int)],
                              args.tolerance)
    events = check_trace(run)
    print(f"profile {os.path.basename(run)}: {len(per_infer)} executions, operators on one "
          f"stream track, {events} trace events")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
