#include "app/halftone/jobcli.h"

#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cctype>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <new>
#include <optional>
#include <fstream>
#include <set>
#include <sstream>
#include <stdexcept>
#include <type_traits>
#include <variant>

#include "app/halftone/commands.h"
#include "core/job/batch.h"
#include "core/budget.h"
#include "core/job/names.h"
#include "core/number.h"
#include "core/palette/palette.h"
#include "core/prepare/prepare.h"
#include "gpu/gpu.h"
#include "io/atomicwrite.h"
#include "io/filejob.h"
#include "io/icc.h"
#include "io/imagefile.h"
#include "io/preset.h"

namespace halftone::cli {

namespace {

/// Seconds from the process's start to the construction of this program's static objects: the dynamic loader's work
/// (mapping and relocating the shared libraries) comes before any of our code runs, so it is read from the kernel's
/// record of the start (/proc/self/stat's starttime, in clock ticks since boot, against CLOCK_BOOTTIME). Accurate to
/// one clock tick (10 ms where USER_HZ is 100); 0 when unknown.
double secondsBeforeMain() {
    std::FILE* f = std::fopen("/proc/self/stat", "r");
    if (!f) return 0;
    char buffer[1024];
    const size_t n = std::fread(buffer, 1, sizeof buffer - 1, f);
    std::fclose(f);
    buffer[n] = '\0';
    // Fields after the command name, which is in parentheses and may hold spaces: state is field 3, starttime 22.
    const char* p = std::strrchr(buffer, ')');
    if (!p) return 0;
    unsigned long long start = 0;
    int field = 2;
    for (const char* q = p + 1; *q && field < 22; ++q)
        if (*q == ' ') {
            ++field;
            if (field == 22) start = std::strtoull(q + 1, nullptr, 10);
        }
    const long ticks = ::sysconf(_SC_CLK_TCK);
    timespec now{};
    if (start == 0 || ticks <= 0 || ::clock_gettime(CLOCK_BOOTTIME, &now) != 0) return 0;
    const double seconds = double(now.tv_sec) + double(now.tv_nsec) * 1e-9 - double(start) / double(ticks);
    return seconds > 0 && seconds < 3600 ? seconds : 0;
}

/// When the program's static objects were made, and how long the process ran before that.
const std::chrono::steady_clock::time_point kProgramStart = std::chrono::steady_clock::now();
const double kSecondsBeforeMain = secondsBeforeMain();

}  // namespace

double secondsSinceStart() {
    return kSecondsBeforeMain + std::chrono::duration<double>(std::chrono::steady_clock::now() - kProgramStart).count();
}

bool startDeviceFor(const JobSettings& job) {
    if (job.device == "cpu") return false;
    const MethodInfo* m = nullptr;
    if (!jobMethod(job, m) || !m) return false;
    const bool gpuForm =
        jobToPalette(job) ? bool(m->paletteGpu) : bool(m->gpu) || bool(m->fixedPalette && m->paletteGpu);
    if (!gpuForm) return false;
    const EdParams likely = edParamsFrom(job.params);  // its kernel and levels pick the wavefront form to load
    gpu::startInBackground(&likely);
    return true;
}

bool JobOptions::given(const std::string& name) const {
    const auto it = options.find(name);
    return it != options.end() && it->second->count() > 0;
}

bool JobOptions::keptInPresets(const std::string& name) const {
    if (name == "preset" || name == "save-preset" || name == "save-palette") return false;
    return options.count(name) > 0 || std::any_of(methodOptions.begin(), methodOptions.end(),
                                                  [&](const MethodOption& m) { return m.key == name; });
}

namespace {

std::string joined(const std::vector<std::string>& v) {
    std::string s;
    for (const auto& x : v) s += (s.empty() ? "" : ", ") + x;
    return s;
}

/// The choice `value` names among `choices` (any case and spelling, core/job/names.h) in `out`; otherwise prints
/// "unknown --OPTION 'value' (did you mean ...?); choose ..." and returns false.
bool chooseWord(const std::string& option, const std::string& value, const std::vector<std::string>& choices,
                std::string& out) {
    out = matchName(option, value, choices);
    if (!out.empty()) return true;
    std::string list;
    for (size_t i = 0; i < choices.size(); ++i)
        list += (i == 0 ? "" : i + 1 == choices.size() ? " or " : ", ") + choices[i];
    fail("unknown --" + option + " '" + value + "'" + didYouMean(value, choices) + "; choose " + list, kExitUsage);
    return false;
}

/// --space and --match, and --linear as --space linear: with a palette (named, or the method's own) they set the job's
/// palette space and match; otherwise --space sets the method's "linear" parameter, as --linear does.
int takeSpaceAndMatch(const JobOptions& o, const MethodInfo& m, JobSettings& job) {
    const bool toPalette = !job.palette.empty() || !job.target.empty() || m.fixedPalette.has_value();
    bool linearFlag = false;
    for (const MethodOption& mo : o.methodOptions)
        if (mo.key == "linear" && mo.option->count() > 0)
            if (const bool* b = std::get_if<bool>(&mo.stored)) linearFlag = *b;
    std::string word;
    if (o.given("space")) {
        if (!chooseWord("space", o.space, {"linear", "gamma"}, word)) return kExitUsage;
        if (linearFlag && word == "gamma")
            return fail("--linear is --space linear: give --space gamma or --linear, not both", kExitUsage);
        if (toPalette)
            parsePaletteSpace(word, job.paletteSpace);
        else if (m.param("linear"))
            job.params.set("linear", word == "linear");
        else
            return fail("--space does not apply to method " + m.id() + " without --palette", kExitUsage);
    }
    if (linearFlag && toPalette) job.paletteSpace = PaletteSpace::Linear;
    if (o.given("match")) {
        if (!chooseWord("match", o.match, {"euclidean", "weighted"}, word)) return kExitUsage;
        if (!toPalette) return fail("--match chooses the nearest palette colour: it needs --palette", kExitUsage);
        parsePaletteMatch(word, job.paletteMatch);
    }
    return kExitOk;
}

/// Output formats suggested for a mistyped --format.
const std::vector<std::string> kOutputFormats = {"png", "tif", "tiff", "pbm", "pgm", "ppm", "gif", "bmp", "webp"};

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
    auto add = [&](const std::string& name, auto& value, const std::string& help, const char* group,
                   const char* type = nullptr) {
        CLI::Option* opt = app.add_option("--" + name, value, help)->group(group);
        if (type) opt->type_name(type);
        if constexpr (std::is_same_v<std::decay_t<decltype(value)>, std::string>) opt->check(nonEmpty());
        o.options[name] = opt;
        return opt;
    };
    auto flag = [&](const std::string& name, bool& value, const std::string& help, const char* group) {
        CLI::Option* opt = app.add_flag("--" + name, value, help)->group(group);
        o.options[name] = opt;
        return opt;
    };
    add("preset", o.preset,
        "start from the job saved in this preset file (JSON); options given here override its settings", group::kInput,
        "FILE");

