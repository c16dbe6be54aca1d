#!/usr/bin/env python3
"""Regenerates the hardening corpus (run from tests/data; needs /usr/bin/convert for the JPEGs).

hostile/  more files the loader must refuse with a clear message (beside make_testfiles.py's).
unusual/  valid but unusual files that must be halftoned correctly, and for each one that is not
          lossy, the 8-bit planes the loader must produce in unusual/expected/NAME.cN.pgm (colour
          channel N) and NAME.a.pgm (alpha), by the conversion rules of io/imagefile.h:
          uint16 -> (v*255 + 32767) // 65535, half/float -> round(clamp(v, 0, 1) * 255).
Content is a fixed formula, so running the script twice gives the same bytes.
"""
import os, struct, subprocess, tempfile, zlib

HERE = os.path.dirname(os.path.abspath(__file__))
os.chdir(HERE)
os.makedirs("hostile", exist_ok=True)
os.makedirs("unusual/expected", exist_ok=True)


def put(path, data):
    with open(path, "wb") as f:
        f.write(data)


# ---------------------------------------------------------------- sample content
def sample(x, y, c, bits):
    """A deterministic pattern with gradients and texture, different per channel, not symmetric."""
    v = (x * 37 + y * 101 + c * 71 + ((x * y) % 13) * 19 + (x ^ (y * 3)) % 29) % 256
    if bits == 8:
        return v
    # 16 bit: spread over the full range, low byte varies too (so rounding matters)
    return (v * 257 + (x * 131 + y * 17 + c * 5) % 257) % 65536


def to8_from16(v):
    return (v * 255 + 32767) // 65535


def to8_from_float(f):
    if not (f > 0.0):
        return 0
    if f >= 1.0:
        return 255
    return int(float(f) * 255.0 + 0.5)  # lround of a non-negative value


def half_bits(f):
    return struct.unpack("<H", struct.pack("<e", f))[0]


def half_value(f):
    return struct.unpack("<e", struct.pack("<e", f))[0]


def float32_value(f):
    return struct.unpack("<f", struct.pack("<f", f))[0]


def float_sample(x, y, c):
    """Float content that includes values below 0 and above 1 (clamped) and exact halves."""
    return (sample(x, y, c, 8) - 20) / 215.0


def pgm(w, h, rows):
    return b"P5\n%d %d\n255\n" % (w, h) + b"".join(bytes(r) for r in rows)


def write_expected(name, w, h, planes, alpha=None):
    """planes: list of functions (x, y) -> 0..255."""
    for c, p in enumerate(planes):
        put("unusual/expected/%s.c%d.pgm" % (name, c), pgm(w, h, [[p(x, y) for x in range(w)] for y in range(h)]))
    if alpha is not None:
        put("unusual/expected/%s.a.pgm" % name, pgm(w, h, [[alpha(x, y) for x in range(w)] for y in range(h)]))


# ---------------------------------------------------------------- PNG
def chunk(kind, data):
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)


def png(w, h, color_type, bit_depth, raw_rows, extra=b""):
    ihdr = struct.pack(">IIBBBBB", w, h, bit_depth, color_type, 0, 0, 0)
    idat = zlib.compress(b"".join(b"\0" + r for r in raw_rows), 9)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", ihdr) + extra + chunk(b"IDAT", idat) + chunk(b"IEND", b"")


def png_samples(name, w, h, nch, bits, alpha_last):
    color_type = {1: 0, 2: 4, 3: 2, 4: 6}[nch]
    rows = []
    for y in range(h):
        r = bytearray()
        for x in range(w):
            for c in range(nch):
                v = sample(x, y, c, bits)
                r += struct.pack(">H", v) if bits == 16 else bytes([v])
        rows.append(bytes(r))
    put("unusual/%s.png" % name, png(w, h, color_type, bits, rows))
    conv = (lambda v: v) if bits == 8 else to8_from16
    ncolor = nch - 1 if alpha_last else nch
    planes = [lambda x, y, c=c: conv(sample(x, y, c, bits)) for c in range(ncolor)]
    alpha = (lambda x, y: conv(sample(x, y, nch - 1, bits))) if alpha_last else None
    write_expected(name, w, h, planes, alpha)


