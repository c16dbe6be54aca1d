// halftone-train-tded: trains the table of tone-dependent error diffusion (Li and Allebach 2004; --kernel tded) and
// writes it as core/ed/tdedtable.h. The teacher is this project's DBS; the objective is the HVS-weighted error between
// the candidate's halftone and the teacher's; the schedule is a deterministic coordinate search per level on grids of
// the divisor 2^14 (docs/design/tded.md gives the objective, the teacher, the schedule and the numbers of each round).
#include <CLI/CLI.hpp>

#include <array>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <string>
#include <vector>

#include "core/dbs/dbs.h"
#include "core/ed/errordiffusion.h"
#include "core/ed/kernel.h"
#include "core/ed/varkerneltable.h"
#include "core/quality/metrics.h"

using namespace halftone;
namespace vt = varkerneltable;

namespace {

constexpr int kRows = 128;   ///< table rows: levels 0..127, mirrored above
constexpr int kPatch = 96;   ///< side of a constant training patch
constexpr int kImage = 160;  ///< side of a synthetic training image

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

/// The training images: ramps across and down (every level at an edge of its neighbours) and synthetic fields in the
/// middle tones, the shadows and the highlights. None of them is a test image.
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
    return v;
}

/// The teacher: sequential DBS with the Gaussian HVS filter of the objective, warm-started as the registry's DBS.
Plane8 teach(const Plane8& src) {
    DbsParams p;
    p.schedule = DbsSchedule::Sequential;
    p.warmStart = kDbsWarmStart;
    Plane8 out;
    if (!dbsHalftone(src, out, p)) out = Plane8(src.width, src.height);
    return out;
}

/// One training set: the inputs and the teacher's halftones.
struct Set {
    std::vector<Plane8> in, teacher;
    void add(Plane8 p) {
        teacher.push_back(teach(p));
        in.push_back(std::move(p));
    }
};

/// A candidate table and the kernel that runs it through the reference recurrence.
struct Candidate {
    vt::TdedRow rows[kRows];
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

/// HVS-weighted error (E / N, docs/spec.md section 3) of the kernel's halftones against the teacher's, averaged.
double cost(const Set& set, const Kernel& k, const std::vector<int>& which) {
    EdParams p;
    double sum = 0;
    for (int n : which)
        sum += hvsWeightedError(set.teacher[size_t(n)], referenceErrorDiffusion(set.in[size_t(n)], p, k));
    return sum / double(which.size());
}
/// The same for a named kernel against the input itself (the numbers the rounds are compared with).
double inputError(const Set& set, const std::string& kernel, const std::vector<int>& which, bool teacher = false) {
    EdParams p;
    p.kernel = kernel;
    double sum = 0;
    for (int n : which) {
        const Plane8& h = teacher ? set.teacher[size_t(n)] : referenceErrorDiffusion(set.in[size_t(n)], p);
        sum += hvsWeightedError(set.in[size_t(n)], h);
    }
    return sum / double(which.size());
}
double inputError(const Set& set, const Kernel& k, const std::vector<int>& which) {
    EdParams p;
    double sum = 0;
    for (int n : which) sum += hvsWeightedError(set.in[size_t(n)], referenceErrorDiffusion(set.in[size_t(n)], p, k));
    return sum / double(which.size());
}

/// Coordinate search of row m (Hooke and Jeeves' exploratory moves): each move of `moves` times the step, kept while it
/// lowers f; the step halves from `first` to `last`. Returns the evaluations made.
template <class F>
int search(Candidate& c, int m, const std::vector<std::array<int, 3>>& moves, int first, int last, F&& f) {
    double best = f(c);
    int evals = 1;
    for (int step = first; step >= last; step /= 2) {
        bool improved = true;
        while (improved) {
            improved = false;
            for (const auto& mv : moves)
                for (int sign : {1, -1}) {
                    vt::TdedRow r = c.rows[m];
                    r.right += sign * step * mv[0];
                    r.downLeft += sign * step * mv[1];
                    r.threshold += sign * step * mv[2];
                    r.down = vt::kDivisor - r.right - r.downLeft;
                    if (r.right < 0 || r.downLeft < 0 || r.down < 0 || r.threshold > vt::kMaxPerturbation ||
                        r.threshold < -vt::kMaxPerturbation)
                        continue;
                    const vt::TdedRow old = c.rows[m];
                    c.rows[m] = r;
                    c.update();
                    const double v = f(c);
                    ++evals;
                    if (v < best) {
                        best = v;
                        improved = true;
                    } else {
                        c.rows[m] = old;
                        c.update();
                    }
                }
        }
    }
    return evals;
}

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

}  // namespace

