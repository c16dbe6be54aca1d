// Stand-alone timer of what a program pays for one plane on the GPU, host memory to host memory (the studio's run):
// gpu::runPlane and gpu::runPlanePacked from pageable memory, the first run (device buffers allocated) and warm runs
// (kept), and runImage of the same method on the GPU (without and with the studio's plane pool) against the CPU
// threads in the same run. Prints one line per measurement; the results go to
// docs/performance.md by hand, never into a test.
// bench_hostpath [--size N] [--runs R] [--threads T]
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "core/ed/errordiffusion.h"
#include "core/planepool.h"
#include "core/job/registry.h"
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

/// A plane of an old result: every pixel a value no binary result holds.
Plane8 garbage(int n) { return Plane8(n, n, uint8_t(77)); }

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
    double gpuMs[2] = {0, 0}, cpuMs = 0;
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
    // the same method through the registry on both devices: runImage with no plane pool (a new output plane each
    // run), and on the GPU with the pool the studio keeps (each result released when the next run starts, as the
    // studio drops a result it no longer shows or caches); every run's result is compared with the first's
    const MethodInfo* m = Registry::instance().find("ec", "wavefront");
    if (!m) return 1;
    const Image img = Image::gray(src);
    struct Case {
        Device device;
        bool pool;
    };
    for (const Case c : {Case{Device::Gpu, false}, Case{Device::Gpu, true}, Case{Device::Cpu, false}}) {
        const Device d = c.device;
        PlanePool::instance().clear();
        PlanePool::instance().setLimit(c.pool ? uint64_t(1) << 30 : 0);
        std::vector<double> warm;
        double first = 0;
        Image previous;
        Plane8 firstResult;
        for (int r = 0; r <= (d == Device::Cpu ? 3 : runs); ++r) {
            RunRequest req;
            req.method = m;
            req.device = d;
            if (m->param("threads")) req.params.set("threads", int64_t(threads));
            RunControl rc;
            rc.threads = threads;
            RunResult res;
            // the last result dropped before the run, outside the timed part: its plane is the one the run takes
            PlanePool::instance().release(std::move(previous));
            const auto t = Clock::now();
            if (Status s = runImage(img, req, res, rc); !s) {
                std::printf("runImage failed: %s\n", s.message().c_str());
                return 1;
            }
            const double ms = msSince(t);
            if (r == 0)
                first = ms;
            else
                warm.push_back(ms);
            if (res.device != d) {
                std::printf("runImage ran on %s: %s\n", toString(res.device), res.note.c_str());
                return 1;
            }
            if (r == 0)
                firstResult = res.image.channels[0];
            else if (!(res.image.channels[0] == firstResult)) {
                std::printf("runImage on %s gave a different result in run %d\n", toString(d), r);
                return 1;
            }
            previous = std::move(res.image);
        }
        if (c.pool)
            std::printf("plane pool: %llu planes taken, %llu missed\n",
                        (unsigned long long)PlanePool::instance().stats().taken,
                        (unsigned long long)PlanePool::instance().stats().missed);
        const std::string what = std::string("runImage ec/wavefront on ") + toString(d) +
                                 (d == Device::Cpu ? " (" + std::to_string(threads) + " threads)"
                                  : c.pool         ? " (plane pool)"
                                                   : " (no pool)");
        line(what.c_str(), first, warm);
        if (d == Device::Gpu)
            gpuMs[c.pool ? 1 : 0] = median(warm);
        else
            cpuMs = median(warm);
    }
    // the GPU result equals the CPU's
    {
        RunRequest req;
        req.method = m;
        RunResult g, c;
        req.device = Device::Gpu;
        PlanePool::instance().setLimit(uint64_t(1) << 30);
        PlanePool::instance().release(garbage(n));  // an old result's pixels in the plane the GPU run takes
        const uint64_t taken = PlanePool::instance().stats().taken;
        if (!runImage(img, req, g) || PlanePool::instance().stats().taken != taken + 1) return 1;
        req.device = Device::Cpu;
        RunControl rc;
        rc.threads = threads;
        if (!runImage(img, req, c, rc)) return 1;
        const bool same = g.image.channels[0] == c.image.channels[0];
        std::printf("GPU result (in a recycled plane) equals the CPU's: %s\n", same ? "yes" : "NO");
        if (!same) return 1;
    }
    std::printf(
        "runImage, median warm: CPU %d threads %.2f ms / GPU no pool %.2f ms = %.2fx; / GPU plane pool %.2f "
        "ms = %.2fx\n",
        threads, cpuMs, gpuMs[0], cpuMs / gpuMs[0], gpuMs[1], cpuMs / gpuMs[1]);
    return 0;
}
