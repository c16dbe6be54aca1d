#include "io/indexed.h"

#include "io/codecs.h"
#include "io/pngwrite.h"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <csetjmp>
#include <cstdio>
#include <cstring>
#include <memory>
#include <vector>

namespace halftone::io::detail {

namespace {

/// The smallest PNG bit depth that holds `colors` indices.
int pngDepth(size_t colors) { return colors <= 2 ? 1 : colors <= 4 ? 2 : colors <= 16 ? 4 : 8; }

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

bool indexedForm(const Image& image, bool withAlpha, IndexedRows& rows) {
    rows = IndexedRows{};
    if (hasExactPalette(image, withAlpha)) {
        rows.palette = image.palette;
        if (!image.hasAlpha) {
            rows.row = [&image](int y, uint8_t* out) { std::memcpy(out, image.indices.row(y), size_t(image.width())); };
            return true;
        }
        auto extra = std::make_shared<AlphaEntries>();
        alphaEntries(image, *extra);
        rows.trans.assign(image.palette.size(), 255);
        rows.trans.insert(rows.trans.end(), extra->alpha.begin(), extra->alpha.end());
        rows.palette.resize(rows.trans.size());
        for (size_t k = 0; k < image.palette.size(); ++k)
            for (size_t a = 0; a < 255; ++a)
                if (const int e = extra->entry[k * 256 + a]; e >= 0) rows.palette[size_t(e)] = image.palette[k];
        rows.row = [&image, extra](int y, uint8_t* out) {
            const uint8_t* idx = image.indices.row(y);
            const uint8_t* a = image.alpha.row(y);
            for (int x = 0; x < image.width(); ++x)
                out[x] = a[x] == 255 ? idx[x] : uint8_t(extra->entry[size_t(idx[x]) * 256 + a[x]]);
        };
        return true;
    }
    if (image.space != ColorSpace::RGB || image.hasAlpha || image.channels.size() != 3) return false;
    // The values each channel takes; their combinations are the palette, the index a sum of per-channel terms.
    std::array<std::array<bool, 256>, 3> seen{};
    size_t combinations = 1;
    std::array<std::vector<uint8_t>, 3> values;
    for (size_t c = 0; c < 3; ++c) {
        for (const uint8_t v : image.channels[c].data) seen[c][v] = true;
        for (int v = 0; v < 256; ++v)
            if (seen[c][size_t(v)]) values[c].push_back(uint8_t(v));
        combinations *= values[c].size();
        if (combinations > 256) return false;
    }
    auto term = std::make_shared<std::array<std::array<uint8_t, 256>, 3>>();
    const size_t n1 = values[1].size(), n2 = values[2].size();
    for (size_t c = 0, stride = n1 * n2; c < 3; stride = c == 0 ? n2 : 1, ++c)
        for (size_t k = 0; k < values[c].size(); ++k) (*term)[c][values[c][k]] = uint8_t(k * stride);
    for (const uint8_t r : values[0])
        for (const uint8_t g : values[1])
            for (const uint8_t b : values[2]) rows.palette.push_back({r, g, b});
    rows.row = [&image, term](int y, uint8_t* out) {
        const uint8_t *r = image.channels[0].row(y), *g = image.channels[1].row(y), *b = image.channels[2].row(y);
        const auto& t = *term;
        for (int x = 0; x < image.width(); ++x) out[x] = uint8_t(t[0][r[x]] + t[1][g[x]] + t[2][b[x]]);
    };
    return true;
}

Status writePngIndexed(const std::string& path, int w, int h, const IndexedRows& rows, const WriteOptions& options) {
    PngLayout layout;
    layout.width = w;
    layout.height = h;
    layout.colorType = PNG_COLOR_TYPE_PALETTE;
    layout.dpi = options.dpi;
    layout.level = options.compressLevel;
    for (const auto& c : rows.palette) layout.palette.push_back({c[0], c[1], c[2]});
    layout.trans = rows.trans;
    layout.bitDepth = pngDepth(layout.palette.size());
    std::vector<uint8_t> indices(static_cast<size_t>(w));
    return writePngRows(
        path, layout,
        [&](int y, png_byte* row) {
            rows.row(y, indices.data());
            packRow(indices.data(), w, layout.bitDepth, row);
        },
        options.control);
}

Status writeTiffIndexed(const std::string& path, int w, int h, const IndexedRows& rows, const WriteOptions& options) {
    TiffLayout layout;
    layout.width = w;
    layout.height = h;
    layout.bits = rows.palette.size() <= 16 ? 4 : 8;  // the palette depths of baseline TIFF
    layout.photometric = 3;
    // ColorMap: all reds, then all greens, then all blues, 16 bits each (v * 257), 2^bits entries.
    const size_t entries = size_t(1) << layout.bits;
    layout.colorMap.assign(3 * entries, 0);
    for (size_t k = 0; k < rows.palette.size(); ++k)
        for (size_t c = 0; c < 3; ++c) layout.colorMap[c * entries + k] = uint16_t(rows.palette[k][c] * 257);
    return writeTiffRows(
        path, layout,
        [&](int y, uint8_t* row, uint8_t* scratch) {
            rows.row(y, scratch);
            packRow(scratch, w, layout.bits, row);
        },
        options);
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
