// Built when no CUDA toolkit was found: the API exists and says why there is no GPU.
#include "gpu/gpu.h"

namespace halftone::gpu {

namespace {
const char* kReason = "this build has no CUDA support (no CUDA toolkit found at configure time)";
}

GpuAvailability probe() {
    GpuAvailability a;
    a.usable = false;
    a.reason = kReason;
    return a;
}

void startInBackground(const EdParams*) {}

void releaseDeviceCache() {}

StartTimes backgroundStartTimes() { return {}; }

double backgroundStartSeconds() { return -1; }

bool startedInBackground() { return false; }

void registerMethods(Registry& registry) { registry.setGpuAvailability(probe()); }

const std::vector<MethodSpec>& methods() {
    static const std::vector<MethodSpec> none;
    return none;
}

Status runPlane(const std::string&, const Plane8&, Plane8&, const EdParams&, const RunControl&, const std::string&) {
    return Status::unavailable(kReason);
}

Status runPlanePacked(const Plane8&, std::vector<uint8_t>&, const EdParams&, const RunControl&) {
    return Status::unavailable(kReason);
}

Status timePlane(const std::string&, const Plane8&, const EdParams&, int, Timing&, Plane8*, const std::string&) {
    return Status::unavailable(kReason);
}

Status paletteErrorDiffusion(const Image&, const Palette&, const EdParams&, Plane8&, const RunControl&) {
    return Status::unavailable(kReason);
}

Status timePalette(const Image&, const Palette&, const EdParams&, int, Timing&, Plane8*) {
    return Status::unavailable(kReason);
}

std::vector<std::string> wavefrontForms() { return {}; }

}  // namespace halftone::gpu
