#!/usr/bin/env bash
# Installs the build into a fresh prefix, sources its set_env.sh, and builds and runs a
# CANN-style CMake project against it. Usage: run_install_test.sh <build-dir> <tests/install dir>
set -euo pipefail
build="$1"
here="$2"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
cmake --install "$build" --prefix "$work/prefix" > "$work/install.log"
for f in runtime/include/acl/acl.h runtime/include/acl/acl_rt.h runtime/include/acl/acl_prof.h \
         runtime/include/acl/acl_op.h runtime/include/acl/acl_op_compiler.h \
         runtime/include/acl/ops/acl_cblas.h runtime/include/acl/ops/acl_dvpp.h \
         runtime/include/ge/ge_ir_build.h runtime/include/graph/graph.h \
         runtime/include/parser/onnx_parser.h \
         runtime/include/kiln/kiln_usage.h runtime/lib64/libascendcl.so \
         runtime/lib64/stub/libascendcl.so bin/kiln set_env.sh; do
  [ -e "$work/prefix/$f" ] || { echo "missing in the install prefix: $f"; exit 1; }
done
for lib in acl_dvpp acl_op_compiler acl_cblas ge_compiler graph fmk_onnx_parser; do
  for dir in runtime/lib64 runtime/lib64/stub; do
    [ -e "$work/prefix/$dir/lib$lib.so" ] || { echo "missing in the install prefix: $dir/lib$lib.so"; exit 1; }
  done
done
# shellcheck disable=SC1091
source "$work/prefix/set_env.sh"
[ "$DDK_PATH" = "$work/prefix" ] || { echo "DDK_PATH=$DDK_PATH"; exit 1; }
[ "$ASCEND_HOME_PATH" = "$work/prefix" ] || { echo "ASCEND_HOME_PATH=$ASCEND_HOME_PATH"; exit 1; }
[ "$(command -v kiln)" = "$work/prefix/bin/kiln" ] || { echo "kiln not first on PATH"; exit 1; }
# Captured first: `cmd | grep -q` under pipefail fails when grep exits early (SIGPIPE).
version="$(kiln --version)"
grep -q '^ascendcl interface: 1\.17\.0$' <<< "$version"
cmake -S "$here/cann_app" -B "$work/app" > "$work/configure.log" || { cat "$work/configure.log"; exit 1; }
cmake --build "$work/app" > "$work/build.log" 2>&1 || { cat "$work/build.log"; exit 1; }
# The application resolves libascendcl.so through LD_LIBRARY_PATH from set_env.sh.
libs="$(ldd "$work/app/acl_sample")"
grep -q "$work/prefix/runtime/lib64/" <<< "$libs"
"$work/app/acl_sample"
"$work/app/acl_sample_cxx"
"$work/app/acl_blas_sample"
"$work/app/ge_sample"
# find_package(Kiln CONFIG) (CMAKE_PREFIX_PATH from set_env.sh) and pkg-config.
cmake -S "$here/cmake_consumer" -B "$work/consumer" > "$work/consumer.log" || { cat "$work/consumer.log"; exit 1; }
cmake --build "$work/consumer" > "$work/consumer-build.log" 2>&1 || { cat "$work/consumer-build.log"; exit 1; }
"$work/consumer/consumer_cpp"
"$work/consumer/consumer_c"
"$work/consumer/consumer_blas"
# shellcheck disable=SC2046
cc $(pkg-config --cflags ascendcl) "$here/cmake_consumer/main.c" $(pkg-config --libs ascendcl) \
  -o "$work/pc_c"
"$work/pc_c"
# shellcheck disable=SC2046
c++ $(pkg-config --cflags kiln) "$here/cmake_consumer/main.cc" $(pkg-config --libs kiln) -o "$work/pc_cpp"
"$work/pc_cpp"
echo "install test: OK"