    const char* prep = group::kPrepare;
    add("width", o.width, "resize to this width in pixels (the height follows the aspect ratio unless given)", prep,
        "PX");
    add("height", o.height, "resize to this height in pixels (the width follows unless given)", prep, "PX");
    add("scale", o.scale, "resize by this factor (e.g. 0.5), when no width or height is given", prep, "F");
    add("fit", o.fit,
        "with width and height: inside (keep the aspect ratio, the default), stretch, cover (fill the frame, crop the "
        "rest by --gravity) or contain (fit inside, letterbox in --background)",
        prep, "MODE");
    add("gravity", o.gravity,
        "the part --fit cover keeps, the side --fit contain places the image on: center (default), north, south, east, "
        "west, northeast, northwest, southeast or southwest",
        prep, "NAME");
    add("rotate", o.rotate,
        "turn 90, 180 or 270 degrees clockwise after the file's EXIF orientation, which is always applied (auto, the "
        "default)",
        prep, "DEG");
    add("background", o.background,
        "flatten transparency onto this colour (#RRGGBB or a name: white, black, ...) and fill the --fit contain "
        "letterbox with it (default white)",
        prep, "COLOUR");
    add("resize-filter", o.resizeFilter, "lanczos (default), bicubic, box or nearest", prep, "NAME");
    add("resize-space", o.resizeSpace, "resample in linear light (linear, the default) or on the values (gamma)", prep,
        "SPACE");
    add("pixel-size", o.pixelSize,
        "halftone at 1/N of the size and enlarge each pixel to N x N (the pixel-art look); default 1", prep, "N");
    add("black-point", o.blackPoint, "input level that becomes black (levels; default 0)", prep, "0..255");
    add("white-point", o.whitePoint, "input level that becomes white (levels; default 255)", prep, "0..255");
    add("brightness", o.brightness, "adds brightness x 2.55 to every level (default 0)", prep, "-100..100");
    add("contrast", o.contrast, "steeper (> 0) or flatter (< 0) about mid-gray; 100 = a threshold", prep, "-100..100");
    add("gamma", o.gamma, "> 1 lightens the mid-tones, < 1 darkens them (default 1)", prep, "0.1..10");
    add("saturation", o.saturation, "percent for colour images: 0 = gray, 100 = unchanged (default)", prep, "0..400");
    add("sharpen", o.sharpen, "unsharp mask strength in percent (default 0 = off)", prep, "0..500");
    add("sharpen-radius", o.sharpenRadius, "unsharp mask radius in pixels (default 1)", prep, "0.3..50");

