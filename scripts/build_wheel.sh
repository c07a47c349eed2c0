#!/usr/bin/env bash
# Copyright 2026 The Kiln Authors
# SPDX-License-Identifier: Apache-2.0
#
# The self-contained wheel (docs/wheel.md): `pip wheel .` against a minimal static FFmpeg
# (scripts/wheel_ffmpeg.sh), then auditwheel copies every other native library the wheel's ELF
# files need (oneDNN, libgomp, protobuf, onnx_proto, libdeflate, libjpeg-turbo, libpng, libyuv,
# x264, x265, ...) into kiln.libs/ and points them there; what the manylinux policy leaves to
# the system is glibc, libstdc++, libgcc_s and zlib. The copied libraries' Debian copyright files
# go into kiln.libs/licenses/. Needs scripts/setup.sh (the .venv's build tools, nasm, x264/x265).
# Usage: scripts/build_wheel.sh [out dir, default build/wheelhouse] -> prints the wheel's path.
set -euo pipefail
cd "$(dirname "$0")/.."
root="$PWD"
out="$(mkdir -p "${1:-build/wheelhouse}" && cd "${1:-build/wheelhouse}" && pwd)"
py="$root/.venv/bin/python"

pkgconfig="$(bash scripts/wheel_ffmpeg.sh "$root/build/third_party/ffmpeg")"
raw="$out/raw"
rm -rf "$raw"
export CCACHE_BASEDIR="$root"
echo "build_wheel: pip wheel . (log: $out/pip-wheel.log)" >&2
PKG_CONFIG_PATH="$pkgconfig" "$py" -m pip wheel -q --disable-pip-version-check --no-deps \
  --no-build-isolation -w "$raw" -C build-dir=build/wheel-manylinux . > "$out/pip-wheel.log" 2>&1 ||
  { tail -40 "$out/pip-wheel.log" >&2; exit 1; }
built=("$raw"/kiln-*.whl)
rm -f "$out"/kiln-*manylinux*.whl
# The tag is the oldest glibc whose symbols the built files use (2.35 when built on Debian 12).
echo "build_wheel: auditwheel repair" >&2
PATH="$root/.venv/bin:$PATH" "$py" -m auditwheel repair -w "$out" "${built[0]}" > "$out/auditwheel.log" 2>&1 ||
  { cat "$out/auditwheel.log" >&2; exit 1; }
wheel=("$out"/kiln-*manylinux*.whl)

# The copied libraries' licences, from the Debian packages that shipped them.
unpacked="$out/unpacked"
rm -rf "$unpacked"
"$py" -m wheel unpack -d "$unpacked" "${wheel[0]}" > /dev/null
tree=("$unpacked"/kiln-*)
ffmpeg_licenses=("$root"/build/third_party/ffmpeg/prefix-*/share/licenses/*)
"$py" scripts/wheel_licenses.py "${built[0]}" "${tree[0]}" "${ffmpeg_licenses[@]}"
rm -f "${wheel[0]}"
"$py" -m wheel pack -d "$out" "${tree[0]}" > /dev/null
rm -rf "$unpacked" "$raw"
ls "$out"/kiln-*manylinux*.whl
