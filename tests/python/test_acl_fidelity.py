# Copyright 2026 The Kiln Authors
# SPDX-License-Identifier: Apache-2.0
"""The acl module against pyACL's conventions (ascendcl-reference.md §3), function by function:
names, return shapes (`ret`, `(value, ret)` or a bare value), argument order, and the acl.util
helpers' warnings, views and thread semantics. Expected values are worked by hand (bytes
written, pitches copied) or are the C library's own answers read back through a second call."""
import gc
import threading
import weakref

import numpy as np
import pytest

import acl

NPY_FLOAT32 = 11
NPY_FLOAT16 = 23
ACL_CALLBACK_NO_BLOCK = 0


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


# ---- top level ---------------------------------------------------------------------------------

def test_top_level_return_shapes(device):
    version = acl.get_version()
    assert len(version) == 4 and all(type(v) is int for v in version) and version[3] == 0
    assert isinstance(acl.get_soc_name(), str)
    info, ret = acl.get_cann_version(acl.ACL_PKG_NAME_CANN)
    assert ret == 0 and set(info) == {"version", "major_version", "minor_version",
                                      "release_version", "patch_version", "reserved"}
    text, ret = acl.get_version_str("runtime")
    assert ret == 0 and isinstance(text, str) and text
    # pyACL gives the dict even when the call fails.
    info, ret = acl.get_cann_version(12345)
    assert ret != 0 and set(info) == {"version", "major_version", "minor_version",
                                      "release_version", "patch_version", "reserved"}
    assert acl.float_to_float16(1.0) == 0x3C00 and acl.float16_to_float(0xC000) == -2.0
    assert acl.app_log(acl.ACL_INFO, "100% a message, not a %s format") is None
    assert acl.data_type_size(acl.ACL_FLOAT16) == 2

    mem = bytes(64)
    buf = acl.create_data_buffer(acl.util.bytes_to_ptr(mem), 64)
    assert type(buf) is int and buf != 0
    assert acl.get_data_buffer_addr(buf) == acl.util.bytes_to_ptr(mem)
    assert acl.get_data_buffer_size(buf) == 64 and acl.get_data_buffer_size_v2(buf) == 64
    assert acl.destroy_data_buffer(buf) == 0
    assert acl.destroy_data_buffer(buf) == acl.ACL_ERROR_INVALID_PARAM  # twice: a code


def test_tensor_desc_setters_and_queries_that_were_missing(device):
    # pyACL's top level has these; the C library implements them (acl_base.h).
    desc = acl.create_tensor_desc(acl.ACL_FLOAT, [1, 3, 4, 5], acl.ACL_FORMAT_NCHW)
    assert desc != 0
    assert acl.set_tensor_shape(desc, [2, 7]) == 0
    assert [acl.get_tensor_desc_dim(desc, i) for i in range(2)] == [2, 7]
    assert acl.get_tensor_desc_num_dims(desc) == 2
    assert acl.set_tensor_origin_shape(desc, [2, 7]) == 0
    assert acl.set_tensor_storage_shape(desc, [2, 7]) == 0
    assert acl.set_tensor_format(desc, acl.ACL_FORMAT_ND) == 0
    assert acl.get_tensor_desc_format(desc) == acl.ACL_FORMAT_ND
    assert acl.set_tensor_origin_format(desc, acl.ACL_FORMAT_ND) == 0
    assert acl.set_tensor_storage_format(desc, acl.ACL_FORMAT_ND) == 0
    assert acl.set_tensor_shape(desc, [2, -1]) == 0
    assert acl.set_tensor_shape_range(desc, [[2, 2], [1, 16]]) == 0
    assert acl.get_tensor_desc_dim_range(desc, 1, 2) == ([1, 16], 0)
    assert acl.set_tensor_value_range(desc, [[0, 255]]) == 0
    assert acl.set_tensor_dynamic_input(desc, "x") == 0
    assert acl.set_tensor_place_ment(desc, acl.ACL_MEMTYPE_HOST) == 0
    const = np.arange(14, dtype=np.float32).tobytes()
    assert acl.set_tensor_const(desc, acl.util.bytes_to_ptr(const), len(const)) == 0
    assert acl.get_tensor_desc_by_index(desc, 0) == desc
    assert acl.get_tensor_desc_by_index(desc, 1) == 0

    nchw = acl.create_tensor_desc(acl.ACL_FLOAT, [1, 3, 4, 5], acl.ACL_FORMAT_NCHW)
    nhwc, ret = acl.trans_tensor_desc_format(nchw, acl.ACL_FORMAT_NHWC)
    assert ret == 0 and nhwc not in (0, nchw)
    assert [acl.get_tensor_desc_dim(nhwc, i) for i in range(4)] == [1, 4, 5, 3]
    assert acl.trans_tensor_desc_format(0, acl.ACL_FORMAT_NHWC) == (0, acl.ACL_ERROR_INVALID_PARAM)
    for d in (desc, nchw, nhwc):
        acl.destroy_tensor_desc(d)

    attrs, num, ret = acl.get_cann_attribute_list()
    assert ret == 0 and num == len(attrs) and acl.ACL_CANN_ATTR_BF16 in attrs
    value, ret = acl.get_cann_attribute(acl.ACL_CANN_ATTR_BF16)
    assert ret == 0 and value == 1
    value, ret = acl.get_device_capability(0, 12345)
    assert type(value) is int and ret != 0