png_samples("gray16", 37, 23, 1, 16, False)
png_samples("rgb16", 29, 31, 3, 16, False)
png_samples("gray-alpha", 41, 17, 2, 8, True)
png_samples("rgba", 19, 43, 4, 8, True)
png_samples("rgba16", 23, 19, 4, 16, True)

# palette with transparency (tRNS): expands to RGBA
PAL = [((i * 53) % 256, (i * 97 + 30) % 256, (255 - i * 41) % 256) for i in range(7)]
TRNS = [255, 0, 128, 255, 64, 200, 255]
pw, ph = 33, 21
idx = lambda x, y: (x * 3 + y * 5 + (x * y) % 4) % 7
put("unusual/palette-trns.png",
    png(pw, ph, 3, 8, [bytes(idx(x, y) for x in range(pw)) for y in range(ph)],
        chunk(b"PLTE", bytes(v for rgb in PAL for v in rgb)) + chunk(b"tRNS", bytes(TRNS))))
write_expected("palette-trns", pw, ph, [lambda x, y, c=c: PAL[idx(x, y)][c] for c in range(3)],
               lambda x, y: TRNS[idx(x, y)])

# 2-bit gray (sub-byte samples, scaled to 0..255 by the PNG decoder: v * 85)
gw, gh = 13, 7
g2 = lambda x, y: (x + 2 * y) % 4
rows = []
for y in range(gh):
    bits = 0
    out = bytearray()
    for x in range(gw):
        bits = (bits << 2) | g2(x, y)
        if x % 4 == 3:
            out.append(bits); bits = 0
    if gw % 4:
        out.append(bits << (2 * (4 - gw % 4)))
    rows.append(bytes(out))
put("unusual/gray2bit.png", png(gw, gh, 0, 2, rows))
write_expected("gray2bit", gw, gh, [lambda x, y: g2(x, y) * 85])

