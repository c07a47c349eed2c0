# Copyright 2026 The Kiln Authors
# SPDX-License-Identifier: Apache-2.0
"""Static AIPP executed (docs/aipp.md "Execution"): a model compiled with --insert_op_conf takes
the raw uint8 image and converts it itself. The model under test is an Identity over a
[1, 3, H, W] float32 input, so its output is exactly what AIPP handed it; the oracles are
Pillow (colour conversion, images) and numpy on the decoded pixels."""
import os
import subprocess

import numpy as np
import pytest

import kiln

onnx = pytest.importorskip("onnx")
Image = pytest.importorskip("PIL.Image")
from onnx import TensorProto, helper  # noqa: E402


def identity_model(path, channels, h, w):
    graph = helper.make_graph(
        [helper.make_node("Identity", ["data"], ["out"])], "identity",
        [helper.make_tensor_value_info("data", TensorProto.FLOAT, [1, channels, h, w])],
        [helper.make_tensor_value_info("out", TensorProto.FLOAT, [1, channels, h, w])])
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)]), path)


def compile_with_aipp(tmp_path, channels, h, w, config):
    onnx_path = str(tmp_path / "identity.onnx")
    identity_model(onnx_path, channels, h, w)
    cfg = tmp_path / "aipp.cfg"
    cfg.write_text("aipp_op {\n" + "\n".join(f"  {k} : {v}" for k, v in config.items()) + "\n}\n")
    out = str(tmp_path / "aipp")
    kiln_bin = os.environ.get("KILN_BIN")
    if kiln_bin:
        subprocess.run([kiln_bin, "atc", "--framework=5", f"--model={onnx_path}", f"--output={out}",
                        f"--insert_op_conf={cfg}"], check=True, stdout=subprocess.DEVNULL)
    else:
        kiln.compile(onnx_path, out, insert_op_conf=str(cfg))
    return kiln.Model(out + ".om")


def run(model, image):
    return next(iter(model.run([image]).values()))


