# Copyright 2026 The Kiln Authors
# SPDX-License-Identifier: Apache-2.0
"""bench/compare_models.py's reading of Kiln's spin governor: a Kiln process run with the
harness's log settings (governor_log_env) writes the governor's decisions in the form
governor_summary parses — the contract between spin_governor.cc's debug log and the benchmark's
report of the sections Kiln ran parked (docs/benchmarks.md)."""
import importlib.util
import os
import subprocess
import time

import pytest
from kiln_cli import KILN, kiln

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
MNIST_ONNX = os.path.join(ROOT, "tests", "data", "models", "mnist-8", "model.onnx")


@pytest.fixture(scope="module")
def compare_models():
    pytest.importorskip("onnx")
    pytest.importorskip("onnxruntime")
    spec = importlib.util.spec_from_file_location(
        "compare_models", os.path.join(ROOT, "bench", "compare_models.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def governor_env(compare_models, log_dir):
    """The environment of a benchmark's Kiln server: the governor left to decide."""
    env = {k: v for k, v in os.environ.items()
           if not k.startswith("ASCEND_") and k not in ("KILN_CPU_SPIN", "OMP_WAIT_POLICY",
                                                         "GOMP_SPINCOUNT")}
    return compare_models.governor_log_env(env, str(log_dir))


def test_a_kiln_run_logs_the_governors_decisions_as_the_benchmark_reads_them(compare_models,
                                                                             tmp_path):
    assert compare_models.governor_log_env({"ASCEND_GLOBAL_LOG_LEVEL": "1"}, "x") == {
        "ASCEND_GLOBAL_LOG_LEVEL": "1"}  # the user's log settings stand
    out = tmp_path / "mnist"
    kiln("atc", "--framework=5", f"--model={MNIST_ONNX}", f"--output={out}")
    log_dir = tmp_path / "log"
    # 300 executions of ~25-100 us: at least one probe window (16 runs and 2 ms of them).
    r = subprocess.run([KILN, "bench", "--model", f"{out}.om", "--loop", "300"],
                       env=governor_env(compare_models, log_dir), capture_output=True,
                       text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    g = compare_models.governor_summary(str(log_dir))
    assert g["first_execution"] in ("spinning", "parked"), g
    assert g["probe_windows"] >= 1, g
    assert 0 <= g["parks"] <= g["parked_windows"] <= g["probe_windows"], g


def test_the_summary_counts_parked_windows_and_parks(compare_models, tmp_path):
    plog = tmp_path / "debug" / "plog"
    plog.mkdir(parents=True)
    lines = [
        "spin governor, first execution: other processes used -1 cores since the device opened "
        "(negative: too short to tell); stays parked",
        "spin governor probe: waited 0.2 % of 21000 us (5 executions of 20900 us in all; slept 0 "
        "times, preempted 0 times); parked -> spinning",
        "spin governor probe: waited 19.6 % of 20726 us (3 executions of 20486 us in all; slept "
        "0 times, preempted 4 times); spinning -> confirming a park",
        "spin governor probe: waited 17.9 % of 33266 us (4 executions of 31921 us in all; slept "
        "2 times, preempted 3 times); spinning -> parked",
        "spin governor probe: waited 28.9 % of 22184 us (3 executions of 22704 us in all; slept "
        "40 times, preempted 2 times); parked -> parked",
    ]
    (plog / "plog-1_1.log").write_text(
        "".join(f"[DEBUG] RUNTIME(1,kiln):2026-12-07-09:00:00.000.000 [cpu/spin_governor.cc:1]1 "
                f"End: {t}\n" for t in lines))
    assert compare_models.governor_summary(str(tmp_path)) == {
        "first_execution": "parked", "probe_windows": 4, "parked_windows": 2, "parks": 1}


def test_a_server_busy_during_anothers_block_is_measured(compare_models):
    class Proc:  # a server as BystanderMeter sees it: a name and a pid
        def __init__(self, name, pid):
            self.name, self.pid = name, pid

    busy = subprocess.Popen(["python3", "-c", "while True: pass"])
    idle = subprocess.Popen(["sleep", "30"])
    time.sleep(0.2)  # the interpreter started and spinning
    try:
        servers = [Proc("timed", os.getpid()), Proc("busy", busy.pid), Proc("idle", idle.pid)]
        meter = compare_models.BystanderMeter(servers)
        assert meter.block(servers[0], servers, lambda: time.sleep(0.5) or 7) == 7
        cores = meter.cores()
    finally:
        busy.kill()
        idle.kill()
        busy.wait()
        idle.wait()
    assert set(cores) == {"timed"}, cores  # only the timed server ran a block
    # One core's worth of spinning: at least a share of a CPU when other tests run beside it.
    assert cores["timed"]["busy"] > 0.25, cores
    assert cores["timed"]["idle"] < 0.05, cores
    assert compare_models.busiest_bystander(cores)[1:] == ("busy", "timed")
    sec = {"foreign_cpu": 0.01, "bystander_cpu": cores}
    assert "busy's server" in compare_models.not_comparable_why(sec)
