#include "app/halftone/jobcli.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cctype>
#include <filesystem>
#include <new>
#include <optional>
#include <set>
#include <stdexcept>
#include <type_traits>

#include "app/halftone/commands.h"
#include "core/budget.h"
#include "core/number.h"
#include "core/palette.h"
#include "core/prepare.h"
#include "gpu/gpu.h"
#include "io/atomicwrite.h"
#include "io/filejob.h"
#include "io/imagefile.h"
#include "io/preset.h"

namespace halftone::cli {

namespace {

/// When the program's static objects were made: the start of --time's start-up stage.
const std::chrono::steady_clock::time_point kProgramStart = std::chrono::steady_clock::now();

}  // namespace

bool startDeviceFor(const JobSettings& job) {
    if (job.device == "cpu") return false;
    const MethodInfo* m = nullptr;
    if (!jobMethod(job, m) || !m) return false;
    const bool gpuForm =
        job.palette.empty() ? bool(m->gpu) || bool(m->fixedPalette && m->paletteGpu) : bool(m->paletteGpu);
    if (!gpuForm) return false;
    gpu::startInBackground();
    return true;
}

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

}  // namespace

const CLI::Validator& nonEmpty() {
    // An unset shell variable ("--palette $P") gives an empty value: refused, never read as "not given".
    static const CLI::Validator v(
        [](std::string& text) {
            return text.empty() ? std::string("needs a value, got an empty string") : std::string();
        },
        "");
    return v;
}

void addJobOptions(CLI::App& app, JobOptions& o) {
    auto add = [&](const std::string& name, auto& value, const std::string& help, const char* group = nullptr) {
        CLI::Option* opt = app.add_option("--" + name, value, help);
        if constexpr (std::is_same_v<std::decay_t<decltype(value)>, std::string>) opt->check(nonEmpty());
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
                    mo.option = app.add_option(name, mo.s, help)->check(nonEmpty());
                    break;
                case ParamSpec::Kind::Text:
                    mo.option = app.add_option(name, mo.s, help)->check(nonEmpty());
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
    app.add_flag("--time", o.time,
                 "print the method's wall time on stderr, then the start-up and the time of each stage (read, prepare, "
                 "method, write)");
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
    // Every number through its rule (core/number.h), as a preset's are: nothing wraps, clamps or is NaN.
    auto take = [&](const char* option, const char* rule, auto value, auto& field) {
        if (!o.given(option)) return true;
        const CLI::Option* opt = o.options.at(option);
        const NumberText n{double(value), opt->results().empty() ? numberText(double(value)) : opt->results().back()};
        if (Status s = storeNumber(*jobNumberRule(rule), n, field); !s) {
            fail("--" + std::string(option) + " " + s.message(), kExitUsage);
            return false;
        }
        return true;
    };
    if (!take("threads", "threads", o.threads, job.threads) || !take("dpi", "dpi", o.dpi, job.dpi)) return kExitUsage;
    if (job.threads > 0 && m->param("threads")) params.set("threads", int64_t(job.threads));
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
    if (!take("gcr", "gcr", o.gcr, job.separation.gcr) ||
        !take("ink-limit", "ink-limit", o.inkLimit, job.separation.inkLimit))
        return kExitUsage;
    if (Status s = checkSeparation(job.separation); !s) return fail(s.message(), kExitUsage);
    if (o.given("device")) job.device = o.device;
    if (job.device != "cpu" && job.device != "gpu" && job.device != "auto")
        return fail("unknown --device '" + job.device + "'; choose cpu, gpu or auto", kExitUsage);
    if (o.given("keep-alpha")) job.keepAlpha = o.keepAlpha;

    if (o.given("palette")) job.palette = o.palette;
    if (o.given("save-palette") && job.palette.empty())
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
                return fail(s.message(), s.message().rfind("unknown palette", 0) == 0 ? kExitUsage : kExitError);
        }
        if (o.given("color") && job.color != ColorMode::RGB)
            note("--color is not used with --palette: the palette's colours make the output");
    }

    PrepareSettings& p = job.prepare;
    if (!take("width", "width", o.width, p.width) || !take("height", "height", o.height, p.height) ||
        !take("scale", "scale", o.scale, p.scale) || !take("pixel-size", "pixel-size", o.pixelSize, p.pixelSize) ||
        !take("black-point", "black-point", o.blackPoint, p.blackPoint) ||
        !take("white-point", "white-point", o.whitePoint, p.whitePoint) ||
        !take("brightness", "brightness", o.brightness, p.brightness) ||
        !take("contrast", "contrast", o.contrast, p.contrast) || !take("gamma", "gamma", o.gamma, p.gamma) ||
        !take("saturation", "saturation", o.saturation, p.saturation) ||
        !take("sharpen", "sharpen-amount", o.sharpen, p.sharpenAmount) ||
        !take("sharpen-radius", "sharpen-radius", o.sharpenRadius, p.sharpenRadius))
        return kExitUsage;
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
    if (o.given("print-size")) job.printSize = o.printSize;
    if ((o.given("width") || o.given("height") || o.given("scale")) && !job.printSize.empty())
        return fail("--print-size sets the size: leave out --width, --height and --scale", kExitUsage);
    if (Status s = validateJob(job); !s) return fail(s.message(), kExitUsage);
    return kExitOk;
}

