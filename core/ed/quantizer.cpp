#include "core/ed/quantizer.h"

#include <cmath>
#include <string>

namespace halftone {

double srgbToLinear(double x) { return x <= 0.04045 ? x / 12.92 : std::pow((x + 0.055) / 1.055, 2.4); }
double linearToSrgb(double x) { return x <= 0.0031308 ? 12.92 * x : 1.055 * std::pow(x, 1.0 / 2.4) - 0.055; }

uint8_t Quantizer::levelValue(int k, int levels) { return uint8_t((510 * k + (levels - 1)) / (2 * (levels - 1))); }

Status Quantizer::checkLevels(int levels) {
    if (levels < 2 || levels > 256)
        return Status::error("levels must be between 2 and 256, got " + std::to_string(levels));
    return Status::ok();
}

Quantizer::Quantizer(int levels, bool linear)
    : levels_(levels < 2 ? 2 : (levels > 256 ? 256 : levels)), linear_(linear) {
    std::array<int32_t, 256> lin{};
    for (int a = 0; a < 256; ++a) lin[size_t(a)] = int32_t(std::lround(4080.0 * srgbToLinear(a / 255.0)));
    for (int a = 0; a < 256; ++a) inputTable_[size_t(a)] = linear_ ? lin[size_t(a)] : 16 * a;
    for (int k = 0; k < levels_; ++k) {
        const uint8_t v = levelValue(k, levels_);
        values_.push_back(v);
        targets_.push_back(linear_ ? lin[v] : 16 * int32_t(v));
    }
    for (int k = 0; k + 1 < levels_; ++k) thresholds_.push_back((targets_[size_t(k)] + targets_[size_t(k) + 1]) / 2);
}

}  // namespace halftone
