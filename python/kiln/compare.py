# Copyright 2026 The Kiln Authors
# SPDX-License-Identifier: Apache-2.0
"""`kiln compare`: where does Kiln first part from onnxruntime? (docs/tools.md "kiln compare")

Runs an ONNX model in onnxruntime with every node output exposed as a graph output, and its .om
in Kiln with the data dump on (dump_mode all), on the same inputs; compares every tensor both
hold, in the ONNX graph's (topological) order, and names the first ONNX node whose output
differs beyond |kiln - onnxruntime| <= atol * scale + rtol * |onnxruntime|: the model tests' rule
(docs/models.md) with atol in units of the tensor's scale, max(1, max |onnxruntime|). Tensors
that Kiln's compiler fused into another node or folded away are listed as such, never silently
skipped.

    python -m kiln.compare --model m.onnx [--om m.om] [--input a.npy,b.npy] [--atol A --rtol R]

The `kiln compare` subcommand runs this module with PYTHONPATH set to the Kiln Python packages.
Exit status: 0 no divergence, 1 a divergence, 2 a usage or setup error.
"""
import argparse
import json
import math
import os
import pathlib
import shutil
import subprocess
import sys
import tempfile

import numpy as np

# The fp32 default of the model tests (tests/models/tolerances.json, docs/models.md).
DEFAULT_RTOL = 1e-3
DEFAULT_ATOL = 1e-4

ONNX_TO_NUMPY = {1: np.float32, 2: np.uint8, 3: np.int8, 4: np.uint16, 5: np.int16, 6: np.int32,
                 7: np.int64, 9: np.bool_, 10: np.float16, 11: np.float64, 12: np.uint32,
                 13: np.uint64}


class CompareError(Exception):
    """A usage or setup problem (exit status 2)."""


def parse_input_shape(text):
    """ATC's --input_shape "name:1,3,224,224;other:1,10" as {name: [dims]}."""
    shapes = {}
    for part in filter(None, (p.strip() for p in (text or "").split(";"))):
        name, sep, dims = part.rpartition(":")
        if not sep or not name:
            raise CompareError(f"--input_shape: '{part}' is not name:d1,d2,...")
        try:
            shapes[name] = [int(d) for d in dims.split(",")] if dims else []
        except ValueError:
            raise CompareError(
                f"--input_shape: '{part}' has a dim that is not an integer") from None
    return shapes


def graph_inputs(model):
    """The real inputs (not initializers) as [(name, numpy dtype, dims with None for symbols)]."""
    inits = {i.name for i in model.graph.initializer}
    out = []
    for vi in model.graph.input:
        if vi.name in inits:
            continue
        t = vi.type.tensor_type
        dtype = ONNX_TO_NUMPY.get(t.elem_type)
        if dtype is None:
            raise CompareError(f"input '{vi.name}' has ONNX type {t.elem_type}, which kiln compare "
                               "cannot feed")
        dims = [d.dim_value if d.HasField("dim_value") else None for d in t.shape.dim]
        out.append((vi.name, dtype, dims))
    return out


def make_inputs(model, files, shapes, seed):
    """The inputs from .npy files (in graph input order) or random ones (uniform [0, 1) floats,
    zeros for integers; symbolic dims 1 unless --input_shape gives them)."""
    specs = graph_inputs(model)
    if files:
        if len(files) != len(specs):
            raise CompareError(f"--input gives {len(files)} file(s); the model has {len(specs)} "
                               f"input(s): {', '.join(s[0] for s in specs)}")
        feeds = {}
        for (name, dtype, _), path in zip(specs, files):
            try:
                feeds[name] = np.load(path, allow_pickle=False).astype(dtype, copy=False)
            except (OSError, ValueError) as e:
                raise CompareError(f"--input {path}: not a readable .npy array ({e})") from None
        return feeds
    rng = np.random.default_rng(seed)
    feeds = {}
    for name, dtype, dims in specs:
        dims = shapes.get(name) or [d if d is not None and d > 0 else 1 for d in dims]
        if np.issubdtype(dtype, np.floating):
            feeds[name] = rng.random(dims, dtype=np.float64).astype(dtype)
        else:
            feeds[name] = np.zeros(dims, dtype=dtype)
    return feeds


