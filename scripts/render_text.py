#!/usr/bin/env python3
# Copyright 2026 The Kiln Authors
# SPDX-License-Identifier: Apache-2.0
"""Renders lines of text black on white into a binary PPM (P6) for the OCR demo.

    render_text.py --out FILE.ppm [--size 28] [--margin 24] [--spacing 20] LINE [LINE ...]

Uses Pillow's bundled font (ImageFont.load_default(size=...), no font files or network), so
the same text gives the same image on every machine with the pinned Pillow. The image is as
small as the text allows plus the margins, which keeps the detector's input (and the demo's
latency) small. Prints the image's width and height.
"""

import argparse
import sys

from PIL import Image, ImageDraw, ImageFont


def render(lines, size, margin, spacing):
    font = ImageFont.load_default(size=size)
    probe = ImageDraw.Draw(Image.new("RGB", (1, 1)))
    boxes = [probe.textbbox((0, 0), line, font=font) for line in lines]
    # Every line gets the font's full height so lines with and without descenders line up.
    ascent, descent = font.getmetrics()
    line_h = ascent + descent
    width = max(b[2] for b in boxes) + 2 * margin
    height = len(lines) * line_h + (len(lines) - 1) * spacing + 2 * margin
    img = Image.new("RGB", (width, height), (255, 255, 255))
    draw = ImageDraw.Draw(img)
    y = margin
    for line in lines:
        draw.text((margin, y), line, font=font, fill=(0, 0, 0))
        y += line_h + spacing
    return img


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", required=True, help="the .ppm to write")
    ap.add_argument("--size", type=int, default=28, help="font size in pixels (default 28)")
    ap.add_argument("--margin", type=int, default=24, help="white border in pixels (default 24)")
    ap.add_argument("--spacing", type=int, default=20, help="gap between lines (default 20)")
    ap.add_argument("lines", nargs="+", help="the text lines, top to bottom")
    args = ap.parse_args()
    if any(not line.strip() for line in args.lines):
        sys.exit("render_text.py: empty lines cannot be rendered")
    img = render(args.lines, args.size, args.margin, args.spacing)
    img.save(args.out, format="PPM")  # Pillow writes RGB images as binary P6
    print(f"{args.out}: {img.width}x{img.height}")


if __name__ == "__main__":
    main()
