# Copyright 2026 The Kiln Authors
# SPDX-License-Identifier: Apache-2.0
"""The pyACL call sequence of the seed article, step by step, on mnist-8 compiled by `kiln atc`,
and the error returns of the acl module (codes, never exceptions). The expected logits are the
ones shipped with the ONNX model zoo's mnist-8."""
import numpy as np

import acl

ACL_MEM_MALLOC_HUGE_FIRST = 0
ACL_MEMCPY_HOST_TO_DEVICE = 1
ACL_MEMCPY_DEVICE_TO_HOST = 2
NPY_FLOAT32 = 11


def test_seed_article_sequence(mnist_om, mnist_data):
    assert acl.init() == 0
    assert acl.rt.set_device(0) == 0
    context, ret = acl.rt.create_context(0)
    assert ret == 0 and context != 0
    model_id, ret = acl.mdl.load_from_file(mnist_om)
    assert ret == 0
    model_desc = acl.mdl.create_desc()
    assert model_desc != 0
    assert acl.mdl.get_desc(model_desc, model_id) == 0

    assert acl.mdl.get_num_inputs(model_desc) == 1
    assert acl.mdl.get_num_outputs(model_desc) == 1
    input_size = acl.mdl.get_input_size_by_index(model_desc, 0)
    output_size = acl.mdl.get_output_size_by_index(model_desc, 0)
    assert input_size == 1 * 1 * 28 * 28 * 4
    assert output_size == 10 * 4
    dims, ret = acl.mdl.get_input_dims(model_desc, 0)
    assert ret == 0
    assert dims == {"name": "Input3", "dimCount": 4, "dims": [1, 1, 28, 28]}
    out_dims, ret = acl.mdl.get_cur_output_dims(model_desc, 0)
    assert ret == 0 and out_dims["dims"] == [1, 10]
    assert acl.mdl.get_input_name_by_index(model_desc, 0) == "Input3"
    assert acl.mdl.get_input_index_by_name(model_desc, "Input3") == (0, 0)
    assert acl.mdl.get_input_data_type(model_desc, 0) == acl.ACL_FLOAT

    dev_in, ret = acl.rt.malloc(input_size, ACL_MEM_MALLOC_HUGE_FIRST)
    assert ret == 0 and dev_in != 0
    dev_out, ret = acl.rt.malloc(output_size, ACL_MEM_MALLOC_HUGE_FIRST)
    assert ret == 0
    host_out, ret = acl.rt.malloc_host(output_size)
    assert ret == 0

    in_ds = acl.mdl.create_dataset()
    in_buf = acl.create_data_buffer(dev_in, input_size)
    ds, ret = acl.mdl.add_dataset_buffer(in_ds, in_buf)
    assert ret == 0 and ds == in_ds
    out_ds = acl.mdl.create_dataset()
    out_buf = acl.create_data_buffer(dev_out, output_size)
    _, ret = acl.mdl.add_dataset_buffer(out_ds, out_buf)
    assert ret == 0
    assert acl.mdl.get_dataset_num_buffers(in_ds) == 1
    assert acl.mdl.get_dataset_buffer(in_ds, 0) == in_buf
    assert acl.get_data_buffer_addr(in_buf) == dev_in
    assert acl.get_data_buffer_size_v2(in_buf) == input_size

    for image, expected in mnist_data:
        image = np.ascontiguousarray(image, dtype=np.float32)
        ptr = acl.util.numpy_to_ptr(image)
        assert acl.rt.memcpy(dev_in, input_size, ptr, image.nbytes, ACL_MEMCPY_HOST_TO_DEVICE) == 0
        assert acl.mdl.execute(model_id, in_ds, out_ds) == 0
        assert acl.rt.memcpy(host_out, output_size, dev_out, output_size,
                             ACL_MEMCPY_DEVICE_TO_HOST) == 0
        logits = acl.util.ptr_to_numpy(host_out, tuple(out_dims["dims"]), NPY_FLOAT32)
        np.testing.assert_allclose(logits, expected, rtol=1e-3, atol=1e-4)
        assert int(np.argmax(logits)) == int(np.argmax(expected))
        # ptr_to_bytes copies: the same values.
        copied = np.frombuffer(acl.util.ptr_to_bytes(host_out, output_size), dtype=np.float32)
        np.testing.assert_array_equal(copied, logits.reshape(-1))

    assert acl.destroy_data_buffer(in_buf) == 0
    assert acl.destroy_data_buffer(out_buf) == 0
    assert acl.mdl.destroy_dataset(in_ds) == 0
    assert acl.mdl.destroy_dataset(out_ds) == 0
    assert acl.rt.free(dev_in) == 0
    assert acl.rt.free(dev_out) == 0
    assert acl.rt.free_host(host_out) == 0
    assert acl.mdl.unload(model_id) == 0
    assert acl.mdl.destroy_desc(model_desc) == 0
    assert acl.rt.destroy_context(context) == 0
    assert acl.rt.reset_device(0) == 0
    assert acl.finalize() == 0


