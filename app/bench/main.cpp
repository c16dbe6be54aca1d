// halftone-bench: timings of the registered halftoning methods, printed as tables (not a test; never asserts).
// Every method comes from the method registry and runs through its PlaneFunction, like in the CLI and the studio.
#include <CLI/CLI.hpp>

#include <cstdio>
#include <set>
#include <sstream>

#include "app/bench/bench.h"

using namespace halftone;
using namespace halftone::bench;

namespace {

/// `--list`: one line per registered method: id, devices, family, whether its result is bit-exact, and the sections
/// that time it by default; then whether the GPU is usable here. (`halftone --list` describes each method.)
void listMethods() {
    const Registry& r = benchRegistry();
    const GpuAvailability& gpu = r.gpuAvailability();
    std::printf("%-24s %-8s %-16s %-6s %s\n", "method/variant", "devices", "family", "exact", "sections by default");
    for (const MethodInfo& m : r.methods()) {
        std::string in;
        if (m.family != "dbs" && m.cpu) in += "sizes";
        if (m.family == "error-diffusion" && m.cpu) in += ",parallel";
        if (m.family == "dbs") in += "dbs";
        if (m.family == "error-diffusion" && m.gpu) in += in.empty() ? "gpu" : ",gpu";
        if (m.cpu && !m.fixedPalette) in += in.empty() ? "quality" : ",quality";
        std::printf("%-24s %-8s %-16s %-6s %s\n", m.id().c_str(), m.devicesString().c_str(), m.family.c_str(),
                    m.exact ? "yes" : "no", in.c_str());
    }
    if (gpu.usable)
        std::printf("\nGPU: %s\n", gpu.deviceName.c_str());
    else
        std::printf("\nGPU: not usable here (%s): GPU rows are skipped\n", gpu.reason.c_str());
}

bool parseSides(const std::string& s, std::vector<int>& out) {
    if (s.empty()) return true;
    out.clear();
    std::stringstream ss(s);
    std::string item;
    while (std::getline(ss, item, ',')) {
        try {
            size_t used = 0;
            const int v = std::stoi(item, &used);
            if (used != item.size() || v < 0 || v > 65536) return false;
            if (v > 0) out.push_back(v);
        } catch (...) {
            return false;
        }
    }
    return true;
}

}  // namespace

