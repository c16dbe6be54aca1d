// Blue-noise threshold arrays: Ulichney's void-and-cluster (1993) and its spatiotemporal energy (Wolfe, Morrical and
// Ramamoorthi 2022) for frame sequences.
#include "core/screen/bluenoise.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <map>
#include <mutex>
#include <numeric>
#include <random>
#include <sstream>
#include <tuple>

namespace halftone {

namespace {

constexpr double kVoidClusterSigma = 1.5;
/// Entries of one spatiotemporal volume at most (frames x size x size).
constexpr int64_t kMaxBlueNoiseEntries = int64_t(1) << 20;

/// The periodic energy field of a binary pattern over `frames` n x n frames (void-and-cluster): each dot adds a
/// truncated Gaussian over its own frame and, across frames, a Gaussian over the same pixel. A tournament tree over the
/// entries keeps, at every node, the first hole of smallest energy and the first dot of largest energy below it (the
/// left child wins ties, so the root holds the first extreme in index order, as a scan would); a change refreshes only
/// the nodes above the entries it touched.
class VoidClusterField {
public:
    VoidClusterField(int n, int frames, double sigma) : n_(n), frames_(frames), plane_(n * n) {
        r_ = std::min((n - 1) / 2, int(std::ceil(4 * sigma)));
        k_.resize(size_t(2 * r_ + 1) * (2 * r_ + 1));
        for (int dy = -r_; dy <= r_; ++dy)
            for (int dx = -r_; dx <= r_; ++dx)
                k_[size_t(dy + r_) * (2 * r_ + 1) + size_t(dx + r_)] =
                    std::exp(-(dx * dx + dy * dy) / (2 * sigma * sigma));
        rt_ = std::min(frames / 2, int(std::ceil(4 * sigma)));
        for (int dz = 0; dz <= rt_; ++dz) kt_.push_back(std::exp(-(dz * dz) / (2 * sigma * sigma)));
        const size_t entries = size_t(plane_) * size_t(frames);
        e_.assign(entries, 0.0);
        b_.assign(entries, 0);
        leaves_ = 1;
        while (leaves_ < entries) leaves_ *= 2;
        hole_.assign(2 * leaves_, -1);
        dot_.assign(2 * leaves_, -1);
        for (size_t i = 0; i < entries; ++i) hole_[leaves_ + i] = int(i);
        for (size_t k = leaves_ - 1; k >= 1; --k) combine(k);
    }
    int entries() const { return int(e_.size()); }
    bool isDot(int i) const { return b_[size_t(i)] != 0; }
    /// Places (s = 1) or removes (s = -1) a dot at entry i.
    void change(int i, int s) {
        b_[size_t(i)] = s > 0 ? 1 : 0;
        hole_[leaves_ + size_t(i)] = s > 0 ? -1 : i;
        dot_[leaves_ + size_t(i)] = s > 0 ? i : -1;
        const int z = i / plane_, rem = i % plane_, y = rem / n_, x = rem % n_;
        const size_t z0 = size_t(z) * size_t(plane_);
        double* ez = e_.data() + z0;
        for (int dy = -r_; dy <= r_; ++dy) {
            const int yy = (y + dy + n_) % n_;
            for (int dx = -r_; dx <= r_; ++dx)
                ez[size_t(yy) * n_ + size_t((x + dx + n_) % n_)] +=
                    s * k_[size_t(dy + r_) * (2 * r_ + 1) + size_t(dx + r_)];
            // The row's touched entries: columns x - r .. x + r, periodic (one span or two).
            const size_t row = z0 + size_t(yy) * size_t(n_);
            const int lo = x - r_, hi = x + r_;
            if (lo >= 0 && hi < n_) {
                refresh(row + size_t(lo), row + size_t(hi));
            } else {
                refresh(row + size_t(std::max(lo, 0)), row + size_t(std::min(hi, n_ - 1)));
                if (lo < 0) refresh(row + size_t(lo + n_), row + size_t(n_ - 1));
                if (hi >= n_) refresh(row, row + size_t(hi - n_));
            }
        }
        for (int dz = -rt_; dz <= rt_; ++dz) {
            if (dz == 0) continue;
            const size_t j = size_t(((z + dz) % frames_ + frames_) % frames_) * size_t(plane_) + size_t(rem);
            e_[j] += s * kt_[size_t(std::abs(dz))];
            refresh(j, j);
        }
    }
    /// The tightest cluster: the first dot of largest energy (-1 when there is none).
    int tightestCluster() const { return dot_[1]; }
    /// The largest void: the first hole of smallest energy (-1 when there is none).
    int largestVoid() const { return hole_[1]; }

private:
    void combine(size_t k) {
        const int lh = hole_[2 * k], rh = hole_[2 * k + 1];
        hole_[k] = lh < 0 ? rh : rh < 0 ? lh : e_[size_t(rh)] < e_[size_t(lh)] ? rh : lh;
        const int ld = dot_[2 * k], rd = dot_[2 * k + 1];
        dot_[k] = ld < 0 ? rd : rd < 0 ? ld : e_[size_t(rd)] > e_[size_t(ld)] ? rd : ld;
    }
    /// Recomputes the nodes above entries first..last (their energies or states changed).
    void refresh(size_t first, size_t last) {
        for (size_t lo = (leaves_ + first) / 2, hi = (leaves_ + last) / 2; lo >= 1; lo /= 2, hi /= 2)
            for (size_t k = lo; k <= hi; ++k) combine(k);
    }

