#pragma once
// \brief The one binary PNM codec (netpbm P4 PBM, P5 PGM, P6 PPM; maxval up to 65535), plain C++: image files
// (io/pnm.cpp), threshold-array screens (core/screen/screen.cpp) and the GPU tests read and write through it.
#include <cstdint>
#include <cstdio>
#include <functional>
#include <string>
#include <vector>

#include "core/image.h"
#include "core/status.h"

namespace halftone::pnm {

/// \brief Where the codec reads bytes from: an open file or bytes in memory.
class Source {
public:
    virtual ~Source() = default;
    virtual int get() = 0;  ///< the next byte, or EOF
    virtual void unget(int c) = 0;
    virtual size_t read(void* dst, size_t n) = 0;
    /// \brief Bytes left when known (a regular file, memory), -1 when not (a pipe).
    virtual int64_t remaining() const = 0;
};

/// \brief Reads an open file from its current position.
class FileSource : public Source {
public:
    explicit FileSource(std::FILE* f) : f_(f) {}
    int get() override { return std::getc(f_); }
    void unget(int c) override { std::ungetc(c, f_); }
    size_t read(void* dst, size_t n) override { return std::fread(dst, 1, n, f_); }
    int64_t remaining() const override;

private:
    std::FILE* f_;
};

/// \brief Reads bytes in memory (not copied: they must outlive the source).
class MemorySource : public Source {
public:
    MemorySource(const uint8_t* data, size_t size) : data_(data), size_(size) {}
    int get() override { return pos_ < size_ ? data_[pos_++] : EOF; }
    void unget(int c) override {
        if (c != EOF && pos_ > 0) --pos_;
    }
    size_t read(void* dst, size_t n) override;
    int64_t remaining() const override { return int64_t(size_ - pos_); }

private:
    const uint8_t* data_;
    size_t size_, pos_ = 0;
};

/// \brief True when the first bytes are a binary PNM magic number (P4, P5 or P6).
bool isBinaryMagic(const unsigned char* head, size_t n);

/// \brief A binary PNM header.
struct Header {
    char magic = '5';  ///< '4' (PBM), '5' (PGM) or '6' (PPM)
    int64_t width = 0, height = 0;
    int64_t maxval = 1;  ///< 1 for PBM
    bool bitmap() const { return magic == '4'; }
    int channels() const { return magic == '6' ? 3 : 1; }
    int bytesPerSample() const { return maxval > 255 ? 2 : 1; }
    /// \brief Bytes of one row of pixel data.
    uint64_t rowBytes() const;
};

/// \brief Reads and checks the header strictly (magic, decimal fields, comments, one whitespace byte before the data);
/// the source is left at the first pixel byte. Messages carry no file name.
Status readHeader(Source& in, Header& header);

/// \brief Checks that the source still holds the header's pixel data, where its length is known.
Status checkLength(const Source& in, const Header& header);

/// \brief Decodes the pixel data after readHeader into `image` (gray or RGB, 8-bit; PBM 1 = black = 0, samples scaled
/// from maxval to 255 with rounding). Messages carry no file name.
Status readPixels(Source& in, const Header& header, Image& image);

/// \brief Limits of read(): pixels (checkImageSize) and bytes the decode may allocate (0 = none).
struct Limits {
    uint64_t maxPixels = ~0ull;
    uint64_t maxMemory = 0;
};

/// \brief What read() found besides the pixels.
struct Info {
    int sourceChannels = 0;
    std::string sourceType;  ///< "1-bit", "uint8" or "uint16"
    std::string notes;       ///< e.g. that a multi-image file had more images
};

/// \brief Reads one binary PNM: readHeader, the size and memory limits and the length check before any pixel
/// memory is allocated, then readPixels.
Status read(Source& in, Image& image, const Limits& limits = {}, Info* info = nullptr);

/// \brief PNM flavours the writer produces.
enum class Kind { Pbm, Pgm, Ppm };

/// \brief Receives the encoded bytes; returns an error when they cannot be written.
using Sink = std::function<Status(const void* data, size_t bytes)>;

/// \brief Writes `image` as binary PNM of `kind` (8-bit; alpha is dropped: PNM has none). Messages carry no file name.
Status write(const Image& image, Kind kind, const Sink& out);

/// \brief `plane` as an 8-bit binary PGM in memory.
std::vector<uint8_t> encodePgm(const Plane8& plane);

}  // namespace halftone::pnm
