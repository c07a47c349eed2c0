# Copyright 2026 The Kiln Authors
# SPDX-License-Identifier: Apache-2.0
"""`kiln doctor` (docs/tools.md): each check against an oracle that does not come from Kiln:
the dynamic loader (`ldd`) for which libascendcl.so loads, installs laid out by hand in a temp
dir, /proc/cpuinfo and os.sched_getaffinity for the CPU and thread findings, onnxruntime for the
model's inputs, and hand-damaged .om files (truncated, empty, missing, foreign) that must each
give their reason and exit 1 without a crash.

Environment (tests/tools/CMakeLists.txt): KILN_BIN, KILN_LIB, KILN_BUILD_DIR.
"""
import json
import os
import re
import shutil
import subprocess

import pytest

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
MNIST = os.path.join(ROOT, "tests", "data", "models", "mnist-8", "model.onnx")
KILN = os.environ.get("KILN_BIN", "")
LIB = os.environ.get("KILN_LIB", "")
BUILD = os.environ.get("KILN_BUILD_DIR", "")

pytestmark = pytest.mark.skipif(not (os.path.exists(KILN) and os.path.exists(LIB)),
                                reason="KILN_BIN/KILN_LIB not set (run through ctest)")

# Variables the checks read; the base environment has none of them, so each test sets only
# what it is about.
_CLEARED = ("LD_LIBRARY_PATH", "PYTHONPATH", "ASCEND_TOOLKIT_HOME", "ASCEND_HOME_PATH", "DDK_PATH",
            "NPU_HOST_LIB", "ASCEND_OPP_PATH", "ASCEND_AICPU_PATH", "KILN_CPU_THREADS",
            "ASCEND_RT_VISIBLE_DEVICES", "KILN_CPU_DEVICES", "ONEDNN_MAX_CPU_ISA",
            "DNNL_MAX_CPU_ISA", "KILN_DEVICE_MEMORY_LIMIT", "LD_PRELOAD")


def clean_env(**extra):
    env = {k: v for k, v in os.environ.items()
           if k not in _CLEARED and not k.startswith(("OMP_", "GOMP_", "KMP_"))}
    env["PATH"] = "/usr/bin:/bin"
    env.update(extra)
    return env


def doctor(*args, env=None, preexec_fn=None, json_out=True, shell_prefix=None):
    """Runs `kiln doctor [--json] args`; returns (process, parsed JSON or None)."""
    cmd = [KILN, "doctor"] + (["--json"] if json_out else []) + list(args)
    if shell_prefix:  # e.g. "source X/set_env.sh": run in bash after it
        cmd = ["bash", "-c", shell_prefix + ' && exec "$@"', "bash"] + cmd
    p = subprocess.run(cmd, env=env if env is not None else clean_env(), capture_output=True,
                       text=True, timeout=120, preexec_fn=preexec_fn)
    assert p.returncode in (0, 1), f"kiln doctor died ({p.returncode}):\n{p.stdout}\n{p.stderr}"
    assert "Segmentation" not in p.stderr and "terminate called" not in p.stderr, p.stderr
    return p, (json.loads(p.stdout) if json_out else None)


def findings(doc, check):
    return [f for f in doc["findings"] if f["check"] == check]


def one(doc, check):
    found = findings(doc, check)
    assert len(found) == 1, found
    return found[0]


def ldd_resolves(env):
    """Where the dynamic loader resolves kiln's libascendcl.so under `env` (the oracle)."""
    out = subprocess.run(["ldd", KILN], env=env, capture_output=True, text=True, check=True).stdout
    m = re.search(r"libascendcl\.so => (\S+)", out)
    assert m, out
    return os.path.realpath(m.group(1))


def make_kiln_install(root):
    """A second Kiln install in the install rules' layout: bin/kiln, runtime/lib64."""
    os.makedirs(os.path.join(root, "bin"))
    os.makedirs(os.path.join(root, "runtime", "lib64"))
    shutil.copy2(KILN, os.path.join(root, "bin", "kiln"))
    shutil.copy2(LIB, os.path.join(root, "runtime", "lib64", "libascendcl.so"))
    return str(root)


@pytest.fixture(scope="module")
def mnist_om(tmp_path_factory):
    out = tmp_path_factory.mktemp("om") / "mnist"
    subprocess.run([KILN, "atc", "--framework=5", f"--model={MNIST}", f"--output={out}"],
                   check=True, capture_output=True, timeout=300)
    return str(out) + ".om"


