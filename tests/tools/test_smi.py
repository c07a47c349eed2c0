# Copyright 2026 The Kiln Authors
# SPDX-License-Identifier: Apache-2.0
"""`kiln smi` (docs/tools.md): a helper process holds aclrtMalloc memory through pyACL; `kiln smi`
in another process must list it under the helper's pid with at least that much memory, and no
longer once it exits. Host facts are checked against /proc, read here independently."""
import json
import os
import pathlib
import signal
import subprocess
import sys

import pytest

KILN = os.environ.get("KILN_BIN", "kiln")
MIB = 1024 * 1024

HOLDER = r"""
import sys, acl
dev = int(sys.argv[1]); size = int(sys.argv[2])
assert acl.init() == 0
assert acl.rt.set_device(dev) == 0
ptr, ret = acl.rt.malloc(size, 0)
assert ret == 0, ret
print("ready", flush=True)
sys.stdin.readline()
assert acl.rt.free(ptr) == 0
assert acl.rt.reset_device(dev) == 0
assert acl.finalize() == 0
"""


@pytest.fixture
def usage_dir(tmp_path, monkeypatch):
    d = tmp_path / "usage"
    d.mkdir()
    monkeypatch.setenv("KILN_USAGE_DIR", str(d))
    monkeypatch.delenv("KILN_CPU_DEVICES", raising=False)  # one device unless a test says two
    monkeypatch.delenv("ASCEND_RT_VISIBLE_DEVICES", raising=False)
    return d


class Holder:
    """A process that holds `size` bytes of device memory until stopped."""

    def __init__(self, device=0, size=100 * MIB, env=None):
        self.proc = subprocess.Popen([sys.executable, "-c", HOLDER, str(device), str(size)],
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
                                     env=env)
        line = self.proc.stdout.readline()
        assert line.strip() == "ready", f"holder did not start: {line!r}"
        self.pid = self.proc.pid

    def stop(self):
        self.proc.stdin.write("\n")
        self.proc.stdin.flush()
        assert self.proc.wait(timeout=60) == 0

    def kill(self):
        self.proc.send_signal(signal.SIGKILL)
        self.proc.wait(timeout=60)


def smi(*args, env=None, check=True):
    r = subprocess.run([KILN, "smi", *args], capture_output=True, text=True, timeout=120, env=env)
    if check:
        assert r.returncode == 0, r.stdout + r.stderr
    return r


def process_rows(text):
    """The process table's rows: (device, pid, name, MB)."""
    rows = []
    in_table = False
    for line in text.splitlines():
        if "Process id" in line:
            in_table = True
            continue
        if in_table and line.startswith("|"):
            cells = [c.strip() for c in line.strip("|").split("|")]
            if len(cells) == 4 and cells[1].isdigit():
                rows.append((int(cells[0]), int(cells[1]), cells[2], int(cells[3])))
    return rows


def key_values(text):
    out = {}
    for line in text.splitlines():
        if ":" in line:
            k, v = line.split(":", 1)
            out[k.strip()] = v.strip()
    return out


def proc_meminfo_total():
    for line in pathlib.Path("/proc/meminfo").read_text().splitlines():
        if line.startswith("MemTotal:"):
            return int(line.split()[1]) * 1024
    raise AssertionError("no MemTotal")


def proc_cpuinfo():
    model, flags, threads = None, set(), 0
    for line in pathlib.Path("/proc/cpuinfo").read_text().splitlines():
        k, _, v = line.partition(":")
        k, v = k.strip(), v.strip()
        if k == "processor":
            threads += 1
        elif k == "model name" and model is None:
            model = v
        elif k in ("flags", "Features") and not flags:
            flags = set(v.split())
    return model, flags, threads