# ---- acl.rt ------------------------------------------------------------------------------------

def test_rt_return_shapes(device):
    assert acl.rt.get_device() == (0, 0)
    assert acl.rt.get_run_mode() == (acl.ACL_HOST, 0)
    count, ret = acl.rt.get_device_count()
    assert ret == 0 and count >= 1
    assert acl.rt.get_context() == (device, 0)
    assert acl.rt.set_context(device) == 0

    stream, ret = acl.rt.create_stream()
    assert ret == 0 and stream != 0
    start, ret = acl.rt.create_event()
    assert ret == 0
    end, _ = acl.rt.create_event()
    assert acl.rt.record_event(start, stream) == 0
    assert acl.rt.record_event(end, stream) == 0
    assert acl.rt.synchronize_event(end) == 0
    status, ret = acl.rt.query_event_status(end)
    assert ret == 0 and status == acl.ACL_EVENT_RECORDED_STATUS_COMPLETE
    ms, ret = acl.rt.event_elapsed_time(start, end)
    assert ret == 0 and type(ms) is float and ms >= 0.0
    assert acl.rt.stream_wait_event(stream, end) == 0
    assert acl.rt.reset_event(end, stream) == 0
    assert acl.rt.synchronize_stream(stream) == 0
    assert acl.rt.destroy_event(start) == 0 and acl.rt.destroy_event(end) == 0

    free, total, ret = acl.rt.get_mem_info(acl.ACL_HBM_MEM)
    assert ret == 0 and 0 < free <= total

    dev, ret = acl.rt.malloc(64, acl.ACL_MEM_MALLOC_NORMAL_ONLY)
    assert ret == 0 and dev != 0
    cached, ret = acl.rt.malloc_cached(64, acl.ACL_MEM_MALLOC_HUGE_FIRST)
    assert ret == 0
    host, ret = acl.rt.malloc_host(64)
    assert ret == 0
    assert acl.rt.memset(dev, 64, 0x5A, 64) == 0
    assert acl.rt.memset_async(dev, 64, 0x11, 8, stream) == 0
    assert acl.rt.memcpy_async(host, 64, dev, 64, acl.ACL_MEMCPY_DEVICE_TO_HOST, stream) == 0
    assert acl.rt.synchronize_stream(stream) == 0
    assert acl.util.ptr_to_bytes(host, 64) == b"\x11" * 8 + b"\x5a" * 56
    assert acl.rt.memcpy(dev, 64, host, 65, acl.ACL_MEMCPY_HOST_TO_DEVICE) == \
        acl.ACL_ERROR_INVALID_PARAM  # count > destMax
    assert acl.rt.free(dev) == 0 and acl.rt.free(cached) == 0 and acl.rt.free_host(host) == 0
    assert acl.rt.destroy_stream(stream) == 0


