# Copyright 2026 The Kiln Authors
# SPDX-License-Identifier: Apache-2.0
"""acl.media (DVPP, include/acl/ops/acl_dvpp.h) through the Python bindings, against independent
oracles: Pillow (JPEG and PNG files, their decoded pixels, JPEG sampling factors), OpenCV
(resize, pyrDown, copyMakeBorder) and numpy (the JFIF matrix, crops, look-up tables,
histograms). Every picture goes through DVPP memory (acldvppMalloc) and acl.rt.memcpy, as a
pyACL application does it."""
import ctypes
import io
import os
import re

import numpy as np
import pytest

import acl

Image = pytest.importorskip("PIL.Image")
cv2 = pytest.importorskip("cv2")

m = acl.media
ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))

# CANN's values (acl_base.h, acl_dvpp.h), written out so a wrong generated constant fails.
INVALID_PARAM = 100000  # ACL_ERROR_INVALID_PARAM
UNSUPPORTED_JPEG = 148052  # ACL_ERROR_UNSUPPORTED_JPEG
YUV_400, NV12, NV21, YVU422SP, YVU444SP = 0, 1, 2, 4, 6
RGB_888, BGR_888, ARGB_8888, RGBA_8888 = 12, 13, 14, 16
UNKNOWN = 10000
CSS_444, CSS_422, CSS_420, CSS_GRAY = 0, 1, 2, 3
H2D, D2H = 1, 2  # ACL_MEMCPY_HOST_TO_DEVICE, ACL_MEMCPY_DEVICE_TO_HOST

PIXEL_BYTES = {YUV_400: 1, NV12: 1, NV21: 1, RGB_888: 3, BGR_888: 3, ARGB_8888: 4, RGBA_8888: 4}


def align(v, a):
    return (v + a - 1) // a * a


def half(v):
    return (v + 1) // 2


