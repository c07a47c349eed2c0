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
The checks themselves are tests/tools/check_profile.py's; here the oracle for each execution's
time is the program's own clock.
Usage: prof_check.py --app prof_app --kiln kiln --onnx m.onnx [--input_shape S] [--runs 5]
                     [--tolerance 0.15]"""
import argparse
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tools"))
import check_profile  # noqa: E402


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--app", required=True)
    ap.add_argument("--kiln", required=True)
    ap.add_argument("--onnx", required=True)
    ap.add_argument("--input_shape", default="")
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--tolerance", type=float, default=0.15)
    args = ap.parse_args()

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
        run = check_profile.only_run(tmp)
        per_infer = check_profile.operator_time_per_execution(run, args.onnx)
        infers = sorted(per_infer, key=int)
        assert len(infers) == args.runs, infers
        failures = check_profile.check_coverage(
            [(k, per_infer[k], wall) for k, wall in zip(infers, measured)], args.tolerance)
        events = check_profile.check_trace(run)
        print(f"{len(infers)} executions, operators on one stream track, {events} trace events")
        return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
