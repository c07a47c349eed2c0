#!/usr/bin/env python3
# Copyright 2026 The Kiln Authors
# SPDX-License-Identifier: Apache-2.0
"""Compares Kiln with onnxruntime on the public models, per docs/benchmarking.md.

    .venv/bin/python bench/compare_models.py --build build/release [--only A,B] [--blocks 5]
                     [--block-runs 10] [--threads 2] [--json OUT.json] [--markdown OUT.md]

For each model it writes one fixed-shape ONNX file (both runtimes run that same file), compiles
it with `<build>/tools/kiln/kiln atc --framework=5`, makes seeded inputs the way
tests/models/make_reference_data.py does (the same arrays for both runtimes), runs both once and
cross-checks every output (a model whose outputs disagree gets no speed figures), then times:

- latency: Kiln (`<build>/bench/model_bench --serve`, the model loaded once) and onnxruntime (an
  InferenceSession in this process) in alternating blocks (A B, B A, ...), each block
  --block-runs runs after a warm-up; median/p90/p99 per runtime over all runs, the Kiln ÷
  onnxruntime ratio of the block medians per block pair, and the median of those ratios;
- cold start: a fresh process per runtime, model file on disk to first result (Kiln: main() to
  the first aclmdlExecute's return; onnxruntime: Python already started, from before
  `import onnxruntime` to the first run's return), the median of --cold repetitions, alternated;
- peak RSS of those fresh processes after one run: VmHWM from /proc/self/status (getrusage's
  ru_maxrss is inherited from this driver across fork and execve on Linux, so it would report
  the driver's peak); onnxruntime's includes the Python interpreter and numpy, and the figure
  after the imports alone is reported too.

Threads: Kiln gets KILN_CPU_THREADS=N (its CPU device's compute pool) and OMP_NUM_THREADS=N
(oneDNN's OpenMP team); onnxruntime gets intra_op_num_threads=N, inter_op_num_threads=1,
sequential execution, ORT_ENABLE_ALL, the CPU execution provider. Prints the machine, versions
and load average; writes the JSON (default bench/results/models-<date>.json) and a markdown table.
"""
import argparse
import datetime
import json
import os
import platform
import subprocess
import sys
import sysconfig
import tempfile
import time

import numpy as np
import onnx
import onnxruntime as ort

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), ".."))
sys.path.insert(0, os.path.join(ROOT, "tests", "models"))
import make_reference_data as ref  # noqa: E402  (the seeded input makers)

SITE = sysconfig.get_paths()["purelib"]
MODELS = os.path.join(ROOT, "tests", "data", "models")
GENERATED = os.path.join(ROOT, "build", "models")


def ocr_det_640(_model):
    lines = ["Kiln compiles ONNX", "to .om files: 2026", "PP-OCRv4 text det", "640 x 640 page"]
    img = ref.text_image(640, 640, lines, size=48, seed=4)
    return [{"x": ref.paddle_ocr(img)}], "4 rendered text lines, 640x640, (x/255-0.5)/0.5"


# name -> (source model, input maker returning ([feeds], description))
MODELS = {
    "resnet50_v1.5": (os.path.join(GENERATED, "resnet50_v1.5.onnx"),
                      ref.classifier_sets("input", 50)),
    "mobilenetv2": (os.path.join(GENERATED, "mobilenetv2.onnx"), ref.classifier_sets("input", 2)),
    "bert_encoder": (os.path.join(GENERATED, "bert_encoder.onnx"), ref.bert_sets),
    "yolov8n_320n": (os.path.join(SITE, "nudenet", "320n.onnx"), ref.yolo_sets),
    "ppocrv4_det_640": (os.path.join(SITE, "rapidocr_onnxruntime", "models",
                                     "ch_PP-OCRv4_det_infer.onnx"), ocr_det_640),
    "mnist-8": (os.path.join(MODELS, "mnist-8", "model.onnx"), ref.mnist_sets),
}
GENERATOR_NAMES = {"resnet50_v1.5": "resnet50", "mobilenetv2": "mobilenetv2",
                   "bert_encoder": "bert"}

