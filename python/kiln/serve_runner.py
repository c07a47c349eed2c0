# Copyright 2026 The Kiln Authors
# SPDX-License-Identifier: Apache-2.0
"""The serving core without a server (docs/serving.md), shared by kiln.serve (Ray Serve) and
kiln.kserve_model (KServe): ModelRunner loads a model on a device, checks each request, plans
and runs batches (one execution over concatenated samples, dynamic-batch gears, or a loop) and
keeps batch statistics; decode_inputs/encode_outputs are the JSON forms of tensors; ServeError
is a failure with its HTTP status that survives pickling between Ray processes.
"""
import base64
import collections
import os
import threading

import numpy as np

import acl
from kiln.errors import KilnError
from kiln.model import Model
from kiln.session import OM_MAGIC, InferenceSession


DEFAULT_MAX_BATCH_SIZE = 8
DEFAULT_BATCH_WAIT_TIMEOUT_S = 0.005
DEVICE_ENV = "KILN_SERVE_DEVICE"
BATCH_MODES = ("auto", "loop")


class ServeError(Exception):
    """A failed request: an HTTP status and, for Kiln's own failures, the AscendCL code.

    It pickles by its fields (Ray sends it back through a deployment handle), unlike KilnError,
    whose constructor takes more than its message.
    """

    def __init__(self, status, message, code=0, code_name="", api=""):
        super().__init__(message)
        self.status = int(status)
        self.message = message
        self.code = int(code)
        self.code_name = code_name
        self.api = api

    def __reduce__(self):
        return (ServeError, (self.status, self.message, self.code, self.code_name, self.api))

    @classmethod
    def wrap(cls, error):
        """A ServeError for any exception: KilnError with ACL_ERROR_INVALID_PARAM (the caller's
        inputs: names, shapes, dtypes) is 400, other KilnErrors and the rest are 500."""
        if isinstance(error, ServeError):
            return error
        if isinstance(error, KilnError):
            status = 400 if error.code == acl.ACL_ERROR_INVALID_PARAM else 500
            return cls(status, str(error), error.code, error.code_name, error.api)
        return cls(500, f"{type(error).__name__}: {error}")

    def to_json(self):
        return {"error": {"message": self.message, "status": self.status, "code": self.code,
                          "code_name": self.code_name, "api": self.api}}


def _bad(message):
    return ServeError(400, message, acl.ACL_ERROR_INVALID_PARAM, "ACL_ERROR_INVALID_PARAM",
                      "kiln.serve")


def resolve_device(device=None):
    """The Kiln device id of this process: `device` when given, else $KILN_SERVE_DEVICE, else 0.

    Ids are logical: when ASCEND_RT_VISIBLE_DEVICES is set (Ray sets it for a replica that asks
    for "NPU" resources; a launcher may set it per process) device 0 is the first visible one.
    """
    if device is None or device == "":
        device = os.environ.get(DEVICE_ENV, "0") or "0"
    if isinstance(device, bool):
        raise TypeError("device must be an int")
    try:
        return int(device)
    except (TypeError, ValueError):
        raise ValueError(f"device must be an int, not {device!r}") from None


def load_model(model_path, device=0, compile_options=None, cache=True):
    """A kiln.Model for an .om (loaded as it is) or an .onnx (compiled through
    kiln.InferenceSession's on-disk cache, with `compile_options`)."""
    path = os.fspath(model_path)
    with open(path, "rb") as f:
        is_om = f.read(len(OM_MAGIC)) == OM_MAGIC
    if is_om:
        if compile_options:
            raise ValueError(f"{path} is an .om: compile_options apply to .onnx models only")
        return Model(path, device=device)
    return InferenceSession(path, device=device, compile_options=dict(compile_options or {}),
                            cache=cache).model


class Sample:
    """One validated request: its arrays with a leading batch axis of `count` rows; `squeeze`
    when the request gave a single sample without that axis (its outputs lose it too)."""

    __slots__ = ("arrays", "count", "squeeze", "key")

    def __init__(self, arrays, count, squeeze, key):
        self.arrays = arrays
        self.count = count
        self.squeeze = squeeze
        self.key = key