def test_holder_is_listed_under_its_pid_then_gone(usage_dir):
    holder = Holder()
    try:
        text = smi("info").stdout
        rows = [r for r in process_rows(text) if r[1] == holder.pid]
        assert len(rows) == 1, text
        device, pid, name, mb = rows[0]
        assert device == 0 and mb >= 100 and name.startswith("python")
        info = json.loads(smi("info", "--json").stdout)
        procs = [p for p in info["processes"] if p["pid"] == holder.pid]
        assert len(procs) == 1
        assert procs[0]["device"] == 0
        assert procs[0]["memory_in_use_bytes"] >= 100 * MIB
        assert procs[0]["memory_reserved_bytes"] >= procs[0]["memory_in_use_bytes"]
        dev0 = info["devices"][0]
        assert dev0["kiln_memory"]["reserved_bytes"] >= 100 * MIB
        assert "Kiln-Memory-Usage(MB)" in text
    finally:
        holder.stop()
    assert not list(usage_dir.iterdir()), "aclFinalize removes the record"
    text = smi("info").stdout
    assert all(r[1] != holder.pid for r in process_rows(text))
    assert "No running processes found in Device 0" in text
    assert json.loads(smi("info", "--json").stdout)["processes"] == []


def test_killed_holder_is_ignored_and_its_record_cleaned(usage_dir):
    holder = Holder(size=10 * MIB)
    record = usage_dir / f"{holder.pid}.usage"
    assert record.exists()
    holder.kill()
    assert record.exists(), "SIGKILL leaves the record behind"
    info = json.loads(smi("info", "--json").stdout)
    assert all(p["pid"] != holder.pid for p in info["processes"])
    assert any(str(record) in r for r in info["usage_records"]["removed_stale"])
    assert not record.exists()


def test_device_one_of_two(usage_dir):
    env = dict(os.environ, KILN_CPU_DEVICES="2")
    holder = Holder(device=1, size=20 * MIB, env=env)
    try:
        text = smi("info", env=env).stdout
        rows = [r for r in process_rows(text) if r[1] == holder.pid]
        assert [r[0] for r in rows] == [1] and rows[0][3] >= 20, text
        assert "No running processes found in Device 0" in text
        info = json.loads(smi("info", "--json", env=env).stdout)
        assert [d["id"] for d in info["devices"]] == [0, 1]
        assert info["devices"][0]["kiln_memory"]["in_use_bytes"] == 0
        assert info["devices"][1]["kiln_memory"]["in_use_bytes"] >= 20 * MIB
        one = json.loads(smi("info", "-i", "1", "--json", env=env).stdout)
        assert [d["id"] for d in one["devices"]] == [1]
        assert [p["pid"] for p in one["processes"]] == [holder.pid]
    finally:
        holder.stop()


def test_t_memory(usage_dir):
    holder = Holder()
    try:
        kv = key_values(smi("info", "-t", "memory", "-i", "0").stdout)
        assert kv["Device ID"] == "0"
        assert int(kv["Kiln Memory In Use(MB)"]) >= 100
        assert int(kv["Processes Using Device"]) == 1
        assert int(kv["Host Memory Total(MB)"]) == proc_meminfo_total() // MIB
        j = json.loads(smi("info", "-t", "memory", "-i", "0", "--json").stdout)
        assert j["device"] == 0
        assert j["kiln_memory"]["in_use_bytes"] >= 100 * MIB
        assert j["host_memory"]["total_bytes"] == proc_meminfo_total()
        assert [p["pid"] for p in j["processes"]] == [holder.pid]
    finally:
        holder.stop()
    kv = key_values(smi("info", "-t", "memory", "-i", "0").stdout)
    assert kv["Kiln Memory In Use(MB)"] == "0"
    assert kv["Processes Using Device"] == "0"


def test_t_usages(usage_dir):
    kv = key_values(smi("info", "-t", "usages", "-i", "0").stdout)
    assert kv["Device ID"] == "0"
    assert 0.0 <= float(kv["CPU Usage Rate(%)"]) <= 100.0
    assert 0 <= int(kv["Host Memory Usage Rate(%)"]) <= 100
    j = json.loads(smi("info", "-t", "usages", "-i", "0", "--json").stdout)
    assert 0.0 <= j["cpu_usage_percent"] <= 100.0
    assert j["processes"] == 0