def run_onnxruntime(model, feeds):
    """{tensor name: array} for every node output of the main graph, from onnxruntime with its
    graph optimisations off (so each ONNX node's output is what that node computes)."""
    import onnx
    import onnxruntime as ort

    exposed = onnx.ModelProto()
    exposed.CopyFrom(model)
    have = {o.name for o in exposed.graph.output}
    for node in exposed.graph.node:
        for name in node.output:
            if name and name not in have:
                exposed.graph.output.append(onnx.ValueInfoProto(name=name))
                have.add(name)
    options = ort.SessionOptions()
    options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_DISABLE_ALL
    options.intra_op_num_threads = 1
    options.log_severity_level = 3
    sess = ort.InferenceSession(exposed.SerializeToString(), options,
                                providers=["CPUExecutionProvider"])
    names = [o.name for o in sess.get_outputs()]
    values = sess.run(names, feeds)
    return dict(zip(names, values))


def compile_om(kiln_bin, onnx_path, out_dir, input_shape):
    """Compiles with `kiln atc`; returns the .om path."""
    stem = pathlib.Path(onnx_path).stem
    cmd = [kiln_bin, "atc", "--framework=5", f"--model={onnx_path}",
           f"--output={out_dir / stem}"]
    if input_shape:
        cmd.append(f"--input_shape={input_shape}")
    proc = subprocess.run(cmd, capture_output=True, text=True)
    if proc.returncode != 0:
        raise CompareError(f"kiln atc failed:\n{proc.stdout}{proc.stderr}")
    om = out_dir / (stem + ".om")
    if not om.exists():
        found = sorted(out_dir.glob(stem + "*.om"))
        if not found:
            raise CompareError(f"kiln atc wrote no {om}")
        om = found[0]
    return om


def run_kiln_dump(om, feeds, dump_dir):
    """Runs `om` once in Kiln with the data dump on (dump_mode all, every node) and returns the
    execution's folder (holding index.json) and the model outputs."""
    import acl
    import kiln

    ret = acl.init()
    if ret not in (0, acl.ACL_ERROR_REPEAT_INITIALIZE):
        raise CompareError(f"aclInit failed ({ret}): {acl.get_recent_err_msg()}")
    cfg = dump_dir / "dump.json"
    cfg.write_text(json.dumps({"dump": {"dump_path": str(dump_dir), "dump_mode": "all",
                                        "dump_list": [{"model_name": om.stem}]}}))
    for call, args in ((acl.mdl.init_dump, ()), (acl.mdl.set_dump, (str(cfg),))):
        ret = call(*args)
        if ret != 0:
            raise CompareError(f"{call.__name__} failed ({ret}): {acl.get_recent_err_msg()}")
    try:
        with kiln.Model(str(om)) as model:
            outputs = model.run(feeds)
    finally:
        acl.mdl.finalize_dump()
    indexes = sorted(dump_dir.rglob("index.json"), key=lambda p: int(p.parent.name))
    if not indexes:
        raise CompareError(f"the dump under {dump_dir} holds no index.json")
    return indexes[-1].parent, outputs  # the last execution (a retried run dumps twice)


def load_dump(exec_dir):
    """{tensor name: (array, kiln node entry)} for every dumped non-constant tensor."""
    index = json.loads((exec_dir / "index.json").read_text())
    tensors = {}
    for node in index["nodes"]:
        if node.get("graph") != index.get("graph"):
            continue  # a node of an If/Loop/Scan body: its names are the body's own
        for kind in ("inputs", "outputs"):
            for t in node[kind]:
                name = t.get("tensor")
                if not name or "file" not in t or t.get("constant"):
                    continue
                if kind == "inputs" and name in tensors:
                    continue  # the producer's output entry names the node that computed it
                tensors[name] = (np.load(exec_dir / t["file"]), node, kind)
    return index, tensors


def compare_arrays(got, want, rtol, atol):
    """Metrics of `got` (Kiln) against `want` (onnxruntime) and whether it is within tolerance."""
    if got.shape != want.shape:
        return {"max_abs": None, "max_rel": None, "cosine": None, "ok": False,
                "why": f"shape {list(got.shape)} vs {list(want.shape)}"}
    g = got.astype(np.float64)
    w = want.astype(np.float64)
    both_nan = np.isnan(g) & np.isnan(w)
    diff = np.where(both_nan, 0.0, np.abs(g - w))
    diff = np.where(np.isnan(diff), np.inf, diff)
    max_abs = float(diff.max()) if diff.size else 0.0
    nz = w != 0
    max_rel = float((diff[nz] / np.abs(w[nz])).max()) if nz.any() else 0.0
    gf, wf = g[np.isfinite(g) & np.isfinite(w)], w[np.isfinite(g) & np.isfinite(w)]
    ng, nw = float(np.linalg.norm(gf)), float(np.linalg.norm(wf))
    if ng == 0 and nw == 0:
        cosine = 1.0
    elif ng == 0 or nw == 0:
        cosine = 0.0
    else:
        cosine = float(np.dot(gf.ravel(), wf.ravel()) / (ng * nw))
    # atol counts in units of the tensor's scale (its largest finite |ref|, at least 1): float32
    # rounding grows with the size of the summed terms, so an element that cancels to near zero
    # inside a tensor of values in the hundreds carries that tensor's rounding, not its own.
    finite_w = np.abs(w[np.isfinite(w)])
    scale = max(1.0, float(finite_w.max())) if finite_w.size else 1.0
    bad = diff > atol * scale + rtol * np.abs(np.where(np.isnan(w), 0.0, w))
    ok = not bool(bad.any())
    why = "" if ok else (f"{int(bad.sum())} of {bad.size} elements beyond "
                         f"atol * {scale:.3g} + rtol * |ref|")
    return {"max_abs": max_abs, "max_rel": max_rel, "cosine": cosine, "ok": ok, "why": why}


