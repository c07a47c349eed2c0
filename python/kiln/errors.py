# Copyright 2026 The Kiln Authors
# SPDX-License-Identifier: Apache-2.0
"""KilnError: the one exception class of the kiln package, carrying the AscendCL code."""
import acl

# aclError value -> constant name, from the constants the headers define.
_NAMES = {}
for _name in sorted(dir(acl)):
    if _name.startswith("ACL_ERROR_") and isinstance(getattr(acl, _name), int):
        _NAMES.setdefault(getattr(acl, _name), _name)


class KilnError(RuntimeError):
    """A failed AscendCL call or compile.

    Attributes:
        code: the aclError value (acl.ACL_ERROR_*; e.g. 145002 for a model path that cannot be
            read).
        code_name: the constant's name ("ACL_ERROR_GE_EXEC_MODEL_PATH_INVALID"), or "" if the
            code has none.
        message: the runtime's message (aclGetRecentErrMsg at the time of the failure), or the
            compiler's.
        api: the function that failed ("aclmdlLoadFromFile", "kiln.compile", ...).
    """

    def __init__(self, code, message, api=""):
        self.code = int(code)
        self.code_name = _NAMES.get(self.code, "")
        self.message = message or ""
        self.api = api
        name = f" ({self.code_name})" if self.code_name else ""
        where = f"{api} failed: " if api else ""
        super().__init__(f"{where}aclError {self.code}{name}: {self.message}")


def check(ret, api):
    """Raises KilnError when an acl call returned a non-zero code."""
    if ret != 0:
        raise KilnError(ret, acl.get_recent_err_msg() or "", api)
