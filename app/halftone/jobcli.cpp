#include "app/halftone/jobcli.h"

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <new>
#include <optional>
#include <set>
#include <stdexcept>

#include "app/halftone/commands.h"
#include "core/budget.h"
#include "core/palette.h"
#include "core/prepare.h"
#include "io/atomicwrite.h"
#include "io/imagefile.h"
#include "io/preset.h"

namespace halftone::cli {

ParamValue MethodOption::value() const {
    switch (kind) {
        case ParamSpec::Kind::Int:
            return i;
        case ParamSpec::Kind::Real:
            return r;
        case ParamSpec::Kind::Bool:
            return b;
        default:
            return s;
    }
}

bool JobOptions::given(const std::string& name) const {
    const auto it = options.find(name);
    return it != options.end() && it->second->count() > 0;
}

namespace {

std::string joined(const std::vector<std::string>& v) {
    std::string s;
    for (const auto& x : v) s += (s.empty() ? "" : ", ") + x;
    return s;
}

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

}  // namespace

void addJobOptions(CLI::App& app, JobOptions& o) {
    auto add = [&](const std::string& name, auto& value, const std::string& help, const char* group = nullptr) {
        CLI::Option* opt = app.add_option("--" + name, value, help);
        if (group) opt->group(group);
        o.options[name] = opt;
        return opt;
    };
    auto flag = [&](const std::string& name, bool& value, const std::string& help, const char* group = nullptr) {
        CLI::Option* opt = app.add_flag("--" + name, value, help);
        if (group) opt->group(group);
        o.options[name] = opt;
        return opt;
    };
    add("preset", o.preset,
        "start from the job saved in this preset file (JSON); options given here override its settings");
    add("save-preset", o.savePreset,
        "save the job these options describe to a preset file (JSON); without INPUT and OUTPUT, only that");
    add("method", o.method,
        "method name (see --list); default ed, exact error diffusion (Floyd-Steinberg unless --kernel)");
    std::string defaults;
    for (const std::string& m : Registry::instance().methodNames())
        defaults += (defaults.empty() ? "" : ", ") + m + "/" + Registry::instance().defaultVariant(m);
    add("variant", o.variant, "method variant (default, as in the studio: " + defaults + ")");
    add("color", o.color, "colour mode: gray, rgb or cmyk (default gray)");
    add("palette", o.palette,
        "halftone to a colour palette: a built-in name (--list-palettes), a palette file (.hex, .gpl, .txt, .act, "
        ".pal) or auto:N (N colours from the image); the output is indexed where the format allows (PNG, TIFF)");
    add("save-palette", o.savePalette,
        "also write the palette used (e.g. of auto:N) to this file: .hex, .gpl, .txt, .act or .pal");
    add("gcr", o.gcr,
        "with --color cmyk: percent of the grey common to C, M and Y printed with black instead (grey component "
        "replacement, 0..100, default 100)");
    add("ink-limit", o.inkLimit,
        "with --color cmyk: total ink limit, C + M + Y + K in percent (0..400, default 400 = no limit)");
    add("device", o.device, "cpu, gpu or auto (default auto: GPU when usable and implemented)");
    add("threads", o.threads, "worker threads for parallel methods (0 = all)");
    flag("keep-alpha", o.keepAlpha, "copy the input's alpha channel into the output");

    const char* prep =
        "Prepare (before halftoning, in this order: resize, levels, brightness, contrast, gamma, "
        "saturation, sharpen)";
    add("width", o.width, "resize to this width in pixels (the height follows the aspect ratio unless given)", prep);
    add("height", o.height, "resize to this height in pixels (the width follows unless given)", prep);
    add("scale", o.scale, "resize by this factor (e.g. 0.5), when no width or height is given", prep);
    add("print-size", o.printSize, "resize to a print size at --dpi: 6x4in, 15x10cm, 210x297mm", prep);
    add("dpi", o.dpi,
        "device resolution in dots per inch: the resolution of --print-size, written into the output file, and the "
        "printer resolution of methods that model one (DBS, AM screens)",
        prep);
    add("fit", o.fit, "with width and height: inside (keep the aspect ratio, the default) or stretch", prep);
    add("resize-filter", o.resizeFilter, "lanczos (default), bicubic, box or nearest", prep);
    add("resize-space", o.resizeSpace, "resample in linear light (linear, the default) or on the values (gamma)", prep);
    add("pixel-size", o.pixelSize,
        "halftone at 1/N of the size and enlarge each pixel to N x N (the pixel-art look); default 1", prep);
    add("black-point", o.blackPoint, "input level that becomes black (levels; default 0)", prep);
    add("white-point", o.whitePoint, "input level that becomes white (levels; default 255)", prep);
    add("brightness", o.brightness, "-100..100: adds brightness x 2.55 to every level (default 0)", prep);
    add("contrast", o.contrast, "-100..100: steeper (> 0) or flatter (< 0) about mid-gray; 100 = a threshold", prep);
    add("gamma", o.gamma, "0.1..10: > 1 lightens the mid-tones, < 1 darkens them (default 1)", prep);
    add("saturation", o.saturation, "0..400 percent for colour images: 0 = gray, 100 = unchanged (default)", prep);
    add("sharpen", o.sharpen, "unsharp mask strength in percent, 0..500 (default 0 = off)", prep);
    add("sharpen-radius", o.sharpenRadius, "unsharp mask radius in pixels, 0.3..50 (default 1)", prep);

    // Every parameter key of every registered method becomes one option (unless a job option has the name: --dpi
    // goes to the methods that have a dpi parameter).
    std::set<std::string> seen;
    for (const MethodInfo& m : Registry::instance().methods())
        for (const ParamSpec& p : m.params) {
            if (o.options.count(p.key) || !seen.insert(p.key).second) continue;
            if (app.get_option_no_throw("--" + p.key)) continue;  // a command's own option of that name
            MethodOption& mo = o.methodOptions.emplace_back();
            mo.key = p.key;
            mo.kind = p.kind;
            std::string help = p.help.empty() ? p.label : p.help;
            const std::string name = "--" + p.key;
            switch (p.kind) {
                case ParamSpec::Kind::Bool:
                    mo.option = app.add_flag(name, mo.b, help);
                    break;
                case ParamSpec::Kind::Int:
                    mo.option = app.add_option(name, mo.i, help);
                    break;
                case ParamSpec::Kind::Real:
                    mo.option = app.add_option(name, mo.r, help);
                    break;
                case ParamSpec::Kind::Choice:
                    help += " (" + joined(p.choices) + ")";
                    mo.option = app.add_option(name, mo.s, help);
                    break;
                case ParamSpec::Kind::Text:
                    mo.option = app.add_option(name, mo.s, help);
                    break;
            }
            mo.option->group("Method parameters");
        }
}

void addFileOptions(CLI::App& app, FileOptions& o) {
    o.maxPixels = int64_t(kDefaultMaxPixels);
    app.add_option("--max-pixels", o.maxPixels,
                   "refuse larger images, before decoding them (default 1073741824 = 1 Gpixel; at least 1)");
    app.add_option(
        "--max-memory", o.maxMemory,
        "refuse inputs whose reading or halftoning needs more bytes, e.g. 8G (default: half the physical memory)");
    app.add_flag("--force", o.force, "write a lossy output format (JPEG, WebP, HEIF/AVIF) anyway, with a warning");
    app.add_flag("--progress", o.progress, "report progress on stderr");
    app.add_flag("--time", o.time, "print the method's wall time on stderr");
}

int buildJob(const JobOptions& o, JobSettings& job) {
    job = JobSettings{};
    if (!o.preset.empty())
        if (Status s = io::loadPreset(o.preset, job); !s) return fail(s.message(), kExitUsage);
    const JobSettings fromPreset = job;
    if (o.given("method")) job.method = o.method;
    if (o.given("variant")) job.variant = o.variant;
    if (o.given("method") && !o.given("variant") && job.method != fromPreset.method) job.variant.clear();
    const MethodInfo* m = nullptr;
    if (Status s = jobMethod(job, m); !s) return fail(s.message(), kExitUsage);
    job.method = m->method;
    job.variant = m->variant;
    // A preset's parameters belong to its method: another method keeps only those it has.
    ParamValues params;
    for (const auto& [key, value] : job.params.all()) {
        if (m->param(key))
            params.set(key, value);
        else
            note("the preset's --" + key + " does not apply to method " + m->id() + "; left out");
    }
    for (const MethodOption& mo : o.methodOptions) {
        if (mo.option->count() == 0) continue;
        if (!m->param(mo.key)) return fail("option --" + mo.key + " does not apply to method " + m->id(), kExitUsage);
        params.set(mo.key, mo.value());
    }
    if (o.given("threads")) {
        if (o.threads < 0)
            return fail("--threads must be 0 (all) or more, got " + std::to_string(o.threads), kExitUsage);
        job.threads = int(std::min<int64_t>(o.threads, 1 << 16));
    }
    if (job.threads > 0 && m->param("threads")) params.set("threads", int64_t(job.threads));
    if (o.given("dpi")) job.dpi = o.dpi;
    if (job.dpi > 0 && m->param("dpi")) params.set("dpi", job.dpi);
    job.params = params;
    ParamValues resolved = params;
    if (Status s = Registry::instance().resolveParams(*m, resolved); !s) return fail(s.message(), kExitUsage);

    if (o.given("color") && !parseColorMode(o.color, job.color))
        return fail("unknown --color '" + o.color + "'; choose gray, rgb or cmyk", kExitUsage);
    for (const char* sep : {"gcr", "ink-limit"})
        if (o.given(sep) && job.color != ColorMode::CMYK)
            return fail(std::string("--") + sep + " applies only to --color cmyk (the separation into inks)",
                        kExitUsage);
    if (o.given("gcr")) job.separation.gcr = int(std::clamp<int64_t>(o.gcr, -1, 101));
    if (o.given("ink-limit")) job.separation.inkLimit = int(std::clamp<int64_t>(o.inkLimit, -1, 401));
    if (Status s = checkSeparation(job.separation); !s) return fail(s.message(), kExitUsage);
    if (o.given("device")) job.device = o.device;
    if (job.device != "cpu" && job.device != "gpu" && job.device != "auto")
        return fail("unknown --device '" + job.device + "'; choose cpu, gpu or auto", kExitUsage);
    if (o.given("keep-alpha")) job.keepAlpha = o.keepAlpha;

    if (o.given("palette")) job.palette = o.palette;
    if (!o.savePalette.empty() && job.palette.empty())
        return fail("--save-palette needs --palette (NAME, FILE or auto:N)", kExitUsage);
    if (!job.palette.empty()) {
        if (!m->hasPaletteForm()) {
            std::string can;
            for (const MethodInfo& x : Registry::instance().methods())
                if (x.hasPaletteForm()) can += (can.empty() ? "" : ", ") + x.id();
            return fail("method " + m->id() + " cannot halftone to a palette; methods that can: " +
                            (can.empty() ? std::string("none in this build") : can),
                        kExitUsage);
        }
        int autoColors = 0;
        if (Status s = parseAutoPaletteSpec(job.palette, autoColors); !s) return fail(s.message(), kExitUsage);
        if (autoColors == 0) {
            Palette p;
            if (Status s = resolvePalette(job.palette, nullptr, p); !s)
                return fail(s.message(), std::filesystem::exists(job.palette) ? kExitError : kExitUsage);
        }
        if (o.given("color") && job.color != ColorMode::RGB)
            note("--color is not used with --palette: the palette's colours make the output");
    }

    PrepareSettings& p = job.prepare;
    if (o.given("width")) p.width = int(std::clamp<int64_t>(o.width, -1, int64_t(1) << 30));
    if (o.given("height")) p.height = int(std::clamp<int64_t>(o.height, -1, int64_t(1) << 30));
    if (o.given("scale")) p.scale = o.scale;
    if (o.given("fit")) {
        if (o.fit != "inside" && o.fit != "stretch")
            return fail("unknown --fit '" + o.fit + "'; choose inside or stretch", kExitUsage);
        p.fit = o.fit == "stretch" ? ResizeFit::Stretch : ResizeFit::Inside;
    }
    if (o.given("resize-filter") && !parseResizeFilter(o.resizeFilter, p.filter))
        return fail("unknown --resize-filter '" + o.resizeFilter + "'; choose lanczos, bicubic, box or nearest",
                    kExitUsage);
    if (o.given("resize-space")) {
        if (o.resizeSpace != "linear" && o.resizeSpace != "gamma")
            return fail("unknown --resize-space '" + o.resizeSpace + "'; choose linear or gamma", kExitUsage);
        p.linearResize = o.resizeSpace == "linear";
    }
    if (o.given("pixel-size")) p.pixelSize = int(std::clamp<int64_t>(o.pixelSize, -1, 1 << 20));
    if (o.given("black-point")) p.blackPoint = int(std::clamp<int64_t>(o.blackPoint, -1, 256));
    if (o.given("white-point")) p.whitePoint = int(std::clamp<int64_t>(o.whitePoint, -1, 256));
    if (o.given("brightness")) p.brightness = o.brightness;
    if (o.given("contrast")) p.contrast = o.contrast;
    if (o.given("gamma")) p.gamma = o.gamma;
    if (o.given("saturation")) p.saturation = o.saturation;
    if (o.given("sharpen")) p.sharpenAmount = o.sharpen;
    if (o.given("sharpen-radius")) p.sharpenRadius = o.sharpenRadius;
    if (o.given("print-size")) job.printSize = o.printSize;
    if ((o.given("width") || o.given("height") || o.given("scale")) && !job.printSize.empty())
        return fail("--print-size sets the size: leave out --width, --height and --scale", kExitUsage);
    if (Status s = validateJob(job); !s) return fail(s.message(), kExitUsage);
    if (!o.savePreset.empty()) {
        if (Status s = io::savePreset(o.savePreset, job); !s) return fail(s.message());
    }
    return kExitOk;
}

int checkFileOptions(const FileOptions& o, uint64_t& maxMemory) {
    if (o.maxPixels < 0)
        return fail("--max-pixels must be a positive number of pixels, got " + std::to_string(o.maxPixels) +
                        " (there is no unlimited setting: give a larger number)",
                    kExitUsage);
    if (o.maxPixels == 0) return fail("--max-pixels must be at least 1", kExitUsage);
    maxMemory = defaultMaxMemory();
    if (!o.maxMemory.empty() && !parseBytes(o.maxMemory, maxMemory))
        return fail("--max-memory '" + o.maxMemory + "' is not a byte count such as 8G or 500M", kExitUsage);
    return kExitOk;
}

FileOutcome runFile(const JobSettings& job, const FileOptions& fo, uint64_t maxMemory, const std::string& input,
                    const std::string& output, const std::string& savePalette, const RunControl& control,
                    const std::function<void(const std::string&)>& onNote) {
    auto failed = [](const std::string& message, int code = kExitError) { return FileOutcome{code, message}; };
    RunRequest request;
    PrepareSettings prepare;
    if (Status s = resolveJob(job, nullptr, request, prepare); !s && job.palette.rfind("auto:", 0) != 0)
        return failed(s.message(), kExitUsage);
    int autoColors = 0;
    if (!job.palette.empty()) (void)parseAutoPaletteSpec(job.palette, autoColors);
    const MethodInfo& m = *request.method;
    ParamValues resolved = request.params;
    (void)Registry::instance().resolveParams(m, resolved);
    const ColorMode outputColor = job.palette.empty() ? job.color : ColorMode::RGB;

    // Everything about the output is checked before the input is read: nothing is computed for an output that
    // cannot be written.
    if (io::samePath(input, output))
        return failed("refusing to overwrite the input: '" + input + "' and '" + output + "' are the same file");
    if (!savePalette.empty() && (io::samePath(savePalette, input) || io::samePath(savePalette, output)))
        return failed("--save-palette '" + savePalette + "' is the input or the output file", kExitUsage);
    if (!savePalette.empty()) {
        std::string probe;
        Palette two;
        two.colors = {Rgb8{0, 0, 0}, Rgb8{255, 255, 255}};
        if (Status s = formatPaletteFile(savePalette, two, probe); !s) return failed(s.message(), kExitUsage);
        if (Status s = io::checkWritableTarget(savePalette); !s)
            return failed("cannot write '" + savePalette + "': " + s.message());
    }
    if (outputColor == ColorMode::CMYK) {
        const std::string ext = formatName(output);
        if (ext != "TIF" && ext != "TIFF")
            return failed(
                "cannot write '" + output + "': only TIFF output holds CMYK; write .tif (or use --color gray or rgb)",
                kExitUsage);
    }
    const bool lossy = io::isLossyFormat(output);
    if (lossy && !fo.force)
        return failed("cannot write '" + output + "': " + formatName(output) +
                      " is a lossy format and would blur the halftone's dots into gray; write .png, .tif or .pbm, "
                      "or add --force to write it anyway");
    const int64_t levels = m.param("levels") ? resolved.getInt("levels", 256) : 2;
    if (formatName(output) == "PBM" && m.param("levels") && levels > 2)
        return failed("cannot write '" + output + "': PBM holds only black and white but --levels is " +
                      std::to_string(levels) + "; write .pgm instead");
    io::OutputLayout layout;
    layout.space = spaceOf(outputColor);
    if (Status s = io::checkOutputPath(output, layout); !s) return failed(s.message());
    if (lossy)
        onNote("writing a halftone to " + formatName(output) + ", a lossy format: the dots of '" + output +
               "' will not be exactly black and white (--force)");

    Image image;
    io::ReadOptions ro;
    ro.maxPixels = uint64_t(fo.maxPixels);
    ro.maxMemory = maxMemory;
    io::ReadInfo info;
    Status read;
    {
        QuietStderr quiet;
        read = io::readImage(input, image, ro, &info);
    }
    if (!read) return failed(read.message());
    if (!info.notes.empty()) onNote(input + ": " + info.notes);

    // Prepare: the first part of the job's progress when it does something.
    const bool preparing = !prepare.isIdentity();
    const double prepShare = preparing ? 0.2 : 0.0;
    if (preparing) {
        Image prepared;
        Status s;
        try {
            s = prepareImage(image, prepare, prepared, control.scaled(0.0, prepShare, "prepare"));
        } catch (const std::bad_alloc&) {
            s = Status::error("out of memory while preparing the image");
        }
        if (s.isCancelled() || control.cancelled()) return failed("interrupted; no output written", kExitCancelled);
        if (!s) return failed(input + ": " + s.message());
        image = std::move(prepared);
    }
    // Now that the size and alpha are known: formats with size limits, writers refusing alpha.
    layout.alpha = job.keepAlpha && image.hasAlpha;
    layout.width = image.width() * prepare.pixelSize;
    layout.height = image.height() * prepare.pixelSize;
    if (Status s = io::checkOutputPath(output, layout); !s) return failed(s.message());

    if (autoColors > 0) {
        Palette p;
        if (Status s = autoPalette(image, autoColors, p); !s) return failed(input + ": " + s.message());
        if (p.size() < autoColors)
            onNote("palette " + job.palette + ": '" + input + "' has only " + std::to_string(p.size()) +
                   " colours; the palette holds those");
        request.palette = std::move(p);
    }
    request.maxMemory = maxMemory;  // the method's planes and working memory count against the same limit

    RunResult result;
    Status s;
    try {
        s = runImage(image, request, result, control.scaled(prepShare, 1.0));
    } catch (const std::bad_alloc&) {
        s = Status::error("out of memory while halftoning (the method needs more memory than this machine could give)");
    } catch (const std::exception& e) {
        s = Status::error(std::string("the method failed: ") + e.what());
    }
    if (s.isCancelled() || control.cancelled()) return failed("interrupted; no output written", kExitCancelled);
    if (!s) return failed(input + ": " + s.message());
    if (!result.note.empty()) onNote(result.note);
    if (fo.time)
        std::fprintf(stderr, "halftone: %s on %s: %.6f s\n", m.id().c_str(), toString(result.device), result.seconds);
    if (prepare.pixelSize > 1) result.image = enlargePixels(result.image, prepare.pixelSize);

    io::WriteOptions wo;
    wo.dpi = job.dpi;
    if (m.param("levels")) {
        wo.levels = int(levels);
    } else {
        bool binary = true;
        for (const Plane8& p : result.image.channels)
            binary = binary && std::all_of(p.data.begin(), p.data.end(), [](uint8_t v) { return v == 0 || v == 255; });
        wo.levels = binary ? 2 : 256;
    }
    // A signal during the write ends the program at once (see installSignalHandlers): the file has no name until it
    // is complete, so nothing is left behind.
    if (fo.progress) onNote("writing '" + output + "'");
    Status written;
    {
        QuietStderr quiet;
        written = io::writeImage(output, result.image, wo);
    }
    if (const int sig = takeDeferredSignal()) exitForDeferredSignal(sig, output, bool(written));
    if (written.isCancelled()) return failed("interrupted; no output written", kExitCancelled);
    if (!written) return failed(written.message());
    if (!savePalette.empty() && request.palette) {
        std::string text;
        Status saved = formatPaletteFile(savePalette, *request.palette, text);
        if (saved) saved = writeTextFile(savePalette, text);
        if (saved.isCancelled()) return failed("interrupted; palette not written", kExitCancelled);
        if (!saved) return failed(saved.message());
    }
    return {};
}

}  // namespace halftone::cli
