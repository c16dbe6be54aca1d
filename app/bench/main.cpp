// halftone-bench: timings of the project's methods, printed as tables (not a test; never asserts).
// Usage: halftone-bench [--sections table5,parallel] [--sizes 1024,2048] [--runs 5] [--threads N] ...
#include <CLI/CLI.hpp>

#include <cstdio>
#include <sstream>

#include "app/bench/bench.h"

using namespace halftone::bench;

int main(int argc, char** argv) {
    // To add a section: write app/bench/bench_<name>.cpp, declare it in bench.h, add one line here.
    const std::vector<BenchSection> sections = {
        {"table5", "seed 000 Table V (1): sequential ED, EC, ED+RC, EC+RC and pamditherbw -fs per size", benchTable5},
        {"parallel", "issue 3: sequential EC+RC vs seed 002 trapezoid vs wavefront vs pamditherbw, file in/out, 16K/32K",
         benchParallel},
        {"dbs", "issue 6: clip-free DBS to convergence on 4096 x 3072: sequential, CPU block groups, GPU seed layout and ours",
         benchDbs},
        {"gpu", "issue 5: GPU error diffusion, seed 000 Table V (2)-(5): every GPU method and ours, 1K..16K (tables -> workdir/gpu-ed.md)", benchGpu},
    };

    BenchContext ctx;
    std::string which = "table5,parallel";
    std::string sizes, big;
    CLI::App app{"halftone-bench: CPU timings of exact error diffusion (median of runs, ns per pixel)"};
    std::string sectionHelp = "comma-separated sections:";
    for (const auto& s : sections) sectionHelp += std::string("\n  ") + s.name + ": " + s.help;
    app.add_option("--sections", which, sectionHelp)->capture_default_str();
    app.add_option("--sizes", sizes, "square sides for the table5 sweep, e.g. 1024,2048,4096,8192,16384");
    app.add_option("--runs", ctx.runs, "timed runs per measurement (median)")->check(CLI::Range(1, 1000))->capture_default_str();
    app.add_option("--threads", ctx.threads, "threads for the parallel methods (0 = all)")->check(CLI::Range(0, 1024));
    app.add_option("--parallel-size", ctx.parallelSize, "side of the parallel comparison image")
        ->check(CLI::Range(1, 65536))->capture_default_str();
    app.add_option("--big", big, "sides of the memory runs (e.g. 16384,32768; 0 = none)");
    app.add_option("--kernel", ctx.kernel, "kernel for the parallel section")->capture_default_str();
    app.add_option("--workdir", ctx.workDir, "directory for temporary PGM/PBM files")->capture_default_str();
    bool noPam = false, gpuOnly = false;
    app.add_flag("--no-pamditherbw", noPam, "skip the netpbm reference");
    app.add_flag("--gpu", gpuOnly, "the GPU section (seed 000 Table V (2)-(5)); same as --sections gpu");
    CLI11_PARSE(app, argc, argv);
    if (gpuOnly) which = "gpu";
    ctx.usePamditherbw = !noPam;
    auto parseList = [](const std::string& s, std::vector<int>& out) -> bool {
        if (s.empty()) return true;
        out.clear();
        std::stringstream ss(s);
        std::string item;
        while (std::getline(ss, item, ',')) {
            try {
                const int v = std::stoi(item);
                if (v < 0 || v > 65536) return false;
                if (v > 0) out.push_back(v);
            } catch (...) {
                return false;
            }
        }
        return true;
    };
    if (!parseList(sizes, ctx.sizes) || !parseList(big, ctx.bigSizes)) {
        std::fprintf(stderr, "halftone-bench: --sizes/--big need comma-separated integers between 1 and 65536\n");
        return 2;
    }
    int rc = 0;
    std::stringstream ss(which);
    std::string name;
    while (std::getline(ss, name, ',')) {
        bool found = false;
        for (const auto& s : sections)
            if (name == s.name) {
                found = true;
                rc |= s.run(ctx);
            }
        if (!found) {
            std::fprintf(stderr, "halftone-bench: unknown section '%s'\n", name.c_str());
            return 2;
        }
    }
    return rc;
}
