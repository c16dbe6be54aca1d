// Every GPU plane method run through runImage into a recycled output plane (PlanePool) that holds an old result's
// pixels gives the same image as into a new plane, and an exact method's image equals the CPU's: no old pixel leaks
// into a result. Also checks that the run took the recycled plane.
// test_gpu_planepool [--small] [--verbose]
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "core/planepool.h"
#include "core/job/registry.h"
#include "gpu/gpu.h"
#include "tests/common/testutil.h"
#include "tests/gpu/gputest.h"

using namespace halftone;
using gputest::check;

namespace {

Plane8 garbage(int w, int h, uint32_t seed) {
    Plane8 p(w, h);
    std::mt19937 rng(seed);
    for (uint8_t& v : p.data) v = uint8_t(rng() % 251 + 3);  // never a binary result's 0 or 255
    return p;
}

bool isDbs(const MethodInfo& m) { return m.family == "dbs" || m.method.rfind("dbs", 0) == 0; }

}  // namespace

int main(int argc, char** argv) {
    bool small = false;
    for (int i = 1; i < argc; ++i) {
        if (!std::strcmp(argv[i], "--small"))
            small = true;
        else if (!std::strcmp(argv[i], "--verbose"))
            gputest::counts().verbose = true;
        else {
            std::printf("usage: %s [--small] [--verbose]\n", argv[0]);
            return 2;
        }
    }
    Registry& reg = Registry::instance();
    gpu::registerMethods(reg);
    const GpuAvailability avail = gpu::probe();
    if (!avail.usable) return gputest::skipAll("no usable GPU: " + avail.reason);
    std::printf("device: %s\n", avail.deviceName.c_str());
    PlanePool& pool = PlanePool::instance();
    pool.setLimit(uint64_t(1) << 30);

    struct Size {
        int w, h;
    };
    std::vector<Size> sizes = {{1, 1}, {61, 97}, {333, 7}};
    if (!small) sizes.push_back({2053, 1031});
    for (const MethodInfo& m : reg.methods()) {
        if (!m.gpu) continue;
        for (const Size sz : sizes) {
            if (isDbs(m) && sz.w * sz.h > 64 * 128) continue;  // DBS iterates to convergence: small planes only
            std::vector<ParamValues> sets(1);
            if (m.param("levels") && !isDbs(m)) {
                ParamValues p;
                p.set("levels", int64_t(3));
                if (m.param("kernel") && m.param("kernel")->choices.size() > 1) p.set("kernel", std::string("jarvis"));
                sets.push_back(p);
            }
            for (const ParamValues& params : sets) {
                std::string what = m.id();
                what += ' ';
                what += std::to_string(sz.w);
                what += 'x';
                what += std::to_string(sz.h);
                if (!params.all().empty()) {
                    what += ' ';
                    what += params.canonical();
                }
                if (gputest::counts().verbose) {
                    std::printf("case: %s\n", what.c_str());
                    std::fflush(stdout);
                }
                const Image input = Image::gray(test::randomPlane(sz.w, sz.h, test::freshSeed("gpu planepool")));
                RunRequest req;
                req.method = &m;
                req.params = params;
                req.device = Device::Gpu;
                pool.clear();
                RunResult fresh;
                if (Status s = runImage(input, req, fresh); !s || fresh.device != Device::Gpu) {
                    gputest::skip(what + ": the GPU run did not run (" + (s ? fresh.note : s.message()) + ")");
                    continue;
                }
                pool.release(garbage(sz.w, sz.h, 1));
                const uint64_t taken = pool.stats().taken;
                RunResult recycled;
                const Status s = runImage(input, req, recycled);
                check(s && recycled.device == Device::Gpu, what + ": the run into a recycled plane ran on the GPU");
                if (!s) continue;
                check(pool.stats().taken == taken + 1, what + ": the run took the recycled plane");
                check(recycled.image.channels[0] == fresh.image.channels[0],
                      what + ": recycled plane gives the same image as a new one (" +
                          gputest::firstDiff(recycled.image.channels[0], fresh.image.channels[0]) + ")");
                if (m.cpu && m.exact && !isDbs(m)) {
                    RunRequest cpu = req;
                    cpu.device = Device::Cpu;
                    RunResult c;
                    const bool ran = bool(runImage(input, cpu, c));  // before the message reads its result
                    check(ran, what + ": the CPU run");
                    if (ran)
                        check(recycled.image.channels[0] == c.image.channels[0],
                              what + ": equals the CPU's (" +
                                  gputest::firstDiff(recycled.image.channels[0], c.image.channels[0]) + ")");
                }
                pool.release(std::move(recycled.image));
            }
        }
    }
    // a colour run takes one recycled plane per channel
    if (const MethodInfo* m = reg.find("ec", "wavefront")) {
        Image rgb;
        rgb.space = ColorSpace::RGB;
        for (int c = 0; c < 3; ++c)
            rgb.channels.push_back(test::randomPlane(517, 263, test::freshSeed("gpu pool rgb")));
        pool.clear();
        for (int c = 0; c < 3; ++c) pool.release(garbage(517, 263, uint32_t(c + 10)));
        RunRequest req;
        req.method = m;
        req.color = ColorMode::RGB;
        req.device = Device::Gpu;
        const uint64_t taken = pool.stats().taken;
        RunResult g, c;
        check(bool(runImage(rgb, req, g)), "RGB ec/wavefront on the GPU");
        check(pool.stats().taken == taken + 3, "RGB run took three recycled planes");
        req.device = Device::Cpu;
        const bool ran = bool(runImage(rgb, req, c));
        check(ran && g.image.channels == c.image.channels, "RGB run equals the CPU's");
    }
    return gputest::finish();
}
