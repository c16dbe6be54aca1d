#pragma once
// \brief Input scaling and the L-level quantizer of docs/spec.md section 1.
#include <array>
#include <cstdint>
#include <vector>

#include "core/status.h"

namespace halftone {

/// \brief sRGB decoding lin(x) for x in [0,1] (double precision, host only).
double srgbToLinear(double x);
/// \brief sRGB encoding, the inverse of srgbToLinear, for x in [0,1] (double precision, host only).
double linearToSrgb(double x);

/// \brief Maps 8-bit input to scale-16 values and picks output levels; shared by every ED/EC path.
///
/// Gamma mode: A = 16 a, Q_k = 16 v_k. Linear mode: A = round(4080 lin(a/255)),
/// Q_k = round(4080 lin(v_k/255)), from one 256-entry table computed here (the GPU receives
/// the table, it never recomputes it).
class Quantizer {
public:
    Quantizer(int levels, bool linear);

    int levels() const { return levels_; }
    bool linear() const { return linear_; }
    /// \brief Scale-16 input value A for 8-bit a.
    int input(uint8_t a) const { return inputTable_[a]; }
    const std::array<int32_t, 256>& inputTable() const { return inputTable_; }
    /// \brief Level targets Q_k (scale 16), ascending.
    const std::vector<int32_t>& targets() const { return targets_; }
    /// \brief 8-bit output values v_k.
    const std::vector<uint8_t>& values() const { return values_; }
    /// \brief Thresholds t_k = floor((Q_k + Q_{k+1}) / 2): level > k iff S > t_k (ties go down).
    const std::vector<int32_t>& thresholds() const { return thresholds_; }

    /// \brief Level index k nearest to S (ties to the smaller k).
    int level(int32_t s) const {
        if (levels_ == 2) return s > thresholds_[0] ? 1 : 0;
        // binary search over thresholds: number of t_k with S > t_k
        int lo = 0, hi = levels_ - 1;
        while (lo < hi) {
            const int mid = (lo + hi) >> 1;
            if (s > thresholds_[size_t(mid)])
                lo = mid + 1;
            else
                hi = mid;
        }
        return lo;
    }

    /// \brief 8-bit output level value v_k for level index k (docs/spec.md section 1).
    static uint8_t levelValue(int k, int levels);
    static Status checkLevels(int levels);

private:
    int levels_;
    bool linear_;
    std::array<int32_t, 256> inputTable_{};
    std::vector<int32_t> targets_;
    std::vector<uint8_t> values_;
    std::vector<int32_t> thresholds_;
};

}  // namespace halftone
