"""Writes PNG files byte by byte with Python's zlib and struct only (no image library), as an independent
reference for the suite's PNG decoding: RGB and grayscale images whose rows use all five PNG filter types,
and a palette image. Pixel (x, y), channel c holds (37·x + 11·y + 5·c) mod 256; the palette image holds
palette entry (x + y) mod 4 with entry i = (60·i, 255 − 60·i, 30·i).

usage: write_png_reference.py OUT_DIR
"""
import struct
import sys
import zlib

W, H = 7, 5


def value(x, y, c):
    return (37 * x + 11 * y + 5 * c) % 256


def chunk(kind, data):
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)


def paeth(a, b, c):
    p = a + b - c
    pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
    if pa <= pb and pa <= pc:
        return a
    return b if pb <= pc else c


def filtered(rows, bpp):
    out = b""
    prev = bytes(len(rows[0]))
    for y, row in enumerate(rows):
        kind = y % 5
        line = bytearray()
        for i, v in enumerate(row):
            a = row[i - bpp] if i >= bpp else 0
            b = prev[i]
            c = prev[i - bpp] if i >= bpp else 0
            predictor = [0, a, b, (a + b) // 2, paeth(a, b, c)][kind]
            line.append((v - predictor) % 256)
        out += bytes([kind]) + bytes(line)
        prev = row
    return out


def png(path, color_type, channels, rows, palette=None):
    header = struct.pack(">IIBBBBB", W, H, 8, color_type, 0, 0, 0)
    body = chunk(b"IHDR", header)
    if palette is not None:
        body += chunk(b"PLTE", palette)
    body += chunk(b"IDAT", zlib.compress(filtered(rows, channels)))
    body += chunk(b"IEND", b"")
    with open(path, "wb") as f:
        f.write(b"\x89PNG\r\n\x1a\n" + body)


out = sys.argv[1]
png(out + "/rgb.png", 2, 3, [bytes(value(x, y, c) for x in range(W) for c in range(3)) for y in range(H)])
png(out + "/gray.png", 0, 1, [bytes(value(x, y, 0) for x in range(W)) for y in range(H)])
palette = b"".join(bytes([60 * i, 255 - 60 * i, 30 * i]) for i in range(4))
png(out + "/palette.png", 3, 1, [bytes((x + y) % 4 for x in range(W)) for y in range(H)], palette)
