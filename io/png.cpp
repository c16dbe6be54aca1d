// PNG through libpng: every colour type and depth read into planes row by row (palettes and tRNS expanded, 16-bit
// samples scaled), the eXIf orientation applied; 8-bit gray, gray + alpha, RGB and RGBA written row by row.
#include <png.h>

#include <bit>
#include <cerrno>
#include <cmath>
#include <csetjmp>
#include <cstdio>
#include <cstring>
#include <vector>

#include "io/codecs.h"
#include "io/pngwrite.h"

namespace halftone::io::detail {

namespace {

/// Everything a read keeps across libpng's longjmp: owned here, outside the frame that libpng jumps out of.
struct PngRead {
    std::FILE* file = nullptr;
    png_structp png = nullptr;
    png_infop info = nullptr;
    PngErrorSink sink;
    SampleLayout layout;
    Image out;
    std::vector<png_byte> rows;  // one row, or the whole image of an interlaced file
    std::vector<png_bytep> pointers;
    int width = 0, height = 0, bits = 8, orientation = 1;
    bool interlaced = false;
    ~PngRead() {
        if (png) png_destroy_read_struct(&png, &info, nullptr);
        if (file) std::fclose(file);
    }
};

/// The header and the transformations to 8 or 16-bit gray, gray + alpha, RGB or RGBA (libpng's png_set_expand, as
/// OpenImageIO asks for); no C++ object is made here (a libpng error longjmps out of this frame).
void readHeader(PngRead& r) {
    png_init_io(r.png, r.file);
    png_read_info(r.png, r.info);
    png_set_expand(r.png);  // palette to RGB, gray below 8 bits to 8, tRNS to alpha
    if (std::endian::native == std::endian::little && png_get_bit_depth(r.png, r.info) == 16)
        png_set_swap(r.png);  // 16-bit samples in host order
    r.interlaced = png_set_interlace_handling(r.png) > 1;
    png_read_update_info(r.png, r.info);
    r.width = int(png_get_image_width(r.png, r.info));
    r.height = int(png_get_image_height(r.png, r.info));
    r.bits = png_get_bit_depth(r.png, r.info);
    png_uint_32 exifSize = 0;
    png_bytep exif = nullptr;
    if (png_get_eXIf_1(r.png, r.info, &exifSize, &exif) != 0 && exif) r.orientation = exifOrientation(exif, exifSize);
}

/// Decodes the rows into the planes, allocated once the first pixels decode (a file with no image data costs no
/// planes); false when the read was stopped. No C++ object with a destructor lives in this frame (libpng may
/// longjmp out of it).
bool readRows(PngRead& r, const StopToken& stop) {
    const size_t rowBytes = png_get_rowbytes(r.png, r.info);
    if (r.interlaced) {  // all seven passes before the first whole row
        for (int y = 0; y < r.height; ++y) r.pointers[size_t(y)] = r.rows.data() + size_t(y) * rowBytes;
        png_read_image(r.png, r.pointers.data());
        allocatePlanes(r.out, r.width, r.height, r.layout);
        for (int y = 0; y < r.height; ++y) storeRow(r.out, r.layout, r.pointers[size_t(y)], r.bits, y, 0, r.width);
        return true;
    }
    for (int y = 0; y < r.height; ++y) {
        if ((y & 255) == 0 && stop.stopRequested()) return false;
        png_read_row(r.png, r.rows.data(), nullptr);
        if (y == 0) allocatePlanes(r.out, r.width, r.height, r.layout);  // once pixels decode
        storeRow(r.out, r.layout, r.rows.data(), r.bits, y, 0, r.width);
    }
    return true;
}

}  // namespace

Status readPng(const std::string& path, const HeaderFacts& facts, Image& image, const ReadOptions& options,
               ReadInfo* info) {
    PngRead r;
    r.file = std::fopen(path.c_str(), "rb");
    if (!r.file) return Status::error(std::strerror(errno));
    r.png = png_create_read_struct(PNG_LIBPNG_VER_STRING, &r.sink, pngOnError, pngOnWarning);
    r.info = r.png ? png_create_info_struct(r.png) : nullptr;
    if (!r.png || !r.info) return Status::error("out of memory");
    auto failed = [&] {
        return Status::error(std::feof(r.file) ? "truncated PNG: the file ends before its image data does"
                                               : "corrupt PNG: " + r.sink.message);
    };
    if (setjmp(png_jmpbuf(r.png))) return failed();
    readHeader(r);
    const int samples = png_get_channels(r.png, r.info);
    if (samples < 1 || samples > 4 || (r.bits != 8 && r.bits != 16))
        return Status::error("PNG with " + std::to_string(samples) + " samples of " + std::to_string(r.bits) +
                             " bits after expansion is not supported");
    r.layout = plainLayout(samples);
    const size_t rowBytes = png_get_rowbytes(r.png, r.info);
    const uint64_t decoder = r.interlaced ? mulBytes(rowBytes, uint64_t(r.height)) : rowBytes;
    if (Status s =
            checkReadMemory(r.width, r.height, r.layout, addBytes(decoder, facts.decoderBytes), r.orientation, options);
        !s)
        return s;
    if (options.stop.stopRequested()) return Status::cancelled();
    r.rows.resize(size_t(decoder));
    r.pointers.resize(r.interlaced ? size_t(r.height) : 0);
    if (setjmp(png_jmpbuf(r.png))) return failed();
    if (!readRows(r, options.stop)) return Status::cancelled();
    png_uint_32 resX = 0, resY = 0;
    int unit = 0;
    if (info && png_get_pHYs(r.png, r.info, &resX, &resY, &unit) && unit == PNG_RESOLUTION_METER && resX > 0)
        info->dpi = std::round(resX * 0.0254 * 100) / 100;  // pHYs holds whole pixels per metre
    finishRead(r.out, r.orientation, "png", samples, r.bits == 16 ? "uint16" : "uint8", {}, info, image);
    return Status::ok();
}

Status writePng(const std::string& path, const Image& image, const WriteOptions& options) {
    const int colors = image.channelCount();
    PngLayout layout;
    layout.width = image.width();
    layout.height = image.height();
    layout.colorType = colors == 1 ? (image.hasAlpha ? PNG_COLOR_TYPE_GA : PNG_COLOR_TYPE_GRAY)
                                   : (image.hasAlpha ? PNG_COLOR_TYPE_RGBA : PNG_COLOR_TYPE_RGB);
    layout.dpi = options.dpi;
    layout.level = options.compressLevel;
    return writePngRows(
        path, layout, [&](int y, png_byte* row) { interleaveRow(image, y, row); }, options.control);
}

}  // namespace halftone::io::detail
