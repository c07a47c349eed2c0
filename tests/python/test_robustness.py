# Copyright 2026 The Kiln Authors
# SPDX-License-Identifier: Apache-2.0
"""Bad arguments never crash the interpreter: every acl module given 0, garbage and stale
handles, unmapped addresses, negative sizes, None and wrong types answers with an AscendCL code
(or, for a value of the wrong type, the TypeError pyACL's argument parsing raises); kiln raises
KilnError or TypeError; Python callbacks that raise leave the process running. Each group runs in
a child interpreter, so a segfault fails one test instead of taking pytest down."""
import os
import subprocess
import sys
import textwrap

import pytest

PRELUDE = r'''
import gc, sys, threading, warnings
import numpy as np
import acl
warnings.simplefilter("ignore")
EINVAL = acl.ACL_ERROR_INVALID_PARAM
NO_INFO = 0xFFFFFFFF
keep = bytes(4096)
LIVE = acl.util.bytes_to_ptr(keep)             # mapped memory that is no handle of any kind
UNMAPPED = [8, 4096, 0xDEAD0000000, 1 << 60]   # addresses that would fault
GARBAGE = UNMAPPED + [LIVE, -1, (1 << 64) - 1]  # handles the C library does not know
NULLISH = [0, None]

def raises(exc, fn, *args, **kwargs):
    try:
        fn(*args, **kwargs)
    except exc:
        return True
    raise AssertionError(f"{fn.__name__}{args!r} did not raise {exc.__name__}")

assert acl.init() == 0 and acl.rt.set_device(0) == 0
'''

EPILOGUE = r'''
print("CHILD-OK", flush=True)
'''


def run_child(body, *args):
    code = PRELUDE + textwrap.dedent(body) + EPILOGUE
    try:
        proc = subprocess.run([sys.executable, "-c", code, *args], capture_output=True,
                              text=True, timeout=60, env=dict(os.environ))
    except subprocess.TimeoutExpired as e:
        pytest.fail(f"the child hung\n--- stderr\n{e.stderr}")
    detail = f"exit {proc.returncode}\n--- stdout\n{proc.stdout[-3000:]}\n--- stderr\n" \
             f"{proc.stderr[-3000:]}"
    assert proc.returncode == 0, detail  # a negative code is the signal that killed it
    assert "CHILD-OK" in proc.stdout, detail
    return proc


def test_top_level_bad_handles_and_types():
    run_child(r'''
    for h in GARBAGE + NULLISH:
        assert acl.destroy_data_buffer(h) == EINVAL
        assert acl.get_data_buffer_addr(h) == 0 and acl.get_data_buffer_size_v2(h) == 0
        assert acl.update_data_buffer(h, LIVE, 16) == EINVAL
        assert acl.destroy_tensor_desc(h) is None
        assert acl.get_tensor_desc_type(h) == acl.ACL_DT_UNDEFINED
        assert acl.get_tensor_desc_dim_v2(h, 0)[1] == EINVAL
        assert acl.get_tensor_desc_name(h) == ""
        assert acl.set_tensor_shape(h, [1, 2]) == EINVAL
        assert acl.trans_tensor_desc_format(h, acl.ACL_FORMAT_NHWC) == (0, EINVAL)
        assert acl.get_tensor_desc_dim_range(h, 0, 2) == (None, EINVAL)
    desc = acl.create_tensor_desc(acl.ACL_FLOAT, [4], acl.ACL_FORMAT_ND)
    for p in UNMAPPED + [-1]:
        assert acl.set_tensor_const(desc, p, 16) == EINVAL  # refused before it is read
    assert "not mapped memory" in acl.get_recent_err_msg()
    assert acl.get_tensor_desc_dim_range(desc, 0, -1) == (None, EINVAL)  # huge slot count
    acl.destroy_tensor_desc(desc)
    # A buffer may be created over any address (as in AscendCL); it is checked when used.
    buf = acl.create_data_buffer(-1, -1)
    assert acl.destroy_data_buffer(buf) == 0
    raises(TypeError, acl.destroy_data_buffer, "buffer")
    raises(TypeError, acl.create_data_buffer, 1.5, 10)
    raises(TypeError, acl.create_tensor_desc, "float", [1], 0)
    raises(TypeError, acl.create_tensor_desc, acl.ACL_FLOAT, [None], 0)
    assert acl.get_version()[3] == 0
    ''')


