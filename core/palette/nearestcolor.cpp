#include "core/palette/nearestcolor.h"

#include <algorithm>

#include "core/palette/paletteed.h"

namespace halftone {

namespace {

/// Cell side 2^7 = 128 (8 steps of 8-bit input): finer cells list fewer colours, but the error-diffused sums spread
/// widely, so finer grids pay in cells built and in cache misses more than they save (halftone-bench's palette
/// section measures it for 2..256 colours; docs/design/palette-search.md).
constexpr int kDefaultShift = 7;

/// Smallest and largest |x - p| over x in [lo, hi].
inline void axisRange(int32_t lo, int32_t hi, int32_t p, int64_t& dmin, int64_t& dmax) {
    if (p < lo) {
        dmin = lo - p;
        dmax = hi - p;
    } else if (p > hi) {
        dmin = p - hi;
        dmax = p - lo;
    } else {
        dmin = 0;
        dmax = std::max(p - lo, hi - p);
    }
}

}  // namespace

NearestColor::NearestColor(const PaletteTargets& targets, int shift)
    : targets_(targets.targets), weights_{targets.weights[0], targets.weights[1], targets.weights[2]} {
    shift_ = shift > 0 ? std::clamp(shift, 4, 12) : kDefaultShift;
    bits_ = 12 - shift_;
    side_ = 1 << bits_;  // 4080 >> shift_ < 2^(12 - shift_)
    cells_.resize(size_t(side_) * size_t(side_) * size_t(side_));
    duplicate_.assign(targets_.size(), 0);
    for (size_t k = 0; k < targets_.size(); ++k)
        for (size_t j = 0; j < k && !duplicate_[k]; ++j) duplicate_[k] = targets_[j] == targets_[k];
}

int NearestColor::scan(const Cell& cell, int32_t r, int32_t g, int32_t b) {
    Cell c = cell;
    if (c.count == 0) {
        const size_t index = size_t(&cell - cells_.data());
        build(index, cells_[index]);
        c = cells_[index];
        if (c.count == 1) return c.first;
    }
    // |dR| <= 4080, so dR^2 fits in 32 bits; the weighted sum needs 64 (up to 1000 * 4080^2)
    const Candidate* p = pool_.data() + c.offset;
    const int64_t wr = weights_[0], wg = weights_[1], wb = weights_[2];
    auto dist = [&](const Candidate& q) {
        const int32_t dr = r - q.r, dg = g - q.g, db = b - q.b;
        return wr * int64_t(dr * dr) + wg * int64_t(dg * dg) + wb * int64_t(db * db);
    };
    int best = p[0].k;
    int64_t bestD = dist(p[0]);
    for (int i = 1; i < c.count; ++i) {
        const int64_t d = dist(p[i]);
        if (d < bestD) {
            bestD = d;
            best = p[i].k;
        }
    }
    return best;
}

void NearestColor::build(size_t index, Cell& c) {
    const int32_t cb = int32_t(index % size_t(side_)), cg = int32_t(index / size_t(side_) % size_t(side_)),
                  cr = int32_t(index / (size_t(side_) * size_t(side_)));
    const int32_t span = (1 << shift_) - 1;
    const std::array<int32_t, 3> lo = {cr << shift_, cg << shift_, cb << shift_};
    const std::array<int32_t, 3> hi = {std::min(lo[0] + span, 4080), std::min(lo[1] + span, 4080),
                                       std::min(lo[2] + span, 4080)};
    const std::array<int64_t, 3>& weight = weights_;
    const size_t n = targets_.size();
    std::vector<int64_t>& dmin = scratch_;
    dmin.resize(n);
    int64_t m = INT64_MAX;
    for (size_t k = 0; k < n; ++k) {
        if (duplicate_[k]) continue;
        int64_t sumMin = 0, sumMax = 0;
        for (int a = 0; a < 3; ++a) {
            int64_t lo1, hi1;
            axisRange(lo[size_t(a)], hi[size_t(a)], targets_[k][size_t(a)], lo1, hi1);
            sumMin += weight[size_t(a)] * lo1 * lo1;
            sumMax += weight[size_t(a)] * hi1 * hi1;
        }
        dmin[k] = sumMin;
        m = std::min(m, sumMax);
    }
    c.offset = uint32_t(pool_.size());
    for (size_t k = 0; k < n; ++k)
        if (!duplicate_[k] && dmin[k] <= m)
            pool_.push_back({targets_[k][0], targets_[k][1], targets_[k][2], int32_t(k)});
    c.count = uint16_t(pool_.size() - c.offset);
    c.first = uint16_t(pool_[c.offset].k);
}

int NearestColor::builtCells() const {
    return int(std::count_if(cells_.begin(), cells_.end(), [](const Cell& c) { return c.count > 0; }));
}

double NearestColor::meanCandidates() const {
    const int n = builtCells();
    return n > 0 ? double(pool_.size()) / n : 0.0;
}

}  // namespace halftone
