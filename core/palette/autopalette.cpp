// Palettes made from an image (`--palette auto:N`, docs/palettes.md): weighted k-means over a fixed grid of samples,
// in two working spaces and with and without error feedback; the candidate whose Floyd-Steinberg halftone of the
// samples is closest to them by the filtered Delta E 2000 of docs/spec.md section 3 is kept.
#include <algorithm>
#include <array>
#include <cmath>
#include <iterator>
#include <limits>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "core/ed/quantizer.h"
#include "core/image.h"
#include "core/palette/palette.h"
#include "core/palette/paletteed.h"
#include "core/quality/metrics.h"
#include "core/threads.h"
#include "core/workerpool.h"

namespace halftone {
namespace {

using Vec3 = std::array<double, 3>;

Vec3 labOf(const Vec3& gamma255) {
    const Lab l = linearSrgbToLab(srgbToLinear(gamma255[0] / 255.0), srgbToLinear(gamma255[1] / 255.0),
                                  srgbToLinear(gamma255[2] / 255.0));
    return {l.L, l.a, l.b};
}

Rgb8 rgbOfLab(const Vec3& lab) {
    const std::array<double, 3> lin = labToLinearSrgb({lab[0], lab[1], lab[2]});
    Rgb8 out{};
    for (size_t k = 0; k < 3; ++k)
        out[k] = uint8_t(std::lround(255.0 * std::clamp(linearToSrgb(std::clamp(lin[k], 0.0, 1.0)), 0.0, 1.0)));
    return out;
}

Rgb8 rgbOfGamma(const Vec3& g) {
    Rgb8 out{};
    for (size_t k = 0; k < 3; ++k) out[k] = uint8_t(std::lround(std::clamp(g[k], 0.0, 255.0)));
    return out;
}

double dist2(const Vec3& p, const Vec3& q) {
    const double a = p[0] - q[0], b = p[1] - q[1], c = p[2] - q[2];
    return a * a + b * b + c * c;
}

uint32_t packed(const Rgb8& c) { return (uint32_t(c[0]) << 16) | (uint32_t(c[1]) << 8) | c[2]; }
Rgb8 unpacked(uint32_t v) { return Rgb8{uint8_t(v >> 16), uint8_t(v >> 8), uint8_t(v)}; }
double lightness(const Rgb8& c) { return labOf({double(c[0]), double(c[1]), double(c[2])})[0]; }

/// A palette of one colour gets black or white beside it, whichever is farther, to make two.
void atLeastTwo(std::vector<Rgb8>& colors) {
    if (colors.size() == 1) colors.push_back(lightness(colors[0]) > 50 ? Rgb8{0, 0, 0} : Rgb8{255, 255, 255});
}

/// The documented order of a palette made from an image: darkest first (CIELAB L*), ties by the colour's hex value.
void sortByLightness(std::vector<Rgb8>& colors) {
    std::vector<std::pair<double, uint32_t>> keyed;
    for (const Rgb8& c : colors) keyed.push_back({lightness(c), packed(c)});
    std::sort(keyed.begin(), keyed.end());
    colors.clear();
    for (const auto& k : keyed) colors.push_back(unpacked(k.second));
}

/// A bin of sampled colours: its weighted mean in the working space and its weight.
struct Point {
    Vec3 v{};
    double w = 0;
};

/// Weighted k-means (Lloyd, 1982) over `pts`, seeded by the heaviest point and then repeatedly the point with the
/// largest weight x squared distance to its nearest centre (a deterministic form of the k-means++ seeding of
/// Arthur and Vassilvitskii, 2007); at most 40 rounds of assign-and-average, stopping when no assignment changes.
/// With `feedbackRounds` > 0 the points' weights are then raised by their distance to the nearest centre (each
/// multiplied by 1 + distance / mean distance) and the rounds run again from the centres found, so that colours
/// far from every centre (the extremes of the image's gamut, which error diffusion can reach only by mixing the
/// colours around them) draw centres towards them.
std::vector<Vec3> kMeans(std::vector<Point> pts, int k, int feedbackRounds) {
    std::vector<Vec3> centres;
    std::vector<double> nearestD(pts.size(), std::numeric_limits<double>::infinity());
    size_t first = 0;
    for (size_t i = 1; i < pts.size(); ++i)
        if (pts[i].w > pts[first].w) first = i;
    centres.push_back(pts[first].v);
    while (int(centres.size()) < k) {
        size_t best = 0;
        double bestScore = -1;
        for (size_t i = 0; i < pts.size(); ++i) {
            nearestD[i] = std::min(nearestD[i], dist2(pts[i].v, centres.back()));
            const double score = pts[i].w * nearestD[i];
            if (score > bestScore) {
                bestScore = score;
                best = i;
            }
        }
        if (bestScore <= 0) break;  // every point is on a centre already
        centres.push_back(pts[best].v);
    }
    std::vector<int> assign(pts.size(), -1);
    std::vector<double> nearest(pts.size(), 0.0);
    for (int round = 0; round <= feedbackRounds; ++round) {
        if (round > 0) {
            double sum = 0, weight = 0;
            for (size_t i = 0; i < pts.size(); ++i) {
                sum += pts[i].w * std::sqrt(nearest[i]);
                weight += pts[i].w;
            }
            const double mean = sum / weight;
            if (!(mean > 0)) break;
            for (size_t i = 0; i < pts.size(); ++i) pts[i].w *= 1.0 + std::sqrt(nearest[i]) / mean;
            std::fill(assign.begin(), assign.end(), -1);
        }
        for (int iter = 0; iter < 40; ++iter) {
            bool changed = false;
            // The centres in order of their first coordinate: each point's search runs outwards from its own
            // first coordinate and stops where that coordinate alone is farther than the nearest centre so far.
            std::vector<std::pair<double, int>> order;
            for (int c = 0; c < int(centres.size()); ++c) order.push_back({centres[size_t(c)][0], c});
            std::sort(order.begin(), order.end());
            for (size_t i = 0; i < pts.size(); ++i) {
                const Vec3& p = pts[i].v;
                int best = std::max(assign[i], 0);  // the nearest centre, ties to the smaller index
                double bestD = dist2(p, centres[size_t(best)]);
                auto consider = [&](int c) {
                    const double d = dist2(p, centres[size_t(c)]);
                    if (d < bestD || (d == bestD && c < best)) {
                        bestD = d;
                        best = c;
                    }
                };
                const auto start = std::lower_bound(order.begin(), order.end(), std::pair<double, int>{p[0], -1});
                for (auto it = start; it != order.end(); ++it) {
                    const double g = it->first - p[0];
                    if (g * g > bestD) break;
                    consider(it->second);
                }
                for (auto it = start; it != order.begin();) {
                    --it;
                    const double g = p[0] - it->first;
                    if (g * g > bestD) break;
                    consider(it->second);
                }
                nearest[i] = bestD;
                if (assign[i] != best) {
                    assign[i] = best;
                    changed = true;
                }
            }
            if (!changed && iter > 0) break;
            std::vector<Vec3> sum(centres.size(), Vec3{});
            std::vector<double> weight(centres.size(), 0.0);
            for (size_t i = 0; i < pts.size(); ++i) {
                Vec3& s = sum[size_t(assign[i])];
                for (size_t d = 0; d < 3; ++d) s[d] += pts[i].w * pts[i].v[d];
                weight[size_t(assign[i])] += pts[i].w;
            }
            for (size_t c = 0; c < centres.size(); ++c)
                if (weight[c] > 0) centres[c] = {sum[c][0] / weight[c], sum[c][1] / weight[c], sum[c][2] / weight[c]};
        }
    }
    return centres;
}

/// The palette's Floyd-Steinberg halftone of the samples (linear light, euclidean match: the palette defaults of
/// docs/spec.md section 4) against the samples, by the filtered Delta E 2000 of section 3.
double ditheredError(const Image& samples, const Palette& palette) {
    EdParams params;
    params.linear = true;
    params.match = PaletteMatch::Euclidean;
    Plane8 indices;
    if (!paletteErrorDiffuse(samples, palette, indices, params, EdVariant::CollectionRegisters).isOk())
        return std::numeric_limits<double>::infinity();
    const double e = filteredDeltaE2000(samples, expandIndexed(indices, palette));
    return std::isnan(e) ? std::numeric_limits<double>::infinity() : e;
}

}  // namespace

Status autoPaletteCandidates(const Image& image, int n, std::vector<AutoPaletteCandidate>& out) {
    out.clear();
    const std::string name = "auto:" + std::to_string(n);
    if (n < kMinPaletteColors || n > kMaxPaletteColors)
        return Status::error(name + ": the number of colours must be 2 to 256");
    if (image.channels.empty() || image.width() <= 0 || image.height() <= 0)
        return Status::error(name + ": the image is empty");
    const Image rgb = image.space == ColorSpace::CMYK ? convertColor(image, ColorMode::RGB) : image;
    const bool gray = rgb.channels.size() < 3;
    const int w = rgb.width(), h = rgb.height();
    // A regular grid of at most about 2^18 samples: the same pixels every run.
    const uint64_t pixels = uint64_t(w) * uint64_t(h);
    const int step = int(std::max<uint64_t>(1, uint64_t(std::ceil(std::sqrt(double(pixels) / double(1 << 18))))));
    const int sw = (w - step / 2 + step - 1) / step, sh = (h - step / 2 + step - 1) / step;
    Image samples;
    samples.space = ColorSpace::RGB;
    samples.channels.assign(3, Plane8(sw, sh));
    std::unordered_map<uint32_t, uint32_t> counts;
    for (int sy = 0, y = step / 2; y < h; ++sy, y += step)
        for (int sx = 0, x = step / 2; x < w; ++sx, x += step) {
            const uint8_t r = rgb.channels[0].at(y, x);
            const Rgb8 c = gray ? Rgb8{r, r, r} : Rgb8{r, rgb.channels[1].at(y, x), rgb.channels[2].at(y, x)};
            for (size_t k = 0; k < 3; ++k) samples.channels[k].at(sy, sx) = c[k];
            ++counts[packed(c)];
        }
    std::vector<std::pair<uint32_t, uint32_t>> distinct(counts.begin(), counts.end());  // (colour, count)
    std::sort(distinct.begin(), distinct.end());

    if (int(distinct.size()) <= n) {
        // No more colours than asked for: the palette is the image's own colours (fewer than n when the image has
        // fewer). A one-colour image gets black or white beside it, whichever is farther, to make two.
        AutoPaletteCandidate own;
        own.palette.name = name;
        own.method = "the image's own colours";
        for (const auto& d : distinct) own.palette.colors.push_back(unpacked(d.first));
        atLeastTwo(own.palette.colors);
        sortByLightness(own.palette.colors);
        own.error = ditheredError(samples, own.palette);
        out.push_back(std::move(own));
        return Status::ok();
    }

    // The distinct sampled colours merged into bins of 5 bits per channel (at most 32768 points), each bin the
    // weighted mean of its colours in both working spaces: CIELAB (D65) and the sRGB code values themselves.
    std::unordered_map<uint32_t, size_t> binIndex;
    std::vector<Point> lab, code;
    for (const auto& d : distinct) {
        const Rgb8 c = unpacked(d.first);
        const uint32_t bin = (uint32_t(c[0] >> 3) << 10) | (uint32_t(c[1] >> 3) << 5) | uint32_t(c[2] >> 3);
        auto [it, inserted] = binIndex.try_emplace(bin, lab.size());
        if (inserted) {
            lab.push_back({});
            code.push_back({});
        }
        const Vec3 g{double(c[0]), double(c[1]), double(c[2])};
        const Vec3 l = labOf(g);
        const double wt = d.second;
        for (size_t k = 0; k < 3; ++k) {
            lab[it->second].v[k] += wt * l[k];
            code[it->second].v[k] += wt * g[k];
        }
        lab[it->second].w += wt;
        code[it->second].w += wt;
    }
    for (std::vector<Point>* pts : {&lab, &code})
        for (Point& p : *pts)
            for (double& v : p.v) v /= p.w;
    const int k = std::min<int>(n, int(lab.size()));

    struct Recipe {
        bool inLab;
        int feedbackRounds;
        const char* method;
    };
    const Recipe recipes[] = {{true, 0, "k-means in CIELAB"},
                              {true, 3, "k-means in CIELAB, error feedback"},
                              {false, 0, "k-means in sRGB"},
                              {false, 3, "k-means in sRGB, error feedback"}};
    constexpr int kRecipes = int(std::size(recipes));
    out.assign(size_t(kRecipes), {});
    // The candidates are independent: each on a worker of the shared pool.
    parallelChunks(kRecipes, 1, std::min(kRecipes, hardwareThreads()), {}, "auto palette",
                   [&](int64_t begin, int64_t end, int) {
                       for (int64_t i = begin; i < end; ++i) {
                           const Recipe& r = recipes[i];
                           AutoPaletteCandidate& cand = out[size_t(i)];
                           cand.palette.name = name;
                           cand.method = r.method;
                           for (const Vec3& c : kMeans(r.inLab ? lab : code, k, r.feedbackRounds)) {
                               const Rgb8 rgbc = r.inLab ? rgbOfLab(c) : rgbOfGamma(c);
                               std::vector<Rgb8>& colors = cand.palette.colors;
                               if (std::find(colors.begin(), colors.end(), rgbc) == colors.end())
                                   colors.push_back(rgbc);
                           }
                           atLeastTwo(cand.palette.colors);
                           sortByLightness(cand.palette.colors);
                           cand.error = ditheredError(samples, cand.palette);
                       }
                   });
    return Status::ok();
}

Status autoPalette(const Image& image, int n, Palette& out) {
    out = Palette{};
    out.name = "auto:" + std::to_string(n);
    std::vector<AutoPaletteCandidate> candidates;
    if (Status s = autoPaletteCandidates(image, n, candidates); !s) return s;
    size_t best = 0;  // the first of equals
    for (size_t i = 1; i < candidates.size(); ++i)
        if (candidates[i].error < candidates[best].error) best = i;
    out = std::move(candidates[best].palette);
    return Status::ok();
}

}  // namespace halftone
