// Stand-alone timer of what a program pays for one plane on the GPU, host memory to host memory (the studio's run):
// gpu::runPlane and gpu::runPlanePacked from pageable memory, the first run (device buffers allocated) and warm runs
// (kept), against runImage of the same method on the CPU threads. Prints one line per measurement; the results go to
// docs/performance.md by hand, never into a test.
// bench_hostpath [--size N] [--runs R] [--threads T]
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "core/errordiffusion.h"
#include "core/registry.h"
#include "gpu/gpu.h"
#include "tests/common/testutil.h"

using namespace halftone;
using Clock = std::chrono::steady_clock;

namespace {

double msSince(Clock::time_point t0) { return std::chrono::duration<double, std::milli>(Clock::now() - t0).count(); }

double median(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return v.empty() ? 0 : v[v.size() / 2];
}

void line(const char* what, double first, const std::vector<double>& warm) {
    std::printf("%-58s first %8.2f ms  warm median %8.2f ms  min %8.2f ms (%zu runs)\n", what, first, median(warm),
                warm.empty() ? 0 : *std::min_element(warm.begin(), warm.end()), warm.size());
    std::fflush(stdout);
}

}  // namespace

int main(int argc, char** argv) {
    int n = 16384, runs = 7, threads = 16;
    for (int i = 1; i + 1 < argc; i += 2) {
        const std::string a = argv[i];
        if (a == "--size") n = std::atoi(argv[i + 1]);
        if (a == "--runs") runs = std::atoi(argv[i + 1]);
        if (a == "--threads") threads = std::atoi(argv[i + 1]);
    }
    gpu::registerMethods(Registry::instance());
    const auto t0 = Clock::now();
    gpu::startInBackground();
    const GpuAvailability a = gpu::probe();
    const double probeMs = msSince(t0);
    const double startMs = gpu::backgroundStartSeconds() * 1000;
    if (!a.usable) {
        std::printf("no usable GPU: %s\n", a.reason.c_str());
        return 77;
    }
    std::printf("device: %s; %d x %d; probe waited %.1f ms; background start-up %.1f ms\n", a.deviceName.c_str(), n, n,
                probeMs, startMs);
    const Plane8 src = test::randomPlane(n, n, 12345);
    const EdParams fs;

    // runPlane into a fresh plane each run (what runImage does), and into a kept one
    for (const bool fresh : {true, false}) {
        double first = 0;
        std::vector<double> warm;
        Plane8 kept;
        for (int r = 0; r <= runs; ++r) {
            Plane8 fresh8;
            Plane8& dst = fresh ? fresh8 : kept;
            const auto t = Clock::now();
            const Status s = gpu::runPlane("wavefront", src, dst, fs);
            const double ms = msSince(t);
            if (!s) {
                std::printf("runPlane failed: %s\n", s.message().c_str());
                return 1;
            }
            if (r == 0)
                first = ms;
            else
                warm.push_back(ms);
        }
        line(fresh ? "gpu::runPlane, binary FS, new 8-bit plane each run" : "gpu::runPlane, binary FS, plane kept",
             first, warm);
    }
    {
        std::vector<double> warm;
        std::vector<uint8_t> rows;
        for (int r = 0; r < runs; ++r) {
            const auto t = Clock::now();
            if (!gpu::runPlanePacked(src, rows, fs)) return 1;
            warm.push_back(msSince(t));
        }
        line("gpu::runPlanePacked, binary FS, 1-bit rows", 0, warm);
    }
    {
        EdParams general;
        general.levels = 4;
        std::vector<double> warm;
        double first = 0;
        for (int r = 0; r <= runs; ++r) {
            Plane8 dst;
            const auto t = Clock::now();
            if (!gpu::runPlane("wavefront", src, dst, general)) return 1;
            const double ms = msSince(t);
            if (r == 0)
                first = ms;
            else
                warm.push_back(ms);
        }
        line("gpu::runPlane, FS 4 levels (general form), new plane", first, warm);
    }
    // the same method through the registry on both devices (runImage: a new plane each run)
    const MethodInfo* m = Registry::instance().find("ec", "wavefront");
    if (!m) return 1;
    const Image img = Image::gray(src);
    for (const Device d : {Device::Gpu, Device::Cpu}) {
        std::vector<double> warm;
        for (int r = 0; r < (d == Device::Cpu ? 3 : runs); ++r) {
            RunRequest req;
            req.method = m;
            req.device = d;
            if (m->param("threads")) req.params.set("threads", int64_t(threads));
            RunControl rc;
            rc.threads = threads;
            RunResult res;
            const auto t = Clock::now();
            if (Status s = runImage(img, req, res, rc); !s) {
                std::printf("runImage failed: %s\n", s.message().c_str());
                return 1;
            }
            warm.push_back(msSince(t));
        }
        const std::string what = std::string("runImage ec/wavefront on ") + toString(d) +
                                 (d == Device::Cpu ? " (" + std::to_string(threads) + " threads)" : "");
        line(what.c_str(), 0, warm);
    }
    return 0;
}
