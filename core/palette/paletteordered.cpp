// Ordered dither to a palette: Yliluoma's greedy mixing plan ("Joel Yliluoma's arbitrary-palette positional
// dithering algorithm", 2011, algorithm 2), computed exactly in integers in linear light, with the threshold array
// of ordered dither choosing one plan entry per pixel (docs/spec.md section 5).
#include "core/palette/paletteordered.h"

#include <algorithm>
#include <bit>
#include <memory>
#include <numeric>

#include "core/ed/quantizer.h"
#include "core/threads.h"
#include "core/workerpool.h"

namespace halftone {

MixingPlanner::MixingPlanner(const Palette& palette, int planSize, PaletteMatch match)
    : n_(std::clamp(planSize, kMinMixingPlan, kMaxMixingPlan)) {
    const std::array<int32_t, 3> w = matchWeights(match);
    weights_ = {w[0], w[1], w[2]};
    input_ = Quantizer(2, true).inputTable();
    const int k = palette.size();
    targets_.reserve(size_t(k));
    norm_.reserve(size_t(k));
    std::vector<int64_t> luma;
    for (const Rgb8& c : palette.colors) {
        const std::array<int64_t, 3> p = {input_[c[0]], input_[c[1]], input_[c[2]]};
        targets_.push_back(p);
        norm_.push_back(weights_[0] * p[0] * p[0] + weights_[1] * p[1] * p[1] + weights_[2] * p[2] * p[2]);
        luma.push_back(299 * p[0] + 587 * p[1] + 114 * p[2]);
    }
    std::vector<int> order(static_cast<size_t>(k));
    std::iota(order.begin(), order.end(), 0);
    std::stable_sort(order.begin(), order.end(), [&](int a, int b) { return luma[size_t(a)] > luma[size_t(b)]; });
    rank_ = std::move(order);
}

void MixingPlanner::plan(uint8_t r, uint8_t g, uint8_t b, uint8_t* out) const {
    const int k = int(targets_.size());
    const int64_t t[3] = {input_[r], input_[g], input_[b]};
    int64_t s[3] = {0, 0, 0};
    int count[kMaxPaletteColors] = {};
    for (int n = 0; n < n_; ++n) {
        // The candidate c minimising w_R (D_R - P_cR)^2 + w_G (D_G - P_cG)^2 + w_B (D_B - P_cB)^2 with
        // D = (n + 1) T - S; the term in D alone is the same for every c and is left out.
        const int64_t wd0 = 2 * weights_[0] * ((n + 1) * t[0] - s[0]);
        const int64_t wd1 = 2 * weights_[1] * ((n + 1) * t[1] - s[1]);
        const int64_t wd2 = 2 * weights_[2] * ((n + 1) * t[2] - s[2]);
        int best = 0;
        int64_t bestCost = INT64_MAX;
        for (int c = 0; c < k; ++c) {
            const auto& p = targets_[size_t(c)];
            const int64_t cost = norm_[size_t(c)] - (wd0 * p[0] + wd1 * p[1] + wd2 * p[2]);
            if (cost < bestCost) {
                bestCost = cost;
                best = c;
            }
        }
        ++count[best];
        for (int ch = 0; ch < 3; ++ch) s[ch] += targets_[size_t(best)][size_t(ch)];
    }
    for (int c : rank_)
        for (int i = 0; i < count[c]; ++i) *out++ = uint8_t(c);
}

std::array<uint8_t, 256> MixingPlanner::entryTable(const ThresholdArray& screen, int planSize) {
    const int64_t n = std::clamp(planSize, kMinMixingPlan, kMaxMixingPlan);
    std::array<int64_t, 256> hist{};
    for (uint8_t t : screen.data) ++hist[t];
    const int64_t m = int64_t(screen.size());
    std::array<uint8_t, 256> entry{};
    int64_t below = 0;
    for (int t = 0; t < 256; ++t) {
        const int64_t atOrBelow = below + hist[size_t(t)];
        entry[size_t(t)] = uint8_t(m ? std::min(n - 1, n * (below + atOrBelow) / (2 * m)) : 0);
        below = atOrBelow;
    }
    return entry;
}

namespace {

/// A direct-mapped cache of plans, one per thread: a pure function of the colour, so its hits change nothing.
class PlanCache {
public:
    explicit PlanCache(const MixingPlanner& planner) : planner_(planner), n_(planner.planSize()) {
        bits_ = 16;
        while (bits_ > 8 && (size_t(1) << bits_) * size_t(n_) > (size_t(8) << 20)) --bits_;
        keys_.assign(size_t(1) << bits_, UINT32_MAX);
        plans_.resize(keys_.size() * size_t(n_));
    }
    const uint8_t* get(uint8_t r, uint8_t g, uint8_t b) {
        const uint32_t key = uint32_t(r) << 16 | uint32_t(g) << 8 | b;
        const size_t slot = (key * 0x9E3779B1u) >> (32 - bits_);
        uint8_t* p = plans_.data() + slot * size_t(n_);
        if (keys_[slot] != key) {
            planner_.plan(r, g, b, p);
            keys_[slot] = key;
        }
        return p;
    }

private:
    const MixingPlanner& planner_;
    int n_;
    int bits_;
    std::vector<uint32_t> keys_;
    std::vector<uint8_t> plans_;
};

}  // namespace

Status orderedPaletteDither(const Image& rgb, const Palette& palette, const ThresholdArray& screen, int planSize,
                            PaletteMatch match, Plane8& indices, const RunControl& control, uint64_t planTableBytes) {
    if (Status s = checkPalette(palette); !s) return s;
    if (screen.empty()) return Status::error("ordered dither: the threshold array is empty");
    if (rgb.channels.size() != 1 && rgb.channels.size() < 3)
        return Status::error("ordered dither to a palette needs an RGB or gray image");
    const int w = rgb.width(), h = rgb.height();
    if (Status s = checkImageSize(w, h, 1); !s) return s;
    const Plane8* in[3];
    for (int c = 0; c < 3; ++c) in[c] = &rgb.channels[rgb.channels.size() == 1 ? 0 : size_t(c)];
    const MixingPlanner planner(palette, planSize, match);
    const int n = planner.planSize();
    const std::array<uint8_t, 256> entry = MixingPlanner::entryTable(screen, n);

    Plane8 out(w, h);
    constexpr int kBand = 16;
    const int threads = std::max(1, threadsOrAll(control.threads));

    // The distinct colours of the image, as a bit set over the 2^24 colours with a prefix count per 64-bit word, so
    // that a colour's rank among them is prefix[word] + popcount(lower bits of the word).
    std::vector<uint64_t> used(size_t(1) << 18, 0);
    for (int y = 0; y < h; ++y) {
        const uint8_t *r = in[0]->row(y), *g = in[1]->row(y), *b = in[2]->row(y);
        for (int x = 0; x < w; ++x) {
            const uint32_t key = uint32_t(r[x]) << 16 | uint32_t(g[x]) << 8 | b[x];
            used[key >> 6] |= uint64_t(1) << (key & 63);
        }
    }
    std::vector<uint32_t> prefix(used.size());
    uint64_t distinct = 0;
    for (size_t i = 0; i < used.size(); ++i) {
        prefix[i] = uint32_t(distinct);
        distinct += uint64_t(std::popcount(used[i]));
    }
    auto rank = [&](uint32_t key) {
        return prefix[key >> 6] + uint32_t(std::popcount(used[key >> 6] & ((uint64_t(1) << (key & 63)) - 1)));
    };

    // Each pixel takes the entry of its colour's plan that the screen picks, rows in bands; planOf(worker, r, g, b)
    // gives the colour's plan.
    auto dither = [&](const RunControl& rc, auto&& planOf) {
        return parallelChunks(h, kBand, threads, rc, "ordered dither to a palette",
                              [&](int64_t y0, int64_t y1, int worker) {
                                  for (int y = int(y0); y < int(y1); ++y) {
                                      const uint8_t *r = in[0]->row(y), *g = in[1]->row(y), *b = in[2]->row(y);
                                      const uint8_t* t = screen.row(y % screen.height);
                                      uint8_t* o = out.row(y);
                                      for (int x = 0, tx = 0; x < w; ++x) {
                                          o[x] = planOf(worker, r[x], g[x], b[x])[entry[t[tx]]];
                                          if (++tx == screen.width) tx = 0;
                                      }
                                  }
                              });
    };
    if (distinct * uint64_t(n) <= planTableBytes) {
        // Every distinct colour's plan once, in parallel over the bit set, then one table look-up per pixel.
        std::vector<uint8_t> plans(size_t(distinct) * size_t(n));
        constexpr int64_t kWords = 256;
        const bool planned = parallelChunks(
            int64_t(used.size()), kWords, threads, control.scaled(0, 0.9), "ordered dither to a palette: plans",
            [&](int64_t w0, int64_t w1, int) {
                for (int64_t word = w0; word < w1; ++word) {
                    uint32_t index = prefix[size_t(word)];
                    for (uint64_t bits = used[size_t(word)]; bits; bits &= bits - 1, ++index) {
                        const uint32_t key = uint32_t(word * 64 + std::countr_zero(bits));
                        planner.plan(uint8_t(key >> 16), uint8_t(key >> 8), uint8_t(key), &plans[size_t(index) * n]);
                    }
                }
            });
        if (!planned || !dither(control.scaled(0.9, 1.0), [&](int, uint8_t r, uint8_t g, uint8_t b) {
                const uint32_t key = uint32_t(r) << 16 | uint32_t(g) << 8 | b;
                return &plans[size_t(rank(key)) * n];
            }))
            return Status::cancelled();
    } else {
        // Too many colours for a table of every plan: a cache per worker.
        std::vector<std::unique_ptr<PlanCache>> caches(static_cast<size_t>(threads));
        if (!dither(control, [&](int worker, uint8_t r, uint8_t g, uint8_t b) {
                std::unique_ptr<PlanCache>& cache = caches[size_t(worker)];
                if (!cache) cache = std::make_unique<PlanCache>(planner);
                return cache->get(r, g, b);
            }))
            return Status::cancelled();
    }
    indices = std::move(out);
    control.report(1.0, "ordered dither to a palette");
    return Status::ok();
}

}  // namespace halftone
