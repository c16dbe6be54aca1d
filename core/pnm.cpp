// The binary PNM codec (netpbm formats P4, P5, P6; maxval up to 65535).
#include "core/pnm.h"

#include "core/budget.h"

#include <sys/stat.h>

#include <algorithm>
#include <bit>
#include <cstring>

namespace halftone::pnm {

namespace {

bool isSpace(int c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f'; }

/// Skips whitespace and '#' comments (to the end of the line).
void skipSpaceAndComments(Source& in) {
    for (;;) {
        int c = in.get();
        if (c == '#') {
            while (c != EOF && c != '\n' && c != '\r') c = in.get();
            continue;
        }
        if (isSpace(c)) continue;
        if (c != EOF) in.unget(c);
        return;
    }
}

/// Reads one unsigned decimal header field; `last` means exactly one whitespace byte must follow.
Status readField(Source& in, const char* name, int64_t& value, bool last) {
    skipSpaceAndComments(in);
    int c = in.get();
    if (c == EOF) return Status::error(std::string("truncated header: ") + name + " is missing");
    if (c < '0' || c > '9') return Status::error(std::string("bad header: ") + name + " is not a number");
    value = 0;
    int digits = 0;
    while (c >= '0' && c <= '9') {
        if (++digits > 10) return Status::error(std::string("bad header: ") + name + " is too large");
        value = value * 10 + (c - '0');
        c = in.get();
    }
    if (c == EOF) return Status::error("truncated: the header ends without pixel data");
    if (last) {
        if (!isSpace(c)) return Status::error(std::string("bad header: no whitespace after ") + name);
    } else {
        if (c == '#')
            in.unget(c);
        else if (!isSpace(c))
            return Status::error(std::string("bad header: unexpected character after ") + name);
    }
    return Status::ok();
}

}  // namespace

int64_t FileSource::remaining() const {
    const long here = std::ftell(f_);
    struct stat st {};
    if (here < 0 || ::fstat(fileno(f_), &st) != 0 || !S_ISREG(st.st_mode)) return -1;
    return st.st_size > here ? int64_t(st.st_size) - here : 0;
}

size_t MemorySource::read(void* dst, size_t n) {
    const size_t k = std::min(n, size_ - pos_);
    std::memcpy(dst, data_ + pos_, k);
    pos_ += k;
    return k;
}

bool isBinaryMagic(const unsigned char* head, size_t n) {
    return n >= 2 && head[0] == 'P' && (head[1] == '4' || head[1] == '5' || head[1] == '6');
}

uint64_t Header::rowBytes() const {
    return bitmap() ? (uint64_t(width) + 7) / 8 : uint64_t(width) * uint64_t(channels()) * uint64_t(bytesPerSample());
}

Status readHeader(Source& in, Header& h) {
    const int m0 = in.get(), m1 = in.get();
    if (m0 != 'P' || m1 < '1' || m1 > '7') return Status::error("not a PNM file (bad magic number)");
    if (m1 >= '1' && m1 <= '3')
        return Status::error("ASCII PNM (P" + std::string(1, char(m1)) + ") is not supported, only binary P4/P5/P6");
    if (m1 == '7') return Status::error("PAM (P7) is not supported, only binary P4/P5/P6");
    h = Header{};
    h.magic = char(m1);
    if (Status s = readField(in, "width", h.width, false); !s) return s;
    if (Status s = readField(in, "height", h.height, h.bitmap()); !s) return s;
    if (!h.bitmap()) {
        if (Status s = readField(in, "maxval", h.maxval, true); !s) return s;
        if (h.maxval < 1 || h.maxval > 65535)
            return Status::error("bad header: maxval " + std::to_string(h.maxval) + " is outside 1..65535");
    }
    return Status::ok();
}

Status checkLength(const Source& in, const Header& h) {
    const int64_t have = in.remaining();
    const uint64_t need = h.rowBytes() * uint64_t(h.height);
    if (have >= 0 && uint64_t(have) < need)
        return Status::error("truncated: the header promises " + std::to_string(h.width) + " x " +
                             std::to_string(h.height) + " (" + std::to_string(need) + " bytes of pixels) but only " +
                             std::to_string(have) + " bytes follow");
    return Status::ok();
}

Status readPixels(Source& in, const Header& hd, Image& image) {
    const int channels = hd.channels(), bytesPerSample = hd.bytesPerSample();
    const bool bitmap = hd.bitmap();
    const uint64_t rowBytes = hd.rowBytes();
    Image out;
    out.space = channels == 3 ? ColorSpace::RGB : ColorSpace::Gray;
    // Each plane allocated in place (assign() from one prototype would allocate, fill and copy one more plane).
    out.channels.resize(size_t(channels));
    for (Plane8& p : out.channels) p = Plane8(int(hd.width), int(hd.height));
    const uint32_t mv = uint32_t(hd.maxval), half = mv / 2;
    const int w = int(hd.width), h = int(hd.height);
    if (!bitmap && channels == 1 && bytesPerSample == 1 && mv == 255) {
        // The common case (8-bit P5): rows are contiguous in the plane and every byte is valid,
        // so one bulk read is the whole decode.
        const size_t n = size_t(w) * size_t(h);
        if (in.read(out.channels[0].data.data(), n) != n)
            return Status::error("truncated: pixel data ends before " + std::to_string(n) + " bytes");
    } else {
        std::vector<unsigned char> row(rowBytes);
        for (int y = 0; y < h; ++y) {
            if (in.read(row.data(), rowBytes) != rowBytes)
                return Status::error("truncated: pixel data ends at row " + std::to_string(y) + " of " +
                                     std::to_string(h));
            if (bitmap) {
                uint8_t* d = out.channels[0].row(y);
                for (int x = 0; x < w; ++x) d[x] = (row[size_t(x >> 3)] >> (7 - (x & 7))) & 1 ? 0 : 255;
                continue;
            }
            if (bytesPerSample == 1 && mv == 255) {  // 8-bit P6: de-interleave only
                uint8_t* r = out.channels[0].row(y);
                uint8_t* g = out.channels[1].row(y);
                uint8_t* b = out.channels[2].row(y);
                for (int x = 0; x < w; ++x) {
                    r[x] = row[3 * size_t(x)];
                    g[x] = row[3 * size_t(x) + 1];
                    b[x] = row[3 * size_t(x) + 2];
                }
                continue;
            }
            for (int x = 0; x < w; ++x)
                for (int c = 0; c < channels; ++c) {
                    const size_t i = (size_t(x) * channels + c) * bytesPerSample;
                    const uint32_t v = bytesPerSample == 2 ? (uint32_t(row[i]) << 8) | row[i + 1] : row[i];
                    if (v > mv)
                        return Status::error("corrupt: sample value " + std::to_string(v) + " exceeds maxval " +
                                             std::to_string(mv) + " at (" + std::to_string(x) + ", " +
                                             std::to_string(y) + ")");
                    out.channels[size_t(c)].row(y)[x] = uint8_t((v * 255 + half) / mv);
                }
        }
    }
    image = std::move(out);
    return Status::ok();
}

Status read(Source& in, Image& image, const Limits& limits, Info* info) {
    Header h;
    if (Status s = readHeader(in, h); !s) return s;
    if (Status s = checkImageSize(h.width, h.height, h.channels(), limits.maxPixels); !s) return s;
    if (limits.maxMemory > 0)  // 0: no limit
        if (Status s =
                checkMemory(addBytes(uint64_t(h.width) * uint64_t(h.height) * uint64_t(h.channels()), h.rowBytes()),
                            limits.maxMemory,
                            "reading this " + std::to_string(h.width) + " x " + std::to_string(h.height) + " image");
            !s)
            return s;
    if (Status s = checkLength(in, h); !s) return s;
    Image out;
    if (Status s = readPixels(in, h, out); !s) return s;
    if (info) {
        info->sourceChannels = h.channels();
        info->sourceType = h.bitmap() ? "1-bit" : (h.bytesPerSample() == 2 ? "uint16" : "uint8");
        info->notes.clear();
        skipSpaceAndComments(in);
        const int a = in.get(), b = in.get();
        if (a == 'P' && b >= '1' && b <= '7') info->notes = "multi-image PNM: only the first image was read";
    }
    image = std::move(out);
    return Status::ok();
}

Status write(const Image& image, Kind kind, const Sink& put) {
    const int w = image.width(), h = image.height();
    const int n = image.channelCount();
    if (kind != Kind::Ppm && !(image.space == ColorSpace::Gray && n == 1))
        return Status::error(std::string(kind == Kind::Pbm ? "PBM" : "PGM") +
                             " holds one gray channel but the image has " + std::to_string(n) +
                             " channels; write .ppm, .png or .tif instead");
    if (kind == Kind::Ppm && image.space == ColorSpace::CMYK)
        return Status::error("PPM cannot hold CMYK; write .tif instead");
    const char magic = kind == Kind::Pbm ? '4' : kind == Kind::Pgm ? '5' : '6';
    const std::string head = std::string("P") + magic + "\n" + std::to_string(w) + " " + std::to_string(h) + "\n" +
                             (kind == Kind::Pbm ? "" : "255\n");
    if (Status s = put(head.data(), head.size()); !s) return s;

    if (kind == Kind::Pgm) return put(image.channels[0].data.data(), image.channels[0].size());  // rows are contiguous
    const int outCh = kind == Kind::Ppm ? 3 : 1;
    // Rows are packed into a chunk of about 1 MiB that goes out in one write (row by row, an 8K PBM took 2048
    // system calls through stdio's 4 KiB buffer).
    const size_t rowBytes = kind == Kind::Pbm ? size_t(w + 7) / 8 : size_t(w) * outCh;
    const size_t chunkRows = std::max<size_t>(1, (size_t(1) << 20) / rowBytes);
    std::vector<unsigned char> chunk(rowBytes * std::min(chunkRows, size_t(h)));
    size_t filled = 0;
    for (int y = 0; y < h; ++y) {
        unsigned char* const row = chunk.data() + filled * rowBytes;
        if (kind == Kind::Pbm) {
            // Pack 8 pixels a byte (0 = black = bit set) and check, in the same pass, that the row is binary:
            // uint8(v + 1) is 1 for 0 and 0 for 255, and >= 2 for any other value.
            const uint8_t* s = image.channels[0].row(y);
            unsigned bad = 0;
            const int full = w / 8;
            // Eight pixels a 64-bit word (little-endian: pixel k in byte k). A byte is 0 or 255 exactly when its
            // low seven bits all equal its top bit; the top bits of the black pixels, moved to bit 8k, are
            // gathered into bits 63-k by one multiplication (the partial products never overlap, so nothing
            // carries) and shifted down: pixel 0 lands in the byte's top bit, as PBM wants.
            static_assert(std::endian::native == std::endian::little,
                          "the packing reads pixels as little-endian words");
            uint64_t badWord = 0;
            for (int b = 0; b < full; ++b) {
                uint64_t v;
                std::memcpy(&v, s + 8 * b, 8);
                const uint64_t top = (v >> 7) & 0x0101010101010101ull;
                badWord |= (v & 0x7F7F7F7F7F7F7F7Full) ^ (top * 0x7F);
                const uint64_t black = top ^ 0x0101010101010101ull;
                row[size_t(b)] = uint8_t((black * 0x8040201008040201ull) >> 56);
            }
            bad |= unsigned(badWord != 0);
            if (w % 8) {
                unsigned bits = 0;
                for (int x = 8 * full; x < w; ++x) {
                    bits |= unsigned(s[x] == 0) << (7 - (x & 7));
                    bad |= unsigned(uint8_t(s[x] + 1) > 1);
                }
                row[size_t(full)] = uint8_t(bits);
            }
            if (bad) {
                int v = 0;
                for (int x = 0; x < w; ++x)
                    if (s[x] != 0 && s[x] != 255) {
                        v = s[x];
                        break;
                    }
                return Status::error("PBM holds only black and white but the image has the value " + std::to_string(v) +
                                     "; write .pgm instead");
            }
        } else {
            for (int c = 0; c < outCh; ++c) {
                const uint8_t* s = image.channels[size_t(n == 1 ? 0 : c)].row(y);
                for (int x = 0; x < w; ++x) row[size_t(x) * outCh + c] = s[x];
            }
        }
        if (++filled * rowBytes == chunk.size() || y == h - 1) {
            if (Status st = put(chunk.data(), filled * rowBytes); !st) return st;
            filled = 0;
        }
    }
    return Status::ok();
}

std::vector<uint8_t> encodePgm(const Plane8& plane) {
    Image image;
    image.space = ColorSpace::Gray;
    image.channels.push_back(plane);
    std::vector<uint8_t> bytes;
    (void)write(image, Kind::Pgm, [&](const void* data, size_t n) {
        const auto* p = static_cast<const uint8_t*>(data);
        bytes.insert(bytes.end(), p, p + n);
        return Status::ok();
    });
    return bytes;
}

}  // namespace halftone::pnm
