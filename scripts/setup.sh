#!/usr/bin/env bash
# Copyright 2026 The Kiln Authors
# SPDX-License-Identifier: Apache-2.0
#
# Installs everything Kiln needs to build and test on Debian 12, as root. Idempotent and quick
# when everything is already there: apt runs only for packages that are missing.
# `setup.sh --bench` also installs the benchmarks' peers and chart library
# (scripts/requirements-bench.txt: OpenVINO, matplotlib).
set -euo pipefail
requirements=(models python)
for arg in "$@"; do
  case "$arg" in
    --bench) requirements+=(bench) ;;
    *) echo "setup.sh: unknown option '$arg' (known: --bench)" >&2; exit 2 ;;
  esac
done

# Build: compiler, CMake + Ninja + ccache. Libraries: GoogleTest/GoogleMock, Google Benchmark,
# nlohmann-json (acl.json), CLI11 (the kiln command), protobuf + libonnx (ONNX import),
# FlatBuffers (.om graph), libdeflate (.om checksums; zlib reseals fuzz inputs), oneDNN (CPU kernels; its CMake
# config wants the OpenCL loader's dev files), Python headers + pybind11 (the acl/kiln Python
# module), libjpeg-turbo + libpng + libyuv + FFmpeg's libavcodec (the DVPP media API); nasm and
# x264/x265 (the wheel's own minimal FFmpeg), debootstrap (the wheel test's clean Debian root).
# See docs/dependencies.md.
packages=(
  build-essential cmake ninja-build ccache pkg-config python3 python3-venv
  libgtest-dev libgmock-dev libbenchmark-dev nlohmann-json3-dev libcli11-dev
  libprotobuf-dev protobuf-compiler libonnx-dev libflatbuffers-dev flatbuffers-compiler zlib1g-dev
  libdeflate-dev
  libdnnl-dev ocl-icd-opencl-dev python3-dev pybind11-dev
  libturbojpeg0-dev libjpeg62-turbo-dev libpng-dev libyuv-dev libavcodec-dev libavutil-dev
  nasm libx264-dev libx265-dev debootstrap
)

missing=()
for p in "${packages[@]}"; do
  status="$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null || true)"
  [[ "$status" == *"install ok installed"* ]] || missing+=("$p")
done
if ((${#missing[@]})); then
  if [ "$(id -u)" -ne 0 ]; then
    echo "setup: missing packages ${missing[*]}; run as root (or install them) first" >&2
    exit 1
  fi
  echo "setup: installing ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

# The public model set and ONNX test data, and the Python module's test and wheel tools, come
# from pinned PyPI packages, installed into the project's own virtual environment (.venv) once;
# a stamp per requirements file skips pip later.
here="$(cd "$(dirname "$0")/.." && pwd)"
venv="$here/.venv"
for req in "${requirements[@]}"; do
  file="$here/scripts/requirements-$req.txt"
  stamp="$venv/.kiln-requirements"
  [ "$req" = models ] || stamp="$venv/.kiln-requirements-$req"
  if ! cmp -s "$file" "$stamp" 2>/dev/null; then
    echo "setup: installing the $req packages into .venv"
    [ -x "$venv/bin/python" ] || python3 -m venv "$venv"
    "$venv/bin/python" -m pip install -q --disable-pip-version-check --no-deps -r "$file"
    cp "$file" "$stamp"
  fi
done

# Clients that cannot share .venv, each in a venv of its own, made once per requirements file:
# onnxruntime's CANN provider (its package is also `onnxruntime`), and Ray Serve with KServe
# (kiln.serve, kiln.kserve_model; docs/serving.md: kserve pins protobuf < 7 and they run on
# numpy 1.26.4, unlike .venv).
own_venv() {  # <venv folder> <requirements file> <what, for the message>
  if ! cmp -s "$2" "$1/.kiln-requirements" 2>/dev/null; then
    echo "setup: installing $3 into $(basename "$1")"
    [ -x "$1/bin/python" ] || python3 -m venv "$1"
    "$1/bin/python" -m pip install -q --disable-pip-version-check --no-deps -r "$2"
    cp "$2" "$1/.kiln-requirements"
  fi
}
own_venv "$here/.venv-ort-cann" "$here/scripts/requirements-ort-cann.txt" "onnxruntime-cann"
own_venv "$here/.venv-serve" "$here/scripts/requirements-serve.txt" "Ray Serve and KServe"