# An output agrees when max |kiln - ort| <= RTOL * max |ort| + ATOL.
RTOL, ATOL = 1e-3, 1e-5

ORT_COLD = r"""
import json, sys, time
def hwm():  # peak RSS in KiB: VmHWM (ru_maxrss would carry over the parent's peak)
    with open("/proc/self/status") as f:
        return int(next(l for l in f if l.startswith("VmHWM:")).split()[1])
t0 = time.perf_counter()
import numpy as np
import onnxruntime as ort
t_import = time.perf_counter()
rss_import = hwm()
model, threads, names, files, dtypes, shapes = json.loads(sys.argv[1])
feeds = {n: np.fromfile(f, dtype=d).reshape(s) for n, f, d, s in zip(names, files, dtypes, shapes)}
so = ort.SessionOptions()
so.intra_op_num_threads = threads
so.inter_op_num_threads = 1
so.execution_mode = ort.ExecutionMode.ORT_SEQUENTIAL
so.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
so.log_severity_level = 3
t1 = time.perf_counter()
sess = ort.InferenceSession(model, so, providers=["CPUExecutionProvider"])
t2 = time.perf_counter()
sess.run(None, feeds)
t3 = time.perf_counter()
print(json.dumps({"import_us": (t_import - t0) * 1e6, "session_us": (t2 - t1) * 1e6,
                  "first_run_us": (t3 - t2) * 1e6, "cold_start_us": (t3 - t0) * 1e6,
                  "cold_start_no_import_us": (t3 - t1) * 1e6,
                  "peak_rss_import_kb": rss_import,
                  "peak_rss_kb": hwm()}))
"""


def percentile(values, q):
    return float(np.percentile(np.asarray(values, dtype=np.float64), q))


def machine():
    info = {"python": platform.python_version(), "platform": platform.platform()}
    with open("/proc/cpuinfo") as f:
        text = f.read()
    for line in text.splitlines():
        if line.startswith("model name") and "cpu" not in info:
            info["cpu"] = line.split(":", 1)[1].strip()
        if line.startswith("flags") and "flags" not in info:
            flags = line.split(":", 1)[1].split()
            info["flags"] = [f for f in flags if f.startswith(("avx", "amx", "fma", "f16c"))]
    info["logical_cpus"] = os.cpu_count()
    info["usable_cpus"] = len(os.sched_getaffinity(0))
    return info


def kiln_version(build):
    out = subprocess.run([os.path.join(build, "tools", "kiln", "kiln"), "--version"],
                         capture_output=True, text=True, check=True).stdout
    return [line.strip() for line in out.splitlines() if line.strip()]


def ort_session(path, threads):
    so = ort.SessionOptions()
    so.intra_op_num_threads = threads
    so.inter_op_num_threads = 1
    so.execution_mode = ort.ExecutionMode.ORT_SEQUENTIAL
    so.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
    so.log_severity_level = 3
    return ort.InferenceSession(path, so, providers=["CPUExecutionProvider"])


def prepare(name, work, build):
    """Writes the fixed-shape model and the input files, compiles the .om; returns the case."""
    src, make_inputs = MODELS[name]
    if not os.path.exists(src):
        raise FileNotFoundError(f"{src} (run scripts/setup.sh)")
    case_dir = os.path.join(work, name)
    os.makedirs(case_dir, exist_ok=True)
    model = onnx.load(src)
    sets, description = make_inputs(src)
    feeds = sets[0]
    inputs = ref.graph_inputs(model)
    fixed = os.path.join(case_dir, "model.onnx")
    ref.fixed_copy(model, {k: np.shape(a) for k, a in feeds.items()}, fixed)
    files, dtypes, shapes = [], [], []
    for k, v in enumerate(inputs):
        array = np.ascontiguousarray(feeds[v.name])
        path = os.path.join(case_dir, f"input_{k}.bin")
        array.tofile(path)
        files.append(path)
        dtypes.append(str(array.dtype))
        shapes.append(list(array.shape))
    om = os.path.join(case_dir, "model")
    t0 = time.perf_counter()
    atc = subprocess.run([os.path.join(build, "tools", "kiln", "kiln"), "atc", "--framework=5",
                          f"--model={fixed}", f"--output={om}"], capture_output=True, text=True)
    compile_s = time.perf_counter() - t0
    if atc.returncode != 0:
        raise RuntimeError(f"kiln atc failed:\n{atc.stdout[-2000:]}{atc.stderr[-2000:]}")
    return {"name": name, "source": os.path.realpath(src), "onnx": fixed, "om": om + ".om",
            "inputs_description": description, "input_names": [v.name for v in inputs],
            "input_files": files, "input_dtypes": dtypes, "input_shapes": shapes,
            "feeds": feeds, "output_names": [o.name for o in model.graph.output],
            "compile_s": compile_s, "dir": case_dir}


