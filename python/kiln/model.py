# Copyright 2026 The Kiln Authors
# SPDX-License-Identifier: Apache-2.0
"""kiln.Model: a loaded .om with named numpy inputs and outputs.

On the CPU device, device memory is host memory: a C-contiguous input of the model's dtype is
handed to the runtime where it lies (aclCreateDataBuffer on its data pointer) and outputs are
written straight into new numpy arrays, so a run copies nothing. Other inputs (another layout)
are made contiguous first; on other devices inputs and outputs go through device buffers and
aclrtMemcpy. See docs/python.md.

Outputs whose size no AscendCL call reports before a run (fully dynamic dims: the description
gives 0 bytes) get a guessed buffer; when the run fails with ACL_ERROR_INVALID_PARAM the guesses
grow and the run is repeated (see Model.run and docs/python.md, "Outputs of unknown size").
"""
import atexit
import os
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
_finalize_registered = False

# Unknown output sizes: the first guess is at least this, and each retry multiplies it by GROWTH.
FIRST_GUESS = 1 << 16
GROWTH = 8


def _ensure_init(again=False):
    """aclInit once per process (an application's own acl.init() counts too). again=True: a call
    found AscendCL uninitialised (the application finalised it): initialise it again."""
    global _initialised, _finalize_registered
    with _init_lock:
        if _initialised and not again:
            return
        ret = acl.init()
        if ret == acl.ACL_ERROR_REPEAT_INITIALIZE:
            ret = 0  # the application initialised AscendCL itself: it also finalises it
        else:
            check(ret, "aclInit")
            if not _finalize_registered:
                atexit.register(_finalize_at_exit)
                _finalize_registered = True
        _initialised = True


def _finalize_at_exit():
    acl.finalize()  # an error (the application finalised first) has no one to go to


def initialised_call(fn, *args):
    """fn(*args) (an acl call whose result is ret or ends with ret) after aclInit; when it finds
    AscendCL uninitialised (ACL_ERROR_UNINITIALIZE: the application called acl.finalize()),
    initialises again and repeats it once."""
    _ensure_init()
    result = fn(*args)
    ret = result[-1] if isinstance(result, tuple) else result
    if ret == acl.ACL_ERROR_UNINITIALIZE:
        acl.get_recent_err_msg()  # our own "needs aclInit": not the application's to see
        _ensure_init(again=True)
        result = fn(*args)
    return result