def test_memcpy2d_has_pyacls_name(device):
    # pyACL: acl.rt.memcpy2d / memcpy2d_async (aclrtMemcpy2d: no underscore before the digit).
    assert not hasattr(acl.rt, "memcpy_2d")
    src = np.arange(12, dtype=np.uint8).reshape(3, 4)  # 3 rows, pitch 4
    dst = np.zeros((3, 6), dtype=np.uint8)  # pitch 6
    dst_ptr = dst.__array_interface__["data"][0]
    src_ptr = src.__array_interface__["data"][0]
    assert acl.rt.memcpy2d(dst_ptr, 6, src_ptr, 4, 3, 3, acl.ACL_MEMCPY_HOST_TO_HOST) == 0
    expected = np.zeros((3, 6), np.uint8)
    expected[:, :3] = [[0, 1, 2], [4, 5, 6], [8, 9, 10]]
    np.testing.assert_array_equal(dst, expected)
    stream, _ = acl.rt.create_stream()
    dst[:] = 0
    assert acl.rt.memcpy2d_async(dst_ptr, 6, src_ptr, 4, 2, 3, acl.ACL_MEMCPY_HOST_TO_HOST,
                                 stream) == 0
    assert acl.rt.synchronize_stream(stream) == 0
    np.testing.assert_array_equal(dst[:, :2], [[0, 1], [4, 5], [8, 9]])
    assert acl.rt.destroy_stream(stream) == 0


def test_set_exception_info_callback_as_pyacl(device):
    # The argument is optional (no argument or None clears it); a non-callable is a TypeError.
    assert acl.rt.set_exception_info_callback(lambda info: None) == 0
    assert acl.rt.set_exception_info_callback(None) == 0
    assert acl.rt.set_exception_info_callback() == 0
    with pytest.raises(TypeError):
        acl.rt.set_exception_info_callback(42)


def test_launch_callback_passes_the_args_object_itself(device):
    stream, _ = acl.rt.create_stream()
    stop = threading.Event()

    def loop(_):
        while not stop.is_set():
            acl.rt.process_report(10)

    tid, ret = acl.util.start_thread(loop, 0)
    assert ret == 0 and acl.rt.subscribe_report(tid, stream) == 0
    payload = {"frame": 3}
    seen = []
    assert acl.rt.launch_callback(lambda a: seen.append((a, threading.get_ident())), payload,
                                  ACL_CALLBACK_NO_BLOCK, stream) == 0
    assert acl.rt.synchronize_stream(stream) == 0
    for _ in range(200):
        if seen:
            break
        threading.Event().wait(0.01)
    assert len(seen) == 1 and seen[0][0] is payload and seen[0][1] == tid
    assert acl.rt.unsubscribe_report(tid, stream) == 0
    stop.set()
    assert acl.util.stop_thread(tid) == 0
    assert acl.rt.destroy_stream(stream) == 0


def test_a_dropped_callback_releases_its_python_objects(device):
    # The runtime drops a callback whose stream lost its report thread before it ran; destroying
    # the stream must then release the function and its argument (no leak).
    stream, _ = acl.rt.create_stream()
    idle = threading.Event()
    tid, ret = acl.util.start_thread(lambda _: idle.wait(5), 0)  # never calls process_report
    assert ret == 0 and acl.rt.subscribe_report(tid, stream) == 0

    class Payload:
        pass

    payload = Payload()
    ref = weakref.ref(payload)
    ran = []
    assert acl.rt.launch_callback(lambda a: ran.append(a), payload, ACL_CALLBACK_NO_BLOCK,
                                  stream) == 0
    del payload
    assert acl.rt.synchronize_stream(stream) == 0  # delivered to the thread, not processed
    assert acl.rt.unsubscribe_report(tid, stream) == 0  # dropped
    gc.collect()
    assert ref() is not None  # still held: the runtime might have run it until now
    assert acl.rt.destroy_stream(stream) == 0
    gc.collect()
    assert ref() is None and ran == []
    idle.set()
    assert acl.util.stop_thread(tid) == 0


# ---- acl.mdl -----------------------------------------------------------------------------------

