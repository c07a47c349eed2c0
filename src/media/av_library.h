// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
//
// FFmpeg's libavcodec (with libavutil, its dependency) as a table of the functions the DVPP
// video codec (video.cc) calls. Against a shared FFmpeg — Debian's — the library is opened
// with dlopen at the first video channel (base/shared_library.h): libavcodec.so.59 maps ~90
// libraries (librsvg, cairo, GLib, X11, ...), which took 17 of the 18-22 ms libascendcl.so took
// to load and 14.6 MiB of every application's memory, video or not (docs/dvpp.md, "Video").
// Against a static FFmpeg — the wheel's minimal one, scripts/wheel_ffmpeg.sh, linked into
// libascendcl.so (KILN_AVCODEC_STATIC) — the table points at the linked functions.
#pragma once

extern "C" {
#include <libavcodec/avcodec.h>
#include <libavutil/error.h>
#include <libavutil/frame.h>
#include <libavutil/log.h>
#include <libavutil/opt.h>
#include <libavutil/pixdesc.h>
}

#include "base/status.h"

namespace kiln::media {

// Every function video.cc calls, once.
#define KILN_AV_FUNCTIONS(X)      \
  X(av_frame_alloc)               \
  X(av_frame_free)                \
  X(av_frame_get_buffer)          \
  X(av_frame_make_writable)       \
  X(av_frame_unref)               \
  X(av_get_pix_fmt_name)          \
  X(av_log_get_level)             \
  X(av_log_set_level)             \
  X(av_opt_set)                   \
  X(av_packet_alloc)              \
  X(av_packet_free)               \
  X(av_packet_unref)              \
  X(av_parser_close)              \
  X(av_parser_init)               \
  X(av_parser_parse2)             \
  X(av_strerror)                  \
  X(avcodec_alloc_context3)       \
  X(avcodec_find_decoder)         \
  X(avcodec_find_encoder_by_name) \
  X(avcodec_flush_buffers)        \
  X(avcodec_free_context)         \
  X(avcodec_open2)                \
  X(avcodec_receive_frame)        \
  X(avcodec_receive_packet)       \
  X(avcodec_send_frame)           \
  X(avcodec_send_packet)

struct AvApi {
#define KILN_AV_MEMBER(name) decltype(&::name) name;
  KILN_AV_FUNCTIONS(KILN_AV_MEMBER)
#undef KILN_AV_MEMBER
};

// The table, loaded once per process (thread-safe), or kFeatureUnsupported naming libavcodec,
// its soname and why it did not load.
Result<const AvApi*> Av();

}  // namespace kiln::media
