// The default command: `halftone [--method M] [--variant V] [job options] [method options] INPUT OUTPUT`.
// Method options are generated from the registry's ParamSpecs (app/halftone/jobcli.cpp), so new methods need no
// change here.
#include <unistd.h>

#include <cstdio>
#include <memory>

#include "app/halftone/commands.h"
#include "app/halftone/jobcli.h"
#include "app/halftone/optiontable.h"
#include "app/halftone/stdstreams.h"
#include "core/ed/kernel.h"
#include "core/palette/palette.h"
#include "core/palette/target.h"
#include "core/job/registry.h"

namespace halftone::cli {

namespace {

struct Options {
    bool list = false;
    bool listKernels = false;
    bool listPalettes = false;
    bool listOptions = false;
    const CLI::App* app = nullptr;  ///< the option table, for --list-options
    bool listTargets = false;
    std::string showPalette;
    std::string input, output, outputOption;
    JobOptions job;
    FileOptions file;
};

int printLists(const Options& o) {
    const Registry& registry = Registry::instance();
    const bool json = o.file.json;
    std::string out = json ? "[" : "";
    auto item = [&](const std::string& jsonItem, const std::string& line) {
        if (json)
            out += (out.size() > 1 ? ",\n " : "") + jsonItem;
        else
            out += line + "\n";
    };
    if (o.list)
        for (const MethodInfo& m : registry.methods())
            item("{\"method\":" + jsonString(m.method) + ",\"variant\":" + jsonString(m.variant) +
                     ",\"default\":" + (registry.defaultVariant(m.method) == m.variant ? "true" : "false") +
                     ",\"devices\":" + jsonString(m.devicesString()) + ",\"exact\":" + (m.exact ? "true" : "false") +
                     ",\"name\":" + jsonString(registry.displayName(m.method)) +
                     ",\"description\":" + jsonString(m.description) + "}",
                 m.method + "\t" + m.variant + "\t" + m.devicesString() + "\t" + m.description);
    if (o.listKernels)
        for (const Kernel& k : kernels())
            item("{\"name\":" + jsonString(k.name) + ",\"divisor\":" + std::to_string(k.divisor) +
                     ",\"taps\":" + std::to_string(k.taps.size()) +
                     ",\"level_dependent\":" + (k.levelDependent() ? "true" : "false") + "}",
                 k.name);
    if (o.listPalettes)
        for (const BuiltinPalette& b : builtinPalettes())
            item("{\"name\":" + jsonString(b.name) + ",\"group\":" + jsonString(b.group) + ",\"colours\":" +
                     std::to_string(b.palette.size()) + ",\"description\":" + jsonString(b.description) + "}",
                 b.name + "\t" + b.group + "\t" + std::to_string(b.palette.size()) + "\t" + b.description);
    if (o.listTargets)
        for (const Target& t : builtinTargets()) {
            const std::string size = t.width == 0    ? std::string("any")
                                     : t.height == 0 ? std::to_string(t.width) + " wide"
                                                     : std::to_string(t.width) + "x" + std::to_string(t.height);
            std::string codes, inks;
            for (const TargetInk& k : t.inks) {
                codes += (codes.empty() ? "" : ",") + std::to_string(k.code);
                inks += (inks.empty() ? "{\"name\":" : ",{\"name\":") + jsonString(k.name) +
                        ",\"code\":" + std::to_string(k.code) + ",\"nominal\":" + jsonString(colorText(k.nominal)) +
                        ",\"shown\":" + jsonString(colorText(k.shown)) + "}";
            }
            item("{\"name\":" + jsonString(t.name) + ",\"group\":" + jsonString(t.group) +
                     ",\"width\":" + std::to_string(t.width) + ",\"height\":" + std::to_string(t.height) +
                     ",\"dpi\":" + jsonNumber(t.dpi) + ",\"codes\":[" + codes + "],\"inks\":[" + inks +
                     "],\"source\":" + jsonString(t.source) + ",\"description\":" + jsonString(t.description) + "}",
                 t.name + "\t" + t.group + "\t" + size + "\t" +
                     (t.inks.empty() ? std::string("1-bit")
                                     : std::to_string(t.inks.size()) + " colours, codes " + codes) +
                     "\t" + t.description);
        }
    if (json) out += "]\n";
    if (o.listOptions)
        out = optionList(
            *o.app, [&](const std::string& name) { return o.job.keptInPresets(name); }, json);
    std::fwrite(out.data(), 1, out.size(), stdout);
    return kExitOk;
}

int run(Options& o) {
    setQuiet(o.file.quiet);
    if (int(o.list) + int(o.listKernels) + int(o.listPalettes) + int(o.listTargets) + int(o.listOptions) > 1)
        return fail("give one of --list, --list-kernels, --list-palettes, --list-targets and --list-options at a time",
                    kExitUsage);
    if (o.list || o.listKernels || o.listPalettes || o.listTargets || o.listOptions) return printLists(o);
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
    if (!o.outputOption.empty()) {
        if (!o.output.empty())
            return fail("the output is given twice: -o " + o.outputOption + " and " + o.output + "; give one",
                        kExitUsage);
        o.output = o.outputOption;
    }
    const bool onlySavePreset = !o.job.savePreset.empty() && o.input.empty() && o.output.empty();
    if (o.input.empty() && o.output.empty() && !onlySavePreset)
        return fail("no INPUT and OUTPUT files given (halftone IN OUT; halftone --help shows every option)",
                    kExitUsage);
    if (!onlySavePreset && (o.input.empty() || o.output.empty()))
        return fail(
            "INPUT and OUTPUT files are required (halftone IN OUT, or halftone IN -o OUT; - for standard "
            "input or output)",
            kExitUsage);

    // Every option is checked before any file is read.
    JobSettings job;
    if (const int code = buildJob(o.job, job); code != kExitOk) return code;
    if (const int code = saveJobPreset(o.job, job, {{"INPUT", o.input}}, {{"OUTPUT", o.output}}); code != kExitOk)
        return code;
    uint64_t maxMemory = 0;
    if (const int code = checkFileOptions(o.file, maxMemory); code != kExitOk) return code;
    if (onlySavePreset) return kExitOk;
    const bool fromStdin = o.input == "-", toStdout = o.output == "-";
    if (toStdout && job.format.empty())
        return fail("writing to standard output (OUTPUT -) needs --format: png, tif, pbm, pgm, ppm, gif, ...",
                    kExitUsage);
    if (toStdout && (o.file.plates || !o.file.proof.empty()))
        return fail("--plates and --proof write files beside OUTPUT; give an OUTPUT file, not -", kExitUsage);
    if (toStdout && ::isatty(1))
        return fail("standard output is a terminal; redirect it (> out." + job.format + ") or give an OUTPUT file",
                    kExitUsage);

    if (o.job.given("format") && !fromStdin && !toStdout)
        note("--format names the format of standard input and output (-); '" + o.output +
             "' is written in the format its name says");

    StdStreams streams;
    std::string input = o.input, output = o.output;
    if (fromStdin)
        if (Status s = streams.readStdin(toStdout ? std::string() : job.format, input); !s) return fail(s.message());
    if (toStdout)
        if (Status s = streams.stdoutPath(job.format, output); !s) return fail(s.message());

    RunControl control;
    control.threads = job.threads;
    if (o.file.progress) control.onProgress = stderrProgress();
    // Messages name "-" as "standard input" / "standard output", not the temporary files behind them.
    auto shown = [&](std::string text) {
        for (const auto& [path, name] :
             {std::pair{input, std::string("standard input")}, std::pair{output, std::string("standard output")}})
            if (path != o.input && path != o.output)
                for (size_t at; !path.empty() && (at = text.find(path)) != std::string::npos;)
                    text.replace(at, path.size(), name);
        return text;
    };
    const FileOutcome r = runFile(
        job, o.file, maxMemory, input, output, o.job.savePalette, control,
        [&](const std::string& text) { note(shown(text)); }, {}, o.input, o.output);
    if (r.code != kExitOk) return fail(shown(r.message), r.code);
    if (toStdout)
        if (Status s = streams.copyToStdout(output); !s) return fail(s.message());
    return kExitOk;
}

}  // namespace

std::string defaultMethod() { return "ed"; }

std::function<int()> addHalftoneOptions(CLI::App& app) {
    auto o = std::make_shared<Options>();
    app.add_option("INPUT", o->input, "input image file; - reads standard input (the format from its content)");
    app.add_option("OUTPUT", o->output,
                   "output image file (.png, .tif, .pgm, .ppm, .pbm, ...); - writes standard output (give --format)");
    app.add_option("-o,--output", o->outputOption, "the output file, instead of OUTPUT")
        ->group(group::kOutput)
        ->type_name("FILE");
    addFileOptions(app, o->file);
    app.add_option("--proof", o->file.proof,
                   "with --color cmyk: also write the RGB picture of the plates as printed (process inks on white "
                   "paper) to this file, e.g. proof.png")
        ->group(group::kPrint)
        ->type_name("FILE")
        ->check(nonEmpty());
    addJobOptions(app, o->job);
    app.add_flag("--list", o->list,
                 "print one line per method and variant: method<TAB>variant<TAB>devices<TAB>description")
        ->group(group::kInformation);
    app.add_flag("--list-kernels", o->listKernels, "print the error-diffusion kernel names")
        ->group(group::kInformation);
    app.add_flag("--list-palettes", o->listPalettes,
                 "print one line per built-in palette: name<TAB>group<TAB>colours<TAB>description")
        ->group(group::kInformation);
    app.add_flag("--list-targets", o->listTargets,
                 "print one line per built-in target: name<TAB>group<TAB>size<TAB>colours and driver codes<TAB>"
                 "description")
        ->group(group::kInformation);
    app.add_flag("--list-options", o->listOptions,
                 "print one line per option of the program and its commands: "
                 "name<TAB>value<TAB>commands<TAB>preset (kept by --save-preset) or -<TAB>group")
        ->group(group::kInformation);
    o->app = &app;
    app.add_option("--show-palette", o->showPalette,
                   "print the colours of a built-in palette or palette file as a .hex listing, and exit")
        ->group(group::kInformation)
        ->type_name("NAME|FILE");
    return [o] { return run(*o); };
}

}  // namespace halftone::cli
