// Host side of GPU DBS: buffers, transfers, the iteration loop over the four block groups, progress, cancel.
#include "gpu/dbs/dbs_gpu.h"

#include <cuda_runtime_api.h>

#include <chrono>
#include <cmath>
#include <string>

#include "core/screen/screen.h"
#include "gpu/cudacheck.h"
#include "gpu/deviceinfo.h"
#include "gpu/dbs/dbs_launch.h"
#include "gpu/gpu.h"

namespace halftone::gpu {

Status dbsHalftoneGpu(const Plane8& src, Plane8& dst, const DbsParams& params, const RunControl& control,
                      DbsStats* stats, DbsGpuTiming* timing, DbsGpuLayout layout) {
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

    if (!deviceInfo().usable) return Status::unavailable(deviceInfo().reason);
    {
        // The block's c_pe region lives in shared memory: refuse block sides that do not fit, naming the limit.
        const int optin = deviceInfo().sharedPerBlockOptin;
        const auto sharedBytes = [&](int side) {
            return layout == DbsGpuLayout::Koge ? dbsdev::groupSharedBytes(side, R) : dbsdev::scanSharedBytes(side, R);
        };
        if (optin > 0 && sharedBytes(bs) > size_t(optin)) {
            int maxBs = bs;
            while (maxBs > minBlock && sharedBytes(maxBs) > size_t(optin)) maxBs -= 8;
            return Status::error("GPU DBS block size " + std::to_string(params.blockSize) + " needs " +
                                 std::to_string(sharedBytes(bs) / 1024) + " KiB of shared memory; this GPU has " +
                                 std::to_string(optin / 1024) +
                                 " KiB per block (largest block side here: " + std::to_string(maxBs) + ")");
        }
    }
    const auto device = lockDevice();
    if (control.cancelled()) return Status::cancelled();  // cancelled while another run held the device
    const int W = src.width, H = src.height;
    const size_t n = size_t(W) * H, nG = size_t(W + 2) * (H + 2), nC = size_t(W + 2 * P) * (H + 2 * P);
    const int tilesX = (W + 7) / 8, tilesY = (H + 7) / 8;
    const size_t nTiles = size_t(tilesX) * tilesY;
    DeviceBuffer<uint8_t> dSrc, dG, dFree, dOut, dScreen;
    DeviceBuffer<float> dCpe, dCpp;
    DeviceBuffer<double> dA, dE, dT, dGain;
    DeviceBuffer<int> dActive, dOnes;
    DeviceBuffer<unsigned long long> dMoves;
    HT_CUDA(dSrc.allocate(n));
    HT_CUDA(dG.allocate(nG));
    HT_CUDA(dFree.allocate(nG));
    HT_CUDA(dCpe.allocate(nC));
    HT_CUDA(dCpp.allocate(filter.cpp.size()));
    HT_CUDA(dE.allocate(n));
    HT_CUDA(dT.allocate(n));
    HT_CUDA(dActive.allocate(nTiles));
    HT_CUDA(dOnes.allocate(nTiles));
    HT_CUDA(dMoves.allocate(1));
    HT_CUDA(dGain.allocate(1));
    HT_CUDA(dOut.allocate(n));
    // Phase filters: the warm start's narrower one (same radius, so the same sizes), then the requested one.
    std::vector<const HvsFilter*> phases;
    if (warm) phases.push_back(&warmFilter);
    phases.push_back(&filter);
    std::vector<std::vector<double>> a1d;
    for (const HvsFilter* f : phases) a1d.push_back(cppSeparableTaps(*f));
    if (!a1d.back().empty()) HT_CUDA(dA.allocate(a1d.back().size()));
    if (screen) HT_CUDA(dScreen.allocate(screen->size()));
    Stream stream;
    HT_CUDA(stream.create());
    Event evStart, evStop;
    HT_CUDA(evStart.create());
    HT_CUDA(evStop.create());
    cudaStream_t const st = stream.get();

    HT_CUDA(cudaMemcpyAsync(dSrc.get(), src.data.data(), n, cudaMemcpyHostToDevice, st));
    if (screen)
        HT_CUDA(cudaMemcpyAsync(dScreen.get(), screen->data.data(), screen->size(), cudaMemcpyHostToDevice, st));
    {
        // Every update-map tile active in a phase's iteration 1 (core's UpdateMap starts at 1): a device copy of ones.
        const std::vector<int> ones(size_t(tilesX) * tilesY, 1);
        HT_CUDA(cudaMemcpyAsync(dOnes.get(), ones.data(), ones.size() * sizeof(int), cudaMemcpyHostToDevice, st));
        HT_CUDA(cudaStreamSynchronize(st));
    }
    HT_CUDA(cudaEventRecord(evStart.get(), st));
    HT_CUDA(cudaMemsetAsync(dG.get(), 0, nG, st));
    HT_CUDA(cudaMemsetAsync(dFree.get(), 0, nG, st));
    dbsdev::DbsDeviceState s;
    s.width = W;
    s.height = H;
    s.src = dSrc.get();
    s.g = dG.get();
    s.freeMask = dFree.get();
    s.cpe = dCpe.get();
    s.pad = P;
    s.cpp = dCpp.get();
    s.cppRadius = R;
    s.activeUntil = dActive.get();
    s.tilesX = tilesX;
    s.tilesY = tilesY;
    s.reach = (8 - 1 + R + 2) / 8;
    s.moves = dMoves.get();
    HT_CUDA(dbsdev::launchStart(s, params.seed, params.clipFree, params.margin, dScreen.get(),
                                screen ? screen->width : 1, screen ? screen->height : 1, st));

    const double npx = double(n);
    const int itTotal = params.maxIterations * int(phases.size());
    int itDone = 0, warmIterations = 0;
    int64_t totalMoves = 0;
    double gainSum = 0;
    bool converged = false;
    for (size_t ph = 0; ph < phases.size(); ++ph) {
        // A phase starts as core's DbsState::init + a fresh UpdateMap: c_pe of the current g with this filter.
        const HvsFilter& f = *phases[ph];
        HT_CUDA(cudaMemcpyAsync(dCpp.get(), f.cpp.data(), f.cpp.size() * sizeof(float), cudaMemcpyHostToDevice, st));
        if (!a1d[ph].empty())
            HT_CUDA(
                cudaMemcpyAsync(dA.get(), a1d[ph].data(), a1d[ph].size() * sizeof(double), cudaMemcpyHostToDevice, st));
        HT_CUDA(cudaMemcpyAsync(dActive.get(), dOnes.get(), nTiles * sizeof(int), cudaMemcpyDeviceToDevice, st));
        HT_CUDA(cudaMemsetAsync(dCpe.get(), 0, nC * sizeof(float), st));
        HT_CUDA(dbsdev::launchCpe(s, a1d[ph].empty() ? nullptr : dA.get(), dE.get(), dT.get(), st));
        const float eps = 1e-5f * f.cpp0();  // as core's Visitor
        const bool last = ph + 1 == phases.size();
        int it = 0;
        bool phaseConverged = false;
        for (it = 1; it <= params.maxIterations; ++it) {
            HT_CUDA(cudaMemsetAsync(dMoves.get(), 0, sizeof(unsigned long long), st));
            HT_CUDA(cudaMemsetAsync(dGain.get(), 0, sizeof(double), st));
            for (int gi = 0; gi < 4; ++gi) {
                if (control.cancelled()) {
                    cudaStreamSynchronize(st);
                    return Status::cancelled();
                }
                if (layout == DbsGpuLayout::Koge)
                    HT_CUDA(dbsdev::launchGroup(s, bs, gi >> 1, gi & 1, it, params.swaps, params.updateMap, eps,
                                                dGain.get(), st));
                else
                    HT_CUDA(dbsdev::launchScanGroup(s, bs, gi >> 1, gi & 1, it, params.swaps, params.updateMap, eps,
                                                    dGain.get(), st));
            }
            unsigned long long moves = 0;
            double gain = 0;
            HT_CUDA(cudaMemcpyAsync(&moves, dMoves.get(), sizeof(moves), cudaMemcpyDeviceToHost, st));
            HT_CUDA(cudaMemcpyAsync(&gain, dGain.get(), sizeof(gain), cudaMemcpyDeviceToHost, st));
            HT_CUDA(cudaStreamSynchronize(st));
            totalMoves += int64_t(moves);
            if (last) gainSum += gain;
            Progress pr;
            pr.fraction = std::min(1.0, double(itDone + it) / itTotal);
            pr.stage = std::string(last ? "" : "warm start, ") + "iteration " + std::to_string(itDone + it) +
                       (layout == DbsGpuLayout::Koge ? " (GPU, Koge et al. layout)" : " (GPU)");
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
    HT_CUDA(dbsdev::launchOutput(s, dOut.get(), st));
    HT_CUDA(cudaEventRecord(evStop.get(), st));
    dst = Plane8(W, H);
    HT_CUDA(cudaMemcpyAsync(dst.data.data(), dOut.get(), n, cudaMemcpyDeviceToHost, st));
    HT_CUDA(cudaStreamSynchronize(st));
    if (timing) {
        float ms = 0;
        HT_CUDA(cudaEventElapsedTime(&ms, evStart.get(), evStop.get()));
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
        registry.attachGpu("dbs", variant,
                           [layout](const Plane8& src, Plane8& dst, const ParamValues& v, const RunControl& rc) {
                               DbsParams p = dbsParamsFrom(v);
                               p.schedule = DbsSchedule::Blocks;
                               ThresholdArray screen;
                               const std::string spec = v.getText("screen", "dbs");
                               if (p.clipFree && spec != "dbs") {
                                   if (Status s = screenFromSpec(spec, screen, rc); !s) return s;
                                   p.screen = &screen;
                               }
                               Status s = dbsHalftoneGpu(src, dst, p, rc, nullptr, nullptr, layout);
                               if (isOutOfDeviceMemory(s)) {  // the wavefront's kept buffers make room
                                   releaseDeviceCache();
                                   s = dbsHalftoneGpu(src, dst, p, rc, nullptr, nullptr, layout);
                               }
                               return s;
                           });
    };
    attach("blocks", DbsGpuLayout::WarpScan);
    attach("blocks-koge", DbsGpuLayout::Koge);
}

}  // namespace halftone::gpu