    add("method", o.method,
        "method name (--list; halftone help METHOD); default ed, exact error diffusion (Floyd-Steinberg unless "
        "--kernel). Names are matched without regard to case; fs and floyd name ed",
        group::kMethod, "NAME");
    std::string defaults;
    for (const std::string& m : Registry::instance().methodNames())
        defaults += (defaults.empty() ? "" : ", ") + m + "/" + Registry::instance().defaultVariant(m);
    add("variant", o.variant, "method variant (default, as in the studio: " + defaults + ")", group::kMethod, "NAME");

    const char* colour = group::kColour;
    add("color", o.color, "colour mode: gray, rgb or cmyk (default gray)", colour, "MODE");
    add("gcr", o.gcr,
        "with --color cmyk: percent of the grey common to C, M and Y printed with black instead (grey component "
        "replacement; default 100)",
        colour, "0..100");
    add("ink-limit", o.inkLimit,
        "with --color cmyk: total ink limit, C + M + Y + K in percent (default 400 = no limit)", colour, "0..400");
    add("dot-gain", o.dotGain,
        "with --color cmyk: compensate each ink's dot gain on press before screening: the gain at 50 % in percent "
        "for every ink (e.g. 15), four of them for C,M,Y,K, or a curve file (lines NOMINAL PRINTED, or NOMINAL C M Y "
        "K, in percent)",
        colour, "PERCENT|C,M,Y,K|FILE");
    add("icc-out", o.iccOut,
        "with --color cmyk: separate through this CMYK output profile (ICC, with LittleCMS) instead of the built-in "
        "formula; the profile sets the black generation and the ink limit (then --gcr does not apply, --ink-limit "
        "caps the total further)",
        colour, "FILE");
    add("icc-in", o.iccIn, "with --icc-out: the input's RGB profile (default sRGB)", colour, "FILE");
    add("intent", o.intent,
        "with --icc-out: rendering intent: relative (relative colorimetric with black-point compensation, the "
        "default), perceptual, saturation or absolute",
        colour, "NAME");
    add("palette", o.palette,
        "halftone to a colour palette: a built-in name (--list-palettes), a palette file (.hex, .gpl, .txt, .act, "
        ".pal) or auto:N (N colours from the image); the output is indexed where the format allows (PNG, TIFF)",
        colour, "NAME|FILE|auto:N");
    add("target", o.target,
        "halftone for a device (--list-targets) or a target file (.json with measured colours): its frame (with --fit "
        "cover), its resolution, the colours it shows and the indices its driver expects",
        colour, "NAME|FILE");
    add("tone", o.tone,
        "with --palette or --target: map the image's lightness onto the palette's darkest..lightest: none (default), "
        "auto (linear in L*, shadows and highlights kept) or s-curve (more mid-tone contrast)",
        colour, "MODE");
    add("gamut", o.gamut,
        "with --palette or --target: colours the palette cannot mix, in CIELAB at constant L* and hue: none "
        "(default), clip (onto the gamut's surface) or compress (the outer 30 % of the gamut takes the rest)",
        colour, "MODE");
    add("save-palette", o.savePalette,
        "also write the palette used (e.g. of auto:N) to this file: .hex, .gpl, .txt, .act or .pal", colour, "FILE");
    add("space", o.space,
        "working space of error diffusion: linear (sRGB decoded; the default with --palette) or gamma (the 8-bit "
        "values; the default of gray and per-channel colour). --linear is --space linear",
        colour, "linear|gamma");
    add("match", o.match,
        "with --palette: how the nearest colour is found: euclidean (dR^2 + dG^2 + dB^2, the default) or weighted "
        "(299 dR^2 + 587 dG^2 + 114 dB^2)",
        colour, "euclidean|weighted");
    flag("keep-alpha", o.keepAlpha,
         "copy the input's alpha channel into the output (with --palette a PNG stays indexed: its transparency in a "
         "tRNS chunk)",
         colour);

