#!/usr/bin/env bash
# Copyright 2026 The Kiln Authors
# SPDX-License-Identifier: Apache-2.0
#
# A minimal static FFmpeg for the self-contained wheel (docs/wheel.md): libavcodec with only the
# H.264/H.265 decoders and parsers and the libx264/libx265 encoders the DVPP video API uses,
# plus libavutil, built position-independent so that it links into libascendcl.so. Debian's
# libavcodec.so.59 drags in ~100 libraries (librsvg, cairo, GLib, X11, ICU, ...), and the
# manylinux policy leaves GLib and X11 to the target system, where a minimal one has neither.
#
# The source is the upstream tarball of the very FFmpeg version Debian ships
# (libavcodec-dev's source version), fetched by apt from the system's own mirrors as a deb-src
# entry, so its checksum is verified against the signed archive. Built once per version.
# Usage: scripts/wheel_ffmpeg.sh <work dir>   -> prints the pkg-config folder to use.
set -euo pipefail
work="$(mkdir -p "$1" && cd "$1" && pwd)"
version="$(dpkg-query -W -f='${source:Version}' libavcodec-dev)"  # 7:5.1.9-0+deb12u1
upstream="${version#*:}"
upstream="${upstream%-*}"
prefix="$work/prefix-$upstream"
if [ -f "$prefix/.built" ]; then
  echo "$prefix/lib/pkgconfig"
  exit 0
fi

# apt with a private state folder holding only the deb-src twins of the system's sources.
apt_dir="$work/apt"
rm -rf "$apt_dir"
mkdir -p "$apt_dir/sources.list.d" "$apt_dir/lists/partial" "$apt_dir/cache/archives/partial"
for f in /etc/apt/sources.list.d/*.sources; do
  [ -f "$f" ] && sed -E 's/^Types:.*/Types: deb-src/' "$f" > "$apt_dir/sources.list.d/$(basename "$f")"
done
for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list; do
  [ -f "$f" ] && sed -nE 's/^deb (.*)/deb-src \1/p' "$f" > "$apt_dir/sources.list.d/$(basename "$f").list"
done
apt_opts=(-o "Dir::Etc::SourceList=/dev/null" -o "Dir::Etc::SourceParts=$apt_dir/sources.list.d"
          -o "Dir::State::Lists=$apt_dir/lists" -o "Dir::Cache=$apt_dir/cache"
          -o "APT::Sandbox::User=root" -q)
echo "wheel_ffmpeg: fetching the ffmpeg $version source" >&2
apt-get "${apt_opts[@]}" update > "$work/apt-update.log" 2>&1 ||
  { cat "$work/apt-update.log" >&2; exit 1; }
(cd "$work" && apt-get "${apt_opts[@]}" source --download-only "ffmpeg=$version" >&2)
tarball="$work/ffmpeg_$upstream.orig.tar.xz"
[ -f "$tarball" ] || { echo "wheel_ffmpeg: $tarball was not fetched" >&2; exit 1; }

src="$work/ffmpeg-$upstream"
rm -rf "$src"
tar -C "$work" -xf "$tarball"
echo "wheel_ffmpeg: building FFmpeg $upstream (avcodec + avutil, H.264/H.265 only)" >&2
(
  cd "$src"
  ./configure --prefix="$prefix" --enable-static --disable-shared --enable-pic \
    --enable-gpl --enable-libx264 --enable-libx265 \
    --disable-programs --disable-doc --disable-everything --disable-autodetect \
    --disable-avdevice --disable-avformat --disable-swscale --disable-swresample \
    --disable-postproc --disable-avfilter --disable-network \
    --enable-decoder=h264,hevc --enable-parser=h264,hevc \
    --enable-encoder=libx264,libx265 > "$work/configure.log" 2>&1 ||
    { tail -30 "$work/configure.log" >&2; exit 1; }
  make -j2 > "$work/make.log" 2>&1 || { tail -40 "$work/make.log" >&2; exit 1; }
  make install > "$work/install.log" 2>&1
  mkdir -p "$prefix/share/licenses"
  for f in LICENSE.md COPYING.GPLv2 COPYING.LGPLv2.1; do cp "$f" "$prefix/share/licenses/ffmpeg.$f"; done
)
rm -rf "$src" "$apt_dir"
touch "$prefix/.built"
echo "$prefix/lib/pkgconfig"
