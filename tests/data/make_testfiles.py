#!/usr/bin/env python3
"""Regenerates tests/data/palette.png and tests/data/hostile/* (run from tests/data)."""
import os, struct, zlib

def chunk(kind, data):
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)

def png(w, h, color_type, bit_depth, raw_rows, extra=b""):
    ihdr = struct.pack(">IIBBBBB", w, h, bit_depth, color_type, 0, 0, 0)
    idat = zlib.compress(b"".join(b"\0" + r for r in raw_rows))
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", ihdr) + extra + chunk(b"IDAT", idat) + chunk(b"IEND", b"")

# 4x3 palette image; index (x + y) % 4 into this palette (the test knows it).
PALETTE = [(255, 0, 0), (0, 128, 255), (10, 20, 30), (255, 255, 255)]
rows = [bytes((x + y) % 4 for x in range(4)) for y in range(3)]
with open("palette.png", "wb") as f:
    f.write(png(4, 3, 3, 8, rows, chunk(b"PLTE", bytes(c for rgb in PALETTE for c in rgb))))

os.makedirs("hostile", exist_ok=True)
moon = open("moon.png", "rb").read()
jpg = open("page.jpg", "rb").read()
def put(name, data):
    with open(os.path.join("hostile", name), "wb") as f:
        f.write(data)

put("truncated.png", moon[: len(moon) // 3])
bad = bytearray(moon); i = moon.index(b"IDAT") + 200
for k in range(64): bad[i + k] ^= 0x5A
put("corrupt-idat.png", bytes(bad))
put("not-a-png.png", b"this is a text file, not an image\n")
put("empty.png", b"")
put("zero-width.png", png(0, 16, 0, 8, []))
# header claims 100000 x 100000 gray, data is one tiny row: must be refused before decoding
put("huge-100000x100000.png", png(100000, 100000, 0, 8, [b"\0" * 8]))
put("truncated.jpg", jpg[: len(jpg) // 2])
cj = bytearray(jpg); sos = jpg.index(b"\xff\xda")
cj[sos - 300: sos - 200] = b"\xff\xc0" * 50
put("corrupt-header.jpg", bytes(cj))
put("huge-100000x100000.pgm", b"P5\n100000 100000\n255\n" + b"\0" * 64)
put("zero-height.pgm", b"P5\n16 0\n255\n")
put("truncated.pgm", b"P5\n# a comment\n64 64\n255\n" + b"\x80" * 1000)
put("bad-maxval.pgm", b"P5\n4 4\n70000\n" + b"\0" * 32)
put("negative-width.pgm", b"P5\n-4 4\n255\n" + b"\0" * 16)

def tiff(w, h, data, bits=8, strip_offset=None, count=None):
    """Minimal little-endian gray TIFF, one strip."""
    entries = []
    def e(tag, typ, n, val): entries.append(struct.pack("<HHII", tag, typ, n, val))
    off_data = 8 + 2 + 12 * 9 + 4
    e(256, 4, 1, w); e(257, 4, 1, h); e(258, 3, 1, bits); e(259, 3, 1, 1); e(262, 3, 1, 1)
    e(273, 4, 1, off_data if strip_offset is None else strip_offset); e(277, 3, 1, 1); e(278, 4, 1, h)
    e(279, 4, 1, len(data) if count is None else count)
    return b"II*\0" + struct.pack("<I", 8) + struct.pack("<H", len(entries)) + b"".join(entries) + b"\0\0\0\0" + data

put("truncated.tif", tiff(64, 64, b"\x80" * 500, count=64 * 64))
put("bad-strip-offset.tif", tiff(64, 64, b"\x80" * 64 * 64, strip_offset=0x7FFFFFF0))
put("huge-100000x100000.tif", tiff(100000, 100000, b"\0" * 64, count=100000 * 100000 % (1 << 32)))
put("zero-width.tif", tiff(0, 64, b"\0" * 64))
put("garbage-ifd.tif", b"II*\0" + struct.pack("<I", 0x7FFFFFF0) + b"\0" * 32)
