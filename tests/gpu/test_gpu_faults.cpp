// Real GPU faults: each must make runImage fall back to the CPU with a note naming the reason,
// with output equal to the SPEC reference bit for bit. Plain C++ (the GPU machine has no Qt).
//   test_gpu_faults oom           cudaMalloc most free device memory (leaves 256 MiB), run ed/plain on the GPU
//                                 on an image whose device buffers do not fit; a small image still runs on
//                                 the GPU meanwhile; after the hog is freed the large image runs on the GPU.
//   test_gpu_faults huge          a 65536 x 65536 request (4 GiB per plane: needs about 20 GiB of host RAM,
//                                 skipped below 24 GiB; it cannot be done in less, since runImage takes the
//                                 whole image in host memory) while the hog holds the card: over the GPU
//                                 path's limit, it runs on the CPU (ec/wavefront: parallel CPU fallback).
//   test_gpu_faults launch        HALFTONE_GPU_FAULT=launch: a kernel launch with an invalid configuration;
//                                 the context survives, so the next run without the fault is on the GPU.
//   test_gpu_faults trap          HALFTONE_GPU_FAULT=trap: a kernel executes __trap() (sticky error); later
//                                 runs in the same process fall back too. Own process (ctest entry).
//   test_gpu_faults trap-progress the same with a progress callback (the wavefront's cudaStreamQuery loop).
// No usable GPU: prints why and exits 77 (ctest: skipped).
#include <cuda_runtime_api.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "core/ed/errordiffusion.h"
#include "core/job/registry.h"
#include "gpu/gpu.h"
#include "tests/gpu/gputest.h"
#include "tests/common/testutil.h"

using namespace halftone;