def test_loaded_library_is_the_build_trees():
    env = clean_env()
    p, doc = doctor(env=env)
    lib = one(doc, "library")
    assert lib["level"] == "OK", lib
    assert lib["data"]["loaded"] == os.path.realpath(LIB) == ldd_resolves(env)
    assert lib["data"]["expected"] == os.path.realpath(LIB)
    assert lib["data"]["layout"] == "build tree"
    assert lib["data"]["found_through"] != "LD_LIBRARY_PATH"
    assert lib["data"]["loaded_copies"] == [os.path.realpath(LIB)]
    assert re.fullmatch(r"\d+\.\d+\.\d+", lib["data"]["version"])
    assert lib["data"]["version"] == lib["data"]["kiln_version"] == doc["kiln_version"]
    if BUILD:
        assert lib["data"]["install"] == os.path.realpath(BUILD)
    assert one(doc, "installs")["level"] == "OK"
    assert one(doc, "set_env")["level"] == "OK"
    assert one(doc, "runtime")["level"] == "OK"
    assert doc["exit_code"] == p.returncode == 0


def test_second_install_on_the_search_paths_is_reported_with_a_fix(tmp_path):
    fake = make_kiln_install(tmp_path / "other-kiln")
    fake_lib = os.path.join(fake, "runtime", "lib64")
    fake_bin = os.path.join(fake, "bin")
    env = clean_env(LD_LIBRARY_PATH=os.path.dirname(LIB) + ":" + fake_lib,
                    PATH=fake_bin + ":/usr/bin:/bin")
    p, doc = doctor(env=env)
    assert one(doc, "library")["level"] == "OK"  # the build tree's comes first
    assert ldd_resolves(env) == os.path.realpath(LIB)
    inst = one(doc, "installs")
    assert inst["level"] == "WARN", inst
    listed = {i["prefix"]: i for i in inst["data"]["installs"]}
    assert listed[os.path.realpath(fake)]["kind"] == "Kiln install"
    assert not listed[os.path.realpath(fake)]["in_use"]
    assert inst["data"]["winners"]["PATH kiln"]["install"] == os.path.realpath(fake)
    assert inst["data"]["winners"]["LD_LIBRARY_PATH"]["file"] == os.path.join(
        os.path.dirname(LIB), "libascendcl.so")
    assert fake_lib in inst["fix"] and fake_bin in inst["fix"] and "remove" in inst["fix"]
    assert p.returncode == 0  # a warning, not a failure


def test_second_install_that_wins_the_loader_fails(tmp_path):
    fake = make_kiln_install(tmp_path / "other-kiln")
    fake_lib = os.path.join(fake, "runtime", "lib64")
    env = clean_env(LD_LIBRARY_PATH=fake_lib)
    p, doc = doctor(env=env)
    lib = one(doc, "library")
    assert lib["level"] == "FAIL", lib
    assert lib["data"]["loaded"] == ldd_resolves(env) == os.path.realpath(
        os.path.join(fake_lib, "libascendcl.so"))
    assert lib["data"]["found_through"] == "LD_LIBRARY_PATH"
    assert os.path.realpath(LIB) in lib["found"]
    assert lib["fix"].startswith("remove " + os.path.realpath(fake_lib))
    assert p.returncode == 1 and doc["exit_code"] == 1


def test_cann_toolkit_layout_counts_as_an_install(tmp_path):
    version = tmp_path / "Ascend" / "ascend-toolkit" / "8.0.RC1"
    (version / "lib64").mkdir(parents=True)
    (version / "compiler" / "bin").mkdir(parents=True)
    os.symlink("8.0.RC1", tmp_path / "Ascend" / "ascend-toolkit" / "latest")
    (version / "lib64" / "libascendcl.so").write_bytes(b"never loaded: after Kiln's")
    atc = version / "compiler" / "bin" / "atc"
    atc.write_text("#!/bin/sh\nexit 1\n")
    atc.chmod(0o755)
    latest = tmp_path / "Ascend" / "ascend-toolkit" / "latest"
    env = clean_env(LD_LIBRARY_PATH=f"{os.path.dirname(LIB)}:{latest}/lib64",
                    PATH=f"{latest}/compiler/bin:/usr/bin:/bin")
    p, doc = doctor(env=env)
    inst = findings(doc, "installs")
    listed = {i["prefix"]: i for i in inst[0]["data"]["installs"]}
    assert listed[os.path.realpath(version)]["kind"] == "CANN toolkit"
    assert inst[0]["level"] == "WARN"
    atc_warning = [f for f in inst if "atc" in f["data"]]
    assert atc_warning and "kiln atc" in atc_warning[0]["fix"], inst
    assert p.returncode == 0