def test_rt_bad_handles_addresses_and_sizes():
    run_child(r'''
    rt = acl.rt
    for h in GARBAGE:
        assert rt.destroy_stream(h) != 0 and rt.synchronize_stream(h) != 0
        assert rt.destroy_context(h) != 0 and rt.set_context(h) != 0
        assert rt.destroy_event(h) != 0 and rt.record_event(h, 0) != 0
        assert rt.query_event_status(h)[1] != 0 and rt.event_elapsed_time(h, h)[1] != 0
        assert rt.synchronize_event(h) != 0 and rt.stream_wait_event(h, h) != 0
        assert rt.free(h) != 0 and rt.free_host(h) != 0
        assert rt.subscribe_report(h, h) != 0 and rt.unsubscribe_report(h, h) != 0
        assert rt.launch_callback(print, None, 0, h) != 0
        assert rt.launch_host_func(h, print, None) != 0
        for get in (rt.get_task_id_from_exception_info, rt.get_stream_id_from_exception_info,
                    rt.get_thread_id_from_exception_info, rt.get_device_id_from_exception_info,
                    rt.get_error_code_from_exception_info):
            assert get(h) == NO_INFO  # never dereferenced
    for h in NULLISH:
        assert rt.destroy_stream(h) != 0 and rt.free(h) == EINVAL and rt.destroy_event(h) != 0
    dev, ret = rt.malloc(64, 0)
    assert ret == 0
    host = np.zeros(64, np.uint8)
    hp = host.__array_interface__["data"][0]
    stream, _ = rt.create_stream()
    for bad in UNMAPPED:
        assert rt.memcpy(bad, 64, hp, 64, acl.ACL_MEMCPY_HOST_TO_HOST) == EINVAL
        assert rt.memcpy(hp, 64, bad, 64, acl.ACL_MEMCPY_HOST_TO_HOST) == EINVAL
        assert rt.memcpy(dev, 64, bad, 64, acl.ACL_MEMCPY_HOST_TO_DEVICE) == EINVAL
        assert rt.memcpy(bad, 64, dev, 64, acl.ACL_MEMCPY_DEVICE_TO_HOST) == EINVAL
        assert rt.memcpy(bad, 64, dev, 64, acl.ACL_MEMCPY_DEFAULT) == EINVAL
        assert rt.memcpy(dev, 64, bad, 64, acl.ACL_MEMCPY_DEVICE_TO_DEVICE) == EINVAL
        assert rt.memcpy_async(bad, 64, dev, 64, acl.ACL_MEMCPY_DEVICE_TO_HOST, stream) == EINVAL
        assert rt.memset(bad, 64, 0, 64) == EINVAL
        assert rt.memset_async(bad, 64, 0, 64, stream) == EINVAL
        assert rt.memcpy2d(bad, 8, hp, 8, 8, 8, acl.ACL_MEMCPY_HOST_TO_HOST) == EINVAL
        assert rt.memcpy2d_async(hp, 8, bad, 8, 8, 8, acl.ACL_MEMCPY_HOST_TO_HOST,
                                 stream) == EINVAL
    assert "not mapped memory" in acl.get_recent_err_msg()
    # Negative sizes arrive as huge values (pyACL's unsigned conversion): refused with a code.
    assert rt.malloc(-1, 0)[1] != 0 and rt.malloc_host(-1)[1] != 0
    assert rt.memcpy(hp, -1, dev, -1, acl.ACL_MEMCPY_DEVICE_TO_HOST) == EINVAL
    assert rt.memcpy(hp, 64, dev, -1, acl.ACL_MEMCPY_DEVICE_TO_HOST) == EINVAL
    assert rt.memset(hp, -1, 0, -1) == EINVAL
    assert rt.process_report(-5) == EINVAL
    assert rt.synchronize_stream(stream) == 0  # nothing bad was enqueued
    raises(TypeError, rt.malloc, "64", 0)
    raises(TypeError, rt.set_device, None)
    raises(TypeError, rt.memcpy, 1.5, 8, hp, 8, 1)
    raises(TypeError, rt.launch_callback, "not callable", None, 0, stream)
    assert rt.free(dev) == 0 and rt.destroy_stream(stream) == 0
    ''')


