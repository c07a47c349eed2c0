# Copyright 2026 The Kiln Authors
# SPDX-License-Identifier: Apache-2.0
"""kiln.InferenceSession: onnxruntime's call shape over a Kiln model.

    sess = kiln.InferenceSession("model.onnx", providers=["CPUExecutionProvider"])
    name = sess.get_inputs()[0].name
    (probs,) = sess.run(None, {name: batch})

An .onnx is compiled in memory with kiln.compile and the .om cached on disk, keyed by the
model's bytes, the compile options, the Kiln version and the compile target; an .om is loaded
as it is. The cache directory is $KILN_CACHE_DIR, else $XDG_CACHE_HOME/kiln, else
~/.cache/kiln.
"""
import hashlib
import json
import os
import tempfile

import acl
from acl import _acl
from kiln.compiler import compile as _compile
from kiln.compiler import flags as _flags
from kiln.errors import KilnError, check
from kiln.model import Model, initialised_call

OM_MAGIC = b"KILNOM\r\n"

# aclDataType -> onnxruntime's NodeArg.type text.
_ORT_TYPES = {
    acl.ACL_FLOAT: "tensor(float)",
    acl.ACL_FLOAT16: "tensor(float16)",
    acl.ACL_DOUBLE: "tensor(double)",
    acl.ACL_INT8: "tensor(int8)",
    acl.ACL_INT16: "tensor(int16)",
    acl.ACL_INT32: "tensor(int32)",
    acl.ACL_INT64: "tensor(int64)",
    acl.ACL_UINT8: "tensor(uint8)",
    acl.ACL_UINT16: "tensor(uint16)",
    acl.ACL_UINT32: "tensor(uint32)",
    acl.ACL_UINT64: "tensor(uint64)",
    acl.ACL_BOOL: "tensor(bool)",
    acl.ACL_BF16: "tensor(bfloat16)",
}

CPU_PROVIDER = "CPUExecutionProvider"
CUDA_PROVIDER = "CUDAExecutionProvider"


def cache_dir():
    """Where compiled .onnx models are kept."""
    if os.environ.get("KILN_CACHE_DIR"):
        return os.environ["KILN_CACHE_DIR"]
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(base, "kiln")


def cache_key(onnx_bytes, options):
    """sha256 of the model, the compile options, the Kiln version and the compile target."""
    version, ret = acl.get_version_str("runtime")
    check(ret, "aclsysGetVersionStr")
    h = hashlib.sha256()
    h.update(onnx_bytes)
    h.update(json.dumps(_flags(options), sort_keys=True).encode())
    h.update(version.encode())
    h.update(_acl._kiln.host_target().encode())
    return h.hexdigest()


def compile_cached(onnx_bytes, options, use_cache=True):
    """The .om bytes for an ONNX model: from the cache, or compiled now (and stored)."""
    if not use_cache:
        return _compile(onnx_bytes, **options)
    directory = cache_dir()
    path = os.path.join(directory, cache_key(onnx_bytes, options) + ".om")
    try:
        with open(path, "rb") as f:
            data = f.read()
        if data.startswith(OM_MAGIC):
            return data
    except OSError:
        pass
    data = _compile(onnx_bytes, **options)
    try:
        os.makedirs(directory, exist_ok=True)
        # Written whole under a temporary name, then renamed: a reader never sees a partial file.
        fd, tmp = tempfile.mkstemp(dir=directory, suffix=".om.tmp")
        with os.fdopen(fd, "wb") as f:
            f.write(data)
        os.replace(tmp, path)
    except OSError:
        pass  # an unwritable cache only costs a compile next time
    return data


class NodeArg:
    """onnxruntime.NodeArg's fields: name, shape (None for a dynamic dim), type."""

    def __init__(self, name, shape, type):  # noqa: A002  (onnxruntime's field name)
        self.name = name
        self.shape = shape
        self.type = type

    def __repr__(self):
        return f"NodeArg(name={self.name!r}, type={self.type!r}, shape={self.shape})"


def _device_for(providers, provider_options):
    """The AscendCL device id for onnxruntime-style providers (Kiln lists the CUDA GPUs first,
    then the CPU; aclrtGetSocName tells which is which)."""
    providers = list(providers or [CPU_PROVIDER])
    names = []
    for p in providers:
        names.append(p[0] if isinstance(p, (tuple, list)) else p)
    count, ret = initialised_call(acl.rt.get_device_count)
    check(ret, "aclrtGetDeviceCount")
    kinds = []
    for dev in range(count):
        check(acl.rt.set_device(dev), "aclrtSetDevice")
        kinds.append((acl.get_soc_name() or "").startswith("cpu"))
        acl.rt.reset_device(dev)
    for i, name in enumerate(names):
        opts = {}
        if provider_options and i < len(provider_options):
            opts = provider_options[i] or {}
        elif isinstance(providers[i], (tuple, list)) and len(providers[i]) > 1:
            opts = providers[i][1] or {}
        if name == CPU_PROVIDER and True in kinds:
            return kinds.index(True), name
        if name == CUDA_PROVIDER:
            gpus = [d for d, cpu in enumerate(kinds) if not cpu]
            want = int(opts.get("device_id", 0))
            if want < len(gpus):
                return gpus[want], name
    raise KilnError(acl.ACL_ERROR_RT_INVALID_DEVICEID,
                    f"none of the providers {names} is available here", "kiln.InferenceSession")


class InferenceSession:
    """onnxruntime.InferenceSession over Kiln.

    Args:
        path_or_bytes: an .onnx or .om path, or the bytes of either.
        sess_options: accepted for compatibility and ignored.
        providers: "CPUExecutionProvider" and/or "CUDAExecutionProvider" (with
            {"device_id": n}); the first available one is used. Default: the CPU.
        provider_options: per-provider option dicts, as onnxruntime takes them.
        device: a Kiln device id, instead of providers.
        compile_options: kiln.compile options for an .onnx (input_shape, ...).
        cache: False compiles an .onnx every time instead of using the disk cache.
    """

    def __init__(self, path_or_bytes, sess_options=None, providers=None, provider_options=None,
                 device=None, compile_options=None, cache=True):
        if isinstance(path_or_bytes, (bytes, bytearray, memoryview)):
            data = bytes(path_or_bytes)
        else:
            with open(os.fspath(path_or_bytes), "rb") as f:
                data = f.read()
        if device is None:
            device, provider = _device_for(providers, provider_options)
        else:
            provider = "KilnDevice"
        self._providers = [provider]
        if not data.startswith(OM_MAGIC):
            data = compile_cached(data, dict(compile_options or {}), cache)
        self._model = Model(data, device=device)

    def get_inputs(self):
        return [self._arg(t) for t in self._model.inputs]

    def get_outputs(self):
        return [self._arg(t) for t in self._model.outputs]

    def get_providers(self):
        return list(self._providers)

    @staticmethod
    def _arg(t):
        shape = [None if d < 0 else int(d) for d in t.shape]
        return NodeArg(t.name, shape, _ORT_TYPES.get(t.acl_dtype, f"acl({t.acl_dtype})"))

    def run(self, output_names, input_feed, run_options=None):
        """Returns the outputs named (all when None or empty) as a list of numpy arrays."""
        names = list(output_names) if output_names else [t.name for t in self._model.outputs]
        result = self._model.run(input_feed, names)
        return [result[n] for n in names]

    @property
    def model(self):
        """The underlying kiln.Model."""
        return self._model
