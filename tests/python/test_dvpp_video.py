# Copyright 2026 The Kiln Authors
# SPDX-License-Identifier: Apache-2.0
"""acl.media video (aclvdec*, aclvenc*; docs/dvpp.md "Video", docs/python.md "acl.media") through
the Python bindings, driven as a pyACL application drives them: a report thread loops on
acl.rt.process_report, each channel's Python callback runs there with the send's user data.

Oracles: numpy makes the source frames (NV12: a smooth gradient with a moving square) and the
PSNRs; OpenCV's FFmpeg (cv2.VideoCapture) decodes the files venc writes, and decodes a stream
Kiln did not make (the fuzz seeds) for vdec to match. H.264 and H.265 decoding is bit-exact by
specification, so vdec's luma must equal OpenCV's exactly for the same stream; against the source
the codecs are lossy, and the bound is a PSNR (see MIN_PSNR)."""
import gc
import os
import re
import subprocess
import sys
import threading
import time
import weakref

import numpy as np
import pytest

import acl

cv2 = pytest.importorskip("cv2")

m = acl.media
ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
SEEDS = os.path.join(ROOT, "tests", "fuzz", "seeds", "media")

# CANN's values (acl_base.h, acl_dvpp.h), written out so a wrong generated constant fails.
INVALID_PARAM = 100000  # ACL_ERROR_INVALID_PARAM
NV12, NV21, RGB_888 = 1, 2, 12
H265_MAIN, H264_BASELINE, H264_MAIN, H264_HIGH = 0, 1, 2, 3
H2D, D2H = 1, 2  # ACL_MEMCPY_HOST_TO_DEVICE, ACL_MEMCPY_DEVICE_TO_HOST
(VENC_THREAD_ID, VENC_CALLBACK, VENC_PIXEL_FORMAT, VENC_ENCODE_TYPE, VENC_PIC_WIDTH,
 VENC_PIC_HEIGHT, VENC_KEY_FRAME_INTERVAL, VENC_BUF_ADDR, VENC_BUF_SIZE, VENC_RC_MODE,
 VENC_SRC_RATE, VENC_MAX_BITRATE, VENC_MAX_IP_PROP) = range(13)
NO_FRAME = 500001  # ret code of a VDEC entry no frame came for (docs/dvpp.md)

W, H, N = 176, 144, 20
# Lossy coding of these smooth frames at the encoders' defaults measures 43-46 dB in BGR through
# OpenCV (after two YUV->BGR conversions) and 52-62 dB on the planes straight out of vdec. The
# bound leaves 7 dB for other encoder versions, and fails the wrong frame: the neighbouring frame
# in place of the right one measures at most 28 dB, swapped chroma bytes 16-19 dB.
MIN_PSNR = 36.0
CODECS = {"h264": (H264_MAIN, ".h264"), "h265": (H265_MAIN, ".h265")}


def align(v, a):
    return (v + a - 1) // a * a