    add("print-size", o.printSize, "resize to a print size at --dpi: 6x4in, 15x10cm, 210x297mm", group::kPrint,
        "WxHUNIT");
    add("dpi", o.dpi,
        "device resolution in dots per inch: the resolution of --print-size, written into the output file, and the "
        "printer resolution of methods that model one (DBS, AM screens)",
        group::kPrint, "DPI");

    add("format", o.format,
        "output format by extension (png, tif, pbm, pgm, gif, ...): of batch outputs (default png) and of "
        "standard output (OUTPUT -); also names the format of standard input when its content does not",
        group::kOutput, "EXT");
    add("save-preset", o.savePreset,
        "save the job these options describe to a preset file (JSON); without INPUT and OUTPUT, only that",
        group::kOutput, "FILE");

    add("device", o.device,
        "cpu, gpu or auto (default auto: the faster of the two for the job, by measured costs; --time says why)",
        group::kPerformance, "DEVICE");
    add("threads", o.threads, "worker threads for parallel methods (default 0 = every processor this process may use)",
        group::kPerformance, "N");

    // Every parameter key of every registered method becomes one option (unless a job option has the name: --dpi
    // goes to the methods that have a dpi parameter), in a group of the first method that has it.
    std::set<std::string> seen;
    const Registry& registry = Registry::instance();
    for (const MethodInfo& m : registry.methods())
        for (const ParamSpec& p : m.params) {
            if (o.options.count(p.key) || !seen.insert(p.key).second) continue;
            if (app.get_option_no_throw("--" + p.key)) continue;  // a command's own option of that name
            MethodOption& mo = o.methodOptions.emplace_back();
            mo.key = p.key;
            std::string help = p.help.empty() ? p.label : p.help;
            std::vector<std::string> others;
            for (const std::string& name : registry.methodNames())
                if (name != m.method)
                    for (const std::string& v : registry.variants(name))
                        if (registry.find(name, v)->param(p.key)) {
                            others.push_back(name);
                            break;
                        }
            const std::string name = "--" + p.key;
            // The value is stored as the type of the parameter's default; CLI11 parses into that type.
            mo.stored =
                std::visit([](const auto& d) { return ParamValue(std::decay_t<decltype(d)>{}); }, p.defaultValue());
            std::visit(
                [&](auto& x) {
                    using T = std::decay_t<decltype(x)>;
                    if constexpr (std::is_same_v<T, bool>)
                        mo.option = app.add_flag(name, x, help);
                    else if constexpr (std::is_same_v<T, int64_t>)
                        mo.option = app.add_option(name, x, help)->type_name("N");
                    else if constexpr (std::is_same_v<T, double>)
                        mo.option = app.add_option(name, x, help)->type_name("X");
                    else if (p.choices.empty())
                        mo.option = app.add_option(name, x, help)->type_name("TEXT")->check(nonEmpty());
                    else
                        mo.option = app.add_option(name, x, help + " (" + joined(p.choices) + ")")
                                        ->type_name("NAME")
                                        ->check(nonEmpty());
                },
                mo.stored);
            if (!others.empty()) mo.option->description(mo.option->get_description() + "; also " + joined(others));
            mo.option->group("Method options of " + m.method + " (" + registry.displayName(m.method) + ")");
        }
}

void addFileOptions(CLI::App& app, FileOptions& o) {
    o.maxPixels = int64_t(kDefaultMaxPixels);
    app.add_option("--max-pixels", o.maxPixels,
                   "refuse larger images, before decoding them (default 1073741824 = 1 Gpixel; at least 1)")
        ->group(group::kInput)
        ->type_name("N");
    app.add_flag("--force", o.force, "write a lossy output format (JPEG, WebP, HEIF/AVIF) anyway, with a warning")
        ->group(group::kOutput);
    app.add_option("--compress", o.compress,
                   "PNG and TIFF compression: fast (the default: zlib level 1, a halftone's dots barely compress "
                   "further), default (level 6), best (level 9) or a level 0..9")
        ->group(group::kOutput)
        ->type_name("fast|default|best|0..9");
    app.add_flag("-q,--quiet", o.quiet, "no notes and no per-file lines on stderr; errors are still printed")
        ->group(group::kOutput);
    app.add_flag("--progress", o.progress, "report progress on stderr")->group(group::kOutput);
    app.add_flag("--time", o.time,
                 "print the method's wall time on stderr, then the start-up (library loading included) and the time of "
                 "each stage (read, prepare, method, write); under batch one block per file")
        ->group(group::kOutput);
    app.add_flag("--json", o.json,
                 "with --time: one JSON object per file on stderr instead; with --list, --list-kernels, "
                 "--list-palettes, --list-options: a JSON array on stdout")
        ->group(group::kOutput);
    app.add_flag("--plates", o.plates,
                 "with --color cmyk: write one 1-bit TIFF per ink, named after OUTPUT and the ink (plates-cyan.tif, "
                 "plates-magenta.tif, ...: bilevel, 1 = ink, the ink in PageName, the resolution) instead of one file "
                 "of four "
                 "inks")
        ->group(group::kPrint);
    app.add_option("--max-memory", o.maxMemory,
                   "refuse inputs whose reading or halftoning needs more bytes, e.g. 8G (default: half the memory this "
                   "process may use: physical memory or the cgroup's limit)")
        ->group(group::kPerformance)
        ->type_name("BYTES");
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
    applyJobDpi(*m, job.dpi, params);
    ParamValues resolved = params;
    if (Status s = Registry::instance().resolveParams(*m, resolved); !s) return fail(s.message(), kExitUsage);
    // The values as resolved ("fs" -> floyd-steinberg), so that a preset holds the names the studio shows.
    job.params = ParamValues{};
    for (const auto& [key, value] : params.all()) job.params.set(key, resolved.all().at(key));

    if (o.given("color")) {
        std::string color;
        if (!chooseWord("color", o.color, {"gray", "grey", "rgb", "cmyk"}, color)) return kExitUsage;
        parseColorMode(color, job.color);
    }
    if (o.given("dot-gain")) {
        // A number or four: percents at 50 %; otherwise the name of a curve file.
        const bool numbers = o.dotGain.find_first_not_of("0123456789.,+- ") == std::string::npos;
        if (numbers) {
            if (Status s = parseDotGainPercents(o.dotGain, job.dotGain); !s) return fail(s.message(), kExitUsage);
        } else {
            std::ifstream in(o.dotGain, std::ios::binary);
            std::stringstream text;
            text << in.rdbuf();
            if (!in) return fail("cannot read --dot-gain curve file '" + o.dotGain + "'", kExitUsage);
            if (Status s = parseDotGainCurve(text.str(), job.dotGain); !s)
                return fail("--dot-gain curve file '" + o.dotGain + "': " + s.message(), kExitUsage);
        }
    }
    for (const char* sep : {"gcr", "ink-limit", "dot-gain", "icc-out", "icc-in", "intent"})
        if (o.given(sep) && job.color != ColorMode::CMYK)
            return fail(std::string("--") + sep + " applies only to --color cmyk (the separation into inks)",
                        kExitUsage);
    if (!take("gcr", "gcr", o.gcr, job.separation.gcr) ||
        !take("ink-limit", "ink-limit", o.inkLimit, job.separation.inkLimit))
        return kExitUsage;
    if (Status s = checkSeparation(job.separation); !s) return fail(s.message(), kExitUsage);
    if (o.given("icc-out")) job.icc.output = o.iccOut;
    if (o.given("icc-in")) job.icc.input = o.iccIn;
    if (o.given("intent")) {
        std::string intent;
        if (!chooseWord("intent", o.intent, {"perceptual", "relative", "saturation", "absolute"}, intent))
            return kExitUsage;
        parseRenderingIntent(intent, job.icc.intent);
    }
    if (!job.icc.empty() && o.given("gcr"))
        return fail("--gcr does not apply with --icc-out '" + job.icc.output +
                        "': the profile sets the black generation; leave out --gcr",
                    kExitUsage);
    if (o.given("device") && !chooseWord("device", o.device, {"cpu", "gpu", "auto"}, job.device)) return kExitUsage;
    if (job.device != "cpu" && job.device != "gpu" && job.device != "auto")
        return fail("unknown --device '" + job.device + "'; choose cpu, gpu or auto", kExitUsage);
    if (o.given("keep-alpha")) job.keepAlpha = o.keepAlpha;

    if (o.given("palette")) job.palette = o.palette;
    if (const BuiltinPalette* b = findBuiltinPalette(job.palette)) job.palette = b->name;  // "ACEP7" -> acep7
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
    if (o.given("target")) {
        job.target = o.target;
        if (const Target* t = findBuiltinTarget(job.target)) job.target = t->name;  // "Inky-Impression-5.7"
    }
    if (!job.target.empty()) {
        Target t;
        if (Status s = resolveTarget(job.target, t); !s) return fail(s.message(), kExitUsage);
        if (!job.palette.empty())
            return fail("--target " + t.name + " brings its colours: leave out --palette", kExitUsage);
    }
    std::string word;
    if (o.given("tone")) {
        if (!chooseWord("tone", o.tone, {"none", "auto", "s-curve"}, word)) return kExitUsage;
        parseToneMap(word, job.tone);
    }
    if (o.given("gamut")) {
        if (!chooseWord("gamut", o.gamut, {"none", "clip", "compress"}, word)) return kExitUsage;
        parseGamutMap(word, job.gamut);
    }
    if (int rc = takeSpaceAndMatch(o, *m, job); rc != kExitOk) return rc;

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
        if (!chooseWord("fit", o.fit, {"inside", "stretch", "cover", "contain"}, word)) return kExitUsage;
        parseResizeFit(word, p.fit);
    }
    if (o.given("gravity")) {
        if (!chooseWord(
                "gravity", o.gravity,
                {"center", "north", "south", "east", "west", "northeast", "northwest", "southeast", "southwest"}, word))
            return kExitUsage;
        parseGravity(word, p.gravity);
    }
    if (o.given("rotate")) {
        if (!chooseWord("rotate", o.rotate, {"auto", "0", "90", "180", "270"}, word)) return kExitUsage;
        p.rotate = word == "auto" ? 0 : std::stoi(word);
    }
    if (o.given("background")) {
        Rgb8 c{};
        if (!parseColorText(o.background, c))
            return fail("--background '" + o.background +
                            "' is not a colour; give #RRGGBB, #RGB or a name (white, black, gray, red, green, blue, "
                            "yellow, cyan, magenta, orange)",
                        kExitUsage);
        p.background = c;
    }
    if (o.given("resize-filter")) {
        if (!chooseWord("resize-filter", o.resizeFilter, {"lanczos", "bicubic", "box", "nearest"}, word))
            return kExitUsage;
        parseResizeFilter(word, p.filter);
    }
    if (o.given("resize-space")) {
        if (!chooseWord("resize-space", o.resizeSpace, {"linear", "gamma"}, word)) return kExitUsage;
        p.linearResize = word == "linear";
    }
    if (o.given("print-size")) job.printSize = o.printSize;
    if (o.given("format")) {
        std::string f = o.format;
        if (!f.empty() && f[0] == '.') f.erase(0, 1);
        std::transform(f.begin(), f.end(), f.begin(), [](unsigned char c) { return char(std::tolower(c)); });
        if (f.empty() || !isImageFileName("x." + f))
            return fail("unknown --format '" + o.format + "'" + didYouMean(f, kOutputFormats) +
                            "; give an image file extension such as png, tif, pbm or gif",
                        kExitUsage);
        job.format = f;
    }
    if ((o.given("width") || o.given("height") || o.given("scale")) && !job.printSize.empty())
        return fail("--print-size sets the size: leave out --width, --height and --scale", kExitUsage);
    if (Status s = validateJob(job); !s) return fail(s.message(), kExitUsage);
    if (!job.icc.empty()) {
        // The profiles are read now: a bad one is refused before any input is read.
        std::shared_ptr<const io::IccSeparator> separator;
        if (Status s = io::IccSeparator::load(job.icc, separator); !s) return fail(s.message());
    }
    return kExitOk;
}