    int n_, frames_, plane_, r_, rt_;
    size_t leaves_;
    std::vector<double> k_, kt_, e_;
    std::vector<uint8_t> b_;
    std::vector<int> hole_, dot_;  ///< tournament tree: node k's children are 2k and 2k + 1; leaves from leaves_
};

Status checkVolume(int n, int frames) {
    if (n < kMinBlueNoiseSize || n > kMaxBlueNoiseSize)
        return Status::error("blue-noise size must be between " + std::to_string(kMinBlueNoiseSize) + " and " +
                             std::to_string(kMaxBlueNoiseSize) + ", got " + std::to_string(n));
    if (frames < 1 || frames > kMaxBlueNoiseFrames)
        return Status::error("blue-noise frames must be between 1 and " + std::to_string(kMaxBlueNoiseFrames) +
                             ", got " + std::to_string(frames));
    if (int64_t(n) * n * frames > kMaxBlueNoiseEntries)
        return Status::error("a blue-noise array of " + std::to_string(n) + " x " + std::to_string(n) + " x " +
                             std::to_string(frames) + " frames has " + std::to_string(int64_t(n) * n * frames) +
                             " entries, over the limit of " + std::to_string(kMaxBlueNoiseEntries) +
                             "; use fewer frames or a smaller size");
    return Status::ok();
}

}  // namespace

Status voidAndClusterRanks(int n, int frames, uint64_t seed, std::vector<PlaneT<int32_t>>& out,
                           const RunControl& control) {
    if (Status s = checkVolume(n, frames); !s) return s;
    VoidClusterField field(n, frames, kVoidClusterSigma);
    const int N = field.entries();
    std::mt19937_64 rng(seed);
    const int ones = std::max(1, N / 10);
    for (int placed = 0; placed < ones;) {
        const int i = int(rng() % uint64_t(N));
        if (field.isDot(i)) continue;
        field.change(i, 1);
        ++placed;
    }
    // Initial binary pattern: move the tightest cluster into the largest void until they coincide.
    for (int guard = 0; guard < 10 * N; ++guard) {
        const int c = field.tightestCluster();
        field.change(c, -1);
        const int v = field.largestVoid();
        field.change(v, 1);
        if (v == c) break;
        if ((guard & 63) == 0 && control.cancelled()) return Status::cancelled();
    }
    std::vector<int32_t> rank(size_t(N), 0);
    {
        // Phase 1: the initial pattern's dots ranked by taking out the tightest cluster first (highest rank).
        VoidClusterField f1 = field;
        for (int r = ones - 1; r >= 0; --r) {
            const int c = f1.tightestCluster();
            f1.change(c, -1);
            rank[size_t(c)] = r;
        }
    }
    // Phases 2 and 3 coincide with a periodic kernel: the densest cluster of holes is the largest void of dots.
    for (int r = ones; r < N; ++r) {
        const int v = field.largestVoid();
        field.change(v, 1);
        rank[size_t(v)] = r;
        if ((r & 255) == 0) {
            if (control.cancelled()) return Status::cancelled();
            control.report(double(r) / N, "void-and-cluster");
        }
    }
    // Each frame's ranks: its entries in the order of the volume.
    const int plane = n * n;
    std::vector<PlaneT<int32_t>> result;
    std::vector<int> order(static_cast<size_t>(plane));
    for (int z = 0; z < frames; ++z) {
        const int32_t* rz = rank.data() + size_t(z) * size_t(plane);
        std::iota(order.begin(), order.end(), 0);
        std::sort(order.begin(), order.end(), [&](int a, int b) { return rz[a] < rz[b]; });
        PlaneT<int32_t> p(n, n, 0);
        for (int i = 0; i < plane; ++i) p.data[size_t(order[size_t(i)])] = i;
        result.push_back(std::move(p));
    }
    out = std::move(result);
    control.report(1.0, "void-and-cluster");
    return Status::ok();
}

Status voidAndClusterScreen(int n, uint64_t seed, ThresholdArray& out, const RunControl& control) {
    std::vector<PlaneT<int32_t>> ranks;
    if (Status s = voidAndClusterRanks(n, 1, seed, ranks, control); !s) return s;
    out = thresholdsFromRanks(ranks.front());
    return Status::ok();
}

Status parseBlueNoiseSpec(const std::string& options, BlueNoiseParams& out) {
    BlueNoiseParams p;
    auto whole = [](const std::string& s, uint64_t& v) {
        const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
        return !s.empty() && ec == std::errc() && end == s.data() + s.size();
    };
    const auto sizeError = [](const std::string& v) {
        return Status::error("screen 'blue-noise:N' needs a whole size N from " + std::to_string(kMinBlueNoiseSize) +
                             " to " + std::to_string(kMaxBlueNoiseSize) + ", got '" + v + "'");
    };
    std::stringstream ss(options);
    std::string item;
    bool first = true;
    while (std::getline(ss, item, ',')) {
        const bool bare = first && item.find('=') == std::string::npos;
        first = false;
        if (item.empty()) continue;
        const size_t eq = item.find('=');
        const std::string k = bare ? "size" : item.substr(0, eq);
        const std::string v = bare ? item : eq == std::string::npos ? std::string() : item.substr(eq + 1);
        uint64_t u = 0;
        if (k == "size") {
            if (!whole(v, u) || u < uint64_t(kMinBlueNoiseSize) || u > uint64_t(kMaxBlueNoiseSize)) return sizeError(v);
            p.size = int(u);
        } else if (k == "seed") {
            if (!whole(v, u)) return Status::error("blue-noise seed must be a whole number, got '" + v + "'");
            p.seed = u;
        } else if (k == "frames") {
            if (!whole(v, u) || u < 1 || u > uint64_t(kMaxBlueNoiseFrames))
                return Status::error("blue-noise frames must be a whole number from 1 to " +
                                     std::to_string(kMaxBlueNoiseFrames) + ", got '" + v + "'");
            p.frames = int(u);
        } else if (k == "frame") {
            if (!whole(v, u) || u > uint64_t(INT32_MAX))
                return Status::error("blue-noise frame must be a whole number, got '" + v + "'");
            p.frame = int(u);
        } else {
            return Status::error("bad blue-noise screen option '" + item +
                                 "'; use blue-noise:N or blue-noise:size=N,seed=S,frames=T,frame=K");
        }
    }
    if (Status s = checkVolume(p.size, p.frames); !s) return s;
    out = p;
    return Status::ok();
}

namespace {

/// Generated arrays by (size, seed, frames): every frame's thresholds.
struct BlueNoiseCache {
    std::mutex mutex;
    std::map<std::tuple<int, uint64_t, int>, std::vector<ThresholdArray>> arrays;
    size_t bytes = 0;
};
BlueNoiseCache& cache() {
    static BlueNoiseCache c;
    return c;
}
constexpr size_t kCacheBytes = size_t(64) << 20;

}  // namespace

Status blueNoiseScreen(const BlueNoiseParams& p, ThresholdArray& out, const RunControl& control) {
    if (Status s = checkVolume(p.size, p.frames); !s) return s;
    const auto key = std::make_tuple(p.size, p.seed, p.frames);
    BlueNoiseCache& c = cache();
    {
        std::lock_guard lock(c.mutex);
        if (auto it = c.arrays.find(key); it != c.arrays.end()) {
            out = it->second[size_t(p.frame % p.frames)];
            return Status::ok();
        }
    }
    std::vector<PlaneT<int32_t>> ranks;
    if (Status s = voidAndClusterRanks(p.size, p.frames, p.seed, ranks, control); !s) return s;
    std::vector<ThresholdArray> frames;
    for (const PlaneT<int32_t>& r : ranks) frames.push_back(thresholdsFromRanks(r));
    out = frames[size_t(p.frame % p.frames)];
    std::lock_guard lock(c.mutex);
    const size_t bytes = size_t(p.size) * size_t(p.size) * size_t(p.frames);
    if (c.bytes + bytes > kCacheBytes) {
        c.arrays.clear();
        c.bytes = 0;
    }
    if (c.arrays.emplace(key, std::move(frames)).second) c.bytes += bytes;
    return Status::ok();
}

}  // namespace halftone
