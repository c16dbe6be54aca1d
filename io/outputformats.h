#pragma once
// \brief Which files a halftone can go to: the formats that hold a result of a given kind (CMYK, indexed to a palette,
// RGB, black and white, gray), the refusals of those that cannot, and the advice that names the ones that can. The
// CLI's file job and the studio's save dialog ask here.
#include <string>
#include <vector>

#include "core/image.h"
#include "core/status.h"

namespace halftone::io {

/// \brief What a halftone holds, as far as the choice of its file format goes.
struct ResultShape {
    ColorSpace space = ColorSpace::Gray;
    int channels = 1;
    bool binary = false;    ///< gray or CMYK with only 0 and 255 in every channel
    int paletteColors = 0;  ///< halftoned to a palette and written indexed (no alpha): its colours; 0 = not indexed
};

/// \brief The shape of a finished halftone (binary and indexed read from its pixels and palette).
ResultShape resultShape(const Image& image);

/// \brief One file format a result can go to.
struct OutputFormat {
    std::string name;                     ///< "PNG", "TIFF", "GIF", "PBM", "PGM", "PPM"
    std::vector<std::string> extensions;  ///< lower case, without the dot: {"tif", "tiff"}
    std::string detail;          ///< how the result is written: "1-bit", "indexed, 16 colours", ...; may be empty
    bool convertsToRgb = false;  ///< the file gets the RGB picture of a CMYK result, not its inks
    bool plates = false;         ///< one 1-bit TIFF per ink beside the name (io::writePlates), not one file
    /// \brief "PNG, 1-bit (*.png)": a file dialog's filter.
    std::string filter() const;
};

/// \brief The formats that hold a result of this shape, the preferred first: CMYK to TIFF (a binary one as a 1-bit
/// separation, or as plates, one TIFF per ink; and PNG as the RGB picture), an indexed result to PNG, TIFF and GIF (and
/// PPM as RGB), RGB to PNG, TIFF and PPM, gray to PNG, TIFF and PGM (and PBM when binary).
std::vector<OutputFormat> outputFormats(const ResultShape& shape);

/// \brief The format among `formats` that `path`'s extension names, or null.
const OutputFormat* findOutputFormat(const std::vector<OutputFormat>& formats, const std::string& path);

/// \brief "CMYK", "RGB", "black and white" or "gray": what a message calls a result of this shape.
std::string shapeName(const ResultShape& shape);

/// \brief The formats of outputFormats() in a sentence: "PNG, TIFF, PBM or PGM".
std::string outputAdvice(const ResultShape& shape);

/// \brief Refuses a PNM file that cannot hold the result (a PBM for gray levels or colour, a PGM for colour, a PPM for
/// CMYK) with a sentence saying why; other extensions pass (checkOutputPath checks their writers).
Status checkOutputFormat(const std::string& path, const ResultShape& shape);

}  // namespace halftone::io
