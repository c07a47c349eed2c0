#!/usr/bin/env python3
# Copyright 2026 The Kiln Authors
# SPDX-License-Identifier: Apache-2.0
"""Compares Kiln with onnxruntime and OpenVINO on the public models, per docs/benchmarking.md.

    .venv/bin/python bench/compare_models.py --build build/release [--only A,B] [--blocks 6]
                     [--block-runs 10] [--threads 2] [--busy] [--batch8 A,B] [--no-cold]
                     [--json OUT.json] [--markdown OUT.md] [--chart OUT.png]

--only also takes the static models of the public set (tests/models/make_reference_data.py:
light_bvlc_alexnet, light_densenet121, ... yunet_n_320_320; PUBLIC_SET below), which Kiln was
not tuned on. (`scripts/setup.sh --bench` installs OpenVINO and matplotlib into .venv; without OpenVINO its
columns are left out and said to be.) For each model it writes one fixed-shape ONNX file (every
runtime runs that same file), compiles it with `<build>/tools/kiln/kiln atc --framework=5`, makes
seeded inputs the way tests/models/make_reference_data.py does (the same arrays for every
runtime), cross-checks Kiln's outputs against onnxruntime's (a model whose outputs disagree gets
no speed figures), then measures:

- latency, batch 1: every runtime in a process of its own with the model loaded once — Kiln in
  `<build>/bench/model_bench --serve` (the C API), onnxruntime, OpenVINO with
  INFERENCE_PRECISION_HINT=f32 (`openvino-f32`) and OpenVINO at its default precision
  (`openvino`, bf16 where the CPU has it) in `bench/peer_serve.py`; blocks of --block-runs runs
  rotate over the runtimes (A B C D, B C D A, ...), each block starting once every server's
  threads have gone idle (CPU time flat for 20 ms, at most 1 s: a runtime's workers spinning
  after its block would otherwise run into the next one's); per runtime median/p90/p99 over all runs; per
  block the ratio of Kiln's block median to the faster f32 peer's (onnxruntime, openvino-f32) and
  to OpenVINO's default, and the median of those ratios;
- with --busy, the same again while another process keeps one core busy (`busy` section);
- batch-8 throughput (--batch8 models; inputs tiled to batch 8): the same rotation, inferences/s
  from each runtime's median, Kiln ÷ the better f32 peer;
- cold start (file on disk → first result, a fresh process, Kiln vs onnxruntime; Kiln's from the
  spawn, so its dynamic libraries' mapping counts, onnxruntime's from before its import) and
  peak RSS (VmHWM of those processes; onnxruntime's includes Python and numpy, and the figure
  after the imports alone is reported too);
- achieved GFLOP/s: the FLOPs Kiln's profiler counts on the compiled graph (`kiln prof --om`),
  divided by each runtime's median, as % of the CPU's fp32 FMA peak that profiler measured.

Honesty: the load average is printed before and after; over each timed section the CPU time
that processes other than the benchmark's own used is measured from /proc (`foreign_cpu`, in
cores), and so is the CPU time each server used during the other servers' blocks
(`bystander_cpu`: a peer still spinning takes a CPU from the runtime being timed); a section
with foreign_cpu or a bystander above --max-foreign, or a run that starts with a load average
above --max-load, is marked NOT COMPARABLE (a loaded machine flatters whichever runtime spins
less). Kiln's servers log their spin governor's decisions (the runtime log at debug level, in a
governor-log-* folder beside the section's .om, kept with --work, unless ASCEND_* log settings
are given): a section whose Kiln parked its idle workers in some probe windows says so
(`kiln_spin_governor`, with the log's folder; Kiln then ran at its loaded-machine speed).
Threads: Kiln KILN_CPU_THREADS=N and OMP_NUM_THREADS=N; onnxruntime intra_op=N, inter_op=1,
sequential, ORT_ENABLE_ALL; OpenVINO INFERENCE_NUM_THREADS=N, PERFORMANCE_HINT=LATENCY (batch 8
too: each call is one synchronous request). Writes the JSON (default
bench/results/models-<date>.json), a markdown report and a PNG chart beside it.
"""
import argparse
import csv
import datetime
import glob
import json
import os
import platform
import re
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
TEST_MODELS = os.path.join(ROOT, "tests", "data", "models")
GENERATED = os.path.join(ROOT, "build", "models")
PEER_SERVE = os.path.join(ROOT, "bench", "peer_serve.py")


def ocr_det_640(_model):
    lines = ["Kiln compiles ONNX", "to .om files: 2026", "PP-OCRv4 text det", "640 x 640 page"]
    img = ref.text_image(640, 640, lines, size=48, seed=4)
    return [{"x": ref.paddle_ocr(img)}], "4 rendered text lines, 640x640, (x/255-0.5)/0.5"


def crnn_features(_model):
    rng = np.random.default_rng(80)
    return ([{"features": rng.standard_normal((80, 1, 512)).astype(np.float32)}],
            "[80, 1, 512] standard normal features (seed 80)")


def lstm_lm_inputs(_model):
    rng = np.random.default_rng(81)
    return ([{"inputs": rng.standard_normal((64, 1, 256)).astype(np.float32)}],
            "[64, 1, 256] standard normal inputs (seed 81)")


