// Host side of GPU DBS: buffers, transfers, the iteration loop over the four block groups, progress, cancel.
#include "gpu/dbs_gpu.h"

#include <cuda_runtime_api.h>

#include <chrono>
#include <cmath>
#include <string>

#include "core/screen.h"
#include "gpu/dbs_launch.h"

namespace halftone::gpu {

namespace {

Status cudaFail(cudaError_t e, const char* what, int line) {
    (void)cudaGetLastError();
    return Status::unavailable(std::string("CUDA error in ") + what + " (dbs_gpu.cpp:" + std::to_string(line) +
                               "): " + cudaGetErrorName(e) + ": " + cudaGetErrorString(e));
}
#define DBS_CUDA(call)                                                   \
    do {                                                                 \
        const cudaError_t dbs_err_ = (call);                             \
        if (dbs_err_ != cudaSuccess) return cudaFail(dbs_err_, #call, __LINE__); \
    } while (0)

/// Owns one device allocation.
struct DevMem {
    void* p = nullptr;
    DevMem() = default;
    DevMem(const DevMem&) = delete;
    DevMem& operator=(const DevMem&) = delete;
    ~DevMem() {
        if (p) cudaFree(p);
    }
    cudaError_t alloc(size_t bytes) { return cudaMalloc(&p, bytes ? bytes : 1); }
    template <class T>
    T* as() const {
        return static_cast<T*>(p);
    }
};

struct StreamOwner {
    cudaStream_t s = nullptr;
    ~StreamOwner() {
        if (s) cudaStreamDestroy(s);
    }
};
struct EventOwner {
    cudaEvent_t e = nullptr;
    ~EventOwner() {
        if (e) cudaEventDestroy(e);
    }
};

}  // namespace

Status dbsHalftoneGpu(const Plane8& src, Plane8& dst, const DbsParams& params, const RunControl& control, DbsStats* stats,
                      DbsGpuTiming* timing, DbsGpuLayout layout) {
    const auto t0 = std::chrono::steady_clock::now();
    HvsFilter filter, warmFilter;
    if (Status s = dbsPrepareFilters(src, params, filter, warmFilter); !s) return s;
    const bool warm = params.warmStart > 0;
    const int R = filter.cppRadius, P = R + 1;
    const int minBlock = std::max(4 * filter.radius + 1, 2 * P);
    if (params.blockSize < minBlock)
        return Status::error("GPU DBS block size " + std::to_string(params.blockSize) + " is smaller than " +
                             std::to_string(minBlock) + " (the c_pp support and two c_pe margins)");
    const int bs = (params.blockSize + 7) / 8 * 8;  // whole update-map tiles, as the CPU rounds it
    if (params.clipFree && !(params.margin >= 0 && params.margin <= 0.5))
        return Status::error("clip-free margin must be between 0 and 0.5 (0..127 gray levels)");
    const ThresholdArray* screen = params.clipFree ? (params.screen ? params.screen : &defaultDbsScreen()) : nullptr;
    if (screen && screen->empty()) return Status::error("clip-free DBS: the threshold array is empty");

    int devices = 0;
    if (const cudaError_t e = cudaGetDeviceCount(&devices); e != cudaSuccess || devices == 0) {
        (void)cudaGetLastError();
        return Status::unavailable(std::string("no usable CUDA device (") +
                                   (e != cudaSuccess ? cudaGetErrorString(e) : "no device found") + ")");
    }
    {
        // The block's c_pe region lives in shared memory: refuse block sides that do not fit, naming the limit.
        int dev = 0, optin = 0;
        (void)cudaGetDevice(&dev);
        const auto sharedBytes = [&](int side) {
            return layout == DbsGpuLayout::Seed003 ? dbsdev::groupSharedBytes(side, R) : dbsdev::scanSharedBytes(side, R);
        };
        if (cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, dev) == cudaSuccess && optin > 0 &&
            sharedBytes(bs) > size_t(optin)) {
            int maxBs = bs;
            while (maxBs > minBlock && sharedBytes(maxBs) > size_t(optin)) maxBs -= 8;
            return Status::error("GPU DBS block size " + std::to_string(params.blockSize) + " needs " +
                                 std::to_string(sharedBytes(bs) / 1024) + " KiB of shared memory; this GPU has " +
                                 std::to_string(optin / 1024) + " KiB per block (largest block side here: " +
                                 std::to_string(maxBs) + ")");
        }
        (void)cudaGetLastError();
    }
    const int W = src.width, H = src.height;
    const size_t n = size_t(W) * H, nG = size_t(W + 2) * (H + 2), nC = size_t(W + 2 * P) * (H + 2 * P);
    const int tilesX = (W + 7) / 8, tilesY = (H + 7) / 8;
    DevMem dSrc, dG, dFree, dCpe, dCpp, dA, dE, dT, dActive, dOnes, dMoves, dGain, dOut, dScreen;
    DBS_CUDA(dSrc.alloc(n));
    DBS_CUDA(dG.alloc(nG));
    DBS_CUDA(dFree.alloc(nG));
    DBS_CUDA(dCpe.alloc(nC * sizeof(float)));
    DBS_CUDA(dCpp.alloc(filter.cpp.size() * sizeof(float)));
    DBS_CUDA(dE.alloc(n * sizeof(double)));
    DBS_CUDA(dT.alloc(n * sizeof(double)));
    DBS_CUDA(dActive.alloc(size_t(tilesX) * tilesY * sizeof(int)));
    DBS_CUDA(dOnes.alloc(size_t(tilesX) * tilesY * sizeof(int)));
    DBS_CUDA(dMoves.alloc(sizeof(unsigned long long)));
    DBS_CUDA(dGain.alloc(sizeof(double)));
    DBS_CUDA(dOut.alloc(n));
    // Phase filters: the warm start's narrower one (same radius, so the same sizes), then the requested one.
    std::vector<const HvsFilter*> phases;
    if (warm) phases.push_back(&warmFilter);
    phases.push_back(&filter);
    std::vector<std::vector<double>> a1d;
    for (const HvsFilter* f : phases) a1d.push_back(cppSeparableTaps(*f));
    if (!a1d.back().empty()) DBS_CUDA(dA.alloc(a1d.back().size() * sizeof(double)));
    if (screen) DBS_CUDA(dScreen.alloc(screen->size()));
    StreamOwner stream;
    DBS_CUDA(cudaStreamCreate(&stream.s));
    EventOwner evStart, evStop;
    DBS_CUDA(cudaEventCreate(&evStart.e));
    DBS_CUDA(cudaEventCreate(&evStop.e));

