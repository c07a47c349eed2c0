#!/usr/bin/env python3
# Copyright 2026 The Kiln Authors
# SPDX-License-Identifier: Apache-2.0
"""Prints the median time of each runtime benchmark and the aclrtMalloc ÷ malloc frame-loop
ratio per frame size, from a Google Benchmark JSON file."""
import json
import sys


def main(path):
    data = json.load(open(path))
    ctx = data["context"]
    print(f"host: {ctx.get('host_name')}, {ctx.get('num_cpus')} cpus @ {ctx.get('mhz_per_cpu')} MHz")
    medians = {}
    for b in data["benchmarks"]:
        if b.get("aggregate_name") == "median":
            medians[b["run_name"]] = (b["real_time"], b["time_unit"])
    for name, (t, unit) in sorted(medians.items()):
        print(f"{name:55s} {t:12.1f} {unit}")
    print("\nframe loop, aclrtMalloc/aclrtFree ÷ malloc/free (median; < 1 means Kiln is faster):")
    for name, (t, _) in sorted(medians.items()):
        if name.startswith("BM_FrameLoop_AclrtMalloc/"):
            size = name.split("/")[1]
            base = medians.get(f"BM_FrameLoop_Malloc/{size}")
            if base:
                print(f"  {int(size):>9d} bytes: {t / base[0]:.3f}")


if __name__ == "__main__":
    main(sys.argv[1])
