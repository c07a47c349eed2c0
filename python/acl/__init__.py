# Copyright 2026 The Kiln Authors
# SPDX-License-Identifier: Apache-2.0
"""pyACL-compatible AscendCL bindings over Kiln's libascendcl.so.

    import acl
    ret = acl.init()
    ret = acl.rt.set_device(0)
    model_id, ret = acl.mdl.load_from_file("model.om")

Names are the C names without prefix in snake_case (aclrtMemcpy -> acl.rt.memcpy); pointers and
handles are ints; a C function returning only a status returns `ret`, one with OUT parameters
returns `(out..., ret)`. Unlike pyACL, the AscendCL constants (ACL_MEM_MALLOC_HUGE_FIRST,
ACL_MEMCPY_HOST_TO_DEVICE, ACL_FLOAT, ACL_FORMAT_NCHW, ACL_ERROR_*, ...) and the DVPP enum values
(PIXEL_FORMAT_*, DVPP_CHNMODE_*, BORDER_*, ...) are also attributes of this module. See
docs/python.md.
"""
import sys as _sys

from acl import _acl
from acl._acl import *  # noqa: F401,F403  (pyACL's top-level functions and the constants)
from acl._acl import blas, media, mdl, op, prof, rt, util

# `import acl.rt` and `from acl.mdl import execute` work as they do with pyACL's C module.
for _name in ("rt", "mdl", "util", "prof", "media", "op", "blas"):
    _sys.modules[f"{__name__}.{_name}"] = getattr(_acl, _name)
del _name