def test_t_board_matches_proc(usage_dir):
    model, flags, threads = proc_cpuinfo()
    kv = key_values(smi("info", "-t", "board", "-i", "0").stdout)
    assert kv["CPU Model"] == (model or "unknown")
    assert int(kv["Threads"]) == threads
    assert kv["GPU"].startswith("no GPU backend")
    j = json.loads(smi("info", "-t", "board", "-i", "0", "--json").stdout)
    isa = set(j["cpu"]["isa"])
    assert ("AVX2" in isa) == ("avx2" in flags)
    assert ("AVX-512F" in isa) == ("avx512f" in flags)
    assert ("AMX-TILE" in isa) == ("amx_tile" in flags)
    assert j["cpu"]["threads"] == threads
    nodes = len(list(pathlib.Path("/sys/devices/system/node").glob("node[0-9]*"))) or 1
    assert j["cpu"]["numa_nodes"] == nodes
    assert j["gpu"].startswith("no GPU backend")
    # The temperature is a number only where the OS exposes a sensor.
    zones = list(pathlib.Path("/sys/class/thermal").glob("thermal_zone*"))
    hwmon = list(pathlib.Path("/sys/class/hwmon").glob("hwmon*"))
    if not zones and not hwmon:
        assert j["temperature_c"] is None and kv["Temperature(C)"] == "NA"


def test_info_table_shape(usage_dir):
    text = smi("info").stdout
    lines = text.splitlines()
    assert lines[0].startswith("+") and lines[-1].startswith("+")
    assert len({len(line) for line in lines}) == 1, "every line of the box is as wide"
    assert "no GPU backend" in text
    model, _, threads = proc_cpuinfo()
    assert (model or "unknown")[:30] in text
    info = json.loads(smi("info", "--json").stdout)
    assert info["gpu"].startswith("no GPU backend")
    assert info["devices"][0]["host_memory"]["total_bytes"] == proc_meminfo_total()
    assert info["devices"][0]["cpu"]["threads"] == threads


def test_bad_arguments_say_what_is_wrong(usage_dir):
    r = smi("info", "-t", "memory", "-i", "7", check=False)
    assert r.returncode != 0
    assert "-i 7" in r.stderr and "no such device" in r.stderr and "ids 0..0" in r.stderr
    r = smi("info", "-i", "7", "--json", check=False)
    assert r.returncode != 0 and "no such device" in r.stderr and r.stdout == ""
    r = smi("info", "-t", "memory", check=False)
    assert r.returncode != 0 and "needs -i" in r.stderr
    r = smi("info", "-t", "bogus", "-i", "0", check=False)
    assert r.returncode != 0 and "bogus" in r.stderr
    r = smi("info", "-i", "zero", check=False)
    assert r.returncode != 0 and "zero" in r.stderr
    r = smi(check=False)
    assert r.returncode != 0 and "info" in (r.stdout + r.stderr)


def test_usage_off(usage_dir, monkeypatch):
    monkeypatch.setenv("KILN_USAGE_DIR", "none")
    holder = Holder(size=10 * MIB)
    try:
        text = smi("info").stdout
        assert "KILN_USAGE_DIR=none" in text
        assert process_rows(text) == []
        assert json.loads(smi("info", "--json").stdout)["usage_records"]["off"] is True
    finally:
        holder.stop()


def test_malformed_record_is_skipped(usage_dir):
    (usage_dir / "12345.usage").write_bytes(b"not a record")
    (usage_dir / "notapid.usage").write_bytes(b"\0" * 4096)
    holder = Holder(size=10 * MIB)
    try:
        r = smi("info")
        assert [row[1] for row in process_rows(r.stdout)] == [holder.pid]
        assert "12345.usage" in r.stderr and "notapid.usage" in r.stderr
        skipped = json.loads(smi("info", "--json").stdout)["usage_records"]["skipped"]
        assert len(skipped) == 2
    finally:
        holder.stop()
    assert (usage_dir / "12345.usage").exists(), "a malformed file is not deleted"
