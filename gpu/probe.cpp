// Device probe and registry hookup: every GPU method becomes selectable by name; the wavefront kernel also becomes
// the GPU path of the sequential ED/EC entries, so `halftone --list` shows cpu,gpu for them.
#include <cuda_runtime_api.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <mutex>
#include <optional>
#include <system_error>
#include <thread>

#include "gpu/dbs/dbs_gpu.h"
#include "gpu/deviceinfo.h"
#include "gpu/gpu.h"

namespace halftone::gpu {

const DeviceInfo& deviceInfo() {
    // a function-local static: a caller that arrives while startInBackground()'s thread is here waits for its answer
    static const DeviceInfo info = [] {
        DeviceInfo d;
        int count = 0;
        const cudaError_t e = cudaGetDeviceCount(&count);
        if (e == cudaErrorInsufficientDriver || e == cudaErrorNoDevice) {
            (void)cudaGetLastError();
            d.reason = e == cudaErrorNoDevice ? "no CUDA device found" : "no CUDA driver (or no GPU) on this machine";
            return d;
        }
        if (e != cudaSuccess) {
            (void)cudaGetLastError();
            d.reason = std::string("CUDA initialisation failed: ") + cudaGetErrorName(e) + ": " + cudaGetErrorString(e);
            return d;
        }
        if (count <= 0) {
            d.reason = "no CUDA device found";
            return d;
        }
        cudaDeviceProp prop{};
        if (cudaError_t pe = cudaGetDeviceProperties(&prop, 0); pe != cudaSuccess) {
            (void)cudaGetLastError();
            d.reason = std::string("cannot query CUDA device 0: ") + cudaGetErrorString(pe);
            return d;
        }
        d.name = prop.name;
        d.computeMajor = prop.major;
        d.computeMinor = prop.minor;
        int sm = 0;
        cudaDeviceGetAttribute(&sm, cudaDevAttrMultiProcessorCount, 0);  // TOOLCHAIN.md pitfall 5
        d.smCount = sm;
        int optin = 0;
        cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, 0);
        d.sharedPerBlockOptin = optin;
        if (prop.major < 7 || (prop.major == 7 && prop.minor < 5)) {
            d.reason = "device " + d.name + " is older than compute capability 7.5, which this build targets";
            return d;
        }
        // a first context: fails here (not inside a method) if the binary lacks code for this device
        if (cudaError_t fe = cudaFree(nullptr); fe != cudaSuccess) {
            (void)cudaGetLastError();
            d.reason = std::string("cannot create a CUDA context: ") + cudaGetErrorString(fe);
            return d;
        }
        d.usable = true;
        return d;
    }();
    return info;
}

std::unique_lock<std::recursive_mutex> lockDevice() {
    static std::recursive_mutex* device = new std::recursive_mutex;  // never destroyed: runs may end at exit
    return std::unique_lock<std::recursive_mutex>(*device);
}

namespace {

/// The start-up thread; joined at exit so that the process never ends while it is inside the CUDA runtime.
struct Starter {
    std::mutex mutex;
    std::thread thread;
    std::atomic<bool> requested{false}, done{false};
    std::chrono::steady_clock::time_point begun;
    StartTimes times;
    ~Starter() { join(); }
    void join() {
        std::lock_guard<std::mutex> lock(mutex);
        if (thread.joinable()) thread.join();
    }
};

Starter& starter() {
    static Starter s;
    return s;
}

}  // namespace

void startInBackground(const EdParams* likely) {
    static std::once_flag once;
    std::call_once(once, [likely] {
        Starter& st = starter();
        std::lock_guard<std::mutex> lock(st.mutex);
        st.requested = true;
        st.begun = std::chrono::steady_clock::now();
        const std::optional<EdParams> job = likely ? std::optional<EdParams>(*likely) : std::nullopt;
        try {
            st.thread = std::thread([&st, job] {
                using Clock = std::chrono::steady_clock;
                const auto seconds = [](Clock::time_point a) {
                    return std::chrono::duration<double>(Clock::now() - a).count();
                };
                const auto t0 = Clock::now();
                const bool usable = deviceInfo().usable;
                StartTimes t;
                t.context = seconds(t0);
                if (usable) warmDevice(job ? &*job : nullptr, t.kernels, t.staging);
                t.total = seconds(t0);
                st.times = t;
                st.done = true;
            });
        } catch (const std::system_error&) {
            // no thread to spare: the first probe() or run starts the device instead
        }
    });
}

bool startedInBackground() { return starter().requested.load(); }

StartTimes backgroundStartTimes() {
    Starter& st = starter();
    st.join();
    return st.times;
}

double backgroundStartSeconds() { return backgroundStartTimes().total; }