def make_frames(n=N, w=W, h=H):
    """n NV12 frames, each (h * 3 / 2) x w: a diagonal luma gradient with a bright square moving
    right by 6 pixels a frame; chroma drifting with the frame index."""
    y, x = np.mgrid[0:h, 0:w]
    cy, cx = np.mgrid[0:h // 2, 0:w // 2]
    frames = []
    for i in range(n):
        luma = (40 + (x + y) // 2).astype(np.uint8)
        luma[40:72, 8 + 6 * i:40 + 6 * i] = 220
        chroma = np.empty((h // 2, w), np.uint8)
        chroma[:, 0::2] = 100 + cx // 4 + i
        chroma[:, 1::2] = 150 - cy // 4
        frames.append(np.vstack([luma, chroma]))
    return frames


def psnr(a, b):
    a, b = np.asarray(a, np.float64), np.asarray(b, np.float64)
    mse = np.mean((a - b) ** 2)
    return 99.0 if mse == 0 else 10 * np.log10(255.0 ** 2 / mse)


def luma(nv12, h=H):
    return nv12[:h]


def chroma(nv12, h=H):
    return nv12[h:]


def nal_types(data, hevc):
    """The NAL unit types of an Annex-B stream, in order."""
    types = []
    for s in (mt.end() for mt in re.finditer(b"\x00\x00\x01", data)):
        types.append((data[s] >> 1) & 0x3F if hevc else data[s] & 0x1F)
    return types


def access_units(data, hevc):
    """Splits an Annex-B stream into access units (one coded picture each, with the parameter
    sets and SEI in front of it): a unit starts at a non-VCL NAL that follows a picture's slices,
    or at a slice that is the first of its picture."""
    starts = [mt.start() for mt in re.finditer(b"\x00\x00\x01", data)]
    cuts, seen_slice, pending = [], False, None
    for s in starts:
        begin = s - 1 if s > 0 and data[s - 1] == 0 else s  # a 4-byte start code
        header = data[s + 3]
        if hevc:
            kind = (header >> 1) & 0x3F
            vcl = kind < 32
            first = vcl and data[s + 5] >> 7 == 1  # first_slice_segment_in_pic_flag
            opens = not vcl and kind in (32, 33, 34, 35, 39)  # VPS SPS PPS AUD prefix-SEI
        else:
            kind = header & 0x1F
            vcl = kind in (1, 5)
            first = vcl and data[s + 4] >> 7 == 1  # first_mb_in_slice == 0 (ue(v) "1")
            opens = not vcl and kind in (6, 7, 8, 9)  # SEI SPS PPS AUD
        if opens and pending is None:
            pending = begin
        if first:
            if seen_slice or not cuts:
                cuts.append(pending if pending is not None else begin)
            seen_slice, pending = True, None
    cuts[0] = 0
    return [data[a:b] for a, b in zip(cuts, cuts[1:] + [len(data)])]


def opencv_decode(path):
    """(BGR frames, luma planes) of a raw H.264/H.265 file, decoded by OpenCV's FFmpeg. The luma
    is FFmpeg's own plane (CONVERT_RGB off gives the decoder's first plane as 8UC1, with a
    warning per frame that the log level keeps quiet)."""
    cv2.setLogLevel(2)  # errors only
    cap = cv2.VideoCapture(path, cv2.CAP_FFMPEG)
    assert cap.isOpened(), path
    bgr = []
    while True:
        ok, frame = cap.read()
        if not ok:
            break
        bgr.append(frame)
    cap.release()
    cap = cv2.VideoCapture(path, cv2.CAP_FFMPEG)
    cap.set(cv2.CAP_PROP_CONVERT_RGB, 0)
    lumas = []
    while True:
        ok, frame = cap.read()
        if not ok:
            break
        lumas.append(frame)
    cap.release()
    return bgr, lumas


# ---- the application side: device, report thread, DVPP memory -----------------------------------


class ReportThread:
    """A report thread as pyACL samples write it: process_report in a loop until stopped (before
    a channel subscribes it, process_report answers at once with ACL_ERROR_RT_THREAD_SUBSCRIBE).
    native: acl.util.start_thread's thread, whose id is its pthread_t; else a threading.Thread,
    whose threading.get_ident() is the same pthread_t."""

    def __init__(self, native=False, timeout=20):
        self.running, self.timeout, self.unexpected = True, timeout, []
        self.native = native
        if native:
            self.tid, ret = acl.util.start_thread(self._loop, [timeout])
            assert ret == 0 and self.tid != 0
        else:
            ready = threading.Event()

            def run():
                self.tid = threading.get_ident()
                ready.set()
                self._loop()

            self.thread = threading.Thread(target=run, daemon=True)
            self.thread.start()
            assert ready.wait(5)

    def _loop(self, *_):
        while self.running:
            ret = acl.rt.process_report(self.timeout)
            if ret == acl.ACL_ERROR_RT_THREAD_SUBSCRIBE:
                time.sleep(0.002)
            elif ret not in (0, acl.ACL_ERROR_RT_REPORT_TIMEOUT):
                self.unexpected.append(ret)

    def stop(self):
        self.running = False
        if self.native:
            assert acl.util.stop_thread(self.tid) == 0
        else:
            self.thread.join(5)
            assert not self.thread.is_alive()
        assert self.unexpected == []


@pytest.fixture
def device():
    assert acl.init() == 0
    assert acl.rt.set_device(0) == 0
    ctx, ret = acl.rt.create_context(0)
    assert ret == 0
    yield ctx
    assert acl.rt.destroy_context(ctx) == 0
    assert acl.rt.reset_device(0) == 0
    assert acl.finalize() == 0


@pytest.fixture
def reporter(device):
    r = ReportThread()
    yield r
    r.stop()


class Memory:
    """DVPP memory and descriptions a test made, released at the end."""

    def __init__(self):
        self.dev, self.pics, self.streams = [], [], []

    def malloc(self, size):
        dev, ret = m.dvpp_malloc(size)
        assert ret == 0 and dev != 0
        self.dev.append(dev)
        return dev

    def upload(self, data):
        host = np.ascontiguousarray(np.frombuffer(bytes(data), np.uint8))
        dev = self.malloc(len(host))
        assert acl.rt.memcpy(dev, len(host), host.ctypes.data, len(host), H2D) == 0
        return dev

    def pic(self, dev, size, fmt=NV12, w=W, h=H, ws=None, hs=None):
        d = m.dvpp_create_pic_desc()
        assert d != 0
        self.pics.append(d)
        for setter, value in ((m.dvpp_set_pic_desc_data, dev), (m.dvpp_set_pic_desc_size, size),
                              (m.dvpp_set_pic_desc_format, fmt), (m.dvpp_set_pic_desc_width, w),
                              (m.dvpp_set_pic_desc_height, h),
                              (m.dvpp_set_pic_desc_width_stride, ws or w),
                              (m.dvpp_set_pic_desc_height_stride, hs or h)):
            assert setter(d, value) == 0
        return d

    def stream(self, dev=0, size=0, fmt=H264_MAIN, eos=0):
        d = m.dvpp_create_stream_desc()
        assert d != 0
        self.streams.append(d)
        assert m.dvpp_set_stream_desc_data(d, dev) == 0
        assert m.dvpp_set_stream_desc_size(d, size) == 0
        assert m.dvpp_set_stream_desc_format(d, fmt) == 0
        assert m.dvpp_set_stream_desc_eos(d, eos) == 0
        return d

    def free(self):
        for d in self.pics:
            assert m.dvpp_destroy_pic_desc(d) == 0
        for d in self.streams:
            assert m.dvpp_destroy_stream_desc(d) == 0
        for p in self.dev:
            assert m.dvpp_free(p) == 0
        self.dev, self.pics, self.streams = [], [], []


@pytest.fixture
def mem(device):
    mm = Memory()
    yield mm
    mm.free()


def download(dev, n):
    host = np.empty(n, np.uint8)
    assert acl.rt.memcpy(host.ctypes.data, n, dev, n, D2H) == 0
    return host


# ---- encode and decode the pyACL way -------------------------------------------------------------


class Packet:
    """What a venc callback saw: copied out during the callback (its stream desc is the
    channel's, valid only then)."""

    def __init__(self, pic, stream, user_data):
        self.pic, self.stream, self.user_data = pic, stream, user_data
        self.thread = threading.get_ident()
        self.size = m.dvpp_get_stream_desc_size(stream)
        self.addr = m.dvpp_get_stream_desc_data(stream)
        self.format = m.dvpp_get_stream_desc_format(stream)
        self.timestamp = m.dvpp_get_stream_desc_timestamp(stream)
        self.ret_code = m.dvpp_get_stream_desc_ret_code(stream)
        self.data = download(self.addr, self.size).tobytes() if self.size else b""


def venc_channel(reporter, en_type, callback, w=W, h=H, fmt=NV12, **fields):
    desc = m.venc_create_channel_desc()
    assert desc != 0
    assert m.venc_set_channel_desc_thread_id(desc, reporter.tid) == 0
    assert m.venc_set_channel_desc_callback(desc, callback) == 0
    assert m.venc_set_channel_desc_entype(desc, en_type) == 0
    assert m.venc_set_channel_desc_pic_format(desc, fmt) == 0
    assert m.venc_set_channel_desc_pic_width(desc, w) == 0
    assert m.venc_set_channel_desc_pic_height(desc, h) == 0
    for name, value in fields.items():
        assert getattr(m, "venc_set_channel_desc_" + name)(desc, value) == 0
    assert m.venc_create_channel(desc) == 0, acl.get_recent_err_msg()
    return desc


def venc_send_all(desc, mem, frames, user_data=None, force_i=(), fmt=NV12, eos=True):
    """Sends every frame (each its own DVPP picture, so none is overwritten while queued) with
    user data user_data[i] (default i), then the end of stream."""
    config = m.venc_create_frame_config()
    assert config != 0
    try:
        for i, f in enumerate(frames):
            h, w = f.shape[0] * 2 // 3, f.shape[1]
            pic = mem.pic(mem.upload(f.tobytes()), f.size, fmt, w, h)
            assert m.venc_set_frame_config_force_i_frame(config, 1 if i in force_i else 0) == 0
            ud = i if user_data is None else user_data[i]
            assert m.venc_send_frame(desc, pic, 0, config, ud) == 0, acl.get_recent_err_msg()
        if eos:
            assert m.venc_set_frame_config_force_i_frame(config, 0) == 0
            assert m.venc_set_frame_config_eos(config, 1) == 0
            assert m.venc_send_frame(desc, 0, 0, config, "eos") == 0, acl.get_recent_err_msg()
    finally:
        assert m.venc_destroy_frame_config(config) == 0


def encode(reporter, mem, en_type, frames, **fields):
    """The packets of `frames` encoded by a venc channel, in callback order."""
    packets = []
    desc = venc_channel(reporter, en_type, lambda p, s, u: packets.append(Packet(p, s, u)),
                        **fields)
    venc_send_all(desc, mem, frames)
    assert m.venc_destroy_channel(desc) == 0  # returns once every callback has run
    assert m.venc_destroy_channel_desc(desc) == 0
    return packets


class Picture:
    """What a vdec callback saw."""

    def __init__(self, stream, pic, user_data):
        self.stream, self.pic, self.user_data = stream, pic, user_data
        self.thread = threading.get_ident()
        if pic:
            self.ret_code = m.dvpp_get_pic_desc_ret_code(pic)
            self.w, self.h = m.dvpp_get_pic_desc_width(pic), m.dvpp_get_pic_desc_height(pic)
            self.ws = m.dvpp_get_pic_desc_width_stride(pic)
            self.hs = m.dvpp_get_pic_desc_height_stride(pic)
            self.format = m.dvpp_get_pic_desc_format(pic)
            raw = download(m.dvpp_get_pic_desc_data(pic), self.ws * self.hs * 3 // 2)
            if self.ret_code == 0:
                planes = raw.reshape(self.hs * 3 // 2, self.ws)
                self.nv12 = np.vstack([planes[:self.h, :self.w],
                                       planes[self.hs:self.hs + self.h // 2, :self.w]])


def vdec_channel(reporter, en_type, callback, fmt=NV12):
    desc = m.vdec_create_channel_desc()
    assert desc != 0
    assert m.vdec_set_channel_desc_channel_id(desc, 0) == 0
    assert m.vdec_set_channel_desc_thread_id(desc, reporter.tid) == 0
    assert m.vdec_set_channel_desc_callback(desc, callback) == 0
    assert m.vdec_set_channel_desc_entype(desc, en_type) == 0
    assert m.vdec_set_channel_desc_out_pic_format(desc, fmt) == 0
    assert m.vdec_create_channel(desc) == 0, acl.get_recent_err_msg()
    return desc


def decode(reporter, mem, en_type, pieces, fmt=NV12, w=W, h=H, user_data=None):
    """Each piece (one access unit) sent to a vdec channel with its own output picture and user
    data user_data[i] (default i), then the end of stream; the callbacks, in order."""
    pictures = []
    desc = vdec_channel(reporter, en_type, lambda s, p, u: pictures.append(Picture(s, p, u)), fmt)
    ws, hs = align(w, 16), align(h, 2)
    out_size = ws * hs * 3 // 2
    for i, piece in enumerate(pieces):
        stream = mem.stream(mem.upload(piece), len(piece), en_type)
        pic = mem.pic(mem.malloc(out_size), out_size, fmt, w, h, ws, hs)
        ud = i if user_data is None else user_data[i]
        assert m.vdec_send_frame(desc, stream, pic, 0, ud) == 0, acl.get_recent_err_msg()
    assert m.vdec_send_frame(desc, mem.stream(eos=1), 0, 0, None) == 0, acl.get_recent_err_msg()
    assert m.vdec_destroy_channel(desc) == 0
    assert m.vdec_destroy_channel_desc(desc) == 0
    return pictures


def write(tmp_path, name, packets):
    path = str(tmp_path / name)
    with open(path, "wb") as f:
        for p in packets:
            f.write(p.data)
    return path


# ---- names ---------------------------------------------------------------------------------------


def test_every_video_function_of_acl_dvpp_h_is_bound_under_its_pyacl_name():
    with open(os.path.join(ROOT, "include", "acl", "ops", "acl_dvpp.h")) as f:
        declared = set(re.findall(r"\b(acl(?:vdec|venc)\w+)\s*\(", f.read()))
    assert len(declared) == 66

    def pyacl(c_name):  # the rule, and pyACL's one exception to it ("EnType" -> "entype")
        return re.sub(r"(?<!^)(?=[A-Z])", "_", c_name[3:].replace("EnType", "Entype")).lower()

    bound = {n for n in dir(m) if n.startswith(("vdec_", "venc_"))}
    assert {pyacl(n) for n in declared} == bound
    assert "vdec_set_channel_desc_entype" in bound and "venc_get_channel_desc_entype" in bound


# ---- loading -------------------------------------------------------------------------------------

# A fresh interpreter: libascendcl.so loads and runs a device without libavcodec (docs/dvpp.md,
# "Video": a shared FFmpeg is opened at the first video channel); the first vdec channel maps it.
# The wheel links a minimal static FFmpeg into libascendcl.so instead (its test runs this suite):
# there nothing is opened, and its libascendcl.so holds no libavcodec soname to open.
LAZY_AVCODEC = r"""
import threading, time
import acl

def maps():
    with open("/proc/self/maps") as f:
        return f.read().splitlines()

def avcodec_mapped():
    return any("/libavcodec.so." in line for line in maps())

ascendcl = {line.split()[-1] for line in maps() if line.endswith("/libascendcl.so")}
assert len(ascendcl) == 1, ascendcl
with open(ascendcl.pop(), "rb") as f:
    shared_ffmpeg = b"libavcodec.so." in f.read()

assert not avcodec_mapped(), "libavcodec is mapped by import acl"
assert acl.init() == 0 and acl.rt.set_device(0) == 0
ctx, ret = acl.rt.create_context(0)
assert ret == 0
assert not avcodec_mapped(), "libavcodec is mapped before any video channel"
running, tid = True, []
def loop():
    tid.append(threading.get_ident())
    while running:
        acl.rt.process_report(10)
        time.sleep(0.002)
t = threading.Thread(target=loop, daemon=True)
t.start()
while not tid:
    time.sleep(0.001)
desc = acl.media.vdec_create_channel_desc()
assert acl.media.vdec_set_channel_desc_channel_id(desc, 0) == 0
assert acl.media.vdec_set_channel_desc_thread_id(desc, tid[0]) == 0
assert acl.media.vdec_set_channel_desc_callback(desc, lambda *a: None) == 0
assert acl.media.vdec_set_channel_desc_entype(desc, 2) == 0
assert acl.media.vdec_set_channel_desc_out_pic_format(desc, 1) == 0
assert acl.media.vdec_create_channel(desc) == 0, acl.get_recent_err_msg()
assert avcodec_mapped() == shared_ffmpeg, "a vdec channel opened without libavcodec"
assert acl.media.vdec_destroy_channel(desc) == 0
assert acl.media.vdec_destroy_channel_desc(desc) == 0
running = False
t.join(5)
assert acl.rt.destroy_context(ctx) == 0 and acl.rt.reset_device(0) == 0 and acl.finalize() == 0
print("ok")
"""


def test_libavcodec_is_opened_by_the_first_video_channel_not_by_loading_acl():
    out = subprocess.run([sys.executable, "-c", LAZY_AVCODEC], capture_output=True, text=True,
                         timeout=60)
    assert out.returncode == 0 and out.stdout.strip() == "ok", out.stderr


# ---- venc ----------------------------------------------------------------------------------------


@pytest.mark.parametrize("codec", sorted(CODECS))
def test_venc_stream_decodes_in_opencv_to_the_source_frames(reporter, mem, tmp_path, codec):
    en_type, ext = CODECS[codec]
    frames = make_frames()
    packets = encode(reporter, mem, en_type, frames)
    # One bitstream per frame, in order, each with the user data of its send, on the report
    # thread, in a stream description of the channel's format.
    assert [p.user_data for p in packets] == list(range(N))
    assert all(p.thread == reporter.tid for p in packets)
    assert all(p.size > 0 and p.ret_code == 0 and p.format == en_type for p in packets)
    assert [p.timestamp for p in packets] == list(range(N))
    assert len({p.pic for p in packets}) == N  # each callback gets its own send's picture
    first = nal_types(packets[0].data, codec == "h265")
    assert first[:2] == ([32, 33] if codec == "h265" else [7, 8])  # parameter sets lead

    bgr, lumas = opencv_decode(write(tmp_path, "out" + ext, packets))
    assert len(bgr) == N
    for src, got, y in zip(frames, bgr, lumas):
        assert got.shape == (H, W, 3)
        assert psnr(cv2.cvtColor(src, cv2.COLOR_YUV2BGR_NV12), got) >= MIN_PSNR
        assert y.shape == (H, W) and psnr(luma(src), y) >= MIN_PSNR


@pytest.mark.parametrize("codec", sorted(CODECS))
def test_vdec_decodes_the_venc_stream_frame_for_frame(reporter, mem, tmp_path, codec):
    en_type, ext = CODECS[codec]
    frames = make_frames()
    packets = encode(reporter, mem, en_type, frames)
    _, lumas = opencv_decode(write(tmp_path, "out" + ext, packets))
    tags = [("frame", i) for i in range(N)]
    pictures = decode(reporter, mem, en_type, [p.data for p in packets], user_data=tags)
    assert [p.user_data for p in pictures] == tags  # in send order, each with its own user data
    assert all(p.thread == reporter.tid for p in pictures)
    assert len({p.pic for p in pictures}) == N and len({p.stream for p in pictures}) == N
    for src, pic, y in zip(frames, pictures, lumas):
        assert pic.ret_code == 0
        assert (pic.w, pic.h, pic.ws, pic.hs, pic.format) == (W, H, align(W, 16), H, NV12)
        np.testing.assert_array_equal(luma(pic.nv12), y)  # the same stream: bit-exact
        assert psnr(luma(src), luma(pic.nv12)) >= MIN_PSNR
        assert psnr(chroma(src), chroma(pic.nv12)) >= MIN_PSNR


def test_vdec_nv21_output_swaps_the_chroma_bytes(reporter, mem):
    frames = make_frames(6)
    packets = encode(reporter, mem, H264_MAIN, frames)
    nv12 = decode(reporter, mem, H264_MAIN, [p.data for p in packets])
    nv21 = decode(reporter, mem, H264_MAIN, [p.data for p in packets], fmt=NV21)
    for a, b in zip(nv12, nv21):
        assert b.format == NV21
        np.testing.assert_array_equal(luma(a.nv12), luma(b.nv12))
        np.testing.assert_array_equal(chroma(a.nv12)[:, 0::2], chroma(b.nv12)[:, 1::2])
        np.testing.assert_array_equal(chroma(a.nv12)[:, 1::2], chroma(b.nv12)[:, 0::2])


@pytest.mark.parametrize("seed,en_type", [("stream.h264", H264_HIGH), ("stream.h265", H265_MAIN)])
def test_vdec_matches_opencv_on_a_stream_kiln_did_not_make(reporter, mem, seed, en_type):
    path = os.path.join(SEEDS, seed)
    data = open(path, "rb").read()
    units = access_units(data, seed.endswith("265"))
    bgr, lumas = opencv_decode(path)
    assert len(units) == len(lumas) == 6
    h, w = lumas[0].shape
    pictures = decode(reporter, mem, en_type, units, w=w, h=h)
    assert [p.user_data for p in pictures] == list(range(len(units)))
    for pic, y, ref in zip(pictures, lumas, bgr):
        assert pic.ret_code == 0 and (pic.w, pic.h) == (w, h)
        np.testing.assert_array_equal(luma(pic.nv12, h), y)
        # Chroma through the two colour conversions (swscale's, cvtColor's): close, not exact
        # (43-46 dB measured).
        assert psnr(cv2.cvtColor(pic.nv12, cv2.COLOR_YUV2BGR_NV12), ref) >= MIN_PSNR


class SampleVdec:
    """The VDEC half of CANN's pyACL sample, in its shape: a bound method as the callback, a
    fresh input stream description and output picture per frame, released by the callback."""

    def __init__(self, thread_id, en_type):
        self.en_type, self.images = en_type, []
        self.desc = m.vdec_create_channel_desc()
        m.vdec_set_channel_desc_channel_id(self.desc, 0)
        m.vdec_set_channel_desc_thread_id(self.desc, thread_id)
        m.vdec_set_channel_desc_callback(self.desc, self._callback)
        m.vdec_set_channel_desc_entype(self.desc, en_type)
        m.vdec_set_channel_desc_out_pic_format(self.desc, NV12)
        assert m.vdec_create_channel(self.desc) == 0
        self.frame_config = m.vdec_create_frame_config()
        assert self.frame_config != 0

    def _callback(self, input_stream_desc, output_pic_desc, user_data):
        if input_stream_desc:
            assert m.dvpp_free(m.dvpp_get_stream_desc_data(input_stream_desc)) == 0
            assert m.dvpp_destroy_stream_desc(input_stream_desc) == 0
        if output_pic_desc:
            picture = Picture(input_stream_desc, output_pic_desc, user_data)
            self.images.append(picture)
            assert m.dvpp_free(m.dvpp_get_pic_desc_data(output_pic_desc)) == 0
            assert m.dvpp_destroy_pic_desc(output_pic_desc) == 0

    def send(self, data, index):
        dev, ret = m.dvpp_malloc(len(data))
        assert ret == 0
        assert acl.rt.memcpy(dev, len(data), acl.util.bytes_to_ptr(data), len(data), H2D) == 0
        stream_desc = m.dvpp_create_stream_desc()
        m.dvpp_set_stream_desc_data(stream_desc, dev)
        m.dvpp_set_stream_desc_size(stream_desc, len(data))
        size = align(W, 16) * align(H, 2) * 3 // 2
        out, ret = m.dvpp_malloc(size)
        assert ret == 0
        pic_desc = m.dvpp_create_pic_desc()
        m.dvpp_set_pic_desc_data(pic_desc, out)
        m.dvpp_set_pic_desc_size(pic_desc, size)
        m.dvpp_set_pic_desc_format(pic_desc, NV12)
        return m.vdec_send_frame(self.desc, stream_desc, pic_desc, self.frame_config, index)

    def finish(self):
        eos = m.dvpp_create_stream_desc()
        m.dvpp_set_stream_desc_eos(eos, 1)
        assert m.vdec_send_frame(self.desc, eos, 0, self.frame_config, None) == 0
        assert m.vdec_destroy_channel(self.desc) == 0
        assert m.vdec_destroy_frame_config(self.frame_config) == 0
        assert m.vdec_destroy_channel_desc(self.desc) == 0
        assert m.dvpp_destroy_stream_desc(eos) == 0


def test_a_pyacl_sample_style_vdec_program_runs(device, mem):
    """The report thread is acl.util.start_thread's, also subscribed to the application's own
    stream (as the sample does); the channel, the subscription and the thread are taken down in
    that order."""
    stream, ret = acl.rt.create_stream()
    assert ret == 0
    thread = ReportThread(native=True, timeout=100)
    assert acl.rt.subscribe_report(thread.tid, stream) == 0
    frames = make_frames()
    packets = encode(thread, mem, H264_MAIN, frames)
    vdec = SampleVdec(thread.tid, H264_MAIN)
    for i, p in enumerate(packets):
        assert vdec.send(p.data, i) == 0
    vdec.finish()
    assert [p.user_data for p in vdec.images] == list(range(N))
    for src, pic in zip(frames, vdec.images):
        assert pic.ret_code == 0 and pic.thread == thread.tid
        assert psnr(luma(src), luma(pic.nv12)) >= MIN_PSNR
    assert acl.rt.unsubscribe_report(thread.tid, stream) == 0
    thread.stop()
    assert acl.rt.destroy_stream(stream) == 0


def test_vdec_skipped_frame_calls_back_without_a_picture_and_eos_without_a_callback(
        reporter, mem):
    frames = make_frames(8)
    packets = encode(reporter, mem, H264_MAIN, frames)
    pictures = []
    desc = vdec_channel(reporter, H264_MAIN,
                        lambda s, p, u: pictures.append(Picture(s, p, u)))
    size = align(W, 16) * H * 3 // 2
    for i, p in enumerate(packets):
        stream = mem.stream(mem.upload(p.data), len(p.data))
        if i == 3:
            assert m.vdec_send_skipped_frame(desc, stream, 0, "skipped") == 0
        else:
            pic = mem.pic(mem.malloc(size), size, NV12, W, H, align(W, 16), H)
            assert m.vdec_send_frame(desc, stream, pic, 0, i) == 0
    assert m.vdec_send_frame(desc, mem.stream(eos=1), 0, 0, "eos") == 0
    assert m.vdec_destroy_channel(desc) == 0
    assert m.vdec_destroy_channel_desc(desc) == 0
    assert [p.user_data for p in pictures] == [0, 1, 2, "skipped", 4, 5, 6, 7]
    assert pictures[3].pic == 0
    for i in (0, 1, 2, 4, 5, 6, 7):  # the skipped frame was still decoded as a reference
        assert pictures[i].ret_code == 0
        assert psnr(luma(frames[i]), luma(pictures[i].nv12)) >= MIN_PSNR


def test_vdec_entry_that_no_frame_comes_for_gets_its_ret_code_at_eos(reporter, mem):
    packets = encode(reporter, mem, H264_MAIN, make_frames(1))
    first = packets[0].data
    sps_pps = first[:[mt.start() for mt in re.finditer(b"\x00\x00\x01", first)][2]]
    assert nal_types(sps_pps, False) == [7, 8]
    pictures = decode(reporter, mem, H264_MAIN, [sps_pps], user_data=["parameter sets"])
    assert [(p.user_data, p.ret_code) for p in pictures] == [("parameter sets", NO_FRAME)]


# ---- venc features -------------------------------------------------------------------------------


@pytest.mark.parametrize("codec", ["h264", "h265"])
def test_venc_force_i_frame_makes_that_frame_an_idr(reporter, mem, codec):
    en_type, _ = CODECS[codec]
    hevc = codec == "h265"
    idr = {19, 20} if hevc else {5}
    packets = []
    desc = venc_channel(reporter, en_type, lambda p, s, u: packets.append(Packet(p, s, u)),
                        key_frame_interval=1000)
    venc_send_all(desc, mem, make_frames(12), force_i={7})
    assert m.venc_destroy_channel(desc) == 0
    assert m.venc_destroy_channel_desc(desc) == 0
    has_idr = [bool(idr & set(nal_types(p.data, hevc))) for p in packets]
    assert has_idr == [i in (0, 7) for i in range(12)]


def test_venc_writes_into_the_applications_output_buffer(reporter, mem):
    buf = mem.malloc(1 << 20)
    packets = []
    desc = venc_channel(reporter, H264_MAIN, lambda p, s, u: packets.append(Packet(p, s, u)),
                        buf_addr=buf, buf_size=1 << 20)
    assert m.venc_get_channel_desc_buf_addr(desc) == buf
    assert m.venc_get_channel_desc_param(desc, VENC_BUF_ADDR) == (buf, 0)
    venc_send_all(desc, mem, make_frames(4))
    assert m.venc_destroy_channel(desc) == 0
    assert m.venc_destroy_channel_desc(desc) == 0
    assert len(packets) == 4 and all(p.addr == buf for p in packets)


def test_channels_on_one_report_thread_each_get_their_own_callback(reporter, mem, tmp_path):
    """Two channels (H.264 and H.265) with different callbacks, sends interleaved: the
    trampoline must find each send's own function and user data."""
    frames = make_frames(10)
    got = {"a": [], "b": []}
    a = venc_channel(reporter, H264_MAIN, lambda p, s, u: got["a"].append(Packet(p, s, u)))
    b = venc_channel(reporter, H265_MAIN, lambda p, s, u: got["b"].append(Packet(p, s, u)))
    config = m.venc_create_frame_config()
    for i, f in enumerate(frames):
        for desc, tag in ((a, "a"), (b, "b")):
            pic = mem.pic(mem.upload(f.tobytes()), f.size)
            assert m.venc_send_frame(desc, pic, 0, config, (tag, i)) == 0
    for desc in (a, b):
        assert m.venc_destroy_channel(desc) == 0
        assert m.venc_destroy_channel_desc(desc) == 0
    assert m.venc_destroy_frame_config(config) == 0
    assert [p.user_data for p in got["a"]] == [("a", i) for i in range(10)]
    assert [p.user_data for p in got["b"]] == [("b", i) for i in range(10)]
    assert nal_types(got["a"][0].data, False)[0] == 7  # H.264 SPS
    assert nal_types(got["b"][0].data, True)[0] == 32  # H.265 VPS
    for tag, ext in (("a", ".h264"), ("b", ".h265")):
        bgr, _ = opencv_decode(write(tmp_path, tag + ext, got[tag]))
        assert len(bgr) == 10


# ---- callbacks: exceptions, lifetimes, the report thread -----------------------------------------


@pytest.mark.parametrize("kind", ["venc", "vdec"])
def test_an_exception_in_a_callback_is_reported_and_the_channel_goes_on(
        reporter, mem, monkeypatch, kind):
    reported = []
    monkeypatch.setattr(sys, "unraisablehook", lambda u: reported.append(
        (u.exc_type, str(u.exc_value), threading.get_ident())))
    seen = []

    def callback(a, b, user_data):
        seen.append(user_data)
        if user_data == 3:
            raise ValueError("callback failed on purpose")

    frames = make_frames(8)
    if kind == "venc":
        desc = venc_channel(reporter, H264_MAIN, callback)
        venc_send_all(desc, mem, frames)
        assert m.venc_destroy_channel(desc) == 0
        assert m.venc_destroy_channel_desc(desc) == 0
    else:
        packets = encode(reporter, mem, H264_MAIN, frames)
        desc = vdec_channel(reporter, H264_MAIN, callback)
        size = align(W, 16) * H * 3 // 2
        for i, p in enumerate(packets):
            stream = mem.stream(mem.upload(p.data), len(p.data))
            pic = mem.pic(mem.malloc(size), size, NV12, W, H, align(W, 16), H)
            assert m.vdec_send_frame(desc, stream, pic, 0, i) == 0
        assert m.vdec_destroy_channel(desc) == 0
        assert m.vdec_destroy_channel_desc(desc) == 0
    assert seen == list(range(8))
    assert reported == [(ValueError, "callback failed on purpose", reporter.tid)]


def test_the_binding_keeps_the_callback_and_releases_every_user_data(reporter, mem):
    class Tag:
        def __init__(self, i):
            self.i = i

    seen = []
    callback = (lambda log: lambda p, s, u: log.append(u.i))(seen)
    func_ref = weakref.ref(callback)
    desc = m.venc_create_channel_desc()
    assert m.venc_set_channel_desc_callback(desc, callback) == 0
    del callback
    gc.collect()
    assert func_ref() is not None  # the description holds it
    assert m.venc_get_channel_desc_callback(desc) is func_ref()
    for setter, value in ((m.venc_set_channel_desc_thread_id, reporter.tid),
                          (m.venc_set_channel_desc_entype, H264_MAIN),
                          (m.venc_set_channel_desc_pic_width, W),
                          (m.venc_set_channel_desc_pic_height, H)):
        assert setter(desc, value) == 0
    assert m.venc_create_channel(desc) == 0
    tags = [Tag(i) for i in range(5)]
    eos_tag = Tag("eos")
    refs = [weakref.ref(t) for t in tags + [eos_tag]]
    config = m.venc_create_frame_config()
    for f, t in zip(make_frames(5), tags):
        assert m.venc_send_frame(desc, mem.pic(mem.upload(f.tobytes()), f.size), 0, config, t) == 0
    assert m.venc_set_frame_config_eos(config, 1) == 0
    assert m.venc_send_frame(desc, 0, 0, config, eos_tag) == 0  # flushes: nothing to call back
    # A refused send keeps nothing either.
    refused = Tag("refused")
    refs.append(weakref.ref(refused))
    assert m.venc_send_frame(desc, 0, 0, 0, refused) == INVALID_PARAM
    del refused
    gc.collect()
    assert refs[-1]() is None  # at once, not only when the channel goes
    del tags, eos_tag, t  # (t: the loop variable, still the last tag)
    assert m.venc_destroy_channel(desc) == 0
    assert seen == list(range(5))
    gc.collect()
    assert [r() for r in refs] == [None] * 7
    assert m.venc_destroy_channel_desc(desc) == 0
    assert m.venc_destroy_frame_config(config) == 0
    gc.collect()
    assert func_ref() is None  # released with its description


def wait_for(condition, seconds=10):
    deadline = time.monotonic() + seconds
    while not condition():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.005)


@pytest.mark.parametrize("kind", ["venc", "vdec"])
def test_destroying_a_channel_from_its_own_callback_is_refused(reporter, mem, kind):
    """The channel is still alive when its callbacks run (the test waits for them before it
    destroys the channel): destroy would wait for callbacks only this thread can run, so the
    binding refuses it instead of hanging."""
    rets = []
    holder = {}
    frames = make_frames(3)
    if kind == "venc":
        desc = venc_channel(reporter, H264_MAIN,
                            lambda p, s, u: rets.append(m.venc_destroy_channel(holder["d"])))
        holder["d"] = desc
        venc_send_all(desc, mem, frames, eos=False)
        wait_for(lambda: len(rets) == 3)
        assert m.venc_destroy_channel(desc) == 0
        assert m.venc_destroy_channel_desc(desc) == 0
    else:
        packets = encode(reporter, mem, H264_MAIN, frames)
        desc = vdec_channel(reporter, H264_MAIN,
                            lambda s, p, u: rets.append(m.vdec_destroy_channel(holder["d"])))
        holder["d"] = desc
        size = align(W, 16) * H * 3 // 2
        for i, p in enumerate(packets):
            stream = mem.stream(mem.upload(p.data), len(p.data))
            pic = mem.pic(mem.malloc(size), size, NV12, W, H, align(W, 16), H)
            assert m.vdec_send_frame(desc, stream, pic, 0, i) == 0
        assert m.vdec_send_frame(desc, mem.stream(eos=1), 0, 0, None) == 0
        wait_for(lambda: len(rets) == 3)
        assert m.vdec_destroy_channel(desc) == 0
        assert m.vdec_destroy_channel_desc(desc) == 0
    assert rets == [INVALID_PARAM] * 3


# ---- descriptions --------------------------------------------------------------------------------


def test_vdec_channel_desc_fields_round_trip(device):
    d = m.vdec_create_channel_desc()
    assert d != 0
    assert (m.vdec_get_channel_desc_entype(d), m.vdec_get_channel_desc_out_pic_format(d)) == \
        (H265_MAIN, NV12)  # the defaults
    assert m.vdec_get_channel_desc_callback(d) is None
    for name, value in (("channel_id", 7), ("thread_id", 2 ** 63 + 5), ("entype", H264_HIGH),
                        ("out_pic_format", NV21), ("out_pic_width", 1920),
                        ("out_pic_height", 1080), ("ref_frame_num", 4), ("bit_depth", 8),
                        ("out_mode", 1)):
        assert getattr(m, "vdec_set_channel_desc_" + name)(d, value) == 0, name
        assert getattr(m, "vdec_get_channel_desc_" + name)(d) == value, name

    def f(a, b, c):
        pass

    assert m.vdec_set_channel_desc_callback(d, f) == 0
    assert m.vdec_get_channel_desc_callback(d) is f
    config = m.vdec_create_frame_config()
    assert config != 0
    assert m.vdec_destroy_frame_config(config) == 0
    assert m.vdec_destroy_frame_config(config) == INVALID_PARAM
    assert m.vdec_destroy_channel_desc(d) == 0
    assert m.vdec_get_channel_desc_callback(d) is None


def test_venc_channel_desc_fields_and_params_round_trip(device, mem):
    d = m.venc_create_channel_desc()
    assert d != 0
    buf = mem.malloc(4096)
    for name, value in (("thread_id", 2 ** 64 - 2), ("entype", H264_BASELINE),
                        ("pic_format", NV21), ("pic_width", 640), ("pic_height", 480),
                        ("key_frame_interval", 30), ("buf_addr", buf), ("buf_size", 4096),
                        ("rc_mode", 2), ("src_rate", 25), ("max_bit_rate", 3000)):
        assert getattr(m, "venc_set_channel_desc_" + name)(d, value) == 0, name
        assert getattr(m, "venc_get_channel_desc_" + name)(d) == value, name
    assert m.venc_get_channel_desc_channel_id(d) == 0
    # The param forms reach the same fields.
    for kind, value in ((VENC_THREAD_ID, 12345), (VENC_PIXEL_FORMAT, NV12),
                        (VENC_ENCODE_TYPE, H265_MAIN), (VENC_PIC_WIDTH, 320),
                        (VENC_PIC_HEIGHT, 240), (VENC_KEY_FRAME_INTERVAL, 10),
                        (VENC_BUF_ADDR, 0), (VENC_BUF_SIZE, 0), (VENC_RC_MODE, 1),
                        (VENC_SRC_RATE, 60), (VENC_MAX_BITRATE, 500), (VENC_MAX_IP_PROP, 7)):
        assert m.venc_set_channel_desc_param(d, kind, value) == 0, kind
        assert m.venc_get_channel_desc_param(d, kind) == (value, 0), kind
    assert (m.venc_get_channel_desc_thread_id(d), m.venc_get_channel_desc_pic_width(d),
            m.venc_get_channel_desc_entype(d), m.venc_get_channel_desc_max_bit_rate(d)) == \
        (12345, 320, H265_MAIN, 500)

    def f(a, b, c):
        pass

    assert m.venc_get_channel_desc_param(d, VENC_CALLBACK) == (None, 0)
    assert m.venc_set_channel_desc_param(d, VENC_CALLBACK, f) == 0
    assert m.venc_get_channel_desc_param(d, VENC_CALLBACK) == (f, 0)
    assert m.venc_get_channel_desc_callback(d) is f

    config = m.venc_create_frame_config()
    assert (m.venc_get_frame_config_force_i_frame(config), m.venc_get_frame_config_eos(config)) \
        == (0, 0)
    assert m.venc_set_frame_config_force_i_frame(config, 1) == 0
    assert m.venc_set_frame_config_eos(config, 1) == 0
    assert (m.venc_get_frame_config_force_i_frame(config), m.venc_get_frame_config_eos(config)) \
        == (1, 1)
    assert m.venc_destroy_frame_config(config) == 0
    assert m.venc_destroy_channel_desc(d) == 0


# ---- bad arguments -------------------------------------------------------------------------------


def test_vdec_bad_arguments_get_invalid_param(reporter, mem):
    f = lambda a, b, c: None  # noqa: E731
    # NULL (0 or None) handles.
    for call, args in ((m.vdec_destroy_channel_desc, ()),
                       (m.vdec_set_channel_desc_channel_id, (1,)),
                       (m.vdec_set_channel_desc_thread_id, (reporter.tid,)),
                       (m.vdec_set_channel_desc_callback, (f,)),
                       (m.vdec_set_channel_desc_entype, (H264_MAIN,)),
                       (m.vdec_set_channel_desc_out_pic_format, (NV12,)),
                       (m.vdec_set_channel_desc_out_pic_width, (16,)),
                       (m.vdec_set_channel_desc_out_mode, (0,)),
                       (m.vdec_create_channel, ()), (m.vdec_destroy_channel, ()),
                       (m.vdec_send_frame, (0, 0, 0, None)),
                       (m.vdec_send_skipped_frame, (0, 0, None))):
        for null in (0, None):
            assert call(null, *args) == INVALID_PARAM, call.__name__
    assert m.vdec_destroy_frame_config(0) == INVALID_PARAM
    assert (m.vdec_get_channel_desc_thread_id(0), m.vdec_get_channel_desc_out_pic_width(0)) == \
        (0, 0)
    assert m.vdec_get_channel_desc_callback(0) is None

    d = m.vdec_create_channel_desc()
    assert m.vdec_set_channel_desc_channel_id(d, 256) == INVALID_PARAM
    assert m.vdec_set_channel_desc_entype(d, 4) == INVALID_PARAM
    assert m.vdec_set_channel_desc_out_pic_format(d, RGB_888) == INVALID_PARAM
    assert m.vdec_create_channel(d) == INVALID_PARAM  # no callback
    assert m.vdec_set_channel_desc_callback(d, f) == 0
    assert m.vdec_create_channel(d) == INVALID_PARAM  # no report thread
    assert acl.get_recent_err_msg()
    with pytest.raises(TypeError):
        m.vdec_set_channel_desc_callback(d, "not callable")
    with pytest.raises(TypeError):
        m.vdec_set_channel_desc_thread_id(d, "1")
    stream = mem.stream(mem.upload(b"\x00\x00\x01\x09\x10"), 5)
    out = mem.pic(mem.malloc(4096), 4096)
    assert m.vdec_send_frame(d, stream, out, 0, 1) == INVALID_PARAM  # no channel yet
    assert m.vdec_set_channel_desc_thread_id(d, reporter.tid) == 0
    assert m.vdec_set_channel_desc_entype(d, H264_MAIN) == 0
    assert m.vdec_create_channel(d) == 0
    assert m.vdec_create_channel(d) == INVALID_PARAM  # already
    assert m.vdec_destroy_channel_desc(d) == INVALID_PARAM  # its channel still exists
    empty = mem.stream(mem.malloc(64), 0)
    assert m.vdec_send_frame(d, empty, out, 0, 1) == INVALID_PARAM  # size 0 without eos
    assert m.vdec_send_frame(d, stream, 0, 0, 1) == INVALID_PARAM  # no output picture
    host = np.zeros(4096, np.uint8)
    bad_out = mem.pic(host.ctypes.data, 4096)
    assert m.vdec_send_frame(d, stream, bad_out, 0, 1) == INVALID_PARAM  # not DVPP memory
    assert m.vdec_send_frame(d, 0, out, 0, 1) == INVALID_PARAM
    assert m.vdec_destroy_channel(d) == 0
    assert m.vdec_destroy_channel(d) == INVALID_PARAM  # already
    assert m.vdec_destroy_channel_desc(d) == 0
    assert m.vdec_destroy_channel_desc(d) == INVALID_PARAM  # already


@pytest.mark.parametrize("garbage", [0x1234, -1])
def test_every_call_answers_handles_that_are_not_live_with_a_code(device, garbage):
    """Each vdec_*/venc_* function given a value that is no live handle (and that value for its
    other arguments, but a callable for a callback): a code or the getter's default, never a
    crash. The arguments are read from the signature pybind11 writes."""
    for name in sorted(n for n in dir(m) if n.startswith(("vdec_", "venc_"))):
        fn = getattr(m, name)
        params = re.match(r"\w+\((.*)\) -> (\w+)", fn.__doc__.splitlines()[0])
        args = [a.split(": ") for a in params.group(1).split(", ") if a]
        if not args or "create" in name:
            continue  # the creators take no handle
        args = [(lambda *a: None) if arg == "callback" else garbage for arg, _ in args]
        result = fn(*args)
        if name.endswith("_callback") and "_get_" in name:
            assert result is None, name
        elif "_get_" in name:
            assert result in (0, 1, (0, INVALID_PARAM), (None, INVALID_PARAM)), (name, result)
        else:
            assert result == INVALID_PARAM, name


def test_venc_bad_arguments_get_invalid_param(reporter, mem):
    f = lambda a, b, c: None  # noqa: E731
    for call, args in ((m.venc_destroy_channel_desc, ()),
                       (m.venc_set_channel_desc_thread_id, (reporter.tid,)),
                       (m.venc_set_channel_desc_callback, (f,)),
                       (m.venc_set_channel_desc_entype, (H264_MAIN,)),
                       (m.venc_set_channel_desc_pic_format, (NV12,)),
                       (m.venc_set_channel_desc_pic_width, (W,)),
                       (m.venc_set_channel_desc_buf_addr, (0,)),
                       (m.venc_set_channel_desc_rc_mode, (0,)),
                       (m.venc_set_channel_desc_param, (VENC_PIC_WIDTH, W)),
                       (m.venc_set_channel_desc_param, (VENC_CALLBACK, f)),
                       (m.venc_create_channel, ()), (m.venc_destroy_channel, ()),
                       (m.venc_send_frame, (0, 0, 0, None))):
        for null in (0, None):
            assert call(null, *args) == INVALID_PARAM, call.__name__
    assert m.venc_get_channel_desc_param(0, VENC_PIC_WIDTH) == (0, INVALID_PARAM)
    assert m.venc_get_channel_desc_param(0, VENC_CALLBACK) == (None, INVALID_PARAM)
    for call in (m.venc_destroy_frame_config, m.venc_set_frame_config_eos):
        assert call(0, *([1] if call is m.venc_set_frame_config_eos else [])) == INVALID_PARAM

    d = m.venc_create_channel_desc()
    assert m.venc_set_channel_desc_entype(d, 9) == INVALID_PARAM
    assert m.venc_set_channel_desc_pic_format(d, RGB_888) == INVALID_PARAM
    assert m.venc_set_channel_desc_rc_mode(d, 3) == INVALID_PARAM
    assert m.venc_set_channel_desc_param(d, 99, 1) == INVALID_PARAM  # no such param type
    assert m.venc_get_channel_desc_param(d, 99) == (0, INVALID_PARAM)
    with pytest.raises(TypeError):
        m.venc_set_channel_desc_param(d, VENC_CALLBACK, 5)
    with pytest.raises(TypeError):
        m.venc_set_channel_desc_param(d, VENC_PIC_WIDTH, "wide")
    with pytest.raises(TypeError):
        m.venc_set_channel_desc_callback(d, None)
    for setter, value in ((m.venc_set_channel_desc_entype, H264_MAIN),
                          (m.venc_set_channel_desc_pic_width, W),
                          (m.venc_set_channel_desc_pic_height, H)):
        assert setter(d, value) == 0
    assert m.venc_create_channel(d) == INVALID_PARAM  # no callback
    assert m.venc_set_channel_desc_callback(d, f) == 0
    assert m.venc_create_channel(d) == INVALID_PARAM  # no report thread
    assert m.venc_set_channel_desc_thread_id(d, reporter.tid) == 0
    config = m.venc_create_frame_config()
    frame = make_frames(1)[0]
    pic = mem.pic(mem.upload(frame.tobytes()), frame.size)
    assert m.venc_send_frame(d, pic, 0, config, 0) == INVALID_PARAM  # no channel yet
    assert m.venc_create_channel(d) == 0
    assert m.venc_send_frame(d, pic, 0, 0, 0) == INVALID_PARAM  # no frame config
    assert m.venc_send_frame(d, 0, 0, config, 0) == INVALID_PARAM  # no picture, not eos
    small = make_frames(1, W // 2, H // 2)[0]
    wrong = mem.pic(mem.upload(small.tobytes()), small.size, NV12, W // 2, H // 2)
    assert m.venc_send_frame(d, wrong, 0, config, 0) == INVALID_PARAM  # not the channel's size
    host = np.zeros(frame.size, np.uint8)
    assert m.venc_send_frame(d, mem.pic(host.ctypes.data, frame.size), 0, config, 0) == \
        INVALID_PARAM  # not DVPP memory
    assert m.venc_destroy_channel_desc(d) == INVALID_PARAM  # its channel still exists
    assert m.venc_destroy_channel(d) == 0
    assert m.venc_destroy_channel(d) == INVALID_PARAM
    assert m.venc_destroy_frame_config(config) == 0
    assert m.venc_destroy_channel_desc(d) == 0
