// halftone-train-tded: trains the table of tone-dependent error diffusion (Li and Allebach 2004; --kernel tded) and
// writes it as core/ed/tdedtable.h. The objective is the quality measure itself: the HVS-weighted error of the
// candidate's halftone against its continuous-tone input (docs/spec.md section 3), on a constant patch of every level
// and on synthetic training images; the schedule is a deterministic coordinate search per level on grids of the
// divisor 2^14 (docs/design/tded.md gives the objective, the schedule and the numbers of each round).
#include <CLI/CLI.hpp>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <limits>
#include <string>
#include <vector>

#include "core/dbs/dbs.h"
#include "core/ed/errordiffusion.h"
#include "core/ed/kernel.h"
#include "core/ed/varkerneltable.h"
#include "core/quality/metrics.h"
#include "io/imagefile.h"

using namespace halftone;
namespace vt = varkerneltable;

namespace {

constexpr int kRows = 128;          ///< table rows: levels 0..127, mirrored above
constexpr int kPatch = 128;         ///< side of a constant training patch
constexpr int kBurnIn = 32;         ///< rows at the top of a patch left out of its error: the diffusion's start-up
constexpr int kSideMargin = 16;     ///< columns at either side of a patch left out of its error
constexpr int kImage = 160;         ///< side of a synthetic training image
constexpr double kPatchWeight = 1;  ///< weight of the patches' mean error against the images' in round 2

/// SplitMix64 (Steele, Lea and Flood): the training images are a pure function of the seed.
struct Rng {
    uint64_t s;
    uint64_t next() {
        uint64_t z = (s += 0x9E3779B97F4A7C15ull);
        z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
        z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
        return z ^ (z >> 31);
    }
    double uniform() { return double(next() >> 11) / double(1ull << 53); }
};

uint8_t clampByte(double v) { return uint8_t(std::lround(std::fmin(255.0, std::fmax(0.0, v)))); }

/// A smooth field with hard edges: Gaussian blobs around `base`, a few disks and a faint sinusoid, all from `seed`.
Plane8 syntheticImage(uint64_t seed, double base, double spread) {
    Rng r{seed};
    struct Blob {
        double x, y, s, a;
    };
    std::vector<Blob> blobs(12);
    for (Blob& b : blobs)
        b = {r.uniform() * kImage, r.uniform() * kImage, 8 + 40 * r.uniform(), spread * (2 * r.uniform() - 1)};
    struct Disk {
        double x, y, radius, level;
    };
    std::vector<Disk> disks(4);
    for (Disk& d : disks)
        d = {r.uniform() * kImage, r.uniform() * kImage, 6 + 30 * r.uniform(), base + spread * (2 * r.uniform() - 1)};
    const double fx = 0.05 + 0.2 * r.uniform(), fy = 0.05 + 0.2 * r.uniform();
    Plane8 p(kImage, kImage);
    for (int y = 0; y < kImage; ++y)
        for (int x = 0; x < kImage; ++x) {
            double v = base + 0.08 * spread * std::sin(fx * x + fy * y);
            for (const Blob& b : blobs)
                v += b.a * std::exp(-((x - b.x) * (x - b.x) + (y - b.y) * (y - b.y)) / (2 * b.s * b.s));
            for (const Disk& d : disks)
                if ((x - d.x) * (x - d.x) + (y - d.y) * (y - d.y) < d.radius * d.radius) v = d.level;
            p.at(y, x) = clampByte(v);
        }
    return p;
}

/// A page of print: dark glyph strokes 0.8 to 2.2 px wide in lines of words, anti-aliased (4 x 4 samples a pixel), on
/// light paper with a gradient across and a little noise, all from `seed`: the hard, thin edges none of the smooth
/// fields has.
Plane8 syntheticPage(uint64_t seed) {
    Rng r{seed};
    constexpr int W = 320, H = 160, S = 4;
    const double paperLeft = 185 + 45 * r.uniform(), paperRight = 185 + 45 * r.uniform(), ink = 15 + 55 * r.uniform();
    std::vector<float> cover(size_t(W) * H, 0.0f);  // ink coverage of each pixel, 0..1
    std::vector<uint8_t> sub(size_t(W * S) * (H * S), 0);
    auto segment = [&](double ax, double ay, double bx, double by, double width) {
        const double dx = bx - ax, dy = by - ay, len2 = std::fmax(1e-9, dx * dx + dy * dy), r2 = width * width / 4;
        const int x0 = std::max(0, int((std::fmin(ax, bx) - width) * S)),
                  x1 = std::min(W * S, int((std::fmax(ax, bx) + width) * S) + 1);
        const int y0 = std::max(0, int((std::fmin(ay, by) - width) * S)),
                  y1 = std::min(H * S, int((std::fmax(ay, by) + width) * S) + 1);
        for (int y = y0; y < y1; ++y)
            for (int x = x0; x < x1; ++x) {
                const double px = (x + 0.5) / S, py = (y + 0.5) / S;
                const double t = std::fmin(1.0, std::fmax(0.0, ((px - ax) * dx + (py - ay) * dy) / len2));
                const double ex = px - ax - t * dx, ey = py - ay - t * dy;
                if (ex * ex + ey * ey <= r2) sub[size_t(y) * (W * S) + size_t(x)] = 1;
            }
    };
    for (int line = 6; line + 16 < H;) {
        const double xHeight = 6 + 5 * r.uniform(), stroke = 0.8 + 1.4 * r.uniform();
        for (int x = 6; x < W - 16;) {
            const int letters = 2 + int(7 * r.uniform());
            for (int l = 0; l < letters && x < W - 12; ++l) {
                const double glyph = 4 + 3 * r.uniform();
                const int strokes = 2 + int(2 * r.uniform());
                for (int k = 0; k < strokes; ++k)
                    segment(x + glyph * r.uniform(), line + xHeight * r.uniform(), x + glyph * r.uniform(),
                            line + xHeight * r.uniform(), stroke);
                x += int(glyph) + 1;
            }
            x += 4 + int(3 * r.uniform());
        }
        line += int(xHeight) + 7 + int(5 * r.uniform());
    }
    for (int y = 0; y < H * S; ++y)
        for (int x = 0; x < W * S; ++x)
            cover[size_t(y / S) * W + size_t(x / S)] += sub[size_t(y) * (W * S) + size_t(x)];
    Plane8 p(W, H);
    for (int y = 0; y < H; ++y)
        for (int x = 0; x < W; ++x) {
            const double c = cover[size_t(y) * W + size_t(x)] / (S * S);
            const double paper = paperLeft + (paperRight - paperLeft) * x / (W - 1) + 6 * (r.uniform() - 0.5);
            p.at(y, x) = clampByte(paper * (1 - c) + ink * c);
        }
    return p;
}

/// A texture with the 1/f amplitude spectrum of natural photographs (value noise: random grids of spacing 128 down to
/// 2 px, bilinearly interpolated, each octave's amplitude proportional to its spacing) around `base`, from `seed`.
Plane8 naturalTexture(uint64_t seed, double base, double spread) {
    Rng r{seed};
    constexpr int N = 192;
    std::vector<double> v(size_t(N) * N, 0.0);
    double norm = 0;
    for (int cell = 128; cell >= 2; cell /= 2) {
        const int g = N / cell + 2;
        std::vector<double> grid(size_t(g) * g);
        for (double& x : grid) x = 2 * r.uniform() - 1;
        for (int y = 0; y < N; ++y)
            for (int x = 0; x < N; ++x) {
                const double fy = double(y) / cell, fx = double(x) / cell;
                const int iy = int(fy), ix = int(fx);
                const double ty = fy - iy, tx = fx - ix;
                auto at = [&](int a, int b) { return grid[size_t(a) * g + size_t(b)]; };
                v[size_t(y) * N + size_t(x)] += cell * ((1 - ty) * ((1 - tx) * at(iy, ix) + tx * at(iy, ix + 1)) +
                                                        ty * ((1 - tx) * at(iy + 1, ix) + tx * at(iy + 1, ix + 1)));
            }
        norm += cell;
    }
    Plane8 p(N, N);
    for (int y = 0; y < N; ++y)
        for (int x = 0; x < N; ++x) p.at(y, x) = clampByte(base + 2 * spread * v[size_t(y) * N + size_t(x)] / norm);
    return p;
}

/// The training images: ramps across and down (every level at an edge of its neighbours), synthetic fields in the
/// middle tones, the shadows and the highlights, and two pages of print. None of them is a test image.
std::vector<Plane8> trainingImages() {
    std::vector<Plane8> v;
    v.push_back(grayRamp(512, 48));
    Plane8 down(48, 512);
    for (int y = 0; y < 512; ++y)
        for (int x = 0; x < 48; ++x) down.at(y, x) = uint8_t(y / 2);
    v.push_back(down);
    v.push_back(syntheticImage(1, 128, 110));
    v.push_back(syntheticImage(2, 128, 70));
    v.push_back(syntheticImage(3, 30, 30));
    v.push_back(syntheticImage(4, 225, 30));
    v.push_back(syntheticPage(5));
    v.push_back(syntheticPage(6));
    v.push_back(naturalTexture(7, 128, 120));
    v.push_back(naturalTexture(8, 90, 80));
    v.push_back(naturalTexture(9, 170, 80));
    v.push_back(naturalTexture(10, 60, 60));
    v.push_back(naturalTexture(11, 200, 60));
    return v;
}

/// The HVS filter of the quality measure (docs/spec.md section 3; the Gaussian of sigma 1.2 px, radius 4) as its 1-D
/// taps: the 2-D filter is their outer product, so two passes give hvsWeightedError's full convolution.
std::vector<double> hvsTaps() {
    HvsFilter f;
    if (!makeHvsFilter(HvsParams{}, f)) return {1.0};
    return f.p1d;
}

/// hvsWeightedError(input, halftone) by two 1-D passes (the same sum up to rounding, a few times faster).
double imageError(const Plane8& input, const Plane8& halftone, const std::vector<double>& g) {
    const int W = input.width, H = input.height, w = int(g.size() / 2), WF = W + 2 * w;
    std::vector<double> e(size_t(W) * H), hx(size_t(WF) * H, 0.0);
    for (size_t i = 0; i < e.size(); ++i) e[i] = (double(halftone.data[i]) - double(input.data[i])) / 255.0;
    for (int y = 0; y < H; ++y)
        for (int X = 0; X < WF; ++X) {
            double acc = 0;
            for (int j = -w; j <= w; ++j) {
                const int x = X - w - j;
                if (x >= 0 && x < W) acc += g[size_t(j + w)] * e[size_t(y) * W + size_t(x)];
            }
            hx[size_t(y) * WF + size_t(X)] = acc;
        }
    double E = 0;
    for (int Y = 0; Y < H + 2 * w; ++Y)
        for (int X = 0; X < WF; ++X) {
            double acc = 0;
            for (int i = -w; i <= w; ++i) {
                const int y = Y - w - i;
                if (y >= 0 && y < H) acc += g[size_t(i + w)] * hx[size_t(y) * WF + size_t(X)];
            }
            E += acc * acc;
        }
    return E / double(size_t(W) * H);
}

/// The same measure on a constant patch of `level`, over the filter positions away from its edges: below the first
/// kBurnIn rows, kSideMargin columns from either side and the filter's radius from the bottom, so that the error is
/// the texture the level settles into, not the diffusion's start-up at the edges.
double patchError(const Plane8& halftone, int level, const std::vector<double>& g) {
    const int W = halftone.width, H = halftone.height, w = int(g.size() / 2);
    const int x0 = kSideMargin, x1 = W - kSideMargin, y0 = kBurnIn, y1 = H - w;
    std::vector<double> hx(size_t(W) * H, 0.0);
    for (int y = y0 - w; y < H; ++y)
        for (int x = x0; x < x1; ++x) {
            double acc = 0;
            for (int j = -w; j <= w; ++j) acc += g[size_t(j + w)] * (double(halftone.at(y, x + j)) - level);
            hx[size_t(y) * W + size_t(x)] = acc / 255.0;
        }
    double E = 0;
    for (int y = y0; y < y1; ++y)
        for (int x = x0; x < x1; ++x) {
            double acc = 0;
            for (int i = -w; i <= w; ++i) acc += g[size_t(i + w)] * hx[size_t(y + i) * W + size_t(x)];
            E += acc * acc;
        }
    return E / double(size_t(x1 - x0) * (y1 - y0));
}

/// A candidate table and the kernel that runs it through the reference recurrence.
struct Candidate {
    vt::TdedRow rows[kRows]{};
    vt::VarKernelDef def{};
    Kernel kernel;
    Candidate() : kernel(*findKernel("tded")) {}
    Candidate(const Candidate&) = delete;  // kernel points into def
    Candidate& operator=(const Candidate&) = delete;
    void update() {
        def = vt::makeTded(rows);
        kernel.levelTable = &def;
    }
};

/// The training data and the objective's two terms, for one scan order.
struct Objective {
    std::vector<Plane8> patches, images;
    std::vector<double> g = hvsTaps();
    EdParams params;
    explicit Objective(bool serpentine) {
        params.serpentine = serpentine;
        for (int a = 0; a < 256; ++a) patches.emplace_back(kPatch, kPatch, uint8_t(a));
        images = trainingImages();
    }
    Plane8 run(const Plane8& in, const Kernel& k) const { return referenceErrorDiffusion(in, params, k); }
    /// The error of level a's patch.
    double patch(const Kernel& k, int a) const { return patchError(run(patches[size_t(a)], k), a, g); }
    /// Row m's patches: levels m and 255 - m.
    double row(const Kernel& k, int m) const { return (patch(k, m) + patch(k, 255 - m)) / 2; }
    double allPatches(const Kernel& k) const {
        double s = 0;
        for (int a = 0; a < 256; ++a) s += patch(k, a);
        return s / 256;
    }
    /// The mean over the training images.
    double allImages(const Kernel& k) const {
        double s = 0;
        for (const Plane8& im : images) s += imageError(im, run(im, k), g);
        return s / double(images.size());
    }
};

/// Sets every row's threshold offset on the line T(a) = k (127.5 - a) 16 (scale 16), within the bound of
/// docs/spec.md section 1; the mirror of the table makes the line antisymmetric about 127.5 as it is.
void setSlope(Candidate& c, double k) {
    for (int m = 0; m < kRows; ++m)
        c.rows[m].threshold =
            std::clamp(int(std::lround(k * (127.5 - m) * 16)), -vt::kMaxPerturbation, vt::kMaxPerturbation);
    c.update();
}

/// The table as three piecewise-linear curves over the levels (W_right, W_downLeft, T), given by their values at
/// kKnots; W_down takes the rest of the divisor. Few parameters, each fitted on every level near its knot: a search on
/// them does not learn the training images level by level as a search per row does (docs/design/tded.md).
struct Knots {
    static constexpr std::array<int, 9> kKnots = {0, 16, 32, 48, 64, 80, 96, 112, 127};
    std::vector<int> p;  ///< right, downLeft, threshold at each knot
    explicit Knots(const Candidate& c) {
        for (int k : kKnots) p.insert(p.end(), {c.rows[k].right, c.rows[k].downLeft, c.rows[k].threshold});
    }
    static bool valid(const std::vector<int>& q) {
        for (size_t i = 0; i < q.size(); i += 3)
            if (q[i] < 0 || q[i + 1] < 0 || q[i] + q[i + 1] > vt::kDivisor || std::abs(q[i + 2]) > vt::kMaxPerturbation)
                return false;
        return true;
    }
    static void apply(const std::vector<int>& q, Candidate& c) {
        for (size_t k = 0; k + 1 < kKnots.size(); ++k)
            for (int m = kKnots[k]; m <= kKnots[k + 1]; ++m) {
                const double t = double(m - kKnots[k]) / double(kKnots[k + 1] - kKnots[k]);
                auto lerp = [&](size_t i) { return int(std::lround((1 - t) * q[3 * k + i] + t * q[3 * k + 3 + i])); };
                vt::TdedRow r{lerp(0), lerp(1), 0, lerp(2)};
                r.downLeft = std::min(r.downLeft, vt::kDivisor - r.right);
                r.down = vt::kDivisor - r.right - r.downLeft;
                c.rows[m] = r;
            }
        c.update();
    }
    /// Coordinate search (Hooke and Jeeves' exploratory moves): each knot value +- the step (a quarter of it for a
    /// threshold; a move of W_right takes half the step from W_downLeft), kept while it lowers f; the same step is
    /// tried again until no move helps, then it halves from `first` to `last`. Returns the evaluations made.
    template <class F>
    int search(Candidate& c, int first, int last, F&& f) {
        apply(p, c);
        double best = f(c);
        int evals = 1;
        for (int step = first; step >= last; step /= 2)
            for (bool improved = true; improved;) {
                improved = false;
                for (size_t i = 0; i < p.size(); ++i)
                    for (int sign : {1, -1}) {
                        std::vector<int> q = p;
                        q[i] += sign * (i % 3 == 2 ? step / 4 : step);
                        if (i % 3 == 0) q[i + 1] -= sign * step / 2;
                        if (!valid(q)) continue;
                        apply(q, c);
                        const double v = f(c);
                        ++evals;
                        if (v < best) best = v, p = q, improved = true;
                    }
            }
        apply(p, c);
        return evals;
    }
};

std::string header(const Candidate& c) {
    std::string s =
        "#pragma once\n"
        "// \\brief Li and Allebach's tone-dependent error diffusion (TDED): the table halftone-train-tded writes\n"
        "// (scripts/train-tded; docs/design/tded.md). Generated: edit the training, not this file.\n\n"
        "namespace halftone::varkerneltable {\n\n"
        "/// \\brief One level of TDED: the weights right, down-left, down (sum 2^14) and the threshold offset T at "
        "scale "
        "16.\n"
        "struct TdedRow {\n    int right, downLeft, down, threshold;\n};\n\n"
        "/// \\brief Levels 0..127; level a > 127 uses row 255 - a with the threshold offset negated.\n"
        "inline constexpr TdedRow kTded[128] = {\n";
    for (int m = 0; m < kRows; ++m) {
        const vt::TdedRow& r = c.rows[m];
        s += "    {" + std::to_string(r.right) + ", " + std::to_string(r.downLeft) + ", " + std::to_string(r.down) +
             ", " + std::to_string(r.threshold) + "},  // " + std::to_string(m) + "\n";
    }
    s += "};\n\n}  // namespace halftone::varkerneltable\n";
    return s;
}

/// The registry's dbs/sequential with its defaults: the reference point of the gap, never a training target.
Plane8 dbsSequential(const Plane8& src) {
    DbsParams p;
    p.schedule = DbsSchedule::Sequential;
    p.start = DbsStart::ErrorDiffusion;
    p.warmStart = kDbsWarmStart;
    Plane8 out;
    if (!dbsHalftone(src, out, p)) out = Plane8(src.width, src.height);
    return out;
}

/// An image named on the command line, measured after each round and never trained on.
struct Measured {
    std::string name;
    Plane8 plane;
    double fs = 0, dbs = 0;
};

}  // namespace