int main(int argc, char** argv) {
    // To add a section: write app/bench/bench_<name>.cpp, declare it in bench.h, add one line here.
    const std::vector<BenchSection> sections = {
        {"sizes",
         "every picked method (default: all but DBS) per --sizes side, ns per pixel, with pamditherbw -fs and "
         "ImageMagick on the same image; the sequential methods give Kasagi, Nakano and Ito's Table V (1)",
         benchSizes},
        {"parallel",
         "one --parallel-size image: every picked method (default: error diffusion), each SIMD path, one thread; "
         "file in/out against pamditherbw -fs and ImageMagick; --big sides with peak memory",
         benchParallel},
        {"dbs", "DBS to convergence on a --dbs-size image, every picked DBS method on the CPU and the GPU", benchDbs},
        {"gpu",
         "device-resident GPU timings: the wavefront kernel against the published methods of Kasagi, Nakano and Ito "
         "and of Deshpande, Misra and Narayanan, --sizes plus 16384 (table in <workdir>/gpu-ed.md)",
         benchGpu},
        {"palette",
         "error diffusion to a colour palette: a --palette-size photo-like image (or --palette-image) to 16 colours, "
         "every method with a palette form against ImageMagick's -remap; the nearest-colour search by palette size",
         benchPalette},
        {"quality",
         "every CPU method with each kernel, scan order and screen the registry offers, on --quality-images (default: "
         "the shipped test images), a ramp and constant patches: HVS error, filtered PSNR, tone error, anisotropy "
         "and one-thread time, as Markdown (docs/quality.md)",
         benchQuality},
    };

    BenchContext ctx;
    std::string which = "sizes,parallel";
    std::string sizes, big, methods, device = "default", dbsSize;
    std::vector<std::string> params;
    std::string kernel;
    bool list = false;
    // the child of a memory run (hidden)
    std::string memId, memDevice = "cpu";
    int memSize = 0;
    std::vector<std::string> memParams;

    CLI::App app{
        "halftone-bench: timings of the registered halftoning methods (median of runs, ns per pixel), with "
        "netpbm's pamditherbw -fs and ImageMagick's convert measured in the same run. Exit status: 0 done, "
        "1 a method failed or gave wrong bits, 2 bad usage."};
    std::string sectionHelp = "comma-separated sections:";
    for (const auto& s : sections) sectionHelp += std::string("\n  ") + s.name + ": " + s.help;
    app.add_flag("--list", list,
                 "print the registered methods the benchmark can run (method/variant, devices) and exit");
    app.add_option("--methods", methods,
                   "comma-separated methods to time, as --list names them (method/variant, or a method for all its "
                   "variants); default: each section's own set");
    app.add_option("--sections", which, sectionHelp)->capture_default_str();
    app.add_option("--device", device, "cpu, gpu or all (default: cpu, and cpu and gpu in the dbs section)");
    app.add_option("--sizes", sizes, "square sides for the sizes and gpu sections, e.g. 1024,2048,4096,8192,16384");
    app.add_option("--runs", ctx.runs, "timed runs per measurement (median)")
        ->check(CLI::Range(1, 1000))
        ->capture_default_str();
    app.add_option("--threads", ctx.threads, "threads for the methods that take a thread count (0 = all)")
        ->check(CLI::Range(0, 1024));
    app.add_option("--param", params,
                   "KEY=VALUE for every picked method that has parameter KEY (repeatable), e.g. --param levels=4; "
                   "the gpu section always times binary Floyd-Steinberg")
        ->allow_extra_args(false);
    app.add_option("--kernel", kernel, "error-diffusion kernel, same as --param kernel=NAME");
    app.add_option("--baseline", ctx.baseline, "method the ratios are taken against")->capture_default_str();
    app.add_option("--parallel-size", ctx.parallelSize, "side of the parallel section's image")
        ->check(CLI::Range(1, 65536))
        ->capture_default_str();
    app.add_option("--big", big, "sides of the memory runs (e.g. 16384,32768; 0 = none)");
    app.add_option("--dbs-size", dbsSize, "WIDTHxHEIGHT of the dbs section's image (default 4096x3072)");
    std::string paletteSize;
    app.add_option("--palette-size", paletteSize, "WIDTHxHEIGHT of the palette section's image (default 6000x4000)");
    app.add_option("--palette-image", ctx.paletteImage, "an image file for the palette section instead");
    app.add_option("--quality-images", ctx.qualityImages,
                   "image files of the quality section (repeatable; default: moon, chelsea and page of tests/data)");
    app.add_option("--workdir", ctx.workDir, "directory for temporary PGM/PBM files")->capture_default_str();
    bool noPam = false, noConvert = false, gpuOnly = false;
    app.add_flag("--no-pamditherbw", noPam, "skip netpbm's pamditherbw -fs");
    app.add_flag("--no-convert", noConvert, "skip ImageMagick's convert");
    app.add_flag("--gpu", gpuOnly, "same as --sections gpu");
    app.add_option("--memory-run", memId)->group("");
    app.add_option("--memory-device", memDevice)->group("");
    app.add_option("--memory-size", memSize)->group("");
    app.add_option("--memory-param", memParams)->group("");
    CLI11_PARSE(app, argc, argv);

    if (!memId.empty()) {
        std::string joined;
        for (const std::string& p : memParams) joined += p + "\n";
        return memoryRunChild(memId, memDevice, memSize, joined);
    }
    if (list) {
        listMethods();
        return 0;
    }
    auto usage = [](const std::string& message) {
        std::fprintf(stderr, "halftone-bench: %s\n", message.c_str());
        return 2;
    };
    if (gpuOnly) which = "gpu";
    ctx.runsDefault = app.count("--runs") == 0;
    ctx.usePamditherbw = !noPam;
    ctx.useConvert = !noConvert;
    if (!parseSides(sizes, ctx.sizes) || !parseSides(big, ctx.bigSizes))
        return usage("--sizes/--big need comma-separated integers between 1 and 65536");
    if (!dbsSize.empty() && (std::sscanf(dbsSize.c_str(), "%dx%d", &ctx.dbsWidth, &ctx.dbsHeight) != 2 ||
                             ctx.dbsWidth < 1 || ctx.dbsHeight < 1 || ctx.dbsWidth > 65536 || ctx.dbsHeight > 65536))
        return usage("--dbs-size needs WIDTHxHEIGHT, e.g. 4096x3072");
    if (!paletteSize.empty() &&
        (std::sscanf(paletteSize.c_str(), "%dx%d", &ctx.paletteWidth, &ctx.paletteHeight) != 2 ||
         ctx.paletteWidth < 1 || ctx.paletteHeight < 1 || ctx.paletteWidth > 65536 || ctx.paletteHeight > 65536))
        return usage("--palette-size needs WIDTHxHEIGHT, e.g. 6000x4000");
    if (device == "cpu")
        ctx.device = DeviceChoice::Cpu;
    else if (device == "gpu")
        ctx.device = DeviceChoice::Gpu;
    else if (device == "all")
        ctx.device = DeviceChoice::All;
    else if (device != "default")
        return usage("unknown --device '" + device + "'; choose cpu, gpu or all");
    if (!methods.empty())
        if (Status s = parseMethodList(methods, ctx.picked); !s) return usage(s.message());

    // --param: each key must belong to some method that may run and its value must suit at least one of them
    // (the others are skipped with a note: a GPU method that has only Floyd-Steinberg, for --kernel jarvis).
    if (!kernel.empty()) params.push_back("kernel=" + kernel);
    for (const std::string& kv : params) {
        const size_t eq = kv.find('=');
        if (eq == std::string::npos || eq == 0) return usage("--param needs KEY=VALUE, got '" + kv + "'");
        const std::string key = kv.substr(0, eq), value = kv.substr(eq + 1);
        bool known = false, accepted = false;
        std::string why;
        for (const MethodInfo& m : benchRegistry().methods()) {
            if (!ctx.picked.empty() && std::find(ctx.picked.begin(), ctx.picked.end(), &m) == ctx.picked.end())
                continue;
            const ParamSpec* spec = m.param(key);
            if (!spec) continue;
            known = true;
            ParamValue v;
            ParamValues one;
            Status s = spec->parse(value, v);
            if (s) {
                one.set(key, v);
                s = benchRegistry().resolveParams(m, one);
            }
            if (s)
                accepted = true;
            else if (why.empty())
                why = m.id() + ": " + s.message();
        }
        if (!known)
            return usage("no " + std::string(ctx.picked.empty() ? "registered" : "picked") +
                         " method has a parameter '" + key + "'");
        if (!accepted) return usage(why);
        ctx.params[key] = value;
    }
    {
        const size_t slash = ctx.baseline.find('/');
        if (slash == std::string::npos ||
            !benchRegistry().find(ctx.baseline.substr(0, slash), ctx.baseline.substr(slash + 1)))
            return usage("unknown --baseline '" + ctx.baseline + "' (halftone-bench --list shows the methods)");
    }

    // check every section name before running any
    std::vector<const BenchSection*> todo;
    std::stringstream ss(which);
    for (std::string name; std::getline(ss, name, ',');) {
        if (name == "table5") name = "sizes";  // the former name of the sizes section
        const BenchSection* found = nullptr;
        for (const auto& s : sections)
            if (name == s.name) found = &s;
        if (!found)
            return usage("unknown section '" + name + "'; choose sizes, parallel, dbs, gpu, palette or quality");
        todo.push_back(found);
    }
    int rc = 0;
    for (const BenchSection* s : todo) rc |= s->run(ctx);
    return rc;
}
