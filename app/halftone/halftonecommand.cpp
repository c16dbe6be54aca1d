// The default command: `halftone [--method M] [--variant V] [method options] INPUT OUTPUT`.
// Method options are generated from the registry's ParamSpecs, so new methods need no change here.
#include <algorithm>
#include <cctype>
#include <cstdio>
#include <deque>
#include <filesystem>
#include <memory>
#include <new>
#include <optional>
#include <stdexcept>
#include <set>

#include "app/halftone/commands.h"
#include "core/budget.h"
#include "core/kernel.h"
#include "core/palette.h"
#include "core/registry.h"
#include "io/atomicwrite.h"
#include "io/imagefile.h"

namespace halftone::cli {

namespace {

/// One generated `--key` option and where CLI11 stores its value.
struct MethodOption {
    std::string key;
    ParamSpec::Kind kind = ParamSpec::Kind::Int;
    int64_t i = 0;
    double r = 0.0;
    bool b = false;
    std::string s;
    CLI::Option* option = nullptr;

    ParamValue value() const {
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
};

struct Options {
    bool list = false;
    bool listKernels = false;
    bool listPalettes = false;
    std::string showPalette;
    std::string palette;
    std::string savePalette;
    std::string method;
    std::string variant;
    std::string color = "gray";
    std::string device = "auto";
    int64_t threads = 0;
    int64_t maxPixels = int64_t(kDefaultMaxPixels);
    std::string maxMemory;  ///< empty: defaultMaxMemory()
    bool force = false;
    bool keepAlpha = false;
    bool progress = false;
    bool time = false;
    std::string input, output;
    CLI::Option* threadsOption = nullptr;
    CLI::Option* colorOption = nullptr;
    std::deque<MethodOption> methodOptions;
};

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

int run(Options& o) {
    const Registry& registry = Registry::instance();
    if (o.list) {
        for (const MethodInfo& m : registry.methods())
            std::printf("%s\t%s\t%s\t%s\n", m.method.c_str(), m.variant.c_str(), m.devicesString().c_str(),
                        m.description.c_str());
        return kExitOk;
    }
    if (o.listKernels) {
        for (const Kernel& k : kernels()) std::printf("%s\n", k.name.c_str());
        return kExitOk;
    }
    if (o.listPalettes) {
        for (const BuiltinPalette& b : builtinPalettes())
            std::printf("%s\t%s\t%d\t%s\n", b.name.c_str(), b.group.c_str(), b.palette.size(), b.description.c_str());
        return kExitOk;
    }
    if (!o.showPalette.empty()) {
        int n = 0;
        if (Status s = parseAutoPaletteSpec(o.showPalette, n); !s) return fail(s.message(), kExitUsage);
        if (n > 0)
            return fail("--show-palette: " + o.showPalette + " is made from an image; use --palette " + o.showPalette +
                            " --save-palette FILE IN OUT",
                        kExitUsage);
        Palette p;
        if (Status s = resolvePalette(o.showPalette, nullptr, p); !s) return fail(s.message());
        std::string text;
        if (Status s = formatPaletteFile("show.hex", p, text); !s) return fail(s.message());
        std::printf("# %s: %d colours\n%s", p.name.c_str(), p.size(), text.c_str());
        return kExitOk;
    }
    if (o.input.empty() && o.output.empty())
        return fail("no INPUT and OUTPUT files given (halftone IN OUT; halftone --help shows every option)",
                    kExitUsage);
    if (o.input.empty() || o.output.empty()) return fail("INPUT and OUTPUT files are required", kExitUsage);

    const std::string method = o.method.empty() ? defaultMethod() : o.method;
    const std::vector<std::string> methods = registry.methodNames();
    if (std::find(methods.begin(), methods.end(), method) == methods.end())
        return fail("unknown method '" + method + "'; choose one of: " + joined(methods), kExitUsage);
    const std::vector<std::string> variants = registry.variants(method);
    const std::string variant = o.variant.empty() ? registry.defaultVariant(method) : o.variant;
    const MethodInfo* m = registry.find(method, variant);
    if (!m)
        return fail("method " + method + " has no variant '" + variant + "'; choose one of: " + joined(variants),
                    kExitUsage);

    ParamValues params;
    for (const MethodOption& mo : o.methodOptions) {
        if (mo.option->count() == 0) continue;
        if (!m->param(mo.key)) return fail("option --" + mo.key + " does not apply to method " + m->id(), kExitUsage);
        params.set(mo.key, mo.value());
    }
    if (o.threads < 0) return fail("--threads must be 0 (all) or more, got " + std::to_string(o.threads), kExitUsage);
    if (o.threadsOption->count() > 0 && m->param("threads")) params.set("threads", o.threads);
    ParamValues resolved = params;
    if (Status s = registry.resolveParams(*m, resolved); !s) return fail(s.message(), kExitUsage);

    // The palette, before the input is read: a bad palette file or name costs no work. auto:N is made from the
    // input once it is read.
    int autoColors = 0;
    std::optional<Palette> palette;
    if (!o.savePalette.empty() && o.palette.empty())
        return fail("--save-palette needs --palette (NAME, FILE or auto:N)", kExitUsage);
    if (!o.palette.empty()) {
        if (Status s = parseAutoPaletteSpec(o.palette, autoColors); !s) return fail(s.message(), kExitUsage);
        if (autoColors == 0) {
            Palette p;
            if (Status s = resolvePalette(o.palette, nullptr, p); !s)
                return fail(s.message(), s.message().rfind("unknown palette", 0) == 0 ? kExitUsage : kExitError);
            palette = std::move(p);
        }
    }
    if (!o.savePalette.empty()) {
        std::string probe;
        Palette two;
        two.colors = {Rgb8{0, 0, 0}, Rgb8{255, 255, 255}};
        if (Status s = formatPaletteFile(o.savePalette, two, probe); !s) return fail(s.message(), kExitUsage);
        if (io::samePath(o.savePalette, o.input) || io::samePath(o.savePalette, o.output))
            return fail("--save-palette '" + o.savePalette + "' is the input or the output file", kExitUsage);
        if (Status s = io::checkWritableTarget(o.savePalette); !s)
            return fail("cannot write '" + o.savePalette + "': " + s.message());
    }
    if (!o.palette.empty() && !m->hasPaletteForm()) {
        std::string can;
        for (const MethodInfo& x : registry.methods())
            if (x.hasPaletteForm()) can += (can.empty() ? "" : ", ") + x.id();
        return fail("method " + m->id() + " cannot halftone to a palette; methods that can: " +
                        (can.empty() ? std::string("none in this build") : can),
                    kExitUsage);
    }

    RunRequest request;
    request.method = m;
    request.params = params;
    request.keepAlpha = o.keepAlpha;
    if (!parseColorMode(o.color, request.color))
        return fail("unknown --color '" + o.color + "'; choose gray, rgb or cmyk", kExitUsage);
    if (!o.palette.empty() && o.colorOption->count() > 0)
        note("--color is not used with --palette: the palette's colours make the output");
    if (!o.palette.empty()) request.color = ColorMode::RGB;  // the output of a palette run is RGB (and indexed)
    if (o.device == "cpu")
        request.device = Device::Cpu;
    else if (o.device == "gpu")
        request.device = Device::Gpu;
    else if (o.device != "auto")
        return fail("unknown --device '" + o.device + "'; choose cpu, gpu or auto", kExitUsage);
    if (o.maxPixels < 0)
        return fail("--max-pixels must be a positive number of pixels, got " + std::to_string(o.maxPixels) +
                        " (there is no unlimited setting: give a larger number)",
                    kExitUsage);
    if (o.maxPixels == 0) return fail("--max-pixels must be at least 1", kExitUsage);

    // Everything about the output is checked before the input is read: nothing is computed for an
    // output that cannot be written.
    if (io::samePath(o.input, o.output))
        return fail("refusing to overwrite the input: '" + o.input + "' and '" + o.output + "' are the same file");
    if (request.color == ColorMode::CMYK && o.palette.empty()) {
        const std::string ext = formatName(o.output);
        if (ext != "TIF" && ext != "TIFF")
            return fail(
                "cannot write '" + o.output + "': only TIFF output holds CMYK; write .tif (or use --color gray or rgb)",
                kExitUsage);
    }
    const bool lossy = io::isLossyFormat(o.output);
    if (lossy && !o.force)
        return fail("cannot write '" + o.output + "': " + formatName(o.output) +
                    " is a lossy format and would blur the halftone's dots into gray; write .png, .tif or .pbm, "
                    "or add --force to write it anyway");
    const int64_t levels = m->param("levels") ? resolved.getInt("levels", 256) : 2;
    if (formatName(o.output) == "PBM" && m->param("levels") && levels > 2)
        return fail("cannot write '" + o.output + "': PBM holds only black and white but --levels is " +
                    std::to_string(levels) + "; write .pgm instead");
    io::OutputLayout layout;
    layout.space = spaceOf(request.color);
    if (Status s = io::checkOutputPath(o.output, layout); !s) return fail(s.message());
    if (lossy)
        note("writing a halftone to " + formatName(o.output) + ", a lossy format: the dots of '" + o.output +
             "' will not be exactly black and white (--force)");

    Image input;
    io::ReadOptions ro;
    ro.maxPixels = uint64_t(o.maxPixels);
    if (!o.maxMemory.empty() && !parseBytes(o.maxMemory, ro.maxMemory))
        return fail("--max-memory '" + o.maxMemory + "' is not a byte count such as 8G or 500M", kExitUsage);
    io::ReadInfo info;
    Status read;
    {
        QuietStderr quiet;
        read = io::readImage(o.input, input, ro, &info);
    }
    if (!read) return fail(read.message());
    if (!info.notes.empty()) note(o.input + ": " + info.notes);
    // Now that the size and alpha are known: formats with size limits, writers refusing alpha.
    layout.alpha = o.keepAlpha && input.hasAlpha;
    layout.width = input.width();
    layout.height = input.height();
    if (Status s = io::checkOutputPath(o.output, layout); !s) return fail(s.message());

    if (autoColors > 0) {
        Palette p;
        if (Status s = autoPalette(input, autoColors, p); !s) return fail(o.input + ": " + s.message());
        if (p.size() < autoColors)
            note("palette " + o.palette + ": '" + o.input + "' has only " + std::to_string(p.size()) +
                 " colours; the palette holds those");
        palette = std::move(p);
    }
    request.palette = palette;
    request.maxMemory = ro.maxMemory;  // the method's planes and working memory count against the same limit
    RunControl control;
    control.threads = int(o.threads);
    if (o.progress) control.onProgress = stderrProgress();

    RunResult result;
    Status s;
    try {
        s = runImage(input, request, result, control);
    } catch (const std::bad_alloc&) {
        s = Status::error("out of memory while halftoning (the method needs more memory than this machine could give)");
    } catch (const std::exception& e) {
        s = Status::error(std::string("the method failed: ") + e.what());
    }
    if (s.isCancelled() || control.cancelled()) return fail("interrupted; no output written", kExitCancelled);
    if (!s) return fail(o.input + ": " + s.message());
    if (!result.note.empty()) note(result.note);
    if (o.time)
        std::fprintf(stderr, "halftone: %s on %s: %.6f s\n", m->id().c_str(), toString(result.device), result.seconds);

    io::WriteOptions wo;
    if (m->param("levels")) {
        wo.levels = int(levels);
    } else {
        bool binary = true;
        for (const Plane8& p : result.image.channels)
            binary = binary && std::all_of(p.data.begin(), p.data.end(), [](uint8_t v) { return v == 0 || v == 255; });
        wo.levels = binary ? 2 : 256;
    }
    // A signal during the write ends the program at once (see installSignalHandlers): the file has no
    // name until it is complete, so nothing is left behind.
    if (o.progress) note("writing '" + o.output + "'");
    Status written;
    {
        QuietStderr quiet;
        written = io::writeImage(o.output, result.image, wo);
    }
    if (const int sig = takeDeferredSignal()) exitForDeferredSignal(sig, o.output, bool(written));
    if (written.isCancelled()) return fail("interrupted; no output written", kExitCancelled);
    if (!written) return fail(written.message());
    if (!o.savePalette.empty()) {
        std::string text;
        Status saved = formatPaletteFile(o.savePalette, *palette, text);
        if (saved) saved = writeTextFile(o.savePalette, text);
        if (saved.isCancelled()) return fail("interrupted; palette not written", kExitCancelled);
        if (!saved) return fail(saved.message());
    }
    return kExitOk;
}

}  // namespace

std::string defaultMethod() { return "ed"; }

std::function<int()> addHalftoneOptions(CLI::App& app) {
    auto o = std::make_shared<Options>();
    app.add_flag("--list", o->list,
                 "print one line per method and variant: method<TAB>variant<TAB>devices<TAB>description");
    app.add_flag("--list-kernels", o->listKernels, "print the error-diffusion kernel names");
    app.add_option("--method", o->method,
                   "method name (see --list); default ed, exact error diffusion (Floyd-Steinberg unless --kernel)");
    std::string defaults;
    for (const std::string& m : Registry::instance().methodNames())
        defaults += (defaults.empty() ? "" : ", ") + m + "/" + Registry::instance().defaultVariant(m);
    app.add_option("--variant", o->variant, "method variant (default, as in the studio: " + defaults + ")");
    o->colorOption = app.add_option("--color", o->color, "colour mode: gray, rgb or cmyk (default gray)");
    app.add_option("--palette", o->palette,
                   "halftone to a colour palette: a built-in name (--list-palettes), a palette file (.hex, .gpl, "
                   ".txt, .act, .pal) or auto:N (N colours from the image); the output is indexed where the format "
                   "allows (PNG, TIFF, GIF)");
    app.add_option("--save-palette", o->savePalette,
                   "also write the palette used (e.g. of auto:N) to this file: .hex, .gpl, .txt, .act or .pal");
    app.add_flag("--list-palettes", o->listPalettes,
                 "print one line per built-in palette: name<TAB>group<TAB>colours<TAB>description");
    app.add_option("--show-palette", o->showPalette,
                   "print the colours of a built-in palette or palette file as a .hex listing, and exit");
    app.add_option("--device", o->device, "cpu, gpu or auto (default auto: GPU when usable and implemented)");
    o->threadsOption = app.add_option("--threads", o->threads, "worker threads for parallel methods (0 = all)");
    app.add_option("--max-pixels", o->maxPixels,
                   "refuse larger images, before decoding them (default 1073741824 = 1 Gpixel; at least 1)");
    app.add_option(
        "--max-memory", o->maxMemory,
        "refuse inputs whose reading or halftoning needs more bytes, e.g. 8G (default: half the physical memory)");
    app.add_flag("--force", o->force, "write a lossy output format (JPEG, WebP, HEIF/AVIF) anyway, with a warning");
    app.add_flag("--keep-alpha", o->keepAlpha, "copy the input's alpha channel into the output");
    app.add_flag("--progress", o->progress, "report progress on stderr");
    app.add_flag("--time", o->time, "print the method's wall time on stderr");
    app.add_option("INPUT", o->input, "input image file");
    app.add_option("OUTPUT", o->output, "output image file (.png, .tif, .pgm, .ppm, .pbm, ...)");

    // Every parameter key of every registered method becomes one option.
    const std::set<std::string> fixed = {"list",         "list-kernels", "list-palettes", "show-palette", "palette",
                                         "save-palette", "method",       "variant",       "color",        "device",
                                         "threads",      "max-pixels",   "max-memory",    "force",        "keep-alpha",
                                         "progress",     "time",         "help",          "version"};
    std::set<std::string> seen;
    for (const MethodInfo& m : Registry::instance().methods())
        for (const ParamSpec& p : m.params) {
            if (fixed.count(p.key) || !seen.insert(p.key).second) continue;
            MethodOption& mo = o->methodOptions.emplace_back();
            mo.key = p.key;
            mo.kind = p.kind;
            std::string help = p.help.empty() ? p.label : p.help;
            const std::string flag = "--" + p.key;
            switch (p.kind) {
                case ParamSpec::Kind::Bool:
                    mo.option = app.add_flag(flag, mo.b, help);
                    break;
                case ParamSpec::Kind::Int:
                    mo.option = app.add_option(flag, mo.i, help);
                    break;
                case ParamSpec::Kind::Real:
                    mo.option = app.add_option(flag, mo.r, help);
                    break;
                case ParamSpec::Kind::Choice:
                    help += " (" + joined(p.choices) + ")";
                    mo.option = app.add_option(flag, mo.s, help);
                    break;
                case ParamSpec::Kind::Text:
                    mo.option = app.add_option(flag, mo.s, help);
                    break;
            }
            mo.option->group("Method parameters");
        }
    return [o] { return run(*o); };
}

}  // namespace halftone::cli
