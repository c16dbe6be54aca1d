#include "io/indexed.h"

#include "io/pngwrite.h"

#include <zlib.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <csetjmp>
#include <cstdio>
#include <cstring>
#include <vector>

namespace halftone::io::detail {

namespace {

/// The smallest PNG bit depth that holds `colors` indices.
int pngDepth(size_t colors) { return colors <= 2 ? 1 : colors <= 4 ? 2 : colors <= 16 ? 4 : 8; }

/// Packs one row of indices at `depth` bits each, most significant bits first (PNG and TIFF alike).
void packRow(const uint8_t* idx, int w, int depth, uint8_t* out) {
    if (depth == 8) {
        std::memcpy(out, idx, size_t(w));
        return;
    }
    const int perByte = 8 / depth;
    std::fill(out, out + (size_t(w) * size_t(depth) + 7) / 8, uint8_t(0));
    for (int x = 0; x < w; ++x) out[x / perByte] |= uint8_t(idx[x] << (8 - depth * (x % perByte + 1)));
}

/// The entries after the palette's colours of an image with alpha: entry[k * 256 + a] for colour k under alpha
/// a < 255 (-1: none), in the order of first occurrence in raster order, and their alphas.
struct AlphaEntries {
    std::vector<int> entry;
    std::vector<png_byte> alpha;
};

/// The alpha entries of `image`; false when the palette and they pass 256 entries.
bool alphaEntries(const Image& image, AlphaEntries& out) {
    const size_t k = image.palette.size();
    out.entry.assign(k * 256, -1);
    out.alpha.clear();
    const std::vector<uint8_t>& idx = image.indices.data;
    const std::vector<uint8_t>& a = image.alpha.data;
    for (size_t i = 0; i < idx.size(); ++i) {
        if (a[i] == 255) continue;
        int& e = out.entry[size_t(idx[i]) * 256 + a[i]];
        if (e >= 0) continue;
        if (k + out.alpha.size() >= 256) return false;
        e = int(k + out.alpha.size());
        out.alpha.push_back(a[i]);
    }
    return true;
}

}  // namespace

bool hasExactPalette(const Image& image, bool withAlpha) {
    const size_t k = image.palette.size();
    if (k < 1 || k > 256 || (image.hasAlpha && !withAlpha) || image.space != ColorSpace::RGB ||
        image.channels.size() != 3)
        return false;
    if (image.hasAlpha && !image.alpha.sameSize(image.channels[0])) return false;
    if (!image.indices.sameSize(image.channels[0]) || image.indices.size() != image.channels[0].size()) return false;
    const std::vector<uint8_t>& idx = image.indices.data;
    for (size_t i = 0; i < idx.size(); ++i) {
        if (idx[i] >= k) return false;
        const auto& c = image.palette[idx[i]];
        if (image.channels[0].data[i] != c[0] || image.channels[1].data[i] != c[1] || image.channels[2].data[i] != c[2])
            return false;
    }
    AlphaEntries entries;
    return !image.hasAlpha || alphaEntries(image, entries);
}

Status writePngIndexed(const std::string& path, const Image& image, double dpi) {
    PngLayout layout;
    layout.width = image.width();
    layout.height = image.height();
    layout.colorType = PNG_COLOR_TYPE_PALETTE;
    layout.dpi = dpi;
    for (const auto& c : image.palette) layout.palette.push_back({c[0], c[1], c[2]});
    AlphaEntries extra;
    if (image.hasAlpha) {
        if (!alphaEntries(image, extra)) return Status::error("the palette and its alpha need more than 256 entries");
        layout.trans.assign(image.palette.size(), 255);
        for (size_t k = 0; k < image.palette.size(); ++k)
            for (int a = 0; a < 255; ++a)
                if (const int e = extra.entry[k * 256 + size_t(a)]; e >= 0) {
                    const auto& c = image.palette[k];
                    if (layout.palette.size() <= size_t(e)) layout.palette.resize(size_t(e) + 1);
                    layout.palette[size_t(e)] = {c[0], c[1], c[2]};
                }
        layout.trans.insert(layout.trans.end(), extra.alpha.begin(), extra.alpha.end());
    }
    layout.bitDepth = pngDepth(layout.palette.size());
    std::vector<uint8_t> indices(size_t(layout.width));
    return writePngRows(path, layout, [&](int y, png_byte* row) {
        const uint8_t* idx = image.indices.row(y);
        if (image.hasAlpha) {
            const uint8_t* a = image.alpha.row(y);
            for (int x = 0; x < layout.width; ++x)
                indices[size_t(x)] = a[x] == 255 ? idx[x] : uint8_t(extra.entry[size_t(idx[x]) * 256 + a[x]]);
            idx = indices.data();
        }
        packRow(idx, layout.width, layout.bitDepth, row);
    });
}

namespace {

/// A little-endian classic TIFF written front to back: the header, the data blocks as they come, then the one
/// IFD, whose offset is patched into the header at the end.
class TiffWriter {
public:
    explicit TiffWriter(std::FILE* f) : f_(f) {
        static const uint8_t header[8] = {'I', 'I', 42, 0, 0, 0, 0, 0};
        write(header, 8);
    }
    /// Appends a block (word-aligned) and returns its offset.
    uint32_t append(const void* data, size_t n) {
        if (pos_ & 1) write("", 1);
        const auto at = uint32_t(pos_);
        write(data, n);
        return at;
    }
    uint32_t appendLongs(const std::vector<uint32_t>& v) {
        std::vector<uint8_t> b;
        for (uint32_t x : v) put32(b, x);
        return append(b.data(), b.size());
    }
    uint32_t appendShorts(const std::vector<uint16_t>& v) {
        std::vector<uint8_t> b;
        for (uint16_t x : v) put16(b, x);
        return append(b.data(), b.size());
    }
    /// One IFD entry; `value` is the value itself when it fits 4 bytes, else the offset of its block.
    void entry(uint16_t tag, uint16_t type, uint32_t count, uint32_t value) {
        entries_.push_back({tag, type, count, value});
    }
    uint64_t size() const { return pos_; }
    /// Writes the IFD (entries sorted by tag) and points the header at it.
    Status finish() {
        std::sort(entries_.begin(), entries_.end(), [](const Entry& a, const Entry& b) { return a.tag < b.tag; });
        std::vector<uint8_t> ifd;
        put16(ifd, uint16_t(entries_.size()));
        for (const Entry& e : entries_) {
            put16(ifd, e.tag);
            put16(ifd, e.type);
            put32(ifd, e.count);
            if (e.type == kShort && e.count == 1) {
                put16(ifd, uint16_t(e.value));
                put16(ifd, 0);
            } else {
                put32(ifd, e.value);
            }
        }
        put32(ifd, 0);  // no further IFD
        const uint32_t at = append(ifd.data(), ifd.size());
        std::vector<uint8_t> offset;
        put32(offset, at);
        if (ok_ && (std::fseek(f_, 4, SEEK_SET) != 0 || std::fwrite(offset.data(), 1, 4, f_) != 4)) ok_ = false;
        return ok_ ? Status::ok() : Status::error(std::string("write failed: ") + std::strerror(errno));
    }
    bool ok() const { return ok_; }
    static constexpr uint16_t kShort = 3, kLong = 4, kRational = 5;

private:
    struct Entry {
        uint16_t tag, type;
        uint32_t count, value;
    };
    void write(const void* data, size_t n) {
        if (ok_ && n > 0 && std::fwrite(data, 1, n, f_) != n) ok_ = false;
        pos_ += n;
    }
    static void put16(std::vector<uint8_t>& b, uint16_t v) {
        b.push_back(uint8_t(v));
        b.push_back(uint8_t(v >> 8));
    }
    static void put32(std::vector<uint8_t>& b, uint32_t v) {
        for (int k = 0; k < 4; ++k) b.push_back(uint8_t(v >> (8 * k)));
    }
    std::FILE* f_;
    uint64_t pos_ = 0;
    bool ok_ = true;
    std::vector<Entry> entries_;
};

}  // namespace

Status writeTiffIndexed(const std::string& path, const Image& image, double dpi) {
    const int w = image.width(), h = image.height();
    const int depth = image.palette.size() <= 16 ? 4 : 8;  // the palette depths of baseline TIFF
    const size_t rowBytes = (size_t(w) * size_t(depth) + 7) / 8;
    const int rowsPerStrip = int(std::clamp<size_t>((size_t(256) << 10) / rowBytes, 1, size_t(h)));
    std::FILE* f = std::fopen(path.c_str(), "wb");
    if (!f) return Status::error(std::strerror(errno));
    auto fail = [&](const std::string& message) {
        std::fclose(f);
        return Status::error(message);
    };
    TiffWriter t(f);
    std::vector<uint32_t> offsets, counts;
    std::vector<uint8_t> raw, packed;
    for (int y0 = 0; y0 < h; y0 += rowsPerStrip) {
        const int y1 = std::min(h, y0 + rowsPerStrip);
        raw.resize(rowBytes * size_t(y1 - y0));
        for (int y = y0; y < y1; ++y) packRow(image.indices.row(y), w, depth, raw.data() + rowBytes * size_t(y - y0));
        uLongf packedSize = compressBound(uLong(raw.size()));
        packed.resize(packedSize);
        if (compress2(packed.data(), &packedSize, raw.data(), uLong(raw.size()), Z_DEFAULT_COMPRESSION) != Z_OK)
            return fail("out of memory while compressing");
        // Room for the strip tables, the colour map and the IFD behind the strips, within classic TIFF's 4 GiB.
        if (t.size() + packedSize + 8 * size_t(h) + (size_t(1) << 20) > UINT32_MAX)
            return fail("the image is too large for a TIFF file (4 GiB)");
        offsets.push_back(t.append(packed.data(), packedSize));
        counts.push_back(uint32_t(packedSize));
        if (!t.ok()) return fail(std::string("write failed: ") + std::strerror(errno));
    }
    const auto strips = uint32_t(offsets.size());
    const uint32_t offsetsAt = strips == 1 ? offsets[0] : t.appendLongs(offsets);
    const uint32_t countsAt = strips == 1 ? counts[0] : t.appendLongs(counts);
    // ColorMap: all reds, then all greens, then all blues, 16 bits each (v * 257), 2^depth entries.
    const size_t entries = size_t(1) << depth;
    std::vector<uint16_t> cmap(3 * entries, 0);
    for (size_t k = 0; k < image.palette.size(); ++k)
        for (size_t c = 0; c < 3; ++c) cmap[c * entries + k] = uint16_t(image.palette[k][c] * 257);
    const uint32_t cmapAt = t.appendShorts(cmap);
    t.entry(256, TiffWriter::kLong, 1, uint32_t(w));
    t.entry(257, TiffWriter::kLong, 1, uint32_t(h));
    t.entry(258, TiffWriter::kShort, 1, uint32_t(depth));
    t.entry(259, TiffWriter::kShort, 1, 8);  // Adobe Deflate
    t.entry(262, TiffWriter::kShort, 1, 3);  // palette colour
    t.entry(273, TiffWriter::kLong, strips, offsetsAt);
    t.entry(277, TiffWriter::kShort, 1, 1);
    t.entry(278, TiffWriter::kLong, 1, uint32_t(rowsPerStrip));
    t.entry(279, TiffWriter::kLong, strips, countsAt);
    t.entry(284, TiffWriter::kShort, 1, 1);
    t.entry(320, TiffWriter::kShort, uint32_t(3 * entries), cmapAt);
    if (dpi > 0) {
        const uint32_t resAt = t.appendLongs({uint32_t(std::lround(dpi * 100)), 100});
        t.entry(282, TiffWriter::kRational, 1, resAt);
        t.entry(283, TiffWriter::kRational, 1, resAt);
        t.entry(296, TiffWriter::kShort, 1, 2);  // inch
    }
    if (Status s = t.finish(); !s) return fail(s.message());
    return closeWrittenFile(f);
}

namespace {

/// GIF's variable-length LZW codes, packed least significant bit first into sub-blocks of at most 255 bytes.
class GifCodeWriter {
public:
    explicit GifCodeWriter(std::vector<uint8_t>& out) : out_(out) {}
    void put(int code, int size) {
        acc_ |= uint32_t(code) << bits_;
        bits_ += size;
        while (bits_ >= 8) {
            byte(uint8_t(acc_));
            acc_ >>= 8;
            bits_ -= 8;
        }
    }
    void finish() {
        if (bits_ > 0) byte(uint8_t(acc_));
        if (!block_.empty()) flushBlock();
        out_.push_back(0);  // block terminator
    }

private:
    void byte(uint8_t b) {
        block_.push_back(b);
        if (block_.size() == 255) flushBlock();
    }
    void flushBlock() {
        out_.push_back(uint8_t(block_.size()));
        out_.insert(out_.end(), block_.begin(), block_.end());
        block_.clear();
    }
    std::vector<uint8_t>& out_;
    std::vector<uint8_t> block_;
    uint32_t acc_ = 0;
    int bits_ = 0;
};

}  // namespace

Status writeGifIndexed(const std::string& path, const Image& image) {
    const int w = image.width(), h = image.height();
    if (w > 65535 || h > 65535) return Status::error("GIF holds at most 65535 x 65535 pixels");
    int tableBits = 1;  // the colour table holds 2^tableBits entries
    while ((size_t(1) << tableBits) < image.palette.size()) ++tableBits;
    std::FILE* f = std::fopen(path.c_str(), "wb");
    if (!f) return Status::error(std::strerror(errno));
    // The file is written in pieces of about 1 MiB as the codes come.
    std::vector<uint8_t> out = {'G', 'I', 'F', '8', '9', 'a'};
    bool written = true;
    auto flush = [&] {
        if (written && !out.empty() && std::fwrite(out.data(), 1, out.size(), f) != out.size()) written = false;
        out.clear();
    };
    auto put16 = [&](int v) {
        out.push_back(uint8_t(v));
        out.push_back(uint8_t(v >> 8));
    };
    put16(w);
    put16(h);
    out.push_back(uint8_t(0x80 | ((tableBits - 1) << 4) | (tableBits - 1)));  // global table, its size
    out.push_back(0);                                                         // background colour index
    out.push_back(0);                                                         // square pixels
    for (size_t k = 0; k < (size_t(1) << tableBits); ++k)
        for (size_t c = 0; c < 3; ++c) out.push_back(k < image.palette.size() ? image.palette[k][c] : 0);
    out.push_back(0x2C);  // image descriptor: at 0,0, full size, no local table, not interlaced
    put16(0);
    put16(0);
    put16(w);
    put16(h);
    out.push_back(0);
    // LZW (GIF89a appendix F): codes grow from minCode + 1 bits up to 12; a clear code restarts the table when
    // it is full. The table maps (prefix code, next index) to a code through a generation-stamped array.
    const int minCode = std::max(2, tableBits);
    const int clear = 1 << minCode, end = clear + 1;
    out.push_back(uint8_t(minCode));
    GifCodeWriter codes(out);
    std::vector<uint16_t> next(size_t(4096) * 256);
    std::vector<uint32_t> stamp(size_t(4096) * 256, 0);
    uint32_t generation = 1;
    int size = minCode + 1, maxCode = end, cur = -1;
    codes.put(clear, size);
    for (int y = 0; y < h; ++y) {
        const uint8_t* row = image.indices.row(y);
        for (int x = 0; x < w; ++x) {
            const int v = row[x];
            if (cur < 0) {
                cur = v;
                continue;
            }
            const size_t key = size_t(cur) * 256 + size_t(v);
            if (stamp[key] == generation) {
                cur = next[key];
                continue;
            }
            codes.put(cur, size);
            stamp[key] = generation;
            next[key] = uint16_t(++maxCode);
            if (maxCode >= (1 << size)) ++size;
            if (maxCode == 4095) {
                codes.put(clear, size);
                ++generation;
                size = minCode + 1;
                maxCode = end;
            }
            cur = v;
        }
        if (out.size() >= (size_t(1) << 20)) flush();
        if (!written) break;
    }
    codes.put(cur, size);
    codes.put(clear, size);
    codes.put(end, minCode + 1);
    codes.finish();
    out.push_back(0x3B);  // trailer
    flush();
    if (!written) {
        const int err = errno;
        std::fclose(f);
        return Status::error(std::string("write failed: ") + std::strerror(err));
    }
    return closeWrittenFile(f);
}

}  // namespace halftone::io::detail