namespace {

/// What a start of the device takes (CUDA context, the wavefront's kernels, pinned staging memory): 270-310 ms
/// measured on an NVIDIA H200 machine (docs/performance.md).
constexpr double kStartSeconds = 0.30;

/// Seconds until the device is started, for the automatic device choice: 0 once the background start-up ended, the
/// rest of a typical start while it runs, a whole start when none was begun (the run would make it).
double startRemaining() {
    Starter& st = starter();
    if (!st.requested.load()) return kStartSeconds;
    if (st.done.load()) return 0.0;
    const double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - st.begun).count();
    return std::max(0.02, kStartSeconds - elapsed);
}

}  // namespace

GpuAvailability probe() {
    const DeviceInfo& d = deviceInfo();
    GpuAvailability a;
    a.usable = d.usable;
    a.reason = d.usable ? std::string() : d.reason;
    a.deviceName = d.name;
    a.startRemaining = &startRemaining;
    return a;
}

void registerMethods(Registry& registry) {
    registry.setGpuProbe(&probe);  // the device is probed (a CUDA context created) on first need
    auto fnFor = [](const std::string& variant) -> PlaneFunction {
        return [variant](const Plane8& src, Plane8& dst, const ParamValues& v, const RunControl& rc) {
            return runPlane(variant, src, dst, edParamsFrom(v), rc);
        };
    };
    for (const MethodSpec& m : methods()) {
        // an entry of the same name from core (the CPU "ec/wavefront") keeps its CPU path and parameters
        // and gains the GPU path: one name per idea, both devices listed
        if (const MethodInfo* existing = registry.find(m.method, m.variant); existing && existing->cpu) {
            registry.attachGpu(m.method, m.variant, fnFor(m.variant), m.schedule);
            continue;
        }
        MethodInfo info;
        info.method = m.method;
        info.variant = m.variant;
        info.description = m.description;
        info.family = "error-diffusion";
        info.params = edParamSpecs(false);
        if (!m.allKernels)
            for (ParamSpec& ps : info.params)
                if (ps.key == "kernel") ps.choices = {"floyd-steinberg"};
        info.gpu = fnFor(m.variant);
        info.schedule = m.schedule;
        info.exact = true;
        registry.add(std::move(info));
    }
    // The wavefront kernel is exact for every kernel, level count and mode: it is the GPU path of the sequential
    // entries too.
    for (const char* method : {"ed", "ec"})
        for (const char* variant : {"plain", "rc"})
            if (registry.find(method, variant))
                registry.attachGpu(method, variant, fnFor("wavefront"), methods().front().schedule);
    // Binary Floyd-Steinberg to 1-bit output (a PBM): the fast form packs the bits on the device, so an eighth of
    // the bytes come back and no 8-bit plane is made; other parameters run the plane form.
    const PackedFunction packed = [](const Plane8& src, std::vector<uint8_t>& rows, const ParamValues& v,
                                     const RunControl& rc) {
        const EdParams p = edParamsFrom(v);
        if (p.kernel != "floyd-steinberg" || p.levels != 2 || p.serpentine)
            return Status::unavailable("1-bit output on the GPU is binary Floyd-Steinberg only");
        return runPlanePacked(src, rows, p, rc);
    };
    for (const char* method : {"ed", "ec"})
        for (const char* variant : {"wavefront", "plain", "rc"})
            if (MethodInfo* m = registry.findMutable(method, variant); m && m->gpu) m->gpuPacked = packed;
    // Error diffusion to a palette (docs/spec.md section 4): the palette wavefront is exact for every kernel and
    // working space, so it is the GPU path of the sequential entries' palette form too (serpentine scans come back
    // unavailable and run on the CPU).
    const PaletteFunction palette = [](const Image& rgb, const Palette& p, Plane8& indices, const ParamValues& v,
                                       const RunControl& rc) {
        return paletteErrorDiffusion(rgb, p, edParamsFrom(v), indices, rc);
    };
    for (const char* method : {"ed", "ec"})
        for (const char* variant : {"wavefront", "plain", "rc"})
            if (MethodInfo* m = registry.findMutable(method, variant)) m->paletteGpu = palette;
    // What a pixel costs on each device, for the automatic device choice (MethodInfo::Cost): the sequential entries
    // and the CPU wavefront on one thread of the benchmark's Xeon, the GPU wavefront host memory to host memory on a
    // started NVIDIA H200, transfers included (docs/performance.md).
    struct Measured {
        const char* method;
        const char* variant;
        MethodInfo::Cost cost;
    };
    static constexpr Measured kMeasured[] = {
        {"ed", "plain", {9.9, false, 0.06}}, {"ec", "plain", {10.1, false, 0.06}},    {"ed", "rc", {6.3, false, 0.06}},
        {"ec", "rc", {6.8, false, 0.06}},    {"ec", "wavefront", {1.14, true, 0.06}},
    };
    for (const Measured& row : kMeasured)
        if (MethodInfo* m = registry.findMutable(row.method, row.variant); m && m->gpu && m->cpu) m->cost = row.cost;
    registerDbsGpu(registry);  // DBS: gpu/dbs/dbs_gpu.h
}

}  // namespace halftone::gpu