KILN_EXTRA_ENV = {}  # --kiln-env KEY=VALUE


def kiln_env(threads):
    env = dict(os.environ)
    env["KILN_CPU_THREADS"] = str(threads)
    env["OMP_NUM_THREADS"] = str(threads)
    env.update(KILN_EXTRA_ENV)
    return env


def kiln_args(build, case, extra):
    return ([os.path.join(build, "bench", "model_bench"), f"--model={case['om']}"] +
            [f"--input={f}" for f in case["input_files"]] + extra)


def cross_check(case, build, threads, sess):
    out_dir = os.path.join(case["dir"], "kiln_out")
    os.makedirs(out_dir, exist_ok=True)
    run = subprocess.run(kiln_args(build, case, ["--warmup=0", "--runs=0", f"--out-dir={out_dir}"]),
                         capture_output=True, text=True, env=kiln_env(threads))
    if run.returncode != 0:
        raise RuntimeError(f"model_bench failed: {run.stderr.strip()[-2000:]}")
    kiln = json.loads(run.stdout.strip().splitlines()[-1])
    expected = sess.run(None, case["feeds"])
    if len(expected) != len(kiln["outputs"]):
        raise RuntimeError(f"{len(kiln['outputs'])} Kiln outputs, onnxruntime has "
                           f"{len(expected)}")
    checks, ok = [], True
    for want, got in zip(expected, kiln["outputs"]):
        have = np.fromfile(got["file"], dtype=want.dtype)
        if have.size != want.size or list(want.shape) != got["dims"]:
            checks.append({"output": got["name"], "ok": False,
                           "error": f"shape {got['dims']} vs onnxruntime {list(want.shape)}"})
            ok = False
            continue
        have = have.reshape(want.shape).astype(np.float64)
        ref64 = want.astype(np.float64)
        diff = np.abs(have - ref64)
        scale = float(np.max(np.abs(ref64))) if ref64.size else 0.0
        max_abs = float(np.max(diff)) if diff.size else 0.0
        rel = diff / np.maximum(np.abs(ref64), 1e-3 * max(scale, 1e-30))
        good = bool(np.all(np.isfinite(have))) and max_abs <= RTOL * scale + ATOL
        ok = ok and good
        checks.append({"output": got["name"], "ok": good, "max_abs": max_abs,
                       "max_rel": float(np.max(rel)) if rel.size else 0.0,
                       "max_abs_over_max_ref": max_abs / scale if scale else max_abs,
                       "max_ref": scale})
    return ok, checks