def test_set_env_from_another_prefix_is_reported(tmp_path):
    other = tmp_path / "elsewhere"
    other.mkdir()
    shutil.copy2(os.path.join(BUILD, "set_env.sh"), other / "set_env.sh")
    p, doc = doctor(shell_prefix=f"source {other}/set_env.sh")
    s = one(doc, "set_env")
    assert s["level"] == "FAIL", s
    assert str(other) in s["found"] and "ASCEND_TOOLKIT_HOME" in s["found"]
    for var in ("ASCEND_TOOLKIT_HOME", "DDK_PATH", "NPU_HOST_LIB"):
        assert s["data"]["variables"][var]["root"] == os.path.realpath(other)
        assert s["data"]["variables"][var]["matches"] is False
    assert s["fix"]
    assert p.returncode == 1


def test_set_env_of_the_install_in_use_is_ok():
    p, doc = doctor(shell_prefix=f"source {BUILD}/set_env.sh")
    s = one(doc, "set_env")
    assert s["level"] == "OK", s
    assert all(v["matches"] for v in s["data"]["variables"].values())
    assert len(s["data"]["variables"]) == 4  # the four Kiln's set_env.sh exports
    assert p.returncode == 0


def test_good_mnist_om_loads(mnist_om):
    import onnxruntime as ort
    p, doc = doctor(mnist_om)
    m = one(doc, "model")
    assert m["level"] == "OK", m
    assert m["data"]["loads"] is True and "loads here" in m["found"]
    expected = ort.InferenceSession(MNIST, providers=["CPUExecutionProvider"]).get_inputs()
    assert [(i["name"], i["dims"]) for i in m["data"]["inputs"]] == [
        (i.name, list(i.shape)) for i in expected]
    assert m["data"]["weight_bytes"] > 0
    assert p.returncode == 0


