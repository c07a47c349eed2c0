# Copyright 2026 The Kiln Authors
# SPDX-License-Identifier: Apache-2.0
"""Kiln's Pythonic layer over the AscendCL API (docs/python.md).

    import kiln
    om = kiln.compile("model.onnx", input_shape={"input": [1, 3, 224, 224]})  # .om bytes
    model = kiln.Model(om)                          # or kiln.Model("model.om", device=0)
    outputs = model.run({"input": batch})           # {name: numpy array}
    sess = kiln.InferenceSession("model.onnx")      # onnxruntime's call shape
    (probs,) = sess.run(None, {"input": batch})

Failures raise kiln.KilnError, which carries the AscendCL code and the runtime's message.
"""
import acl
from kiln.compiler import compile  # noqa: A004  (the public name)
from kiln.errors import KilnError
from kiln.model import Model, PendingRun, TensorInfo
from kiln.session import InferenceSession, NodeArg, cache_dir


def get_version():
    """Kiln's version string ("0.1.0"), as aclsysGetVersionStr("runtime") reports it."""
    version, ret = acl.get_version_str("runtime")
    if ret != 0:
        raise KilnError(ret, acl.get_recent_err_msg() or "", "aclsysGetVersionStr")
    return version


__all__ = ["compile", "KilnError", "Model", "PendingRun", "TensorInfo", "InferenceSession",
           "NodeArg", "cache_dir", "get_version"]