# name -> (source model, input maker returning ([feeds], description))
MODELS = {
    "resnet50_v1.5": (os.path.join(GENERATED, "resnet50_v1.5.onnx"),
                      ref.classifier_sets("input", 50)),
    "resnet50_qdq": (os.path.join(GENERATED, "resnet50_v1.5_qdq.onnx"),
                     ref.classifier_sets("input", 50)),
    "mobilenetv2": (os.path.join(GENERATED, "mobilenetv2.onnx"), ref.classifier_sets("input", 2)),
    "bert_encoder": (os.path.join(GENERATED, "bert_encoder.onnx"), ref.bert_sets),
    "bert_qdq": (os.path.join(GENERATED, "bert_encoder_qdq.onnx"), ref.bert_sets),
    "bert_dynamic": (os.path.join(GENERATED, "bert_encoder_dynamic.onnx"), ref.bert_sets),
    "yolov8n_320n": (os.path.join(SITE, "nudenet", "320n.onnx"), ref.yolo_sets),
    "ppocrv4_det_640": (os.path.join(SITE, "rapidocr_onnxruntime", "models",
                                     "ch_PP-OCRv4_det_infer.onnx"), ocr_det_640),
    "mnist-8": (os.path.join(TEST_MODELS, "mnist-8", "model.onnx"), ref.mnist_sets),
    "crnn_head": (os.path.join(GENERATED, "crnn_head.onnx"), crnn_features),
    "lstm_lm": (os.path.join(GENERATED, "lstm_lm.onnx"), lstm_lm_inputs),
}
# The public set's models of one input shape (tests/models/make_reference_data.py: the ONNX model
# zoo's light models — its classifiers with weights made by ConstantOfShape — YuNet, PP-OCR's
# recogniser and classifier...), selectable by name with --only: models Kiln was not tuned on.
PUBLIC_SET = {name: case for name, case in ref.CASES.items()
              if case[1] == "static" or name in ("ppocrv4_rec", "ppocr_mobile_v2_cls")}
# Models whose outputs are class scores along the last axis: their bf16 accuracy includes the
# agreement of the arg-max (top-1) with onnxruntime's.
CLASS_SCORES = {"resnet50_v1.5", "resnet50_qdq", "mobilenetv2", "mnist-8", "crnn_head",
                "lstm_lm"}
GENERATOR_NAMES = {"resnet50_v1.5": "resnet50", "resnet50_qdq": "resnet50_qdq",
                   "bert_qdq": "bert_qdq", "bert_dynamic": "bert_dynamic",
                   "mobilenetv2": "mobilenetv2",
                   "bert_encoder": "bert", "crnn_head": "crnn", "lstm_lm": "lstm_lm"}
F32_PEERS = ("ort", "openvino-f32")
BF16_MODE = "allow_mix_precision_bf16"  # kiln-bf16: the .om compiled with this precision mode
# The fp32 peak is measured afresh by each benchmark run (on the machine it checks is idle), not
# taken from the user's cache, which may hold a figure measured under load (docs/tools.md).
PEAK_CACHE = tempfile.mkdtemp(prefix="kiln_peak_")

# An output agrees when max |kiln - ort| <= RTOL * max |ort| + ATOL. An int8 model's output is
# dequantized from 8 bits: a tie rounded differently by Kiln's and onnxruntime's integer kernels
# moves it by a step of that quantization (about 1 % of the range), and a transformer's
# LayerNorms amplify such steps: onnxruntime's own optimised and unoptimised graphs of bert_qdq
# differ by 5 % of the output's range.
RTOL, ATOL = 1e-3, 1e-5
RTOL_OF = {"resnet50_qdq": 2e-2, "bert_qdq": 0.1, "bert_dynamic": 2e-2}

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


# ---- the machine's load, from /proc -------------------------------------------------------

def busy_jiffies():
    """CPU time of the whole machine that was not idle, in clock ticks."""
    with open("/proc/stat") as f:
        fields = [int(x) for x in f.readline().split()[1:]]
    idle = fields[3] + (fields[4] if len(fields) > 4 else 0)  # idle + iowait
    return sum(fields[:8]) - idle


def process_jiffies(pid):
    """utime + stime of one process (all its threads), in clock ticks; 0 once it is gone."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            rest = f.read().rsplit(")", 1)[1].split()
        return int(rest[11]) + int(rest[12])
    except (OSError, IndexError, ValueError):
        return 0


def process_cpu_ns(pid):
    """CPU time of all of one process's threads, in ns (schedstat); 0 once it is gone."""
    total = 0
    try:
        for tid in os.listdir(f"/proc/{pid}/task"):
            try:
                with open(f"/proc/{pid}/task/{tid}/schedstat") as f:
                    total += int(f.read().split()[0])
            except (OSError, IndexError, ValueError):
                pass
    except OSError:
        return 0
    return total


def wait_until_idle(pids, quiet_s=0.02, most_s=1.0):
    """Returns once the processes used under 2 % of a core over `quiet_s` (their workers,
    spinning after a block, have gone to sleep), or after `most_s`; the seconds it waited. A
    fixed pause let one runtime's spinning workers run into the next runtime's block."""
    start = time.perf_counter()
    before = sum(process_cpu_ns(p) for p in pids)
    while time.perf_counter() - start < most_s:
        time.sleep(quiet_s)
        now = sum(process_cpu_ns(p) for p in pids)
        if now - before < 0.02 * quiet_s * 1e9:
            break
        before = now
    return time.perf_counter() - start


class LoadMeter:
    """CPU time that processes other than `own` pids used while the meter ran, in cores."""

    def __init__(self, own_pids):
        self.own = list(own_pids) + [os.getpid()]
        self.t0 = time.perf_counter()
        self.busy0 = busy_jiffies()
        self.own0 = {p: process_jiffies(p) for p in self.own}

    def foreign_cores(self):
        hz = os.sysconf("SC_CLK_TCK")
        wall = time.perf_counter() - self.t0
        own = sum(process_jiffies(p) - self.own0[p] for p in self.own)
        foreign = (busy_jiffies() - self.busy0 - own) / hz
        return max(foreign, 0.0) / wall if wall > 0 else 0.0


class BystanderMeter:
    """CPU time the other servers used while one server ran its blocks, in cores. A peer whose
    workers run on after its own block, or wake on their own, takes a CPU from the runtime being
    timed; foreign_cpu cannot see it (the servers are the benchmark's own processes), and
    wait_until_idle only checks them before a block starts."""

    def __init__(self, servers):
        self.cpu_ns = {s.name: {x.name: 0 for x in servers if x is not s} for s in servers}
        self.wall_s = {s.name: 0.0 for s in servers}

    def block(self, timed, servers, run):
        """run() (the timed server's block), measuring the others meanwhile; run()'s result."""
        others = [x for x in servers if x is not timed]
        before = {x.name: process_cpu_ns(x.pid) for x in others}
        start = time.perf_counter()
        result = run()
        self.wall_s[timed.name] += time.perf_counter() - start
        for x in others:
            self.cpu_ns[timed.name][x.name] += process_cpu_ns(x.pid) - before[x.name]
        return result

    def cores(self):
        """{timed: {other: cores the other used during timed's blocks}}."""
        return {t: {o: ns / 1e9 / self.wall_s[t] for o, ns in others.items()}
                for t, others in self.cpu_ns.items() if self.wall_s[t] > 0}


