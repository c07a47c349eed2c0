# Copyright 2026 The Kiln Authors
# SPDX-License-Identifier: Apache-2.0
"""kiln.Model: a loaded .om with named numpy inputs and outputs.

On the CPU device, device memory is host memory: a C-contiguous input of the model's dtype is
handed to the runtime where it lies (aclCreateDataBuffer on its data pointer) and outputs are
written straight into new numpy arrays, so a run copies nothing. Other inputs (another layout)
are made contiguous first; on other devices inputs and outputs go through device buffers and
aclrtMemcpy. See docs/python.md.
"""
import atexit
import os
import re
import threading

import numpy as np

import acl
from kiln.errors import KilnError, check

DTYPES = {
    acl.ACL_FLOAT: np.dtype(np.float32),
    acl.ACL_FLOAT16: np.dtype(np.float16),
    acl.ACL_DOUBLE: np.dtype(np.float64),
    acl.ACL_INT8: np.dtype(np.int8),
    acl.ACL_INT16: np.dtype(np.int16),
    acl.ACL_INT32: np.dtype(np.int32),
    acl.ACL_INT64: np.dtype(np.int64),
    acl.ACL_UINT8: np.dtype(np.uint8),
    acl.ACL_UINT16: np.dtype(np.uint16),
    acl.ACL_UINT32: np.dtype(np.uint32),
    acl.ACL_UINT64: np.dtype(np.uint64),
    acl.ACL_BOOL: np.dtype(np.bool_),
}

_init_lock = threading.Lock()
_initialised = False


def _ensure_init():
    """aclInit once per process (an application's own acl.init() counts too)."""
    global _initialised
    with _init_lock:
        if _initialised:
            return
        ret = acl.init()
        if ret == acl.ACL_ERROR_REPEAT_INITIALIZE:
            ret = 0  # the application initialised AscendCL itself: it also finalises it
        else:
            check(ret, "aclInit")
            atexit.register(acl.finalize)
        _initialised = True


class TensorInfo:
    """One model input or output: name, shape (-1 for a dynamic dim), numpy dtype, format."""

    def __init__(self, name, shape, dtype, acl_dtype, fmt, size):
        self.name = name
        self.shape = tuple(shape)
        self.dtype = dtype
        self.acl_dtype = acl_dtype
        self.format = fmt
        self.size = size  # bytes (the largest gear's for dynamic models)

    @property
    def dynamic(self):
        return any(d < 0 for d in self.shape)

    def __repr__(self):
        return f"TensorInfo(name={self.name!r}, shape={self.shape}, dtype={self.dtype})"


def _dims(result, api):
    dims, ret = result
    check(ret, api)
    return dims


