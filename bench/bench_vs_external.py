#!/usr/bin/env python3
# Copyright 2026 The Kiln Authors
# SPDX-License-Identifier: Apache-2.0
"""Checks `kiln bench`'s median latency against an external timer on the same model (issue 11:
"within 5 % of what an external timer measures"). Run it on an idle machine:

    .venv/bin/python bench/bench_vs_external.py --resnet50            # generates and compiles it
    .venv/bin/python bench/bench_vs_external.py --model M.om [--blocks 6 --loop 100]
    .venv/bin/python bench/bench_vs_external.py --model M.onnx --input_shape "x:1,3,224,224"
    .venv/bin/python bench/bench_vs_external.py --model M.om --external model_bench

The external timer is a separate process that keeps the model loaded and, per execution, does
what `kiln bench` does (inputs copied in, the model executed, outputs copied out) but times only
the execution, with its own clock: by default a pyACL loop timing `acl.mdl.execute` with
time.perf_counter; with --external model_bench, bench/model_bench --serve (steady_clock around
aclmdlExecute). Both use the same input bytes. Blocks alternate (kiln, external, external,
kiln, ...) so that a drift of the machine affects both alike; each `kiln bench` block is a fresh
process (its cold start is not in the median). Prints each block's two medians, the median of
the block medians, their ratio, whether it is within --tolerance, and the load average before
and after. The model must have static shapes (compile with --input_shape; gears and --dymShape
are not passed on). Exit status 0 when it ran (it measures; it does not judge the machine), 1 on
a failure to run.
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

import numpy as np

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), ".."))
BUILD = os.path.join(ROOT, "build", "release")


def serve_pyacl(model, device, inputs):
    """The pyACL external timer: reads lines "N" from stdin, prints {"runs_ms": [...]}."""
    import acl

    def check(what, ret):
        if ret != 0:
            raise SystemExit(f"{what} failed with {ret}: {acl.get_recent_err_msg()}")

    check("acl.init", acl.init())
    check("acl.rt.set_device", acl.rt.set_device(device))
    context, ret = acl.rt.create_context(device)
    check("acl.rt.create_context", ret)
    model_id, ret = acl.mdl.load_from_file(model)
    check("acl.mdl.load_from_file", ret)
    desc = acl.mdl.create_desc()
    check("acl.mdl.get_desc", acl.mdl.get_desc(desc, model_id))

    def dataset(count, size_of):
        ds, bufs = acl.mdl.create_dataset(), []
        for i in range(count):
            size = size_of(desc, i)
            ptr, ret = acl.rt.malloc(size, 0)
            check("acl.rt.malloc", ret)
            _, ret = acl.mdl.add_dataset_buffer(ds, acl.create_data_buffer(ptr, size))
            check("acl.mdl.add_dataset_buffer", ret)
            bufs.append((ptr, size))
        return ds, bufs

    in_ds, in_bufs = dataset(acl.mdl.get_num_inputs(desc), acl.mdl.get_input_size_by_index)
    out_ds, out_bufs = dataset(acl.mdl.get_num_outputs(desc), acl.mdl.get_output_size_by_index)
    if len(inputs) != len(in_bufs):
        raise SystemExit(f"the model has {len(in_bufs)} inputs, got {len(inputs)} files")
    data = [open(p, "rb").read() for p in inputs]
    hosts = []
    for _, size in out_bufs:
        host, ret = acl.rt.malloc_host(size)
        check("acl.rt.malloc_host", ret)
        hosts.append(host)

    def run():
        for (ptr, size), d in zip(in_bufs, data):
            check("acl.rt.memcpy", acl.rt.memcpy(ptr, size, acl.util.bytes_to_ptr(d), len(d), 1))
        t0 = time.perf_counter()
        check("acl.mdl.execute", acl.mdl.execute(model_id, in_ds, out_ds))
        t1 = time.perf_counter()
        for (ptr, size), host in zip(out_bufs, hosts):
            check("acl.rt.memcpy", acl.rt.memcpy(host, size, ptr, size, 2))
        return (t1 - t0) * 1000

    print(json.dumps({"ready": True}), flush=True)
    for line in sys.stdin:
        if line.strip():
            print(json.dumps({"runs_ms": [run() for _ in range(int(line))]}), flush=True)
    acl.mdl.unload(model_id)
    acl.rt.destroy_context(context)
    acl.rt.reset_device(device)
    acl.finalize()


class External:
    """The external timer's process, kept loaded across blocks."""

    def __init__(self, args, inputs):
        if args.external == "pyacl":
            cmd = [sys.executable, __file__, "--device", str(args.device), "--serve-pyacl",
                   args.model, *inputs]
            self.unit = 1.0
        else:
            cmd = [args.model_bench, f"--model={args.model}", f"--device={args.device}",
                   "--warmup=0", "--serve", *[f"--input={p}" for p in inputs]]
            self.unit = 1e-3  # model_bench prints microseconds
        env = dict(os.environ)
        env.setdefault("PYTHONPATH", os.path.join(BUILD, "python"))
        self.proc = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     text=True, env=env)
        line = self.proc.stdout.readline()
        if not line or not json.loads(line).get("ready"):
            raise SystemExit(f"the external timer did not start: {' '.join(cmd)}")

    def times(self, n):
        self.proc.stdin.write(f"{n}\n")
        self.proc.stdin.flush()
        reply = json.loads(self.proc.stdout.readline())
        return [t * self.unit for t in reply.get("runs_ms", reply.get("runs_us", []))]

    def close(self):
        self.proc.stdin.close()
        self.proc.wait(timeout=60)