    DBS_CUDA(cudaMemcpyAsync(dSrc.p, src.data.data(), n, cudaMemcpyHostToDevice, stream.s));
    if (screen) DBS_CUDA(cudaMemcpyAsync(dScreen.p, screen->data.data(), screen->size(), cudaMemcpyHostToDevice, stream.s));
    {
        // Every update-map tile active in a phase's iteration 1 (core's UpdateMap starts at 1): a device copy of ones.
        const std::vector<int> ones(size_t(tilesX) * tilesY, 1);
        DBS_CUDA(cudaMemcpyAsync(dOnes.p, ones.data(), ones.size() * sizeof(int), cudaMemcpyHostToDevice, stream.s));
        DBS_CUDA(cudaStreamSynchronize(stream.s));
    }
    DBS_CUDA(cudaEventRecord(evStart.e, stream.s));
    DBS_CUDA(cudaMemsetAsync(dG.p, 0, nG, stream.s));
    DBS_CUDA(cudaMemsetAsync(dFree.p, 0, nG, stream.s));
    dbsdev::DbsDeviceState s;
    s.width = W;
    s.height = H;
    s.src = dSrc.as<uint8_t>();
    s.g = dG.as<uint8_t>();
    s.freeMask = dFree.as<uint8_t>();
    s.cpe = dCpe.as<float>();
    s.pad = P;
    s.cpp = dCpp.as<float>();
    s.cppRadius = R;
    s.activeUntil = dActive.as<int>();
    s.tilesX = tilesX;
    s.tilesY = tilesY;
    s.reach = (8 - 1 + R + 2) / 8;
    s.moves = dMoves.as<unsigned long long>();
    DBS_CUDA(dbsdev::launchStart(s, params.seed, params.clipFree, params.margin, dScreen.as<uint8_t>(),
                                 screen ? screen->width : 1, screen ? screen->height : 1, stream.s));