def test_mdl_return_shapes(device, mnist_om):
    work, weight, ret = acl.mdl.query_size(mnist_om)
    assert ret == 0 and type(work) is int and weight > 0
    model_id, ret = acl.mdl.load_from_file(mnist_om)
    assert ret == 0 and type(model_id) is int
    desc = acl.mdl.create_desc()
    assert type(desc) is int and acl.mdl.get_desc(desc, model_id) == 0
    assert acl.mdl.get_num_inputs(desc) == 1 and acl.mdl.get_num_outputs(desc) == 1
    assert acl.mdl.get_input_size_by_index(desc, 0) == 28 * 28 * 4
    dims, ret = acl.mdl.get_input_dims_v2(desc, 0)
    assert ret == 0 and dims == {"name": "Input3", "dimCount": 4, "dims": [1, 1, 28, 28]}
    assert acl.mdl.get_output_dims(desc, 5) == ({}, acl.ACL_ERROR_INVALID_PARAM)  # empty dict
    assert acl.mdl.get_cur_output_dims(desc, 5) == ({}, acl.ACL_ERROR_INVALID_PARAM)
    assert acl.mdl.get_input_index_by_name(desc, "Input3") == (0, 0)
    assert acl.mdl.get_output_index_by_name(desc, "nope")[1] == acl.ACL_ERROR_INVALID_PARAM
    assert acl.mdl.get_input_format(desc, 0) in (acl.ACL_FORMAT_NCHW, acl.ACL_FORMAT_ND)
    ds = acl.mdl.create_dataset()
    buf = acl.create_data_buffer(0, 0)
    assert acl.mdl.add_dataset_buffer(ds, buf) == (ds, 0)
    assert acl.mdl.get_dataset_num_buffers(ds) == 1 and acl.mdl.get_dataset_buffer(ds, 0) == buf
    assert acl.mdl.get_dataset_buffer(ds, 1) == 0
    assert acl.mdl.destroy_dataset(ds) == 0 and acl.destroy_data_buffer(buf) == 0
    assert acl.mdl.destroy_desc(desc) == 0 and acl.mdl.unload(model_id) == 0


def test_get_dynamic_hw_gives_lists_of_h_w(device, tmp_path):
    pytest.importorskip("onnx")
    import kiln
    from onnx import TensorProto, helper

    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 3, "h", "w"])
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 3, "h", "w"])
    graph = helper.make_graph([helper.make_node("Relu", ["x"], ["y"])], "relu", [x], [y])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
    path = kiln.compile(model, str(tmp_path / "hw"), input_shape="x:1,3,-1,-1",
                        dynamic_image_size="4,4;8,6")
    model_id, ret = acl.mdl.load_from_file(path)
    assert ret == 0
    desc = acl.mdl.create_desc()
    assert acl.mdl.get_desc(desc, model_id) == 0
    # pyACL: {'hwCount': n, 'hw': [[h, w], ...]}, each gear a list; {} on failure.
    assert acl.mdl.get_dynamic_hw(desc, -1) == ({"hwCount": 2, "hw": [[4, 4], [8, 6]]}, 0)
    assert acl.mdl.get_dynamic_hw(0, -1) == ({}, acl.ACL_ERROR_INVALID_PARAM)
    assert acl.mdl.destroy_desc(desc) == 0 and acl.mdl.unload(model_id) == 0


def test_get_input_dynamic_dims_refuses_an_absurd_gear_count(device, mnist_om):
    model_id, _ = acl.mdl.load_from_file(mnist_om)
    desc = acl.mdl.create_desc()
    assert acl.mdl.get_desc(desc, model_id) == 0
    # pyACL's limit (4096): (None, ACL_ERROR_INVALID_PARAM), not a huge allocation.
    assert acl.mdl.get_input_dynamic_dims(desc, -1, 1 << 40) == (None, acl.ACL_ERROR_INVALID_PARAM)
    assert "gear_count" in acl.get_recent_err_msg()
    dims, ret = acl.mdl.get_input_dynamic_dims(desc, -1, 1)  # a static model: no gears
    assert ret != 0 and dims == []
    assert acl.mdl.destroy_desc(desc) == 0 and acl.mdl.unload(model_id) == 0


# ---- acl.util ----------------------------------------------------------------------------------

def warned(record):
    return [(w.category, str(w.message)) for w in record]


def test_numpy_to_ptr_warns_as_pyacl():
    a = np.arange(12, dtype=np.float32).reshape(3, 4)
    with pytest.warns(Warning) as record:
        ptr = acl.util.numpy_to_ptr(a)
    assert ptr == a.__array_interface__["data"][0]
    # The deprecation notice, with pyACL's category (Warning itself, shown by default).
    assert warned(record) == [(Warning, "acl.util.numpy_to_ptr will be deprecated. Please use "
                                        "acl.util.bytes_to_ptr instead.")]
    with pytest.warns(Warning) as record:
        ptr = acl.util.numpy_to_ptr(a[:, ::2])
    assert ptr == a.__array_interface__["data"][0]
    assert len(record) == 2 and record[1].category is Warning
    assert "discontiguous" in str(record[1].message)
    with pytest.warns(Warning), pytest.raises(ValueError, match="ndarray"):
        acl.util.numpy_to_ptr([1.0, 2.0])


