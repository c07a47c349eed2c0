# Copyright 2026 The Kiln Authors
# SPDX-License-Identifier: Apache-2.0
"""Host callbacks the pyACL way: a native thread from acl.util.start_thread loops on
acl.rt.process_report; acl.rt.subscribe_report binds it to a stream; acl.rt.launch_callback
enqueues Python functions that run in that thread, in stream order with the model's
execute_async and the copies around it."""
import threading

import numpy as np
import pytest

import acl

ACL_CALLBACK_BLOCK = 1
ACL_CALLBACK_NO_BLOCK = 0


class ReportLoop:
    """The sample's callback thread: process_report until told to stop (before subscribe and
    after unsubscribe it is told ACL_ERROR_RT_THREAD_SUBSCRIBE, as the samples tolerate)."""

    def __init__(self):
        self.running = True
        self.idents = []

    def __call__(self, args):
        self.idents.append(threading.get_ident())
        while self.running:
            ret = acl.rt.process_report(20)
            assert ret in (0, acl.ACL_ERROR_RT_REPORT_TIMEOUT,
                           acl.ACL_ERROR_RT_THREAD_SUBSCRIBE), ret


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


def test_callbacks_run_in_the_subscribed_thread_in_stream_order(device, mnist_om, mnist_data):
    stream, ret = acl.rt.create_stream()
    assert ret == 0
    loop = ReportLoop()
    tid, ret = acl.util.start_thread(loop, [])
    assert ret == 0 and tid != 0
    assert acl.rt.subscribe_report(tid, stream) == 0

    model_id, ret = acl.mdl.load_from_file(mnist_om)
    assert ret == 0
    seen = []

    def on_done(args):
        index, host = args
        # The callback runs in the native thread whose pthread_t subscribe_report was given.
        seen.append((index, threading.get_ident(), host.copy()))

    in_ds, out_ds = acl.mdl.create_dataset(), acl.mdl.create_dataset()
    image_host = np.zeros((1, 1, 28, 28), dtype=np.float32)
    dev_in, _ = acl.rt.malloc(image_host.nbytes, 0)
    dev_out, _ = acl.rt.malloc(40, 0)
    bufs = [acl.create_data_buffer(dev_in, image_host.nbytes), acl.create_data_buffer(dev_out, 40)]
    acl.mdl.add_dataset_buffer(in_ds, bufs[0])
    acl.mdl.add_dataset_buffer(out_ds, bufs[1])
    hosts = [np.zeros((1, 10), dtype=np.float32) for _ in mnist_data]
    images = [np.ascontiguousarray(x, dtype=np.float32) for x, _ in mnist_data]
    for i, image in enumerate(images):
        assert acl.rt.memcpy_async(dev_in, image.nbytes, acl.util.numpy_to_ptr(image), image.nbytes,
                                   1, stream) == 0
        assert acl.mdl.execute_async(model_id, in_ds, out_ds, stream) == 0
        assert acl.rt.memcpy_async(acl.util.numpy_to_ptr(hosts[i]), 40, dev_out, 40, 2,
                                   stream) == 0
        block = ACL_CALLBACK_BLOCK if i % 2 == 0 else ACL_CALLBACK_NO_BLOCK
        assert acl.rt.launch_callback(on_done, (i, hosts[i]), block, stream) == 0
    assert acl.rt.synchronize_stream(stream) == 0

    assert [s[0] for s in seen] == [0, 1, 2]
    assert all(s[1] == tid for s in seen)
    for (_, _, logits), (_, expected) in zip(seen, mnist_data):
        np.testing.assert_allclose(logits, expected, rtol=1e-3, atol=1e-4)

    assert acl.rt.unsubscribe_report(tid, stream) == 0
    loop.running = False
    assert acl.util.stop_thread(tid) == 0
    assert loop.idents == [tid]
    for b in bufs:
        acl.destroy_data_buffer(b)
    acl.mdl.destroy_dataset(in_ds)
    acl.mdl.destroy_dataset(out_ds)
    acl.rt.free(dev_in)
    acl.rt.free(dev_out)
    assert acl.mdl.unload(model_id) == 0
    assert acl.rt.destroy_stream(stream) == 0


def test_callback_errors_are_codes(device):
    stream, ret = acl.rt.create_stream()
    assert ret == 0
    # No thread subscribed to the stream.
    assert acl.rt.launch_callback(print, None, 1, stream) == acl.ACL_ERROR_RT_STREAM_NO_CB_REG
    # This thread is not subscribed to any stream.
    assert acl.rt.process_report(10) == acl.ACL_ERROR_RT_THREAD_SUBSCRIBE
    # A thread id that start_thread did not return.
    assert acl.util.stop_thread(12345) == acl.ACL_ERROR_INVALID_PARAM
    assert acl.rt.destroy_stream(stream) == 0


def test_stop_thread_raises_when_the_thread_function_raised(device):
    def boom(args):
        raise ValueError(f"callback thread failed with {args}")

    tid, ret = acl.util.start_thread(boom, 7)
    assert ret == 0
    with pytest.raises(RuntimeError, match="callback thread failed with 7"):
        acl.util.stop_thread(tid)
