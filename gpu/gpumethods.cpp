// The GPU methods' table and the entry points of gpu/gpu.h: each run holds the device (lockDevice), makes or reuses
// its runner, and reports progress and cancellation. The runners: gpu/ed/wavefront_runner.h,
// gpu/ed/published_runners.cpp.
#include <algorithm>
#include <cstring>
#include <functional>
#include <memory>
#include <mutex>
#include <vector>

#include "gpu/deviceinfo.h"
#include "gpu/faultinject.h"
#include "gpu/gpu.h"
#include "gpu/runner.h"
#include "gpu/ed/wavefront_runner.h"

namespace halftone::gpu {

namespace {

// ------------------------------------------------------------------ the method table
/// One GPU method: what the registry, the tests and the benchmark see (MethodSpec), and the runner that runs it.
/// The wavefront's runner is made by makeRunner (it needs the request's form).
struct MethodRow {
    MethodSpec spec;
    std::function<std::unique_ptr<Runner>()> make;
};

const std::vector<MethodRow>& table() {
    static const std::vector<MethodRow> all = {
        {{"ec", "wavefront",
          "Error collection as a wavefront on the GPU in one launch, each row a few pixels behind the row "
          "above: the fastest GPU method; every kernel, 2 to 256 levels, linear light",
          true, false, "gpu-wavefront"},
         nullptr},
        {{"ed", "ped3-global",
          "GPU error diffusion, each row 3 pixels behind the row above, one launch per step (Kasagi, Nakano and Ito)",
          false, false, "k-delay"},
         [] { return makeGlobalRunner(GlobalVariant::Ped3, false); }},
        {{"ed", "ped3-global-perm",
          "As ped3-global, with the image rearranged so that each step reads contiguous memory", false, false,
          "k-delay"},
         [] { return makeGlobalRunner(GlobalVariant::Ped3, true); }},
        {{"ed", "ped2-atomic",
          "GPU error diffusion, each row 2 pixels behind the row above; pixels that receive error from two senders at "
          "once add it atomically",
          false, false, "k-delay"},
         [] { return makeGlobalRunner(GlobalVariant::Ped2Atomic, false); }},
        {{"ed", "ped2-atomic-perm",
          "As ped2-atomic, with the image rearranged so that each step reads contiguous memory", false, false,
          "k-delay"},
         [] { return makeGlobalRunner(GlobalVariant::Ped2Atomic, true); }},
        {{"ed", "ped2-double",
          "GPU error diffusion, each row 2 pixels behind the row above, two launches per step (own row, then the row "
          "below)",
          false, false, "k-delay"},
         [] { return makeGlobalRunner(GlobalVariant::Ped2Double, false); }},
        {{"ed", "ped2-double-perm",
          "As ped2-double, with the image rearranged so that each step reads contiguous memory", false, false,
          "k-delay"},
         [] { return makeGlobalRunner(GlobalVariant::Ped2Double, true); }},
        {{"ec", "pec2-global",
          "GPU error collection, each row 2 pixels behind the row above, one launch per step (Kasagi, Nakano and Ito)",
          false, false, "k-delay"},
         [] { return makeGlobalRunner(GlobalVariant::Pec2, false); }},
        {{"ec", "pec2-global-perm",
          "As pec2-global, with the image rearranged so that each step reads contiguous memory", false, false,
          "k-delay"},
         [] { return makeGlobalRunner(GlobalVariant::Pec2, true); }},
        {{"ed", "bwed",
          "GPU error diffusion on 32 x 32 slanted blocks held in fast on-chip memory (Kasagi, Nakano and Ito's "
          "block-wise method)",
          false, false, "parallelogram"},
         [] { return makeBlockRunner(true, false); }},
        {{"ed", "bwed-rc", "As bwed, keeping the errors in reach in registers", false, false, "parallelogram"},
         [] { return makeBlockRunner(true, true); }},
        {{"ec", "bwec",
          "GPU error collection on 32 x 32 slanted blocks held in fast on-chip memory (Kasagi, Nakano and Ito's "
          "block-wise method)",
          false, false, "parallelogram"},
         [] { return makeBlockRunner(false, false); }},
        {{"ec", "bwec-rc",
          "As bwec, keeping the errors in reach in registers (the fastest in Kasagi, Nakano and Ito's study)", false,
          false, "parallelogram"},
         [] { return makeBlockRunner(false, true); }},
        {{"ec", "knight",
          "GPU error collection, one thread per pixel in knight's-move order, the image stored in that order "
          "(Deshpande, Misra and Narayanan)",
          false, false, "knight"},
         [] { return makeKnightRunner(false); }},
        {{"ec", "handover",
          "Knight's-move error collection; the CPU does the start and end where few pixels are ready, the GPU the "
          "middle",
          false, true, "knight"},
         [] { return makeKnightRunner(true); }},
        {{"ec", "hybrid",
          "Knight's-move error collection; the CPU takes a band of columns at the same time as the GPU does the rest",
          false, true, "knight"},
         [] { return makeHybridRunner(); }},
    };
    return all;
}

const MethodRow* findRow(const std::string& variant) {
    for (const MethodRow& m : table())
        if (m.spec.variant == variant) return &m;
    return nullptr;
}

/// Whether the GPU wavefront has the kernel: not offered (the caller runs it on the CPU) for kernels that reach more
/// than two rows down, which its strips cannot pass on.
Status wavefrontOffers(const Kernel& kernel, int levels) {
    if (wavefrontHasForm(kernelIndexOf(kernel.name), WavefrontForm::General, levels == 2)) return Status::ok();
    return Status::notOffered("the GPU wavefront passes errors at most two rows down; kernel " + kernel.name +
                              " reaches " + std::to_string(kernel.maxDi()) + ", so it runs on the CPU");
}

/// The wavefront form a request names: "" = the fastest compiled one (fast for binary Floyd-Steinberg, general
/// otherwise), "fast" or "general".
Status parseForm(const std::string& text, const Kernel& kernel, int levels, WavefrontForm& form) {
    const bool fastFits = gpuWavefrontFast(kernel, levels);  // the schedule model's rule
    if (text.empty()) {
        form = fastFits ? WavefrontForm::Fast : WavefrontForm::General;
        return Status::ok();
    }
    if (text == "general") {
        form = WavefrontForm::General;
        return Status::ok();
    }
    if (text == "fast") {
        if (!fastFits)
            return Status::error("the wavefront's fast form is binary Floyd-Steinberg only (got kernel " + kernel.name +
                                 " with " + std::to_string(levels) + " levels)");
        form = WavefrontForm::Fast;
        return Status::ok();
    }
    return Status::error("unknown wavefront form '" + text + "' (expected fast or general)");
}

Status makeRunner(const std::string& variant, const EdParams& p, const std::string& formText,
                  std::unique_ptr<Runner>& out) {
    const MethodRow* row = findRow(variant);
    if (!row) {
        std::string all;
        for (const MethodRow& m : table()) all += (all.empty() ? "" : ", ") + m.spec.variant;
        return Status::error("unknown GPU method '" + variant + "'; GPU methods: " + all);
    }
    const Kernel* kernel = nullptr;
    HT_TRY(validateEdParams(p, kernel));
    if (p.serpentine) return Status::notOffered("serpentine scans have no wavefront parallelism; they run on the CPU");
    if (!row->spec.allKernels && kernel->name != "floyd-steinberg")
        return Status::error("GPU method " + variant + " supports only the floyd-steinberg kernel (got " +
                             kernel->name + ")");
    if (!deviceInfo().usable) return Status::unavailable(deviceInfo().reason);
    if (row->make) {
        out = row->make();
        return Status::ok();
    }
    HT_TRY(wavefrontOffers(*kernel, p.levels));
    WavefrontForm form = WavefrontForm::General;
    HT_TRY(parseForm(formText, *kernel, p.levels, form));
    out = std::make_unique<WavefrontRunner>(form);
    return Status::ok();
}

}  // namespace

const std::vector<MethodSpec>& methods() {
    static const std::vector<MethodSpec> all = [] {
        std::vector<MethodSpec> v;
        for (const MethodRow& row : table()) v.push_back(row.spec);
        return v;
    }();
    return all;
}

std::vector<std::string> wavefrontForms() { return {"fast", "general"}; }

namespace {

/// One run of a published method (`variant`) on `src`: size check, a runner of its own, upload, compute with
/// progress/cancel, then `fetch` copies the result back.
template <class Fetch>
Status runOnce(const std::string& variant, const Plane8& src, const EdParams& params, const RunControl& control,
               const std::string& form, Fetch&& fetch) {
    if (src.width <= 0 || src.height <= 0) return Status::error("empty image");
    // over the GPU path's pixel limit (e.g. 64K x 64K): unavailable, so runImage runs it on the CPU
    if (Status sz = checkImageSize(src.width, src.height, 1); !sz)
        return Status::unavailable("too large for the GPU path: " + std::to_string(src.width) + " x " +
                                   std::to_string(src.height) + " is over its limit of 2^30 pixels");
    const auto device = lockDevice();
    if (control.cancelled()) return Status::cancelled();  // cancelled while another run held the device
    std::unique_ptr<Runner> r;
    HT_TRY(makeRunner(variant, params, form, r));
    HT_TRY(r->prepare(src.width, src.height, params));
    Stream s;
    HT_CUDA(s.create());
    HT_TRY(r->upload(src.data.data(), s.get()));
    HT_TRY(injectFault(s.get()));  // test-only, off unless HALFTONE_GPU_FAULT is set (gpu/faultinject.h)
    Status cs = r->compute(s.get(), control);
    const cudaError_t se = cudaStreamSynchronize(s.get());
    HT_TRY(cs);
    HT_CUDA(se);
    HT_CUDA(cudaGetLastError());
    HT_TRY(r->finish());
    HT_TRY(fetch(*r, s.get()));
    HT_CUDA(cudaStreamSynchronize(s.get()));
    Progress p;
    p.fraction = 1.0;
    p.rowsDone = src.height;
    control.report(p);
    return Status::ok();
}

}  // namespace

namespace {

/// The device state kept between runs: the wavefront runner of the last size, form and parameters (its device buffers,
/// flags and tables) and the pinned staging memory. Deliberately never destroyed: at exit the CUDA runtime may already
/// be gone, and the process's end frees both.
/// Guarded by lockDevice().
struct DeviceCache {
    std::unique_ptr<WavefrontRunner> runner;
    std::string key;
    Staging staging;
};

DeviceCache& deviceCache() {
    static DeviceCache* cache = new DeviceCache;
    return *cache;
}

/// The wavefront kernel host to host (WavefrontRunner::streamed) on the cached runner; `dst` holds W H bytes, or
/// (W + 7) / 8 bytes a row with `packed`. Out of memory frees the cache and tries once more; after any other error the
/// runner is dropped (its device state is unknown).
Status runWavefront(const Plane8& src, uint8_t* dst, HostOutput output, const EdParams& params,
                    const RunControl& control, const std::string& formText) {
    if (src.width <= 0 || src.height <= 0) return Status::error("empty image");
    // over the GPU path's pixel limit (e.g. 64K x 64K): unavailable, so runImage runs it on the CPU
    if (Status sz = checkImageSize(src.width, src.height, 1); !sz)
        return Status::unavailable("too large for the GPU path: " + std::to_string(src.width) + " x " +
                                   std::to_string(src.height) + " is over its limit of 2^30 pixels");
    const Kernel* kernel = nullptr;
    HT_TRY(validateEdParams(params, kernel));
    if (params.serpentine)
        return Status::notOffered("serpentine scans have no wavefront parallelism; they run on the CPU");
    HT_TRY(wavefrontOffers(*kernel, params.levels));
    WavefrontForm form = WavefrontForm::General;
    HT_TRY(parseForm(formText, *kernel, params.levels, form));
    if (output == HostOutput::Bits && form != WavefrontForm::Fast)
        return Status::error(
            "1-bit packed output needs binary Floyd-Steinberg (the wavefront's fast form); got kernel " +
            params.kernel + " with " + std::to_string(params.levels) + " levels");
    if (!deviceInfo().usable) return Status::unavailable(deviceInfo().reason);
    const std::string key = std::string(formName(form)) + " " + std::to_string(src.width) + "x" +
                            std::to_string(src.height) + " " + kernel->name + " " + std::to_string(params.levels) +
                            (params.linear ? " linear" : " gamma");
    const auto device = lockDevice();
    if (control.cancelled()) return Status::cancelled();  // cancelled while another run held the device
    DeviceCache& cache = deviceCache();
    auto attempt = [&]() -> Status {
        if (!cache.runner || cache.key != key) {
            cache.runner.reset();
            cache.key.clear();
            auto r = std::make_unique<WavefrontRunner>(form);
            HT_TRY(r->prepare(src.width, src.height, params));
            cache.runner = std::move(r);
            cache.key = key;
        }
        cache.runner->setSeed(params.seed);  // not part of the key: a new seed needs no new buffers
        return cache.runner->streamed(src.data.data(), dst, output, cache.staging, control);
    };
    Status s = attempt();
    if (isOutOfDeviceMemory(s)) {
        cache.runner.reset();
        cache.staging.release();
        (void)cudaGetLastError();
        s = attempt();
    }
    if (!s && !s.isCancelled()) {
        cache.runner.reset();
        cache.key.clear();
    }
    if (s) {
        Progress p;
        p.fraction = 1.0;
        p.rowsDone = src.height;
        control.report(p);
    }
    return s;
}

}  // namespace

void warmDevice(const EdParams* likely, double& kernels, double& staging) {
    // the forms the work will use on a small plane: their kernels load (lazily, on first launch)
    using Clock = std::chrono::steady_clock;
    const auto device = lockDevice();
    const auto t0 = Clock::now();
    const Plane8 src(256, 256, 128);
    const Kernel* kernel = likely ? findKernel(likely->kernel) : nullptr;
    const bool fast = !kernel || gpuWavefrontFast(*kernel, likely->levels);
    const bool general = !kernel || !fast;
    if (fast) {
        std::vector<uint8_t> bits;
        (void)runPlanePacked(src, bits, EdParams{});
    }
    if (general) {
        EdParams p = likely && kernel ? *likely : EdParams{};
        if (!likely) p.levels = 3;
        p.serpentine = false;
        Plane8 dst;
        (void)runPlane("wavefront", src, dst, p);
    }
    const auto t1 = Clock::now();
    // the real runs are mostly larger: size the staging ring for bands of full size now
    (void)deviceCache().staging.ensure(Staging::kBandBytes, Staging::kBandBytes);
    kernels += std::chrono::duration<double>(t1 - t0).count();
    staging += std::chrono::duration<double>(Clock::now() - t1).count();
}

void releaseDeviceCache() {
    const auto device = lockDevice();
    DeviceCache& cache = deviceCache();
    cache.runner.reset();
    cache.key.clear();
    cache.staging.release();
}

Status runPlane(const std::string& variant, const Plane8& src, Plane8& dst, const EdParams& params,
                const RunControl& control, const std::string& form) {
    if (variant == "wavefront") {
        if (&src == &dst) {
            Plane8 out;
            HT_TRY(runPlane(variant, src, out, params, control, form));
            dst = std::move(out);
            return Status::ok();
        }
        if (dst.width != src.width || dst.height != src.height || dst.size() != src.size())
            makePlane(dst, src.width, src.height);
        return runWavefront(src, dst.data.data(), HostOutput::Bytes, params, control, form);
    }
    return runOnce(variant, src, params, control, form, [&](Runner& r, cudaStream_t s) {
        // A dst of the right size is overwritten whole (a plane the caller keeps, or one from the PlanePool).
        if (dst.width != src.width || dst.height != src.height || dst.size() != src.size())
            makePlane(dst, src.width, src.height);
        return r.download(dst.data.data(), s);
    });
}

Status runPlanePacked(const Plane8& src, std::vector<uint8_t>& rows, const EdParams& params,
                      const RunControl& control) {
    rows.resize(size_t((src.width + 7) / 8) * size_t(std::max(0, src.height)));
    return runWavefront(src, rows.data(), HostOutput::Bits, params, control, {});
}

Status timePlane(const std::string& variant, const Plane8& src, const EdParams& params, int runs, Timing& t,
                 Plane8* result, const std::string& form) {
    if (src.width <= 0 || src.height <= 0) return Status::error("empty image");
    runs = std::max(1, runs);
    const auto device = lockDevice();
    std::unique_ptr<Runner> r;
    HT_TRY(makeRunner(variant, params, form, r));
    HT_TRY(r->prepare(src.width, src.height, params));
    Stream s;
    HT_CUDA(s.create());
    const size_t n = src.size();
    PinnedBuffer<uint8_t> hin, hout;
    HT_CUDA(hin.allocate(n));
    HT_CUDA(hout.allocate(n));
    std::memcpy(hin.get(), src.data.data(), n);
    const RunControl none;
    PhaseTimer timer;
    HT_TRY(timer.create(s.get(), runs));
    const PhaseTimer::Phase upload = [&] { return r->upload(hin.get(), s.get()); };
    const PhaseTimer::Phase compute = [&] { return r->compute(s.get(), none); };
    HT_TRY(timer.phases(
        upload, compute, [&] { return r->download(hout.get(), s.get()); }, r->cpuAssisted(), t));
    HT_TRY(r->finish());
    if (r->hasOverlapped()) {
        PinnedBuffer<uint8_t> hover;
        HT_CUDA(hover.allocate(n));
        std::vector<double> ov;
        for (int k = 0; k <= runs; ++k) {  // the first run is a warm-up (streams, flags)
            std::memset(hover.get(), 0x5A, n);
            const auto h0 = Clock::now();
            HT_TRY(r->overlapped(hin.get(), hover.get(), s.get()));
            const auto h1 = Clock::now();
            if (k > 0) ov.push_back(std::chrono::duration<double, std::milli>(h1 - h0).count());
            if (std::memcmp(hover.get(), hout.get(), n) != 0)
                return Status::error("the overlapped end-to-end path gave a different result");
        }
        t.overlappedMs = medianOf(ov);
    }
    if (r->hasPacked()) {
        // the 1-bit path: same input, bits on the device, W H / 8 bytes back; checked against the 8-bit result
        const int rowBytes = (src.width + 7) / 8;
        const size_t pn = size_t(rowBytes) * size_t(src.height);
        PinnedBuffer<uint8_t> hpk;
        HT_CUDA(hpk.allocate(pn));
        HT_TRY(r->setPacked(true));
        const PhaseTimer::Phase endToEnd = [&]() -> Status {
            HT_TRY(upload());
            HT_TRY(compute());
            return r->downloadPacked(hpk.get(), s.get());
        };
        std::vector<double> pe2e, pd2h;
        HT_TRY(timer.time(endToEnd, pe2e, true));
        HT_TRY(timer.time([&] { return r->downloadPacked(hpk.get(), s.get()); }, pd2h, false));
        HT_TRY(r->setPacked(false));
        HT_CUDA(cudaGetLastError());
        for (int y = 0; y < src.height; ++y)
            for (int x = 0; x < src.width; ++x) {
                const bool black = (hpk.get()[size_t(y) * rowBytes + size_t(x / 8)] >> (7 - x % 8)) & 1;
                if (black != (hout.get()[size_t(y) * src.width + size_t(x)] == 0))
                    return Status::error("the packed 1-bit output differs from the 8-bit output at (" +
                                         std::to_string(x) + ", " + std::to_string(y) + ")");
            }
        t.packedEndToEndMs = medianOf(pe2e);
        t.packedD2hMs = medianOf(pd2h);
    }
    if (result) {
        *result = Plane8(src.width, src.height);
        std::memcpy(result->data.data(), hout.get(), n);
    }
    return Status::ok();
}

}  // namespace halftone::gpu
