#pragma once
// \brief The GPU module's plain C++ API: no CUDA types. Falls back (Status::unavailable) when no device is usable.
#include <string>

#include "core/registry.h"

namespace halftone::gpu {

/// \brief Probes for a usable CUDA device once; the reason says why not (no driver, no GPU, not built).
GpuAvailability probe();

/// \brief Registers every GPU method (and attaches GPU paths to existing entries) and records availability.
void registerMethods(Registry& registry);

}  // namespace halftone::gpu