int saveJobPreset(const JobOptions& o, const JobSettings& job, std::vector<io::JobFile> inputs,
                  std::vector<io::JobFile> outputs) {
    if (o.savePreset.empty()) return kExitOk;
    // The preset being read may be saved over: it was read whole, and the new file holds its settings and the options.
    inputs.push_back({"--palette", paletteFile(job.palette)});
    outputs.insert(outputs.begin(), {"--save-preset", o.savePreset});
    if (Status s = io::checkOutputsAgainstInputs(outputs, inputs); !s) return fail(s.message());
    if (Status s = io::savePreset(o.savePreset, job); !s) return fail(s.message());
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
    io::FileJobOptions options;
    options.maxPixels = uint64_t(fo.maxPixels);
    options.maxMemory = maxMemory;
    options.force = fo.force;
    options.announceWrite = fo.progress;
    options.savePalette = savePalette;
    options.onNote = onNote;
    if (fo.time)
        options.onRun = [](const MethodInfo& m, const RunResult& r) {
            std::fprintf(stderr, "halftone: %s on %s: %.6f s\n", m.id().c_str(), toString(r.device), r.seconds);
        };
    options.quiet = [] { return std::shared_ptr<void>(std::make_shared<QuietStderr>()); };
    // A signal during the write ends the program at once (see installSignalHandlers): the file has no name until it
    // is complete, so nothing is left behind.
    options.afterWrite = [](const std::string& out, bool written) {
        if (const int sig = takeDeferredSignal()) exitForDeferredSignal(sig, out, written);
    };
    options.writeText = writeTextFile;
    io::FileJobTimes times;
    if (fo.time) options.times = &times;
    const double startup = std::chrono::duration<double>(std::chrono::steady_clock::now() - kProgramStart).count();
    // The device starts while the input is read; a CPU job never starts it.
    const bool deviceStarted = startDeviceFor(job);
    const io::FileJobOutcome r = io::runFileJob(job, input, output, options, control);
    if (deviceStarted) (void)gpu::probe();  // a job that failed before the method waits for the start-up to end
    switch (r.kind) {
        case io::FileJobOutcome::Kind::Written:
            if (fo.time) {
                // The peak resident memory of this program's own address space (VmHWM: unlike getrusage's maxrss it
                // does not carry the peak of a large parent that spawned it).
                double peakMiB = 0;
                if (std::FILE* status = std::fopen("/proc/self/status", "r")) {
                    char line[256];
                    while (std::fgets(line, sizeof line, status))
                        if (std::sscanf(line, "VmHWM: %lf kB", &peakMiB) == 1) {
                            peakMiB /= 1024;
                            break;
                        }
                    std::fclose(status);
                }
                char text[256];
                const double gpuStart = deviceStarted && gpu::probe().usable ? gpu::backgroundStartSeconds() : -1;
                if (gpuStart >= 0)
                    std::snprintf(text, sizeof text,
                                  "halftone: start-up %.6f s; GPU start-up %.6f s beside the read (context, kernels, "
                                  "staging memory)",
                                  startup, gpuStart);
                else
                    std::snprintf(text, sizeof text, "halftone: start-up %.6f s", startup);
                printLine(text);
                std::snprintf(text, sizeof text,
                              "halftone: stages: read %.6f s, prepare %.6f s, method %.6f s, write %.6f s; peak "
                              "memory %.1f MiB",
                              times.read, times.prepare, times.method, times.write, peakMiB);
                printLine(text);
            }
            return {};
        case io::FileJobOutcome::Kind::Usage:
            return {kExitUsage, r.message};
        case io::FileJobOutcome::Kind::Cancelled:
            return {kExitCancelled, r.message};
        case io::FileJobOutcome::Kind::Failed:
            break;
    }
    return {kExitError, r.message};
}

}  // namespace halftone::cli