int main(int argc, char** argv) {
    CLI::App app{
        "Trains the table of tone-dependent error diffusion (Li and Allebach) against DBS halftones of "
        "synthetic training images and writes it as a C++ header (docs/design/tded.md)."};
    std::string output = "core/ed/tdedtable.h";
    app.add_option("--output", output, "header to write (core/ed/tdedtable.h of the source tree)");
    CLI11_PARSE(app, argc, argv);

    // The training sets: a constant patch of every level (the texture of each row on its own) and the images (the
    // rows at edges and in gradients, where the thresholds act).
    Set patches, images;
    for (int a = 0; a < 256; ++a) patches.add(Plane8(kPatch, kPatch, uint8_t(a)));
    for (Plane8& p : trainingImages()) images.add(std::move(p));
    std::vector<int> allImages;
    for (int n = 0; n < int(images.in.size()); ++n) allImages.push_back(n);
    std::vector<int> allPatches;
    for (int a = 0; a < 256; ++a) allPatches.push_back(a);
    std::printf("teacher: sequential DBS, Gaussian sigma 1.2 px, warm start %.2f; %zu patches %d x %d, %zu images\n",
                kDbsWarmStart, patches.in.size(), kPatch, kPatch, images.in.size());

    // The start: Ostromoukhov's weights, no threshold offsets.
    Candidate c;
    const vt::VarKernelDef& start = *findKernel("ostromoukhov")->levelTable;
    for (int m = 0; m < kRows; ++m) c.rows[m] = {start.w[m].right, start.w[m].downLeft, start.w[m].down, 0};
    c.update();

    const double fsImages = inputError(images, "floyd-steinberg", allImages);
    const double dbsImages = inputError(images, "floyd-steinberg", allImages, true);
    const double fsPatches = inputError(patches, "floyd-steinberg", allPatches);
    const double dbsPatches = inputError(patches, "floyd-steinberg", allPatches, true);
    auto report = [&](const char* round, int evals) {
        const double im = inputError(images, c.kernel, allImages), pa = inputError(patches, c.kernel, allPatches);
        std::printf("| %s | %d | %.4f | %.4f | %.2f | %.4f | %.4f |\n", round, evals, 1e3 * pa, 1e3 * im,
                    (fsImages - im) / (fsImages - dbsImages), 1e3 * cost(patches, c.kernel, allPatches),
                    1e3 * cost(images, c.kernel, allImages));
        std::fflush(stdout);
    };
    std::printf("Floyd-Steinberg: patches %.4f, images %.4f; DBS teacher: patches %.4f, images %.4f (x 1e-3)\n\n",
                1e3 * fsPatches, 1e3 * fsImages, 1e3 * dbsPatches, 1e3 * dbsImages);
    std::printf(
        "| round | evaluations | patches: error vs input (x 1e-3) | images: error vs input (x 1e-3) | "
        "images: gap to DBS closed | patches: objective (x 1e-3) | images: objective (x 1e-3) |\n");
    std::printf("|---|---:|---:|---:|---:|---:|---:|\n");
    report("start (Ostromoukhov's weights, T = 0)", 0);

    const std::vector<std::array<int, 3>> weightMoves = {{1, 0, 0}, {0, 1, 0}, {1, -1, 0}};
    const std::vector<std::array<int, 3>> thresholdMove = {{0, 0, 1}};
    // Round 1: the weights of each level on its two patches (level m and its mirror 255 - m), steps 2048 .. 64.
    int evals = 0;
    for (int m = 1; m < kRows; ++m)
        evals += search(c, m, weightMoves, 2048, 64, [&](const Candidate& x) {
            return cost(patches, x.kernel, {m, 255 - m});
        });
    report("1: weights on the patches", evals);
    // Round 2: the threshold offset of each level on the images, steps 512 .. 32 (scale 16: 32 .. 2 gray levels).
    evals = 0;
    for (int m = 1; m < kRows; ++m)
        evals +=
            search(c, m, thresholdMove, 512, 32, [&](const Candidate& x) { return cost(images, x.kernel, allImages); });
    report("2: thresholds on the images", evals);
    // Round 3: weights and threshold together on patches and images, finer steps 128 .. 32.
    evals = 0;
    std::vector<std::array<int, 3>> allMoves = weightMoves;
    allMoves.push_back({0, 0, 1});
    for (int m = 1; m < kRows; ++m)
        evals += search(c, m, allMoves, 128, 32, [&](const Candidate& x) {
            return cost(patches, x.kernel, {m, 255 - m}) + cost(images, x.kernel, allImages);
        });
    report("3: weights and thresholds on both", evals);

    std::ofstream f(output, std::ios::binary);
    f << header(c);
    if (!f.good()) {
        std::fprintf(stderr, "halftone-train-tded: cannot write %s\n", output.c_str());
        return 1;
    }
    std::printf("\nwrote %s\n", output.c_str());
    return 0;
}