class Model:
    """A Kiln .om loaded on one device.

        model = kiln.Model("resnet50.om")            # device 0
        out = model.run({"input": image})            # {"output": ndarray}
        pending = model.run_async({"input": image})  # on the model's stream
        out = pending.wait()

    Args:
        model: path of an .om file, or its bytes.
        device: the AscendCL device id (Kiln: the CUDA GPUs, then the CPU).

    Raises KilnError (with the AscendCL code and message) when the device cannot be set or the
    model cannot be loaded.
    """

    def __init__(self, model, device=0):
        _ensure_init()
        self.device = int(device)
        self._ctx = 0
        self._stream = 0
        self._desc = 0
        self._model_id = None
        self._lock = threading.Lock()
        check(acl.rt.set_device(self.device), "aclrtSetDevice")
        self._device_set = True
        ctx, ret = acl.rt.create_context(self.device)
        check(ret, "aclrtCreateContext")
        self._ctx = ctx
        if isinstance(model, (bytes, bytearray, memoryview)):
            data = bytes(model)
            model_id, ret = acl.mdl.load_from_mem(acl.util.bytes_to_ptr(data), len(data))
            check(ret, "aclmdlLoadFromMem")
        else:
            model_id, ret = acl.mdl.load_from_file(os.fspath(model))
            check(ret, "aclmdlLoadFromFile")
        self._model_id = model_id
        self._desc = acl.mdl.create_desc()
        check(acl.mdl.get_desc(self._desc, model_id), "aclmdlGetDesc")
        soc = acl.get_soc_name() or ""
        # CPU device memory is host memory: numpy buffers can be handed over as they are.
        self.zero_copy = soc.startswith("cpu")
        self.inputs = []
        self._gear_index = None
        for i in range(acl.mdl.get_num_inputs(self._desc)):
            info = self._info(i, True)
            if info.name == acl.ACL_DYNAMIC_TENSOR_NAME:
                self._gear_index = i
            else:
                self.inputs.append(info)
        self.outputs = [self._info(i, False) for i in range(acl.mdl.get_num_outputs(self._desc))]
        # Bytes for outputs whose size only the run knows (fully dynamic dims): learned from the
        # runtime's "needs N bytes" answer and kept, so later runs of that size need no retry.
        self._out_bytes = {}
        self._batches = []
        if self._gear_index is not None:
            batch, ret = acl.mdl.get_dynamic_batch(self._desc)
            if ret == 0:
                self._batches = list(batch.get("batch", []))

    def _info(self, i, is_input):
        mdl = acl.mdl
        if is_input:
            dims = _dims(mdl.get_input_dims(self._desc, i), "aclmdlGetInputDims")
            dtype = mdl.get_input_data_type(self._desc, i)
            fmt = mdl.get_input_format(self._desc, i)
            size = mdl.get_input_size_by_index(self._desc, i)
            name = mdl.get_input_name_by_index(self._desc, i)
        else:
            dims = _dims(mdl.get_output_dims(self._desc, i), "aclmdlGetOutputDims")
            dtype = mdl.get_output_data_type(self._desc, i)
            fmt = mdl.get_output_format(self._desc, i)
            size = mdl.get_output_size_by_index(self._desc, i)
            name = mdl.get_output_name_by_index(self._desc, i)
        return TensorInfo(name, dims["dims"], DTYPES.get(dtype), dtype, fmt, size)

    # ---- running -----------------------------------------------------------------------------

    def _feed(self, inputs):
        """The inputs as [(TensorInfo, ndarray)] in model order."""
        if isinstance(inputs, dict):
            unknown = set(inputs) - {t.name for t in self.inputs}
            if unknown:
                raise KilnError(
                    acl.ACL_ERROR_INVALID_PARAM,
                    f"unknown input(s) {sorted(unknown)}; the model's inputs are "
                    f"{[t.name for t in self.inputs]}",
                    "kiln.Model.run",
                )
            missing = [t.name for t in self.inputs if t.name not in inputs]
            if missing:
                raise KilnError(acl.ACL_ERROR_INVALID_PARAM, f"missing input(s) {missing}",
                                "kiln.Model.run")
            values = [inputs[t.name] for t in self.inputs]
        else:
            if isinstance(inputs, np.ndarray):
                inputs = [inputs]
            values = list(inputs)
            if len(values) != len(self.inputs):
                raise KilnError(acl.ACL_ERROR_INVALID_PARAM,
                                f"{len(values)} inputs given, the model has {len(self.inputs)}",
                                "kiln.Model.run")
        feed = []
        for info, value in zip(self.inputs, values):
            if info.dtype is None:
                raise KilnError(acl.ACL_ERROR_UNSUPPORTED_DATA_TYPE,
                                f"input '{info.name}' has aclDataType {info.acl_dtype}, which "
                                "has no numpy equivalent", "kiln.Model.run")
            a = value if isinstance(value, np.ndarray) else np.asarray(value, dtype=info.dtype)
            if a.dtype != info.dtype:
                raise KilnError(acl.ACL_ERROR_INVALID_PARAM,
                                f"input '{info.name}' is {a.dtype}, the model expects "
                                f"{info.dtype}", "kiln.Model.run")
            ok = len(a.shape) == len(info.shape) and all(
                d < 0 or d == s for d, s in zip(info.shape, a.shape))
            if not ok and not self._batches:
                raise KilnError(acl.ACL_ERROR_INVALID_PARAM,
                                f"input '{info.name}' has shape {a.shape}, the model expects "
                                f"{info.shape} (-1 = any)", "kiln.Model.run")
            feed.append((info, a))
        return feed

    def _prepare(self, inputs):
        """Datasets for one execution; returns a _Call holding everything it references."""
        call = _Call(self)
        try:
            check(acl.rt.set_context(self._ctx), "aclrtSetCurrentContext")
            feed = self._feed(inputs)
            call.in_ds = acl.mdl.create_dataset()
            call.out_ds = acl.mdl.create_dataset()
            dynamic_inputs = []
            for i, (info, a) in enumerate(feed):
                if self.zero_copy:
                    a = np.ascontiguousarray(a)  # no copy when it already is
                    ptr = a.__array_interface__["data"][0] if a.nbytes else 0
                else:
                    ptr = call.device_copy(a)
                call.keep.append(a)
                call.add(call.in_ds, ptr, a.nbytes)
                if info.dynamic and not self._batches:
                    dynamic_inputs.append((i, info, a.shape))
            if self._gear_index is not None:
                gear_size = acl.mdl.get_input_size_by_index(self._desc, self._gear_index)
                gear = np.zeros(max(gear_size, 1), dtype=np.uint8)
                if self.zero_copy:
                    ptr = gear.__array_interface__["data"][0]
                else:
                    ptr = call.device_copy(gear)
                call.keep.append(gear)
                call.add(call.in_ds, ptr, gear_size)
                batch = feed[0][1].shape[0] if feed and feed[0][1].ndim else 0
                if batch not in self._batches:
                    raise KilnError(acl.ACL_ERROR_INVALID_PARAM,
                                    f"batch {batch} is not one of the model's gears "
                                    f"{self._batches} (only dynamic-batch gears are selected by "
                                    "kiln.Model; use acl.mdl for the others)", "kiln.Model.run")
                check(acl.mdl.set_dynamic_batch_size(self._model_id, call.in_ds,
                                                     self._gear_index, batch),
                      "aclmdlSetDynamicBatchSize")
            for i, info, shape in dynamic_inputs:
                desc = acl.create_tensor_desc(info.acl_dtype, list(shape), info.format)
                try:
                    check(acl.mdl.set_dataset_tensor_desc(call.in_ds, desc, i),
                          "aclmdlSetDatasetTensorDesc")
                finally:
                    acl.destroy_tensor_desc(desc)
            for info in self.outputs:
                exact = not info.dynamic and not self._batches and info.dtype is not None
                if exact:
                    host = np.empty(info.shape, dtype=info.dtype)
                else:
                    size = max(info.size, self._out_bytes.get(info.name, 0))
                    if size == 0:  # unknown until run: a first guess, corrected by run()
                        size = max(sum(a.nbytes for _, a in feed), 1 << 16)
                    host = np.empty(size, dtype=np.uint8)
                call.outputs.append((info, host, exact))
                if self.zero_copy:
                    ptr = host.__array_interface__["data"][0] if host.nbytes else 0
                else:
                    ptr = call.device_alloc(host.nbytes)
                call.out_ptrs.append(ptr)
                call.add(call.out_ds, ptr, host.nbytes)
        except BaseException:
            call.release()
            raise
        return call

    def run(self, inputs, output_names=None):
        """Runs the model and returns {output name: ndarray}.

        Args:
            inputs: {name: array}, a list of arrays in input order, or one array.
            output_names: the outputs to return (default: all).
        """
        for _ in range(len(self.outputs) + 1):
            call = self._prepare(inputs)
            try:
                ret = acl.mdl.execute(self._model_id, call.in_ds, call.out_ds)
                if ret == acl.ACL_ERROR_INVALID_PARAM:
                    message = acl.get_recent_err_msg() or ""
                    if self._learn_output_size(message):
                        continue  # an output of unknown size needed more: run again
                    raise KilnError(ret, message, "aclmdlExecute")
                check(ret, "aclmdlExecute")
                return call.collect(output_names)
            finally:
                call.release()
        raise KilnError(acl.ACL_ERROR_INVALID_PARAM, "output sizes kept growing", "aclmdlExecute")

    _NEEDS = re.compile(r"output '([^']+)' needs (\d+) bytes")

    def _learn_output_size(self, message):
        m = self._NEEDS.search(message)
        if not m:
            return False
        name, size = m.group(1), int(m.group(2))
        dynamic = {t.name for t in self.outputs if t.dynamic}
        if name not in dynamic or size <= self._out_bytes.get(name, 0):
            return False
        self._out_bytes[name] = size
        return True

    __call__ = run

    def run_async(self, inputs, stream=None, output_names=None):
        """Enqueues the model on `stream` (an acl stream handle; default: the model's own) and
        returns a PendingRun; its wait() synchronises the stream and returns the outputs. The
        inputs must not change until then."""
        call = self._prepare(inputs)
        try:
            if stream is None:
                if not self._stream:
                    s, ret = acl.rt.create_stream()
                    check(ret, "aclrtCreateStream")
                    self._stream = s
                stream = self._stream
            call.stream = stream
            check(acl.mdl.execute_async(self._model_id, call.in_ds, call.out_ds, stream),
                  "aclmdlExecuteAsync")
        except BaseException:
            call.release()
            raise
        return PendingRun(call, output_names)

    # ---- lifetime -----------------------------------------------------------------------------

    def close(self):
        """Unloads the model and releases its context (also done when the object is collected)."""
        if self._ctx:
            acl.rt.set_context(self._ctx)
        if self._stream:
            acl.rt.destroy_stream(self._stream)
            self._stream = 0
        if self._model_id is not None:
            acl.mdl.unload(self._model_id)
            self._model_id = None
        if self._desc:
            acl.mdl.destroy_desc(self._desc)
            self._desc = 0
        if self._ctx:
            acl.rt.destroy_context(self._ctx)
            self._ctx = 0
        if getattr(self, "_device_set", False):
            acl.rt.reset_device(self.device)
            self._device_set = False

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def __del__(self):
        try:
            self.close()
        except Exception:  # noqa: BLE001  (interpreter shutdown: nothing left to report to)
            pass