def time_latency(case, build, threads, sess, blocks, block_runs, warmup):
    proc = subprocess.Popen(kiln_args(build, case, [f"--warmup={warmup}", "--serve"]),
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
                            env=kiln_env(threads))
    ready = json.loads(proc.stdout.readline())
    if not ready.get("ready"):
        raise RuntimeError(f"model_bench did not start: {ready}")
    feeds = case["feeds"]
    for _ in range(warmup):
        sess.run(None, feeds)

    def kiln_block():
        proc.stdin.write(f"{block_runs}\n")
        proc.stdin.flush()
        return json.loads(proc.stdout.readline())["runs_us"]

    def ort_block():
        times = []
        for _ in range(block_runs):
            t0 = time.perf_counter()
            sess.run(None, feeds)
            times.append((time.perf_counter() - t0) * 1e6)
        return times

    kiln_all, ort_all, ratios = [], [], []
    for b in range(blocks):
        order = (kiln_block, ort_block) if b % 2 == 0 else (ort_block, kiln_block)
        result = {}
        for fn in order:
            result[fn] = fn()
            time.sleep(0.05)  # let the other runtime's spinning workers go idle
        kiln_all += result[kiln_block]
        ort_all += result[ort_block]
        ratios.append(float(np.median(result[kiln_block]) / np.median(result[ort_block])))
    proc.stdin.close()
    proc.wait(timeout=60)

    def summary(times):
        return {"median_us": percentile(times, 50), "p90_us": percentile(times, 90),
                "p99_us": percentile(times, 99), "min_us": float(np.min(times)),
                "runs_us": [round(t, 1) for t in times]}
    return {"kiln": summary(kiln_all), "onnxruntime": summary(ort_all),
            "block_ratios": ratios, "ratio_median": float(np.median(ratios)),
            "ratio_of_medians": percentile(kiln_all, 50) / percentile(ort_all, 50)}


def time_cold(case, build, threads, reps):
    kiln, ort_runs = [], []
    spec = json.dumps([case["onnx"], threads, case["input_names"], case["input_files"],
                       case["input_dtypes"], case["input_shapes"]])
    for r in range(reps):
        for which in (("kiln", "ort") if r % 2 == 0 else ("ort", "kiln")):
            t0 = time.perf_counter()
            if which == "kiln":
                run = subprocess.run(kiln_args(build, case, ["--warmup=0", "--runs=0"]),
                                     capture_output=True, text=True, env=kiln_env(threads))
            else:
                run = subprocess.run([sys.executable, "-c", ORT_COLD, spec], capture_output=True,
                                     text=True)
            wall = (time.perf_counter() - t0) * 1e6
            if run.returncode != 0:
                raise RuntimeError(f"{which} cold run failed: {run.stderr.strip()[-2000:]}")
            data = json.loads(run.stdout.strip().splitlines()[-1])
            data["process_wall_us"] = wall
            data.pop("outputs", None)
            data.pop("runs_us", None)
            (kiln if which == "kiln" else ort_runs).append(data)

    def med(runs, key):
        return float(np.median([r[key] for r in runs]))
    keys_kiln = ["cold_start_us", "init_us", "load_us", "first_run_us", "process_wall_us",
                 "peak_rss_kb"]
    keys_ort = ["cold_start_us", "cold_start_no_import_us", "import_us", "session_us",
                "first_run_us", "process_wall_us", "peak_rss_kb", "peak_rss_import_kb"]
    return {"kiln": {k: med(kiln, k) for k in keys_kiln},
            "onnxruntime": {k: med(ort_runs, k) for k in keys_ort},
            "cold_ratio": med(kiln, "cold_start_us") / med(ort_runs, "cold_start_us"),
            "cold_ratio_no_import": med(kiln, "cold_start_us") /
            med(ort_runs, "cold_start_no_import_us"),
            "rss_ratio": med(kiln, "peak_rss_kb") / med(ort_runs, "peak_rss_kb")}


def ms(us):
    return f"{us / 1000:.2f}" if us < 100000 else f"{us / 1000:.0f}"