def _memory_cap():
    """The largest buffer worth trying for an output of unknown size: the device's free memory
    (aclrtGetMemInfo), or 64 GiB when it cannot say."""
    free, _, ret = acl.rt.get_mem_info(acl.ACL_HBM_MEM)
    return free if ret == 0 and free > 0 else 1 << 36


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
        self._ctx = 0
        self._stream = 0
        self._desc = 0
        self._model_id = None
        self._device_set = False
        if isinstance(device, bool) or not isinstance(device, (int, np.integer)):
            raise TypeError(f"kiln.Model: device must be an int, not {type(device).__name__}")
        self.device = int(device)
        if not isinstance(model, (bytes, bytearray, memoryview, str, os.PathLike)):
            raise TypeError("kiln.Model: model must be an .om path or its bytes, not "
                            f"{type(model).__name__}")
        check(initialised_call(acl.rt.set_device, self.device), "aclrtSetDevice")
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
        # Bytes of outputs whose size only a run tells (the description gives 0): the largest
        # a successful run has produced, so later runs of that size need no retry.
        self._out_bytes = {}
        self._batches = []
        if self._gear_index is not None:
            batch, ret = acl.mdl.get_dynamic_batch(self._desc)
            if ret == 0:
                self._batches = list(batch.get("batch", []))

    @property
    def batch_sizes(self):
        """The model's dynamic-batch gears (`kiln atc --dynamic_batch_size`), [] when it has none."""
        return list(self._batches)

    def _info(self, i, is_input):
        mdl = acl.mdl
        if is_input:
            # V2: the dims of the buffer itself (a static AIPP NV12 image is [N, 1.5 H, W, 1],
            # where aclmdlGetInputDims reports [N, H, W, 3]); the same as V1 otherwise.
            dims = _dims(mdl.get_input_dims_v2(self._desc, i), "aclmdlGetInputDimsV2")
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
                    f"unknown input(s) {sorted(unknown, key=str)}; the model's inputs are "
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
            if isinstance(inputs, (str, bytes)) or not hasattr(inputs, "__iter__"):
                raise TypeError("kiln.Model.run: inputs must be a dict {name: array}, a list of "
                                f"arrays or one array, not {type(inputs).__name__}")
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
            if isinstance(value, np.ndarray):
                a = value
            else:
                try:
                    a = np.asarray(value, dtype=info.dtype)
                except (TypeError, ValueError, OverflowError) as e:
                    raise KilnError(acl.ACL_ERROR_INVALID_PARAM,
                                    f"input '{info.name}' cannot be read as an array of "
                                    f"{info.dtype}: {e}", "kiln.Model.run") from None
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

    def _unbounded(self, info):
        """Whether no AscendCL call tells this output's size before a run: dynamic dims and a
        description size of 0 (a bounded dynamic output has its largest size there)."""
        return info.size == 0 and (info.dynamic or bool(self._batches))

    def _prepare(self, inputs, sizes=None):
        """Datasets for one execution; returns a _Call holding everything it references.

        sizes: {output name: bytes} for the outputs of unknown size (see _unbounded); missing
        ones get the first guess.
        """
        call = _Call(self)
        try:
            check(acl.rt.set_context(self._ctx), "aclrtSetCurrentContext")
            feed = self._feed(inputs)
            call.inputs = inputs
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
            guess = max(sum(a.nbytes for _, a in feed), FIRST_GUESS)
            for info in self.outputs:
                exact = not info.dynamic and not self._batches and info.dtype is not None
                if exact:
                    host = np.empty(info.shape, dtype=info.dtype)
                elif self._unbounded(info):
                    size = (sizes or {}).get(info.name) or max(
                        self._out_bytes.get(info.name, 0), guess)
                    call.unbounded[info.name] = size
                    host = np.empty(size, dtype=np.uint8)
                else:  # bounded: the description's size is the largest it can be
                    host = np.empty(info.size, dtype=np.uint8)
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

    def _check_open(self):
        if self._model_id is None:
            raise KilnError(acl.ACL_ERROR_INVALID_PARAM, "the model is closed", "kiln.Model.run")

    def run(self, inputs, output_names=None):
        """Runs the model and returns {output name: ndarray}.

        Args:
            inputs: {name: array}, a list of arrays in input order, or one array.
            output_names: the outputs to return (default: all).

        Outputs of unknown size (fully dynamic dims) get a guessed buffer; a failure with
        ACL_ERROR_INVALID_PARAM grows the guesses (x GROWTH, up to the device's free memory) and
        runs again, until the run succeeds, the failure stays the same (code and message) after
        a growth, or the cap is reached: then the first failure is raised.
        """
        self._check_open()
        sizes = None
        first = previous = None
        while True:
            try:
                call = self._prepare(inputs, sizes)
            except MemoryError:
                if first is None:
                    raise
                raise self._failure(first, call, "aclmdlExecute") from None
            try:
                ret = acl.mdl.execute(self._model_id, call.in_ds, call.out_ds)
                if ret == 0:
                    result = call.collect(output_names)
                    self._learn(call)
                    return result
                failure = (ret, acl.get_recent_err_msg() or "")
            finally:
                call.release()
            first = first or failure
            sizes = self._grown(call, failure, previous)
            if sizes is None:
                raise self._failure(first, call, "aclmdlExecute")
            previous = failure

    def _grown(self, call, failure, previous):
        """The next sizes for the outputs of unknown size after `failure`, or None when growing
        cannot help: another code, no such outputs, the same failure as with smaller buffers, or
        the cap reached."""
        if failure[0] != acl.ACL_ERROR_INVALID_PARAM or not call.unbounded:
            return None
        if failure == previous:
            return None  # larger buffers changed nothing: the failure is not about them
        cap = _memory_cap()
        sizes = {name: min(size * GROWTH, max(cap, size)) for name, size in call.unbounded.items()}
        if sizes == call.unbounded:
            return None
        return sizes

    @staticmethod
    def _failure(failure, call, api):
        code, message = failure
        if call.unbounded:
            largest = max(call.unbounded.values())
            message += (f" (outputs of unknown size {sorted(call.unbounded)} were given up to "
                        f"{largest} bytes)")
        return KilnError(code, message, api)

    def _learn(self, call):
        """Keeps the size each output of unknown size had, for the next runs' first buffer."""
        for name, nbytes in call.actual_bytes.items():
            if nbytes > self._out_bytes.get(name, 0):
                self._out_bytes[name] = nbytes

    __call__ = run

    def run_async(self, inputs, stream=None, output_names=None):
        """Enqueues the model on `stream` (an acl stream handle; default: the model's own) and
        returns a PendingRun; its wait() synchronises the stream and returns the outputs. The
        inputs must not change until then. If an output of unknown size did not fit its guessed
        buffer, wait() runs the model again synchronously (as run() does)."""
        self._check_open()
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
        self.inputs = None
        self.in_ds = 0
        self.out_ds = 0
        self.buffers = []
        self.device_ptrs = []
        self.keep = []
        self.outputs = []
        self.out_ptrs = []
        self.unbounded = {}  # output name -> bytes of its guessed buffer
        self.actual_bytes = {}  # output name -> bytes it had (outputs of unknown size)
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
        if output_names is not None:
            names = [t.name for t, _, _ in self.outputs]
            missing = [n for n in output_names if n not in names]
            if missing:
                raise KilnError(acl.ACL_ERROR_INVALID_PARAM,
                                f"unknown output(s) {missing}; the model's outputs are {names}",
                                "kiln.Model.run")
        result = {}
        for i, (info, host, exact) in enumerate(self.outputs):
            if output_names is not None and info.name not in output_names:
                continue
            if info.dtype is None:
                raise KilnError(acl.ACL_ERROR_UNSUPPORTED_DATA_TYPE,
                                f"output '{info.name}' has aclDataType {info.acl_dtype}, which "
                                "has no numpy equivalent", "kiln.Model.run")
            if not exact:  # a byte buffer of the largest size: view the actual dims
                shape = self._actual_dims(i, info)
                count = int(np.prod(shape)) if shape else 1
                nbytes = count * info.dtype.itemsize
                if nbytes > host.nbytes:
                    raise KilnError(acl.ACL_ERROR_INVALID_PARAM,
                                    f"output '{info.name}' has dims {shape} ({nbytes} bytes) "
                                    f"but its buffer has {host.nbytes}", "kiln.Model.run")
                if info.name in self.unbounded:
                    self.actual_bytes[info.name] = nbytes
                host = host[:nbytes]
            if not model.zero_copy and host.nbytes:
                check(acl.rt.memcpy(host.__array_interface__["data"][0], host.nbytes,
                                    self.out_ptrs[i], host.nbytes, acl.ACL_MEMCPY_DEVICE_TO_HOST),
                      "aclrtMemcpy")
            if not exact:
                host = host.view(info.dtype).reshape(shape)
            result[info.name] = host
        if output_names is None:
            return result
        return {n: result[n] for n in output_names}

    def _actual_dims(self, i, info):
        desc = acl.mdl.get_dataset_tensor_desc(self.out_ds, i)
        if desc:
            dims = []
            for k in range(acl.get_tensor_desc_num_dims(desc)):
                dim, ret = acl.get_tensor_desc_dim_v2(desc, k)
                check(ret, "aclGetTensorDescDimV2")
                dims.append(dim)
            return dims
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
        self._done = False

    def __del__(self):
        # Never waited for: the run may still read the inputs and write the outputs this object
        # keeps alive, so wait for the stream before they can be freed.
        if not getattr(self, "_done", True):
            try:
                acl.rt.set_context(self._call.model._ctx)
                acl.rt.synchronize_stream(self._call.stream)
            finally:
                self._call.release()

    def wait(self):
        """Waits for the stream and returns {output name: ndarray} (the same on every call)."""
        if not self._done:
            call = self._call
            model = call.model
            try:
                check(acl.rt.set_context(model._ctx), "aclrtSetCurrentContext")
                ret = acl.rt.synchronize_stream(call.stream)
                if ret == acl.ACL_ERROR_INVALID_PARAM and call.unbounded:
                    # An output of unknown size may not have fitted: run() grows the buffers.
                    acl.get_recent_err_msg()
                    call.release()
                    self._result = model.run(call.inputs, self._names)
                else:
                    check(ret, "aclrtSynchronizeStream")
                    self._result = call.collect(self._names)
                    model._learn(call)
            finally:
                self._done = True
                call.release()
        return self._result