def random_picture(w, h, block, seed):
    """An RGB Pillow image of block x block squares of random colours."""
    rng = np.random.RandomState(seed)
    small = rng.randint(0, 256, (h // block, w // block, 3)).astype(np.uint8)
    return Image.fromarray(small).resize((w, h), Image.NEAREST)


IMAGENET = {"min_chn_0": 123.675, "min_chn_1": 116.28, "min_chn_2": 103.53,
            "var_reci_chn_0": 0.0171247538316637, "var_reci_chn_1": 0.0175070028011204,
            "var_reci_chn_2": 0.0174291938997821}


# JPEG's full-range BT.601 YCbCr -> RGB (the vpc sample's matrix), which Pillow's "YCbCr" inverts.
JPEG_MATRIX = {"csc_switch": "true",
               "matrix_r0c0": 256, "matrix_r0c1": 0, "matrix_r0c2": 359,
               "matrix_r1c0": 256, "matrix_r1c1": -88, "matrix_r1c2": -183,
               "matrix_r2c0": 256, "matrix_r2c1": 454, "matrix_r2c2": 0,
               "input_bias_0": 0, "input_bias_1": 128, "input_bias_2": 128}


def test_rgb888_crop_padding_and_imagenet_normalisation(tmp_path):
    picture = random_picture(40, 30, 1, seed=1)  # Pillow's RGB bytes are RGB888_U8
    # A 24x20 crop at (6, 4), padded to the model's 28x26 (left 1, right 3, top 2, bottom 4).
    config = {"aipp_mode": "static", "input_format": "RGB888_U8", "src_image_size_w": 40,
              "src_image_size_h": 30, "crop": "true", "load_start_pos_w": 6,
              "load_start_pos_h": 4, "crop_size_w": 24, "crop_size_h": 20, "padding": "true",
              "left_padding_size": 1, "right_padding_size": 3, "top_padding_size": 2,
              "bottom_padding_size": 4, "padding_value": -7.5, **IMAGENET}
    model = compile_with_aipp(tmp_path, 3, 26, 28, config)
    assert model.inputs[0].shape == (1, 30, 40, 3)
    assert model.inputs[0].dtype == np.uint8
    assert model.inputs[0].format == 1  # ACL_FORMAT_NHWC (aclmdlGetInputFormat)
    image = np.asarray(picture)[None]
    got = run(model, image)

    rgb = np.asarray(picture.crop((6, 4, 30, 24)), dtype=np.float32)  # Pillow crops [l, t, r, b)
    mean = np.array([IMAGENET[f"min_chn_{c}"] for c in range(3)], np.float32)
    scale = np.array([IMAGENET[f"var_reci_chn_{c}"] for c in range(3)], np.float32)
    want = np.full((3, 26, 28), -7.5, np.float32)
    want[:, 2:22, 1:25] = ((rgb - mean) * scale).transpose(2, 0, 1)
    np.testing.assert_allclose(got[0], want, rtol=1e-6, atol=1e-6)


def test_nv12_and_nv21_decode_to_the_pictures_rgb(tmp_path):
    # 2x2 blocks of one colour: 4:2:0 chroma loses nothing, so decoding must give the RGB back
    # up to the rounding of Pillow's RGB -> YCbCr and of AIPP's integer matrix.
    picture = random_picture(32, 16, 2, seed=2)
    ycc = np.asarray(picture.convert("YCbCr"))  # JPEG's full-range BT.601, as the matrix below
    y, cb, cr = ycc[..., 0], ycc[::2, ::2, 1], ycc[::2, ::2, 2]
    config = {"aipp_mode": "static", "input_format": "YUV420SP_U8", "src_image_size_w": 32,
              "src_image_size_h": 16, **JPEG_MATRIX}
    want = np.asarray(picture, dtype=np.float32).transpose(2, 0, 1)
    for swap, first, second in (("false", cb, cr), ("true", cr, cb)):
        model = compile_with_aipp(tmp_path, 3, 16, 32, {**config, "rbuv_swap_switch": swap})
        assert model.inputs[0].shape == (1, 24, 32, 1)
        uv = np.stack([first, second], axis=-1).reshape(8, 32)  # interleaved, one row per 2 rows
        image = np.concatenate([y, uv])[None, :, :, None].astype(np.uint8)
        got = run(model, image)[0]
        assert np.abs(got - want).max() <= 3, (swap, np.abs(got - want).max())


def test_yuyv_and_yuv422sp_decode_to_the_pictures_rgb(tmp_path):
    # 2x1 blocks of one colour: 4:2:2 chroma loses nothing.
    picture = Image.fromarray(np.asarray(random_picture(16, 8, 1, seed=4))[:, ::2]
                              .repeat(2, axis=1))
    ycc = np.asarray(picture.convert("YCbCr"))
    y, cb, cr = ycc[..., 0], ycc[:, ::2, 1], ycc[:, ::2, 2]
    want = np.asarray(picture, dtype=np.float32).transpose(2, 0, 1)
    yuyv = np.stack([y[:, ::2], cb, y[:, 1::2], cr], axis=-1).reshape(8, 16, 2)
    sp = np.concatenate([y, np.stack([cb, cr], axis=-1).reshape(8, 16)])[:, :, None]
    for name, image, rows, channels in (("YUYV_U8", yuyv, 8, 2), ("YUV422SP_U8", sp, 16, 1)):
        config = {"aipp_mode": "static", "input_format": name, "src_image_size_w": 16,
                  "src_image_size_h": 8, **JPEG_MATRIX}
        model = compile_with_aipp(tmp_path, 3, 8, 16, config)
        assert model.inputs[0].shape == (1, rows, 16, channels)
        got = run(model, image[None].astype(np.uint8))[0]
        assert np.abs(got - want).max() <= 3, (name, np.abs(got - want).max())


def test_yuv400_feeds_a_one_channel_model(tmp_path):
    gray = np.asarray(random_picture(8, 6, 1, seed=3).convert("L"))
    config = {"aipp_mode": "static", "input_format": "YUV400_U8", "mean_chn_0": 3,
              "min_chn_0": 0.5, "var_reci_chn_0": 0.25}
    model = compile_with_aipp(tmp_path, 1, 6, 8, config)
    got = run(model, gray[None, :, :, None])
    np.testing.assert_allclose(got, ((gray.astype(np.float32) - 3.5) * 0.25)[None, None])


def test_a_wrong_image_size_is_refused_with_the_dims(tmp_path):
    config = {"aipp_mode": "static", "input_format": "RGB888_U8"}
    model = compile_with_aipp(tmp_path, 3, 4, 4, config)
    with pytest.raises(kiln.KilnError) as err:
        model.run([np.zeros((1, 4, 5, 3), np.uint8)])
    assert "4" in str(err.value)


def test_pyacl_reports_the_aipp(tmp_path):
    import acl
    config = {"aipp_mode": "static", "input_format": "YUV420SP_U8", "csc_switch": "true",
              "src_image_size_w": 6, "src_image_size_h": 4, **IMAGENET}
    compile_with_aipp(tmp_path, 3, 4, 6, config)  # AscendCL is initialised; writes aipp.om
    assert acl.rt.set_device(0) == 0
    model_id, ret = acl.mdl.load_from_file(str(tmp_path / "aipp.om"))
    assert ret == 0
    try:
        aipp_type, attached, ret = acl.mdl.get_aipp_type(model_id, 0)
        assert (aipp_type, ret) == (1, 0)  # ACL_DATA_WITH_STATIC_AIPP
        assert attached == 0xFFFFFFFF
        info, ret = acl.mdl.get_first_aipp_info(model_id, 0)
        assert ret == 0
        assert info["inputFormat"] == 1 and info["cscSwitch"] == 1
        assert (info["srcImageSizeW"], info["srcImageSizeH"]) == (6, 4)
        assert info["matrixR1C1"] == -100 and info["inputBias0"] == 16
        assert abs(info["varReciChn2"] - IMAGENET["var_reci_chn_2"]) < 1e-9
        assert info["shapeCount"] == 1
        assert info["outDims"][0]["srcDims"]["dims"] == [1, 3, 4, 6]
        desc = acl.mdl.create_desc()
        assert acl.mdl.get_desc(desc, model_id) == 0
        v1, ret1 = acl.mdl.get_input_dims(desc, 0)
        v2, ret2 = acl.mdl.get_input_dims_v2(desc, 0)
        assert (ret1, ret2) == (0, 0)
        assert v1["dims"] == [1, 4, 6, 3] and v2["dims"] == [1, 6, 6, 1]
        acl.mdl.destroy_desc(desc)
        _, ret = acl.mdl.get_first_aipp_info(model_id, 1)
        assert ret == 100000  # no input 1
    finally:
        acl.mdl.unload(model_id)
        acl.rt.reset_device(0)


def test_pyacl_dynamic_aipp_crops_and_normalises_per_run(tmp_path):
    """A CANN-style pyACL program: dynamic AIPP on an RGB model, the parameters set per run."""
    import acl
    compile_with_aipp(tmp_path, 3, 4, 6, {"aipp_mode": "dynamic", "max_src_image_size": 96})
    picture = np.asarray(random_picture(8, 4, 1, seed=5))  # 8x4 RGB888: 96 bytes
    assert acl.rt.set_device(0) == 0
    model_id, ret = acl.mdl.load_from_file(str(tmp_path / "aipp.om"))
    assert ret == 0
    buffers, sets = [], []
    try:
        size, ret = acl.mdl.get_aipp_data_size(1)
        assert (size, ret) == (160, 0)
        datasets = []
        for sizes in ((96, size), (1 * 3 * 4 * 6 * 4,)):
            ds = acl.mdl.create_dataset()
            for n in sizes:
                dev, ret = acl.rt.malloc(n, 0)
                assert ret == 0
                buf = acl.create_data_buffer(dev, n)
                buffers.append((dev, buf))
                assert acl.mdl.add_dataset_buffer(ds, buf)[1] == 0
            datasets.append(ds)
        ins, outs = datasets
        image = picture.tobytes()
        assert acl.rt.memcpy(buffers[0][0], 96, acl.util.bytes_to_ptr(image), 96, 1) == 0
        for left in (0, 2):
            s = acl.mdl.create_aipp(1)
            sets.append(s)
            assert acl.mdl.set_aipp_input_format(s, 3) == 0  # ACL_RGB888_U8
            assert acl.mdl.set_aipp_src_image_size(s, 8, 4) == 0
            assert acl.mdl.set_aipp_crop_params(s, 1, left, 0, 6, 4, 0) == 0
            assert acl.mdl.set_aipp_dtc_pixel_min(s, 100.0, 50.0, 25.0, 0.0, 0) == 0
            assert acl.mdl.set_aipp_pixel_var_reci(s, 0.5, 0.25, 2.0, 1.0, 0) == 0
            assert acl.mdl.set_input_aipp(model_id, ins, 1, s) == 0
            assert acl.mdl.execute(model_id, ins, outs) == 0
            host = np.frombuffer(acl.util.ptr_to_bytes(buffers[2][0], 288),
                                 np.float32).reshape(1, 3, 4, 6)
            rgb = picture[:, left:left + 6].astype(np.float32)
            want = ((rgb - [100, 50, 25]) * [0.5, 0.25, 2.0]).transpose(2, 0, 1)[None]
            np.testing.assert_allclose(host, want, rtol=1e-6)
        assert acl.mdl.set_aipp_scf_params(sets[0], 1, 8, 4, 6, 4, 0) == 200006  # no resize
    finally:
        for s in sets:
            acl.mdl.destroy_aipp(s)
        for dev, buf in buffers:
            acl.destroy_data_buffer(buf)
            acl.rt.free(dev)
        acl.mdl.unload(model_id)
        acl.rt.reset_device(0)