def kiln_block(args, inputs, summary_path):
    cmd = [args.kiln, "bench", "--model", args.model, "--loop", str(args.loop),
           "--warmup_count", str(args.warmup), "--device", str(args.device), "--json",
           summary_path]
    if inputs:
        cmd += ["--input", ",".join(inputs)]
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)
    with open(summary_path) as f:
        return json.load(f)


def prepare_model(args, work):
    if args.resnet50:
        models = os.path.join(ROOT, "build", "models")
        onnx = os.path.join(models, "resnet50_v1.5.onnx")
        if not os.path.exists(onnx):
            subprocess.run([sys.executable, os.path.join(ROOT, "scripts", "gen_models.py"),
                            "--out", models, "--only", "resnet50"], check=True)
        args.model = onnx
        args.input_shape = args.input_shape or "input:1,3,224,224"
    if args.model.endswith(".onnx"):
        out = os.path.join(work, "model")
        shape = [f"--input_shape={args.input_shape}"] if args.input_shape else []
        subprocess.run([args.kiln, "atc", "--framework=5", f"--model={args.model}",
                        f"--output={out}", *shape], check=True, stdout=subprocess.DEVNULL)
        args.model = out + ".om"


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n", 1)[0])
    p.add_argument("--model", help=".om (or .onnx, compiled once first)")
    p.add_argument("--input_shape", help="kiln atc --input_shape for an .onnx --model")
    p.add_argument("--resnet50", action="store_true",
                   help="use scripts/gen_models.py's ResNet-50 (generated into build/models)")
    p.add_argument("--kiln", default=os.path.join(BUILD, "tools", "kiln", "kiln"))
    p.add_argument("--external", choices=["pyacl", "model_bench"], default="pyacl")
    p.add_argument("--model_bench", default=os.path.join(BUILD, "bench", "model_bench"))
    p.add_argument("--blocks", type=int, default=6, help="blocks of each (default 6)")
    p.add_argument("--loop", type=int, default=100, help="timed executions per block")
    p.add_argument("--warmup", type=int, default=5, help="untimed executions per block")
    p.add_argument("--device", type=int, default=0)
    p.add_argument("--tolerance", type=float, default=0.05)
    p.add_argument("--json", help="write the measurements here")
    p.add_argument("--serve-pyacl", nargs="+", metavar=("MODEL", "INPUT"),
                   help=argparse.SUPPRESS)
    args = p.parse_args(argv)
    if args.serve_pyacl:
        return serve_pyacl(args.serve_pyacl[0], args.device, args.serve_pyacl[1:])
    if not args.model and not args.resnet50:
        p.error("give --model or --resnet50")

    with tempfile.TemporaryDirectory(prefix="kiln-bench-vs-") as work:
        prepare_model(args, work)
        summary_path = os.path.join(work, "summary.json")
        # The model's inputs, from a one-execution run; the same random bytes go to both.
        first = kiln_block(argparse.Namespace(**{**vars(args), "loop": 1, "warmup": 0}), [],
                           summary_path)
        inputs = []
        for i, t in enumerate(first["inputs"]):
            path = os.path.join(work, f"input_{i}.bin")
            with open(path, "wb") as f:  # floats uniform in [-1, 1), other types 0
                if t["dtype"] == "float32":
                    f.write(np.random.default_rng(i).uniform(-1, 1, t["bytes"] // 4)
                            .astype(np.float32).tobytes())
                else:
                    f.write(bytes(t["bytes"]))
            inputs.append(path)
        load_before = os.getloadavg()
        ext = External(args, inputs)
        rows = []
        try:
            for b in range(args.blocks):
                order = ("kiln", "external") if b % 2 == 0 else ("external", "kiln")
                row = {}
                for who in order:
                    if who == "kiln":
                        s = kiln_block(args, inputs, summary_path)
                        row["kiln"] = s["latency_ms"]["median"]
                        row["kiln_series"] = s["series_ms"]["compute"]
                    else:
                        ext.times(args.warmup)
                        series = ext.times(args.loop)
                        row["external"] = statistics.median(series)
                        row["external_series"] = series
                rows.append(row)
                print(f"block {b}: kiln bench median {row['kiln']:.3f} ms, external "
                      f"({args.external}) median {row['external']:.3f} ms, ratio "
                      f"{row['kiln'] / row['external']:.4f}", flush=True)
        finally:
            ext.close()
        load_after = os.getloadavg()

    kiln_median = statistics.median(r["kiln"] for r in rows)
    ext_median = statistics.median(r["external"] for r in rows)
    ratio = kiln_median / ext_median
    pooled = (statistics.median(t for r in rows for t in r["kiln_series"]) /
              statistics.median(t for r in rows for t in r["external_series"]))
    within = abs(ratio - 1) <= args.tolerance
    print(f"model: {args.model}")
    print(f"kiln bench median (median of {len(rows)} blocks x {args.loop}): {kiln_median:.3f} ms")
    print(f"external timer ({args.external}) median: {ext_median:.3f} ms")
    print(f"ratio kiln/external: {ratio:.4f} ({(ratio - 1) * 100:+.2f} %; pooled samples "
          f"{pooled:.4f}); within {args.tolerance * 100:g} %: {'yes' if within else 'NO'}")
    print("load average before: %.2f %.2f %.2f; after: %.2f %.2f %.2f"
          % (*load_before, *load_after))
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"model": args.model, "external": args.external, "blocks": rows,
                       "kiln_median_ms": kiln_median, "external_median_ms": ext_median,
                       "ratio": ratio, "pooled_ratio": pooled, "within_tolerance": within,
                       "load_before": load_before, "load_after": load_after}, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
