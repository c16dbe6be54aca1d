#!/usr/bin/env python3
"""Regenerates the hardening corpus (run from tests/data; needs ImageMagick's convert for new JPEGs).

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
    os.makedirs(os.path.dirname(path) or ".", exist_ok=True)
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
if os.path.exists("unusual/exif-1.jpg"):  # JPEG encoders differ between versions: keep the committed bytes
    base = open("unusual/exif-1.jpg", "rb").read()
else:
    with tempfile.TemporaryDirectory() as t:
        src = os.path.join(t, "e.pgm")
        put(src, pgm(ew, eh, [[(x * 5 + y * 11 + (40 if x < 8 and y < 4 else 0)) % 256 for x in range(ew)] for y in range(eh)]))
        dst = os.path.join(t, "e.jpg")
        subprocess.run(["convert", src, "-strip", "-quality", "95", dst], check=True)
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



# ---------------------------------------------------------------- round two: bombs, wrong colours, formats
# GIF screens of 2^29..2^30 pixels: under the default pixel limit, but OpenImageIO 2.4 computes the canvas
# as int(w * h * 4), which wraps; the loader refuses them before OpenImageIO opens the file.
put("hostile/gif-screen-32768x24576.gif", gif(32768, 24576))


def tiff(w, h, spp, bps, photometric, data, tags=(), tile=None, sampleformat=1, rows_per_strip=None):
    """A little-endian TIFF, one strip (or tiles all pointing at the same data); tags: (tag, type, values)."""
    out = bytearray(b"II*\0\0\0\0\0")
    data_off = len(out)
    out += data
    while len(out) % 2:
        out.append(0)
    entries = [(256, 4, [w]), (257, 4, [h]), (258, 3, [bps] * spp), (259, 3, [1]), (262, 3, [photometric]),
               (277, 3, [spp]), (284, 3, [1]), (339, 3, [sampleformat] * spp)]
    if tile:
        tw, th = tile
        n = ((w + tw - 1) // tw) * ((h + th - 1) // th)
        entries += [(322, 3, [tw]), (323, 3, [th]), (324, 4, [data_off] * n), (325, 4, [len(data)] * n)]
    else:
        rps = rows_per_strip or h
        entries += [(273, 4, [data_off]), (278, 4, [rps]), (279, 4, [len(data)])]
    entries += list(tags)
    entries.sort(key=lambda e: e[0])
    blobs = []
    for tag, typ, vals in entries:
        if typ == 2:
            raw = vals if isinstance(vals, bytes) else bytes(vals)
        else:
            raw = b"".join(struct.pack("<H" if typ == 3 else "<I" if typ == 4 else "<I", v) for v in vals)
        blobs.append(raw)
    ext = {}
    for i, raw in enumerate(blobs):
        if len(raw) > 4:
            while len(out) % 2:
                out.append(0)
            ext[i] = len(out)
            out += raw
    while len(out) % 2:
        out.append(0)
    ifd = len(out)
    struct.pack_into("<I", out, 4, ifd)
    out += struct.pack("<H", len(entries))
    for i, (tag, typ, vals) in enumerate(entries):
        raw = blobs[i]
        count = len(raw) if typ == 2 else len(vals)
        field = struct.pack("<I", ext[i]) if i in ext else raw + b"\0" * (4 - len(raw))
        out += struct.pack("<HHI", tag, typ, count) + field
    out += b"\0\0\0\0"
    return bytes(out)


# Tiled float RGB, 30000 x 30000, every tile the same 64 bytes: planes of 2.7 GB for a tiny file.
put("hostile/bomb-tiled-float-30000x30000.tif",
    tiff(30000, 30000, 3, 32, 2, b"\0" * 64, tile=(4096, 4096), sampleformat=3))
# CMYK + alpha, 40000 x 30000 (1.2 Gpixel is over the pixel limit, so 30000 x 30000), no pixel data.
put("hostile/bomb-cmyka-nodata-30000x30000.tif",
    tiff(30000, 30000, 5, 8, 5, b"\0" * 16, tags=[(332, 3, [1]), (338, 3, [2])]))


def png_ihdr(w, h, depth, ctype, interlace, idat):
    ihdr = struct.pack(">IIBBBBB", w, h, depth, ctype, 0, 0, interlace)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", ihdr) + chunk(b"IDAT", idat) + chunk(b"IEND", b"")


# 16-bit RGBA, 30000 x 30000, whose IDAT is the start of a stream of zeros (7.2 GB of samples).
zeros = zlib.compressobj(9)
idat = zeros.compress(b"\0" * (1 << 20)) + zeros.flush(zlib.Z_SYNC_FLUSH)
put("hostile/bomb-png16-zeros-30000x30000.png", png_ihdr(30000, 30000, 16, 6, 0, idat))
# Interlaced 16-bit RGBA, 32768 x 32767: decoded whole before the first row comes out (8.6 GB), 68 bytes.
put("hostile/bomb-interlaced-32768x32767.png", png_ihdr(32768, 32767, 16, 6, 1, zlib.compress(b"\0" * 8)))
# An ICO whose one entry is such a PNG (the directory says 256 x 256).
inner = png_ihdr(32768, 32767, 16, 6, 0, zlib.compress(b"\0" * 8))
put("hostile/bomb-ico-png-32768x32767.ico",
    struct.pack("<HHH", 0, 1, 1) + struct.pack("<BBBBHHII", 0, 0, 0, 0, 1, 32, len(inner), 22) + inner)

# A separated TIFF with two named spot inks: no known colour, refused (not guessed from the count).
put("hostile/separated-spot-inks.tif",
    tiff(8, 4, 2, 8, 5, bytes(range(64)), tags=[(332, 3, [2]), (333, 2, b"PANTONE 300 C\0Gold\0")]))

# A 4 GiB file of zeros named .png is made sparse by the test itself (hostileSizes), not stored here.


# ---------------------------------------------------------------- JPEG scan bomb
def progressive_base():
    if os.path.exists("unusual/progressive.jpg"):
        return open("unusual/progressive.jpg", "rb").read()
    with tempfile.TemporaryDirectory() as t:
        src = os.path.join(t, "p.pgm")
        put(src, pgm(24, 16, [[(x * 9 + y * 13) % 256 for x in range(24)] for y in range(16)]))
        dst = os.path.join(t, "p.jpg")
        subprocess.run(["convert", src, "-strip", "-interlace", "JPEG", "-quality", "90", dst], check=True)
        return open(dst, "rb").read()


prog = progressive_base()
put("unusual/progressive.jpg", prog)  # a normal progressive JPEG: must still read
# The smallest scan repeated: 2000 scans in a few dozen KB; each one is a pass over the whole image.
eoi = prog.rindex(b"\xff\xd9")
starts = [i for i in range(len(prog) - 1) if prog[i:i + 2] == b"\xff\xda"]
scans = [prog[a:b] for a, b in zip(starts, starts[1:] + [eoi])]
small = min(scans, key=len)
put("hostile/jpeg-2000-scans.jpg", prog[:eoi] + small * (2000 - len(scans)) + prog[eoi:])


# ---------------------------------------------------------------- colour meaning from tags (unusual/)
cw2, ch2 = 21, 13
ink = lambda x, y, c: sample(x, y, c, 8)
# One black ink, named: gray = 255 - ink.
put("unusual/separated-black.tif",
    tiff(cw2, ch2, 1, 8, 5, interleave(cw2, ch2, 1, ink, lambda v: bytes([v])), tags=[(332, 3, [2]), (333, 2, b"Black\0")]))
write_expected("separated-black", cw2, ch2, [lambda x, y: 255 - ink(x, y, 0)])
# One ink, no name: printed as black.
put("unusual/separated-1ink.tif", tiff(cw2, ch2, 1, 8, 5, interleave(cw2, ch2, 1, ink, lambda v: bytes([v]))))
write_expected("separated-1ink", cw2, ch2, [lambda x, y: 255 - ink(x, y, 0)])
# Two inks, cyan and black: CMYK with no magenta or yellow.
put("unusual/separated-cyan-black.tif",
    tiff(cw2, ch2, 2, 8, 5, interleave(cw2, ch2, 2, ink, lambda v: bytes([v])), tags=[(332, 3, [2]), (333, 2, b"Cyan\0Black\0")]))
write_expected("separated-cyan-black", cw2, ch2,
               [lambda x, y: ink(x, y, 0), lambda x, y: 0, lambda x, y: 0, lambda x, y: ink(x, y, 1)])


def psd_cmyk(w, h, planes):
    """Photoshop, CMYK colour mode (4), 8 bit, raw image data; Photoshop stores CMYK inverted (255 = no ink)."""
    hdr = b"8BPS" + struct.pack(">H", 1) + b"\0" * 6 + struct.pack(">HIIHH", 4, h, w, 8, 4)
    body = b"".join(bytes(255 - planes[c](x, y) for y in range(h) for x in range(w)) for c in range(4))
    return hdr + struct.pack(">I", 0) + struct.pack(">I", 0) + struct.pack(">I", 0) + struct.pack(">H", 0) + body


def psd_cmyk_rle(w, h, planes):
    """As psd_cmyk with PackBits rows: a run packet where two samples repeat, literal packets elsewhere."""
    hdr = b"8BPS" + struct.pack(">H", 1) + b"\0" * 6 + struct.pack(">HIIHH", 4, h, w, 8, 4)
    rows = []
    for c in range(4):
        for y in range(h):
            v = [255 - planes[c](x, y) for x in range(w)]
            v[2] = v[3] = v[4]  # a run of three
            enc = bytes([1]) + bytes(v[:2]) + bytes([256 - 2, v[2]]) + bytes([w - 6]) + bytes(v[5:])
            rows.append(enc)
    table = b"".join(struct.pack(">H", len(r)) for r in rows)
    return hdr + struct.pack(">III", 0, 0, 0) + struct.pack(">H", 1) + table + b"".join(rows)


pw2, ph2 = 19, 11
put("unusual/cmyk-psd.psd", psd_cmyk(pw2, ph2, [lambda x, y, c=c: ink(x, y, c) for c in range(4)]))
write_expected("cmyk-psd", pw2, ph2, [lambda x, y, c=c: ink(x, y, c) for c in range(4)])
runs = lambda x, y, c: ink(4 if 2 <= x <= 4 else x, y, c)
put("unusual/cmyk-psd-rle.psd", psd_cmyk_rle(pw2, ph2, [lambda x, y, c=c: ink(x, y, c) for c in range(4)]))
write_expected("cmyk-psd-rle", pw2, ph2, [lambda x, y, c=c: runs(x, y, c) for c in range(4)])


def exr(w, h, channels, value, sampling=None):
    """Uncompressed scanline OpenEXR, FLOAT channels; value(name, x, y) -> float; sampling: name -> (xs, ys)."""
    sampling = sampling or {}
    names = sorted(channels)

    def attr(name, typ, data):
        return name.encode() + b"\0" + typ.encode() + b"\0" + struct.pack("<i", len(data)) + data

    chl = b"".join(n.encode() + b"\0" + struct.pack("<iB3xii", 2, 0, *sampling.get(n, (1, 1))) for n in names) + b"\0"
    box = struct.pack("<iiii", 0, 0, w - 1, h - 1)
    header = (attr("channels", "chlist", chl) + attr("compression", "compression", b"\0") + attr("dataWindow", "box2i", box) +
              attr("displayWindow", "box2i", box) + attr("lineOrder", "lineOrder", b"\0") +
              attr("pixelAspectRatio", "float", struct.pack("<f", 1.0)) +
              attr("screenWindowCenter", "v2f", struct.pack("<ff", 0, 0)) + attr("screenWindowWidth", "float", struct.pack("<f", 1.0)) +
              b"\0")
    start = 8 + len(header) + 8 * h
    blocks = []
    for y in range(h):
        px = b""
        for n in names:
            xs, ys = sampling.get(n, (1, 1))
            if y % ys == 0:
                px += b"".join(struct.pack("<f", value(n, x, y)) for x in range(0, w, xs))
        blocks.append(struct.pack("<ii", y, len(px)) + px)
    offsets, pos = [], start
    for b in blocks:
        offsets.append(pos)
        pos += len(b)
    return b"\x76\x2f\x31\x01" + struct.pack("<I", 2) + header + b"".join(struct.pack("<Q", o) for o in offsets) + b"".join(blocks)


# Luminance/chroma (OpenEXR's Y, RY, BY): RY = R/Y - 1, BY = B/Y - 1 with Rec. 709 weights.
lw, lh = 12, 6
def rgb_of(x, y):
    return [((x * 20 + y * 7) % 256) / 255.0, ((x * 5 + y * 31) % 256) / 255.0, ((x * 13 + y * 3 + 40) % 256) / 255.0]
def yc(n, x, y):
    r, g, b = rgb_of(x, y)
    Y = 0.2126 * r + 0.7152 * g + 0.0722 * b
    return {"Y": Y, "RY": (r - Y) / Y if Y else 0.0, "BY": (b - Y) / Y if Y else 0.0}[n]
put("unusual/luma-chroma.exr", exr(lw, lh, ["Y", "RY", "BY"], yc))
# Expected: the file's floats decoded as OpenEXR does, in float32, then round(clamp(v) * 255).
def f32(v):
    return struct.unpack("<f", struct.pack("<f", v))[0]
def decode(x, y):
    Y, RY, BY = (f32(yc(n, x, y)) for n in ("Y", "RY", "BY"))
    R = f32((RY + 1) * Y); B = f32((BY + 1) * Y)
    G = f32((Y - R * f32(0.2126) - B * f32(0.0722)) / f32(0.7152))
    return R, G, B
write_expected("luma-chroma", lw, lh, [lambda x, y, c=c: to8_from_float(decode(x, y)[c]) for c in range(3)])
# An all-white luminance/chroma EXR (the case that came out gray).
put("unusual/white-luma-chroma.exr", exr(8, 4, ["Y", "RY", "BY"], lambda n, x, y: 1.0 if n == "Y" else 0.0))
write_expected("white-luma-chroma", 8, 4, [lambda x, y: 255] * 3)


def exr_tiled(w, h, channels, value, tw, th, same_tile=False):
    """Uncompressed one-level tiled OpenEXR, FLOAT channels; same_tile: every offset points at tile (0, 0)."""
    names = sorted(channels)

    def attr(name, typ, data):
        return name.encode() + b"\0" + typ.encode() + b"\0" + struct.pack("<i", len(data)) + data

    chl = b"".join(n.encode() + b"\0" + struct.pack("<iB3xii", 2, 0, 1, 1) for n in names) + b"\0"
    box = struct.pack("<iiii", 0, 0, w - 1, h - 1)
    header = (attr("channels", "chlist", chl) + attr("compression", "compression", b"\0") + attr("dataWindow", "box2i", box) +
              attr("displayWindow", "box2i", box) + attr("lineOrder", "lineOrder", b"\0") +
              attr("pixelAspectRatio", "float", struct.pack("<f", 1.0)) +
              attr("screenWindowCenter", "v2f", struct.pack("<ff", 0, 0)) + attr("screenWindowWidth", "float", struct.pack("<f", 1.0)) +
              attr("tiles", "tiledesc", struct.pack("<IIB", tw, th, 0)) + b"\0")
    nx, ny = (w + tw - 1) // tw, (h + th - 1) // th
    start = 8 + len(header) + 8 * nx * ny
    chunks = []
    for ty in range(1 if same_tile else ny):
        for tx in range(1 if same_tile else nx):
            if same_tile:  # one chunk that claims a whole tile but holds 64 bytes
                chunks.append(struct.pack("<iiiii", 0, 0, 0, 0, tw * th * 4 * len(names)) + b"\0" * 64)
                continue
            px = b""
            for y in range(ty * th, min(h, (ty + 1) * th)):
                for n in names:
                    px += b"".join(struct.pack("<f", value(n, x, y)) for x in range(tx * tw, min(w, (tx + 1) * tw)))
            chunks.append(struct.pack("<iiiii", tx, ty, 0, 0, len(px)) + px)
    offsets, pos = [], start
    for c in chunks:
        offsets.append(pos)
        pos += len(c)
    if same_tile:
        offsets = offsets * (nx * ny)
    return b"\x76\x2f\x31\x01" + struct.pack("<I", 2 | 0x200) + header + b"".join(struct.pack("<Q", o) for o in offsets) + b"".join(chunks)


# Tiled EXR, 13 x 9 in 4 x 4 tiles (partial tiles at the right and bottom edges): read one tile at a time.
tv = lambda n, x, y: {"R": x / 12.0, "G": y / 8.0, "B": ((x * 5 + y * 3) % 7) / 6.0}[n]
put("unusual/tiled.exr", exr_tiled(13, 9, ["R", "G", "B"], tv, 4, 4))
write_expected("tiled", 13, 9, [lambda x, y, c=c: to8_from_float(f32(tv("RGB"[c], x, y))) for c in range(3)])
# Tiled EXR claiming 30000 x 30000 (planes of 2.7 GB), every tile the same 4 x 4 of data.
put("hostile/bomb-tiled-exr-30000x30000.exr", exr_tiled(30000, 30000, ["R", "G", "B"], lambda n, x, y: 0.5, 4096, 4096, same_tile=True))
# EXR channels that name no colour encoding the loader knows: refused.
put("hostile/exr-lab-channels.exr", exr(4, 2, ["L", "a", "b"], lambda n, x, y: 0.5))

# YCbCr and CIELab TIFF, uncompressed, one colour per column block (converted by libtiff: compared with a tolerance).
yw_, yh_ = 16, 2
ycc = [(255, 128, 128), (0, 128, 128), (128, 128, 128), (76, 85, 255)]  # white, black, gray, red (BT.601)
put("unusual/ycbcr.tif", tiff(yw_, yh_, 3, 8, 6, bytes(v for y in range(yh_) for x in range(yw_) for v in ycc[x // 4]),
                              tags=[(530, 3, [1, 1])]))
lab = [(255, 0, 0), (0, 0, 0), (119, 0, 0), (136, 80, 67)]  # L* 100, 0, ~46.7 gray, red; a*, b* signed bytes
put("unusual/cielab.tif", tiff(yw_, yh_, 3, 8, 8, bytes(v for y in range(yh_) for x in range(yw_) for v in lab[x // 4])))


# ---------------------------------------------------------------- formats OpenImageIO 2.4 refuses
def bmp_rle8(w, h, pal, rle):
    palb = b"".join(bytes([b, g, r, 0]) for r, g, b in pal)
    hdr = struct.pack("<IiiHHIIiiII", 40, w, h, 1, 8, 1, len(rle), 2835, 2835, len(pal), 0)
    off = 14 + 40 + len(palb)
    return b"BM" + struct.pack("<IHHI", off + len(rle), 0, 0, off) + hdr + palb + rle


# 6 x 4, colour palette; runs, a literal run, a delta, and an end-of-line on the last row (as encoders write).
PAL8 = [(0, 0, 0), (255, 0, 0), (0, 200, 0), (10, 20, 250), (255, 255, 255)]
rle = bytes([6, 1, 0, 0,                 # row 0 (bottom): 6 x red
             2, 2, 0, 3, 3, 4, 1, 0, 1, 4, 0, 0,  # row 1: 2 x green, literal [3, 4, 1] (padded), 1 x white
             0, 2, 2, 0,                 # delta: 2 right: row 2 starts at column 2, columns 0-1 stay 0
             4, 3, 0, 0,                 # row 2: 4 x blue from column 2
             3, 4, 3, 2, 0, 0,           # row 3: 3 x white, 3 x green, end of line
             0, 1])                      # end of bitmap
bw, bh = 6, 4
rows_bottom_up = [[1] * 6, [2, 2, 3, 4, 1, 4], [0, 0, 3, 3, 3, 3], [4, 4, 4, 2, 2, 2]]
put("unusual/rle8.bmp", bmp_rle8(bw, bh, PAL8, rle))
write_expected("rle8", bw, bh, [lambda x, y, c=c: PAL8[rows_bottom_up[bh - 1 - y][x]][c] for c in range(3)])


def ico_bmp32(w, h, px):
    """ICO with one 32-bit BGRA entry (a 0 in the directory means 256) and an all-opaque AND mask."""
    pix = b"".join(bytes([px(x, y)[2], px(x, y)[1], px(x, y)[0], px(x, y)[3]]) for y in range(h - 1, -1, -1) for x in range(w))
    mask = b"\0" * (((w + 31) // 32) * 4 * h)
    bih = struct.pack("<IiiHHIIiiII", 40, w, 2 * h, 1, 32, 0, len(pix) + len(mask), 0, 0, 0, 0)
    data = bih + pix + mask
    return struct.pack("<HHH", 0, 1, 1) + struct.pack("<BBBBHHII", w % 256, h % 256, 0, 0, 1, 32, len(data), 22) + data


icon = lambda x, y: ((x * 3) % 256, (y * 5) % 256, (x + y) % 256, 255 if (x // 32 + y // 32) % 2 else (x * 7 + y) % 256)
put("unusual/icon-256.ico", ico_bmp32(256, 256, icon))
write_expected("icon-256", 256, 256, [lambda x, y, c=c: icon(x, y)[c] for c in range(3)], lambda x, y: icon(x, y)[3])

# ---------------------------------------------------------------- round three: readers, presets
# A separated CMYK + alpha TIFF whose ExtraSamples tag comes twice, the second far longer than the samples a pixel
# (the reader once took the second and placed inks below its table).
put("hostile/tiff-extrasamples-twice.tif",
    tiff(8, 4, 5, 8, 5, bytes(range(160)), tags=[(332, 3, [1]), (338, 3, [2]), (338, 3, [2] * 40)]))
# ExtraSamples longer than the samples a pixel, given once.
put("hostile/tiff-extrasamples-40-of-5.tif",
    tiff(8, 4, 5, 8, 5, bytes(range(160)), tags=[(332, 3, [1]), (338, 3, [2] * 40)]))
# 104 bytes declaring a 30000 x 30000 CMYK image (raw samples): 3.6 GB of planes for 64 bytes of data.
psd_bomb = b"8BPS" + struct.pack(">H", 1) + b"\0" * 6 + struct.pack(">HIIHH", 4, 30000, 30000, 8, 4)
psd_bomb += struct.pack(">III", 0, 0, 0) + struct.pack(">H", 0) + b"\0" * 64
assert len(psd_bomb) == 104
put("hostile/psd-cmyk-30000x30000-104-bytes.psd", psd_bomb)
# The same with PackBits rows: the row table alone would need 240 KB.
put("hostile/psd-cmyk-rle-30000x30000.psd", psd_bomb[:38] + struct.pack(">H", 1) + b"\0" * 64)
# A small progressive JPEG whose frame header says 30000 x 30000: libjpeg allocates the whole image's coefficients
# (5.4 GB) when decoding starts; a few hundred bytes of coded data cannot hold that many blocks.
pb = bytearray(prog)
sof2 = pb.index(b"\xff\xc2")
struct.pack_into(">HH", pb, sof2 + 5, 30000, 30000)
put("hostile/jpeg-progressive-30000x30000.jpg", bytes(pb))
# Its baseline counterpart (SOF0).
put("hostile/jpeg-baseline-30000x30000.jpg", patch_sof(base, 30000, 30000))

# A PSD in RGB mode (OpenImageIO's reader, which parses the layers) whose one layer claims 4 x 2147483647 pixels: its
# reader sizes buffers by the layer's rectangle. Only the colour mode differs from a CMYK file the built-in reader
# would take without looking at layers.
def psd_with_layer(mode, channels, rect, layer_channels, data_len):
    w, h = 4, 4
    hdr = b"8BPS" + struct.pack(">H", 1) + b"\0" * 6 + struct.pack(">HIIHH", channels, h, w, 8, mode)
    rec = struct.pack(">iiiiH", *rect, layer_channels)
    rec += b"".join(struct.pack(">hI", c if c < channels else -1, data_len) for c in range(layer_channels))
    extra = struct.pack(">II", 0, 0) + b"\0" * 4  # no mask, no blending ranges, an empty name padded to 4
    rec += b"8BIMnorm" + bytes([255, 0, 0, 0]) + struct.pack(">I", len(extra)) + extra
    chan = b"".join(struct.pack(">H", 0) + b"\0" * (data_len - 2) for _ in range(layer_channels))
    info = struct.pack(">h", 1) + rec + chan
    info += b"\0" * (len(info) % 2)
    layers = struct.pack(">I", len(info)) + info + struct.pack(">I", 0)
    return hdr + struct.pack(">II", 0, 0) + struct.pack(">I", len(layers)) + layers + struct.pack(">H", 0) + \
        b"\x80" * (w * h * channels)


put("hostile/psd-rgb-layer-4x2147483647.psd", psd_with_layer(3, 3, (0, 0, 0x7FFFFFFF, 4), 3, 2))
put("hostile/psd-gray-layer-300001-wide.psd", psd_with_layer(1, 1, (0, 0, 4, 300001), 1, 2))

# Presets (hostile/presets/, read by test_hostile's presets case): numbers that do not fit, nesting without end.
def preset(name, text):
    put("hostile/presets/" + name, text.encode())


preset("width-2pow32-plus-1.json", '{"halftone-preset": 1, "prepare": {"width": 4294967297}}\n')
preset("threads-2pow32-plus-1.json", '{"halftone-preset": 1, "threads": 4294967297}\n')
preset("gcr-2pow64.json", '{"halftone-preset": 1, "color": "cmyk", "separation": {"gcr": 18446744073709551616}}\n')
preset("levels-uint64-max.json", '{"halftone-preset": 1, "method": "ed", "params": {"levels": 18446744073709551615}}\n')
preset("gamma-1e400.json", '{"halftone-preset": 1, "prepare": {"gamma": 1e400}}\n')
preset("dpi-1e400.json", '{"halftone-preset": 1, "dpi": 1e400}\n')
preset("dpi-1e300.json", '{"halftone-preset": 1, "dpi": 1e300, "print-size": "6x4in"}\n')
preset("pixel-size-half.json", '{"halftone-preset": 1, "prepare": {"pixel-size": 2.5}}\n')
preset("array-100000-deep.json", '{"halftone-preset": 1, "dpi": ' + "[" * 100000 + "]" * 100000 + "}\n")
preset("object-20000-deep.json", '{"halftone-preset": 1, "prepare": ' + '{"a":' * 20000 + "1" + "}" * 20000 + "}\n")
print("ok")