class ModelRunner:
    """A loaded model and how batches of requests run on it.

    Batch modes, chosen from the model's description (batch_mode="auto"):
      - "dynamic": every input and output has a dynamic first dim (-1): the requests of a batch
        with the same per-sample shapes are concatenated and run once.
      - "gears": the model takes a fixed set of batch sizes (an .om compiled with
        dynamic_batch_size, or a fixed first dim B shared by inputs and outputs, B = 1 included):
        the rows are cut into chunks of those sizes, largest first; a remainder smaller than
        every gear is padded with copies of its last row, whose outputs are dropped.
      - "loop" (also batch_mode="loop"): anything else (a first dim that is not a batch): each
        request runs alone, as given.
    """

    def __init__(self, model_path, device=None, compile_options=None, batch_mode="auto",
                 cache=True, name=None):
        if batch_mode not in BATCH_MODES:
            raise ValueError(f"batch_mode must be one of {BATCH_MODES}, not {batch_mode!r}")
        self.model_path = os.fspath(model_path)
        self.name = name or os.path.splitext(os.path.basename(self.model_path))[0]
        self.device = resolve_device(device)
        self.model = load_model(self.model_path, self.device, compile_options, cache)
        self.inputs = list(self.model.inputs)
        self.outputs = list(self.model.outputs)
        self.mode, self.gears = self._choose_mode(batch_mode)
        self._lock = threading.Lock()
        self._stats = {"batches": 0, "requests": 0, "samples": 0, "model_runs": 0,
                       "failed_requests": 0}
        self._sizes = collections.Counter()

    def _choose_mode(self, batch_mode):
        if batch_mode == "loop" or not self.inputs:
            return "loop", []
        gears = list(getattr(self.model, "batch_sizes", []))  # Model's gears; [] for a session
        if gears:
            return "gears", sorted(gears)
        firsts = {t.shape[0] if t.shape else None for t in self.inputs + self.outputs}
        if firsts == {-1}:
            return "dynamic", []
        if len(firsts) == 1 and next(iter(firsts)) is not None and next(iter(firsts)) > 0:
            return "gears", [next(iter(firsts))]
        return "loop", []

    # ---- requests ---------------------------------------------------------------------------

    def prepare(self, payload):
        """Validates one request ({input name: array or nested list}, or one array for a
        one-input model) into a Sample; raises ServeError (400) naming what is wrong."""
        if not isinstance(payload, dict):
            if len(self.inputs) != 1:
                raise _bad(f"the model has inputs {[t.name for t in self.inputs]}: send a dict")
            payload = {self.inputs[0].name: payload}
        names = [t.name for t in self.inputs]
        unknown = sorted(set(payload) - set(names), key=str)
        if unknown:
            raise _bad(f"unknown input(s) {unknown}; the model's inputs are {names}")
        missing = [n for n in names if n not in payload]
        if missing:
            raise _bad(f"missing input(s) {missing}")
        arrays, counts, squeezes, key = {}, set(), set(), []
        for info in self.inputs:
            a = self._array(info, payload[info.name])
            rank = len(info.shape)
            squeeze = self.mode != "loop" and a.ndim == rank - 1
            if squeeze:
                a = a[np.newaxis]
            if a.ndim != rank:
                raise _bad(f"input '{info.name}' has shape {list(a.shape)}; the model expects "
                           f"{list(info.shape)} (-1 = any), or one sample of "
                           f"{list(info.shape[1:])}")
            first = 0 if self.mode == "loop" else 1
            wrong = [i for i in range(first, rank) if 0 <= info.shape[i] != a.shape[i]]
            if wrong or (self.mode != "loop" and a.shape[0] < 1):
                raise _bad(f"input '{info.name}' has shape {list(a.shape)}; the model expects "
                           f"{list(info.shape)} (-1 = any)")
            arrays[info.name] = a
            counts.add(a.shape[0] if a.ndim else 1)
            squeezes.add(squeeze)
            key.append(a.shape[1:])
        if self.mode != "loop" and len(counts) != 1:
            raise _bad(f"the inputs have different batch sizes {sorted(counts)}")
        return Sample(arrays, counts.pop(), squeezes == {True}, tuple(key))

    @staticmethod
    def _array(info, value):
        if isinstance(value, np.ndarray):
            if value.dtype != info.dtype:
                raise _bad(f"input '{info.name}' is {value.dtype}, the model expects "
                           f"{info.dtype}")
            return value
        try:
            return np.asarray(value, dtype=info.dtype)
        except (TypeError, ValueError, OverflowError) as e:
            raise _bad(f"input '{info.name}' cannot be read as an array of {info.dtype}: "
                       f"{e}") from None

    # ---- running ----------------------------------------------------------------------------

    def run(self, samples):
        """Runs a batch of Samples; returns, in order, {output name: ndarray} or a ServeError
        for each. A failure fails the requests that ran with it, not the whole batch."""
        results = [None] * len(samples)
        groups = collections.OrderedDict()
        for i, s in enumerate(samples):
            groups.setdefault(None if self.mode == "loop" else s.key, []).append(i)
        for key, idx in groups.items():
            runs = [[i] for i in idx] if key is None else [idx]
            for run in runs:
                try:
                    outs = self._run_group([samples[i] for i in run])
                except Exception as e:  # noqa: BLE001  (reported to each caller)
                    err = ServeError.wrap(e)
                    outs = [err] * len(run)
                for i, out in zip(run, outs):
                    results[i] = out
        with self._lock:
            self._stats["batches"] += 1
            self._stats["requests"] += len(samples)
            self._stats["samples"] += sum(s.count for s in samples)
            self._stats["failed_requests"] += sum(isinstance(r, ServeError) for r in results)
            self._sizes[len(samples)] += 1
        return results

    def _execute(self, feed):
        with self._lock:
            self._stats["model_runs"] += 1
        return self.model.run(feed)

    def _run_group(self, group):
        if self.mode == "loop":
            return [self._squeezed(self._execute(group[0].arrays), group[0])]
        counts = [s.count for s in group]
        total = sum(counts)
        if len(group) == 1:
            feed = group[0].arrays
        else:
            feed = {n: np.concatenate([s.arrays[n] for s in group]) for n in group[0].arrays}
        if self.mode == "dynamic":
            outs = self._execute(feed)
        else:
            outs = self._run_gears(feed, total)
        for name, a in outs.items():
            if a.ndim == 0 or a.shape[0] != total:
                raise ServeError(500, f"output '{name}' has shape {list(a.shape)} for a batch of "
                                 f"{total}: its first dim is not the batch; serve this model "
                                 "with batch_mode='loop'")
        cuts = np.cumsum(counts)[:-1]
        parts = {n: np.split(a, cuts) for n, a in outs.items()}
        return [self._squeezed({n: parts[n][k] for n in outs}, s) for k, s in enumerate(group)]

    def plan(self, rows):
        """[(rows taken, gear run)] covering `rows` in "gears" mode."""
        plan = []
        while rows > 0:
            fits = [g for g in self.gears if g <= rows]
            gear = max(fits) if fits else min(self.gears)
            plan.append((min(gear, rows), gear))
            rows -= min(gear, rows)
        return plan

    def _run_gears(self, feed, total):
        chunks, start = [], 0
        for take, gear in self.plan(total):
            part = {}
            for n, a in feed.items():
                rows = a[start:start + take]
                if take < gear:
                    rows = np.concatenate([rows, np.repeat(rows[-1:], gear - take, axis=0)])
                part[n] = rows
            out = self._execute(part)
            chunks.append({n: a[:take] for n, a in out.items()})
            start += take
        if len(chunks) == 1:
            return chunks[0]
        return {n: np.concatenate([c[n] for c in chunks]) for n in chunks[0]}

    @staticmethod
    def _squeezed(outs, sample):
        if not sample.squeeze:
            return outs
        return {n: a[0] if a.ndim and a.shape[0] == 1 else a for n, a in outs.items()}

    # ---- description ------------------------------------------------------------------------

    def metadata(self):
        """The model's name, inputs and outputs (-1: any size), batching and device."""
        def tensors(infos):
            return [{"name": t.name, "dtype": str(t.dtype), "shape": [int(d) for d in t.shape]}
                    for t in infos]
        return {"name": self.name, "inputs": tensors(self.inputs),
                "outputs": tensors(self.outputs), "batch_mode": self.mode,
                "gears": list(self.gears), "device": self.device,
                "visible_devices": os.environ.get("ASCEND_RT_VISIBLE_DEVICES"),
                "soc": acl.get_soc_name() or "", "pid": os.getpid()}

    def stats(self):
        """Counts since start: batches, requests, samples, model runs, failed requests, and
        batch_sizes {requests in a batch: batches}; max_batch_size_seen is its largest key."""
        with self._lock:
            out = dict(self._stats)
            out["batch_sizes"] = {str(k): v for k, v in sorted(self._sizes.items())}
            out["max_batch_size_seen"] = max(self._sizes, default=0)
        out["pid"] = os.getpid()
        return out

    def close(self):
        self.model.close()