    const double npx = double(n);
    const int itTotal = params.maxIterations * int(phases.size());
    int itDone = 0, warmIterations = 0;
    int64_t totalMoves = 0;
    double gainSum = 0;
    bool converged = false;
    for (size_t ph = 0; ph < phases.size(); ++ph) {
        // A phase starts as core's DbsState::init + a fresh UpdateMap: c_pe of the current g with this filter.
        const HvsFilter& f = *phases[ph];
        DBS_CUDA(cudaMemcpyAsync(dCpp.p, f.cpp.data(), f.cpp.size() * sizeof(float), cudaMemcpyHostToDevice, stream.s));
        if (!a1d[ph].empty())
            DBS_CUDA(cudaMemcpyAsync(dA.p, a1d[ph].data(), a1d[ph].size() * sizeof(double), cudaMemcpyHostToDevice, stream.s));
        DBS_CUDA(cudaMemcpyAsync(dActive.p, dOnes.p, size_t(tilesX) * tilesY * sizeof(int), cudaMemcpyDeviceToDevice, stream.s));
        DBS_CUDA(cudaMemsetAsync(dCpe.p, 0, nC * sizeof(float), stream.s));
        DBS_CUDA(dbsdev::launchCpe(s, a1d[ph].empty() ? nullptr : dA.as<double>(), dE.as<double>(), dT.as<double>(), stream.s));
        const float eps = 1e-5f * f.cpp0();  // as core's Visitor
        const bool last = ph + 1 == phases.size();
        int it = 0;
        bool phaseConverged = false;
        for (it = 1; it <= params.maxIterations; ++it) {
            DBS_CUDA(cudaMemsetAsync(dMoves.p, 0, sizeof(unsigned long long), stream.s));
            DBS_CUDA(cudaMemsetAsync(dGain.p, 0, sizeof(double), stream.s));
            for (int gi = 0; gi < 4; ++gi) {
                if (control.cancelled()) {
                    cudaStreamSynchronize(stream.s);
                    return Status::cancelled();
                }
                if (layout == DbsGpuLayout::Seed003)
                    DBS_CUDA(dbsdev::launchGroup(s, bs, gi >> 1, gi & 1, it, params.swaps, params.updateMap, eps,
                                                 dGain.as<double>(), stream.s));
                else
                    DBS_CUDA(dbsdev::launchScanGroup(s, bs, gi >> 1, gi & 1, it, params.swaps, params.updateMap, eps,
                                                     dGain.as<double>(), stream.s));
            }
            unsigned long long moves = 0;
            double gain = 0;
            DBS_CUDA(cudaMemcpyAsync(&moves, dMoves.p, sizeof(moves), cudaMemcpyDeviceToHost, stream.s));
            DBS_CUDA(cudaMemcpyAsync(&gain, dGain.p, sizeof(gain), cudaMemcpyDeviceToHost, stream.s));
            DBS_CUDA(cudaStreamSynchronize(stream.s));
            totalMoves += int64_t(moves);
            if (last) gainSum += gain;
            Progress pr;
            pr.fraction = std::min(1.0, double(itDone + it) / itTotal);
            pr.stage = std::string(last ? "" : "warm start, ") + "iteration " + std::to_string(itDone + it) +
                       (layout == DbsGpuLayout::Seed003 ? " (GPU, seed 003 layout)" : " (GPU)");
            pr.iteration = itDone + it;
            pr.moves = totalMoves;
            pr.error = gainSum / npx;  // change of E / N in the final phase; the absolute E is computed at the end
            control.report(pr);
            if (moves == 0) {
                phaseConverged = true;
                break;
            }
        }
        const int phaseIts = std::min(it, params.maxIterations);
        itDone += phaseIts;
        if (!last) warmIterations = phaseIts;
        converged = phaseConverged;
    }
    DBS_CUDA(dbsdev::launchOutput(s, dOut.as<uint8_t>(), stream.s));
    DBS_CUDA(cudaEventRecord(evStop.e, stream.s));
    dst = Plane8(W, H);
    DBS_CUDA(cudaMemcpyAsync(dst.data.data(), dOut.p, n, cudaMemcpyDeviceToHost, stream.s));
    DBS_CUDA(cudaStreamSynchronize(stream.s));
    if (timing) {
        float ms = 0;
        DBS_CUDA(cudaEventElapsedTime(&ms, evStart.e, evStop.e));
        timing->deviceMs = ms;
        timing->endToEndMs = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    }
    if (stats) {
        stats->iterations = itDone;
        stats->warmIterations = warmIterations;
        stats->moves = totalMoves;
        stats->converged = converged;
        stats->error = dbsError(src, dst, filter);
        Plane8 b, fm;
        stats->freePixels = 0;
        stats->initialError = 0;
        if (dbsStart(src, params, b, fm)) {
            for (uint8_t v : fm.data) stats->freePixels += v;
            stats->initialError = dbsError(src, b, filter);
        }
    }
    return Status::ok();
}

void registerDbsGpu(Registry& registry) {
    const auto attach = [&registry](const char* variant, DbsGpuLayout layout) {
        if (!registry.find("dbs", variant)) return;
        registry.attachGpu("dbs", variant, [layout](const Plane8& src, Plane8& dst, const ParamValues& v, const RunControl& rc) {
            DbsParams p = dbsParamsFrom(v);
            p.schedule = DbsSchedule::Blocks;
            ThresholdArray screen;
            const std::string spec = v.getText("screen", "dbs");
            if (p.clipFree && spec != "dbs") {
                if (Status s = screenFromSpec(spec, screen, rc); !s) return s;
                p.screen = &screen;
            }
            return dbsHalftoneGpu(src, dst, p, rc, nullptr, nullptr, layout);
        });
    };
    attach("blocks", DbsGpuLayout::Ours);
    attach("blocks-seed003", DbsGpuLayout::Seed003);
}

}  // namespace halftone::gpu