class _Call:
    """The datasets, buffers and arrays of one execution."""

    def __init__(self, model):
        self.model = model
        self.in_ds = 0
        self.out_ds = 0
        self.buffers = []
        self.device_ptrs = []
        self.keep = []
        self.outputs = []
        self.out_ptrs = []
        self.stream = None

    def add(self, ds, ptr, size):
        buf = acl.create_data_buffer(ptr, size)
        if not buf:
            check(acl.ACL_ERROR_BAD_ALLOC, "aclCreateDataBuffer")
        self.buffers.append(buf)
        _, ret = acl.mdl.add_dataset_buffer(ds, buf)
        check(ret, "aclmdlAddDatasetBuffer")

    def device_alloc(self, size):
        ptr, ret = acl.rt.malloc(max(size, 1), acl.ACL_MEM_MALLOC_HUGE_FIRST)
        check(ret, "aclrtMalloc")
        self.device_ptrs.append(ptr)
        return ptr

    def device_copy(self, a):
        a = np.ascontiguousarray(a)
        ptr = self.device_alloc(a.nbytes)
        if a.nbytes:
            check(acl.rt.memcpy(ptr, a.nbytes, a.__array_interface__["data"][0], a.nbytes,
                                acl.ACL_MEMCPY_HOST_TO_DEVICE), "aclrtMemcpy")
        return ptr

    def collect(self, output_names):
        model = self.model
        result = {}
        for i, (info, host, exact) in enumerate(self.outputs):
            if not model.zero_copy and host.nbytes:
                check(acl.rt.memcpy(host.__array_interface__["data"][0], host.nbytes,
                                    self.out_ptrs[i], host.nbytes, acl.ACL_MEMCPY_DEVICE_TO_HOST),
                      "aclrtMemcpy")
            if not exact:  # a byte buffer of the largest size: view the actual dims
                shape = self._actual_dims(i, info)
                count = int(np.prod(shape)) if shape else 1
                host = host[: count * info.dtype.itemsize].view(info.dtype).reshape(shape)
            result[info.name] = host
        if output_names is None:
            return result
        missing = [n for n in output_names if n not in result]
        if missing:
            raise KilnError(acl.ACL_ERROR_INVALID_PARAM,
                            f"unknown output(s) {missing}; the model's outputs are "
                            f"{list(result)}", "kiln.Model.run")
        return {n: result[n] for n in output_names}

    def _actual_dims(self, i, info):
        desc = acl.mdl.get_dataset_tensor_desc(self.out_ds, i)
        if desc:
            return [acl.get_tensor_desc_dim_v2(desc, k)[0]
                    for k in range(acl.get_tensor_desc_num_dims(desc))]
        dims, ret = acl.mdl.get_cur_output_dims(self.model._desc, i)
        check(ret, "aclmdlGetCurOutputDims")
        return dims["dims"]

    def release(self):
        for buf in self.buffers:
            acl.destroy_data_buffer(buf)
        self.buffers = []
        for ds in (self.in_ds, self.out_ds):
            if ds:
                acl.mdl.destroy_dataset(ds)
        self.in_ds = self.out_ds = 0
        for ptr in self.device_ptrs:
            acl.rt.free(ptr)
        self.device_ptrs = []


class PendingRun:
    """An execution enqueued by Model.run_async."""

    def __init__(self, call, output_names):
        self._call = call
        self._names = output_names
        self._result = None

    def wait(self):
        """Waits for the stream and returns {output name: ndarray} (the same on every call)."""
        if self._result is None:
            call = self._call
            try:
                check(acl.rt.set_context(call.model._ctx), "aclrtSetCurrentContext")
                check(acl.rt.synchronize_stream(call.stream), "aclrtSynchronizeStream")
                self._result = call.collect(self._names)
            finally:
                call.release()
        return self._result
