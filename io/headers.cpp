// Format sniffing and header checks: every limit that can be judged from a header is judged here,
// before OpenImageIO or a codec library allocates what the header asks for.
#include "io/headers.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <limits>
#include <memory>
#include <set>
#include <vector>

#include "core/budget.h"
#include "core/image.h"

namespace halftone::io::detail {

namespace {

uint32_t be32(const unsigned char* p) {
    return uint32_t(p[0]) << 24 | uint32_t(p[1]) << 16 | uint32_t(p[2]) << 8 | p[3];
}
uint16_t be16(const unsigned char* p) { return uint16_t(p[0] << 8 | p[1]); }
uint32_t le32(const unsigned char* p) {
    return uint32_t(p[3]) << 24 | uint32_t(p[2]) << 16 | uint32_t(p[1]) << 8 | p[0];
}
uint16_t le16(const unsigned char* p) { return uint16_t(p[1] << 8 | p[0]); }

/// Reads up to n bytes at `offset`; returns how many were read.
size_t readAt(std::FILE* f, uint64_t offset, unsigned char* buf, size_t n) {
    if (offset > uint64_t(std::numeric_limits<long>::max()) || std::fseek(f, long(offset), SEEK_SET) != 0) return 0;
    return std::fread(buf, 1, n, f);
}

struct FileCloser {
    void operator()(std::FILE* f) const {
        if (f) std::fclose(f);
    }
};

/// The PNG header (after the 8-byte signature): size, bytes per pixel as decoded, interlacing.
Status checkPngHeader(const unsigned char* p, size_t n, const ReadOptions& options, HeaderFacts& facts,
                      const char* where) {
    if (n < 33 || std::memcmp(p, "\x89PNG\r\n\x1a\n", 8) != 0)
        return Status::error(std::string(where) + "not a PNG file (bad signature)");
    if (be32(p + 8) != 13 || std::memcmp(p + 12, "IHDR", 4) != 0)
        return Status::error(std::string(where) + "corrupt PNG: the first chunk is not a 13-byte IHDR");
    const uint32_t w = be32(p + 16), h = be32(p + 20);
    const int depth = p[24], type = p[25], interlace = p[28];
    int channels = 0;
    switch (type) {
        case 0:
            channels = 1;
            break;
        case 2:
            channels = 3;
            break;
        case 3:
            channels = 4;
            break;  // palette, expanded to RGB(A)
        case 4:
            channels = 2;
            break;
        case 6:
            channels = 4;
            break;
        default:
            return Status::error(std::string(where) + "corrupt PNG: colour type " + std::to_string(type) +
                                 " is not defined");
    }
    if (Status s = checkImageSize(int64_t(w), int64_t(h), channels, options.maxPixels); !s)
        return Status::error(std::string(where) + s.message());
    const uint64_t pixelBytes = uint64_t(channels) * (depth == 16 ? 2 : 1);
    // An interlaced PNG is decoded whole before the first row comes out (all seven passes).
    if (interlace) facts.decoderBytes = addBytes(facts.decoderBytes, mulBytes(mulBytes(w, h), pixelBytes));
    return Status::ok();
}

/// The deflate format compresses at most 1032 to 1: a PNG whose IDAT chunks (between `start` and `end`
/// of the file) hold fewer bytes than its rows need over that ratio cannot be complete, and is refused
/// before a decoder allocates for its claimed size.
Status checkPngData(std::FILE* f, uint64_t start, uint64_t end, const unsigned char* ihdr) {
    const uint64_t w = be32(ihdr + 16), h = be32(ihdr + 20);
    const int depth = ihdr[24], type = ihdr[25];
    const int samples = type == 2 ? 3 : type == 4 ? 2 : type == 6 ? 4 : 1;  // palette: one index
    const uint64_t rowBytes = (w * uint64_t(samples) * uint64_t(depth) + 7) / 8 + 1;
    const uint64_t raw = mulBytes(rowBytes, h);
    uint64_t idat = 0, at = start + 8;
    for (int chunks = 0; chunks < (1 << 24) && at + 8 <= end; ++chunks) {
        unsigned char c[8];
        if (readAt(f, at, c, 8) != 8) break;
        const uint64_t len = be32(c);
        if (std::memcmp(c + 4, "IDAT", 4) == 0) idat += std::min(len, end - std::min(end, at + 8));
        if (std::memcmp(c + 4, "IEND", 4) == 0) break;
        at += 12 + len;
    }
    if (raw / 1032 > idat + 64)
        return Status::error("corrupt PNG: " + std::to_string(w) + " x " + std::to_string(h) + " needs " +
                             formatBytes(raw) + " of image data, more than its " + formatBytes(idat) +
                             " of compressed data can hold");
    return Status::ok();
}

/// GIF: OpenImageIO 2.4 clears the whole logical screen when it opens the file, computing its size
/// as a 32-bit int (width * height * 4): check the screen before it does.
Status checkGif(std::FILE* f, const ReadOptions& options, HeaderFacts& facts) {
    unsigned char h[13];
    if (readAt(f, 0, h, sizeof h) != sizeof h) return Status::error("truncated GIF header");
    const uint32_t w = le16(h + 6), ht = le16(h + 8);
    if (Status s = checkImageSize(w, ht, 4, options.maxPixels); !s)
        return Status::error("GIF logical screen: " + s.message());
    const uint64_t canvas = uint64_t(w) * ht * 4;
    if (canvas > uint64_t(std::numeric_limits<int32_t>::max()))
        return Status::error("GIF logical screen " + std::to_string(w) + " x " + std::to_string(ht) +
                             " is larger than the GIF decoder can hold (at most 536870911 pixels)");
    facts.decoderBytes = addBytes(facts.decoderBytes, canvas * 2);  // canvas and the frame being composed
    return Status::ok();
}

/// JPEG structure, streamed: the end-of-image marker (libjpeg pads a truncated file silently), the
/// scan count, and the coefficient buffers of a progressive file (the whole image, 2 bytes a sample).
Status checkJpeg(std::FILE* f, const ReadOptions& options, HeaderFacts& facts) {
    std::vector<unsigned char> buf(1 << 16);
    size_t have = 0;
    uint64_t base = 0;  // file offset of buf[0]
    bool eof = false;
    std::fseek(f, 0, SEEK_SET);
    // The byte at file offset `at`, -1 past the end; reads forward in blocks, keeping one byte of
    // look-behind (the walk below never steps back further).
    auto byteAt = [&](uint64_t at) -> int {
        while (at >= base + have) {
            if (eof) return -1;
            size_t keep = 0;
            if (have > 0) {
                buf[0] = buf[have - 1];
                base += have - 1;
                keep = 1;
            }
            const size_t got = std::fread(buf.data() + keep, 1, buf.size() - keep, f);
            have = keep + got;
            if (got == 0) eof = true;
        }
        return at < base ? -1 : buf[size_t(at - base)];
    };
    if (byteAt(0) != 0xFF || byteAt(1) != 0xD8) return Status::error("not a JPEG file (bad signature)");
    uint64_t i = 2;
    int scans = 0;
    bool progressive = false, haveFrame = false, huffman = false;
    uint64_t frameBytes = 0, planeBytes = 0, coded = 0, blocks = 0;
    uint32_t width = 0, height = 0;
    for (;;) {
        const int b0 = byteAt(i), b1 = byteAt(i + 1);
        if (b0 < 0 || b1 < 0) break;
        if (b0 != 0xFF) return Status::error("corrupt JPEG: bad marker at byte " + std::to_string(i));
        const int m = b1;
        if (m == 0xFF) {
            ++i;
            continue;
        }  // fill byte
        i += 2;
        if (m == 0xD9) {
            if (!haveFrame) return Status::error("corrupt JPEG: no frame header before the end-of-image marker");
            // Huffman coding spends at least one bit on every 8 x 8 block of the full-resolution component (its DC
            // difference; a baseline block also its end-of-block code): less coded data cannot be a whole image.
            // (Arithmetic coding can spend less, so it is left to the budget.)
            if (huffman && coded < blocks / 8)
                return Status::error("corrupt JPEG: " + std::to_string(coded) + " bytes of coded data cannot hold a " +
                                     std::to_string(width) + " x " + std::to_string(height) +
                                     " image (it needs at least " + std::to_string(blocks / 8) + ")");
            // The budget before the decoder starts: libjpeg allocates a progressive file's coefficients for the whole
            // image when decoding starts, before the first row comes out.
            if (progressive) facts.decoderBytes = addBytes(facts.decoderBytes, frameBytes);
            return checkMemory(
                addBytes(planeBytes, facts.decoderBytes), options.maxMemory,
                "reading this " + std::to_string(width) + " x " + std::to_string(height) + " JPEG image");
        }
        if (m == 0x01 || (m >= 0xD0 && m <= 0xD7)) continue;  // no length
        const int l0 = byteAt(i), l1 = byteAt(i + 1);
        if (l0 < 0 || l1 < 0) break;
        const uint64_t len = uint64_t(l0) << 8 | uint64_t(l1);
        if (len < 2) return Status::error("corrupt JPEG: bad segment length at byte " + std::to_string(i));
        const bool sof = m >= 0xC0 && m <= 0xCF && m != 0xC4 && m != 0xC8 && m != 0xCC;
        if (sof && len >= 8) {
            unsigned char s[6];
            for (int k = 0; k < 6; ++k) {
                const int v = byteAt(i + 2 + uint64_t(k));
                if (v < 0) return Status::error("truncated JPEG frame header");
                s[k] = uint8_t(v);
            }
            const uint32_t h = be16(s + 1), w = be16(s + 3), comps = s[5];
            if (Status st = checkImageSize(w, h, std::max<uint32_t>(comps, 1), options.maxPixels); !st) return st;
            haveFrame = true;
            progressive = m == 0xC2 || m == 0xC6 || m == 0xCA || m == 0xCE;
            huffman = m <= 0xC7;
            width = w, height = h;
            blocks = mulBytes(uint64_t(w + 7) / 8, uint64_t(h + 7) / 8);
            planeBytes = mulBytes(uint64_t(w) * h, comps == 4 ? 4 : comps >= 3 ? 3 : 1);
            // 64 coefficients of 2 bytes per 8x8 block and component, blocks rounded up.
            frameBytes = mulBytes(mulBytes(uint64_t(w + 15) / 8 * 8, uint64_t(h + 15) / 8 * 8), uint64_t(comps) * 2);
        }
        i += len;
        if (m == 0xDA) {
            if (++scans > kMaxJpegScans)
                return Status::error("JPEG with more than " + std::to_string(kMaxJpegScans) +
                                     " scans (a normal progressive file has about ten); refused as a decoding bomb");
            // Entropy-coded data up to the next marker other than RST or a stuffed zero.
            const uint64_t start = i;
            for (;;) {
                const int a = byteAt(i);
                if (a < 0) break;
                if (a != 0xFF) {
                    ++i;
                    continue;
                }
                const int b = byteAt(i + 1);
                if (b < 0) {
                    ++i;
                    break;
                }
                if (b != 0x00 && !(b >= 0xD0 && b <= 0xD7)) break;
                i += 2;
            }
            coded += i - start;
        }
    }
    return Status::error("truncated or corrupt JPEG: no end-of-image marker where the file's structure says it ends");
}

/// ICO/CUR directory: every entry's size (a 0 byte means 256) and, for PNG entries, the PNG's own header.
Status checkIco(std::FILE* f, const ReadOptions& options, HeaderFacts& facts) {
    unsigned char h[6];
    if (readAt(f, 0, h, 6) != 6) return Status::error("truncated ICO header");
    const int count = le16(h + 4);
    if (count == 0) return Status::error("ICO file with no images");
    for (int e = 0; e < count; ++e) {
        unsigned char d[16];
        if (readAt(f, 6 + 16 * uint64_t(e), d, 16) != 16) return Status::error("truncated ICO directory");
        const uint32_t size = le32(d + 8), offset = le32(d + 12);
        unsigned char p[33];
        const size_t n = readAt(f, offset, p, sizeof p);
        if (n < 16) return Status::error("ICO entry " + std::to_string(e + 1) + " points outside the file");
        if (std::memcmp(p, "\x89PNG", 4) == 0) {
            HeaderFacts png;
            if (Status s = checkPngHeader(p, n, options, png, "ICO entry holds a PNG: "); !s) return s;
            if (Status s = checkPngData(f, offset, uint64_t(offset) + size, p); !s)
                return Status::error("ICO entry holds a " + s.message());
            // PNG entries are decoded whole into one buffer of the PNG's own size.
            const uint64_t pixels = uint64_t(be32(p + 16)) * be32(p + 20);
            facts.decoderBytes =
                std::max(facts.decoderBytes, addBytes(mulBytes(pixels, p[24] == 16 ? 8 : 4), png.decoderBytes));
        } else {
            const int32_t w = int32_t(le32(p + 4)), hh = int32_t(le32(p + 8));
            const int64_t height = hh < 0 ? -int64_t(hh) / 2 : int64_t(hh) / 2;
            if (Status s = checkImageSize(w, height, 4, options.maxPixels); !s)
                return Status::error("ICO entry: " + s.message());
            facts.decoderBytes = std::max(facts.decoderBytes, mulBytes(uint64_t(w) * uint64_t(height), 4));
        }
        (void)size;
    }
    return Status::ok();
}

/// BMP: size and compression (RLE is decoded by the built-in reader: OpenImageIO 2.4 refuses valid RLE files).
Status checkBmp(std::FILE* f, const ReadOptions& options, HeaderFacts& facts) {
    unsigned char h[34];
    if (readAt(f, 0, h, sizeof h) < 26) return Status::error("truncated BMP header");
    const uint32_t infoSize = le32(h + 14);
    int64_t w = 0, ht = 0;
    uint32_t compression = 0;
    if (infoSize == 12) {
        w = le16(h + 18), ht = le16(h + 20);
    } else if (infoSize >= 40) {
        w = int32_t(le32(h + 18)), ht = int32_t(le32(h + 22));
        compression = le32(h + 30);
    } else {
        return Status::error("corrupt BMP: unknown header size " + std::to_string(infoSize));
    }
    if (ht < 0) ht = -ht;
    if (Status s = checkImageSize(w, ht, 4, options.maxPixels); !s) return s;
    facts.bmpRle = compression == 1 || compression == 2;
    return Status::ok();
}

/// PSD layer records (OpenImageIO's reader parses them for every colour mode but CMYK, sizing buffers by each layer's
/// rectangle and channel lengths): every rectangle within the format's 300000 pixels a side and the pixel limit, at
/// most 56 channels a layer, and every channel's data inside the layer section.
Status checkPsdLayers(std::FILE* f, uint64_t at, uint64_t end, bool psb, const ReadOptions& options,
                      HeaderFacts& facts) {
    const size_t lenBytes = psb ? 8 : 4;
    auto length = [&](const unsigned char* p) { return psb ? (uint64_t(be32(p)) << 32 | be32(p + 4)) : be32(p); };
    unsigned char b[8];
    if (at == end) return Status::ok();  // no layers
    if (at + lenBytes > end || readAt(f, at, b, lenBytes) != lenBytes)
        return Status::error("corrupt PSD: the layer section ends in its header");
    const uint64_t infoLen = length(b);
    at += lenBytes;
    if (infoLen > end - at) return Status::error("corrupt PSD: the layer info claims more than its section holds");
    if (infoLen == 0) return Status::ok();
    const uint64_t infoEnd = at + infoLen;
    if (at + 2 > infoEnd || readAt(f, at, b, 2) != 2) return Status::error("corrupt PSD: no layer count");
    const int count = std::abs(int(int16_t(be16(b))));
    at += 2;
    uint64_t channelData = 0, largest = 0;
    for (int layer = 0; layer < count; ++layer) {
        unsigned char r[18];
        if (at + 18 > infoEnd || readAt(f, at, r, 18) != 18)
            return Status::error("corrupt PSD: layer " + std::to_string(layer + 1) + " runs past the layer section");
        const int64_t top = int32_t(be32(r)), left = int32_t(be32(r + 4)), bottom = int32_t(be32(r + 8)),
                      right = int32_t(be32(r + 12));
        const int channels = be16(r + 16);
        at += 18;
        const int64_t h = bottom - top, w = right - left;
        if (h < 0 || w < 0 || h > 300000 || w > 300000)
            return Status::error("corrupt PSD: layer " + std::to_string(layer + 1) + " is " + std::to_string(w) +
                                 " x " + std::to_string(h) + " pixels (the format has at most 300000 a side)");
        if (channels > 56)
            return Status::error("corrupt PSD: layer " + std::to_string(layer + 1) + " has " +
                                 std::to_string(channels) + " channels (the format has at most 56)");
        if (w > 0 && h > 0)
            if (Status s = checkImageSize(w, h, std::max(channels, 1), options.maxPixels); !s)
                return Status::error("PSD layer " + std::to_string(layer + 1) + ": " + s.message());
        for (int c = 0; c < channels; ++c) {
            unsigned char e[10];
            if (at + 2 + lenBytes > infoEnd || readAt(f, at, e, 2 + lenBytes) != 2 + lenBytes)
                return Status::error("corrupt PSD: layer " + std::to_string(layer + 1) +
                                     " runs past the layer section");
            channelData = addBytes(channelData, length(e + 2));
            at += 2 + lenBytes;
        }
        largest = std::max(largest, mulBytes(mulBytes(uint64_t(w), uint64_t(h)), uint64_t(channels)));
        // Blend mode signature and key, opacity, clipping, flags, filler, then the extra data by its length.
        unsigned char x[16];
        if (at + 16 > infoEnd || readAt(f, at, x, 16) != 16)
            return Status::error("corrupt PSD: layer " + std::to_string(layer + 1) + " runs past the layer section");
        const uint64_t extra = be32(x + 12);
        at += 16;
        if (extra > infoEnd - at)
            return Status::error("corrupt PSD: layer " + std::to_string(layer + 1) + " runs past the layer section");
        at += extra;
    }
    if (channelData > infoEnd - at)
        return Status::error("corrupt PSD: the layers' channels claim " + formatBytes(channelData) +
                             ", more than the " + "layer section holds");
    facts.decoderBytes = addBytes(facts.decoderBytes, largest);  // one layer's channels, decoded whole
    return Status::ok();
}

/// PSD: size, channel count, depth and colour mode; the sections and the merged image must fit in the file; the
/// budget before any decoder runs (the decoders hold whole channels).
Status checkPsd(std::FILE* f, const ReadOptions& options, HeaderFacts& facts) {
    unsigned char h[26];
    if (readAt(f, 0, h, sizeof h) != sizeof h) return Status::error("truncated PSD header");
    const uint32_t version = be16(h + 4), channels = be16(h + 12), ht = be32(h + 14), w = be32(h + 18),
                   depth = be16(h + 22), mode = be16(h + 24);
    if (version != 1 && version != 2) return Status::error("corrupt PSD: version " + std::to_string(version));
    // The file format's own limits: 1 to 56 channels, 1, 8, 16 or 32 bits, colour modes 0-4 and 7-9.
    if (channels < 1 || channels > 56)
        return Status::error("corrupt PSD: " + std::to_string(channels) + " channels (the format has 1 to 56)");
    if (depth != 1 && depth != 8 && depth != 16 && depth != 32)
        return Status::error("corrupt PSD: " + std::to_string(depth) + "-bit samples (the format has 1, 8, 16, 32)");
    if (mode > 9 || mode == 5 || mode == 6)
        return Status::error("corrupt PSD: colour mode " + std::to_string(mode) + " (the format has 0-4 and 7-9)");
    // The channels the colour mode needs (found by fuzzing: OpenImageIO's reader took a one-channel Lab file and read
    // past its channels).
    static const char* const modeNames[] = {"bitmap", "gray", "indexed",      "RGB",     "CMYK",
                                            "",       "",     "multichannel", "duotone", "Lab"};
    const uint32_t needs = mode == 3 || mode == 9 ? 3 : mode == 4 ? 4 : 1;
    if (channels < needs)
        return Status::error("corrupt PSD: " + std::string(modeNames[mode]) + " colour with " +
                             std::to_string(channels) + " channel" + (channels == 1 ? "" : "s") + " (it needs " +
                             std::to_string(needs) + ")");
    if (Status s = checkImageSize(w, ht, channels, options.maxPixels); !s) return s;
    const uint64_t pixels = uint64_t(w) * ht;
    facts.decoderBytes =
        addBytes(facts.decoderBytes, mulBytes(mulBytes(pixels, channels), std::max<uint32_t>(depth / 8, 1)));
    // The colour mode data, image resources and layer sections are read whole by the decoder: each
    // must fit in the file (found by fuzzing: a 517-byte file whose length field asked for 1.1 GB).
    if (std::fseek(f, 0, SEEK_END) != 0) return Status::error("cannot find the end of the PSD file");
    const long end = std::ftell(f);
    if (end <= 0) return Status::error("cannot find the end of the PSD file");
    const bool psb = version == 2;
    uint64_t at = 26, layersAt = 0, layersEnd = 0;
    for (int section = 0; section < 3; ++section) {
        unsigned char l[8];
        const size_t width = section == 2 && psb ? 8 : 4;
        if (readAt(f, at, l, width) != width)
            return Status::error("truncated PSD: the file ends in its section headers");
        const uint64_t len = width == 8 ? (uint64_t(be32(l)) << 32 | be32(l + 4)) : be32(l);
        at += width;
        if (len > uint64_t(end) - std::min<uint64_t>(at, uint64_t(end)))
            return Status::error("corrupt PSD: a section claims " + formatBytes(len) + ", more than the file holds");
        if (section == 2) layersAt = at, layersEnd = at + len;
        at += len;
    }
    if (Status s = checkPsdLayers(f, layersAt, layersEnd, psb, options, facts); !s) return s;
    // The merged image: what its size needs at the best ratio its compression has, against what the file holds.
    unsigned char c[2];
    if (readAt(f, at, c, 2) != 2) return Status::error("truncated PSD: no image data");
    const int compression = be16(c);
    if (compression > 3) return Status::error("corrupt PSD: image data compression " + std::to_string(compression));
    const uint64_t need = psdMinimumImageData(w, ht, channels, depth, compression, psb);
    const uint64_t have = uint64_t(end) - std::min<uint64_t>(at + 2, uint64_t(end));
    if (have < need)
        return Status::error("truncated PSD: a " + std::to_string(w) + " x " + std::to_string(ht) + " image of " +
                             std::to_string(channels) + " channels needs at least " + formatBytes(need) +
                             " of image data, the file holds " + formatBytes(have));
    // Planes (at most four inks and alpha), the decoder's channels and the file, before any of it is allocated.
    const uint64_t planes = mulBytes(pixels, std::min<uint32_t>(channels, 5));
    return checkMemory(addBytes(addBytes(planes, facts.decoderBytes), uint64_t(end)), options.maxMemory,
                       "reading this " + std::to_string(w) + " x " + std::to_string(ht) + " PSD image");
}

/// Classic TIFF: the ExtraSamples tag of the first image (which samples are alpha is the file's say,
/// not the channel count's).
Status checkTiff(std::FILE* f, HeaderFacts& facts) {
    unsigned char h[8];
    if (readAt(f, 0, h, 8) != 8) return Status::error("truncated TIFF header");
    const bool le = h[0] == 'I';
    auto u16 = [&](const unsigned char* p) { return le ? le16(p) : be16(p); };
    auto u32 = [&](const unsigned char* p) { return le ? le32(p) : be32(p); };
    if (u16(h + 2) != 42) return Status::ok();  // BigTIFF: OpenImageIO's view only
    const uint32_t ifd = u32(h + 4);
    unsigned char c[2];
    if (readAt(f, ifd, c, 2) != 2) return Status::ok();  // the decoder reports it
    const int n = u16(c);
    facts.tiffExtraSamples = 0;
    uint32_t samplesPerPixel = 1;
    std::set<int> seen;
    for (int e = 0; e < n; ++e) {
        unsigned char t[12];
        if (readAt(f, uint64_t(ifd) + 2 + 12 * uint64_t(e), t, 12) != 12) break;
        const int tag = u16(t), type = u16(t + 2);
        const uint32_t count = u32(t + 4);
        // A tag given twice has two meanings (libtiff keeps one, this reader would read another): refused for the
        // tags that decide what the samples are.
        if ((tag == 277 || tag == 332 || tag == 333 || tag == 338) && !seen.insert(tag).second)
            return Status::error("corrupt TIFF: tag " + std::to_string(tag) +
                                 " appears twice in the first image's directory");
        if (tag == 277 && (type == 3 || type == 4)) samplesPerPixel = type == 3 ? u16(t + 8) : u32(t + 8);
        if (tag == 332 && type == 3) facts.tiffInkSet = u16(t + 8);
        if (tag == 262 && type == 3) facts.tiffPhotometric = u16(t + 8);
        if (tag == 339 && type == 3) {  // one value per sample: all must be the first's
            facts.tiffSampleFormat = u16(t + 8);
            if (count > 2) {
                std::vector<unsigned char> v(2 * size_t(std::min<uint32_t>(count, 1u << 16)));
                if (readAt(f, u32(t + 8), v.data(), v.size()) != v.size()) continue;
                facts.tiffSampleFormat = u16(v.data());
                for (size_t k = 2; k < v.size(); k += 2)
                    if (u16(v.data() + k) != u16(v.data())) facts.tiffSampleFormat = -1;
            } else if (count == 2 && u16(t + 10) != u16(t + 8)) {
                facts.tiffSampleFormat = -1;
            }
        }
        if (tag == 333 && type == 2 && count > 0 && count <= 4096) {  // InkNames: NUL-separated ASCII
            std::vector<unsigned char> v(count);
            if (count <= 4)
                std::memcpy(v.data(), t + 8, count);
            else if (readAt(f, u32(t + 8), v.data(), count) != count)
                continue;
            std::string cur;
            for (unsigned char ch : v) {
                if (ch == 0)
                    facts.tiffInkNames.push_back(cur), cur.clear();
                else
                    cur += char(ch);
            }
            if (!cur.empty()) facts.tiffInkNames.push_back(cur);
        }
        if (tag == 338 && type == 3) {
            facts.tiffExtraSamples = int(std::min<uint32_t>(count, 1u << 16));
            if (count == 0) continue;
            unsigned char v[2];
            if (count <= 2)
                std::memcpy(v, t + 8, 2);
            else if (readAt(f, u32(t + 8), v, 2) != 2)
                continue;
            facts.tiffFirstExtra = u16(v);
        }
    }
    if (uint32_t(facts.tiffExtraSamples) >= samplesPerPixel && facts.tiffExtraSamples > 0)
        return Status::error("corrupt TIFF: " + std::to_string(facts.tiffExtraSamples) + " extra samples of " +
                             std::to_string(samplesPerPixel) + " samples a pixel leave no colour samples");
    return Status::ok();
}

}  // namespace

uint64_t psdMinimumImageData(uint64_t width, uint64_t height, uint64_t channels, uint64_t depthBits, int compression,
                             bool psb) {
    const uint64_t rowBytes = (mulBytes(width, depthBits) + 7) / 8, rows = mulBytes(height, channels);
    const uint64_t raw = mulBytes(rowBytes, rows);
    if (compression == 0) return raw;
    if (compression == 1) return mulBytes(rows, (psb ? 4 : 2) + 2 * ((rowBytes + 127) / 128));
    return raw / 1032;
}

std::string sniffFormat(const unsigned char* d, size_t n) {
    auto starts = [&](const char* m, size_t k, size_t at = 0) { return n >= at + k && std::memcmp(d + at, m, k) == 0; };
    if (starts("\x89PNG\r\n\x1a\n", 8)) return "png";
    if (starts("\xFF\xD8\xFF", 3)) return "jpeg";
    if (starts("II*\0", 4) || starts("MM\0*", 4) || starts("II+\0", 4) || starts("MM\0+", 4)) return "tiff";
    if (starts("GIF87a", 6) || starts("GIF89a", 6)) return "gif";
    if (starts("BM", 2) && n >= 18) return "bmp";
    if (starts("RIFF", 4) && starts("WEBP", 4, 8)) return "webp";
    if (starts("\x76\x2f\x31\x01", 4)) return "openexr";
    if (starts("8BPS", 4)) return "psd";
    if (starts("\0\0\1\0", 4) || starts("\0\0\2\0", 4)) return "ico";
    if (starts("#?RADIANCE", 10) || starts("#?RGBE", 6)) return "hdr";
    if (starts("SDPX", 4) || starts("XPDS", 4)) return "dpx";
    if (starts("\x80\x2a\x5f\xd7", 4) || starts("\xd7\x5f\x2a\x80", 4)) return "cineon";
    if (starts("\x01\xda", 2)) return "sgi";
    if (starts("SIMPLE  =", 9)) return "fits";
    if (starts("DDS ", 4)) return "dds";
    if (starts("\x53\x80\xf6\x34", 4)) return "softimage";
    if (starts("FOR4", 4) || starts("FORM", 4)) return "iff";
    if (starts("\0\0\0\x0cjP  ", 8) || starts("\xff\x4f\xff\x51", 4)) return "jpeg2000";
    if (starts("ftypheic", 8, 4) || starts("ftypheix", 8, 4) || starts("ftypavif", 8, 4) || starts("ftypmif1", 8, 4))
        return "heif";
    if (starts("Ptex", 4)) return "ptex";
    if (starts("\x2f\x08\x67\xab", 4) || starts("\xab\x67\x08\x2f", 4)) return "zfile";
    if (n >= 2 && d[0] == 'P' && d[1] >= '1' && d[1] <= '3' && n >= 3 &&
        (d[2] == ' ' || d[2] == '\n' || d[2] == '\r' || d[2] == '\t'))
        return "pnm";
    return {};
}

Status checkHeader(const std::string& path, const std::string& format, const ReadOptions& options, HeaderFacts& facts) {
    std::unique_ptr<std::FILE, FileCloser> f(std::fopen(path.c_str(), "rb"));
    if (!f) return Status::error("cannot open the file");
    if (format == "gif") return checkGif(f.get(), options, facts);
    if (format == "jpeg") return checkJpeg(f.get(), options, facts);
    if (format == "ico") return checkIco(f.get(), options, facts);
    if (format == "bmp") return checkBmp(f.get(), options, facts);
    if (format == "psd") return checkPsd(f.get(), options, facts);
    if (format == "tiff") return checkTiff(f.get(), facts);
    if (format == "png") {
        unsigned char p[33];
        const size_t n = readAt(f.get(), 0, p, sizeof p);
        if (Status s = checkPngHeader(p, n, options, facts, ""); !s) return s;
        return checkPngData(f.get(), 0, std::numeric_limits<uint64_t>::max(), p);
    }
    return Status::ok();
}

}  // namespace halftone::io::detail