int saveJobPreset(const JobOptions& o, const JobSettings& job, std::vector<io::JobFile> inputs,
                  std::vector<io::JobFile> outputs) {
    if (o.savePreset.empty()) return kExitOk;
    // The preset being read may be saved over: it was read whole, and the new file holds its settings and the options.
    inputs.push_back({"--palette", paletteFile(job.palette)});
    inputs.push_back({"--target", targetFile(job.target)});
    inputs.push_back({"--icc-in", job.icc.input});
    inputs.push_back({"--icc-out", job.icc.output});
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
    int level = 0;
    if (Status s = io::parseCompression(o.compress, level); !s) return fail("--compress: " + s.message(), kExitUsage);
    return kExitOk;
}

FileOutcome runFile(const JobSettings& job, const FileOptions& fo, uint64_t maxMemory, const std::string& input,
                    const std::string& output, const std::string& savePalette, const RunControl& control,
                    const std::function<void(const std::string&)>& onNote, const std::string& label,
                    const std::string& shownInput, const std::string& shownOutput) {
    io::FileJobOptions options;
    options.maxPixels = uint64_t(fo.maxPixels);
    options.maxMemory = maxMemory;
    options.force = fo.force;
    if (!io::parseCompression(fo.compress, options.compressLevel))  // checked by checkFileOptions
        options.compressLevel = io::kCompressFast;
    options.concurrentRuns = fo.concurrentRuns;
    options.announceWrite = fo.progress;
    options.savePalette = savePalette;
    options.plates = fo.plates;
    options.proof = fo.proof;
    options.onNote = onNote;
    // --time's figures, printed together once the file is written (one write: the lines of files that run at once
    // never interleave, and stderr silenced for another file's decoder does not swallow them).
    std::string methodId, device, choice;
    double methodSeconds = 0;
    if (fo.time)
        options.onRun = [&](const MethodInfo& m, const RunResult& r) {
            methodId = m.id();
            device = toString(r.device);
            methodSeconds = r.seconds;
            choice = r.choice;
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
                const gpu::StartTimes gpuStart =
                    deviceStarted && gpu::probe().usable ? gpu::backgroundStartTimes() : gpu::StartTimes{};
                // Start-up: the dynamic loader's work, the checks and the OpenImageIO module's loading (on first need):
                // for one file all the time outside its stages, for a batch's files the time before the first file
                // and the module's loading this file waited for.
                const double startup =
                    fo.batchStartup >= 0 ? fo.batchStartup + times.load
                                         : std::max(0.0, secondsSinceStart() -
                                                             (times.read + times.prepare + times.method + times.write));
                if (fo.json) {
                    std::string j = "{\"input\":" + jsonString(shownInput.empty() ? input : shownInput) +
                                    ",\"output\":" + jsonString(shownOutput.empty() ? output : shownOutput) +
                                    ",\"method\":" + jsonString(methodId) + ",\"device\":" + jsonString(device) +
                                    ",\"method_s\":" + jsonNumber(methodSeconds) +
                                    ",\"startup_s\":" + jsonNumber(startup);
                    if (gpuStart.total >= 0)
                        j += ",\"gpu_startup_s\":" + jsonNumber(gpuStart.total) +
                             ",\"gpu_context_s\":" + jsonNumber(gpuStart.context) +
                             ",\"gpu_kernels_s\":" + jsonNumber(gpuStart.kernels) +
                             ",\"gpu_staging_s\":" + jsonNumber(gpuStart.staging);
                    if (!choice.empty()) j += ",\"device_choice\":" + jsonString(choice);
                    j += ",\"read_s\":" + jsonNumber(times.read) + ",\"prepare_s\":" + jsonNumber(times.prepare) +
                         ",\"stage_method_s\":" + jsonNumber(times.method) + ",\"write_s\":" + jsonNumber(times.write) +
                         ",\"peak_memory_mib\":" + jsonNumber(std::round(peakMiB * 10) / 10) + "}";
                    printLine(j);
                    return {};
                }
                const std::string prefix = "halftone: " + (label.empty() ? std::string() : label + ": ");
                char text[256];
                std::vector<std::string> lines;
                std::snprintf(text, sizeof text, "%s on %s: %.6f s", methodId.c_str(), device.c_str(), methodSeconds);
                lines.push_back(prefix + text);
                if (!choice.empty()) lines.push_back(prefix + "device " + choice);
                if (gpuStart.total >= 0)
                    std::snprintf(text, sizeof text,
                                  "start-up %.6f s; GPU start-up %.6f s beside the read (context %.6f s, kernels "
                                  "%.6f s, staging memory %.6f s)",
                                  startup, gpuStart.total, gpuStart.context, gpuStart.kernels, gpuStart.staging);
                else
                    std::snprintf(text, sizeof text, "start-up %.6f s", startup);
                lines.push_back(prefix + text);
                std::snprintf(text, sizeof text,
                              "stages: read %.6f s, prepare %.6f s, method %.6f s, write %.6f s; peak memory %.1f MiB",
                              times.read, times.prepare, times.method, times.write, peakMiB);
                lines.push_back(prefix + text);
                printLines(lines);
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
