# Copyright 2026 The Kiln Authors
# SPDX-License-Identifier: Apache-2.0
# Warnings, ccache and sanitizers for every Kiln target.

find_program(KILN_CCACHE ccache)
if(KILN_CCACHE AND NOT CMAKE_CXX_COMPILER_LAUNCHER)
  set(CMAKE_C_COMPILER_LAUNCHER ${KILN_CCACHE})
  set(CMAKE_CXX_COMPILER_LAUNCHER ${KILN_CCACHE})
endif()

add_library(kiln_warnings INTERFACE)
# C and C++ only: nvcc (the CUDA kernels) takes host-compiler flags through -Xcompiler.
target_compile_options(kiln_warnings INTERFACE
                       "$<$<COMPILE_LANGUAGE:C,CXX>:-Wall;-Wextra;-Wno-unused-parameter>")
# GCC 12 at -O3 reports -Wrestrict on plain std::string concatenation (GCC bug 105329), a false
# positive inside libstdc++'s char_traits; it says nothing about Kiln's code.
if(CMAKE_CXX_COMPILER_ID STREQUAL "GNU" AND CMAKE_CXX_COMPILER_VERSION VERSION_LESS 13)
  target_compile_options(kiln_warnings INTERFACE $<$<COMPILE_LANGUAGE:CXX>:-Wno-restrict>)
endif()

if(KILN_SANITIZE)
  # The CUDA kernels' device code cannot be instrumented; their host stubs are left as they are.
  add_compile_options(
    "$<$<COMPILE_LANGUAGE:C,CXX>:-fsanitize=${KILN_SANITIZE};-fno-omit-frame-pointer;-fno-sanitize-recover=all>")
  add_link_options(-fsanitize=${KILN_SANITIZE})
endif()

# The fuzz targets as libFuzzer binaries (docs/fuzzing.md): clang instruments every target for
# coverage, and tests/fuzz links the targets with libFuzzer's main.
option(KILN_LIBFUZZER "Build the fuzz targets as libFuzzer binaries (clang only)" OFF)
if(KILN_LIBFUZZER)
  if(NOT CMAKE_CXX_COMPILER_ID STREQUAL "Clang")
    message(FATAL_ERROR "KILN_LIBFUZZER=ON needs clang (-DCMAKE_CXX_COMPILER=clang++)")
  endif()
  add_compile_options(-fsanitize=fuzzer-no-link)
endif()

# kiln_layer(<target> LAYER <name> SOURCES ... DEPS ...): a static library for one layer of
# docs/design.md §1. DEPS must be layers below it; tests/layering_check.py verifies the includes.
function(kiln_layer target)
  cmake_parse_arguments(ARG "" "" "SOURCES;DEPS;PRIVATE_DEPS" ${ARGN})
  add_library(${target} STATIC ${ARG_SOURCES})
  target_include_directories(${target} PUBLIC ${PROJECT_SOURCE_DIR}/src ${CMAKE_BINARY_DIR}/generated)
  target_link_libraries(${target} PUBLIC ${ARG_DEPS} PRIVATE kiln_warnings ${ARG_PRIVATE_DEPS})
endfunction()
