// Test-only GPU fault injection: see gpu/faultinject.h. Host code only reads the environment; the
// kernel exists to fail.
#include <cstdlib>
#include <cstring>
#include <string>

#include "gpu/faultinject.h"

namespace halftone::gpu {

namespace {

__global__ void faultTrapKernel(int* sink) {
    __trap();   // the kernel error: an illegal instruction that aborts the launch and poisons the context
    *sink = 1;  // never reached; keeps the kernel from being an empty body
}

Status launchStatus(cudaError_t e, const char* what) {
    if (e == cudaSuccess) return Status::ok();
    (void)cudaGetLastError();
    return Status::unavailable(std::string("CUDA error in ") + what + " (HALFTONE_GPU_FAULT): " + cudaGetErrorName(e) +
                               ": " + cudaGetErrorString(e));
}

}  // namespace

Status injectFault(cudaStream_t stream) {
    const char* v = std::getenv("HALFTONE_GPU_FAULT");
    if (!v || !*v) return Status::ok();
    if (!std::strcmp(v, "launch")) {
        faultTrapKernel<<<1, 4096, 0, stream>>>(nullptr);  // > 1024 threads per block: refused at launch
        return launchStatus(cudaGetLastError(), "fault kernel launch <<<1, 4096>>>");
    }
    if (!std::strcmp(v, "trap")) {
        // launches fine and fails while running: no wait here, so the method's own error checks (its next
        // launch, cudaStreamQuery or cudaStreamSynchronize) must notice the dead context
        faultTrapKernel<<<1, 32, 0, stream>>>(nullptr);
        return launchStatus(cudaGetLastError(), "fault kernel launch <<<1, 32>>>");
    }
    return Status::error(std::string("HALFTONE_GPU_FAULT='") + v + "' is not a known fault (launch, trap)");
}

}  // namespace halftone::gpu