def markdown(report):
    lines = [
        "| model | Kiln median / p90 / p99 ms | onnxruntime median / p90 / p99 ms | "
        "Kiln ÷ ORT per block | median ratio | cold start ms Kiln / ORT (ORT w/o import) | "
        "peak RSS MiB Kiln / ORT (ORT after imports) | max abs err (÷ max) |",
        "|---|---|---|---|---|---|---|---|"]
    for m in report["models"]:
        if "error" in m:
            lines.append(f"| {m['name']} | {m['error'][:120]} | | | | | | |")
            continue
        err = max(m["cross_check"], key=lambda c: c.get("max_abs_over_max_ref", 1e30))
        err_text = (f"{err['max_abs']:.2g} ({err['max_abs_over_max_ref']:.1g})"
                    if "max_abs" in err else err.get("error", "?"))
        if not m["ok"]:
            lines.append(f"| {m['name']} | WRONG ANSWER, not timed | | | | | | {err_text} |")
            continue
        lat, cold = m["latency"], m["cold"]
        k, o = lat["kiln"], lat["onnxruntime"]
        lines.append(
            f"| {m['name']} | {ms(k['median_us'])} / {ms(k['p90_us'])} / {ms(k['p99_us'])} | "
            f"{ms(o['median_us'])} / {ms(o['p90_us'])} / {ms(o['p99_us'])} | "
            f"{' '.join(f'{r:.2f}' for r in lat['block_ratios'])} | "
            f"**{lat['ratio_median']:.2f}** | "
            f"{ms(cold['kiln']['cold_start_us'])} / {ms(cold['onnxruntime']['cold_start_us'])} "
            f"({ms(cold['onnxruntime']['cold_start_no_import_us'])}) | "
            f"{cold['kiln']['peak_rss_kb'] / 1024:.0f} / "
            f"{cold['onnxruntime']['peak_rss_kb'] / 1024:.0f} "
            f"({cold['onnxruntime']['peak_rss_import_kb'] / 1024:.0f}) | {err_text} |")
    return "\n".join(lines)


def parse_args(argv):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n", 1)[0])
    p.add_argument("--build", default=os.path.join(ROOT, "build", "release"),
                   help="build folder with tools/kiln/kiln and bench/model_bench")
    p.add_argument("--only", default=",".join(MODELS), help="comma-separated model names")
    p.add_argument("--threads", type=int, default=2, help="threads for both runtimes")
    p.add_argument("--blocks", type=int, default=5, help="interleaved block pairs")
    p.add_argument("--block-runs", type=int, default=10, help="timed runs per block")
    p.add_argument("--warmup", type=int, default=5, help="untimed runs before the blocks")
    p.add_argument("--cold", type=int, default=3, help="fresh-process repetitions per runtime")
    p.add_argument("--kiln-env", action="append", default=[], metavar="KEY=VALUE",
                   help="extra environment for the Kiln processes (repeatable), e.g. "
                        "OMP_WAIT_POLICY=PASSIVE")
    p.add_argument("--work", default=None, help="scratch folder (default: a temporary one)")
    p.add_argument("--json", default=None,
                   help="output JSON (default bench/results/models-<date>.json)")
    p.add_argument("--markdown", default=None, help="also write the markdown table here")
    args = p.parse_args(argv)
    for item in args.kiln_env:
        if "=" not in item:
            p.error(f"--kiln-env: expected KEY=VALUE, got '{item}'")
    args.only = [n.strip() for n in args.only.split(",") if n.strip()]
    unknown = [n for n in args.only if n not in MODELS]
    if unknown:
        p.error(f"--only: unknown model(s) {','.join(unknown)}; known: {','.join(MODELS)}")
    return args


