// The default command: `halftone [--method M] [--variant V] [job options] [method options] INPUT OUTPUT`.
// Method options are generated from the registry's ParamSpecs (app/halftone/jobcli.cpp), so new methods need no
// change here.
#include <cstdio>
#include <memory>

#include "app/halftone/commands.h"
#include "app/halftone/jobcli.h"
#include "core/kernel.h"
#include "core/palette.h"
#include "core/registry.h"

namespace halftone::cli {

namespace {

struct Options {
    bool list = false;
    bool listKernels = false;
    bool listPalettes = false;
    std::string showPalette;
    std::string input, output;
    JobOptions job;
    FileOptions file;
};

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
    const bool onlySavePreset = !o.job.savePreset.empty() && o.input.empty() && o.output.empty();
    if (o.input.empty() && o.output.empty() && !onlySavePreset)
        return fail("no INPUT and OUTPUT files given (halftone IN OUT; halftone --help shows every option)",
                    kExitUsage);
    if (!onlySavePreset && (o.input.empty() || o.output.empty()))
        return fail("INPUT and OUTPUT files are required", kExitUsage);

    JobSettings job;
    if (const int code = buildJob(o.job, job); code != kExitOk) return code;
    if (const int code = saveJobPreset(o.job, job, {{"INPUT", o.input}}, {{"OUTPUT", o.output}}); code != kExitOk)
        return code;
    uint64_t maxMemory = 0;
    if (const int code = checkFileOptions(o.file, maxMemory); code != kExitOk) return code;
    if (onlySavePreset) return kExitOk;

    RunControl control;
    control.threads = job.threads;
    if (o.file.progress) control.onProgress = stderrProgress();
    const FileOutcome r = runFile(job, o.file, maxMemory, o.input, o.output, o.job.savePalette, control,
                                  [](const std::string& text) { note(text); });
    if (r.code != kExitOk) return fail(r.message, r.code);
    return kExitOk;
}

}  // namespace

std::string defaultMethod() { return "ed"; }

std::function<int()> addHalftoneOptions(CLI::App& app) {
    auto o = std::make_shared<Options>();
    app.add_flag("--list", o->list,
                 "print one line per method and variant: method<TAB>variant<TAB>devices<TAB>description");
    app.add_flag("--list-kernels", o->listKernels, "print the error-diffusion kernel names");
    app.add_flag("--list-palettes", o->listPalettes,
                 "print one line per built-in palette: name<TAB>group<TAB>colours<TAB>description");
    app.add_option("--show-palette", o->showPalette,
                   "print the colours of a built-in palette or palette file as a .hex listing, and exit");
    addFileOptions(app, o->file);
    addJobOptions(app, o->job);
    app.add_option("INPUT", o->input, "input image file");
    app.add_option("OUTPUT", o->output, "output image file (.png, .tif, .pgm, .ppm, .pbm, ...)");
    return [o] { return run(*o); };
}

}  // namespace halftone::cli
