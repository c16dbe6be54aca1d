// Image file entry points: format dispatch, orientation, complete-or-nothing writes, same-file checks.
#include "io/imagefile.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <limits>
#include <memory>
#include <new>
#include <stdexcept>

#include "io/atomicwrite.h"
#include "io/pnm.h"
#ifdef HALFTONE_HAVE_OIIO
#include "io/codecs.h"
#include "io/headers.h"
#include "io/oiiomodule.h"
#endif

namespace halftone::io {

namespace fs = std::filesystem;

namespace {

std::string lowerExtension(const std::string& path) {
    std::string ext = fs::path(path).extension().string();
    std::transform(ext.begin(), ext.end(), ext.begin(), [](unsigned char c) { return char(std::tolower(c)); });
    return ext;
}

struct FileCloser {
    void operator()(std::FILE* f) const {
        if (f) std::fclose(f);
    }
};
using FilePtr = std::unique_ptr<std::FILE, FileCloser>;

}  // namespace

bool haveOpenImageIO() {
#ifdef HALFTONE_HAVE_OIIO
    return true;
#else
    return false;
#endif
}

namespace {

/// Extensions read by name, as OpenImageIO chooses: formats with no signature in their first bytes
/// (Targa, RLA, DICOM), camera raw files (most look like TIFF but need the raw decoder) and movies.
[[maybe_unused]] bool readByName(const std::string& ext) {
    static const char* const names[] = {
        ".tga", ".tpic", ".rla", ".dcm", ".pnm", ".pgm", ".ppm", ".pbm", ".pfm", ".bay", ".bmq", ".cr2",  ".cr3",
        ".crw", ".cs1",  ".dc2", ".dcr", ".dng", ".erf", ".fff", ".k25", ".kdc", ".mdc", ".mos", ".mrw",  ".nef",
        ".orf", ".pef",  ".pxn", ".raf", ".raw", ".rdc", ".sr2", ".srf", ".x3f", ".arw", ".3fr", ".cine", ".ia",
        ".kc2", ".mef",  ".nrw", ".qtk", ".rw2", ".sti", ".rwl", ".srw", ".drf", ".dsc", ".ptx", ".cap",  ".iiq",
        ".rwz", ".avi",  ".mov", ".qt",  ".mp4", ".m4v", ".mpg", ".3gp", ".mj2"};
    return std::find(std::begin(names), std::end(names), ext) != std::end(names);
}

Status readImageUnguarded(const std::string& path, Image& image, const ReadOptions& options, ReadInfo* info,
                          const std::string& ctx) {
    std::error_code ec;
    const fs::file_status st = fs::status(path, ec);
    if (ec || !fs::exists(st)) {
        if (ec && ec != std::errc::no_such_file_or_directory) return Status::error(ctx + ": " + ec.message());
        return Status::error(ctx + ": no such file");
    }
    if (fs::is_directory(st)) return Status::error(ctx + ": is a directory, not an image file");
    if (!fs::is_regular_file(st)) return Status::error(ctx + ": not a regular file");

    FilePtr f(std::fopen(path.c_str(), "rb"));
    if (!f) return Status::error(ctx + ": " + std::strerror(errno));
    unsigned char head[64] = {};
    const size_t n = std::fread(head, 1, sizeof head, f.get());
    if (n == 0) return Status::error(ctx + ": the file is empty");
    std::rewind(f.get());

    ReadInfo local;
    ReadInfo& ri = info ? *info : local;
    ri = ReadInfo{};
    Image out;
    if (detail::isBinaryPnmMagic(head, n) || (n >= 2 && head[0] == 'P' && head[1] == '7')) {
        if (Status s = detail::readPnm(f.get(), out, options, &ri); !s) return s.withContext(ctx);
    } else {
        f.reset();
#ifdef HALFTONE_HAVE_OIIO
        // The content names the format; the file name only where a format has no signature. A file
        // that matches nothing is refused here, not tried by every reader (a 4 GiB file of zeros
        // named .png took minutes that way).
        const std::string ext = lowerExtension(path);
        const std::string sniffed = detail::sniffFormat(head, n);
        const bool byName = readByName(ext) && (sniffed.empty() || sniffed == "tiff" || sniffed == "jpeg");
        const std::string format = byName ? std::string() : sniffed;
        if (format.empty() && !byName) {
            std::string shown;
            for (size_t i = 0; i < std::min<size_t>(n, 8); ++i) {
                char hex[4];
                std::snprintf(hex, sizeof hex, "%02x", head[i]);
                shown.append(i ? " " : "").append(hex);
            }
            return Status::error(ctx + ": not an image file of any supported format (it starts with bytes " + shown +
                                 ")");
        }
        detail::HeaderFacts facts;
        if (Status s = detail::checkHeader(path, format, options, facts); !s) return s.withContext(ctx);
        if (detail::useBuiltInReader(format, facts, options)) {
            if (Status s = detail::readBuiltIn(path, format, facts, out, options, &ri); !s) return s.withContext(ctx);
            image = std::move(out);
            return Status::ok();
        }
        const detail::OiioModuleApi* api = nullptr;
        if (Status s = detail::oiioModule(api); !s) return s.withContext(ctx);
        Status s;
        if (format == "bmp" && facts.bmpRle)
            s = api->readBmp(path, out, options, &ri);
        else if (format == "ico")
            s = api->readIco(path, out, options, &ri);
        else if (format == "psd" && api->isPsdCmyk(head, n))
            s = api->readPsdCmyk(path, out, options, &ri);
        else
            s = api->readOiioAs(path, format, facts, out, options, &ri);
        if (!s) return s.withContext(ctx);
#else
        if (n >= 2 && head[0] == 'P' && head[1] >= '1' && head[1] <= '3')
            return Status::error(ctx + ": ASCII PNM (P" + std::string(1, char(head[1])) +
                                 ") is not supported, only binary P4/P5/P6");
        return Status::error(ctx +
                             ": not a binary PGM/PPM/PBM file, and this build reads only those "
                             "(built without OpenImageIO)");
#endif
    }
    image = std::move(out);
    return Status::ok();
}

}  // namespace

Status readImage(const std::string& path, Image& image, const ReadOptions& options, ReadInfo* info) {
    const std::string ctx = "cannot read '" + path + "'";
    // Decoders are libraries that throw: no exception may leave the loader (the CLI and the studio
    // turn a Status into a message; an exception would end the program).
    try {
        return readImageUnguarded(path, image, options, info, ctx);
    } catch (const std::bad_alloc&) {
        return Status::error(ctx +
                             ": out of memory while decoding (the file asks for more memory than this machine "
                             "could give; lower --max-memory to refuse such files before decoding)");
    } catch (const std::length_error& e) {
        return Status::error(ctx + ": the decoder met a size it cannot hold (" + std::string(e.what()) + ")");
    } catch (const std::exception& e) {
        return Status::error(ctx + ": the decoder failed (" + std::string(e.what()) + ")");
    } catch (...) {
        return Status::error(ctx + ": the decoder failed with an unknown error");
    }
}

bool samePath(const std::string& a, const std::string& b) {
    std::error_code e1, e2;
    if (fs::equivalent(a, b, e1) && !e1) return true;
    const fs::path ca = fs::weakly_canonical(a, e1), cb = fs::weakly_canonical(b, e2);
    if (e1 || e2) return fs::absolute(a, e1).lexically_normal() == fs::absolute(b, e2).lexically_normal();
    return ca == cb;
}

Status checkOutputsAgainstInputs(const std::vector<JobFile>& outputs, const std::vector<JobFile>& inputs) {
    auto same = [](const JobFile& a, const JobFile& b) {
        return !a.path.empty() && !b.path.empty() && samePath(a.path, b.path);
    };
    for (const JobFile& out : outputs) {
        for (const JobFile& in : inputs)
            if (same(out, in))
                return Status::error("refusing to overwrite the input: " + out.role + " '" + out.path + "' is " +
                                     (out.path == in.path ? "also " : "the same file as ") + in.role + " '" + in.path +
                                     "'");
        for (const JobFile& other : outputs)
            if (&other < &out && same(out, other))
                return Status::error(other.role + " '" + other.path + "' and " + out.role + " '" + out.path +
                                     "' are the same file; give each its own name");
    }
    return Status::ok();
}

namespace {

/// Pseudo-formats of OpenImageIO that have a writer but write no image file.
bool pseudoFormat(const std::string& ext) { return ext == ".null" || ext == ".term"; }

/// Writers that pick their codec from the extension of the name they open (OpenImageIO's JPEG 2000
/// writer writes nothing, and leaks, for a name without ".jp2" or ".j2k"): they get a hidden named
/// temporary file with the extension instead of an unnamed one.
bool writerNeedsExtension(const std::string& ext) { return ext == ".jp2" || ext == ".j2k"; }

/// Largest side each format can store, where it is smaller than the planes allow.
int maxSide(const std::string& ext) {
    if (ext == ".ico" || ext == ".cur") return 256;
    if (ext == ".webp") return 16383;
    if (ext == ".jpg" || ext == ".jpeg" || ext == ".jpe" || ext == ".jfif" || ext == ".jif") return 65500;
    if (ext == ".gif" || ext == ".tga" || ext == ".tpic") return 65535;
    return 0;
}

[[maybe_unused]] const char* spaceName(ColorSpace s) {
    return s == ColorSpace::Gray ? "gray" : s == ColorSpace::RGB ? "RGB" : "CMYK";
}

#ifdef HALFTONE_HAVE_OIIO
/// Writes a tiny image of `layout` in the format of `path` into memory (a memfd): the writer's own
/// refusals (channel counts, alpha, CMYK) come out before any real work. Skipped without memfd or /proc.
Status probeWriter(const std::string& path, const OutputLayout& layout) {
    Image im;
    im.space = layout.space;
    const int n = layout.space == ColorSpace::Gray ? 1 : layout.space == ColorSpace::RGB ? 3 : 4;
    Plane8 p(4, 4, 0);
    for (size_t i = 0; i < p.data.size(); i += 2) p.data[i] = 255;
    im.channels.assign(size_t(n), p);
    if (layout.alpha) {
        im.hasAlpha = true;
        im.alpha = Plane8(4, 4, 255);
    }
    const int fd = ::memfd_create("halftone-format-check", MFD_CLOEXEC);
    if (fd < 0) return Status::ok();
    const std::string where = "/proc/self/fd/" + std::to_string(fd);
    Status s = Status::ok();
    if (::access(where.c_str(), W_OK) == 0) {
        const WriteOptions wo;
        const detail::OiioModuleApi* api = nullptr;
        s = detail::oiioModule(api);
        if (s) s = api->writeOiio(path, where, im, wo);
    }
    ::close(fd);
    return s;
}
#endif

/// What every output check ends with: the format's largest side, then the target itself.
Status finishOutputCheck(const std::string& ctx, const std::string& path, const std::string& ext,
                         const OutputLayout& layout) {
    if (const int side = maxSide(ext); side > 0 && std::max(layout.width, layout.height) > side)
        return Status::error(ctx + ": the image is " + std::to_string(layout.width) + " x " +
                             std::to_string(layout.height) + ", and '" + ext + "' files hold at most " +
                             std::to_string(side) + " x " + std::to_string(side));
    if (Status s = checkWritableTarget(path); !s) return Status::error(ctx + ": " + s.message());
    return Status::ok();
}

}  // namespace

Status parseCompression(const std::string& text, int& level) {
    if (text == "fast")
        level = kCompressFast;
    else if (text == "default")
        level = kCompressDefault;
    else if (text == "best")
        level = kCompressBest;
    else if (text.size() == 1 && text[0] >= '0' && text[0] <= '9')
        level = text[0] - '0';
    else
        return Status::error("unknown compression '" + text + "'; choose fast, default, best or a level 0..9");
    return Status::ok();
}

bool isLossyFormat(const std::string& path) {
    const std::string ext = lowerExtension(path);
    for (const char* e : {".jpg", ".jpeg", ".jpe", ".jfif", ".jif", ".webp", ".heic", ".heif", ".hif", ".avif"})
        if (ext == e) return true;
    return false;
}

namespace {

/// What an output of `layout` may be written as, for a refusal's message.
[[maybe_unused]] std::string layoutAdvice(const OutputLayout& layout) {
    return std::string(" (the output is a ") + spaceName(layout.space) + (layout.alpha ? " + alpha" : "") + " image; " +
           (layout.space == ColorSpace::CMYK  ? ".tif holds it"
            : layout.alpha                    ? ".png and .tif hold it"
            : layout.space == ColorSpace::RGB ? ".png, .tif and .ppm hold it"
                                              : ".png, .tif and .pgm hold it") +
           ")";
}

/// checkOutputLayout for `image` when it is known (a palette image goes to GIF through the built-in writer);
/// `decided` tells whether this program's own writers decided (false: OpenImageIO's format, probed by checkOutput).
/// A name without an extension, or a pseudo-format's, passes: checkOutput refuses it.
Status checkLayout(const std::string& path, const OutputLayout& layout, const Image* image, bool& decided) {
    const std::string ctx = "cannot write '" + path + "'";
    const std::string ext = lowerExtension(path);
    decided = true;
    if (ext == ".pgm" || ext == ".ppm" || ext == ".pbm") {
        const int n = layout.space == ColorSpace::Gray ? 1 : layout.space == ColorSpace::RGB ? 3 : 4;
        if (ext == ".ppm" && layout.space == ColorSpace::CMYK)
            return Status::error(ctx + ": PPM cannot hold CMYK; write .tif instead");
        if (ext != ".ppm" && n != 1)
            return Status::error(ctx + ": " + (ext == ".pbm" ? "PBM" : "PGM") +
                                 " holds one gray channel but the image has " + std::to_string(n) +
                                 " channels; write .ppm, .png or .tif instead");
        return Status::ok();
    }
#ifdef HALFTONE_HAVE_OIIO
    if (detail::builtInWrites(ext, image)) {
        if (const std::string why = detail::builtInLayoutProblem(ext, layout.space); !why.empty())
            return Status::error(ctx + ": " + why + layoutAdvice(layout));
        return Status::ok();
    }
    decided = false;
    return Status::ok();
#else
    (void)image;
    return Status::error(ctx + ": this build writes only .pgm, .ppm and .pbm (built without OpenImageIO)");
#endif
}

/// checkOutputPath for `image` when it is known.
Status checkOutput(const std::string& path, const OutputLayout& layout, const Image* image) {
    const std::string ctx = "cannot write '" + path + "'";
    const std::string ext = lowerExtension(path);
    if (ext.empty()) return Status::error(ctx + ": no file extension; use .png, .tif, .pgm, .ppm or .pbm");
    if (pseudoFormat(ext))
        return Status::error(ctx + ": '" + ext + "' names no image file format; use .png, .tif, .pgm, .ppm or .pbm");
    bool decided = true;
    if (Status s = checkLayout(path, layout, image, decided); !s) return s;
#ifdef HALFTONE_HAVE_OIIO
    // OpenImageIO's refusals are found by writing a tiny image.
    if (!decided) {
        const detail::OiioModuleApi* api = nullptr;
        if (Status s = detail::oiioModule(api); !s) return Status::error(ctx + ": " + s.message());
        std::string why;
        if (!api->canWrite(path, why)) return Status::error(ctx + ": " + why);
        if (!writerNeedsExtension(ext))
            if (Status s = probeWriter(path, layout); !s)
                return Status::error(ctx + ": " + s.message() + layoutAdvice(layout));
    }
#endif
    return finishOutputCheck(ctx, path, ext, layout);
}

}  // namespace

Status checkOutputLayout(const std::string& path, const OutputLayout& layout) {
    bool decided = true;
    return checkLayout(path, layout, nullptr, decided);
}

Status checkOutputPath(const std::string& path, const OutputLayout& layout) {
    return checkOutput(path, layout, nullptr);
}

Status writeImage(const std::string& path, const Image& image, const WriteOptions& options) {
    const std::string ctx = "cannot write '" + path + "'";
    if (image.channels.empty() || image.width() <= 0 || image.height() <= 0)
        return Status::error(ctx + ": the image is empty");
    for (const Plane8& p : image.channels)
        if (p.width != image.width() || p.height != image.height() || p.size() != size_t(p.width) * size_t(p.height))
            return Status::error(ctx + ": the image's channels differ in size");
    if (image.hasAlpha && !image.alpha.sameSize(image.channels[0]))
        return Status::error(ctx + ": the alpha plane differs in size from the image");

    OutputLayout layout;
    layout.space = image.space;
    layout.alpha = image.hasAlpha;
    layout.width = image.width();
    layout.height = image.height();
    const std::string ext = lowerExtension(path);
    const bool pnm = ext == ".pgm" || ext == ".ppm" || ext == ".pbm";
    if (Status s = checkOutput(path, layout, &image); !s) return s;

    AtomicFile file;
    auto open = [&](bool named) {
        const Status s = file.open(path, named);
        return s ? s : s.isCancelled() ? Status::cancelled() : Status::error(ctx + ": " + s.message());
    };
    if (Status s = open(writerNeedsExtension(ext)); !s) return s;
    auto fail = [&](const std::string& msg) {
        file.discard();
        return Status::error(ctx + ": " + msg);
    };

    if (pnm) {
        const int fd = ::dup(file.fd());
        std::FILE* f = fd >= 0 ? ::fdopen(fd, "wb") : nullptr;
        if (!f) {
            const int err = errno;
            if (fd >= 0) ::close(fd);
            return fail(std::strerror(err));
        }
        const detail::PnmKind kind = ext == ".pbm"   ? detail::PnmKind::Pbm
                                     : ext == ".pgm" ? detail::PnmKind::Pgm
                                                     : detail::PnmKind::Ppm;
        Status s = detail::writePnm(f, image, kind);
        if (s && std::fflush(f) != 0) s = Status::error(std::string("write failed: ") + std::strerror(errno));
        if (std::fclose(f) != 0 && s) s = Status::error(std::string("write failed: ") + std::strerror(errno));
        if (!s) return fail(s.message());
    } else {
#ifdef HALFTONE_HAVE_OIIO
        // The built-in writers report every write error; OpenImageIO's are read back below.
        if (detail::builtInWrites(ext, &image)) {
            if (Status s = detail::writeBuiltIn(ext, file.writePath(), image, options); !s) {
                if (!s.isCancelled()) return fail(s.message());
                file.discard();
                return s;
            }
        } else {
            const detail::OiioModuleApi* api = nullptr;
            if (Status s = detail::oiioModule(api); !s) return fail(s.message());
            if (Status s = api->writeOiio(path, file.writePath(), image, options); !s) return fail(s.message());
            struct stat st {};
            if (file.unnamed() && ::fstat(file.fd(), &st) == 0 && st.st_size == 0) {
                // Another writer that needs the extension in the name it opens: again through a named file.
                if (Status s = open(true); !s) return s;
                if (Status s = api->writeOiio(path, file.writePath(), image, options); !s) return fail(s.message());
            }
            if (::fstat(file.fd(), &st) == 0 && st.st_size == 0)
                return fail("the writer for '" + ext + "' wrote nothing; use .png, .tif, .pgm, .ppm or .pbm");
            // OpenImageIO's PNG and TIFF writers can lose the error of a failed write (full disk, file size
            // limit) and report success, and some formats change values: read the file back before it
            // replaces anything.
            if (Status s = api->verifyWritten(path, file.writePath(), image, !isLossyFormat(path)); !s)
                return fail(s.message());
        }
#else
        (void)options;
        return fail("this build writes only .pgm, .ppm and .pbm (built without OpenImageIO)");
#endif
    }
    if (Status s = file.commit(); !s)
        return s.isCancelled() ? Status::cancelled() : Status::error(ctx + ": " + s.message());
    return Status::ok();
}

}  // namespace halftone::io
