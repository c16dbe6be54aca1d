#pragma once
// \brief Image files: built-in binary PGM/PPM/PBM always; with HALFTONE_IO built-in PNG, JPEG, TIFF, WebP and GIF
// codecs (io/codecs.h) and every other format OpenImageIO reads.
#include <cstdint>
#include <string>
#include <vector>

#include "core/budget.h"
#include "core/image.h"
#include "core/runcontrol.h"
#include "core/status.h"

namespace halftone::io {

/// \brief Which decoders read PNG, JPEG, TIFF, WebP and GIF files (every other format goes through OpenImageIO).
enum class Decoder {
    Automatic,  ///< the built-in codecs, or OpenImageIO when the environment variable HALFTONE_DECODER is "openimageio"
    BuiltIn,    ///< the built-in codecs: libpng, libjpeg-turbo, libtiff, libwebp, giflib (no OpenImageIO loaded)
    OpenImageIO,  ///< OpenImageIO's readers, as for the other formats (loads the OpenImageIO module)
};

/// \brief Options for reading a file into 8-bit planes.
struct ReadOptions {
    uint64_t maxPixels = kDefaultMaxPixels;   ///< refuse larger images before allocating
    uint64_t maxMemory = defaultMaxMemory();  ///< bytes: planes + decoder buffers + strips, checked before allocating
    StopToken stop;                           ///< checked between strips: a stop makes readImage return cancelled
    Decoder decoder = Decoder::Automatic;     ///< who decodes the common formats (both hold every guarantee here)
};

/// \brief What the reader found besides the pixels (for messages such as "multi-image TIFF: first image used").
struct ReadInfo {
    std::string format;  ///< e.g. "png", "tiff", "pnm"
    int sourceChannels = 0;
    std::string sourceType;  ///< e.g. "uint8", "uint16", "half", "float"
    std::string notes;       ///< warnings a person should see; empty when none
    double dpi = 0;          ///< the resolution the file states (TIFF, PNG pHYs, JPEG JFIF), in dots per inch; 0 = none
};

/// \brief Reads an image file into 8-bit planes (gray, RGB or CMYK, optional alpha).
///
/// The format comes from the file's first bytes, not its name (a file whose content matches no
/// format is refused at once instead of being tried by every reader). Before any decoder allocates,
/// the header is checked against maxPixels and the bytes the whole read needs (planes, the decoder's
/// own buffers, the strip being converted) against maxMemory; rows are decoded in strips (tiled files
/// in rows of tiles), never as one whole-image copy. The colour meaning comes from the file's tags
/// (TIFF photometric interpretation and ink count, EXR channel names, PSD colour mode), not from the
/// channel count: YCbCr and CIELab are converted to RGB, one-ink separations to gray, PSD CMYK
/// un-inverted, EXR luminance/chroma to RGB; layouts with no defined meaning are refused. PNG, JPEG,
/// TIFF of unsigned samples, WebP (still and animated: the first frame composed on its canvas) and GIF
/// are read by the built-in codecs (or by OpenImageIO, see ReadOptions::decoder, with the same
/// result); RLE-compressed BMP and ICO entries of any size by built-in code where OpenImageIO's
/// readers fail. No exception escapes: running out of memory becomes an error naming the file.
///
/// Samples become 8 bit as: uint8 as is; uint16 (v*255 + 32767) / 65535; PNM with maxval M
/// (v*255 + M/2) / M; half, float and every other type round(clamp(v, 0, 1) * 255) (OpenImageIO
/// normalises integer types to 0..1). 1 channel = gray, 2 = gray + alpha, 3 = RGB, 4 = RGBA or
/// CMYK (TIFF/JPEG separated), 5 = CMYK + alpha; palettes are expanded; alpha is unassociated and
/// kept in Image::alpha; the EXIF orientation is applied; of a multi-image file the first image is
/// read and ReadInfo::notes says so. Binary PNM (P4/P5/P6) always goes through the built-in reader.
/// Errors name the file and the problem.
Status readImage(const std::string& path, Image& image, const ReadOptions& options = {}, ReadInfo* info = nullptr);

/// \brief zlib levels of the `--compress` words: `fast` (the default: a halftone's dots barely compress, so a higher
/// level costs several times the time for a few percent), `default` (zlib's) and `best`.
inline constexpr int kCompressFast = 1, kCompressDefault = 6, kCompressBest = 9;

/// \brief Reads a `--compress` value: fast, default, best or a zlib level 0..9; an error naming the choices otherwise.
Status parseCompression(const std::string& text, int& level);

/// \brief Writing options.
struct WriteOptions {
    double dpi = 0;  ///< resolution written to TIFF and PNG files; 0 = unknown, 300 is written to 1-bit TIFFs
    int compressLevel = kCompressFast;  ///< zlib level (0..9) of PNG files and Deflate TIFF strips
    /// \brief Progress of the write (fraction of rows written), its stop token (a stop makes writeImage return
    /// cancelled, leaving no file) and the threads that compress TIFF strips (0 = all).
    RunControl control;
    /// One ink's plate: a one-channel image of ink amounts (255 = solid) written to TIFF as a separated image of that
    /// one ink (InkSet multi-ink, InkNames this name); empty = not a plate.
    std::string plateInk;
};

/// \brief Writes by extension: .png and .tif/.tiff in the smallest form that holds the pixels exactly (a gray image of
/// only 0 and 255 at 1 bit a pixel, of 4 or 16 evenly spaced levels at 2 or 4 bits, TIFFs of 1 bit with
/// XResolution/YResolution/ResolutionUnit; an image with an exact palette, or an RGB image whose channels take so few
/// values that all their combinations fit 256 entries (a binary RGB halftone: 8), indexed at 1 to 8 bits), .jpg
/// (quality 98), .webp, .gif of a palette image and .pgm/.ppm/.pbm by built-in code; others as OpenImageIO allows.
/// PNG rows are compressed as they are made; TIFF strips are compressed on the worker pool (core/workerpool.h).
///
/// The file appears complete or not at all (see AtomicFile in io/atomicwrite.h: written unnamed and
/// linked into place, so no interruption leaves a partial or temporary file); new files get
/// `0666 & ~umask`. Devices, FIFOs and other non-regular targets are refused. The built-in writers report
/// every write error (no read-back is needed); a file written through OpenImageIO is read back before it replaces
/// anything: when it does not hold the image's pixels exactly (a full disk the codec did not report, or a format that
/// changes values) the write fails, except for the lossy formats of isLossyFormat(), whose values are expected to
/// change.
Status writeImage(const std::string& path, const Image& image, const WriteOptions& options = {});

/// \brief The layout an output will have, as far as it is known before the image exists.
struct OutputLayout {
    ColorSpace space = ColorSpace::Gray;
    bool alpha = false;
    int width = 0, height = 0;  ///< 0 = not known yet
};

/// \brief Checks before any work that `path` can be written: a format with a writer for the
/// extension that accepts `layout` (tried on a tiny image in memory), not a directory, device or
/// other non-regular file (also through symbolic links), an existing writable directory. writeImage
/// checks again; this only fails early. Messages start with "cannot write 'PATH': ".
Status checkOutputPath(const std::string& path, const OutputLayout& layout = {});

/// \brief The part of checkOutputPath decided by the format alone: whether the formats this program writes itself
/// (PNM and the built-in codecs) hold `layout`'s space. Looks at no file and loads no module, so a refusal here is the
/// job's mismatch with the format; OK for other formats and for names without an extension, which checkOutputPath
/// judges. Messages start as checkOutputPath's.
Status checkOutputLayout(const std::string& path, const OutputLayout& layout = {});

/// \brief True when the extension of `path` names a format that changes pixel values (JPEG, WebP
/// as this build writes it, HEIF/AVIF): a halftone written there loses its dots.
bool isLossyFormat(const std::string& path);

/// \brief True when both paths name the same existing file (or the same path), used to refuse overwriting input.
bool samePath(const std::string& a, const std::string& b);

/// \brief A file a job reads or writes, with the name a person knows it by in messages ("INPUT", "--save-preset").
struct JobFile {
    std::string role;
    std::string path;
};

/// \brief Refuses when an output is one of the inputs or two outputs are one file, by file identity (samePath: a
/// symlink, a hard link or another spelling of the same file counts): "refusing to overwrite the input: --save-preset
/// 'p.json' is INPUT 'photo.png'". Empty paths are left out.
Status checkOutputsAgainstInputs(const std::vector<JobFile>& outputs, const std::vector<JobFile>& inputs);

/// \brief True when this build reads and writes through OpenImageIO (otherwise PNM only).
bool haveOpenImageIO();

}  // namespace halftone::io