namespace {

using gputest::check;
using gputest::contains;

constexpr size_t kMiB = size_t(1) << 20;

/// Most of the free device memory, held until release(): what a full card looks like to the GPU methods.
class Hog {
public:
    /// Allocates until about `leave` bytes are free (chunks of 1 GiB, then the rest).
    bool grab(size_t leave) {
        size_t freeB = 0, total = 0;
        if (cudaMemGetInfo(&freeB, &total) != cudaSuccess) return false;
        std::printf("device memory before the hog: %zu MiB free of %zu MiB\n", freeB / kMiB, total / kMiB);
        while (freeB > leave + kMiB) {
            size_t chunk = std::min(size_t(1) << 30, freeB - leave);
            void* p = nullptr;
            // a chunk can fail when free memory is fragmented or reserved: halve it until it fits
            while (chunk >= kMiB && cudaMalloc(&p, chunk) != cudaSuccess) {
                (void)cudaGetLastError();
                chunk /= 2;
            }
            if (chunk < kMiB) break;
            blocks_.push_back(p);
            held_ += chunk;
            if (cudaMemGetInfo(&freeB, &total) != cudaSuccess) return false;
        }
        free_ = freeB;
        std::printf("hog holds %zu MiB; %zu MiB free\n", held_ / kMiB, freeB / kMiB);
        return freeB < leave + 64 * kMiB;
    }
    void release() {
        for (void* p : blocks_) cudaFree(p);
        blocks_.clear();
        held_ = 0;
    }
    size_t freeBytes() const { return free_; }
    ~Hog() { release(); }

private:
    std::vector<void*> blocks_;
    size_t held_ = 0, free_ = 0;
};

/// A cheap, varied plane for sizes where mt19937 per pixel would dominate (rows of an LCG over a ramp).
Plane8 patternPlane(int w, int h) {
    Plane8 p(w, h);
    for (int y = 0; y < h; ++y) {
        uint32_t s = 2654435761u * uint32_t(y + 1);
        uint8_t* row = p.data.data() + size_t(y) * size_t(w);
        for (int x = 0; x < w; ++x) {
            s = s * 1664525u + 1013904223u;
            row[x] = (x & 256) ? uint8_t(s >> 24) : uint8_t((x + y) & 255);
        }
    }
    return p;
}

struct Outcome {
    Status status;
    RunResult result;
};

Outcome runEd(const Plane8& src, bool withProgress = false, const char* method = "ed", const char* variant = "plain") {
    Outcome o;
    RunRequest req;
    req.method = Registry::instance().find(method, variant);
    req.device = Device::Gpu;
    RunControl rc;
    if (withProgress) rc.onProgress = [](const Progress&) {};
    o.status = runImage(Image::gray(src), req, o.result, rc);
    return o;
}

/// runImage on `src` must have fallen back to the CPU with a note naming `reason`, output exact.
void expectFallback(const Outcome& o, const Plane8& ref, const std::string& reason, const std::string& what) {
    const std::string note = o.result.note;
    std::printf("  status: %s; device: %s; note: %s\n", o.status.isOk() ? "ok" : o.status.message().c_str(),
                toString(o.result.device), note.c_str());
    check(o.status.isOk(), what + ": runImage succeeds");
    check(o.result.device == Device::Cpu, what + ": ran on the CPU");
    check(contains(note, "GPU failed (") && contains(note, "ran on the CPU") && contains(note, reason),
          what + ": the note names the reason '" + reason + "'");
    check(!o.result.image.channels.empty() && o.result.image.channels[0] == ref,
          what + ": output equals the SPEC reference bit for bit");
}

void expectGpu(const Outcome& o, const Plane8& ref, const std::string& what) {
    std::printf("  status: %s; device: %s; note: %s\n", o.status.isOk() ? "ok" : o.status.message().c_str(),
                toString(o.result.device), o.result.note.c_str());
    check(o.status.isOk() && o.result.device == Device::Gpu && o.result.note.empty(), what + ": ran on the GPU");
    check(!o.result.image.channels.empty() && o.result.image.channels[0] == ref,
          what + ": output equals the SPEC reference bit for bit");
}

int oom() {
    const EdParams fs;
    // 16K x 16K: the wavefront needs input + output (256 MiB each) + strip boundaries on the device
    const int n = 16384;
    const Plane8 big = patternPlane(n, n);
    const Plane8 bigRef = referenceErrorDiffusion(big, fs);
    const Plane8 small = test::randomPlane(1021, 257, test::freshSeed("oom small"));
    const Plane8 smallRef = referenceErrorDiffusion(small, fs);
    {
        Hog hog;
        check(hog.grab(256 * kMiB), "the hog leaves about 256 MiB free");
        check(hog.freeBytes() < 2 * size_t(n) * n, "16K x 16K input + output no longer fit on the device");
        Plane8 direct;
        const Status ds = gpu::runPlane("wavefront", big, direct, fs);
        std::printf("  gpu::runPlane: %s\n", ds.message().c_str());
        check(ds.isUnavailable() && contains(ds.message(), "cudaErrorMemoryAllocation"),
              "gpu::runPlane reports out of memory as unavailable");
        expectFallback(runEd(big), bigRef, "cudaErrorMemoryAllocation", "16K x 16K with the card full");
        expectGpu(runEd(small), smallRef, "1021 x 257 with the card full (fits in what is left)");
        hog.release();
    }
    expectGpu(runEd(big), bigRef, "16K x 16K after the hog is freed");
    return 0;
}

int huge() {
    const uint64_t ram = uint64_t(sysconf(_SC_PHYS_PAGES)) * uint64_t(sysconf(_SC_PAGE_SIZE));
    if (ram < (uint64_t(24) << 30)) {
        return gputest::skipAll(
            "65536 x 65536 needs about 20 GiB of host memory (4 GiB per plane: input, its copies, "
            "output, reference); this machine has " +
            std::to_string(ram >> 20) + " MiB");
    }
    const EdParams fs;
    const int n = 65536;
    Hog hog;
    check(hog.grab(256 * kMiB), "the hog leaves about 256 MiB free");
    Plane8 src = patternPlane(n, n);
    const Plane8 ref = referenceErrorDiffusion(src, fs);
    // ec/wavefront: its CPU path is core's parallel wavefront (all cores), so the fallback takes seconds,
    // not the minutes of the sequential one; the reference is still the sequential SPEC reference
    const MethodInfo* m = Registry::instance().find("ec", "wavefront");
    check(m && m->cpu && m->gpu, "ec/wavefront has a CPU and a GPU path");
    expectFallback(runEd(src, false, "ec", "wavefront"), ref, "too large for the GPU path",
                   "65536 x 65536 on a full card (ec/wavefront)");
    return 0;
}

int injected(const char* fault, bool withProgress) {
    const EdParams fs;
    const Plane8 src = test::randomPlane(1021, 257, test::freshSeed("fault"));
    const Plane8 ref = referenceErrorDiffusion(src, fs);
    expectGpu(runEd(src, withProgress), ref, "without a fault");
    setenv("HALFTONE_GPU_FAULT", fault, 1);
    const bool sticky = !std::strcmp(fault, "trap");
    // the refused launch is named in the note (CUDA 13 reports it as cudaErrorInvalidValue, older toolkits as
    // cudaErrorInvalidConfiguration: the test checks the launch, not the code's name)
    const std::string reason = sticky ? "CUDA error" : "fault kernel launch <<<1, 4096>>>";
    expectFallback(runEd(src, withProgress), ref, reason, std::string("HALFTONE_GPU_FAULT=") + fault);
    unsetenv("HALFTONE_GPU_FAULT");
    if (sticky) {
        // the context is dead for the rest of the process: every later GPU run must fall back as well
        const Plane8 again = test::randomPlane(333, 77, test::freshSeed("after trap"));
        expectFallback(runEd(again, withProgress), referenceErrorDiffusion(again, fs), "CUDA error",
                       "a later run after the trap (sticky error)");
    } else {
        expectGpu(runEd(src, withProgress), ref, "the next run without the fault (context still usable)");
    }
    return 0;
}

}  // namespace

int main(int argc, char** argv) {
    const std::string mode = argc == 2 ? argv[1] : "";
    if (mode != "oom" && mode != "huge" && mode != "launch" && mode != "trap" && mode != "trap-progress") {
        std::printf("usage: %s oom|huge|launch|trap|trap-progress\n", argv[0]);
        return 2;
    }
    const GpuAvailability avail = gpu::probe();
    if (!avail.usable) return gputest::skipAll("no usable GPU: " + avail.reason);
    gputest::counts().verbose = true;
    std::printf("device: %s; mode: %s\n", avail.deviceName.c_str(), mode.c_str());
    gpu::registerMethods(Registry::instance());
    int rc = 0;
    if (mode == "oom")
        rc = oom();
    else if (mode == "huge")
        rc = huge();
    else if (mode == "launch")
        rc = injected("launch", false);
    else if (mode == "trap")
        rc = injected("trap", false);
    else
        rc = injected("trap", true);
    if (rc == gputest::kSkipped) return rc;
    return gputest::finish();
}
