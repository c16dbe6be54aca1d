// Riemersma's dither (Riemersma 1998) along Cervený's generalised Hilbert curve, in the integers of docs/spec.md
// section 8.
#include "core/ed/riemersma.h"

#include <algorithm>

#include "core/ed/errordiffusion.h"
#include "core/ed/quantizer.h"
#include "core/job/registry.h"

namespace halftone {

std::vector<std::pair<int, int>> curveOrder(int width, int height) {
    std::vector<std::pair<int, int>> order;
    if (width > 0 && height > 0) order.reserve(size_t(width) * size_t(height));
    forEachCurvePixel(width, height, [&](int i, int j) {
        order.emplace_back(i, j);
        return true;
    });
    return order;
}

Status riemersmaDither(const Plane8& src, Plane8& dst, const RiemersmaParams& params, const RunControl& control) {
    if (Status s = Quantizer::checkLevels(params.levels); !s) return s;
    if (Status s = checkImageSize(src.width, src.height, 1, ~0ull); !s) return s;
    const Quantizer q(params.levels, params.linear);
    if (!dst.sameSize(src)) dst = Plane8(src.width, src.height);

    // The error list as a ring: err[(head + i) & 15] is the i-th oldest of the last 16 errors (zero before the
    // first pixel). Riemersma's error is input minus output, without the correction added to the pixel.
    static_assert(kRiemersmaListLength == 16, "the ring index below masks with 15");
    int32_t err[kRiemersmaListLength] = {};
    int head = 0;
    const int64_t total = int64_t(src.width) * src.height;
    int64_t done = 0;
    bool stopped = false;
    forEachCurvePixel(src.width, src.height, [&](int i, int j) {
        if ((done & 4095) == 0 && done > 0) {
            if (control.cancelled()) {
                stopped = true;
                return false;
            }
            if ((done & 262143) == 0) control.report(double(done) / double(total));
        }
        int32_t acc = 0;
        for (int n = 0; n < kRiemersmaListLength; ++n) acc += kRiemersmaWeights[size_t(n)] * err[(head + n) & 15];
        const int32_t a = q.input(src.at(i, j));
        const int32_t s = a + floorDiv(acc + kRiemersmaDivisor / 2, kRiemersmaDivisor);
        const int k = q.level(s);
        dst.at(i, j) = q.values()[size_t(k)];
        err[head] = a - q.targets()[size_t(k)];  // the oldest leaves, the newest enters at the end of the list
        head = (head + 1) & 15;
        ++done;
        return true;
    });
    if (stopped || control.cancelled()) return Status::cancelled();
    control.report(1.0);
    return Status::ok();
}

namespace {

RiemersmaParams riemersmaParamsFrom(const ParamValues& v) {
    RiemersmaParams p;
    p.levels = int(v.getInt("levels", p.levels));
    p.linear = v.getBool("linear", false);
    return p;
}

}  // namespace

void registerRiemersmaMethods(Registry& r) {
    MethodInfo m = describeMethod(
        "riemersma", "hilbert", "curve",
        "Riemersma's dither: the pixels are visited along a Hilbert curve (generalised to any rectangle) and each is "
        "corrected by the last 16 errors on the curve, recent ones weighing most. No directional worms; one CPU "
        "thread. With two levels, grays below 20 print all black and above 235 all white (the list is short).");
    m.params = {
        intParam("levels", "Output levels", 2, 256, 2, "number of output levels L (2 = binary)"),
        boolParam("linear", "Linear light", false,
                  "diffuse error in linear light (sRGB decoded) instead of gamma-encoded values"),
    };
    m.schedule = "hilbert";
    m.exact = false;
    m.cpu = [](const Plane8& src, Plane8& dst, const ParamValues& v, const RunControl& rc) {
        return riemersmaDither(src, dst, riemersmaParamsFrom(v), rc);
    };
    r.add(std::move(m));
    r.setDisplayName("riemersma", "Riemersma dither");
}

}  // namespace halftone