def build_rows(model, ort_values, dump_index, dumped, rtol, atol):
    """One row per ONNX node output of the main graph, in graph (topological) order."""
    fused_into = {}
    for node in dump_index["nodes"]:
        if node.get("graph") != dump_index.get("graph"):
            continue
        for origin in node["onnx_nodes"]:
            fused_into.setdefault(origin, node)
    rows = []
    inits = {i.name for i in model.graph.initializer}
    for vi in model.graph.input:
        if vi.name in inits or vi.name not in dumped:
            continue
        rows.append(row_for(vi.name, "(graph input)", "", dumped, ort_values.get(vi.name),
                            fused_into, rtol, atol))
    for n in model.graph.node:
        for out in n.output:
            if out:
                rows.append(row_for(out, n.name, n.op_type, dumped, ort_values.get(out),
                                    fused_into, rtol, atol))
    return rows


def row_for(tensor, onnx_node, op_type, dumped, want, fused_into, rtol, atol):
    row = {"onnx_node": onnx_node, "op_type": op_type, "tensor": tensor, "shape": None,
           "max_abs": None, "max_rel": None, "cosine": None, "status": "", "kiln_node": None,
           "kiln_onnx_nodes": []}
    if tensor in dumped:
        got, knode, _ = dumped[tensor]
        row["kiln_node"] = knode["node"]
        row["kiln_onnx_nodes"] = knode["onnx_nodes"]
        row["shape"] = list(got.shape)
        if want is None:
            row["status"] = "no onnxruntime value"
            return row
        row.update(compare_arrays(got, np.asarray(want), rtol, atol))
        row["status"] = "ok" if row.pop("ok") else "DIVERGES"
        return row
    node = fused_into.get(onnx_node)
    if node is not None:
        row["kiln_node"] = node["node"]
        row["kiln_onnx_nodes"] = node["onnx_nodes"]
        row["status"] = f"fused into Kiln node '{node['node']}' (no tensor of its own)"
    else:
        row["status"] = "folded or removed at compile time (no Kiln node computes it)"
    if want is not None:
        row["shape"] = list(np.asarray(want).shape)
    return row


def fmt(x, spec=".3g"):
    return "-" if x is None else format(x, spec)


def print_table(rows, out):
    headers = ["#", "ONNX node", "op", "tensor", "shape", "max abs", "max rel", "cosine",
               "status"]
    cells = []
    for i, r in enumerate(rows, 1):
        shape = "-" if r["shape"] is None else "x".join(str(d) for d in r["shape"]) or "scalar"
        cells.append([str(i), r["onnx_node"], r["op_type"], r["tensor"], shape, fmt(r["max_abs"]),
                      fmt(r["max_rel"]), fmt(r["cosine"], ".6f"), r["status"]])
    widths = [max(len(h), *(len(c[k]) for c in cells)) if cells else len(h)
              for k, h in enumerate(headers)]
    widths = [min(w, 40) for w in widths[:-1]] + [0]

    def line(values):
        parts = []
        for v, w in zip(values, widths):
            v = v if len(v) <= w or w == 0 else v[:w - 1] + "…"
            parts.append(v.ljust(w) if w else v)
        return "  ".join(parts).rstrip()

    print(line(headers), file=out)
    print(line(["-" * w if w else "------" for w in widths]), file=out)
    for c in cells:
        print(line(c), file=out)


def first_divergence(rows):
    return next((r for r in rows if r["status"] == "DIVERGES"), None)


