// The row-streaming PNG writer and what the PNG and TIFF writers share; gray images of 1, 2 and 4 bits.
#include "io/pngwrite.h"

#include <zlib.h>

#include <cerrno>
#include <cmath>
#include <csetjmp>
#include <cstdio>
#include <cstring>
#include <vector>

#include "io/codecs.h"

namespace halftone::io::detail {

void pngOnError(png_structp png, png_const_charp msg) {
    static_cast<PngErrorSink*>(png_get_error_ptr(png))->message = msg ? msg : "libpng error";
    std::longjmp(png_jmpbuf(png), 1);
}

void pngOnWarning(png_structp, png_const_charp) {}

void setPngResolution(png_structp png, png_infop info, double dpi) {
    if (dpi <= 0) return;
    const auto ppm = png_uint_32(std::lround(dpi / 0.0254));
    png_set_pHYs(png, info, ppm, ppm, PNG_RESOLUTION_METER);
}

Status closeWrittenFile(std::FILE* f) {
    if (std::fflush(f) != 0 || std::ferror(f)) {
        const int err = errno;
        std::fclose(f);
        return Status::error(std::string("write failed: ") + std::strerror(err));
    }
    if (std::fclose(f) != 0) return Status::error(std::string("write failed: ") + std::strerror(errno));
    return Status::ok();
}

int deflateStrategy(int level, bool indexedOrBits) { return indexedOrBits && level == 1 ? Z_RLE : Z_DEFAULT_STRATEGY; }

void packRow(const uint8_t* values, int w, int depth, uint8_t* out, const uint8_t* code) {
    if (depth == 8) {
        if (code)
            for (int x = 0; x < w; ++x) out[x] = code[values[x]];
        else
            std::memcpy(out, values, size_t(w));
        return;
    }
    const int perByte = 8 / depth;
    const int full = w / perByte;
    for (int b = 0; b < full; ++b, values += perByte) {
        unsigned acc = 0;
        for (int k = 0; k < perByte; ++k) acc = (acc << depth) | (code ? code[values[k]] : values[k]);
        out[b] = uint8_t(acc);
    }
    if (const int rest = w - full * perByte; rest > 0) {
        unsigned acc = 0;
        for (int k = 0; k < rest; ++k) acc = (acc << depth) | (code ? code[values[k]] : values[k]);
        out[full] = uint8_t(acc << (depth * (perByte - rest)));
    }
}

Status writePngRows(const std::string& path, const PngLayout& layout,
                    const std::function<void(int y, png_byte* row)>& fillRow, const RunControl& control) {
    std::FILE* f = std::fopen(path.c_str(), "wb");
    if (!f) return Status::error(std::strerror(errno));
    PngErrorSink sink;
    png_structp png = png_create_write_struct(PNG_LIBPNG_VER_STRING, &sink, pngOnError, pngOnWarning);
    png_infop info = png ? png_create_info_struct(png) : nullptr;
    if (!png || !info) {
        png_destroy_write_struct(&png, nullptr);
        std::fclose(f);
        return Status::error("out of memory");
    }
    const int samples = layout.colorType == PNG_COLOR_TYPE_RGB_ALPHA ? 4
                        : layout.colorType == PNG_COLOR_TYPE_RGB     ? 3
                        : layout.colorType == PNG_COLOR_TYPE_GA      ? 2
                                                                     : 1;
    std::vector<png_byte> row;  // sized by resize: GCC 12 takes the sizing constructor's loop for one setjmp clobbers
    row.resize((size_t(layout.width) * size_t(samples) * size_t(layout.bitDepth) + 7) / 8);
    if (setjmp(png_jmpbuf(png))) {
        png_destroy_write_struct(&png, &info);
        std::fclose(f);
        return Status::error("write failed: " + sink.message);
    }
    png_init_io(png, f);
    png_set_compression_level(png, layout.level);
    if (layout.colorType == PNG_COLOR_TYPE_PALETTE || layout.bitDepth < 8) {
        png_set_filter(png, PNG_FILTER_TYPE_BASE, PNG_FILTER_NONE);
        png_set_compression_strategy(png, deflateStrategy(layout.level, true));
    } else if (layout.level <= 2)
        png_set_filter(png, PNG_FILTER_TYPE_BASE, PNG_FILTER_UP);
    png_set_IHDR(png, info, png_uint_32(layout.width), png_uint_32(layout.height), layout.bitDepth, layout.colorType,
                 PNG_INTERLACE_NONE, PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
    if (layout.colorType == PNG_COLOR_TYPE_PALETTE)
        png_set_PLTE(png, info, layout.palette.data(), int(layout.palette.size()));
    if (!layout.trans.empty()) png_set_tRNS(png, info, layout.trans.data(), int(layout.trans.size()), nullptr);
    setPngResolution(png, info, layout.dpi);
    png_write_info(png, info);
    for (int y = 0; y < layout.height; ++y) {
        if ((y & 63) == 0) {
            if (control.cancelled()) {
                png_destroy_write_struct(&png, &info);
                std::fclose(f);
                return Status::cancelled();
            }
            control.report(double(y) / layout.height, "writing");
        }
        fillRow(y, row.data());
        png_write_row(png, row.data());
    }
    png_write_end(png, nullptr);
    png_destroy_write_struct(&png, &info);
    return closeWrittenFile(f);
}

Status writePngGray(const std::string& path, const Plane8& plane, int bits, const WriteOptions& options) {
    PngLayout layout;
    layout.width = plane.width;
    layout.height = plane.height;
    layout.bitDepth = bits;
    layout.dpi = options.dpi;
    layout.level = options.compressLevel;
    uint8_t code[256];
    for (int v = 0; v < 256; ++v) code[v] = uint8_t(v * ((1 << bits) - 1) / 255);
    return writePngRows(
        path, layout, [&](int y, png_byte* row) { packRow(plane.row(y), plane.width, bits, row, code); },
        options.control);
}

}  // namespace halftone::io::detail
