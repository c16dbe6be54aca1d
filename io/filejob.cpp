#include "io/filejob.h"

#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <chrono>
#include <cctype>
#include <cstring>
#include <exception>
#include <filesystem>
#include <new>

#include "core/budget.h"
#include "core/palette/palette.h"
#include "core/prepare/prepare.h"
#include "core/print/dotgain.h"
#include "core/print/printpreview.h"
#include "core/print/separation.h"
#include "io/atomicwrite.h"
#include "core/number.h"
#include "io/icc.h"
#include "io/imagefile.h"
#include "io/outputformats.h"
#ifdef HALFTONE_HAVE_OIIO
#include "io/oiiomodule.h"
#endif

namespace halftone::io {

namespace {

ColorSpace spaceOf(ColorMode mode) {
    return mode == ColorMode::RGB ? ColorSpace::RGB : mode == ColorMode::CMYK ? ColorSpace::CMYK : ColorSpace::Gray;
}

/// The output's format as people name it, from the extension: "PNG", "JPEG", "TIF".
std::string formatName(const std::string& path) {
    std::string ext = std::filesystem::path(path).extension().string();
    if (!ext.empty()) ext.erase(0, 1);
    std::transform(ext.begin(), ext.end(), ext.begin(), [](unsigned char c) { return char(std::toupper(c)); });
    return ext == "JPG" || ext == "JPE" || ext == "JFIF" || ext == "JIF" ? "JPEG" : ext;
}

/// Seconds this process has spent loading the OpenImageIO module so far (0 in a build without it).
double moduleLoadSeconds() {
#ifdef HALFTONE_HAVE_OIIO
    return detail::oiioModuleLoadSeconds();
#else
    return 0;
#endif
}

/// Writes 1-bit rows (PBM P4 layout) as a PBM, complete or not at all: the same bytes io::writeImage writes for the
/// 8-bit plane they pack.
Status writePackedPbm(const std::string& path, const std::vector<uint8_t>& rows, int width, int height) {
    const std::string ctx = "cannot write '" + path + "'";
    AtomicFile file;
    if (Status s = file.open(path); !s)
        return s.isCancelled() ? Status::cancelled() : Status::error(ctx + ": " + s.message());
    const std::string head = "P4\n" + std::to_string(width) + " " + std::to_string(height) + "\n";
    auto put = [&](const uint8_t* data, size_t n) -> Status {
        while (n > 0) {
            const ssize_t w = ::write(file.fd(), data, n);
            if (w < 0 && errno == EINTR) continue;
            if (w <= 0) return Status::error(ctx + ": write failed: " + std::strerror(w < 0 ? errno : ENOSPC));
            data += w;
            n -= size_t(w);
        }
        return Status::ok();
    };
    if (Status s = put(reinterpret_cast<const uint8_t*>(head.data()), head.size()); !s) return s;
    if (Status s = put(rows.data(), rows.size()); !s) return s;
    if (Status s = file.commit(); !s)
        return s.isCancelled() ? Status::cancelled() : Status::error(ctx + ": " + s.message());
    return Status::ok();
}

/// The size and memory of the prepare step and of the output the pixel size enlarges, against the limits; the messages
/// name the options that decide them.
Status checkPrepareBudget(const Image& image, const PrepareSettings& prepare, ColorMode outputColor, bool keepAlpha,
                          uint64_t maxPixels, uint64_t maxMemory) {
    int tw = 0, th = 0;
    if (Status s = preparedSize(prepare, image.width(), image.height(), tw, th); !s) return s;
    const int ps = prepare.pixelSize;
    const uint64_t rw = uint64_t(std::max(1, int(std::lround(double(tw) / ps)))),
                   rh = uint64_t(std::max(1, int(std::lround(double(th) / ps))));
    const uint64_t planes = uint64_t(image.channelCount() + (image.hasAlpha ? 1 : 0));
    if (!prepare.isIdentity()) {
        if (Status s = checkImageSize(int64_t(rw), int64_t(rh), int64_t(planes), maxPixels); !s)
            return Status::error("the prepared image: " + s.message());
        // The copy of the input, the resized planes and one float plane of the resize (output width x input height).
        const uint64_t resized = mulBytes(mulBytes(rw, rh), planes);
        const uint64_t mid = mulBytes(mulBytes(rw, std::max<uint64_t>(rh, uint64_t(image.height()))), 4);
        const uint64_t bytes = addBytes(
            addBytes(mulBytes(mulBytes(uint64_t(image.width()), uint64_t(image.height())), planes), resized), mid);
        if (Status s =
                checkMemory(bytes, maxMemory,
                            "preparing " + std::to_string(image.width()) + " x " + std::to_string(image.height()) +
                                " at " + std::to_string(rw) + " x " + std::to_string(rh));
            !s)
            return s;
    }
    if (ps > 1) {
        const uint64_t w = rw * uint64_t(ps), h = rh * uint64_t(ps);
        const uint64_t channels = (outputColor == ColorMode::Gray   ? 1
                                   : outputColor == ColorMode::CMYK ? 4
                                                                    : 3) +
                                  (keepAlpha && image.hasAlpha ? 1 : 0);
        const std::string what = "--pixel-size " + std::to_string(ps) + " enlarges the halftone to " +
                                 std::to_string(w) + " x " + std::to_string(h) + ", which";
        if (Status s = checkImageSize(int64_t(w), int64_t(h), int64_t(channels), maxPixels); !s)
            return Status::error(what + " is over the limit: " + s.message());
        if (Status s = checkMemory(mulBytes(mulBytes(w, h), channels), maxMemory, what); !s) return s;
    }
    return Status::ok();
}

/// True when `output` takes 1-bit rows as they are (PBM).
bool takesPackedRows(const std::string& output) { return formatName(output) == "PBM"; }

}  // namespace

Status checkJobOutput(const JobSettings& job, const std::string& output) {
    const ColorMode outputColor = job.palette.empty() ? job.color : ColorMode::RGB;
    if (outputColor == ColorMode::CMYK) {
        // Only a format that keeps the inks: a file job writes no RGB picture of them.
        const std::vector<OutputFormat> cmyk = outputFormats(ResultShape{ColorSpace::CMYK, 4});
        const OutputFormat* f = findOutputFormat(cmyk, output);
        if (!f || f->convertsToRgb)
            return Status::error("cannot write '" + output +
                                 "': only TIFF output holds CMYK; write .tif (or use --color gray or rgb)");
    }
    const MethodInfo* m = nullptr;
    if (jobMethod(job, m) && m->param("levels")) {
        ParamValues resolved = job.params;
        (void)Registry::instance().resolveParams(*m, resolved);
        const int64_t levels = resolved.getInt("levels", 2);
        if (levels > 2 && !checkOutputFormat(output, ResultShape{ColorSpace::Gray, 1, false}))
            return Status::error("cannot write '" + output + "': PBM holds only black and white but --levels is " +
                                 std::to_string(levels) + "; write .pgm instead");
    }
    OutputLayout layout;
    layout.space = spaceOf(outputColor);
    return checkOutputLayout(output, layout);
}

std::string platePath(const std::string& output, const std::string& ink) {
    const std::filesystem::path p(output);
    std::string lower = ink;
    std::transform(lower.begin(), lower.end(), lower.begin(), [](unsigned char c) { return char(std::tolower(c)); });
    return (p.parent_path() / (p.stem().string() + "-" + lower + p.extension().string())).string();
}

Status writePlates(const std::string& output, const Image& cmyk, const WriteOptions& options) {
    if (cmyk.space != ColorSpace::CMYK || cmyk.channelCount() != 4)
        return Status::error("cannot write plates of '" + output + "': the result is not separated into CMYK inks");
    std::vector<std::string> done;
    for (size_t c = 0; c < kInkNames.size(); ++c) {
        const std::string plate = platePath(output, kInkNames[c]);
        WriteOptions po = options;
        po.plateInk = kInkNames[c];
        if (Status s = writeImage(plate, Image::gray(cmyk.channels[c]), po); !s) {
            for (const std::string& f : done) {
                std::error_code ignored;
                std::filesystem::remove(f, ignored);
            }
            return s;
        }
        done.push_back(plate);
    }
    return Status::ok();
}

FileJobOutcome runFileJob(const JobSettings& job, const std::string& input, const std::string& output,
                          const FileJobOptions& fo, const RunControl& control) {
    using Kind = FileJobOutcome::Kind;
    auto failed = [](const std::string& message, Kind kind = Kind::Failed) { return FileJobOutcome{kind, message}; };
    auto note = [&](const std::string& text) {
        if (fo.onNote) fo.onNote(text);
    };
    auto quiet = [&]() { return fo.quiet ? fo.quiet() : std::shared_ptr<void>(); };
    const std::string& savePalette = fo.savePalette;
    const uint64_t maxMemory = fo.maxMemory ? fo.maxMemory : defaultMaxMemory();
    const double loadedAtStart = moduleLoadSeconds();

    RunRequest request;
    PrepareSettings prepare;
    if (Status s = resolveJob(job, nullptr, request, prepare); !s && job.palette.rfind("auto:", 0) != 0)
        return failed(s.message(), Kind::Usage);
    if (!request.method) {
        const MethodInfo* m = nullptr;
        if (Status s = jobMethod(job, m); !s) return failed(s.message(), Kind::Usage);
        request.method = m;
    }
    int autoColors = 0;
    if (!job.palette.empty()) (void)parseAutoPaletteSpec(job.palette, autoColors);
    const MethodInfo& m = *request.method;
    ParamValues resolved = request.params;
    (void)Registry::instance().resolveParams(m, resolved);
    // The target's resolution and colour mode (its frame is in `prepare`, its colours in the request).
    JobSettings applied;
    if (Status s = applyTarget(job, applied); !s) return failed(s.message(), Kind::Usage);
    const ColorMode outputColor = job.palette.empty() && !request.palette ? applied.color : ColorMode::RGB;

    // Everything about the output is checked before the input is read: nothing is computed for an output that
    // cannot be written.
    if ((fo.plates || !fo.proof.empty()) && outputColor != ColorMode::CMYK)
        return failed(std::string(fo.plates ? "--plates" : "--proof") + " needs --color cmyk (a separation into inks)",
                      Kind::Usage);
    std::vector<JobFile> outputs = {{"OUTPUT", output}, {"--save-palette", savePalette}, {"--proof", fo.proof}};
    if (fo.plates)
        for (const char* ink : kInkNames)
            outputs.push_back({std::string("the ") + ink + " plate", platePath(output, ink)});
    if (Status s = checkOutputsAgainstInputs(outputs, {{"INPUT", input},
                                                       {"--palette", paletteFile(job.palette)},
                                                       {"--target", targetFile(job.target)},
                                                       {"--icc-in", job.icc.input},
                                                       {"--icc-out", job.icc.output}});
        !s)
        return failed(s.message());
    if (!fo.proof.empty()) {
        OutputLayout rgb;
        rgb.space = ColorSpace::RGB;
        if (Status s = checkOutputPath(fo.proof, rgb); !s) return failed(s.message(), Kind::Usage);
    }
    if (!savePalette.empty()) {
        std::string probe;
        Palette two;
        two.colors = {Rgb8{0, 0, 0}, Rgb8{255, 255, 255}};
        if (Status s = formatPaletteFile(savePalette, two, probe); !s) return failed(s.message(), Kind::Usage);
        if (Status s = checkWritableTarget(savePalette); !s)
            return failed("cannot write '" + savePalette + "': " + s.message());
    }
    if (Status s = checkJobOutput(job, output); !s) return failed(s.message(), Kind::Usage);
    const bool lossy = isLossyFormat(output);
    if (lossy && !fo.force)
        return failed("cannot write '" + output + "': " + formatName(output) +
                      " is a lossy format and would blur the halftone's dots into gray; write .png, .tif or .pbm, "
                      "or add --force to write it anyway");
    OutputLayout layout;
    layout.space = spaceOf(outputColor);
    if (Status s = checkOutputPath(output, layout); !s) return failed(s.message());
    if (fo.plates)
        for (const char* ink : kInkNames)
            if (Status s = checkOutputPath(platePath(output, ink)); !s) return failed(s.message());
    if (lossy)
        note("writing a halftone to " + formatName(output) + ", a lossy format: the dots of '" + output +
             "' will not be exactly black and white (--force)");

    // The ICC profiles are read before the input: a bad profile is found before any work.
    std::shared_ptr<const IccSeparator> icc;
    if (!job.icc.empty() && outputColor == ColorMode::CMYK) {
        if (Status s = IccSeparator::load(job.icc, icc); !s) return failed(s.message());
        request.separation.separator = icc;
    }

    using Clock = std::chrono::steady_clock;
    const auto seconds = [](Clock::time_point a, Clock::time_point b) {
        return std::chrono::duration<double>(b - a).count();
    };
    Clock::time_point tRead = Clock::now();
    const auto recordTimes = [&](Clock::time_point read, Clock::time_point prepare, Clock::time_point method,
                                 Clock::time_point write) {
        if (fo.times)
            *fo.times = {seconds(read, prepare), seconds(prepare, method), seconds(method, write),
                         seconds(write, Clock::now()), moduleLoadSeconds() - loadedAtStart};
    };
    Image image;
    ReadOptions ro;
    ro.maxPixels = fo.maxPixels;
    ro.maxMemory = maxMemory;
    ro.stop = control.stop;
    ReadInfo info;
    Status read;
    {
        const auto hush = quiet();
        const double loadedBefore = moduleLoadSeconds();
        read = readImage(input, image, ro, &info);
        // Loading the OpenImageIO module on first need is start-up, not reading (FileJobTimes::read).
        tRead += std::chrono::duration_cast<Clock::duration>(
            std::chrono::duration<double>(moduleLoadSeconds() - loadedBefore));
    }
    if (read.isCancelled() || control.cancelled()) return failed("interrupted; no output written", Kind::Cancelled);
    if (!read) return failed(read.message());
    if (!info.notes.empty()) note(input + ": " + info.notes);
    if (job.palette.empty() && job.color == ColorMode::CMYK && image.space == ColorSpace::CMYK &&
        job.separation.gcr != SeparationParams{}.gcr)
        note(input + " is already separated into inks: --gcr does not apply to it (--ink-limit does)");

    // Prepare: the first part of the job's progress when it does something. Its size and memory are checked before
    // anything is allocated: the prepared planes, the resize's float intermediate, and (--pixel-size) the enlarged
    // output that the method's result becomes.
    const Clock::time_point tPrepare = Clock::now();
    const int inputWidth = image.width();
    const bool preparing = !prepare.isIdentity();
    if (Status s = checkPrepareBudget(image, prepare, outputColor, job.keepAlpha, fo.maxPixels, maxMemory); !s)
        return failed(input + ": " + s.message());
    const double prepShare = preparing ? 0.2 : 0.0;
    if (preparing) {
        Image prepared;
        Status s;
        try {
            s = prepareImage(image, prepare, prepared, control.scaled(0.0, prepShare, "prepare"));
        } catch (const std::bad_alloc&) {
            s = Status::error("out of memory while preparing the image");
        }
        if (s.isCancelled() || control.cancelled()) return failed("interrupted; no output written", Kind::Cancelled);
        if (!s) return failed(input + ": " + s.message());
        image = std::move(prepared);
    }
    // Now that the size and alpha are known: formats with size limits, writers refusing alpha.
    layout.alpha = job.keepAlpha && image.hasAlpha;
    layout.width = image.width() * prepare.pixelSize;
    layout.height = image.height() * prepare.pixelSize;
    if (Status s = checkOutputPath(output, layout); !s) return failed(s.message());

    if (autoColors > 0) {
        Palette p;
        if (Status s = autoPalette(image, autoColors, p); !s) return failed(input + ": " + s.message());
        if (p.size() < autoColors)
            note("palette " + job.palette + ": '" + input + "' has only " + std::to_string(p.size()) +
                 " colours; the palette holds those");
        request.palette = std::move(p);
    }
    // One resolution for the screen and the file: --dpi; else the input's, scaled by the prepare step's resize (the
    // print keeps its size). A method that models a printer (a dpi parameter: the AM screen) takes the pixels as its
    // device's dots: the output is tagged with the resolution it ran at (--dpi or its own setting).
    const int ps = prepare.pixelSize;
    double outputDpi = applied.dpi > 0 ? applied.dpi
                       : info.dpi > 0  ? info.dpi * double(image.width()) * ps / double(inputWidth)
                                       : 0.0;
    if (m.param("dpi") && applied.dpi <= 0) {
        const double carried = outputDpi;
        outputDpi = resolved.getReal("dpi", 0) * ps;
        if (carried > 0 && std::abs(carried - outputDpi) > 0.01 * outputDpi)
            note(input + " states " + numberText(carried) + " dpi; method " + m.id() +
                 " takes its pixels as dots of a " + numberText(outputDpi) +
                 " dpi device and the output says so (--dpi or --print-size choose)");
    }
    if (outputColor == ColorMode::CMYK && !job.dotGain.empty()) {
        // Separated (and ink-limited) here, then compensated for each ink's dot gain: the method gets the inks to
        // screen, which the run's separation leaves as they are.
        image = convertColor(image, ColorMode::CMYK, request.separation);
        compensateDotGain(image, job.dotGain);
    }
    request.maxMemory = maxMemory;  // the method's planes and working memory count against the same limit
    request.concurrentRuns = fo.concurrentRuns;

    const Clock::time_point tMethod = Clock::now();
    // Binary output to a PBM on the GPU: the device makes the bits and only they come back; they are written as they
    // are, with no 8-bit plane in between. Where the packed form does not apply (parameters, no device, out of device
    // memory), the plane form below runs as usual, with its own fallback and note.
    std::string choice;  // the automatic device choice's reason, for --time
    const auto packedOnGpu = [&] {
        if (request.device) return *request.device == Device::Gpu;
        if (!Registry::instance().gpuAvailability().usable) return false;
        return chooseDevice(m, double(image.width()) * image.height(), resolved, request, control, choice) ==
               Device::Gpu;
    };
    if (m.gpuPacked && !request.palette && takesPackedRows(output) && outputColor == ColorMode::Gray &&
        prepare.pixelSize == 1 && image.space == ColorSpace::Gray && image.channelCount() == 1 && packedOnGpu()) {
        ParamValues planeParams = resolved;
        planeParams.set(kChannelKey, std::string(channelName(ColorSpace::Gray, 0)));
        std::vector<uint8_t> rows;
        Status ps;
        try {
            ps = m.gpuPacked(image.channels[0], rows, planeParams, control.scaled(prepShare, 1.0));
        } catch (const std::bad_alloc&) {
            ps = Status::unavailable("out of memory for the 1-bit rows");
        }
        if (ps.isCancelled() || control.cancelled()) return failed("interrupted; no output written", Kind::Cancelled);
        if (ps) {
            const int width = image.width(), height = image.height();
            RunResult packedRun;
            packedRun.device = Device::Gpu;
            packedRun.choice = choice;
            packedRun.seconds = seconds(tMethod, Clock::now());
            if (fo.onRun) fo.onRun(m, packedRun);
            image = Image{};
            const Clock::time_point tWrite = Clock::now();
            if (fo.announceWrite) note("writing '" + output + "'");
            const Status written = writePackedPbm(output, rows, width, height);
            recordTimes(tRead, tPrepare, tMethod, tWrite);
            if (fo.afterWrite) fo.afterWrite(output, bool(written));
            if (written.isCancelled()) return failed("interrupted; no output written", Kind::Cancelled);
            if (!written) return failed(written.message());
            return {};
        }
    }
    RunResult result;
    Status s;
    try {
        s = runImage(std::move(image), request, result, control.scaled(prepShare, 1.0));
    } catch (const std::bad_alloc&) {
        s = Status::error("out of memory while halftoning (the method needs more memory than this machine could give)");
    } catch (const std::exception& e) {
        s = Status::error(std::string("the method failed: ") + e.what());
    }
    if (s.isCancelled() || control.cancelled()) return failed("interrupted; no output written", Kind::Cancelled);
    if (!s) return failed(input + ": " + s.message());
    if (!result.note.empty()) note(result.note);
    if (fo.onRun) fo.onRun(m, result);
    image = Image{};  // the input is not needed any more: its memory goes back before the output is written
    if (prepare.pixelSize > 1) result.image = enlargePixels(result.image, prepare.pixelSize);
    const Clock::time_point tWrite = Clock::now();

    WriteOptions wo;
    wo.dpi = outputDpi;
    wo.compressLevel = fo.compressLevel;
    wo.control.stop = control.stop;  // an interrupt ends the write and leaves no file
    wo.control.threads = control.threads;
    // Each file has no name until it is complete, so an interruption leaves nothing behind; plates written before a
    // failing one are removed.
    const bool asPlates = fo.plates && result.image.space == ColorSpace::CMYK;
    if (asPlates && !std::all_of(result.image.channels.begin(), result.image.channels.end(), [](const Plane8& p) {
            return std::all_of(p.data.begin(), p.data.end(), [](uint8_t v) { return v == 0 || v == 255; });
        }))
        return failed("--plates needs a black-and-white halftone of each ink; method " + m.id() + " made gray levels");
    if (fo.announceWrite) note("writing '" + (asPlates ? platePath(output, "*") : output) + "'");
    Status written;
    {
        const auto hush = quiet();
        if (asPlates) {
            written = writePlates(output, result.image, wo);
        } else {
            written = writeImage(output, result.image, wo);
        }
        if (written && !fo.proof.empty()) {
            WriteOptions proofOptions;
            proofOptions.dpi = wo.dpi;
            written =
                writeImage(fo.proof, simulatePrint(result.image, icc ? icc->printInks() : PrintInks{}), proofOptions);
        }
    }
    recordTimes(tRead, tPrepare, tMethod, tWrite);
    if (fo.afterWrite) fo.afterWrite(output, bool(written));
    if (written.isCancelled()) return failed("interrupted; no output written", Kind::Cancelled);
    if (!written) return failed(written.message());
    if (!savePalette.empty() && request.palette) {
        std::string text;
        Status saved = formatPaletteFile(savePalette, *request.palette, text);
        if (saved) saved = fo.writeText ? fo.writeText(savePalette, text) : writeFileAtomically(savePalette, text);
        if (saved.isCancelled()) return failed("interrupted; palette not written", Kind::Cancelled);
        if (!saved) return failed(saved.message());
    }
    return {};
}

}  // namespace halftone::io
