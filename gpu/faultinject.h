#pragma once
// \brief Test-only GPU fault injection, off unless HALFTONE_GPU_FAULT is set in the environment:
//   HALFTONE_GPU_FAULT=launch  a kernel launch with an invalid configuration (4096 threads per block) just
//                              before the method's kernels: refused at launch (cudaErrorInvalidValue on
//                              CUDA 13, cudaErrorInvalidConfiguration on older toolkits); the context
//                              stays usable.
//   HALFTONE_GPU_FAULT=trap    a kernel that executes __trap(), enqueued before the method's kernels and not
//                              waited for: the method's own checks meet the error; it is sticky (the CUDA
//                              context is unusable for the rest of the process).
// Unset or empty: nothing happens. Any other value: Status::error naming it. Read on every runPlane call.
// Either fault surfaces as Status::unavailable from gpu::runPlane, so runImage falls back to the CPU.
#include <cuda_runtime_api.h>

#include "core/status.h"

namespace halftone::gpu {

/// \brief Enqueues the fault HALFTONE_GPU_FAULT names on `stream` (nothing when unset).
Status injectFault(cudaStream_t stream);

}  // namespace halftone::gpu