def test_bytes_to_ptr_path_and_query_size(mnist_om, mnist_data):
    """The newer sample style: feature-test bytes_to_ptr, load with caller-owned memory."""
    assert "bytes_to_ptr" in dir(acl.util)
    assert acl.init() == 0
    assert acl.rt.set_device(0) == 0
    work, weight, ret = acl.mdl.query_size(mnist_om)
    assert ret == 0 and work > 0 and weight > 0
    work_ptr, ret = acl.rt.malloc(work, ACL_MEM_MALLOC_HUGE_FIRST)
    assert ret == 0
    weight_ptr, ret = acl.rt.malloc(weight, ACL_MEM_MALLOC_HUGE_FIRST)
    assert ret == 0
    model_id, ret = acl.mdl.load_from_file_with_mem(mnist_om, work_ptr, work, weight_ptr, weight)
    assert ret == 0
    desc = acl.mdl.create_desc()
    assert acl.mdl.get_desc(desc, model_id) == 0
    image, expected = mnist_data[1]
    data = image.astype(np.float32).tobytes()
    dev_in, _ = acl.rt.malloc(len(data), 0)
    assert acl.rt.memcpy(dev_in, len(data), acl.util.bytes_to_ptr(data), len(data), 1) == 0
    dev_out, _ = acl.rt.malloc(40, 0)
    in_ds, out_ds = acl.mdl.create_dataset(), acl.mdl.create_dataset()
    bufs = [acl.create_data_buffer(dev_in, len(data)), acl.create_data_buffer(dev_out, 40)]
    acl.mdl.add_dataset_buffer(in_ds, bufs[0])
    acl.mdl.add_dataset_buffer(out_ds, bufs[1])
    assert acl.mdl.execute(model_id, in_ds, out_ds) == 0
    host = bytearray(40)
    out = np.zeros(10, dtype=np.float32)
    assert acl.rt.memcpy(acl.util.numpy_to_ptr(out), 40, dev_out, 40, 2) == 0
    np.testing.assert_allclose(out, expected.reshape(-1), rtol=1e-3, atol=1e-4)
    del host
    for b in bufs:
        acl.destroy_data_buffer(b)
    acl.mdl.destroy_dataset(in_ds)
    acl.mdl.destroy_dataset(out_ds)
    assert acl.mdl.unload(model_id) == 0
    acl.mdl.destroy_desc(desc)
    for p in (dev_in, dev_out, work_ptr, weight_ptr):
        assert acl.rt.free(p) == 0
    # Resources left allocated are reclaimed by reset_device/finalize without error.
    leaked, ret = acl.rt.malloc(1024, 0)
    assert ret == 0
    assert acl.rt.reset_device(0) == 0
    assert acl.finalize() == 0


def test_error_returns_are_codes(tmp_path):
    assert acl.rt.set_device(0) == acl.ACL_ERROR_UNINITIALIZE
    assert acl.init() == 0
    assert acl.init() == acl.ACL_ERROR_REPEAT_INITIALIZE
    assert acl.rt.set_device(0) == 0
    model_id, ret = acl.mdl.load_from_file(str(tmp_path / "missing.om"))
    assert ret == acl.ACL_ERROR_GE_EXEC_MODEL_PATH_INVALID == 145002
    assert "missing.om" in acl.get_recent_err_msg()
    not_om = tmp_path / "model.om"
    not_om.write_bytes(b"\x08\x07" + b"\x00" * 64)
    _, ret = acl.mdl.load_from_file(str(not_om))
    assert ret == acl.ACL_ERROR_GE_EXEC_MODEL_DATA_SIZE_INVALID == 145006
    desc = acl.mdl.create_desc()
    assert acl.mdl.get_desc(desc, 12345) != 0
    dims, ret = acl.mdl.get_input_dims(desc, 99)
    assert dims == {} and ret != 0
    assert acl.mdl.execute(12345, 0, 0) != 0
    dev, ret = acl.rt.malloc(16, 0)
    src = np.zeros(8, dtype=np.float32)
    # count (32) larger than destMax (16)
    assert acl.rt.memcpy(dev, 16, acl.util.numpy_to_ptr(src), 32, 1) == acl.ACL_ERROR_INVALID_PARAM
    assert acl.rt.free(dev) == 0
    assert acl.mdl.destroy_desc(desc) == 0
    assert acl.rt.reset_device(0) == 0
    assert acl.finalize() == 0
    assert acl.finalize() == acl.ACL_ERROR_REPEAT_FINALIZE