def main(argv=None):
    args = parse_args(argv)
    build = os.path.abspath(args.build)
    KILN_EXTRA_ENV.update(item.split("=", 1) for item in args.kiln_env)
    today = datetime.date.today().isoformat()
    out_json = args.json or os.path.join(ROOT, "bench", "results", f"models-{today}.json")
    wanted = sorted({GENERATOR_NAMES[n] for n in args.only if n in GENERATOR_NAMES})
    if wanted:
        subprocess.run([sys.executable, os.path.join(ROOT, "scripts", "gen_models.py"), "--out",
                        GENERATED, "--only", ",".join(wanted)], check=True,
                       stdout=subprocess.DEVNULL)
    try:
        import openvino  # noqa: F401
        openvino_version = openvino.__version__
    except ImportError:
        openvino_version = None
    report = {
        "date": today,
        "command": " ".join([os.path.relpath(sys.executable, ROOT)] + sys.argv),
        "machine": machine(),
        "load_average_start": os.getloadavg(),
        "versions": {"kiln": kiln_version(build), "onnxruntime": ort.__version__,
                     "onnx": onnx.__version__, "numpy": np.__version__,
                     "openvino": openvino_version or "not installed (not compared)"},
        "threads": {"kiln": {"KILN_CPU_THREADS": args.threads, "OMP_NUM_THREADS": args.threads,
                             **KILN_EXTRA_ENV},
                    "onnxruntime": {"intra_op_num_threads": args.threads,
                                    "inter_op_num_threads": 1, "execution_mode": "sequential",
                                    "graph_optimization_level": "ORT_ENABLE_ALL",
                                    "provider": "CPUExecutionProvider"}},
        "precision": "fp32 (both)",
        "protocol": {"blocks": args.blocks, "block_runs": args.block_runs,
                     "warmup": args.warmup, "cold_repetitions": args.cold,
                     "tolerance": f"max|kiln-ort| <= {RTOL} * max|ort| + {ATOL}"},
        "models": [],
    }
    m = report["machine"]
    print(f"machine: {m['cpu']}, {m['usable_cpus']} usable of {m['logical_cpus']} logical CPUs, "
          f"flags {' '.join(m['flags'])}")
    print(f"versions: kiln {report['versions']['kiln'][0]}, onnxruntime {ort.__version__}, "
          f"openvino {report['versions']['openvino']}")
    extra = "".join(f" {k}={v}" for k, v in KILN_EXTRA_ENV.items())
    print(f"threads: Kiln KILN_CPU_THREADS={args.threads} OMP_NUM_THREADS={args.threads}{extra}; "
          f"onnxruntime intra_op={args.threads} inter_op=1 sequential ORT_ENABLE_ALL; fp32")
    print(f"load average at start: {' '.join(f'{x:.2f}' for x in report['load_average_start'])}")
    with tempfile.TemporaryDirectory(prefix="kiln_models_") as tmp:
        work = os.path.abspath(args.work or tmp)
        for name in args.only:
            entry = {"name": name}
            report["models"].append(entry)
            try:
                case = prepare(name, work, build)
                sess = ort_session(case["onnx"], args.threads)
                entry.update({"source": case["source"], "inputs": case["inputs_description"],
                              "input_shapes": dict(zip(case["input_names"],
                                                       case["input_shapes"])),
                              "compile_s": case["compile_s"]})
                entry["ok"], entry["cross_check"] = cross_check(case, build, args.threads, sess)
                if not entry["ok"]:
                    print(f"{name}: WRONG ANSWER, not timed: {entry['cross_check']}")
                    continue
                entry["latency"] = time_latency(case, build, args.threads, sess, args.blocks,
                                                args.block_runs, args.warmup)
                del sess
                entry["cold"] = time_cold(case, build, args.threads, args.cold)
                lat = entry["latency"]
                print(f"{name}: Kiln {ms(lat['kiln']['median_us'])} ms, onnxruntime "
                      f"{ms(lat['onnxruntime']['median_us'])} ms, ratio "
                      f"{lat['ratio_median']:.2f} (blocks "
                      f"{' '.join(f'{r:.2f}' for r in lat['block_ratios'])}), cold "
                      f"{entry['cold']['cold_ratio']:.2f}, RSS {entry['cold']['rss_ratio']:.2f}",
                      flush=True)
            except Exception as e:  # report every model, then go on
                entry["error"] = f"{type(e).__name__}: {e}"
                entry["ok"] = False
                print(f"{name}: FAILED: {entry['error']}", flush=True)
    report["load_average_end"] = os.getloadavg()
    print(f"load average at end: {' '.join(f'{x:.2f}' for x in report['load_average_end'])}")
    table = markdown(report)
    report["markdown"] = table
    os.makedirs(os.path.dirname(out_json), exist_ok=True)
    with open(out_json, "w") as f:
        json.dump(report, f, indent=1)
        f.write("\n")
    if args.markdown:
        with open(args.markdown, "w") as f:
            f.write(table + "\n")
    print()
    print(table)
    print(f"\nwrote {os.path.relpath(out_json, ROOT)}")
    return 0 if all(e.get("ok") for e in report["models"]) else 1


if __name__ == "__main__":
    sys.exit(main())
