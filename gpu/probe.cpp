// Device probe and registry hookup: every GPU method becomes selectable by name; the wavefront kernel also becomes
// the GPU path of the sequential ED/EC entries, so `halftone --list` shows cpu,gpu for them.
#include <cuda_runtime_api.h>

#include <atomic>
#include <chrono>
#include <mutex>
#include <system_error>
#include <thread>

#include "gpu/dbs_gpu.h"
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
    std::atomic<bool> requested{false};
    double seconds = -1;
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

void startInBackground() {
    static std::once_flag once;
    std::call_once(once, [] {
        Starter& st = starter();
        std::lock_guard<std::mutex> lock(st.mutex);
        st.requested = true;
        try {
            st.thread = std::thread([&st] {
                const auto t0 = std::chrono::steady_clock::now();
                if (deviceInfo().usable) warmDevice();
                st.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
            });
        } catch (const std::system_error&) {
            // no thread to spare: the first probe() or run starts the device instead
        }
    });
}

bool startedInBackground() { return starter().requested.load(); }

double backgroundStartSeconds() {
    Starter& st = starter();
    st.join();
    return st.seconds;
}

GpuAvailability probe() {
    const DeviceInfo& d = deviceInfo();
    GpuAvailability a;
    a.usable = d.usable;
    a.reason = d.usable ? std::string() : d.reason;
    a.deviceName = d.name;
    return a;
}

namespace {

/// The schedule model's name for what a GPU method runs (core/schedule.h).
std::string scheduleOf(const std::string& variant) {
    if (variant == "wavefront") return "gpu-wavefront";
    if (variant.rfind("bw", 0) == 0) return "parallelogram";
    if (variant == "knight" || variant == "handover" || variant == "hybrid") return "knight";
    return "k-delay";
}

}  // namespace

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
            registry.attachGpu(m.method, m.variant, fnFor(m.variant), scheduleOf(m.variant));
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
        info.schedule = scheduleOf(m.variant);
        info.exact = true;
        registry.add(std::move(info));
    }
    // The wavefront kernel is exact for every kernel, level count and mode: it is the GPU path of the sequential
    // entries too.
    for (const char* method : {"ed", "ec"})
        for (const char* variant : {"plain", "rc"})
            if (registry.find(method, variant))
                registry.attachGpu(method, variant, fnFor("wavefront"), scheduleOf("wavefront"));
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
    registerDbsGpu(registry);  // DBS: gpu/dbs_gpu.h
}

}  // namespace halftone::gpu
