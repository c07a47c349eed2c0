# Copyright 2026 The Kiln Authors
# SPDX-License-Identifier: Apache-2.0
"""The `kiln` command of the wheel (docs/wheel.md): runs the native kiln/_bin/kiln in place of
this process, with the same arguments, environment and exit status."""
import os
import sys


def main():
    exe = os.path.join(os.path.dirname(os.path.abspath(__file__)), "_bin", "kiln")
    if not os.access(exe, os.X_OK):
        sys.stderr.write("kiln: %s is missing; this installation of the kiln package has no "
                         "command (reinstall the wheel)\n" % exe)
        return 2
    os.execv(exe, [exe] + sys.argv[1:])
    return 2  # not reached


if __name__ == "__main__":
    sys.exit(main())