def describe(row, rtol, atol):
    """The one-line verdict on the first diverging tensor, naming the Kiln node that computed it
    and every ONNX node fused into it."""
    where = f"ONNX node '{row['onnx_node']}' ({row['op_type'] or 'input'})"
    if row["kiln_node"] and len(row["kiln_onnx_nodes"]) > 1:
        where = (f"Kiln node '{row['kiln_node']}', fused from ONNX nodes "
                 f"{', '.join(row['kiln_onnx_nodes'])}")
    elif row["kiln_node"] and row["kiln_node"] != row["onnx_node"]:
        where += f", Kiln node '{row['kiln_node']}'"
    return (f"first divergence: {where}: tensor '{row['tensor']}' (output of "
            f"{row['onnx_node']}) max abs {fmt(row['max_abs'])}, max rel {fmt(row['max_rel'])}, "
            f"cosine {fmt(row['cosine'], '.6f')}; {row.get('why', '')} "
            f"(atol {atol:g}, rtol {rtol:g})")


def main(argv=None):
    p = argparse.ArgumentParser(prog="kiln compare", description=__doc__.split("\n")[0])
    p.add_argument("--model", required=True, help="the ONNX model")
    p.add_argument("--om", help="its .om (default: compiled now with kiln atc)")
    p.add_argument("--input", help="comma-separated .npy files, one per model input, in order "
                                   "(default: random, seeded)")
    p.add_argument("--input_shape", default="", help="ATC's --input_shape, for compiling and for "
                                                    "random inputs of symbolic dims")
    p.add_argument("--atol", type=float, default=DEFAULT_ATOL)
    p.add_argument("--rtol", type=float, default=DEFAULT_RTOL)
    p.add_argument("--seed", type=int, default=0, help="seed of the random inputs")
    p.add_argument("--output", help="keep the .om, the dump and report.json in this folder "
                                    "(default: a temporary folder, removed)")
    p.add_argument("--json", help="also write the comparison as JSON to this file")
    p.add_argument("--kiln", default=os.environ.get("KILN_BIN", "kiln"),
                   help="the kiln binary for compiling (set by `kiln compare`)")
    args = p.parse_args(argv)
    try:
        return run(args)
    except CompareError as e:
        print(f"kiln compare: {e}", file=sys.stderr)
        return 2


def run(args):
    import onnx

    if not os.path.isfile(args.model):
        raise CompareError(f"--model {args.model}: no such file")
    if args.om and not os.path.isfile(args.om):
        raise CompareError(f"--om {args.om}: no such file")
    if args.atol < 0 or args.rtol < 0 or math.isnan(args.atol) or math.isnan(args.rtol):
        raise CompareError("--atol and --rtol must be non-negative numbers")
    try:
        model = onnx.load(args.model)
    except Exception as e:  # protobuf and onnx raise several kinds
        raise CompareError(f"--model {args.model}: not a readable ONNX model ({e})") from None
    shapes = parse_input_shape(args.input_shape)
    files = [f for f in (args.input or "").split(",") if f]
    feeds = make_inputs(model, files, shapes, args.seed)

    work = pathlib.Path(args.output) if args.output else pathlib.Path(tempfile.mkdtemp(
        prefix="kiln_compare_"))
    work.mkdir(parents=True, exist_ok=True)
    try:
        om = pathlib.Path(args.om) if args.om else compile_om(args.kiln, args.model, work,
                                                              args.input_shape)
        dump_dir = work / "dump"
        dump_dir.mkdir(exist_ok=True)
        exec_dir, _ = run_kiln_dump(om.resolve(), feeds, dump_dir)
        index, dumped = load_dump(exec_dir)
        ort_values = run_onnxruntime(model, feeds)
        for name, value in feeds.items():
            ort_values.setdefault(name, value)
        rows = build_rows(model, ort_values, index, dumped, args.rtol, args.atol)
        compared = sum(1 for r in rows if r["status"] in ("ok", "DIVERGES"))
        print(f"kiln compare: {args.model} vs {om.name}: {compared} tensors compared, "
              f"{len(rows) - compared} without a Kiln tensor (atol {args.atol:g}, "
              f"rtol {args.rtol:g})")
        print_table(rows, sys.stdout)
        first = first_divergence(rows)
        print(describe(first, args.rtol, args.atol) if first else
              "no divergence: every shared tensor is within tolerance")
        report = {"model": args.model, "om": str(om), "atol": args.atol, "rtol": args.rtol,
                  "dump": str(exec_dir), "rows": rows,
                  "first_divergence": first}
        if args.json:
            pathlib.Path(args.json).write_text(json.dumps(report, indent=1))
        if args.output:
            (work / "report.json").write_text(json.dumps(report, indent=1))
        return 1 if first else 0
    finally:
        if not args.output:
            shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
