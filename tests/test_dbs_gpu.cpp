// GPU DBS against CPU block-parallel DBS, bit for bit (plain C++: the GPU machine has no Qt).
// Exit code 77 = no usable GPU (ctest reports the test as skipped and prints the reason).
#include <cstdio>
#include <cstdlib>
#include <string>

#include "core/dbs.h"
#include "gpu/dbs_gpu.h"
#include "tests/testutil.h"

using namespace halftone;

namespace {
int failures = 0;
void check(bool ok, const std::string& what) {
    if (!ok) {
        ++failures;
        std::printf("FAIL: %s\n", what.c_str());
    }
}
}  // namespace

int main(int argc, char** argv) {
    const bool small = argc > 1 && std::string(argv[1]) == "--small";
    {
        Plane8 probe(1, 1, 128), out;
        const Status s = gpu::dbsHalftoneGpu(probe, out, DbsParams{});
        if (s.isUnavailable()) {
            std::printf("SKIP: %s\n", s.message().c_str());
            return 77;
        }
        check(s.isOk(), "1x1: " + s.message());
    }
    const int sizes[][2] = {{1, 1}, {1, 37}, {41, 1}, {67, 53}, {200, 131}, {513, 257}, {1024, 768}};
    const int nSizes = small ? 5 : 7;
    int cases = 0;
    for (int si = 0; si < nSizes; ++si)
        for (int hvs = 0; hvs < 2; ++hvs)
            for (int cf = 0; cf < 2; ++cf)
                for (int bs : {24, 32, 128}) {
                    const int w = sizes[si][0], h = sizes[si][1];
                    const uint64_t seed = test::freshSeed("dbs gpu");
                    const Plane8 src = test::randomPlane(w, h, seed);
                    DbsParams p;
                    p.schedule = DbsSchedule::Blocks;
                    p.blockSize = bs;
                    p.clipFree = cf;
                    p.seed = seed;
                    p.hvs.model = hvs ? HvsModel::Nasanen : HvsModel::Gaussian;
                    Plane8 cpu, gpuOut;
                    DbsStats sc, sg;
                    const std::string tag = std::to_string(w) + "x" + std::to_string(h) + (hvs ? " nasanen" : " gaussian") +
                                            (cf ? " clip-free" : "") + " block " + std::to_string(bs);
                    const Status a = dbsHalftone(src, cpu, p, {}, &sc);
                    const Status b = gpu::dbsHalftoneGpu(src, gpuOut, p, {}, &sg);
                    check(a.isOk() && b.isOk(), tag + ": " + a.message() + " / " + b.message());
                    if (!a.isOk() || !b.isOk()) continue;
                    size_t diff = 0;
                    for (size_t i = 0; i < cpu.size(); ++i) diff += cpu.data[i] != gpuOut.data[i];
                    check(diff == 0, tag + ": " + std::to_string(diff) + " pixels differ from the CPU");
                    check(sc.iterations == sg.iterations && sc.moves == sg.moves,
                          tag + ": iterations/moves " + std::to_string(sc.iterations) + "/" + std::to_string(sc.moves) +
                              " on the CPU, " + std::to_string(sg.iterations) + "/" + std::to_string(sg.moves) + " on the GPU");
                    check(std::abs(sc.error - sg.error) <= 1e-9 + 1e-6 * sc.error, tag + ": error differs");
                    ++cases;
                }
    // Progress and cancellation.
    {
        const Plane8 src = test::randomPlane(300, 200, test::freshSeed("dbs gpu cancel"));
        DbsParams p;
        p.schedule = DbsSchedule::Blocks;
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
    // Bad block size is an error, not a crash.
    {
        DbsParams p;
        p.blockSize = 10;
        Plane8 src(50, 50, 100), out;
        check(!gpu::dbsHalftoneGpu(src, out, p).isOk(), "block 10 refused");
    }
    std::printf("%d GPU/CPU cases compared, %d failures\n", cases, failures);
    return failures ? 1 : 0;
}
