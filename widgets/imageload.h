#pragma once
// \brief How the studio reads image files: OpenImageIO and the built-in PNM codec (io/imagefile.h) where the build has
// OpenImageIO, Qt's image readers (QImageReader) for every other format where it has not.
#include <QString>

#include "core/image.h"
#include "core/status.h"
#include "io/imagefile.h"

namespace halftone {

/// \brief Which reader opens a file: Automatic as described at readImageFile, or Qt's image readers only.
enum class ImageReaderChoice { Automatic, Qt };

/// \brief Reads an image file for the studio. Automatic: io::readImage when the build has OpenImageIO, and for binary
/// PGM/PPM/PBM files always; every other file of a build without OpenImageIO goes through readImageWithQt. `notes`
/// gets what a person should know about the read (may be null). Errors name the file and the problem.
Status readImageFile(const QString& path, Image& image, const io::ReadOptions& options = {}, QString* notes = nullptr,
                     ImageReaderChoice reader = ImageReaderChoice::Automatic);

/// \brief Reads an image file through Qt's image readers (the formats the Qt image format plugins provide: PNG, JPEG,
/// GIF, BMP, ICO, and TIFF or WebP where their plugins are installed). The format comes from the file's content; the
/// EXIF orientation is applied (QImageReader::setAutoTransform); the size announced by the header is checked against
/// options.maxPixels and the bytes the read needs (Qt's decoded image and the planes) against options.maxMemory before
/// anything is decoded. Gray images (also gray with alpha) become one plane, others RGB, alpha is kept unassociated;
/// 16-bit samples become 8 bit as io::readImage converts them, (v*255 + 32767) / 65535. Of a multi-image file the
/// first image is read and `notes` says so. A stop requested before decoding gives Status::cancelled (Qt's decoders
/// cannot be stopped part-way).
Status readImageWithQt(const QString& path, Image& image, const io::ReadOptions& options = {},
                       QString* notes = nullptr);

}  // namespace halftone