int main(int argc, char** argv) {
    CLI::App app{
        "Trains the table of tone-dependent error diffusion (Li and Allebach) on the HVS-weighted error against the "
        "input of synthetic training images and constant patches, and writes it as a C++ header "
        "(docs/design/tded.md)."};
    std::string output = "core/ed/tdedtable.h";
    bool serpentine = false;
    std::vector<std::string> measure;
    app.add_option("--output", output, "header to write (core/ed/tdedtable.h of the source tree)");
    app.add_flag("--serpentine", serpentine,
                 "train for the serpentine scan (default: raster, the scan the ED methods use by default)");
    app.add_option("--measure", measure,
                   "images measured after every round (as gray; scripts/train-tded names the shipped test images); "
                   "never trained on");
    CLI11_PARSE(app, argc, argv);

    const Objective obj(serpentine);
    std::vector<Measured> tests;
    for (const std::string& f : measure) {
        Image img;
        if (Status s = io::readImage(f, img); !s) {
            std::fprintf(stderr, "halftone-train-tded: %s: %s\n", f.c_str(), s.message().c_str());
            return 1;
        }
        Measured m{f.substr(f.find_last_of('/') + 1), convertColor(img, ColorMode::Gray).channels.front()};
        EdParams fs;  // Floyd-Steinberg in raster order, the reference of the gap in docs/quality.md
        m.fs = hvsWeightedError(m.plane, referenceErrorDiffusion(m.plane, fs));
        m.dbs = hvsWeightedError(m.plane, dbsSequential(m.plane));
        tests.push_back(std::move(m));
    }
    auto line = [&](const std::string& what, const Kernel& k, int evals) {
        std::printf("| %s | %d | %.4f | %.4f |", what.c_str(), evals, 1e3 * obj.allPatches(k), 1e3 * obj.allImages(k));
        for (const Measured& m : tests) {
            const double e = hvsWeightedError(m.plane, obj.run(m.plane, k));
            std::printf(" %.4f (%+.0f %%) |", 1e3 * e, 100 * (m.fs - e) / (m.fs - m.dbs));
        }
        std::printf("\n");
        std::fflush(stdout);
    };

    double worst = 0;  // the two-pass measure against the library's, on Floyd-Steinberg's halftones
    for (const Plane8& im : obj.images) {
        const Plane8 h = obj.run(im, *findKernel("floyd-steinberg"));
        const double a = imageError(im, h, obj.g), b = hvsWeightedError(im, h);
        worst = std::fmax(worst, std::fabs(a - b) / b);
    }
    std::printf("two-pass HVS error against hvsWeightedError: largest relative difference %.1e\n", worst);
    std::printf("scan: %s; %zu patches %d x %d (error below row %d, %d columns from the sides), %zu images\n",
                serpentine ? "serpentine" : "raster", obj.patches.size(), kPatch, kPatch, kBurnIn, kSideMargin,
                obj.images.size());
    std::printf(
        "HVS-weighted error against the input (x 1e-3): mean over the patches, over the training images, and on\n"
        "each measured image (in brackets: the gap from Floyd-Steinberg in raster order to dbs/sequential closed)\n\n");
    std::printf("| table | evaluations | patches | training images |");
    for (const Measured& m : tests) std::printf(" %s |", m.name.c_str());
    std::printf("\n|---|---:|---:|---:|");
    for (size_t i = 0; i < tests.size(); ++i) std::printf("---:|");
    std::printf("\n| dbs/sequential (reference) | - | - | - |");
    for (const Measured& m : tests) std::printf(" %.4f |", 1e3 * m.dbs);
    std::printf("\n");
    line("Floyd-Steinberg", *findKernel("floyd-steinberg"), 0);
    line("Ostromoukhov", *findKernel("ostromoukhov"), 0);
    line("tded as compiled in", *findKernel("tded"), 0);

    // The start: each row from whichever of three kernels gives its patches the lower error: Ostromoukhov's weights,
    // Floyd-Steinberg's without its down-right tap (7 : 3 : 5) and Sierra Lite's (2 : 1 : 1); no threshold offsets.
    Candidate c;
    const vt::VarKernelDef& ostro = *findKernel("ostromoukhov")->levelTable;
    for (int m = 0; m < kRows; ++m) {
        const std::array<vt::TdedRow, 3> starts = {
            vt::TdedRow{ostro.w[m].right, ostro.w[m].downLeft, ostro.w[m].down, 0}, vt::TdedRow{7646, 3277, 5461, 0},
            vt::TdedRow{8192, 4096, 4096, 0}};
        double best = std::numeric_limits<double>::infinity();
        for (const vt::TdedRow& r : starts) {
            const vt::TdedRow keep = c.rows[m];
            c.rows[m] = r;
            c.update();
            const double v = obj.row(c.kernel, m);
            if (v < best)
                best = v;
            else
                c.rows[m] = keep;
        }
    }
    c.update();
    line("start: per level the best of Ostromoukhov, 7 : 3 : 5, 2 : 1 : 1 on its patches; T = 0", c.kernel, 3 * kRows);

    // Round 1: one slope for all thresholds, T(a) = k (127.5 - a) 16, on the images; the mirrored rows hold the line
    // exactly. The decision then weighs the input by 1 + k (Eschbach and Knox's threshold modulation); k near -1/2
    // cancels error diffusion's own sharpening (Kite, Evans and Bovik's linear gain model).
    double bestSlope = 0, best = std::numeric_limits<double>::infinity();
    for (int step = 0; step <= 20; ++step) {
        const double k = -0.05 * step;
        setSlope(c, k);
        const double v = obj.allImages(c.kernel);
        if (v < best) best = v, bestSlope = k;
    }
    setSlope(c, bestSlope);
    char name[96];
    std::snprintf(name, sizeof name, "1: threshold slope k = %.2f on the images", bestSlope);
    line(name, c.kernel, 21);

    // Round 2: weights and thresholds as piecewise-linear curves over the levels, their values at nine knots searched
    // together on the images plus the patches (steps 2048 .. 64 for the weights, a quarter for the thresholds).
    Knots knots(c);
    int evals = knots.search(c, 2048, 64, [&](const Candidate& x) {
        return obj.allImages(x.kernel) + kPatchWeight * obj.allPatches(x.kernel);
    });
    line("2: weights and thresholds at nine knots, images and patches", c.kernel, evals);

    std::ofstream f(output, std::ios::binary);
    f << header(c);
    if (!f.good()) {
        std::fprintf(stderr, "halftone-train-tded: cannot write %s\n", output.c_str());
        return 1;
    }
    std::printf("\nwrote %s\n", output.c_str());
    return 0;
}