def _bad_files(tmp_path, mnist_om):
    good = open(mnist_om, "rb").read()
    files = {}
    files["truncated"] = tmp_path / "truncated.om"
    files["truncated"].write_bytes(good[:len(good) // 2])
    files["empty"] = tmp_path / "empty.om"
    files["empty"].write_bytes(b"")
    files["missing"] = tmp_path / "missing.om"
    files["onnx"] = tmp_path / "model_onnx.om"
    shutil.copy2(MNIST, files["onnx"])
    files["text"] = tmp_path / "notes.om"
    files["text"].write_text("this is not a model\n")
    files["gguf"] = tmp_path / "llm.om"
    files["gguf"].write_bytes(b"GGUF" + bytes(60))
    corrupt = bytearray(good)
    corrupt[-10] ^= 0xFF  # one byte of the payload
    files["corrupt"] = tmp_path / "corrupt.om"
    files["corrupt"].write_bytes(bytes(corrupt))
    return files


# What each bad file's finding must say, and what its fix must mention.
_REASONS = {"truncated": ("truncated", "copy it again"), "empty": ("empty", "copy it again"),
            "missing": ("does not exist", "path"), "onnx": ("ONNX", "kiln atc --framework=5"),
            "text": ("not a Kiln .om", "kiln atc"), "gguf": ("GGUF", "ONNX"),
            "corrupt": ("corrupt", "copy it again")}


@pytest.mark.parametrize("kind", sorted(_REASONS))
def test_bad_om_gives_its_reason_and_exit_1(tmp_path, mnist_om, kind):
    path = str(_bad_files(tmp_path, mnist_om)[kind])
    p, doc = doctor(path)
    m = one(doc, "model")
    reason, fix = _REASONS[kind]
    assert m["level"] == "FAIL", m
    assert m["data"]["loads"] is False
    assert reason in m["found"] and path in m["found"], m
    assert fix in m["fix"], m
    assert p.returncode == 1 and doc["exit_code"] == 1


def test_good_and_bad_together_in_text(tmp_path, mnist_om):
    files = _bad_files(tmp_path, mnist_om)
    args = [mnist_om] + [str(files[k]) for k in sorted(files)]
    p, _ = doctor(*args, json_out=False)
    lines = [line for line in p.stdout.splitlines() if re.match(r"^(OK|WARN|FAIL)\s+model ", line)]
    assert len(lines) == len(args)
    assert lines[0].startswith("OK") and mnist_om in lines[0]
    assert all(line.startswith("FAIL") for line in lines[1:])
    assert p.returncode == 1


def _affinity():
    return sorted(os.sched_getaffinity(0))


def test_omp_num_threads_above_the_affinity_set_is_flagged():
    cpus = _affinity()
    p, doc = doctor(env=clean_env(OMP_NUM_THREADS=str(len(cpus) + 3)))
    warns = [f for f in findings(doc, "threads") if "OMP_NUM_THREADS" in f["found"]]
    assert warns and warns[0]["level"] == "WARN", findings(doc, "threads")
    assert f"OMP_NUM_THREADS={len(cpus)}" in warns[0]["fix"]
    assert warns[0]["data"]["affinity_cpus"] == len(cpus)
    assert p.returncode == 0


def test_omp_num_threads_above_a_narrowed_affinity_set_is_flagged():
    first = _affinity()[0]
    p, doc = doctor(env=clean_env(OMP_NUM_THREADS="2"),
                    preexec_fn=lambda: os.sched_setaffinity(0, {first}))
    warns = [f for f in findings(doc, "threads") if "OMP_NUM_THREADS" in f["found"]]
    assert warns, findings(doc, "threads")
    assert warns[0]["data"]["affinity"] == str(first)
    assert warns[0]["data"]["affinity_cpus"] == 1
    assert "OMP_NUM_THREADS=1" in warns[0]["fix"]
    assert one(doc, "runtime")["data"]["compute_threads"] == 1  # Kiln's pool follows the mask


def test_thread_settings_within_the_affinity_set_are_ok():
    p, doc = doctor(env=clean_env(OMP_NUM_THREADS="1"))
    t = one(doc, "threads")
    assert t["level"] == "OK", t
    assert t["data"]["affinity_cpus"] == len(_affinity())
    assert t["data"]["kiln_execution_threads"] == 1


def test_intel_openmp_variables_are_flagged():
    p, doc = doctor(env=clean_env(KMP_AFFINITY="granularity=fine,compact"))
    warns = [f for f in findings(doc, "threads") if "KMP_AFFINITY" in f["found"]]
    assert warns and "OMP_PROC_BIND" in warns[0]["fix"]


def test_cpu_features_match_proc_cpuinfo():
    flags = set()
    with open("/proc/cpuinfo") as f:
        for line in f:
            if line.startswith("flags"):
                flags = set(line.split(":", 1)[1].split())
                break
    if not flags:
        pytest.skip("no x86 flags line in /proc/cpuinfo")
    p, doc = doctor()
    cpu = one(doc, "cpu")
    for name, usable in cpu["data"]["features"].items():
        assert usable == (name in flags), (name, usable)
    own = "avx512f" if "avx512f" in flags else "avx2" if "avx2" in flags else "x86-64 baseline"
    assert cpu["data"]["kiln_kernels"] == own
    soc = one(doc, "runtime")["data"]["soc"]
    assert soc == {"avx512f": "cpu-avx512", "avx2": "cpu-avx2"}.get(own, "cpu")


def test_json_has_the_same_findings_as_the_text(tmp_path, mnist_om):
    args = [mnist_om, str(tmp_path / "missing.om")]
    env = clean_env(OMP_NUM_THREADS="64")
    text, _ = doctor(*args, env=env, json_out=False)
    js, doc = doctor(*args, env=env)
    timing = re.compile(r"in [0-9.]+ ms")  # the load time differs between the two runs

    def same(s):
        return timing.sub("in _ ms", s)

    rows = re.findall(r"^(OK|WARN|FAIL)\s+(\S+)\s+(.*)$", text.stdout, re.M)
    assert [(lvl, c, same(f)) for lvl, c, f in rows] == [
        (f["level"], f["check"], same(f["found"])) for f in doc["findings"]]
    fixes = re.findall(r"^      fix: (.*)$", text.stdout, re.M)
    assert fixes == [f["fix"] for f in doc["findings"] if f["fix"]]
    assert all(f["fix"] for f in doc["findings"] if f["level"] != "OK")
    counts = {lvl: sum(f["level"] == lvl for f in doc["findings"]) for lvl in ("OK", "WARN", "FAIL")}
    assert doc["summary"] == counts
    assert f"summary: {counts['OK']} OK, {counts['WARN']} WARN, {counts['FAIL']} FAIL" in text.stdout
    assert text.returncode == js.returncode == doc["exit_code"] == 1


@pytest.fixture(scope="module")
def prefix(tmp_path_factory):
    """`cmake --install` of the build tree: the layout the install rules write."""
    if not (BUILD and shutil.which("cmake")):
        pytest.skip("needs KILN_BUILD_DIR and cmake")
    root = tmp_path_factory.mktemp("install") / "prefix"
    subprocess.run(["cmake", "--install", BUILD, "--prefix", str(root)], check=True,
                   capture_output=True, timeout=300)
    return str(root)


def test_install_prefix_kiln_loads_its_own_library(prefix):
    env = clean_env()
    p = subprocess.run([os.path.join(prefix, "bin", "kiln"), "doctor", "--json"], env=env,
                       capture_output=True, text=True, timeout=120)
    doc = json.loads(p.stdout)
    lib = one(doc, "library")
    own = os.path.realpath(os.path.join(prefix, "runtime", "lib64", "libascendcl.so"))
    assert lib["level"] == "OK", lib
    assert lib["data"]["loaded"] == lib["data"]["expected"] == own
    assert lib["data"]["layout"] == "install prefix " + os.path.realpath(prefix)
    s = one(doc, "set_env")
    assert s["level"] == "WARN" and s["fix"] == f"source {os.path.realpath(prefix)}/set_env.sh"
    assert p.returncode == 0


def test_install_prefix_with_its_set_env_is_all_ok(prefix):
    p = subprocess.run(["bash", "-c", f"source {prefix}/set_env.sh && exec kiln doctor --json"],
                       env=clean_env(), capture_output=True, text=True, timeout=120)
    doc = json.loads(p.stdout)
    assert one(doc, "library")["data"]["kiln"] == os.path.realpath(
        os.path.join(prefix, "bin", "kiln"))  # set_env.sh put the prefix's kiln first on PATH
    for check in ("library", "installs", "set_env", "runtime"):
        assert one(doc, check)["level"] == "OK", one(doc, check)
    assert one(doc, "installs")["data"]["installs"][0]["prefix"] == os.path.realpath(prefix)
    assert p.returncode == 0


def test_build_tree_kiln_after_another_installs_set_env_fails(prefix):
    # The classic pitfall: set_env.sh of one install, the kiln of another. LD_LIBRARY_PATH now
    # beats the build tree kiln's RUNPATH.
    p, doc = doctor(shell_prefix=f"source {prefix}/set_env.sh")
    lib = one(doc, "library")
    assert lib["level"] == "FAIL", lib
    assert lib["data"]["loaded"] == os.path.realpath(
        os.path.join(prefix, "runtime", "lib64", "libascendcl.so"))
    assert lib["fix"].startswith("remove " + os.path.realpath(os.path.join(prefix, "runtime")))
    # set_env.sh and the paths are held to this kiln's install (the build tree), not the prefix.
    s = one(doc, "set_env")
    assert s["level"] == "FAIL" and os.path.realpath(prefix) in s["found"], s
    inst = one(doc, "installs")
    assert inst["level"] == "WARN"
    assert inst["data"]["installs"][0]["prefix"] == os.path.realpath(BUILD)
    assert os.path.join(prefix, "runtime", "lib64") in inst["fix"]
    assert p.returncode == 1


def test_runtime_that_does_not_start_fails_and_skips_the_models(mnist_om):
    p, doc = doctor(mnist_om, env=clean_env(KILN_DEVICE_MEMORY_LIMIT="lots"))
    r = one(doc, "runtime")
    assert r["level"] == "FAIL" and "KILN_DEVICE_MEMORY_LIMIT" in r["found"], r
    m = one(doc, "model")
    assert m["level"] == "FAIL" and "not checked" in m["found"]
    assert p.returncode == 1


def test_a_loader_crash_is_a_finding_not_the_end_of_the_report(tmp_path, mnist_om):
    # Each .om is checked in a child process: a shim whose aclmdlQuerySize crashes stands in
    # for a file that crashes the loader.
    if not shutil.which("cc"):
        pytest.skip("needs a C compiler")
    src = tmp_path / "crash.c"
    src.write_text("#include <signal.h>\n#include <stddef.h>\n"
                   "int aclmdlQuerySize(const char* f, size_t* w, size_t* s) {\n"
                   "  (void)f; (void)w; (void)s; raise(SIGSEGV); return 0;\n}\n")
    shim = tmp_path / "libcrash.so"
    subprocess.run(["cc", "-shared", "-fPIC", "-o", str(shim), str(src)], check=True)
    p, doc = doctor(mnist_om, mnist_om, env=clean_env(LD_PRELOAD=str(shim)))
    models = findings(doc, "model")
    assert len(models) == 2
    for m in models:
        assert m["level"] == "FAIL" and "crashed" in m["found"], m
        assert "report it" in m["fix"]
    assert doc["summary"]["FAIL"] == 2  # the report was printed whole
    assert p.returncode == 1
