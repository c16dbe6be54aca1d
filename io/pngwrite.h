#pragma once
// \brief What the libpng and libtiff writers of io/ share (io/pngwrite.cpp, io/png.cpp, io/tiff.cpp, io/indexed.cpp):
// one row-streaming PNG writer with the error handler that turns a libpng error into a message, the resolution chunk,
// closing a written file with its errors checked, and packing samples below 8 bits.
#include <png.h>

#include <cstdint>
#include <cstdio>
#include <functional>
#include <string>
#include <vector>

#include "core/runcontrol.h"
#include "core/status.h"

namespace halftone::io::detail {

/// \brief Where pngOnError leaves libpng's message (pass as the error pointer of png_create_write_struct).
struct PngErrorSink {
    std::string message;
};

/// \brief libpng error handler: keeps the message in the PngErrorSink and jumps back to the writer's setjmp.
void pngOnError(png_structp png, png_const_charp msg);
/// \brief libpng warning handler: warnings are dropped.
void pngOnWarning(png_structp png, png_const_charp msg);
/// \brief Writes a pHYs chunk of `dpi` dots per inch (nothing when `dpi` <= 0).
void setPngResolution(png_structp png, png_infop info, double dpi);
/// \brief Flushes and closes a file written with stdio; "write failed: ..." when either fails.
Status closeWrittenFile(std::FILE* f);

/// \brief The zlib strategy of a level: at level 1 (`--compress fast`), samples of 1 to 4 bits and palette indices are
/// matched as runs only (Z_RLE): half the time of level 1's search, smaller for 1-bit halftones and about 6 % larger
/// for indexed ones (docs/performance.md, "Writing files"); otherwise zlib's default.
int deflateStrategy(int level, bool indexedOrBits);

/// \brief Packs `w` samples of `depth` bits (1, 2, 4 or 8), most significant bits first as PNG and TIFF store them:
/// sample x is `code[values[x]]`, or values[x] itself when `code` is null.
void packRow(const uint8_t* values, int w, int depth, uint8_t* out, const uint8_t* code = nullptr);

/// \brief The shape of a PNG that writePngRows streams out.
struct PngLayout {
    int width = 0, height = 0;
    int bitDepth = 8;                     ///< bits per sample (1, 2, 4, 8)
    int colorType = PNG_COLOR_TYPE_GRAY;  ///< any PNG colour type (gray, gray + alpha, RGB, RGBA, palette)
    std::vector<png_color> palette;       ///< the PLTE entries of a palette image
    std::vector<png_byte> trans;          ///< the tRNS alpha of the first entries (none when empty: all opaque)
    double dpi = 0;                       ///< the pHYs chunk (none when <= 0)
    int level = 1;                        ///< zlib level 0..9
};

/// \brief Writes a PNG to `path` row by row: `fillRow(y, row)` packs row y into `row` (its size is the packed row
/// length), and libpng compresses it at once. Rows of palette and sub-byte images are not filtered (the PNG
/// specification's advice) and compressed with deflateStrategy(); 8-bit rows get libpng's adaptive filter choice,
/// except at levels up to 2, where the Up filter alone gives files as small within 1 % in half the time
/// (docs/performance.md, "Writing files"). Reports the fraction of rows written to `control` and stops with
/// Status::cancelled() when it is cancelled. A libpng error ends the write with "write failed: ..." (the caller removes
/// the file).
Status writePngRows(const std::string& path, const PngLayout& layout,
                    const std::function<void(int y, png_byte* row)>& fillRow, const RunControl& control = {});

}  // namespace halftone::io::detail