def test_mdl_bad_handles_models_and_buffers(mnist_om):
    run_child(r'''
    mdl = acl.mdl
    om = open(sys.argv[1], "rb").read()
    om_ptr = acl.util.bytes_to_ptr(om)
    for h in GARBAGE + NULLISH:
        assert mdl.destroy_desc(h) != 0 and mdl.get_desc(h, 0) != 0
        assert mdl.get_num_inputs(h) == 0 and mdl.get_input_size_by_index(h, 0) == 0
        assert mdl.get_input_dims(h, 0) == ({}, EINVAL)
        assert mdl.get_cur_output_dims(h, 0) == ({}, EINVAL)
        assert mdl.get_dynamic_hw(h, -1) == ({}, EINVAL)
        assert mdl.get_dynamic_batch(h) == ({}, EINVAL)
        assert mdl.get_input_name_by_index(h, 0) == ""
        assert mdl.get_input_index_by_name(h, "x")[1] == EINVAL
        assert mdl.get_input_dynamic_dims(h, -1, -1) == (None, EINVAL)
        assert mdl.destroy_dataset(h) != 0 and mdl.add_dataset_buffer(h, h)[1] != 0
        assert mdl.get_dataset_buffer(h, 0) == 0 and mdl.get_dataset_num_buffers(h) == 0
        assert mdl.get_dataset_tensor_desc(h, 0) == 0
        assert mdl.set_dataset_tensor_desc(h, h, 0) != 0
        assert mdl.execute(h, h, h) != 0 and mdl.unload(h) != 0
        assert mdl.set_dynamic_batch_size(h, h, 0, 1) != 0
        assert mdl.set_input_dynamic_dims(h, h, 0, {"dimCount": 1, "dims": [1]}) != 0
    for p in UNMAPPED:
        assert mdl.load_from_mem(p, 4096) == (0, EINVAL)
        assert mdl.query_size_from_mem(p, 4096) == (0, 0, EINVAL)
        assert mdl.load_from_mem_with_mem(om_ptr, len(om), p, 1 << 20, 0, 0) == (0, EINVAL)
        assert mdl.load_from_file_with_mem(sys.argv[1], p, 1 << 20, p, 1 << 20) == (0, EINVAL)
    assert mdl.load_from_mem(om_ptr, -1)[1] != 0
    assert mdl.load_from_mem(acl.util.bytes_to_ptr(b"not a model"), 11)[1] != 0
    assert mdl.load_from_file("/no/such/model.om")[1] != 0
    raises(TypeError, mdl.load_from_file, None)
    raises(TypeError, mdl.set_input_dynamic_dims, 0, 0, 0, {"dims": "1,2"})
    raises(TypeError, mdl.set_input_dynamic_dims, 0, 0, 0, {"name": "x"})

    # A dataset over an address that is not mapped is refused before the runtime touches it.
    model_id, ret = mdl.load_from_mem(om_ptr, len(om))
    assert ret == 0
    image = np.zeros((1, 1, 28, 28), np.float32)
    out = np.zeros(10, np.float32)
    for bad_in in (True, False):
        ins, outs = mdl.create_dataset(), mdl.create_dataset()
        ib = acl.create_data_buffer(0xDEAD0000000 if bad_in else image.ctypes.data, image.nbytes)
        ob = acl.create_data_buffer(out.ctypes.data if bad_in else 4096, out.nbytes)
        mdl.add_dataset_buffer(ins, ib)
        mdl.add_dataset_buffer(outs, ob)
        assert mdl.execute(model_id, ins, outs) == EINVAL
        stream, _ = acl.rt.create_stream()
        assert mdl.execute_async(model_id, ins, outs, stream) == EINVAL
        assert acl.rt.destroy_stream(stream) == 0
        for d in (ins, outs):
            mdl.destroy_dataset(d)
        acl.destroy_data_buffer(ib)
        acl.destroy_data_buffer(ob)
    assert mdl.unload(model_id) == 0
    ''', mnist_om)


def test_util_bad_addresses_and_types():
    run_child(r'''
    util = acl.util
    for p in UNMAPPED + [-1]:
        raises(ValueError, util.ptr_to_bytes, p, 16)
        raises(ValueError, util.ptr_to_numpy, p, (4,), 11)
    raises(ValueError, util.ptr_to_bytes, LIVE, -1)
    raises(ValueError, util.ptr_to_bytes, 0, 4)
    raises(ValueError, util.ptr_to_numpy, LIVE, (-1,), 11)
    raises(ValueError, util.ptr_to_numpy, LIVE, (1 << 62, 1 << 62), 11)
    raises(TypeError, util.ptr_to_numpy, LIVE, ("a",), 11)
    assert util.ptr_to_bytes(None, 0) == b""
    for v in (None, 5, "text", bytearray(4), memoryview(b"ab")):
        raises(ValueError, util.bytes_to_ptr, v)
        raises(ValueError, util.numpy_to_ptr, v)
    for tid in (-1, None, 0, 12345):
        assert util.stop_thread(tid) == EINVAL
    raises(TypeError, util.start_thread, None, None)
    raises(TypeError, util.stop_thread, "thread")
    ''')


