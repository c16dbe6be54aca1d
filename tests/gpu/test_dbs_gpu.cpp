// GPU DBS against CPU block-parallel DBS, bit for bit, for both GPU layouts (the warp scan and Koge, Ito and
// Nakano's), with and without the warm start (plain C++: the GPU machine has no Qt). Exit code 77 = no usable GPU
// (ctest reports the test as skipped and prints the reason). --small: sizes up to 200 x 131; --sanitize: tiny sizes
// only, so compute-sanitizer's memcheck and racecheck finish in well under two minutes.
#include <cstdio>
#include <cstdlib>
#include <string>
#include <utility>
#include <vector>

#include "core/dbs/dbs.h"
#include "gpu/dbs/dbs_gpu.h"
#include "tests/gpu/gputest.h"
#include "tests/common/testutil.h"

using namespace halftone;

using gputest::check;

int main(int argc, char** argv) {
    const std::string mode = argc > 1 ? argv[1] : "";
    const bool small = mode == "--small", sanitize = mode == "--sanitize";
    {
        Plane8 probe(1, 1, 128), out;
        const Status s = gpu::dbsHalftoneGpu(probe, out, DbsParams{});
        if (s.isUnavailable()) return gputest::skipAll(s.message());
        check(s.isOk(), "1x1: " + s.message());
    }
    std::vector<std::pair<int, int>> sizes = {{1, 1}, {1, 37}, {41, 1}, {67, 53}, {200, 131}, {513, 257}, {1024, 768}};
    if (small) sizes.resize(5);
    if (sanitize) sizes = {{1, 1}, {37, 29}, {67, 53}};
    const std::vector<int> blocks = sanitize ? std::vector<int>{24, 32} : std::vector<int>{24, 32, 128};
    int cases = 0;
    for (const auto& [w, h] : sizes)
        for (int hvs = 0; hvs < (sanitize ? 1 : 2); ++hvs)
            for (int cf = 0; cf < 2; ++cf)
                for (int bs : blocks)
                    for (double warm :
                         sanitize ? std::vector<double>{kDbsWarmStart} : std::vector<double>{0.0, kDbsWarmStart}) {
                        const uint64_t seed = test::freshSeed("dbs gpu");
                        const Plane8 src = test::randomPlane(w, h, seed);
                        DbsParams p;
                        p.schedule = DbsSchedule::Blocks;
                        p.blockSize = bs;
                        p.clipFree = cf;
                        p.seed = seed;
                        p.warmStart = warm;
                        p.hvs.model = hvs ? HvsModel::Nasanen : HvsModel::Gaussian;
                        Plane8 cpu;
                        DbsStats sc;
                        const Status a = dbsHalftone(src, cpu, p, {}, &sc);
                        for (gpu::DbsGpuLayout layout : {gpu::DbsGpuLayout::WarpScan, gpu::DbsGpuLayout::Koge}) {
                            const std::string tag = std::to_string(w) + "x" + std::to_string(h) +
                                                    (hvs ? " nasanen" : " gaussian") + (cf ? " clip-free" : "") +
                                                    " block " + std::to_string(bs) + (warm > 0 ? " warm start" : "") +
                                                    (layout == gpu::DbsGpuLayout::WarpScan ? " warp scan" : " koge");
                            Plane8 gpuOut;
                            DbsStats sg;
                            const Status b = gpu::dbsHalftoneGpu(src, gpuOut, p, {}, &sg, nullptr, layout);
                            check(a.isOk() && b.isOk(), tag + ": " + a.message() + " / " + b.message());
                            if (!a.isOk() || !b.isOk()) continue;
                            size_t diff = 0;
                            for (size_t i = 0; i < cpu.size(); ++i) diff += cpu.data[i] != gpuOut.data[i];
                            check(diff == 0, tag + ": " + std::to_string(diff) + " pixels differ from the CPU");
                            check(sc.iterations == sg.iterations && sc.warmIterations == sg.warmIterations &&
                                      sc.moves == sg.moves,
                                  tag + ": iterations/warm/moves " + std::to_string(sc.iterations) + "/" +
                                      std::to_string(sc.warmIterations) + "/" + std::to_string(sc.moves) +
                                      " on the CPU, " + std::to_string(sg.iterations) + "/" +
                                      std::to_string(sg.warmIterations) + "/" + std::to_string(sg.moves) +
                                      " on the GPU");
                            check(std::abs(sc.error - sg.error) <= 1e-9 + 1e-6 * sc.error, tag + ": error differs");
                            check(std::abs(sc.initialError - sg.initialError) <= 1e-9 + 1e-6 * sc.initialError,
                                  tag + ": initial error differs");
                            ++cases;
                        }
                    }
    // Progress and cancellation.
    {
        const Plane8 src = sanitize ? test::randomPlane(60, 50, test::freshSeed("dbs gpu cancel"))
                                    : test::randomPlane(300, 200, test::freshSeed("dbs gpu cancel"));
        DbsParams p;
        p.schedule = DbsSchedule::Blocks;
        p.blockSize = 24;
        RunControl rc;
        StopToken token = rc.stop;
        int reports = 0;
        rc.onProgress = [&](const Progress& pr) {
            ++reports;
            if (pr.iteration >= 2) token.requestStop();
        };
        Plane8 out;
        const Status s = gpu::dbsHalftoneGpu(src, out, p, rc);
        check(s.isCancelled(), "cancel: got '" + s.message() + "'");
        check(reports >= 2, "cancel: progress was reported");
    }
    // Bad block sizes are errors naming the problem, not crashes: below the filter support, above shared memory.
    {
        DbsParams p;
        p.blockSize = 10;
        Plane8 src(50, 50, 100), out;
        const Status small10 = gpu::dbsHalftoneGpu(src, out, p);
        check(!small10.isOk() && !small10.isUnavailable(), "block 10 refused: " + small10.message());
        p.blockSize = 1024;
        const Status big = gpu::dbsHalftoneGpu(src, out, p);
        check(!big.isOk() && !big.isUnavailable() && big.message().find("shared memory") != std::string::npos,
              "block 1024 refused: " + big.message());
    }
    std::printf("%d GPU/CPU cases compared\n", cases);
    return gputest::finish();
}
