#pragma once
// \brief Test methods for the registry: the frame every one shares, and the GPU-path stand-in of the tests that run
// without a device (the sequential reference written into dst's own memory, as gpu::runPlane does).
#include <algorithm>
#include <atomic>

#include "core/ed/errordiffusion.h"
#include "core/job/registry.h"

namespace halftone::test {

/// \brief A registry entry METHOD/VARIANT of the family "test" (or `family`); the caller sets its functions.
inline MethodInfo testMethodInfo(const char* method, const char* variant, const char* description,
                                 const char* family = "test") {
    MethodInfo m;
    m.method = method;
    m.variant = variant;
    m.family = family;
    m.description = description;
    return m;
}

/// \brief Output planes the stand-in got back with the input's size and wrote into (tests reset it).
inline std::atomic<int> g_recycledSeen{0};

/// \brief The GPU-path stand-in: binary Floyd-Steinberg by the sequential reference, written into dst's memory when
/// dst has the src's size (counted in g_recycledSeen), into a new plane otherwise.
inline Status overwritingGpu(const Plane8& src, Plane8& dst, const ParamValues&, const RunControl&) {
    const Plane8 ref = referenceErrorDiffusion(src, EdParams{});
    if (dst.sameSize(src) && dst.size() == src.size())
        ++g_recycledSeen;
    else
        dst = Plane8(src.width, src.height);
    std::copy(ref.data.begin(), ref.data.end(), dst.data.begin());
    return Status::ok();
}

}  // namespace halftone::test