def test_python_callbacks_that_raise_do_not_kill_the_process():
    run_child(r'''
    rt = acl.rt
    reported = []
    sys.unraisablehook = lambda u: reported.append(u.exc_type)
    stream, _ = rt.create_stream()
    stop = threading.Event()

    def loop():  # start_thread(func, None) calls func() with no argument
        while not stop.is_set():
            rt.process_report(10)

    tid, ret = acl.util.start_thread(loop, None)
    assert ret == 0 and rt.subscribe_report(tid, stream) == 0
    ran = []

    def fail(kind):
        ran.append(kind)
        raise kind("raised in a callback")

    for kind in (ValueError, SystemExit, KeyboardInterrupt):
        assert rt.launch_callback(fail, kind, 1, stream) == 0  # BLOCK: the stream waits for it
        assert rt.launch_host_func(stream, fail, kind) == 0
    assert rt.launch_callback(ran.append, "after", 1, stream) == 0
    assert rt.synchronize_stream(stream) == 0
    assert ran == [ValueError, ValueError, SystemExit, SystemExit, KeyboardInterrupt,
                   KeyboardInterrupt, "after"], ran
    assert reported == [ValueError, ValueError, SystemExit, SystemExit, KeyboardInterrupt,
                        KeyboardInterrupt], reported
    assert rt.unsubscribe_report(tid, stream) == 0
    stop.set()
    assert acl.util.stop_thread(tid) == 0

    for kind in (ValueError, SystemExit, KeyboardInterrupt):
        tid, ret = acl.util.start_thread(fail, kind)
        assert ret == 0
        raises(RuntimeError, acl.util.stop_thread, tid)
    assert rt.destroy_stream(stream) == 0
    ''')


def test_kiln_raises_kiln_error_or_type_error(mnist_om):
    run_child(r'''
    import kiln
    om = open(sys.argv[1], "rb").read()
    def kiln_error(fn, *args, **kw):
        try:
            fn(*args, **kw)
        except kiln.KilnError as e:
            assert e.code != 0
            return e
        raise AssertionError(f"{fn} did not raise KilnError")
    for bad in (None, 5, 1.5, ["a"]):
        raises(TypeError, kiln.Model, bad)
    kiln_error(kiln.Model, b"not a model")
    kiln_error(kiln.Model, b"")
    kiln_error(kiln.Model, "/no/such/model.om")
    raises(TypeError, kiln.Model, om, device="0")
    raises(TypeError, kiln.Model, om, device=None)
    kiln_error(kiln.Model, om, device=-3)
    kiln_error(kiln.Model, om, device=1000)
    model = kiln.Model(om)
    raises(TypeError, model.run, None)
    raises(TypeError, model.run, 5)
    kiln_error(model.run, {"Input3": "abc"})
    kiln_error(model.run, {"Input3": object()})
    kiln_error(model.run, {"Input3": [[1.0]]})
    kiln_error(model.run, {"Input3": np.zeros((1, 1, 28, 28), np.float32)}, ["nope"])
    kiln_error(model.run, {None: 1})
    kiln_error(model.run, [])
    pending = model.run_async({"Input3": np.zeros((1, 1, 28, 28), np.float32)})
    del pending  # never waited: the run finishes before its arrays are freed
    gc.collect()
    model.close()
    model.close()
    kiln_error(model.run, {"Input3": np.zeros((1, 1, 28, 28), np.float32)})
    for bad in (None, 3):
        raises(TypeError, kiln.compile, bad)
    kiln_error(kiln.compile, b"\x00garbage")
    raises(TypeError, kiln.compile, b"", input_shape=3.5)
    raises(TypeError, kiln.InferenceSession, None)
    # AscendCL finalised by the application: kiln initialises it again.
    acl.rt.reset_device(0)
    assert acl.finalize() == 0
    again = kiln.Model(om)
    assert again.run({"Input3": np.zeros((1, 1, 28, 28), np.float32)})["Plus214_Output_0"].shape \
        == (1, 10)
    ''', mnist_om)


@pytest.mark.parametrize("attempt", range(20))
def test_exiting_with_report_threads_still_looping(attempt):
    # Threads blocked in process_report when the interpreter shuts down must not abort or crash
    # the process. CPython ends a thread that re-enters a finalising interpreter with
    # pthread_exit: that aborted when it unwound through C++ frames, and (2-5 % of exits, hence
    # the repetitions) crashed the main thread when the unwind released the native thread's
    # state, clearing the current thread state the finalising main thread was using.
    run_child(r'''
    stream, _ = acl.rt.create_stream()

    def loop():
        while True:
            acl.rt.process_report(20)

    tid, ret = acl.util.start_thread(loop, None)
    assert ret == 0 and acl.rt.subscribe_report(tid, stream) == 0
    threading.Thread(target=loop, daemon=True).start()
    threading.Event().wait(0.2)
    ''')