def test_numpy_contiguous_to_ptr_returns_a_c_ordered_array():
    a = np.arange(12, dtype=np.float32).reshape(3, 4)
    with pytest.warns(Warning) as record:
        ptr, same = acl.util.numpy_contiguous_to_ptr(a)
    assert record[0].category is Warning and "numpy_contiguous_to_ptr" in str(record[0].message)
    assert same is a and ptr == a.__array_interface__["data"][0]
    with pytest.warns(Warning):
        ptr, c = acl.util.numpy_contiguous_to_ptr(a.T)
    assert c.flags["C_CONTIGUOUS"] and c.shape == (4, 3) and ptr == c.__array_interface__["data"][0]
    np.testing.assert_array_equal(c, a.T)
    with pytest.warns(Warning):
        _, scalar = acl.util.numpy_contiguous_to_ptr(np.array(2.5, np.float32))
    assert scalar.shape == ()
    with pytest.warns(Warning), pytest.raises(ValueError, match="ndarray"):
        acl.util.numpy_contiguous_to_ptr("text")


def test_ptr_to_numpy_is_a_view_with_npy_type_numbers():
    data = np.zeros(6, dtype=np.float32)
    ptr = data.__array_interface__["data"][0]
    with pytest.warns(Warning) as record:
        view = acl.util.ptr_to_numpy(ptr, (2, 3), NPY_FLOAT32)
    assert "ptr_to_numpy" in str(record[0].message) and record[0].category is Warning
    assert view.dtype == np.float32 and view.shape == (2, 3) and view.flags["WRITEABLE"]
    view[1, 2] = 7.0  # no copy: both see the write
    data[0] = -1.0
    assert data[5] == 7.0 and view[0, 0] == -1.0
    with pytest.warns(Warning):
        halves = acl.util.ptr_to_numpy(ptr, (12,), NPY_FLOAT16)
    assert halves.dtype == np.float16
    with pytest.warns(Warning), pytest.raises(ValueError, match="type number"):
        acl.util.ptr_to_numpy(ptr, (2,), 9999)


def test_bytes_helpers():
    payload = b"\x01\x02\x03\x04"
    ptr = acl.util.bytes_to_ptr(payload)
    assert acl.util.ptr_to_bytes(ptr, 4) == payload
    assert acl.util.ptr_to_bytes(ptr, 0) == b""
    with pytest.raises(ValueError):
        acl.util.bytes_to_ptr(bytearray(payload))  # pyACL: bytes only


def test_start_thread_calls_func_without_args_when_args_is_none():
    calls = []
    tid, ret = acl.util.start_thread(lambda *a: calls.append(a), None)
    assert ret == 0 and acl.util.stop_thread(tid) == 0
    assert calls == [()]  # func(), as pyACL does for None
    tid, ret = acl.util.start_thread(lambda *a: calls.append(a), [1, 2])
    assert ret == 0 and acl.util.stop_thread(tid) == 0
    assert calls[1] == ([1, 2],)
    with pytest.raises(TypeError):
        acl.util.start_thread("not callable", None)


def test_stop_thread_names_the_exception_type(capfd):
    def boom(args):
        raise KeyError(f"lost {args}")

    tid, ret = acl.util.start_thread(boom, 5)
    assert ret == 0
    with pytest.raises(RuntimeError, match=r"exception=KeyError,msg=.*lost 5"):
        acl.util.stop_thread(tid)
    assert "KeyError" in capfd.readouterr().err  # the traceback is printed, as pyACL does
    assert acl.util.stop_thread(tid) == acl.ACL_ERROR_INVALID_PARAM  # already joined


def test_a_finished_thread_releases_its_function_and_args():
    class Args:
        pass

    args = Args()
    ref = weakref.ref(args)
    done = threading.Event()
    tid, ret = acl.util.start_thread(lambda a: done.set(), args)
    assert ret == 0
    del args
    assert done.wait(5)
    for _ in range(100):  # the thread drops them right after the function returns
        gc.collect()
        if ref() is None:
            break
        threading.Event().wait(0.01)
    assert ref() is None  # released before (and without) stop_thread
    assert acl.util.stop_thread(tid) == 0
