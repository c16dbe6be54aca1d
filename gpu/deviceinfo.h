#pragma once
// \brief What the probe found: usable or not (and why), device name, SM count. Internal to gpu/.
#include <mutex>
#include <string>

#include "core/ed/errordiffusion.h"

namespace halftone::gpu {

/// \brief Result of the one-time device probe.
struct DeviceInfo {
    bool usable = false;
    std::string reason;  ///< why not usable
    std::string name;
    int smCount = 0;
    int computeMajor = 0, computeMinor = 0;
    int sharedPerBlockOptin = 0;  ///< bytes of shared memory one block may opt in to
};

/// \brief Probes once (thread-safe) and caches the answer.
const DeviceInfo& deviceInfo();

/// \brief Holds the device for one GPU operation of this process, from its first CUDA call to its last (its buffers
/// freed included); recursive, so an operation may call another. Every entry point of gpu/ takes it. The rule it
/// keeps: while a persistent kernel waits for flags the host feeds it (the streamed wavefront), no other thread may
/// make a call that waits for the device to drain (freeing or pinning memory, loading a kernel module on its first
/// launch): that call would wait for the kernel, and the kernel for the feeding thread, for ever. The background
/// start-up holds it too, so the first real run waits for the start-up instead of racing it.
std::unique_lock<std::recursive_mutex> lockDevice();

/// \brief A first tiny run of the wavefront kernel in the form `likely` needs (both forms when null): loads the kernels
/// and allocates the pinned staging memory, so that the first real run pays neither (gpu/gpumethods.cpp). Adds its
/// parts' seconds to `kernels` and `staging`.
void warmDevice(const EdParams* likely, double& kernels, double& staging);

}  // namespace halftone::gpu
