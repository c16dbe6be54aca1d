#pragma once
// \brief The OpenImageIO module: every reader and writer that needs OpenImageIO lives in a shared module
// (halftone-io-oiio.so) loaded on first need, so a program that only touches PNM and the formats of the built-in
// codecs (io/codecs.h) never loads it (some 260 shared objects, a start-up cost larger than halftoning an 8K PBM).
#include <cstddef>
#include <string>

#include "core/image.h"
#include "core/status.h"
#include "io/headers.h"
#include "io/imagefile.h"

namespace halftone::io::detail {

/// \brief Raised whenever a field of OiioModuleApi or a type it passes changes: a module of another build is refused.
inline constexpr int kOiioModuleVersion = 2;

/// \brief The functions the module exports (see io/oiio.h and io/formats.h for what each does).
struct OiioModuleApi {
    int version = 0;
    size_t imageSize = 0;  ///< sizeof(Image) of the module's build: a cheap check that both sides agree on the types
    Status (*readOiioAs)(const std::string& path, const std::string& format, const HeaderFacts& facts, Image& image,
                         const ReadOptions& options, ReadInfo* info) = nullptr;
    Status (*readBmp)(const std::string& path, Image& image, const ReadOptions& options, ReadInfo* info) = nullptr;
    Status (*readIco)(const std::string& path, Image& image, const ReadOptions& options, ReadInfo* info) = nullptr;
    bool (*isPsdCmyk)(const unsigned char* head, size_t n) = nullptr;
    Status (*readPsdCmyk)(const std::string& path, Image& image, const ReadOptions& options, ReadInfo* info) = nullptr;
    bool (*canWrite)(const std::string& path, std::string& why) = nullptr;
    Status (*writeOiio)(const std::string& finalPath, const std::string& tmpPath, const Image& image,
                        const WriteOptions& options) = nullptr;
    Status (*verifyWritten)(const std::string& finalPath, const std::string& writtenPath, const Image& image,
                            bool exact) = nullptr;
};

/// \brief The name of the exported entry point: `extern "C" const OiioModuleApi* halftone_io_oiio_module()`.
inline constexpr const char* kOiioModuleEntry = "halftone_io_oiio_module";

/// \brief The module's file name.
inline constexpr const char* kOiioModuleFile = "halftone-io-oiio.so";

/// \brief Loads the module once per process (thread-safe) and returns its functions, or an error that names the
/// module, every place it was looked for and why each failed. Looked for, in order: the file named by the
/// environment variable HALFTONE_IO_MODULE (only there, when set), next to the executable's installed library
/// directory (BINDIR/../LIBDIR/halftone), and in the build tree the executable came from.
Status oiioModule(const OiioModuleApi*& api);

/// \brief Seconds this process spent loading the module (the OpenImageIO libraries, hundreds of them): 0 until it
/// is loaded. The CLI's --time counts it in the start-up, not in the stage that first needed a format.
double oiioModuleLoadSeconds();

}  // namespace halftone::io::detail
