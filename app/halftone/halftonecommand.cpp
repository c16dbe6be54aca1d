// The default command: `halftone --method M [--variant V] [method options] INPUT OUTPUT`.
// Method options are generated from the registry's ParamSpecs, so new methods need no change here.
#include <signal.h>

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <deque>
#include <memory>
#include <new>
#include <stdexcept>
#include <set>

#include "app/halftone/commands.h"
#include "core/budget.h"
#include "core/kernel.h"
#include "core/registry.h"
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
            case ParamSpec::Kind::Int: return i;
            case ParamSpec::Kind::Real: return r;
            case ParamSpec::Kind::Bool: return b;
            default: return s;
        }
    }
};

struct Options {
    bool list = false;
    bool listKernels = false;
    std::string method;
    std::string variant;
    std::string color = "gray";
    std::string device = "auto";
    int64_t threads = 0;
    uint64_t maxPixels = kDefaultMaxPixels;
    std::string maxMemory;  ///< empty: defaultMaxMemory()
    bool keepAlpha = false;
    bool progress = false;
    bool time = false;
    std::string input, output;
    CLI::Option* threadsOption = nullptr;
    std::deque<MethodOption> methodOptions;
};

std::string joined(const std::vector<std::string>& v) {
    std::string s;
    for (const auto& x : v) s += (s.empty() ? "" : ", ") + x;
    return s;
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
    if (o.method.empty()) return fail("--method is required (halftone --list shows the methods)", kExitUsage);
    if (o.input.empty() || o.output.empty()) return fail("INPUT and OUTPUT files are required", kExitUsage);

    const std::vector<std::string> methods = registry.methodNames();
    if (std::find(methods.begin(), methods.end(), o.method) == methods.end())
        return fail("unknown method '" + o.method + "'; choose one of: " + joined(methods), kExitUsage);
    const std::vector<std::string> variants = registry.variants(o.method);
    std::string variant = o.variant;
    if (variant.empty()) variant = registry.defaultVariant(o.method);
    const MethodInfo* m = registry.find(o.method, variant);
    if (!m)
        return fail("method " + o.method + " has no variant '" + variant + "'; choose one of: " + joined(variants),
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

    RunRequest request;
    request.method = m;
    request.params = params;
    request.keepAlpha = o.keepAlpha;
    if (!parseColorMode(o.color, request.color))
        return fail("unknown --color '" + o.color + "'; choose gray, rgb or cmyk", kExitUsage);
    if (o.device == "cpu") request.device = Device::Cpu;
    else if (o.device == "gpu") request.device = Device::Gpu;
    else if (o.device != "auto") return fail("unknown --device '" + o.device + "'; choose cpu, gpu or auto", kExitUsage);
    if (request.color == ColorMode::CMYK) {
        std::string ext = o.output.size() >= 5 ? o.output.substr(o.output.rfind('.') == std::string::npos ? 0 : o.output.rfind('.')) : "";
        std::transform(ext.begin(), ext.end(), ext.begin(), [](unsigned char c) { return char(std::tolower(c)); });
        if (ext != ".tif" && ext != ".tiff")
            return fail("cannot write '" + o.output + "': only TIFF output holds CMYK; write .tif (or use --color gray or rgb)",
                        kExitUsage);
    }
    if (o.maxPixels == 0) return fail("--max-pixels must be at least 1", kExitUsage);

    if (io::samePath(o.input, o.output))
        return fail("refusing to overwrite the input: '" + o.input + "' and '" + o.output + "' are the same file");
    if (Status s = io::checkOutputPath(o.output); !s) return fail(s.message());

    Image input;
    io::ReadOptions ro;
    ro.maxPixels = o.maxPixels;
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

    RunControl control;
    control.threads = int(o.threads);
    if (o.progress) control.onProgress = stderrProgress();
    installInterruptHandler(control.stop);

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
    if (o.time) std::fprintf(stderr, "halftone: %s on %s: %.6f s\n", m->id().c_str(), toString(result.device), result.seconds);

    io::WriteOptions wo;
    if (m->param("levels")) {
        wo.levels = int(resolved.getInt("levels", 256));
    } else {
        bool binary = true;
        for (const Plane8& p : result.image.channels)
            binary = binary && std::all_of(p.data.begin(), p.data.end(), [](uint8_t v) { return v == 0 || v == 255; });
        wo.levels = binary ? 2 : 256;
    }
    // SIGINT/SIGTERM wait until the file is complete (a second Ctrl-C would otherwise kill the
    // process mid-write and leave the temporary file behind).
    Status written;
    {
        sigset_t block, old;
        sigemptyset(&block);
        sigaddset(&block, SIGINT);
        sigaddset(&block, SIGTERM);
        ::sigprocmask(SIG_BLOCK, &block, &old);
        {
            QuietStderr quiet;
            written = io::writeImage(o.output, result.image, wo);
        }
        ::sigprocmask(SIG_SETMASK, &old, nullptr);
    }
    if (!written) return fail(written.message());
    return kExitOk;
}

}  // namespace

std::function<int()> addHalftoneOptions(CLI::App& app) {
    auto o = std::make_shared<Options>();
    app.add_flag("--list", o->list, "print one line per method and variant: method<TAB>variant<TAB>devices<TAB>description");
    app.add_flag("--list-kernels", o->listKernels, "print the error-diffusion kernel names");
    app.add_option("--method", o->method, "method name (see --list), e.g. ed or ec");
    std::string defaults;
    for (const std::string& m : Registry::instance().methodNames())
        defaults += (defaults.empty() ? "" : ", ") + m + "/" + Registry::instance().defaultVariant(m);
    app.add_option("--variant", o->variant, "method variant (default, as in the studio: " + defaults + ")");
    app.add_option("--color", o->color, "colour mode: gray, rgb or cmyk (default gray)");
    app.add_option("--device", o->device, "cpu, gpu or auto (default auto: GPU when usable and implemented)");
    o->threadsOption = app.add_option("--threads", o->threads, "worker threads for parallel methods (0 = all)");
    app.add_option("--max-pixels", o->maxPixels, "refuse larger images (default 1073741824 = 1 Gpixel)");
    app.add_option("--max-memory", o->maxMemory, "refuse inputs whose reading needs more bytes, e.g. 8G (default: half the physical memory)");
    app.add_flag("--keep-alpha", o->keepAlpha, "copy the input's alpha channel into the output");
    app.add_flag("--progress", o->progress, "report progress on stderr");
    app.add_flag("--time", o->time, "print the method's wall time on stderr");
    app.add_option("INPUT", o->input, "input image file");
    app.add_option("OUTPUT", o->output, "output image file (.png, .tif, .pgm, .ppm, .pbm, ...)");

    // Every parameter key of every registered method becomes one option.
    const std::set<std::string> fixed = {"list", "list-kernels", "method", "variant", "color", "device", "threads",
                                         "max-pixels", "max-memory", "keep-alpha", "progress", "time", "help"};
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
                case ParamSpec::Kind::Bool: mo.option = app.add_flag(flag, mo.b, help); break;
                case ParamSpec::Kind::Int: mo.option = app.add_option(flag, mo.i, help); break;
                case ParamSpec::Kind::Real: mo.option = app.add_option(flag, mo.r, help); break;
                case ParamSpec::Kind::Choice:
                    help += " (" + joined(p.choices) + ")";
                    mo.option = app.add_option(flag, mo.s, help);
                    break;
                case ParamSpec::Kind::Text: mo.option = app.add_option(flag, mo.s, help); break;
            }
            mo.option->group("Method parameters");
        }
    return [o] { return run(*o); };
}

}  // namespace halftone::cli