def busiest_bystander(cores):
    """(cores, other, timed) of the server that used the most CPU during another's blocks."""
    return max(((c, o, t) for t, others in cores.items() for o, c in others.items()),
               default=(0.0, None, None))


# ---- the runtimes, each in a process of its own --------------------------------------------

KILN_EXTRA_ENV = {}  # --kiln-env KEY=VALUE


def kiln_env(threads):
    env = dict(os.environ)
    env["KILN_CPU_THREADS"] = str(threads)
    env["OMP_NUM_THREADS"] = str(threads)
    env.update(KILN_EXTRA_ENV)
    return env


def kiln_args(build, case, extra, bf16=False):
    om = case["om"][:-3] + "_bf16.om" if bf16 else case["om"]
    return ([os.path.join(build, "bench", "model_bench"), f"--model={om}"] +
            [f"--input={f}" for f in case["input_files"]] + extra)


class Server:
    """A runtime serving timed blocks of runs over a pipe (model_bench --serve / peer_serve)."""

    def __init__(self, name, args, env=None):
        self.name = name
        self.proc = subprocess.Popen(args, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=subprocess.PIPE, text=True, env=env)
        line = self.proc.stdout.readline()
        ready = json.loads(line) if line.strip() else {}
        if not ready.get("ready"):
            err = self.proc.stderr.read()[-2000:]
            self.proc.kill()
            raise RuntimeError(f"{name} did not start: {line.strip()} {err}")
        self.version = ready.get("version", "")

    @property
    def pid(self):
        return self.proc.pid

    def block(self, runs):
        self.proc.stdin.write(f"{runs}\n")
        self.proc.stdin.flush()
        return json.loads(self.proc.stdout.readline())["runs_us"]

    def close(self):
        try:
            self.proc.stdin.close()
            self.proc.wait(timeout=60)
        except Exception:  # a stuck peer must not stop the report
            self.proc.kill()


def governor_log_env(env, log_dir):
    """Kiln's runtime log at debug level into `log_dir`, where the spin governor writes each
    decision (docs/configuration.md, KILN_CPU_SPIN); left alone when the user set the log's
    place or level."""
    if any(k in env for k in ("ASCEND_PROCESS_LOG_PATH", "ASCEND_GLOBAL_LOG_LEVEL",
                                     "ASCEND_MODULE_LOG_LEVEL", "ASCEND_LOG_PRINT_TO_STDOUT",
                                     "ASCEND_SLOG_PRINT_TO_STDOUT")):
        return env
    return dict(env, ASCEND_PROCESS_LOG_PATH=log_dir, ASCEND_MODULE_LOG_LEVEL="RUNTIME=0")


GOVERNOR_PROBE = re.compile(r"spin governor probe: waited .*; "
                            r"(parked|spinning) -> (parked|spinning|confirming a park)")
GOVERNOR_FIRST = re.compile(r"spin governor, first execution: .*; (unparks|stays parked)")


def governor_summary(log_dir):
    """What Kiln's spin governor decided in a server's log: the state its first execution ran in,
    its probe windows, how many of them ended parked (idle workers asleep: Kiln at its
    loaded-machine speed), and the parks."""
    windows = parked = parks = 0
    first = None
    for path in glob.glob(os.path.join(log_dir, "**", "*.log"), recursive=True):
        with open(path, errors="replace") as f:
            for line in f:
                m = GOVERNOR_FIRST.search(line)
                if m:
                    first = "spinning" if m.group(1) == "unparks" else "parked"
                m = GOVERNOR_PROBE.search(line)
                if not m:
                    continue
                windows += 1
                parked += m.group(2) == "parked"
                parks += m.group(1) == "spinning" and m.group(2) == "parked"
    return {"first_execution": first, "probe_windows": windows, "parked_windows": parked,
            "parks": parks}


def parked_sections(sec):
    """(runtime, parked windows, probe windows) of each Kiln in a section that ran parked."""
    return [(r, g["parked_windows"], g["probe_windows"])
            for r, g in sec.get("kiln_spin_governor", {}).items() if g["parked_windows"]]


def start_servers(case, build, threads, warmup, runtimes, log_root=None):
    servers = []
    try:
        for r in runtimes:
            if r in ("kiln", "kiln-bf16"):
                env = kiln_env(threads)
                if log_root:
                    env = governor_log_env(env, os.path.join(log_root, r))
                servers.append(Server(r, kiln_args(build, case, [f"--warmup={warmup}", "--serve"],
                                                   bf16=r == "kiln-bf16"),
                                      env=env))
            else:
                servers.append(Server(r, [sys.executable, PEER_SERVE, "--runtime", r, "--model",
                                          case["onnx"], "--threads", str(threads), "--warmup",
                                          str(warmup)] +
                                      [a for f in case["input_npy"] for a in ("--input", f)]))
    except Exception:
        for s in servers:
            s.close()
        raise
    return servers


def summary(times):
    return {"median_us": percentile(times, 50), "p90_us": percentile(times, 90),
            "p99_us": percentile(times, 99), "min_us": float(np.min(times)),
            "runs_us": [round(t, 1) for t in times]}


