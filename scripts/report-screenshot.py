#!/usr/bin/env python3
"""Checks a screenshot of the Sandbox's HTML report (scripts/report-screenshot.sh takes it).

    report-screenshot.py SHOT.png WIDTH HEIGHT STACK=#rrggbb...

Fails (exit 1, one line per failure) unless the PNG is WIDTH x HEIGHT, its top-left pixel is
the page's white background, and each stack's colour fills at least MIN_PIXELS pixels (the
bars, swatches and headings drawn in it). Standard library only: the PNG is decoded here
(8-bit RGB or RGBA, not interlaced, which is what Chromium writes).
"""
import struct
import sys
import zlib

MIN_PIXELS = 200


def decode_png(path):
    data = open(path, "rb").read()
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        raise ValueError(f"{path} is not a PNG")
    pos, idat, header = 8, b"", None
    while pos < len(data):
        (length,) = struct.unpack(">I", data[pos:pos + 4])
        kind, body = data[pos + 4:pos + 8], data[pos + 8:pos + 8 + length]
        pos += 12 + length
        if kind == b"IHDR":
            header = struct.unpack(">IIBBBBB", body)
        elif kind == b"IDAT":
            idat += body
    width, height, depth, color_type, _, _, interlace = header
    if depth != 8 or color_type not in (2, 6) or interlace:
        raise ValueError(f"unsupported PNG: depth {depth}, colour type {color_type}, interlace {interlace}")
    channels = 3 if color_type == 2 else 4
    raw, stride = zlib.decompress(idat), width * channels
    rows, previous, offset = [], bytearray(stride), 0
    for _ in range(height):
        kind, line = raw[offset], bytearray(raw[offset + 1:offset + 1 + stride])
        offset += 1 + stride
        for i in range(stride):
            left = line[i - channels] if i >= channels else 0
            up, up_left = previous[i], previous[i - channels] if i >= channels else 0
            if kind == 1:
                line[i] = (line[i] + left) & 0xFF
            elif kind == 2:
                line[i] = (line[i] + up) & 0xFF
            elif kind == 3:
                line[i] = (line[i] + (left + up) // 2) & 0xFF
            elif kind == 4:
                p = left + up - up_left
                pa, pb, pc = abs(p - left), abs(p - up), abs(p - up_left)
                predictor = left if pa <= pb and pa <= pc else up if pb <= pc else up_left
                line[i] = (line[i] + predictor) & 0xFF
        rows.append(line)
        previous = line
    pixel = lambda x, y: tuple(rows[y][x * channels:x * channels + 3])
    return width, height, pixel


def main():
    path, width, height = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    colours = {}
    for argument in sys.argv[4:]:
        name, hex_colour = argument.split("=")
        colours[name] = tuple(int(hex_colour.lstrip("#")[i:i + 2], 16) for i in (0, 2, 4))
    shot_width, shot_height, pixel = decode_png(path)
    failures = []
    if (shot_width, shot_height) != (width, height):
        failures.append(f"size {shot_width}x{shot_height}, expected {width}x{height}")
    else:
        if pixel(0, 0) != (255, 255, 255):
            failures.append(f"top-left pixel {pixel(0, 0)}, expected the white background")
        counts = dict.fromkeys(colours, 0)
        wanted = {colour: name for name, colour in colours.items()}
        for y in range(height):
            for x in range(width):
                name = wanted.get(pixel(x, y))
                if name:
                    counts[name] += 1
        for name, count in counts.items():
            status = "ok" if count >= MIN_PIXELS else f"FAIL (fewer than {MIN_PIXELS})"
            print(f"report-screenshot: {name} {colours[name]}: {count} pixels {status}")
            if count < MIN_PIXELS:
                failures.append(f"{name}'s colour covers {count} pixels")
    for failure in failures:
        print(f"report-screenshot: {failure}", file=sys.stderr)
    sys.exit(1 if failures else 0)


main()
