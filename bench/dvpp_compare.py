#!/usr/bin/env python3
# Copyright 2026 The Kiln Authors
# SPDX-License-Identifier: Apache-2.0
"""JPEG decode + resize to 224x224 of a 1920x1080 4:2:0 photo (scikit-image's astronaut,
enlarged): Kiln's DVPP through acl.media (JpegDecodeAsync to NV12, VpcResizeAsync to NV12, one
stream synchronisation) against OpenCV (imdecode to BGR + resize INTER_LINEAR, 2 threads) and
Pillow (decode + resize BILINEAR). Each runs in its own process, in 5 interleaved blocks of 40
images after 3 warm-up ones; prints the load average before and after (compare only when idle)
and the median and p90 per image. docs/dvpp.md, "Speed".

    PYTHONPATH=build/release/python .venv/bin/python bench/dvpp_compare.py"""
import io
import json
import os
import subprocess
import sys
import sysconfig
import time

import numpy as np

MODE = sys.argv[1] if len(sys.argv) > 1 else "driver"
N = 40  # images per block and runtime
WARMUP = 3

def make_jpeg(path):
    from PIL import Image
    data = os.path.join(sysconfig.get_paths()["purelib"], "skimage", "data")
    img = Image.open(os.path.join(data, "astronaut.png")).convert("RGB").resize((1920, 1080), Image.BICUBIC)
    img.save(path, quality=90, subsampling=2)

def run_kiln(path):
    import acl
    m = acl.media
    assert acl.init() == 0 and acl.rt.set_device(0) == 0
    _, ret = acl.rt.create_context(0)
    stream, ret = acl.rt.create_stream()
    channel = m.dvpp_create_channel_desc()
    assert m.dvpp_create_channel(channel) == 0
    resize = m.dvpp_create_resize_config()
    data = open(path, "rb").read()
    host = np.frombuffer(data, np.uint8)
    src, _ = m.dvpp_malloc(len(data))
    assert acl.rt.memcpy(src, len(data), host.ctypes.data, len(data), 1) == 0  # host to device
    size, _ = m.dvpp_jpeg_predict_dec_size(acl.util.bytes_to_ptr(data), len(data), 1)  # NV12
    decoded, _ = m.dvpp_malloc(size)
    out, _ = m.dvpp_malloc(224 * 224 * 3 // 2)

    def desc(ptr, nbytes, w, h, ws, hs):
        d = m.dvpp_create_pic_desc()
        for setter, value in ((m.dvpp_set_pic_desc_data, ptr), (m.dvpp_set_pic_desc_size, nbytes),
                              (m.dvpp_set_pic_desc_format, 1), (m.dvpp_set_pic_desc_width, w),
                              (m.dvpp_set_pic_desc_height, h),
                              (m.dvpp_set_pic_desc_width_stride, ws),
                              (m.dvpp_set_pic_desc_height_stride, hs)):
            assert setter(d, value) == 0
        return d

    decode_out = desc(decoded, size, 1920, 1080, 0, 0)
    resize_in = desc(decoded, size, 1920, 1080, 1920, 1088)
    resize_out = desc(out, 224 * 224 * 3 // 2, 224, 224, 224, 224)
    times = []
    for _ in range(N + WARMUP):
        t = time.perf_counter()
        m.dvpp_jpeg_decode_async(channel, src, len(data), decode_out, stream)
        m.dvpp_vpc_resize_async(channel, resize_in, resize_out, resize, stream)
        assert acl.rt.synchronize_stream(stream) == 0
        times.append(time.perf_counter() - t)
    return times[WARMUP:]


def run_cv2(path):
    import cv2
    cv2.setNumThreads(2)
    data = np.frombuffer(open(path, "rb").read(), np.uint8)
    times = []
    for _ in range(N + WARMUP):
        t = time.perf_counter()
        img = cv2.imdecode(data, cv2.IMREAD_COLOR)
        cv2.resize(img, (224, 224), interpolation=cv2.INTER_LINEAR)
        times.append(time.perf_counter() - t)
    return times[WARMUP:]

def run_pil(path):
    from PIL import Image
    data = open(path, "rb").read()
    times = []
    for _ in range(N + WARMUP):
        t = time.perf_counter()
        Image.open(io.BytesIO(data)).convert("RGB").resize((224, 224), Image.BILINEAR)
        times.append(time.perf_counter() - t)
    return times[WARMUP:]

if MODE != "driver":
    fn = {"kiln": run_kiln, "opencv": run_cv2, "pillow": run_pil}[MODE]
    print(json.dumps(fn(sys.argv[2])))
    sys.exit(0)

path = os.path.join(os.environ.get("TMPDIR", "/tmp"), "kiln_dvpp_bench_1080.jpg")
make_jpeg(path)
print("load before", os.getloadavg())
res = {k: [] for k in ("kiln", "opencv", "pillow")}
for block in range(5):
    for k in res:
        out = subprocess.run([sys.executable, __file__, k, path], capture_output=True, text=True, check=True).stdout
        res[k] += json.loads(out.strip().splitlines()[-1])
print("load after", os.getloadavg())
for k, v in res.items():
    print(f"{k:7s} median {1000*np.median(v):.2f} ms  p90 {1000*np.percentile(v,90):.2f} ms  (n={len(v)})")