# ---- the JSON wire format (HTTP) -------------------------------------------------------------

def decode_inputs(body):
    """{"inputs": {name: value}} (or one value for a one-input model) from a parsed JSON body.
    A value is a nested list, or {"b64": base64 of little-endian bytes, "dtype", "shape"}.
    Returns (payload, encoding): encoding "b64" when any input came so (outputs go back so)."""
    if not isinstance(body, dict) or "inputs" not in body:
        raise _bad('the body must be a JSON object {"inputs": {name: value}}')
    inputs, encoding = body["inputs"], "json"

    def one(value):
        nonlocal encoding
        if isinstance(value, dict) and "b64" in value:
            encoding = "b64"
            try:
                dtype = np.dtype(value["dtype"]).newbyteorder("<")
                raw = base64.b64decode(value["b64"], validate=True)
                return np.frombuffer(raw, dtype).reshape(value["shape"]).astype(
                    dtype.newbyteorder("="))
            except (KeyError, TypeError, ValueError) as e:
                raise _bad(f"bad b64 tensor: {e}") from None
        return value

    if isinstance(inputs, dict) and not ("b64" in inputs and "dtype" in inputs):
        payload = {k: one(v) for k, v in inputs.items()}
    else:
        payload = one(inputs)
    return payload, body.get("encoding", encoding)


def encode_outputs(outputs, encoding="json"):
    """{"outputs": {name: nested list}} or, for encoding "b64", {name: {"b64", "dtype",
    "shape"}}."""
    if encoding == "b64":
        def enc(a):
            a = np.ascontiguousarray(a, a.dtype.newbyteorder("<"))
            return {"b64": base64.b64encode(a.tobytes()).decode("ascii"), "dtype": a.dtype.name,
                    "shape": list(a.shape)}
    else:
        def enc(a):
            return a.tolist()
    return {"outputs": {n: enc(a) for n, a in outputs.items()}}


# ---- Ray Serve -------------------------------------------------------------------------------
