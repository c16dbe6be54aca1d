// Built when no CUDA toolkit was found: the API exists and says why there is no GPU.
#include "gpu/gpu.h"

namespace halftone::gpu {

GpuAvailability probe() {
    GpuAvailability a;
    a.usable = false;
    a.reason = "this build has no CUDA support (no CUDA toolkit found at configure time)";
    return a;
}

void registerMethods(Registry& registry) { registry.setGpuAvailability(probe()); }

}  // namespace halftone::gpu
