#pragma once
// \brief What the probe found: usable or not (and why), device name, SM count. Internal to gpu/.
#include <string>

namespace halftone::gpu {

/// \brief Result of the one-time device probe.
struct DeviceInfo {
    bool usable = false;
    std::string reason;  ///< why not usable
    std::string name;
    int smCount = 0;
    int computeMajor = 0, computeMinor = 0;
};

/// \brief Probes once (thread-safe) and caches the answer.
const DeviceInfo& deviceInfo();

/// \brief A first tiny run of the wavefront kernel (both forms): loads the kernels and allocates the pinned staging
/// memory, so that the first real run pays neither (gpu/gpumethods.cpp).
void warmDevice();

}  // namespace halftone::gpu