def time_rotation(case, build, threads, runtimes, blocks, block_runs, warmup, max_foreign,
                  extra_pids=()):
    """Blocks rotating over the runtimes; per-runtime summaries and Kiln's per-block ratios."""
    # Beside the section's .om: kept with --work, for a section that ran parked to be read.
    log_root = tempfile.mkdtemp(prefix="governor-log-", dir=os.path.dirname(case["om"]))
    servers = start_servers(case, build, threads, warmup, runtimes, log_root)
    try:
        meter = LoadMeter([s.pid for s in servers] + list(extra_pids))
        bystanders = BystanderMeter(servers)
        runs = {s.name: [] for s in servers}
        per_block = []
        waits = []  # how long each pause after a block took to find the servers idle
        for b in range(blocks):
            order = servers[b % len(servers):] + servers[:b % len(servers)]
            medians = {}
            for s in order:
                times = bystanders.block(s, servers, lambda: s.block(block_runs))
                runs[s.name] += times
                medians[s.name] = float(np.median(times))
                waits.append(wait_until_idle([x.pid for x in servers]))
            per_block.append(medians)
        foreign = meter.foreign_cores()
        bystander = bystanders.cores()
        versions = {s.name: s.version for s in servers}
    finally:
        for s in servers:
            s.close()
    governor = {r: dict(governor_summary(os.path.join(log_root, r)),
                        log=os.path.join(log_root, r)) for r in runs if r.startswith("kiln")}
    out = {"runtimes": {n: summary(t) for n, t in runs.items()}, "versions": versions,
           "kiln_spin_governor": governor,
           "block_medians_us": per_block, "foreign_cpu": foreign, "bystander_cpu": bystander,
           "idle_wait_s": {"median": float(np.median(waits)), "max": float(np.max(waits))},
           "comparable": foreign <= max_foreign and
           busiest_bystander(bystander)[0] <= max_foreign}
    f32 = [p for p in F32_PEERS if p in runs]
    if "kiln" in runs and f32:
        best = [m["kiln"] / min(m[p] for p in f32) for m in per_block]
        out["kiln_over_best_f32"] = {"blocks": best, "median": float(np.median(best)),
                                     "peers": f32}
        for p in runs:
            if not p.startswith("kiln"):
                r = [m["kiln"] / m[p] for m in per_block]
                out[f"kiln_over_{p}"] = {"blocks": r, "median": float(np.median(r))}
    if "kiln-bf16" in runs and "openvino" in runs:
        r = [m["kiln-bf16"] / m["openvino"] for m in per_block]
        out["kiln_bf16_over_openvino"] = {"blocks": r, "median": float(np.median(r))}
    return out


class BusyCore:
    """Another process that keeps one core busy while it lives."""

    def __enter__(self):
        self.proc = subprocess.Popen([sys.executable, "-c", "while True: pass"])
        time.sleep(0.5)
        return self

    def __exit__(self, *exc):
        self.proc.kill()
        self.proc.wait()


# ---- preparing a case -------------------------------------------------------------------

def compile_om(build, onnx_path, om, extra=()):
    t0 = time.perf_counter()
    atc = subprocess.run([os.path.join(build, "tools", "kiln", "kiln"), "atc", "--framework=5",
                          f"--model={onnx_path}", f"--output={om}", *extra],
                         capture_output=True, text=True)
    if atc.returncode != 0:
        raise RuntimeError(f"kiln atc failed:\n{atc.stdout[-2000:]}{atc.stderr[-2000:]}")
    return time.perf_counter() - t0


def prepare(name, work, build, batch=1, bf16=False):
    """Writes the fixed-shape model and the input files, compiles the .om; returns the case."""
    src, make_inputs = MODELS[name]
    if not os.path.exists(src):
        raise FileNotFoundError(f"{src} (run scripts/setup.sh)")
    case_dir = os.path.join(work, name if batch == 1 else f"{name}_b{batch}")
    os.makedirs(case_dir, exist_ok=True)
    model = onnx.load(src)
    sets, description = make_inputs(src)
    feeds = sets[0]
    if batch != 1:
        feeds = {k: np.ascontiguousarray(np.concatenate([a] * batch, axis=0))
                 for k, a in feeds.items()}
        description += f", tiled to batch {batch}"
    inputs = ref.graph_inputs(model)
    fixed = os.path.join(case_dir, "model.onnx")
    ref.fixed_copy(model, {k: np.shape(a) for k, a in feeds.items()}, fixed)
    files, npys, dtypes, shapes = [], [], [], []
    for k, v in enumerate(inputs):
        array = np.ascontiguousarray(feeds[v.name])
        path = os.path.join(case_dir, f"input_{k}.bin")
        array.tofile(path)
        np.save(os.path.join(case_dir, f"input_{k}.npy"), array)
        files.append(path)
        npys.append(os.path.join(case_dir, f"input_{k}.npy"))
        dtypes.append(str(array.dtype))
        shapes.append(list(array.shape))
    om = os.path.join(case_dir, "model")
    compile_s = compile_om(build, fixed, om)
    if bf16:
        compile_om(build, fixed, om + "_bf16", [f"--precision_mode={BF16_MODE}"])
    return {"name": name, "batch": batch, "source": os.path.realpath(src), "onnx": fixed,
            "om": om + ".om", "inputs_description": description,
            "input_names": [v.name for v in inputs], "input_files": files, "input_npy": npys,
            "input_dtypes": dtypes, "input_shapes": shapes, "feeds": feeds,
            "output_names": [o.name for o in model.graph.output], "compile_s": compile_s,
            "dir": case_dir}


