#pragma once
// \brief What the libpng writers of io/ share (io/png1bit.cpp, io/indexed.cpp): the error handler that turns a libpng
// error into a message, the resolution chunk, and closing a written file with its errors checked.
#include <png.h>

#include <cstdio>
#include <string>

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

}  // namespace halftone::io::detail
