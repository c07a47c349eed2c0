#!/usr/bin/env python3
# Copyright 2026 The Kiln Authors
# SPDX-License-Identifier: Apache-2.0
"""Compiles and runs every model of the public set with Kiln and compares it with onnxruntime.

    python3 tests/models/public_models_vs_onnxruntime.py --runner BUILD/tests/onnx/onnx_conformance
        --out DIR [--tolerances tests/models/tolerances.json] [--only A,B | --skip A,B]

1. tests/models/make_reference_data.py (run with <repo>/.venv/bin/python) writes each case's
   inputs and onnxruntime's outputs into DIR/public/<case>/ (cases already current are kept);
2. onnx_conformance --data-root=DIR --subsets=public --tolerances=FILE compiles each model to
   .om in-process, runs it through the AscendCL model API and compares every output;
3. a table is printed: model, outputs, max abs error, max rel error, tolerance, time, status.

The exit status is 0 when every selected case passes, 1 otherwise, 77 (skipped) when the .venv
with onnxruntime is missing. Every entry of the tolerance file except "default" must say why in
its "comment".
"""
import argparse
import json
import os
import re
import subprocess
import sys
import time

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
HERE = os.path.dirname(os.path.abspath(__file__))
SUBSET = "public"
EXIT_SKIP = 77


def parse_args(argv):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n", 1)[0])
    parser.add_argument("--runner", required=True, help="the onnx_conformance binary")
    parser.add_argument("--out", required=True, help="directory for the reference data")
    parser.add_argument("--tolerances", default=os.path.join(HERE, "tolerances.json"))
    parser.add_argument("--only", default="", help="comma-separated cases to run")
    parser.add_argument("--skip", default="", help="comma-separated cases not to run")
    parser.add_argument("--python", default=os.path.join(ROOT, ".venv", "bin", "python"),
                        help="the Python with onnx and onnxruntime (default: <repo>/.venv)")
    parser.add_argument("--json", default="", help="where the runner writes its results "
                        "(default: DIR/results_<pid>.json, removed afterwards)")
    return parser.parse_args(argv)


def split(s):
    return [x.strip() for x in s.split(",") if x.strip()]


def check_tolerances(path):
    """The tolerance file as a dict; every case entry must carry rtol, atol and a comment."""
    with open(path) as f:
        tolerances = json.load(f)
    for key, entry in tolerances.items():
        if key.startswith("_"):
            continue
        missing = [k for k in ("rtol", "atol", "comment") if k not in entry]
        if missing:
            raise ValueError(f"{path}: entry '{key}' lacks {', '.join(missing)}")
    return tolerances


def fmt(x):
    return f"{x:.2e}"


def print_table(cases, results, out_dir):
    header = ["model", "style", "outputs", "max abs err", "max rel err", "rtol", "atol",
              "compile s", "run s", "status"]
    rows = []
    for name in cases:
        r = results.get(f"{SUBSET}/{name}")
        meta_path = os.path.join(out_dir, SUBSET, name, "case.json")
        style = "?"
        if os.path.exists(meta_path):
            with open(meta_path) as f:
                style = json.load(f).get("style", "?")
        if r is None:
            rows.append([name, style, "-", "-", "-", "-", "-", "-", "-", "not run"])
            continue
        outs = r.get("outputs", [])
        worst = max(outs, key=lambda o: o["max_abs_err"])["name"] if outs else "-"
        rows.append([name, style, f"{len(outs)} (worst: {worst})" if len(outs) > 1 else worst,
                     fmt(r["max_abs_err"]), fmt(r["max_rel_err"]), f"{r['rtol']:g}",
                     f"{r['atol']:g}", f"{r['compile_ms'] / 1e3:.1f}", f"{r['run_ms'] / 1e3:.1f}",
                     r["status"]])
    widths = [max(len(str(row[i])) for row in rows + [header]) for i in range(len(header))]
    line = lambda row: "  ".join(str(c).ljust(w) for c, w in zip(row, widths)).rstrip()
    print("\n" + line(header))
    print(line(["-" * w for w in widths]))
    for row in rows:
        print(line(row))


def main(argv=None):
    args = parse_args(argv)
    if not os.access(args.python, os.X_OK):
        print(f"no Python environment at {args.python} (run scripts/setup.sh); skipping")
        return EXIT_SKIP
    probe = subprocess.run([args.python, "-c", "import onnx, onnxruntime, PIL"],
                           capture_output=True)
    if probe.returncode != 0:
        print(f"{args.python} lacks onnx/onnxruntime/pillow (run scripts/setup.sh); skipping")
        return EXIT_SKIP
    tolerances = check_tolerances(args.tolerances)

    script = os.path.join(HERE, "make_reference_data.py")
    listed = subprocess.run([args.python, script, "--list"], check=True, capture_output=True,
                            text=True).stdout.split()
    cases = split(args.only) or listed
    skip = set(split(args.skip))
    unknown = [c for c in list(cases) + sorted(skip) if c not in listed]
    if unknown:
        print(f"unknown case(s): {', '.join(unknown)} (known: {', '.join(listed)})")
        return 2
    cases = [c for c in cases if c not in skip]

    start = time.perf_counter()
    gen = subprocess.run([args.python, script, "--out", args.out, "--only", ",".join(cases)])
    print(f"reference data: {time.perf_counter() - start:.1f} s")
    sys.stdout.flush()
    if gen.returncode != 0:
        print("reference data generation failed")
        return 1

    json_path = args.json or os.path.join(args.out, f"results_{os.getpid()}.json")
    pattern = "^" + SUBSET + "/(" + "|".join(re.escape(c) for c in cases) + ")$"
    cmd = [args.runner, f"--data-root={args.out}", f"--subsets={SUBSET}", f"--filter={pattern}",
           f"--tolerances={args.tolerances}", f"--json={json_path}"]
    run = subprocess.run(cmd)
    if run.returncode != 0 or not os.path.exists(json_path):
        print(f"onnx_conformance exited with {run.returncode}")
        return 1
    with open(json_path) as f:
        results = json.load(f)["cases"]
    if not args.json:
        os.remove(json_path)

    print_table(cases, results, args.out)
    bad = [c for c in cases if results.get(f"{SUBSET}/{c}", {}).get("status") != "pass"]
    for c in bad:
        r = results.get(f"{SUBSET}/{c}")
        why = "not run" if r is None else f"{r['status']}: {r['message'][:300]}"
        print(f"FAILED {c}: {why}")
    default = tolerances.get("default", {})
    print(f"\n{len(cases) - len(bad)}/{len(cases)} public models match onnxruntime "
          f"(default rtol {default.get('rtol', 1e-3):g}, atol {default.get('atol', 1e-7):g}; "
          f"per-model tolerances and their reasons: {args.tolerances}); "
          f"{time.perf_counter() - start:.0f} s")
    return 0 if not bad else 1


if __name__ == "__main__":
    sys.exit(main())