# very wide and very tall (one row / one column of 100000 pixels)
N = 100000
line = lambda i: (i * 7 + (i // 251) * 3) % 256
put("unusual/wide-100000x1.png", png(N, 1, 0, 8, [bytes(line(x) for x in range(N))]))
write_expected("wide-100000x1", N, 1, [lambda x, y: line(x)])
put("unusual/tall-1x100000.png", png(1, N, 0, 8, [bytes([line(y)]) for y in range(N)]))
write_expected("tall-1x100000", 1, N, [lambda x, y: line(y)])


# ---------------------------------------------------------------- TIFF (little-endian, one strip per page)
def tiff_pages(pages):
    """pages: list of dicts w, h, spp, bps, photometric, data, sampleformat (1 uint, 3 float), extra (list)."""
    out = bytearray(b"II*\0\0\0\0\0")
    first_ifd_pos = 4
    prev_next_pos = first_ifd_pos
    for p in pages:
        while len(out) % 2:
            out.append(0)
        data_off = len(out)
        out += p["data"]
        while len(out) % 2:
            out.append(0)
        spp = p["spp"]
        bps_off = len(out)
        out += struct.pack("<%dH" % spp, *([p["bps"]] * spp))
        fmt_off = len(out)
        out += struct.pack("<%dH" % spp, *([p.get("sampleformat", 1)] * spp))
        entries = []
        def e(tag, typ, n, val):
            entries.append((tag, typ, n, val))
        def shorts(tag, off):
            if spp <= 2:
                e(tag, 3, spp, None)
            else:
                e(tag, 3, spp, off)
        e(256, 4, 1, p["w"]); e(257, 4, 1, p["h"])
        shorts(258, bps_off)
        e(259, 3, 1, 1); e(262, 3, 1, p["photometric"])
        e(273, 4, 1, data_off); e(277, 3, 1, spp); e(278, 4, 1, p["h"]); e(279, 4, 1, len(p["data"]))
        e(284, 3, 1, 1)
        if p["photometric"] == 5:
            e(332, 3, 1, 1)  # InkSet: CMYK
        if p.get("extra"):
            e(338, 3, 1, p["extra"])  # ExtraSamples: 2 = unassociated alpha
        shorts(339, fmt_off)
        entries.sort()
        ifd_off = len(out)
        struct.pack_into("<I", out, prev_next_pos, ifd_off)
        out += struct.pack("<H", len(entries))
        for tag, typ, n, val in entries:
            if val is None:  # 1 or 2 SHORTs inline
                vals = [p["bps"] if tag == 258 else p.get("sampleformat", 1)] * n
                out += struct.pack("<HHI", tag, typ, n) + struct.pack("<%dH" % n, *vals) + b"\0" * (4 - 2 * n)
            elif typ == 3 and n == 1:
                out += struct.pack("<HHIHH", tag, typ, n, val, 0)
            else:
                out += struct.pack("<HHII", tag, typ, n, val)
        prev_next_pos = len(out)
        out += b"\0\0\0\0"
    return bytes(out)


def interleave(w, h, nch, f, pack):
    out = bytearray()
    for y in range(h):
        for x in range(w):
            for c in range(nch):
                out += pack(f(x, y, c))
    return bytes(out)


# half-float gray and float RGB (values outside 0..1 are clamped by the loader)
hw, hh = 27, 14
put("unusual/half-gray.tif", tiff_pages([dict(w=hw, h=hh, spp=1, bps=16, photometric=1, sampleformat=3,
                                              data=interleave(hw, hh, 1, float_sample, lambda v: struct.pack("<e", v)))]))
write_expected("half-gray", hw, hh, [lambda x, y: to8_from_float(half_value(float_sample(x, y, 0)))])
fw, fh = 22, 15
put("unusual/float-rgb.tif", tiff_pages([dict(w=fw, h=fh, spp=3, bps=32, photometric=2, sampleformat=3,
                                              data=interleave(fw, fh, 3, float_sample, lambda v: struct.pack("<f", v)))]))
write_expected("float-rgb", fw, fh, [lambda x, y, c=c: to8_from_float(float32_value(float_sample(x, y, c))) for c in range(3)])
# float gray + alpha
put("unusual/float-gray-alpha.tif", tiff_pages([dict(w=fw, h=fh, spp=2, bps=32, photometric=1, sampleformat=3, extra=2,
                                                     data=interleave(fw, fh, 2, float_sample, lambda v: struct.pack("<f", v)))]))
write_expected("float-gray-alpha", fw, fh, [lambda x, y: to8_from_float(float32_value(float_sample(x, y, 0)))],
               lambda x, y: to8_from_float(float32_value(float_sample(x, y, 1))))

# CMYK (separated), 8 and 16 bit
cw, ch = 31, 18
put("unusual/cmyk.tif", tiff_pages([dict(w=cw, h=ch, spp=4, bps=8, photometric=5,
                                         data=interleave(cw, ch, 4, lambda x, y, c: sample(x, y, c, 8), lambda v: bytes([v])))]))
write_expected("cmyk", cw, ch, [lambda x, y, c=c: sample(x, y, c, 8) for c in range(4)])
put("unusual/cmyk16.tif", tiff_pages([dict(w=cw, h=ch, spp=4, bps=16, photometric=5,
                                           data=interleave(cw, ch, 4, lambda x, y, c: sample(x, y, c, 16), lambda v: struct.pack("<H", v)))]))
write_expected("cmyk16", cw, ch, [lambda x, y, c=c: to8_from16(sample(x, y, c, 16)) for c in range(4)])

# multi-image TIFF: the first page is read (the second is different, and larger)
mw, mh = 25, 16
put("unusual/multi-page.tif", tiff_pages([
    dict(w=mw, h=mh, spp=1, bps=8, photometric=1, data=interleave(mw, mh, 1, lambda x, y, c: sample(x, y, 0, 8), lambda v: bytes([v]))),
    dict(w=40, h=30, spp=3, bps=8, photometric=2, data=interleave(40, 30, 3, lambda x, y, c: 255 - sample(x, y, c, 8), lambda v: bytes([v]))),
]))
write_expected("multi-page", mw, mh, [lambda x, y: sample(x, y, 0, 8)])

# 16-bit PGM with an odd maxval: (v*255 + M//2) // M
M = 1000
qw, qh = 17, 11
qv = lambda x, y: (x * 61 + y * 97) % (M + 1)
put("unusual/gray-maxval1000.pgm", b"P5\n%d %d\n%d\n" % (qw, qh, M) +
    b"".join(struct.pack(">H", qv(x, y)) for y in range(qh) for x in range(qw)))
write_expected("gray-maxval1000", qw, qh, [lambda x, y: (qv(x, y) * 255 + M // 2) // M])


# ---------------------------------------------------------------- JPEG (lossy: no expected planes)
def exif_app1(orientation):
    ifd = struct.pack(">H", 1) + struct.pack(">HHIHH", 0x0112, 3, 1, orientation, 0) + b"\0\0\0\0"
    tiffdata = b"MM\0*" + struct.pack(">I", 8) + ifd
    body = b"Exif\0\0" + tiffdata
    return b"\xff\xe1" + struct.pack(">H", len(body) + 2) + body


ew, eh = 48, 20  # not square, so a rotation shows in the size
with tempfile.TemporaryDirectory() as t:
    src = os.path.join(t, "e.pgm")
    put(src, pgm(ew, eh, [[(x * 5 + y * 11 + (40 if x < 8 and y < 4 else 0)) % 256 for x in range(ew)] for y in range(eh)]))
    dst = os.path.join(t, "e.jpg")
    subprocess.run(["/usr/bin/convert", src, "-strip", "-quality", "95", dst], check=True)
    base = open(dst, "rb").read()
assert base[:2] == b"\xff\xd8"
put("unusual/exif-1.jpg", base)  # no orientation tag
for o in (3, 6, 8):
    put("unusual/exif-%d.jpg" % o, base[:2] + exif_app1(o) + base[2:])


# ---------------------------------------------------------------- hostile additions
def patch_sof(jpeg, w, h):
    b = bytearray(jpeg)
    i = b.index(b"\xff\xc0")
    struct.pack_into(">HH", b, i + 5, h, w)
    return bytes(b)


put("hostile/huge-65500x65500.jpg", patch_sof(base, 65500, 65500))  # libjpeg's largest: 4.3 Gpixel
put("hostile/zero-width.jpg", patch_sof(base, 0, eh))
put("hostile/zero-height.jpg", patch_sof(base, ew, 0))
put("hostile/huge-65536x65536.png", png(65536, 65536, 0, 8, [b"\0" * 8]))  # 2^32 pixels: int32 products overflow
put("hostile/zero-height.png", png(16, 0, 0, 8, []))
put("hostile/overflow-4294967295x4294967295.pgm", b"P5\n4294967295 4294967295\n255\n" + b"\0" * 64)
put("hostile/overflow-3000000000x1.pgm", b"P5\n3000000000 1\n255\n" + b"\0" * 64)  # width over INT_MAX
png16 = open("unusual/gray16.png", "rb").read()
put("hostile/truncated-16bit.png", png16[: len(png16) // 2])
tif16 = open("unusual/cmyk16.tif", "rb").read()
put("hostile/truncated-cmyk16.tif", tif16[: len(tif16) // 2])
put("hostile/truncated-exif.jpg", open("unusual/exif-6.jpg", "rb").read()[:60])
# a PNG whose IHDR CRC is wrong
bad = bytearray(open("unusual/rgba.png", "rb").read()); bad[29] ^= 0xFF
put("hostile/bad-crc.png", bytes(bad))
# TIFF whose strip byte count claims far more than the file holds, at a 1 Gpixel-sized header
put("hostile/huge-40000x40000.tif", tiff_pages([dict(w=40000, h=40000, spp=1, bps=8, photometric=1, data=b"\0" * 16)]))


def gif(screen_w, screen_h):
    """A GIF with a 1 x 1 frame on a logical screen of screen_w x screen_h."""
    lsd = struct.pack("<HHBBB", screen_w, screen_h, 0x80, 0, 0) + b"\0\0\0\xff\xff\xff"  # 2-colour table
    frame = b"\x2c" + struct.pack("<HHHHB", 0, 0, 1, 1, 0) + b"\x02\x02\x44\x01\x00"
    return b"GIF89a" + lsd + frame + b"\x3b"


# Found by fuzzing (docs/fuzzing.md): OpenImageIO's GIF reader clears the whole logical screen when it
# opens the file, before the loader sees the size; a 30-byte GIF asked for gigabytes. The fuzzer's own
# input is kept as it was found: hostile/fuzz-gif-screen-17994x17993.gif (not made by this script).
put("hostile/huge-65535x65535.gif", gif(65535, 65535))
print("ok")
