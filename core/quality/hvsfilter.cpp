#include "core/quality/hvsfilter.h"

#include "core/ed/quantizer.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <string>
#include <vector>

namespace halftone {

std::vector<double> hvsGaussianTaps(const HvsFilterParams& params) {
    const int w = std::max(0, params.radius);
    std::vector<double> taps(size_t(2 * w + 1));
    double sum = 0;
    for (int i = -w; i <= w; ++i) {
        const double v = params.sigma > 0 ? std::exp(-0.5 * double(i * i) / (params.sigma * params.sigma)) : (i == 0);
        taps[size_t(i + w)] = v;
        sum += v;
    }
    for (double& t : taps) t /= sum;
    return taps;
}

Status hvsFilter(const Plane8& src, Plane8& dst, const HvsFilterParams& params, const RunControl& control) {
    if (src.empty()) return Status::error("HVS filter: empty image");
    if (!(params.sigma >= 0) || params.radius < 0 || params.radius > 64)
        return Status::error("HVS filter: sigma must be >= 0 and the radius between 0 and 64");
    const std::vector<double> taps = hvsGaussianTaps(params);
    const int w = params.radius, W = src.width, H = src.height;
    // The working space: 8-bit values as stored, or linear light on the same 0..255 scale.
    std::array<double, 256> decode{};
    for (int v = 0; v < 256; ++v) decode[size_t(v)] = params.linear ? 255.0 * srgbToLinear(v / 255.0) : double(v);
    auto encode = [&](double v) -> uint8_t {
        if (params.linear) v = 255.0 * linearToSrgb(std::clamp(v / 255.0, 0.0, 1.0));
        return uint8_t(std::clamp(std::lround(v), 0L, 255L));
    };
    // The truncated 2-D Gaussian on a square support is the outer product of the 1-D taps: filter rows,
    // then columns, clamping coordinates at the edges.
    PlaneF tmp(W, H);
    for (int y = 0; y < H; ++y) {
        if ((y & 63) == 0) {
            if (control.cancelled()) return Status::cancelled();
            control.report(0.5 * double(y) / H, "perceived: rows");
        }
        const uint8_t* s = src.row(y);
        float* t = tmp.row(y);
        for (int x = 0; x < W; ++x) {
            double acc = 0;
            for (int k = -w; k <= w; ++k) acc += taps[size_t(k + w)] * decode[s[std::clamp(x + k, 0, W - 1)]];
            t[x] = float(acc);
        }
    }
    Plane8 out(W, H);
    std::vector<const float*> rows(size_t(2 * w + 1));
    for (int y = 0; y < H; ++y) {
        if ((y & 63) == 0) {
            if (control.cancelled()) return Status::cancelled();
            control.report(0.5 + 0.5 * double(y) / H, "perceived: columns");
        }
        for (int k = -w; k <= w; ++k) rows[size_t(k + w)] = tmp.row(std::clamp(y + k, 0, H - 1));
        uint8_t* o = out.row(y);
        for (int x = 0; x < W; ++x) {
            double acc = 0;
            for (int k = 0; k <= 2 * w; ++k) acc += taps[size_t(k)] * rows[size_t(k)][x];
            o[x] = encode(acc);
        }
    }
    dst = std::move(out);
    control.report(1.0);
    return Status::ok();
}

}  // namespace halftone
