#!/usr/bin/env python3
"""png_check.py PNG MIN_INK [COLOUR...]: a screenshot is not blank.

Decodes the PNG with zlib only (8-bit RGB or RGBA, non-interlaced, the five
row filters), then requires at least MIN_INK per mille of the pixels to be
non-white, and, for each COLOUR given as RRGGBB, at least 100 pixels within
a distance of 40 of it (the chart colours of docs/report-html.md: drawn
charts inside the viewport).  Prints the counts; exit 1 when a bound fails.
"""
import struct
import sys
import zlib


def decode(path):
    data = open(path, "rb").read()
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        raise SystemExit(f"{path}: not a PNG")
    pos, idat, width = 8, [], None
    while pos < len(data):
        n, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + n]
        if kind == b"IHDR":
            width, height, depth, ctype, _, _, interlace = struct.unpack(">IIBBBBB", body)
            if depth != 8 or ctype not in (2, 6) or interlace:
                raise SystemExit(f"{path}: unsupported PNG (depth {depth}, colour {ctype})")
            bpp = 3 if ctype == 2 else 4
        elif kind == b"IDAT":
            idat.append(body)
        pos += 12 + n
    raw = zlib.decompress(b"".join(idat))
    stride = width * bpp
    rows, prev = [], bytearray(stride)
    for y in range(height):
        f = raw[y * (stride + 1)]
        line = bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        if f == 1:
            for i in range(bpp, stride):
                line[i] = (line[i] + line[i - bpp]) & 255
        elif f == 2:
            for i in range(stride):
                line[i] = (line[i] + prev[i]) & 255
        elif f == 3:
            for i in range(stride):
                left = line[i - bpp] if i >= bpp else 0
                line[i] = (line[i] + ((left + prev[i]) >> 1)) & 255
        elif f == 4:
            for i in range(stride):
                a = line[i - bpp] if i >= bpp else 0
                b, c = prev[i], prev[i - bpp] if i >= bpp else 0
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        rows.append(line)
        prev = line
    return width, height, bpp, rows


def main():
    path, min_ink = sys.argv[1], int(sys.argv[2])
    want = [tuple(int(c[i:i + 2], 16) for i in (0, 2, 4)) for c in sys.argv[3:]]
    width, height, bpp, rows = decode(path)
    ink, near = 0, [0] * len(want)
    for line in rows:
        for x in range(0, width * bpp, bpp):
            r, g, b = line[x], line[x + 1], line[x + 2]
            if r < 245 or g < 245 or b < 245:
                ink += 1
                for k, (wr, wg, wb) in enumerate(want):
                    if abs(r - wr) + abs(g - wg) + abs(b - wb) <= 40:
                        near[k] += 1
    per_mille = ink * 1000 // (width * height)
    print(f"{width}x{height}: {per_mille}/1000 non-white; colours {dict(zip(sys.argv[3:], near))}")
    ok = per_mille >= min_ink and all(n >= 100 for n in near)
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