def cross_check(case, build, threads, sess, bf16=False):
    """Kiln's outputs against onnxruntime's; with bf16, the accuracy of the bf16 .om, reported
    (max error over the output's range, and whether the arg-max of every row agrees) rather
    than held to the f32 tolerance."""
    out_dir = os.path.join(case["dir"], "kiln_out_bf16" if bf16 else "kiln_out")
    os.makedirs(out_dir, exist_ok=True)
    run = subprocess.run(kiln_args(build, case, ["--warmup=0", "--runs=0", f"--out-dir={out_dir}"],
                                   bf16=bf16),
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
        rtol = RTOL_OF.get(case["name"], RTOL)
        good = bool(np.all(np.isfinite(have))) and (bf16 or max_abs <= rtol * scale + ATOL)
        ok = ok and good
        checks.append(accuracy(got["name"], have, ref64, case["name"]) | {"ok": good})
    return ok, checks


def accuracy(name, have, ref64, model):
    """Errors of `have` against the reference: max and mean absolute, max over the output's
    largest magnitude, and for class scores the arg-max agreement."""
    diff = np.abs(have - ref64)
    scale = float(np.max(np.abs(ref64))) if ref64.size else 0.0
    max_abs = float(np.max(diff)) if diff.size else 0.0
    out = {"output": name, "max_abs": max_abs, "mean_abs": float(np.mean(diff)) if diff.size else 0,
           "max_abs_over_max_ref": max_abs / scale if scale else max_abs, "max_ref": scale}
    if model in CLASS_SCORES and ref64.shape[-1] > 1:
        out["argmax_agreement"] = float(np.mean(np.argmax(have, axis=-1) ==
                                                np.argmax(ref64, axis=-1)))
    return out


def openvino_default_accuracy(case, threads, sess):
    """The same errors for OpenVINO at its default precision (bf16 where the CPU has it): what
    a peer's reduced precision costs on the same inputs."""
    import openvino as ov
    compiled = ov.Core().compile_model(case["onnx"], "CPU", {"INFERENCE_NUM_THREADS": threads})
    result = compiled.create_infer_request().infer(
        {k: case["feeds"][k] for k in case["input_names"]})
    expected = sess.run(None, case["feeds"])
    have = list(result.values())
    return [accuracy(n, np.asarray(h, np.float64), e.astype(np.float64), case["name"])
            for n, h, e in zip(case["output_names"], have, expected)]


def model_flops(case, build, threads):
    """FLOPs of one execution as Kiln's profiler counts them, and the fp32 peak it measured."""
    out = os.path.join(case["dir"], "prof")
    run = subprocess.run([os.path.join(build, "tools", "kiln", "kiln"), "prof", "--om",
                          case["om"], "--input", ",".join(case["input_files"]), "--loop", "1",
                          "--warmup", "0", "--output", out], capture_output=True, text=True,
                         env={**kiln_env(threads), "KILN_CACHE_DIR": PEAK_CACHE})
    if run.returncode != 0:
        raise RuntimeError(f"kiln prof failed: {run.stderr.strip()[-1000:]}")
    path = sorted(glob.glob(os.path.join(out, "PROF_*", "summary", "op_summary_*.csv")))[-1]
    flops, peak, unknown = 0, 0.0, set()
    with open(path) as f:
        for row in csv.DictReader(f):
            if row["Body Depth"] != "0" or row["Infer ID"] != "1":
                continue
            peak = float(row["Peak GFLOP/s"] or 0) or peak
            if row["FLOPs"]:
                flops += int(row["FLOPs"])
            else:
                unknown.add(row["OP Type"])
    return {"flops": flops, "peak_gflops": peak, "ops_without_flops": sorted(unknown)}


def time_cold(case, build, threads, reps):
    kiln, ort_runs = [], []
    spec = json.dumps([case["onnx"], threads, case["input_names"], case["input_files"],
                       case["input_dtypes"], case["input_shapes"]])
    for r in range(reps):
        for which in (("kiln", "ort") if r % 2 == 0 else ("ort", "kiln")):
            t0 = time.perf_counter()
            if which == "kiln":
                # Counted from the spawn (model_bench.cc): the dynamic loader's mapping of
                # libascendcl.so and its libraries is part of Kiln's cold start, as the import is
                # of onnxruntime's.
                env = kiln_env(threads)
                env["KILN_BENCH_SPAWN_NS"] = str(time.clock_gettime_ns(time.CLOCK_MONOTONIC))
                run = subprocess.run(kiln_args(build, case, ["--warmup=0", "--runs=0"]),
                                     capture_output=True, text=True, env=env)
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
    keys_kiln = ["cold_start_us", "main_to_first_us", "init_us", "load_us", "first_run_us",
                 "process_wall_us", "peak_rss_kb"]
    keys_ort = ["cold_start_us", "cold_start_no_import_us", "import_us", "session_us",
                "first_run_us", "process_wall_us", "peak_rss_kb", "peak_rss_import_kb"]
    return {"kiln": {k: med(kiln, k) for k in keys_kiln},
            "onnxruntime": {k: med(ort_runs, k) for k in keys_ort},
            "cold_ratio": med(kiln, "cold_start_us") / med(ort_runs, "cold_start_us"),
            "cold_ratio_no_import": med(kiln, "cold_start_us") /
            med(ort_runs, "cold_start_no_import_us"),
            "rss_ratio": med(kiln, "peak_rss_kb") / med(ort_runs, "peak_rss_kb")}


# ---- the report -------------------------------------------------------------------------

def ms(us):
    return f"{us / 1000:.2f}" if us < 100000 else f"{us / 1000:.0f}"


def ratio_cell(section, key):
    r = section.get(key)
    return f"{r['median']:.2f}" if r else "–"


def latency_table(report, key, title):
    runtimes = report["runtimes"]
    lines = [f"### {title}", "",
             "| model | " + " | ".join(f"{r} p50 / p90 / p99 ms" for r in runtimes) +
             " | Kiln ÷ faster f32 peer | Kiln ÷ OpenVINO default | Kiln bf16 ÷ OpenVINO default"
             " | comparable |",
             "|---|" + "---|" * (len(runtimes) + 4)]
    for m in report["models"]:
        sec = m.get(key)
        if not sec:
            why = m.get("error") or ("WRONG ANSWER, not timed" if not m.get("ok") else "")
            if why:
                lines.append(f"| {m['name']} | {why[:120]} |" + " |" * (len(runtimes) + 3))
            continue
        cells = []
        for r in runtimes:
            s = sec["runtimes"].get(r)
            cells.append(f"{ms(s['median_us'])} / {ms(s['p90_us'])} / {ms(s['p99_us'])}"
                         if s else "–")
        comparable = ("yes" if sec["comparable"] else "**NO**") + \
            f" ({not_comparable_why(sec).replace('used by other processes', 'foreign')})"
        for r, parked, windows in parked_sections(sec):
            comparable += f"; {r} parked {parked}/{windows}"
        lines.append(f"| {m['name']} | " + " | ".join(cells) +
                     f" | **{ratio_cell(sec, 'kiln_over_best_f32')}** | "
                     f"{ratio_cell(sec, 'kiln_over_openvino')} | "
                     f"{ratio_cell(sec, 'kiln_bf16_over_openvino')} | {comparable} |")
    return lines


def markdown(report):
    runtimes = report["runtimes"]
    lines = latency_table(report, "latency", "Batch-1 latency, idle machine")
    if any("busy" in m for m in report["models"]):
        lines += [""] + latency_table(report, "busy", "Batch-1 latency, one core kept busy by "
                                      "another process")
    if any("batch8" in m for m in report["models"]):
        lines += ["", "### Batch-8 throughput (inferences/s)", "",
                  "| model | " + " | ".join(runtimes) + " | Kiln ÷ better f32 peer | comparable |",
                  "|---|" + "---|" * (len(runtimes) + 2)]
        for m in report["models"]:
            sec = m.get("batch8")
            if not sec:
                continue
            if "error" in sec:
                lines.append(f"| {m['name']} | {sec['error'][:120]} |")
                continue
            cells = [f"{8e6 / sec['runtimes'][r]['median_us']:.1f}" if r in sec["runtimes"]
                     else "–" for r in runtimes]
            r = sec.get("kiln_over_best_f32")
            tput = f"{1 / r['median']:.2f}" if r else "–"
            lines.append(f"| {m['name']} | " + " | ".join(cells) + f" | **{tput}** | "
                         f"{'yes' if sec['comparable'] else '**NO**'} |")
    if any("bf16_accuracy" in m for m in report["models"]):
        lines += ["", f"### bf16 accuracy (kiln-bf16, --precision_mode={BF16_MODE}, against "
                  "onnxruntime f32)", "",
                  "| model | output | max abs error (÷ max abs of the output) | mean abs error | "
                  "arg-max agreement | OpenVINO default: max (÷ max) / mean / arg-max |",
                  "|---|---|---|---|---|---|"]

        def agree(c):
            return f"{100 * c['argmax_agreement']:.1f} %" if "argmax_agreement" in c else "–"
        for m in report["models"]:
            peer = m.get("openvino_default_accuracy", [])
            for i, c in enumerate(m.get("bf16_accuracy", [])):
                if "max_abs" not in c:
                    lines.append(f"| {m['name']} | {c['output']} | {c.get('error', '?')} | | | |")
                    continue
                o = peer[i] if i < len(peer) else None
                ov_text = (f"{o['max_abs']:.3g} ({o['max_abs_over_max_ref']:.3g}) / "
                           f"{o['mean_abs']:.3g} / {agree(o)}" if o else "–")
                lines.append(f"| {m['name']} | {c['output']} | {c['max_abs']:.3g} "
                             f"({c['max_abs_over_max_ref']:.3g}) | {c['mean_abs']:.3g} | "
                             f"{agree(c)} | {ov_text} |")
    lines += ["", "### Cold start, memory, achieved compute", "",
              "| model | cold start ms Kiln / ORT (ORT w/o import) | Kiln ÷ ORT | "
              "peak RSS MiB Kiln / ORT (ORT after imports) | Kiln ÷ ORT | GFLOP per run | "
              "GFLOP/s (% of fp32 peak): " + " / ".join(runtimes) + " | max abs err (÷ max) |",
              "|---|---|---|---|---|---|---|---|"]
    for m in report["models"]:
        if not m.get("ok"):
            continue
        err = max(m["cross_check"], key=lambda c: c.get("max_abs_over_max_ref", 1e30))
        err_text = f"{err['max_abs']:.2g} ({err['max_abs_over_max_ref']:.1g})"
        cold = m.get("cold")
        cold_cells = ("– | – | – | –" if not cold else
                      f"{ms(cold['kiln']['cold_start_us'])} / "
                      f"{ms(cold['onnxruntime']['cold_start_us'])} "
                      f"({ms(cold['onnxruntime']['cold_start_no_import_us'])}) | "
                      f"{cold['cold_ratio']:.2f} | "
                      f"{cold['kiln']['peak_rss_kb'] / 1024:.0f} / "
                      f"{cold['onnxruntime']['peak_rss_kb'] / 1024:.0f} "
                      f"({cold['onnxruntime']['peak_rss_import_kb'] / 1024:.0f}) | "
                      f"{cold['rss_ratio']:.2f}")
        fl = m.get("flops")
        if fl and fl["flops"] and "latency" in m:
            parts = []
            for r in runtimes:
                s = m["latency"]["runtimes"].get(r)
                if not s:
                    parts.append("–")
                    continue
                g = fl["flops"] / s["median_us"] / 1e3
                parts.append(f"{g:.0f} ({100 * g / fl['peak_gflops']:.0f} %)"
                             if fl["peak_gflops"] else f"{g:.0f}")
            compute = f"{fl['flops'] / 1e9:.3g} | " + " / ".join(parts)
        else:
            compute = "– | –"
        lines.append(f"| {m['name']} | {cold_cells} | {compute} | {err_text} |")
    return "\n".join(lines)


def chart(report, path):
    """Bars: each runtime's median ÷ the faster f32 peer's, per model (idle, and busy)."""
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("chart skipped: matplotlib is not installed (scripts/setup.sh --bench)")
        return None
    sections = [s for s in ("latency", "busy") if any(s in m for m in report["models"])]
    fig, axes = plt.subplots(1, len(sections), figsize=(7 * len(sections), 4.5), squeeze=False)
    runtimes = report["runtimes"]
    for ax, key in zip(axes[0], sections):
        models = [m for m in report["models"] if key in m]
        width = 0.8 / len(runtimes)
        for i, r in enumerate(runtimes):
            values = []
            for m in models:
                sec = m[key]
                f32 = [p for p in F32_PEERS if p in sec["runtimes"]]
                best = min(sec["runtimes"][p]["median_us"] for p in f32) if f32 else None
                s = sec["runtimes"].get(r)
                values.append(s["median_us"] / best if s and best else 0)
            ax.bar([k + i * width for k in range(len(models))], values, width, label=r)
        ax.axhline(1.0, color="black", linewidth=0.8)
        ax.set_xticks([k + 0.4 - width / 2 for k in range(len(models))])
        ax.set_xticklabels([m["name"] for m in models], rotation=20, ha="right", fontsize=8)
        ax.set_ylabel("median latency ÷ faster f32 peer (lower is better)")
        ax.set_title("idle machine" if key == "latency" else "one core kept busy")
        ax.legend(fontsize=8)
    fig.suptitle(f"{report['machine'].get('cpu', '?')}, {report['threads_n']} threads, "
                 f"{report['date']}", fontsize=9)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path


def parse_args(argv):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n", 1)[0])
    p.add_argument("--build", default=os.path.join(ROOT, "build", "release"),
                   help="build folder with tools/kiln/kiln and bench/model_bench")
    p.add_argument("--only", default=",".join(MODELS), help="comma-separated model names")
    p.add_argument("--threads", type=int, default=2, help="threads for every runtime")
    p.add_argument("--blocks", type=int, default=6, help="rotations of blocks per section")
    p.add_argument("--block-runs", type=int, default=10, help="timed runs per block")
    p.add_argument("--warmup", type=int, default=5, help="untimed runs before the blocks")
    p.add_argument("--cold", type=int, default=3, help="fresh-process repetitions per runtime")
    p.add_argument("--no-cold", action="store_true", help="skip cold start and peak RSS")
    p.add_argument("--busy", action="store_true",
                   help="also time batch 1 with another process keeping one core busy")
    p.add_argument("--batch8", default="resnet50_v1.5,mobilenetv2",
                   help="models timed at batch 8 too (comma-separated; '' for none)")
    p.add_argument("--no-openvino", action="store_true", help="leave OpenVINO out")
    p.add_argument("--bf16", action="store_true",
                   help=f"also Kiln's bf16 mode (kiln-bf16: --precision_mode={BF16_MODE}), its "
                        "accuracy against onnxruntime reported")
    p.add_argument("--max-load", type=float, default=0.5,
                   help="a 1-minute load average above this at the start: not comparable")
    p.add_argument("--max-foreign", type=float, default=0.1,
                   help="cores used by other processes during a section above this: "
                        "not comparable")
    p.add_argument("--kiln-env", action="append", default=[], metavar="KEY=VALUE",
                   help="extra environment for the Kiln processes (repeatable), e.g. "
                        "KILN_CPU_SPIN=1")
    p.add_argument("--work", default=None, help="scratch folder (default: a temporary one)")
    p.add_argument("--json", default=None,
                   help="output JSON (default bench/results/models-<date>.json); the markdown "
                        "and the PNG chart go beside it unless --markdown/--chart say where")
    p.add_argument("--markdown", default=None, help="the markdown report")
    p.add_argument("--chart", default=None, help="the PNG chart")
    args = p.parse_args(argv)
    for item in args.kiln_env:
        if "=" not in item:
            p.error(f"--kiln-env: expected KEY=VALUE, got '{item}'")
    args.only = [n.strip() for n in args.only.split(",") if n.strip()]
    args.batch8 = [n.strip() for n in args.batch8.split(",") if n.strip()]
    for name in args.only + args.batch8:
        if name not in MODELS and name in PUBLIC_SET:
            MODELS[name] = (PUBLIC_SET[name][0](), PUBLIC_SET[name][2])
    unknown = [n for n in args.only + args.batch8 if n not in MODELS]
    if unknown:
        p.error(f"unknown model(s) {','.join(unknown)}; known: {','.join(MODELS)} and the public "
                f"set's static ones: {','.join(PUBLIC_SET)}")
    return args


def run_model(name, args, build, work, runtimes, report):
    entry = {"name": name}
    report["models"].append(entry)
    case = prepare(name, work, build, bf16=args.bf16)
    sess = ort_session(case["onnx"], args.threads)
    entry.update({"source": case["source"], "inputs": case["inputs_description"],
                  "input_shapes": dict(zip(case["input_names"], case["input_shapes"])),
                  "compile_s": case["compile_s"]})
    entry["ok"], entry["cross_check"] = cross_check(case, build, args.threads, sess)
    if args.bf16:
        _, entry["bf16_accuracy"] = cross_check(case, build, args.threads, sess, bf16=True)
        if "openvino" in runtimes:
            entry["openvino_default_accuracy"] = openvino_default_accuracy(case, args.threads,
                                                                           sess)
    del sess
    if not entry["ok"]:
        print(f"{name}: WRONG ANSWER, not timed: {entry['cross_check']}")
        return
    entry["flops"] = model_flops(case, build, args.threads)
    timing = (args.threads, runtimes, args.blocks, args.block_runs, args.warmup,
              args.max_foreign)
    entry["latency"] = time_rotation(case, build, *timing)
    print(f"{name}: {describe(entry['latency'])}", flush=True)
    if args.busy:
        with BusyCore() as busy:
            entry["busy"] = time_rotation(case, build, *timing, extra_pids=[busy.proc.pid])
        print(f"{name} (one core busy): {describe(entry['busy'])}", flush=True)
    if name in args.batch8:
        try:
            big = prepare(name, work, build, batch=8, bf16=args.bf16)
            sess = ort_session(big["onnx"], args.threads)
            ok, checks = cross_check(big, build, args.threads, sess)
            del sess
            if not ok:
                entry["batch8"] = {"error": f"WRONG ANSWER at batch 8: {checks}"}
            else:
                entry["batch8"] = time_rotation(big, build, args.threads, runtimes, args.blocks,
                                                max(args.block_runs // 3, 2), 2, args.max_foreign)
                print(f"{name} batch 8: {describe(entry['batch8'])}", flush=True)
        except Exception as e:  # batch 1 stands on its own
            entry["batch8"] = {"error": f"{type(e).__name__}: {e}"}
            print(f"{name} batch 8: FAILED: {entry['batch8']['error']}", flush=True)
    if not args.no_cold:
        entry["cold"] = time_cold(case, build, args.threads, args.cold)


def describe(sec):
    parts = [f"{r} {ms(s['median_us'])} ms" for r, s in sec["runtimes"].items()]
    r = sec.get("kiln_over_best_f32")
    text = ", ".join(parts)
    if r:
        text += (f"; Kiln ÷ faster f32 peer {r['median']:.2f} (blocks "
                 f"{' '.join(f'{x:.2f}' for x in r['blocks'])})")
    r = sec.get("kiln_bf16_over_openvino")
    if r:
        text += f"; Kiln bf16 ÷ OpenVINO default {r['median']:.2f}"
    for r, parked, windows in parked_sections(sec):
        text += f"; {r}'s spin governor parked the workers in {parked} of {windows} probe windows"
    return text + ("" if sec["comparable"] else "; NOT COMPARABLE: " + not_comparable_why(sec))


def not_comparable_why(sec):
    """The section's foreign cores and its busiest bystander, in words."""
    why = f"{sec['foreign_cpu']:.2f} cores used by other processes"
    cores, other, timed = busiest_bystander(sec.get("bystander_cpu", {}))
    if other:
        why += f", {other}'s server {cores:.2f} during {timed}'s blocks"
    return why


def main(argv=None):
    args = parse_args(argv)
    build = os.path.abspath(args.build)
    KILN_EXTRA_ENV.update(item.split("=", 1) for item in args.kiln_env)
    today = datetime.date.today().isoformat()
    out_json = args.json or os.path.join(ROOT, "bench", "results", f"models-{today}.json")
    out_md = args.markdown or os.path.splitext(out_json)[0] + ".md"
    out_png = args.chart or os.path.splitext(out_json)[0] + ".png"
    wanted = sorted({GENERATOR_NAMES[n] for n in args.only if n in GENERATOR_NAMES})
    if wanted:
        subprocess.run([sys.executable, os.path.join(ROOT, "scripts", "gen_models.py"), "--out",
                        GENERATED, "--only", ",".join(wanted)], check=True,
                       stdout=subprocess.DEVNULL)
    openvino_version = None
    if not args.no_openvino:
        try:
            import openvino
            openvino_version = openvino.__version__
        except ImportError:
            pass
    runtimes = (["kiln"] + (["kiln-bf16"] if args.bf16 else []) + ["ort"] +
                (["openvino-f32", "openvino"] if openvino_version else []))
    load_start = os.getloadavg()
    report = {
        "date": today,
        "command": " ".join([os.path.relpath(sys.executable, ROOT)] + sys.argv),
        "machine": machine(),
        "load_average_start": load_start,
        "comparable": load_start[0] <= args.max_load,
        "versions": {"kiln": kiln_version(build), "onnxruntime": ort.__version__,
                     "onnx": onnx.__version__, "numpy": np.__version__,
                     "openvino": openvino_version or "not installed (not compared)"},
        "runtimes": runtimes,
        "threads_n": args.threads,
        "threads": {"kiln": {"KILN_CPU_THREADS": args.threads, "OMP_NUM_THREADS": args.threads,
                             **KILN_EXTRA_ENV},
                    "onnxruntime": {"intra_op_num_threads": args.threads,
                                    "inter_op_num_threads": 1, "execution_mode": "sequential",
                                    "graph_optimization_level": "ORT_ENABLE_ALL"},
                    "openvino": {"INFERENCE_NUM_THREADS": args.threads,
                                 "PERFORMANCE_HINT": "LATENCY"}},
        "precision": "fp32: kiln, ort, openvino-f32; openvino: its default",
        "protocol": {"blocks": args.blocks, "block_runs": args.block_runs,
                     "warmup": args.warmup, "cold_repetitions": args.cold,
                     "max_load": args.max_load, "max_foreign_cores": args.max_foreign,
                     "tolerance": f"max|kiln-ort| <= {RTOL} * max|ort| + {ATOL}"},
        "models": [],
    }
    m = report["machine"]
    print(f"machine: {m['cpu']}, {m['usable_cpus']} usable of {m['logical_cpus']} logical CPUs, "
          f"flags {' '.join(m['flags'])}")
    print(f"versions: kiln {report['versions']['kiln'][0]}, onnxruntime {ort.__version__}, "
          f"openvino {report['versions']['openvino']}")
    extra = "".join(f" {k}={v}" for k, v in KILN_EXTRA_ENV.items())
    print(f"threads: {args.threads} each; Kiln KILN_CPU_THREADS/OMP_NUM_THREADS{extra}")
    print(f"load average at start: {' '.join(f'{x:.2f}' for x in load_start)}"
          + ("" if report["comparable"] else
             f"  — above {args.max_load}: this run is NOT COMPARABLE"))
    with tempfile.TemporaryDirectory(prefix="kiln_models_") as tmp:
        work = os.path.abspath(args.work or tmp)
        for name in args.only:
            try:
                run_model(name, args, build, work, runtimes, report)
            except Exception as e:  # report every model, then go on
                entry = report["models"][-1]
                entry["error"] = f"{type(e).__name__}: {e}"
                entry["ok"] = False
                print(f"{name}: FAILED: {entry['error']}", flush=True)
    report["load_average_end"] = os.getloadavg()
    print(f"load average at end: {' '.join(f'{x:.2f}' for x in report['load_average_end'])} "
          "(the benchmark's own runs raise it)")
    table = markdown(report)
    header = (f"{m['cpu']}, {m['usable_cpus']} usable CPUs, {args.threads} threads; "
              f"{report['date']}; load average {load_start[0]:.2f} at start"
              + ("" if report["comparable"] else " (NOT COMPARABLE)") +
              f"; `{report['command']}`")
    report["markdown"] = header + "\n\n" + table
    os.makedirs(os.path.dirname(os.path.abspath(out_json)), exist_ok=True)
    with open(out_json, "w") as f:
        json.dump(report, f, indent=1)
        f.write("\n")
    with open(out_md, "w") as f:
        f.write(report["markdown"] + "\n")
    png = chart(report, out_png)
    print()
    print(report["markdown"])
    print(f"\nwrote {os.path.relpath(out_json, ROOT)}, {os.path.relpath(out_md, ROOT)}"
          + (f", {os.path.relpath(png, ROOT)}" if png else ""))
    return 0 if all(e.get("ok") for e in report["models"]) else 1


if __name__ == "__main__":
    sys.exit(main())