class Picture:
    """A picture in DVPP memory and its acldvppPicDesc (fields read back from the desc)."""

    def __init__(self, dvpp, desc, dev, size):
        self.dvpp, self.desc, self.dev, self.size = dvpp, desc, dev, size

    @property
    def w(self):
        return m.dvpp_get_pic_desc_width(self.desc)

    @property
    def h(self):
        return m.dvpp_get_pic_desc_height(self.desc)

    @property
    def ws(self):
        return m.dvpp_get_pic_desc_width_stride(self.desc)

    @property
    def hs(self):
        return m.dvpp_get_pic_desc_height_stride(self.desc)

    @property
    def format(self):
        return m.dvpp_get_pic_desc_format(self.desc)

    def raw(self):
        return self.dvpp.download(self.dev, self.size)

    def rows(self):
        return self.raw()[:self.ws * self.hs].reshape(self.hs, self.ws)

    def pixels(self):
        """RGB family: h x w x bytes per pixel, in memory order; YUV: the luma plane, h x w."""
        n = PIXEL_BYTES[self.format]
        rows = self.rows()[:self.h, :self.w * n]
        return rows if n == 1 else rows.reshape(self.h, self.w, n)

    def chroma(self):
        """Semi-planar 4:2:0: the interleaved chroma rows, ceil(h/2) x 2*ceil(w/2)."""
        plane = self.raw()[self.ws * self.hs:self.ws * self.hs * 3 // 2]
        return plane.reshape(self.hs // 2, self.ws)[:half(self.h), :2 * half(self.w)]


class Dvpp:
    """AscendCL initialised, a context, a stream and a DVPP channel; frees what tests allocate."""

    def __init__(self):
        assert acl.init() == 0
        assert acl.rt.set_device(0) == 0
        self.context, ret = acl.rt.create_context(0)
        assert ret == 0
        self.stream, ret = acl.rt.create_stream()
        assert ret == 0
        self.channel = m.dvpp_create_channel_desc()
        assert self.channel != 0
        assert m.dvpp_create_channel(self.channel) == 0
        self.memory, self.descs = [], []

    def close(self):
        for d in self.descs:
            m.dvpp_destroy_pic_desc(d)
        for p in self.memory:
            assert m.dvpp_free(p) == 0
        assert m.dvpp_destroy_channel(self.channel) == 0
        assert m.dvpp_destroy_channel_desc(self.channel) == 0
        assert acl.rt.destroy_stream(self.stream) == 0
        assert acl.rt.destroy_context(self.context) == 0
        assert acl.rt.reset_device(0) == 0
        assert acl.finalize() == 0

    def malloc(self, size):
        dev, ret = m.dvpp_malloc(size)
        assert ret == 0 and dev != 0
        self.memory.append(dev)
        return dev

    def upload(self, data):
        host = np.ascontiguousarray(np.frombuffer(bytes(data), np.uint8))
        dev = self.malloc(len(host))
        assert acl.rt.memcpy(dev, len(host), host.ctypes.data, len(host), H2D) == 0
        return dev

    def download(self, dev, n):
        host = np.empty(n, np.uint8)
        assert acl.rt.memcpy(host.ctypes.data, n, dev, n, D2H) == 0
        return host

    def desc(self, dev, fmt, w, h, ws, hs, size):
        d = m.dvpp_create_pic_desc()
        assert d != 0
        self.descs.append(d)
        for setter, value in ((m.dvpp_set_pic_desc_data, dev), (m.dvpp_set_pic_desc_format, fmt),
                              (m.dvpp_set_pic_desc_width, w), (m.dvpp_set_pic_desc_height, h),
                              (m.dvpp_set_pic_desc_width_stride, ws),
                              (m.dvpp_set_pic_desc_height_stride, hs),
                              (m.dvpp_set_pic_desc_size, size)):
            assert setter(d, value) == 0
        return d

    def picture(self, fmt, w, h, pixels=None, chroma=None, fill=0, desc=None):
        """A picture laid out with DVPP's strides (width stride a multiple of 16, height stride
        even), holding `pixels` (RGB family: h x w x bytes; YUV: the luma plane) and `chroma`
        (4:2:0 semi-planar: the interleaved rows), or `fill` bytes. With `desc`, that (batch
        member) description is filled in instead of a new one."""
        n = PIXEL_BYTES[fmt]
        ws, hs = align(w * n, 16), align(h, 2)
        size = ws * hs * 3 // 2 if fmt in (NV12, NV21) else ws * hs
        buf = np.full(size, fill, np.uint8)
        rows = buf[:ws * hs].reshape(hs, ws)
        if pixels is not None:
            rows[:h, :w * n] = np.asarray(pixels, np.uint8).reshape(h, w * n)
        if chroma is not None:
            buf[ws * hs:].reshape(hs // 2, ws)[:half(h), :2 * half(w)] = chroma
        dev = self.upload(buf.tobytes())
        if desc is None:
            desc = self.desc(dev, fmt, w, h, ws, hs, size)
        else:
            for setter, value in ((m.dvpp_set_pic_desc_data, dev),
                                  (m.dvpp_set_pic_desc_format, fmt), (m.dvpp_set_pic_desc_width, w),
                                  (m.dvpp_set_pic_desc_height, h),
                                  (m.dvpp_set_pic_desc_width_stride, ws),
                                  (m.dvpp_set_pic_desc_height_stride, hs),
                                  (m.dvpp_set_pic_desc_size, size)):
                assert setter(desc, value) == 0
        return Picture(self, desc, dev, size)

    def run(self, ret):
        """An *_async call's ret, then the stream's result."""
        assert ret == 0, acl.get_recent_err_msg()
        assert acl.rt.synchronize_stream(self.stream) == 0, acl.get_recent_err_msg()

    def decode(self, data, fmt, png=False):
        """JPEG (or PNG) bytes decoded into a buffer of the predicted size, as pyACL samples do."""
        predict = m.dvpp_png_predict_dec_size if png else m.dvpp_jpeg_predict_dec_size
        size, ret = predict(acl.util.bytes_to_ptr(data), len(data), fmt)
        assert ret == 0, acl.get_recent_err_msg()
        src = self.upload(data)
        out = self.malloc(size)
        d = m.dvpp_create_pic_desc()
        self.descs.append(d)
        assert m.dvpp_set_pic_desc_data(d, out) == 0
        assert m.dvpp_set_pic_desc_size(d, size) == 0
        assert m.dvpp_set_pic_desc_format(d, fmt) == 0
        call = m.dvpp_png_decode_async if png else m.dvpp_jpeg_decode_async
        self.run(call(self.channel, src, len(data), d, self.stream))
        assert m.dvpp_get_pic_desc_ret_code(d) == 0
        return Picture(self, d, out, size)


@pytest.fixture(scope="module")
def dvpp():
    d = Dvpp()
    yield d
    d.close()


def encoded(image, fmt="JPEG", **options):
    buf = io.BytesIO()
    image.save(buf, fmt, **options)
    return buf.getvalue()


def noise(w, h, channels=3, block=1, seed=0):
    """Random values in block x block squares (block 1: every pixel); h x w for one channel."""
    rng = np.random.RandomState(seed)
    small = rng.randint(0, 256, (-(-h // block), -(-w // block), channels)).astype(np.uint8)
    out = np.kron(small, np.ones((block, block, 1), np.uint8))[:h, :w]
    return out[..., 0] if channels == 1 else out


def photo(w, h, seed=0):
    """A photo-like RGB Pillow image: gradients over 8x8 blocks of random colour."""
    yy, xx = np.mgrid[0:h, 0:w]
    ramp = np.stack([xx * 255 // max(w - 1, 1), yy * 255 // max(h - 1, 1), (xx + yy) * 3 % 256], -1)
    return Image.fromarray(((ramp + noise(w, h, block=8, seed=seed)) // 2).astype(np.uint8))


def smooth(w, h):
    """A low-frequency RGB Pillow image (chroma varies slowly, so resampling barely matters)."""
    yy, xx = np.mgrid[0:h, 0:w] / 40.0
    rgb = np.stack([128 + 100 * np.sin(xx), 128 + 100 * np.cos(yy), 128 + 90 * np.sin(xx + yy)], -1)
    return Image.fromarray(rgb.round().astype(np.uint8))


def jfif(rgb):
    """Full-range BT.601 (JFIF) Y, Cb, Cr as floats, the matrix JPEG defines."""
    r, g, b = (rgb[..., i].astype(np.float64) for i in range(3))
    y = 0.299 * r + 0.587 * g + 0.114 * b
    cb = 128 - 0.168736 * r - 0.331264 * g + 0.5 * b
    cr = 128 + 0.5 * r - 0.418688 * g - 0.081312 * b
    return y, cb, cr


def mean2x2(plane):
    """2x2 block means (edge-replicated to even sizes): 4:2:0 chroma sited between samples."""
    p = np.pad(plane.astype(np.float64), ((0, plane.shape[0] % 2), (0, plane.shape[1] % 2)),
               mode="edge")
    return p.reshape(p.shape[0] // 2, 2, p.shape[1] // 2, 2).mean((1, 3))


def u32(ptr, n):
    return np.frombuffer(ctypes.string_at(ptr, 4 * n), np.uint32)


# ---- the bound surface ---------------------------------------------------------------------------


def pyacl_name(c_name):
    """acldvppJpegGetImageInfoV2 -> dvpp_jpeg_get_image_info_v2, aclvdecCreateChannel ->
    vdec_create_channel: pyACL's acl.media names (which spell EnType as one word, entype)."""
    return re.sub(r"(?<!^)(?=[A-Z])", "_", c_name[3:].replace("EnType", "Entype")).lower()


def test_every_function_of_acl_dvpp_h_that_libascendcl_exports_is_bound():
    with open(os.path.join(ROOT, "include", "acl", "ops", "acl_dvpp.h")) as f:
        declared = set(re.findall(r"\b(acl(?:dvpp|vdec|venc)\w+)\s*\(", f.read()))
    # The library the extension loaded. A function the header declares but the library does not
    # implement yet cannot be bound (the module would not load); once it is, it must be.
    path = next(line.split()[-1] for line in open("/proc/self/maps") if "libascendcl" in line)
    library = ctypes.CDLL(path)
    exported = {n for n in declared if hasattr(library, n)}
    assert len(exported) >= 106  # the image API and the stream descriptions
    bound = {n for n in dir(m) if n.startswith(("dvpp_", "vdec_", "venc_"))}
    assert {pyacl_name(n) for n in exported} - bound == set(), "exported but not bound"
    assert bound - {pyacl_name(n) for n in declared} == set(), "bound but not declared"


def test_the_dvpp_enums_are_module_constants_with_canns_values():
    assert (acl.PIXEL_FORMAT_YUV_400, acl.PIXEL_FORMAT_YUV_SEMIPLANAR_420,
            acl.PIXEL_FORMAT_YVU_SEMIPLANAR_420, acl.PIXEL_FORMAT_RGB_888,
            acl.PIXEL_FORMAT_BGRA_8888, acl.PIXEL_FORMAT_UNKNOWN) == (0, 1, 2, 12, 17, 10000)
    # Members without an explicit value in the header count on from the previous one.
    assert (acl.PIXEL_FORMAT_YVU_PLANAR_422, acl.PIXEL_FORMAT_RGB_BAYER_16BPP,
            acl.PIXEL_FORMAT_YVU_SEMIPLANAR_440) == (21, 54, 1001)
    assert (acl.ACL_JPEG_CSS_444, acl.ACL_JPEG_CSS_GRAY, acl.ACL_JPEG_CSS_UNKNOWN) == (0, 3, 1000)
    assert (acl.DVPP_CHNMODE_VPC, acl.DVPP_CHNMODE_JPEGD, acl.DVPP_CHNMODE_JPEGE) == (1, 2, 4)
    assert (acl.BORDER_CONSTANT, acl.BORDER_REPLICATE, acl.BORDER_REFLECT,
            acl.BORDER_REFLECT_101) == (0, 1, 2, 3)
    assert (acl.H265_MAIN_LEVEL, acl.H264_HIGH_LEVEL) == (0, 3)
    assert acl.ACL_ERROR_UNSUPPORTED_JPEG == UNSUPPORTED_JPEG


# ---- memory and descriptions ---------------------------------------------------------------------


def test_dvpp_malloc_gives_device_memory_that_only_dvpp_free_releases(dvpp):
    dev, ret = m.dvpp_malloc(1000)
    assert ret == 0 and dev != 0
    data = np.arange(1000, dtype=np.uint32).astype(np.uint8)
    assert acl.rt.memcpy(dev, 1000, data.ctypes.data, 1000, H2D) == 0
    assert np.array_equal(dvpp.download(dev, 1000), data)
    assert m.dvpp_free(dev) == 0
    assert m.dvpp_free(dev) == INVALID_PARAM  # twice
    assert m.dvpp_free(0) == INVALID_PARAM
    rt_mem, ret = acl.rt.malloc(64, 0)
    assert ret == 0
    assert m.dvpp_free(rt_mem) == INVALID_PARAM  # aclrtMalloc memory is aclrtFree's
    assert acl.rt.free(rt_mem) == 0


def test_pic_desc_fields_round_trip_and_dead_handles_are_refused(dvpp):
    d = m.dvpp_create_pic_desc()
    assert d != 0
    assert (m.dvpp_get_pic_desc_data(d), m.dvpp_get_pic_desc_size(d),
            m.dvpp_get_pic_desc_format(d), m.dvpp_get_pic_desc_width(d)) == (0, 0, 0, 0)
    assert m.dvpp_set_pic_desc_data(d, 0x1000) == 0
    assert m.dvpp_set_pic_desc_size(d, 4096) == 0
    assert m.dvpp_set_pic_desc_format(d, NV21) == 0
    assert m.dvpp_set_pic_desc_width(d, 33) == 0
    assert m.dvpp_set_pic_desc_height(d, 21) == 0
    assert m.dvpp_set_pic_desc_width_stride(d, 48) == 0
    assert m.dvpp_set_pic_desc_height_stride(d, 22) == 0
    assert m.dvpp_set_pic_desc_ret_code(d, 7) == 0
    assert (m.dvpp_get_pic_desc_data(d), m.dvpp_get_pic_desc_size(d),
            m.dvpp_get_pic_desc_format(d), m.dvpp_get_pic_desc_width(d),
            m.dvpp_get_pic_desc_height(d), m.dvpp_get_pic_desc_width_stride(d),
            m.dvpp_get_pic_desc_height_stride(d),
            m.dvpp_get_pic_desc_ret_code(d)) == (0x1000, 4096, NV21, 33, 21, 48, 22, 7)
    assert m.dvpp_destroy_pic_desc(d) == 0
    # Destroyed, NULL and never-created handles: setters refuse, getters answer 0.
    for bad in (d, 0, 0x1234, -1):
        assert m.dvpp_set_pic_desc_width(bad, 5) == INVALID_PARAM
        assert m.dvpp_destroy_pic_desc(bad) == INVALID_PARAM
        assert m.dvpp_get_pic_desc_width(bad) == 0
        assert m.dvpp_get_pic_desc_data(bad) == 0


def test_batch_pic_desc_owns_its_members(dvpp):
    b = m.dvpp_create_batch_pic_desc(3)
    assert b != 0
    members = [m.dvpp_get_pic_desc(b, i) for i in range(3)]
    assert all(members) and len(set(members)) == 3
    assert m.dvpp_get_pic_desc(b, 3) == 0
    assert m.dvpp_set_pic_desc_width(members[1], 640) == 0
    assert m.dvpp_get_pic_desc_width(members[1]) == 640
    assert m.dvpp_destroy_pic_desc(members[0]) == INVALID_PARAM  # the batch's
    assert m.dvpp_destroy_batch_pic_desc(b) == 0
    assert m.dvpp_get_pic_desc_width(members[1]) == 0
    assert m.dvpp_destroy_batch_pic_desc(b) == INVALID_PARAM
    assert m.dvpp_create_batch_pic_desc(0) == 0


def test_configs_round_trip(dvpp):
    roi = m.dvpp_create_roi_config(1, 10, 2, 20)
    assert roi != 0
    for setter in (m.dvpp_set_roi_config_left, m.dvpp_set_roi_config_right,
                   m.dvpp_set_roi_config_top, m.dvpp_set_roi_config_bottom):
        assert setter(roi, 4) == 0
        assert setter(0, 4) == INVALID_PARAM
    assert m.dvpp_set_roi_config(roi, 0, 1, 0, 1) == 0
    assert m.dvpp_destroy_roi_config(roi) == 0
    assert m.dvpp_destroy_roi_config(roi) == INVALID_PARAM

    rz = m.dvpp_create_resize_config()
    assert m.dvpp_get_resize_config_interpolation(rz) == 0
    assert m.dvpp_set_resize_config_interpolation(rz, 2) == 0
    assert m.dvpp_get_resize_config_interpolation(rz) == 2
    assert m.dvpp_set_resize_config_interpolation(rz, 3) == INVALID_PARAM
    assert m.dvpp_destroy_resize_config(rz) == 0

    je = m.dvpp_create_jpege_config()
    assert m.dvpp_set_jpege_config_level(je, 85) == 0
    assert m.dvpp_get_jpege_config_level(je) == 85
    assert m.dvpp_set_jpege_config_level(je, 101) == INVALID_PARAM
    assert m.dvpp_get_jpege_config_level(je) == 85
    assert m.dvpp_destroy_jpege_config(je) == 0

    bc = m.dvpp_create_border_config()
    assert m.dvpp_set_border_config_value(bc, 3, 12.5) == 0
    assert m.dvpp_get_border_config_value(bc, 3) == 12.5
    assert m.dvpp_set_border_config_value(bc, 4, 1.0) == INVALID_PARAM
    assert m.dvpp_set_border_config_value(bc, 0, 256) == INVALID_PARAM
    assert m.dvpp_get_border_config_value(bc, 4) == -1.0
    assert m.dvpp_set_border_config_border_type(bc, acl.BORDER_REFLECT) == 0
    assert m.dvpp_get_border_config_border_type(bc) == 2
    assert m.dvpp_set_border_config_border_type(bc, 4) == INVALID_PARAM
    for side, value in (("top", 1), ("bottom", 2), ("left", 3), ("right", 4)):
        assert getattr(m, f"dvpp_set_border_config_{side}")(bc, value) == 0
    assert [getattr(m, f"dvpp_get_border_config_{s}")(bc)
            for s in ("top", "bottom", "left", "right")] == [1, 2, 3, 4]
    assert m.dvpp_destroy_border_config(bc) == 0
    assert m.dvpp_get_border_config_top(bc) == 0

    lut = m.dvpp_create_lut_map()
    assert m.dvpp_get_lut_map_dims(lut) == 3
    for dim in range(3):
        ptr, n, ret = m.dvpp_get_lut_map_data(lut, dim)
        assert ret == 0 and n == 256
        assert ctypes.string_at(ptr, n) == bytes(range(256))  # identity when created
    assert m.dvpp_get_lut_map_data(lut, 3)[2] == INVALID_PARAM
    assert m.dvpp_destroy_lut_map(lut) == 0
    assert m.dvpp_get_lut_map_data(lut, 0) == (0, 0, INVALID_PARAM)

    hist = m.dvpp_create_hist()
    assert m.dvpp_get_hist_dims(hist) == 3
    ptr, n, ret = m.dvpp_get_hist_data(hist, 2)
    assert ret == 0 and n == 256 and not u32(ptr, n).any()
    assert m.dvpp_get_hist_ret_code(hist) == 0
    assert m.dvpp_clear_hist(hist) == 0
    assert m.dvpp_destroy_hist(hist) == 0
    assert m.dvpp_clear_hist(hist) == INVALID_PARAM


def test_stream_desc_fields_round_trip(dvpp):
    d = m.dvpp_create_stream_desc()
    assert d != 0
    assert (m.dvpp_get_stream_desc_data(d), m.dvpp_get_stream_desc_size(d),
            m.dvpp_get_stream_desc_eos(d)) == (0, 0, 0)
    assert m.dvpp_set_stream_desc_data(d, 0x2000) == 0
    assert m.dvpp_set_stream_desc_size(d, 1234) == 0
    assert m.dvpp_set_stream_desc_format(d, acl.H264_MAIN_LEVEL) == 0
    assert m.dvpp_set_stream_desc_timestamp(d, 1 << 40) == 0
    assert m.dvpp_set_stream_desc_ret_code(d, 9) == 0
    assert m.dvpp_set_stream_desc_eos(d, 1) == 0
    assert (m.dvpp_get_stream_desc_data(d), m.dvpp_get_stream_desc_size(d),
            m.dvpp_get_stream_desc_format(d), m.dvpp_get_stream_desc_timestamp(d),
            m.dvpp_get_stream_desc_ret_code(d),
            m.dvpp_get_stream_desc_eos(d)) == (0x2000, 1234, 2, 1 << 40, 9, 1)
    assert m.dvpp_destroy_stream_desc(d) == 0
    assert m.dvpp_destroy_stream_desc(d) == INVALID_PARAM
    assert m.dvpp_set_stream_desc_size(d, 1) == INVALID_PARAM
    assert m.dvpp_get_stream_desc_size(d) == 0


def test_channels(dvpp):
    ch = m.dvpp_create_channel_desc()
    assert m.dvpp_set_channel_desc_mode(ch, acl.DVPP_CHNMODE_VPC | acl.DVPP_CHNMODE_JPEGE) == 0
    assert m.dvpp_set_channel_desc_mode(ch, 8) == INVALID_PARAM
    assert m.dvpp_destroy_channel(ch) == INVALID_PARAM  # no channel yet
    assert m.dvpp_create_channel(ch) == 0
    assert m.dvpp_create_channel(ch) == INVALID_PARAM
    other = m.dvpp_create_channel_desc()
    assert m.dvpp_create_channel(other) == 0
    assert m.dvpp_get_channel_desc_channel_id(ch) != m.dvpp_get_channel_desc_channel_id(other)
    # A VPC + JPEGE channel does not decode JPEG.
    data = encoded(photo(32, 16))
    src = dvpp.upload(data)
    out = dvpp.picture(NV12, 32, 16)
    assert m.dvpp_jpeg_decode_async(ch, src, len(data), out.desc, dvpp.stream) == INVALID_PARAM
    for c in (ch, other):
        assert m.dvpp_destroy_channel(c) == 0
        assert m.dvpp_destroy_channel_desc(c) == 0
    assert m.dvpp_get_channel_desc_channel_id(ch) == 0
    assert m.dvpp_jpeg_decode_async(ch, src, len(data), out.desc, dvpp.stream) == INVALID_PARAM


# ---- JPEG and PNG ------------------------------------------------------------------------------

# Pillow's `subsampling` option: 0 = 4:4:4, 1 = 4:2:2, 2 = 4:2:0.
JPEGS = [(w, h, ss) for (w, h) in ((333, 250), (64, 48), (17, 9), (1, 1)) for ss in (0, 1, 2)]


def jpeg_css(data):
    """acldvppJpegFormat from the sampling factors Pillow reads from the file."""
    layers = Image.open(io.BytesIO(data)).layer
    if len(layers) == 1:
        return CSS_GRAY
    return {(1, 1): CSS_444, (2, 1): CSS_422, (2, 2): CSS_420}[tuple(layers[0][1:3])]


@pytest.mark.parametrize("w,h,ss", JPEGS)
def test_jpeg_image_info(dvpp, w, h, ss):
    data = encoded(photo(w, h), quality=90, subsampling=ss)
    ref = Image.open(io.BytesIO(data))
    ptr = acl.util.bytes_to_ptr(data)
    assert m.dvpp_jpeg_get_image_info(ptr, len(data)) == (ref.width, ref.height, 3, 0)
    assert m.dvpp_jpeg_get_image_info_v2(ptr, len(data)) == (ref.width, ref.height, 3,
                                                              jpeg_css(data), 0)


def test_jpeg_image_info_of_grey_and_cmyk(dvpp):
    grey = encoded(photo(40, 30).convert("L"))
    ptr = acl.util.bytes_to_ptr(grey)
    assert jpeg_css(grey) == CSS_GRAY
    assert m.dvpp_jpeg_get_image_info_v2(ptr, len(grey)) == (40, 30, 1, CSS_GRAY, 0)
    cmyk = encoded(photo(40, 30).convert("CMYK"))
    assert Image.open(io.BytesIO(cmyk)).mode == "CMYK"
    ptr = acl.util.bytes_to_ptr(cmyk)
    w, h, components, ret = m.dvpp_jpeg_get_image_info(ptr, len(cmyk))
    assert (w, h, components, ret) == (40, 30, 4, 0)
    # DVPP decodes YUV JPEGs only.
    assert m.dvpp_jpeg_predict_dec_size(ptr, len(cmyk), NV12)[1] == UNSUPPORTED_JPEG


@pytest.mark.parametrize("w,h", [(333, 250), (64, 48), (1000, 17)])
def test_jpeg_predict_dec_size_is_dvpps_layout(dvpp, w, h):
    # CANN's JPEGD rule: width stride = row bytes aligned to 128, height stride = height aligned
    # to 16; YUV420SP takes 3/2 bytes a pixel, RGB888 3.
    data = encoded(photo(w, h))
    ptr = acl.util.bytes_to_ptr(data)
    assert m.dvpp_jpeg_predict_dec_size(ptr, len(data), NV12) == (
        align(w, 128) * align(h, 16) * 3 // 2, 0)
    assert m.dvpp_jpeg_predict_dec_size(ptr, len(data), RGB_888) == (
        align(3 * w, 128) * align(h, 16), 0)


@pytest.mark.parametrize("w,h,ss", JPEGS)
def test_jpeg_decode_to_yuv420sp_gives_the_jpegs_luma_exactly(dvpp, w, h, ss):
    data = encoded(photo(w, h), quality=90, subsampling=ss)
    out = dvpp.decode(data, NV12)
    assert (out.format, out.w, out.h, out.ws, out.hs) == (NV12, w, h, align(w, 128), align(h, 16))
    # Pillow decodes to YCbCr without a colour conversion (draft mode): its Y is libjpeg's IDCT
    # output, which the decoder must copy unchanged.
    ref = Image.open(io.BytesIO(data))
    ref.draft("YCbCr", ref.size)
    assert ref.mode == "YCbCr"
    assert np.array_equal(out.pixels(), np.asarray(ref)[..., 0])


@pytest.mark.parametrize("ss", [0, 1, 2])
def test_jpeg_decode_to_yuv420sp_chroma(dvpp, ss):
    image = smooth(96, 64)
    data = encoded(image, quality=95, subsampling=ss)
    out = dvpp.decode(data, NV21)
    ref = Image.open(io.BytesIO(data))
    ref.draft("YCbCr", ref.size)
    ycc = np.asarray(ref).astype(np.float64)
    chroma = out.chroma().astype(np.float64)
    # NV21: V then U. Pillow's chroma is the JPEG's at full size (4:2:0 and 4:2:2 upsampled by
    # libjpeg's triangle filter); its 2x2 means are the 4:2:0 samples up to that filter's
    # smoothing and the decoder's rounding. Measured on this smooth picture: 0.5 for 4:4:4 and
    # 4:2:0, 1.0 for 4:2:2; a misplaced or unscaled chroma plane is off by tens.
    assert np.abs(chroma[:, 1::2] - mean2x2(ycc[..., 1])).max() <= 1.5
    assert np.abs(chroma[:, 0::2] - mean2x2(ycc[..., 2])).max() <= 1.5


def test_jpeg_decode_of_grey_has_neutral_chroma(dvpp):
    data = encoded(photo(333, 250).convert("L"))
    out = dvpp.decode(data, NV12)
    assert np.array_equal(out.pixels(), np.asarray(Image.open(io.BytesIO(data))))
    assert (out.chroma() == 128).all()


@pytest.mark.parametrize("w,h,ss", [(64, 48, 0), (64, 48, 1), (64, 48, 2), (334, 250, 1),
                                    (334, 250, 2), (333, 250, 0)])
def test_jpeg_decode_to_rgb888_matches_pillow(dvpp, w, h, ss):
    data = encoded(photo(w, h), quality=90, subsampling=ss)
    out = dvpp.decode(data, RGB_888)
    assert (out.w, out.h, out.ws, out.hs) == (w, h, align(3 * w, 128), align(h, 16))
    ref = np.asarray(Image.open(io.BytesIO(data)).convert("RGB")).astype(int)
    diff = np.abs(out.pixels().astype(int) - ref)
    # Both decode the same coefficients; they differ in the YCbCr -> RGB arithmetic (libyuv's
    # fixed-point JPEG matrix against libjpeg's) and in how subsampled chroma is upsampled
    # (bilinear against libjpeg's "fancy" triangle filter). Measured on these pictures: at most
    # 1 for 4:4:4, 3 for 4:2:2 and 4:2:0; mean below 0.3.
    assert diff.max() <= (1 if ss == 0 else 3)
    assert diff.mean() < 0.4


@pytest.mark.parametrize("w,h,ss", [(333, 250, 1), (333, 250, 2), (333, 251, 0)])
def test_jpeg_decode_keeps_chroma_registered_on_odd_sizes(dvpp, w, h, ss):
    data = encoded(photo(w, h), quality=90, subsampling=ss)
    if ss == 0:  # 4:4:4 into 4:2:0: each chroma sample is its 2x2 block's
        out = dvpp.decode(data, NV12)
        ref = Image.open(io.BytesIO(data))
        ref.draft("YCbCr", ref.size)
        diff = np.abs(out.chroma()[:, 0::2] - mean2x2(np.asarray(ref)[..., 1]))
        assert diff.max() <= 1
    else:  # subsampled chroma up to RGB: the last column too within the even-size tolerance
        out = dvpp.decode(data, RGB_888)
        ref = np.asarray(Image.open(io.BytesIO(data)).convert("RGB")).astype(int)
        assert np.abs(out.pixels().astype(int) - ref).max() <= 3


@pytest.mark.parametrize("ss,fmt", [(0, YVU444SP), (1, YVU422SP), (2, NV12)])
def test_jpeg_decode_as_unknown_keeps_the_jpegs_subsampling(dvpp, ss, fmt):
    # CANN: PIXEL_FORMAT_UNKNOWN decodes to the source's own sampling (4:4:4 and 4:2:2 as V-first
    # semi-planar, 4:2:0 as NV12); the size prediction follows it.
    data = encoded(photo(64, 32), subsampling=ss)
    ptr = acl.util.bytes_to_ptr(data)
    per_pixel = {YVU444SP: 3, YVU422SP: 2, NV12: 1.5}[fmt]
    assert m.dvpp_jpeg_predict_dec_size(ptr, len(data), UNKNOWN) == (
        int(128 * 32 * per_pixel), 0)
    out = dvpp.decode(data, UNKNOWN)
    assert out.format == fmt


@pytest.mark.parametrize("mode,components,fmt", [("RGB", 3, RGB_888), ("RGBA", 4, RGBA_8888),
                                                 ("L", 1, RGB_888), ("LA", 2, RGBA_8888)])
def test_png_info_and_decode_match_pillow_exactly(dvpp, mode, components, fmt):
    w, h = 45, 23
    image = Image.fromarray(noise(w, h, channels=4, seed=5), "RGBA").convert(mode)
    data = encoded(image, "PNG")
    ptr = acl.util.bytes_to_ptr(data)
    assert m.dvpp_png_get_image_info(ptr, len(data)) == (w, h, components, 0)
    n = PIXEL_BYTES[fmt]
    assert m.dvpp_png_predict_dec_size(ptr, len(data), UNKNOWN) == (
        align(n * w, 128) * align(h, 16), 0)
    assert m.dvpp_png_predict_dec_size(ptr, len(data), NV12)[1] == INVALID_PARAM  # RGB only
    out = dvpp.decode(data, UNKNOWN, png=True)  # the image's own: RGBA with alpha, else RGB
    assert (out.format, out.w, out.h) == (fmt, w, h)
    ref = np.asarray(Image.open(io.BytesIO(data)).convert("RGBA" if n == 4 else "RGB"))
    assert np.array_equal(out.pixels(), ref)


def test_png_palette_decodes_to_its_colours(dvpp):
    image = Image.fromarray(noise(30, 20, seed=6)).convert("P", palette=Image.ADAPTIVE, colors=16)
    data = encoded(image, "PNG")
    assert m.dvpp_png_get_image_info(acl.util.bytes_to_ptr(data), len(data))[-1] == 0
    out = dvpp.decode(data, UNKNOWN, png=True)
    assert out.format == RGB_888
    assert np.array_equal(out.pixels(), np.asarray(image.convert("RGB")))


def test_png_16_bit_decodes_to_the_samples_high_bytes(dvpp):
    rgb16 = np.random.RandomState(7).randint(0, 65536, (20, 30, 3)).astype(np.uint16)
    ok, data = cv2.imencode(".png", rgb16[..., ::-1])  # OpenCV writes BGR
    assert ok
    data = data.tobytes()
    ref = Image.open(io.BytesIO(data))
    assert ref.mode == "RGB"  # Pillow keeps the high byte of each sample
    out = dvpp.decode(data, RGB_888, png=True)
    assert np.array_equal(out.pixels(), np.asarray(ref))


def test_png_decode_to_a_yuv_format_is_refused_when_called(dvpp):
    data = encoded(Image.fromarray(noise(30, 20, seed=8)), "PNG")
    src = dvpp.upload(data)
    out = dvpp.picture(NV12, 30, 20)
    stream, ret = acl.rt.create_stream()
    assert ret == 0
    try:
        assert m.dvpp_png_decode_async(dvpp.channel, src, len(data), out.desc,
                                       stream) == INVALID_PARAM
    finally:
        acl.rt.synchronize_stream(stream)
        assert acl.rt.destroy_stream(stream) == 0


@pytest.mark.parametrize("fmt,level", [(RGB_888, 100), (RGB_888, 0), (NV12, 100), (NV12, 75)])
def test_jpeg_encode_round_trips_through_pillow(dvpp, fmt, level):
    w, h = 96, 64
    image = smooth(w, h)
    rgb = np.asarray(image)
    if fmt == RGB_888:
        pic = dvpp.picture(RGB_888, w, h, rgb)
    else:  # the JFIF planes of the picture, chroma averaged over 2x2
        y, cb, cr = jfif(rgb)
        chroma = np.stack([mean2x2(cb), mean2x2(cr)], -1).reshape(h // 2, w)
        pic = dvpp.picture(NV12, w, h, y.round(), chroma.round())
    config = m.dvpp_create_jpege_config()
    assert m.dvpp_set_jpege_config_level(config, level) == 0
    cap, ret = m.dvpp_jpeg_predict_enc_size(pic.desc, config)
    assert ret == 0 and cap > 0
    out = dvpp.malloc(cap)
    # As pyACL documents it: the size travels as the address of a uint32 the task overwrites.
    size = np.array([cap], np.uint32)
    dvpp.run(m.dvpp_jpeg_encode_async(dvpp.channel, pic.desc, out, size.ctypes.data, config,
                                      dvpp.stream))
    assert 0 < size[0] <= cap
    data = dvpp.download(out, int(size[0])).tobytes()
    assert data[:2] == b"\xff\xd8" and data[-2:] == b"\xff\xd9"
    decoded = Image.open(io.BytesIO(data))
    assert (decoded.size, decoded.mode) == ((w, h), "RGB")
    assert jpeg_css(data) == (CSS_444 if fmt == RGB_888 else CSS_420)
    diff = np.abs(np.asarray(decoded).astype(int) - rgb)
    # Level 0 encodes as 100. Measured mean error: 0.41 at 100 from RGB (4:4:4), 0.47 from
    # YUV420SP, 1.06 at 75; a wrong matrix, plane order or subsampling is off by far more.
    assert diff.mean() < (2.5 if level == 75 else 1.5)
    assert m.dvpp_destroy_jpege_config(config) == 0


# ---- VPC ---------------------------------------------------------------------------------------


def resize_config(interpolation):
    rz = m.dvpp_create_resize_config()
    assert m.dvpp_set_resize_config_interpolation(rz, interpolation) == 0
    return rz


def resize(dvpp, image, w, h, interpolation):
    src = dvpp.picture(RGB_888, image.shape[1], image.shape[0], image)
    dst = dvpp.picture(RGB_888, w, h)
    rz = resize_config(interpolation)
    dvpp.run(m.dvpp_vpc_resize_async(dvpp.channel, src.desc, dst.desc, rz, dvpp.stream))
    assert m.dvpp_destroy_resize_config(rz) == 0
    return dst.pixels().astype(int)


@pytest.mark.parametrize("w,h", [(25, 18), (12, 9), (40, 30), (33, 20)])
def test_resize_bilinear_down_matches_opencv(dvpp, w, h):
    image = noise(50, 37, seed=1)
    for interpolation in (0, 1):
        got = resize(dvpp, image, w, h, interpolation)
        ref = cv2.resize(image, (w, h), interpolation=cv2.INTER_LINEAR).astype(int)
        # The same sample positions (pixel centres) and 11-bit weights as OpenCV: only the
        # rounding of the weights differs (measured: at most 1 apart, 0.14 on average).
        assert np.abs(got - ref).max() <= 1


@pytest.mark.parametrize("w,h", [(100, 74), (64, 48)])
def test_resize_bilinear_up_matches_opencv(dvpp, w, h):
    image = noise(50, 37, seed=1)
    got = resize(dvpp, image, w, h, 0)
    ref = cv2.resize(image, (w, h), interpolation=cv2.INTER_LINEAR).astype(int)
    # Upscaling keeps the centres aligned too (libyuv's own bilinear aligns corners there):
    # measured at most 1 apart, 0.1 on average.
    assert np.abs(got - ref).max() <= 1


@pytest.mark.parametrize("k", [2, 3, 4])
def test_resize_nearest_integer_upscale_repeats_pixels(dvpp, k):
    image = noise(50, 37, seed=2)
    got = resize(dvpp, image, 50 * k, 37 * k, 2)
    assert np.array_equal(got, np.repeat(np.repeat(image, k, 0), k, 1))


@pytest.mark.parametrize("w,h", [(25, 18), (12, 9), (71, 50)])
def test_resize_nearest_matches_opencv_nearest_exact(dvpp, w, h):
    image = noise(50, 37, seed=3)
    got = resize(dvpp, image, w, h, 2)
    assert np.array_equal(got, cv2.resize(image, (w, h), interpolation=cv2.INTER_NEAREST_EXACT))


def test_crop_copies_the_region_exactly(dvpp):
    image = noise(50, 37, seed=4)
    src = dvpp.picture(RGB_888, 50, 37, image)
    dst = dvpp.picture(RGB_888, 20, 19)
    roi = m.dvpp_create_roi_config(5, 24, 7, 25)  # right and bottom inclusive
    dvpp.run(m.dvpp_vpc_crop_async(dvpp.channel, src.desc, dst.desc, roi, dvpp.stream))
    assert np.array_equal(dst.pixels(), image[7:26, 5:25])
    # YUV420SP on the chroma grid: luma and chroma are copied as they are.
    y, uv = noise(64, 48, channels=1, seed=5), noise(64, 24, channels=1, seed=6)
    src = dvpp.picture(NV12, 64, 48, y, uv)
    dst = dvpp.picture(NV12, 20, 16)
    assert m.dvpp_set_roi_config(roi, 10, 29, 4, 19) == 0
    dvpp.run(m.dvpp_vpc_crop_async(dvpp.channel, src.desc, dst.desc, roi, dvpp.stream))
    assert np.array_equal(dst.pixels(), y[4:20, 10:30])
    assert np.array_equal(dst.chroma(), uv[2:10, 10:30])
    # An odd left edge splits chroma pairs: refused when called.
    assert m.dvpp_set_roi_config(roi, 11, 30, 4, 19) == 0
    assert m.dvpp_vpc_crop_async(dvpp.channel, src.desc, dst.desc, roi,
                                 dvpp.stream) == INVALID_PARAM
    assert m.dvpp_destroy_roi_config(roi) == 0


def test_crop_and_paste_leaves_the_rest_of_the_output_untouched(dvpp):
    image = noise(50, 37, seed=7)
    background = noise(64, 40, seed=8)
    src = dvpp.picture(RGB_888, 50, 37, image)
    dst = dvpp.picture(RGB_888, 64, 40, background)
    crop = m.dvpp_create_roi_config(3, 22, 5, 14)  # 20 x 10
    paste = m.dvpp_create_roi_config(16, 35, 20, 29)
    dvpp.run(m.dvpp_vpc_crop_and_paste_async(dvpp.channel, src.desc, dst.desc, crop, paste,
                                             dvpp.stream))
    expected = background.copy()
    expected[20:30, 16:36] = image[5:15, 3:23]
    assert np.array_equal(dst.pixels(), expected)
    # Crop, resize (nearest, x2) and paste.
    assert m.dvpp_set_roi_config(paste, 16, 55, 10, 29) == 0
    dst = dvpp.picture(RGB_888, 64, 40, background)
    rz = resize_config(2)
    dvpp.run(m.dvpp_vpc_crop_resize_paste_async(dvpp.channel, src.desc, dst.desc, crop, paste, rz,
                                                dvpp.stream))
    expected = background.copy()
    expected[10:30, 16:56] = np.repeat(np.repeat(image[5:15, 3:23], 2, 0), 2, 1)
    assert np.array_equal(dst.pixels(), expected)
    # Crop and resize into the whole output.
    dst = dvpp.picture(RGB_888, 60, 30)
    dvpp.run(m.dvpp_vpc_crop_resize_async(dvpp.channel, src.desc, dst.desc, crop, rz,
                                          dvpp.stream))
    assert np.array_equal(dst.pixels(), np.repeat(np.repeat(image[5:15, 3:23], 3, 0), 3, 1))
    for roi in (crop, paste):
        assert m.dvpp_destroy_roi_config(roi) == 0
    assert m.dvpp_destroy_resize_config(rz) == 0


def batch(dvpp, pictures):
    """An acldvppBatchPicDesc whose members are `pictures` ((fmt, w, h, pixels) each)."""
    b = m.dvpp_create_batch_pic_desc(len(pictures))
    out = [dvpp.picture(fmt, w, h, px, desc=m.dvpp_get_pic_desc(b, i))
           for i, (fmt, w, h, px) in enumerate(pictures)]
    return b, out


def test_batch_crop_and_its_variants(dvpp):
    a, b = noise(50, 37, seed=9), noise(40, 30, seed=10)
    src, _ = batch(dvpp, [(RGB_888, 50, 37, a), (RGB_888, 40, 30, b)])
    regions = [(0, 9, 0, 9), (20, 39, 10, 29), (5, 14, 3, 12)]  # two of a, one of b
    crops = [m.dvpp_create_roi_config(*r) for r in regions]
    expected = [a[0:10, 0:10], a[10:30, 20:40], b[3:13, 5:15]]

    dst, outs = batch(dvpp, [(RGB_888, e.shape[1], e.shape[0], None) for e in expected])
    ret = m.dvpp_vpc_batch_crop_async(dvpp.channel, src, [2, 1], dst, crops, dvpp.stream)
    assert ret == (dst, 0)
    dvpp.run(0)
    for out, e in zip(outs, expected):
        assert np.array_equal(out.pixels(), e)

    rz = resize_config(2)  # nearest: twice each side
    dst, outs = batch(dvpp, [(RGB_888, 2 * e.shape[1], 2 * e.shape[0], None) for e in expected])
    dvpp.run(m.dvpp_vpc_batch_crop_resize_async(dvpp.channel, src, [2, 1], dst, crops, rz,
                                                dvpp.stream))
    for out, e in zip(outs, expected):
        assert np.array_equal(out.pixels(), np.repeat(np.repeat(e, 2, 0), 2, 1))

    background = noise(48, 48, seed=11)
    pastes = [m.dvpp_create_roi_config(16, 16 + e.shape[1] - 1, 8, 8 + e.shape[0] - 1)
              for e in expected]
    dst, outs = batch(dvpp, [(RGB_888, 48, 48, background)] * 3)
    ret = m.dvpp_vpc_batch_crop_and_paste_async(dvpp.channel, src, [2, 1], dst, crops, pastes,
                                                dvpp.stream)
    assert ret == (dst, 0)
    dvpp.run(0)
    for out, e in zip(outs, expected):
        want = background.copy()
        want[8:8 + e.shape[0], 16:16 + e.shape[1]] = e
        assert np.array_equal(out.pixels(), want)

    dst, outs = batch(dvpp, [(RGB_888, 48, 48, background)] * 3)
    big = [m.dvpp_create_roi_config(0, 2 * e.shape[1] - 1, 0, 2 * e.shape[0] - 1)
           for e in expected]
    dvpp.run(m.dvpp_vpc_batch_crop_resize_paste_async(dvpp.channel, src, [2, 1], dst, crops, big,
                                                      rz, dvpp.stream))
    for out, e in zip(outs, expected):
        want = background.copy()
        want[:2 * e.shape[0], :2 * e.shape[1]] = np.repeat(np.repeat(e, 2, 0), 2, 1)
        assert np.array_equal(out.pixels(), want)

    # Resized into the output less its borders, then bordered (constant, per crop).
    borders = []
    for i in range(3):
        bc = m.dvpp_create_border_config()
        for side, v in zip(("top", "bottom", "left", "right"), (1 + i, 2, 3, 4 - i)):
            assert getattr(m, f"dvpp_set_border_config_{side}")(bc, v) == 0
        for c, v in enumerate((10 * i, 50, 200)):
            assert m.dvpp_set_border_config_value(bc, c, v) == 0
        borders.append(bc)
    sizes = [(2 * e.shape[1] + 3 + (4 - i), 2 * e.shape[0] + (1 + i) + 2)
             for i, e in enumerate(expected)]
    dst, outs = batch(dvpp, [(RGB_888, w, h, None) for (w, h) in sizes])
    dvpp.run(m.dvpp_vpc_batch_crop_resize_make_border_async(dvpp.channel, src, [2, 1], dst, crops,
                                                            borders, rz, dvpp.stream))
    for i, (out, e) in enumerate(zip(outs, expected)):
        want = cv2.copyMakeBorder(np.repeat(np.repeat(e, 2, 0), 2, 1), 1 + i, 2, 3, 4 - i,
                                  cv2.BORDER_CONSTANT, value=(10 * i, 50, 200))
        assert np.array_equal(out.pixels(), want)

    # The lists must hold a region per crop roi_nums asks for: the C library reads that many.
    assert m.dvpp_vpc_batch_crop_async(dvpp.channel, src, [2, 2], dst, crops,
                                       dvpp.stream) == (dst, INVALID_PARAM)
    assert "crop_area_list has 3 entries" in acl.get_recent_err_msg()
    assert m.dvpp_vpc_batch_crop_resize_make_border_async(
        dvpp.channel, src, [2, 1], dst, crops, borders[:2], rz, dvpp.stream) == INVALID_PARAM
    assert m.dvpp_vpc_batch_crop_async(dvpp.channel, src, [], dst, crops,
                                       dvpp.stream) == (dst, INVALID_PARAM)
    for roi in crops + pastes + big:
        assert m.dvpp_destroy_roi_config(roi) == 0
    for bc in borders:
        assert m.dvpp_destroy_border_config(bc) == 0
    assert m.dvpp_destroy_resize_config(rz) == 0


@pytest.mark.parametrize("fmt", [NV12, NV21])
def test_convert_color_yuv420sp_to_rgb888_is_the_jfif_matrix(dvpp, fmt):
    w, h, block = 256, 128, 16
    rng = np.random.RandomState(12)
    y = rng.randint(0, 256, (h, w)).astype(np.uint8)
    # Chroma constant over 16x16 blocks, so how it is upsampled does not matter away from the
    # block edges; 128 blocks cover the (U, V) plane.
    cu, cv = rng.randint(0, 256, (2, h // block, w // block))
    first, second = (cu, cv) if fmt == NV12 else (cv, cu)
    half_block = np.ones((block // 2, block // 2), int)
    chroma = np.stack([np.kron(first, half_block), np.kron(second, half_block)], -1)
    src = dvpp.picture(fmt, w, h, y, chroma.reshape(h // 2, w))
    dst = dvpp.picture(RGB_888, w, h)
    dvpp.run(m.dvpp_vpc_convert_color_async(dvpp.channel, src.desc, dst.desc, dvpp.stream))
    u = np.kron(cu, np.ones((block, block))) - 128
    v = np.kron(cv, np.ones((block, block))) - 128
    luma = y.astype(np.float64)
    ref = np.stack([luma + 1.402 * v, luma - 0.344136 * u - 0.714136 * v, luma + 1.772 * u], -1)
    inner = np.zeros((h, w), bool)
    for by in range(h // block):
        for bx in range(w // block):
            inner[by * block + 2:(by + 1) * block - 2, bx * block + 2:(bx + 1) * block - 2] = True
    diff = np.abs(dst.pixels().astype(int) - ref.clip(0, 255).round())[inner]
    # libyuv's fixed-point coefficients: within 1 of the rounded exact value (measured).
    assert diff.max() <= 1


def test_convert_color_rgb888_to_yuv420sp_is_the_jfif_matrix(dvpp):
    w, h = 96, 64
    rgb = np.asarray(smooth(w, h))
    src = dvpp.picture(RGB_888, w, h, rgb)
    dst = dvpp.picture(NV12, w, h)
    dvpp.run(m.dvpp_vpc_convert_color_async(dvpp.channel, src.desc, dst.desc, dvpp.stream))
    y, cb, cr = jfif(rgb)
    # 16.16 fixed point rounded to nearest: luma within 1 of the exact value rounded (measured
    # 1); chroma is rounded per pixel, then averaged over 2x2 and rounded again (measured 0.98
    # from the exact mean).
    assert np.abs(dst.pixels() - y.round()).max() <= 1
    chroma = dst.chroma().astype(np.float64)
    assert np.abs(chroma[:, 0::2] - mean2x2(cb)).max() <= 1.5
    assert np.abs(chroma[:, 1::2] - mean2x2(cr)).max() <= 1.5
    # Channel order: BGR_888 is RGB with the bytes swapped.
    dst = dvpp.picture(BGR_888, w, h)
    dvpp.run(m.dvpp_vpc_convert_color_async(dvpp.channel, src.desc, dst.desc, dvpp.stream))
    assert np.array_equal(dst.pixels(), rgb[..., ::-1])


@pytest.mark.parametrize("w,h,fmt", [(64, 48, YUV_400), (33, 21, YUV_400), (10, 6, YUV_400),
                                     (64, 48, NV12)])
def test_pyr_down_matches_opencv(dvpp, w, h, fmt):
    y = noise(w, h, channels=1, seed=13)
    src = dvpp.picture(fmt, w, h, y, noise(2 * half(w), half(h), channels=1, seed=14)
                       if fmt == NV12 else None)
    dst = dvpp.picture(YUV_400, half(w), half(h))
    dvpp.run(m.dvpp_vpc_pyr_down_async(dvpp.channel, src.desc, dst.desc, 0, dvpp.stream))
    assert np.array_equal(dst.pixels(), cv2.pyrDown(y))
    assert m.dvpp_vpc_pyr_down_async(dvpp.channel, src.desc, dst.desc, 8,
                                     dvpp.stream) == INVALID_PARAM  # reserve must be NULL


@pytest.mark.parametrize("border,cv_border", [("BORDER_CONSTANT", cv2.BORDER_CONSTANT),
                                              ("BORDER_REPLICATE", cv2.BORDER_REPLICATE),
                                              ("BORDER_REFLECT", cv2.BORDER_REFLECT),
                                              ("BORDER_REFLECT_101", cv2.BORDER_REFLECT_101)])
def test_make_border_matches_opencv(dvpp, border, cv_border):
    image = noise(30, 21, seed=15)
    top, bottom, left, right = 3, 5, 7, 2
    bc = m.dvpp_create_border_config()
    assert m.dvpp_set_border_config_border_type(bc, getattr(acl, border)) == 0
    for side, v in zip(("top", "bottom", "left", "right"), (top, bottom, left, right)):
        assert getattr(m, f"dvpp_set_border_config_{side}")(bc, v) == 0
    for c, v in enumerate((10, 20, 30, 40)):  # R, G, B (A) for RGB pictures
        assert m.dvpp_set_border_config_value(bc, c, v) == 0
    src = dvpp.picture(RGB_888, 30, 21, image)
    dst = dvpp.picture(RGB_888, 30 + left + right, 21 + top + bottom)
    dvpp.run(m.dvpp_vpc_make_border_async(dvpp.channel, src.desc, dst.desc, bc, dvpp.stream))
    ref = cv2.copyMakeBorder(image, top, bottom, left, right, cv_border, value=(10, 20, 30))
    assert np.array_equal(dst.pixels(), ref)
    assert m.dvpp_destroy_border_config(bc) == 0


def test_calc_hist_counts_each_component(dvpp):
    hist = m.dvpp_create_hist()
    image = noise(50, 37, seed=16)
    src = dvpp.picture(RGB_888, 50, 37, image)
    dvpp.run(m.dvpp_vpc_calc_hist_async(dvpp.channel, src.desc, hist, 0, dvpp.stream))
    assert m.dvpp_get_hist_dims(hist) == 3 and m.dvpp_get_hist_ret_code(hist) == 0
    for c in range(3):
        ptr, n, ret = m.dvpp_get_hist_data(hist, c)
        assert (n, ret) == (256, 0)
        assert np.array_equal(u32(ptr, n), np.bincount(image[..., c].ravel(), minlength=256))
    # YUV420SP: luma per pixel, U and V per chroma sample.
    y, uv = noise(64, 48, channels=1, seed=17), noise(64, 24, channels=1, seed=18)
    src = dvpp.picture(NV12, 64, 48, y, uv)
    dvpp.run(m.dvpp_vpc_calc_hist_async(dvpp.channel, src.desc, hist, 0, dvpp.stream))
    for c, values in enumerate((y, uv[:, 0::2], uv[:, 1::2])):
        ptr, n, _ = m.dvpp_get_hist_data(hist, c)
        assert np.array_equal(u32(ptr, n), np.bincount(values.ravel(), minlength=256))
    # YUV 4:0:0 has one component.
    src = dvpp.picture(YUV_400, 64, 48, y)
    dvpp.run(m.dvpp_vpc_calc_hist_async(dvpp.channel, src.desc, hist, 0, dvpp.stream))
    assert m.dvpp_get_hist_dims(hist) == 1
    assert m.dvpp_get_hist_data(hist, 1)[2] == INVALID_PARAM
    assert m.dvpp_clear_hist(hist) == 0
    ptr, n, _ = m.dvpp_get_hist_data(hist, 0)
    assert not u32(ptr, n).any()
    assert m.dvpp_destroy_hist(hist) == 0


def test_equalize_hist_maps_each_component_through_its_table(dvpp):
    lut = m.dvpp_create_lut_map()
    v = np.arange(256)
    tables = [255 - v, (v * 7) % 256, v // 2]
    for dim, table in enumerate(tables):
        ptr, n, ret = m.dvpp_get_lut_map_data(lut, dim)
        assert (n, ret) == (256, 0)
        ctypes.memmove(ptr, table.astype(np.uint8).tobytes(), n)  # the tables are the caller's
    image = noise(50, 37, seed=19)
    src = dvpp.picture(RGB_888, 50, 37, image)
    dst = dvpp.picture(RGB_888, 50, 37)
    dvpp.run(m.dvpp_vpc_equalize_hist_async(dvpp.channel, src.desc, dst.desc, lut, dvpp.stream))
    expected = np.stack([tables[c][image[..., c]] for c in range(3)], -1)
    assert np.array_equal(dst.pixels(), expected)
    assert m.dvpp_destroy_lut_map(lut) == 0
    assert m.dvpp_vpc_equalize_hist_async(dvpp.channel, src.desc, dst.desc, lut,
                                          dvpp.stream) == INVALID_PARAM


# ---- errors ------------------------------------------------------------------------------------


def test_garbage_jpeg_is_refused_with_invalid_param(dvpp):
    garbage = bytes(range(256)) * 4
    ptr = acl.util.bytes_to_ptr(garbage)
    assert m.dvpp_jpeg_get_image_info(ptr, len(garbage)) == (0, 0, 0, INVALID_PARAM)
    assert m.dvpp_jpeg_get_image_info_v2(ptr, len(garbage))[-1] == INVALID_PARAM
    assert m.dvpp_jpeg_predict_dec_size(ptr, len(garbage), NV12) == (0, INVALID_PARAM)
    assert m.dvpp_png_get_image_info(ptr, len(garbage)) == (0, 0, 0, INVALID_PARAM)
    assert m.dvpp_png_predict_dec_size(ptr, len(garbage), RGB_888) == (0, INVALID_PARAM)
    message = acl.get_recent_err_msg()
    assert message and "PNG" in message
    data = encoded(photo(64, 48))
    ptr = acl.util.bytes_to_ptr(data)
    assert m.dvpp_jpeg_get_image_info(ptr, 0)[-1] == INVALID_PARAM
    assert m.dvpp_jpeg_get_image_info(ptr, len(data) // 2)[-1] == INVALID_PARAM  # no SOS


@pytest.mark.parametrize("n", [2, 20, 100])
def test_jpeg_cut_before_its_frame_header_is_invalid_param(dvpp, n):
    data = encoded(photo(64, 48))
    assert m.dvpp_jpeg_get_image_info(acl.util.bytes_to_ptr(data), n)[-1] == INVALID_PARAM


def test_decoding_garbage_fails_on_the_stream_and_marks_the_output(dvpp):
    stream, ret = acl.rt.create_stream()
    assert ret == 0
    garbage = bytes(range(256)) * 4
    src = dvpp.upload(garbage)
    out = dvpp.picture(NV12, 64, 48)
    # The data is read when the task runs (a copy queued before it is seen), so the call is
    # accepted; the stream and the output's ret code carry the failure.
    assert m.dvpp_jpeg_decode_async(dvpp.channel, src, len(garbage), out.desc, stream) == 0
    assert acl.rt.synchronize_stream(stream) != 0
    assert m.dvpp_get_pic_desc_ret_code(out.desc) != 0
    assert acl.rt.destroy_stream(stream) == 0


def test_null_and_bad_handles_get_invalid_param(dvpp):
    pic = dvpp.picture(RGB_888, 32, 16)
    data = encoded(photo(32, 16))
    src = dvpp.upload(data)
    ch, s = dvpp.channel, dvpp.stream
    assert m.dvpp_jpeg_decode_async(ch, 0, len(data), pic.desc, s) == INVALID_PARAM
    assert m.dvpp_jpeg_decode_async(ch, src, 0, pic.desc, s) == INVALID_PARAM
    assert m.dvpp_jpeg_decode_async(ch, src, len(data), 0, s) == INVALID_PARAM
    assert m.dvpp_jpeg_decode_async(0, src, len(data), pic.desc, s) == INVALID_PARAM
    assert m.dvpp_jpeg_decode_async(0x5555, src, len(data), pic.desc, s) == INVALID_PARAM
    # Host memory is not DVPP memory.
    host = np.frombuffer(data, np.uint8)
    assert m.dvpp_jpeg_decode_async(ch, host.ctypes.data, len(data), pic.desc,
                                     s) == INVALID_PARAM
    # More bytes than the allocation holds.
    assert m.dvpp_jpeg_decode_async(ch, src, len(data) + 4096, pic.desc, s) == INVALID_PARAM
    assert m.dvpp_vpc_resize_async(ch, pic.desc, pic.desc, 0, s) == INVALID_PARAM
    assert m.dvpp_vpc_crop_async(ch, pic.desc, pic.desc, 0, s) == INVALID_PARAM
    assert m.dvpp_vpc_crop_async(ch, 0, pic.desc, 0, s) == INVALID_PARAM
    assert m.dvpp_vpc_make_border_async(ch, pic.desc, pic.desc, 0, s) == INVALID_PARAM
    assert m.dvpp_vpc_calc_hist_async(ch, pic.desc, 0, 0, s) == INVALID_PARAM
    assert m.dvpp_vpc_convert_color_async(ch, pic.desc, 0, s) == INVALID_PARAM
    assert m.dvpp_jpeg_predict_enc_size(pic.desc, 0) == (0, INVALID_PARAM)
    assert acl.rt.synchronize_stream(s) == 0  # nothing was queued


def test_unmapped_host_addresses_are_refused_by_the_binding(dvpp):
    for call in (m.dvpp_jpeg_get_image_info, m.dvpp_jpeg_get_image_info_v2,
                 m.dvpp_png_get_image_info):
        assert call(0x10, 100)[-1] == INVALID_PARAM
        assert "is not mapped memory" in acl.get_recent_err_msg()
    assert m.dvpp_jpeg_predict_dec_size(0x10, 100, NV12) == (0, INVALID_PARAM)
    assert m.dvpp_png_predict_dec_size(1 << 60, 100, RGB_888) == (0, INVALID_PARAM)
    # NULL reaches the C library, which refuses it with its own message.
    assert m.dvpp_jpeg_get_image_info(0, 100)[-1] == INVALID_PARAM
    assert "acldvppJpegGetImageInfo" in acl.get_recent_err_msg()
    pic = dvpp.picture(RGB_888, 32, 16)
    config = m.dvpp_create_jpege_config()
    out = dvpp.malloc(4096)
    assert m.dvpp_jpeg_encode_async(dvpp.channel, pic.desc, out, 0x10, config,
                                    dvpp.stream) == INVALID_PARAM
    assert m.dvpp_jpeg_encode_async(dvpp.channel, pic.desc, out, 0, config,
                                    dvpp.stream) == INVALID_PARAM
    assert m.dvpp_destroy_jpege_config(config) == 0
    assert acl.rt.synchronize_stream(dvpp.stream) == 0


def test_wrong_argument_types_raise_type_error(dvpp):
    d = m.dvpp_create_pic_desc()
    with pytest.raises(TypeError):
        m.dvpp_set_pic_desc_width(d, "5")
    with pytest.raises(TypeError):
        m.dvpp_set_pic_desc_format(d, 1.5)
    with pytest.raises(TypeError):
        m.dvpp_set_border_config_value(d, 0, "x")
    with pytest.raises(TypeError):
        m.dvpp_vpc_batch_crop_async(0, 0, 3, 0, [], 0)  # roi_nums must be a list
    with pytest.raises(TypeError):
        m.dvpp_vpc_batch_crop_async(0, 0, [1], 0, ["roi"], 0)
    # pyACL reads handles and sizes modulo 2^64 ("k"): -1 is a bad handle, not an exception.
    assert m.dvpp_set_pic_desc_width(-1, 5) == INVALID_PARAM
    assert m.dvpp_destroy_pic_desc(d) == 0
