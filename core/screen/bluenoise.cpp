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
/// truncated Gaussian over its own frame and, across frames, a Gaussian over the same pixel. The extremes are kept
/// per row (the first index of the largest or smallest energy among dots or holes) and refreshed only for rows the
/// last changes touched, so a search costs one pass over the rows instead of one over the entries.
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
        const size_t rows = size_t(n) * size_t(frames);
        hole_.assign(rows, -1);
        dot_.assign(rows, -1);
        dirty_.assign(rows, 1);
        for (size_t i = 0; i < rows; ++i) dirtyRows_.push_back(int(i));
    }
    int entries() const { return int(e_.size()); }
    bool isDot(int i) const { return b_[size_t(i)] != 0; }
    /// Places (s = 1) or removes (s = -1) a dot at entry i.
    void change(int i, int s) {
        b_[size_t(i)] = s > 0 ? 1 : 0;
        const int z = i / plane_, rem = i % plane_, y = rem / n_, x = rem % n_;
        double* ez = e_.data() + size_t(z) * size_t(plane_);
        for (int dy = -r_; dy <= r_; ++dy) {
            const int yy = (y + dy + n_) % n_;
            for (int dx = -r_; dx <= r_; ++dx)
                ez[size_t(yy) * n_ + size_t((x + dx + n_) % n_)] +=
                    s * k_[size_t(dy + r_) * (2 * r_ + 1) + size_t(dx + r_)];
            markDirty(z * n_ + yy);
        }
        for (int dz = -rt_; dz <= rt_; ++dz) {
            if (dz == 0) continue;
            const int zz = ((z + dz) % frames_ + frames_) % frames_;
            e_[size_t(zz) * size_t(plane_) + size_t(rem)] += s * kt_[size_t(std::abs(dz))];
            markDirty(zz * n_ + y);
        }
    }
    /// The tightest cluster: the first dot of largest energy (-1 when there is none).
    int tightestCluster() { return extreme(dot_); }
    /// The largest void: the first hole of smallest energy (-1 when there is none).
    int largestVoid() { return extreme(hole_); }

    /// A search for a run of changes of one sign: dots only removed (energies only fall; the tightest cluster is
    /// wanted) or only added (energies only rise; the largest void is wanted). A lazy heap of (energy, index) then
    /// finds the same entry as the row scan: an entry whose stored energy is stale is pushed again with its current
    /// one before it can be taken, and no stored energy lies beyond its entry's current one on the wanted side.
    class MonotoneSearch {
    public:
        MonotoneSearch(const VoidClusterField& f, bool dots) : f_(f), dots_(dots) {
            for (int i = 0; i < f.entries(); ++i)
                if (f.isDot(i) == dots) heap_.push_back({f.e_[size_t(i)], i});
            std::make_heap(heap_.begin(), heap_.end(), Later{dots});
        }
        int next() {
            const Later later{dots_};
            while (!heap_.empty()) {
                std::pop_heap(heap_.begin(), heap_.end(), later);
                const auto [v, i] = heap_.back();
                heap_.pop_back();
                if (f_.isDot(i) != dots_) continue;
                const double cur = f_.e_[size_t(i)];
                if (cur != v) {
                    heap_.push_back({cur, i});
                    std::push_heap(heap_.begin(), heap_.end(), later);
                    continue;
                }
                return i;
            }
            return -1;
        }

    private:
        /// Heap order: true when l is taken after r (dots: larger energy first; holes: smaller; then lower index).
        struct Later {
            bool dots;
            bool operator()(const std::pair<double, int>& l, const std::pair<double, int>& r) const {
                if (l.first != r.first) return dots ? l.first < r.first : l.first > r.first;
                return l.second > r.second;
            }
        };
        const VoidClusterField& f_;
        bool dots_;
        std::vector<std::pair<double, int>> heap_;
    };

private:
    void markDirty(int row) {
        if (!dirty_[size_t(row)]) {
            dirty_[size_t(row)] = 1;
            dirtyRows_.push_back(row);
        }
    }
    void refresh() {
        for (int row : dirtyRows_) {
            const size_t i0 = size_t(row) * size_t(n_);
            int hole = -1, dot = -1;
            for (size_t i = i0; i < i0 + size_t(n_); ++i) {
                if (b_[i]) {
                    if (dot < 0 || e_[i] > e_[size_t(dot)]) dot = int(i);
                } else if (hole < 0 || e_[i] < e_[size_t(hole)]) {
                    hole = int(i);
                }
            }
            hole_[size_t(row)] = hole;
            dot_[size_t(row)] = dot;
            dirty_[size_t(row)] = 0;
        }
        dirtyRows_.clear();
    }
    int extreme(const std::vector<int>& perRow) {
        refresh();
        const bool wantMax = &perRow == &dot_;
        int best = -1;
        for (int i : perRow) {
            if (i < 0) continue;
            if (best < 0 || (wantMax ? e_[size_t(i)] > e_[size_t(best)] : e_[size_t(i)] < e_[size_t(best)])) best = i;
        }
        return best;
    }

    int n_, frames_, plane_, r_, rt_;
    std::vector<double> k_, kt_, e_;
    std::vector<uint8_t> b_, dirty_;
    std::vector<int> hole_, dot_, dirtyRows_;
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
        VoidClusterField::MonotoneSearch clusters(f1, true);
        for (int r = ones - 1; r >= 0; --r) {
            const int c = clusters.next();
            f1.change(c, -1);
            rank[size_t(c)] = r;
        }
    }
    // Phases 2 and 3 coincide with a periodic kernel: the densest cluster of holes is the largest void of dots.
    VoidClusterField::MonotoneSearch voids(field, false);
    for (int r = ones; r < N; ++r) {
        const int v = voids.next();
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
