#include "core/schedule/schedule.h"

#include "core/ed/dotdiffusion.h"
#include "core/ed/gpustrips.h"
#include "core/ed/parallel.h"
#include "core/ed/riemersma.h"
#include "core/threads.h"

#include <algorithm>
#include <cstdlib>
#include <thread>

namespace halftone {

namespace {

int64_t floorDiv64(int64_t a, int64_t b) {
    const int64_t q = a / b;
    return (a % b != 0 && (a < 0) != (b < 0)) ? q - 1 : q;
}
int64_t ceilDiv64(int64_t a, int64_t b) { return -floorDiv64(-a, b); }

/// Smallest skew that keeps every same-strip source at a block column <= the receiver's:
/// s*di + dj >= 0 for every tap with di > 0 (the trapezoid edge of Deshpande, Misra and Narayanan leans
/// one column per row for FS).
int minimalSkew(const Kernel& k) {
    int s = 0;
    for (const Tap& t : k.taps)
        if (t.di > 0 && t.dj < 0) s = std::max<int>(s, int(ceilDiv64(-t.dj, t.di)));
    return s;
}

std::string tapText(const Tap& t) {
    return std::string("(") + std::to_string(t.di) + "," + std::to_string(t.dj) + "," + std::to_string(t.w) + ")";
}

Status checkDelay(const Kernel& k, int delay) {
    for (const Tap& t : k.taps)
        if (int64_t(delay) * t.di + t.dj <= 0)
            return Status::error(
                "delay k=" + std::to_string(delay) + " is too small for kernel '" + k.name + "': tap " + tapText(t) +
                " would read a pixel of the same step; the smallest valid k is " + std::to_string(k.minimalDelay()));
    return Status::ok();
}

/// Builds the labels of a skewed-block geometry; `stripOffset` 0 = the smallest the kernel's taps allow, else a
/// larger distance a method keeps between strips (the GPU wavefront's group lag).
Status blockPlan(SchedulePlan& p, const Kernel& k, int bw, int bh, int skew, int stripOffset = 0) {
    if (bw < 1 || bh < 1) return Status::error("block size must be at least 1 x 1");
    for (const Tap& t : k.taps)
        if (int64_t(skew) * t.di + t.dj < 0)
            return Status::error("skew " + std::to_string(skew) + " is too small for kernel '" + k.name + "': tap " +
                                 tapText(t) + " would come from a later block of the same strip");
    BlockGeometry& g = p.geometry;
    g.blockWidth = bw;
    g.blockHeight = bh;
    g.skew = skew;
    g.stripOffset = minimalStripOffset(k, bw, bh, skew);
    if (stripOffset > 0) {
        if (stripOffset < g.stripOffset)
            return Status::error("strips " + std::to_string(stripOffset) + " labels apart are too close for kernel '" +
                                 k.name + "': a source block would run at the same step; the smallest distance is " +
                                 std::to_string(g.stripOffset));
        g.stripOffset = stripOffset;
    }
    g.strips = int(ceilDiv64(p.height, bh));
    const int rows = std::min(bh, p.height);
    g.blocksPerStrip = int(floorDiv64(int64_t(p.width) - 1 + int64_t(skew) * (rows - 1), bw) + 1);
    p.blocks = true;
    p.stepLabel.clear();
    const int64_t maxLabel = int64_t(g.stripOffset) * (g.strips - 1) + g.blocksPerStrip - 1;
    if (maxLabel > (int64_t(1) << 30)) return Status::error("too many blocks; choose larger blocks");
    std::vector<char> used(size_t(maxLabel + 1), 0);
    for (int I = 0; I < g.strips; ++I)
        for (int J = 0; J < g.blocksPerStrip; ++J)
            if (blockNonEmpty(g, I, J, p.width, p.height)) used[size_t(g.label(I, J))] = 1;
    for (int64_t l = 0; l <= maxLabel; ++l)
        if (used[size_t(l)]) p.stepLabel.push_back(int32_t(l));
    p.steps = int64_t(p.stepLabel.size());
    return Status::ok();
}

}  // namespace

int BlockGeometry::blockOf(int row, int col) const {
    const int r = row % blockHeight;
    return int(floorDiv64(int64_t(col) + int64_t(skew) * r, blockWidth));
}

int minimalStripOffset(const Kernel& kernel, int bw, int bh, int skew) {
    // Receiver at local row r of strip I, u = col + skew*r, J = floor(u / bw). A source dI strips up
    // at local row r - di + dI*bh has block column floor((u + m) / bw) with
    // m = skew*(dI*bh - di) - dj, at most J + ceil(m / bw); its label must be smaller:
    // stripOffset*dI > ceil(m / bw).
    int offset = 1;
    for (const Tap& t : kernel.taps) {
        for (int r = 0; r < std::min(t.di, bh); ++r) {
            const int64_t dI = ceilDiv64(t.di - r, bh);
            const int64_t m = int64_t(skew) * (dI * bh - t.di) - t.dj;
            const int64_t c = ceilDiv64(m, bw);
            offset = std::max<int>(offset, int(floorDiv64(c, dI) + 1));
        }
    }
    return offset;
}

bool blockNonEmpty(const BlockGeometry& g, int strip, int block, int width, int height) {
    const int rows = std::min(g.blockHeight, height - strip * g.blockHeight);
    if (rows <= 0) return false;
    const int64_t jb = int64_t(block) * g.blockWidth;
    // need a local row r in [0, rows) with jb - skew*r < width and jb - skew*r + bw > 0
    if (g.skew == 0) return jb < width && jb + g.blockWidth > 0;
    const int64_t lo = std::max<int64_t>(0, floorDiv64(jb - width, g.skew) + 1);
    const int64_t hi = std::min<int64_t>(rows - 1, ceilDiv64(jb + g.blockWidth, g.skew) - 1);
    return lo <= hi;
}

int conflictFreeDelay(const Kernel& kernel) {
    // Pixel (i - di, j - dj) runs at step k(i - di) + j - dj: two taps write one receiver at the same
    // step exactly when k*di + dj is equal for both.
    // Each pair of taps rules out at most one k, so one of the next n^2 + 1 values is free.
    const int first = std::max(1, kernel.minimalDelay());
    const int n = int(kernel.taps.size());
    for (int k = first; k <= first + n * n; ++k) {
        std::vector<int64_t> keys;
        for (const Tap& t : kernel.taps) keys.push_back(int64_t(k) * t.di + t.dj);
        std::sort(keys.begin(), keys.end());
        if (std::adjacent_find(keys.begin(), keys.end()) == keys.end()) return k;
    }
    return 0;  // two taps with the same offset: no delay keeps them apart
}

bool gpuWavefrontFast(const Kernel& kernel, int levels) { return kernel.name == "floyd-steinberg" && levels == 2; }

std::vector<std::string> scheduleNames() {
    std::vector<std::string> names = {"raster",    "serpentine",    "k-delay",   "knight",
                                      "trapezoid", "parallelogram", "wavefront", "gpu-wavefront"};
    for (const ClassMatrix& m : classMatrices()) names.push_back(dotSchedule(m.name));
    names.push_back("hilbert");
    return names;
}

Status planSchedule(const std::string& name, int width, int height, const Kernel& kernel, const ScheduleOptions& o,
                    SchedulePlan& p) {
    if (Status s = checkImageSize(width, height, 1, ~0ull); !s) return s;
    p = SchedulePlan{};
    p.name = name;
    p.width = width;
    p.height = height;
    const int kmin = kernel.minimalDelay();
    if (name == "raster" || name == "serpentine") {
        p.sequentialRows = true;
        p.steps = int64_t(width) * height;
        p.description = name == "raster"
                            ? "sequential raster scan: one pixel per step"
                            : "serpentine scan: odd rows right to left with mirrored taps; every row waits for the "
                              "whole previous row, so there is no wavefront parallelism (one pixel per step)";
        return Status::ok();
    }
    if (name == "k-delay" || name == "knight") {
        p.delay = name == "knight" ? kmin : (o.delay > 0 ? o.delay : kmin);
        if (Status s = checkDelay(kernel, p.delay); !s) return s;
        p.steps = int64_t(width - 1) + int64_t(p.delay) * (height - 1) + 1;
        p.description = name == "knight"
                            ? "knight's-move order (Deshpande, Misra and Narayanan, section 3): pixel (i, j) at step " +
                                  std::to_string(p.delay) + "i + j, the earliest step its sources allow"
                            : "k-delay parallel scan (Kasagi, Nakano and Ito, section IV): row i handles column t - " +
                                  std::to_string(p.delay) + "i at step t";
        return Status::ok();
    }
    if (name == "parallelogram") {
        p.delay = o.delay > 0 ? o.delay : kmin;
        if (Status s = checkDelay(kernel, p.delay); !s) return s;
        const int bw = o.blockWidth > 0 ? o.blockWidth : 32;
        const int bh = o.blockHeight > 0 ? o.blockHeight : bw;
        if (Status s = blockPlan(p, kernel, bw, bh, p.delay); !s) return s;
        p.description = "parallelogram blocks (Kasagi, Nakano and Ito, section V): " + std::to_string(bw) + " x " +
                        std::to_string(bh) + " blocks, each row shifted " + std::to_string(p.delay) +
                        " columns left; strip i has labels " + std::to_string(p.geometry.stripOffset) + "i .. " +
                        std::to_string(p.geometry.stripOffset) + "i + " +
                        std::to_string(p.geometry.blocksPerStrip - 1) + "; a " + std::to_string(p.delay) +
                        "-delay wavefront runs inside each block";
        return Status::ok();
    }
    if (name == "trapezoid") {
        // Deshpande, Misra and Narayanan, sections 3.2 and 5.1: blocks whose flow of error is that of the pixels, so
        // the blocks run in knight's-move order; block size from the thread count so that `threads` blocks run in
        // parallel for most diagonals: block columns ~ stripOffset * threads.
        const int n = o.threads > 0 ? o.threads : hardwareThreads();
        const int skew = minimalSkew(kernel);
        int bw = o.blockWidth;
        int bh = o.blockHeight;
        if (bw <= 0) {
            int guess = int(std::max<int64_t>(1, ceilDiv64(width, 2 * int64_t(n))));
            const int h = bh > 0 ? bh : guess;
            const int K = minimalStripOffset(kernel, guess, h, skew);
            bw = int(std::max<int64_t>(1, ceilDiv64(width, int64_t(K) * n)));
        }
        if (bh <= 0) bh = std::min(bw, height);
        p.delay = kmin;
        if (Status s = blockPlan(p, kernel, bw, bh, skew); !s) return s;
        p.description = "trapezoid blocks (Deshpande, Misra and Narayanan, section 3.2): " + std::to_string(bw) +
                        " x " + std::to_string(bh) + " blocks leaning " + std::to_string(skew) +
                        " column(s) left per row, in knight's-move block order (label " +
                        std::to_string(p.geometry.stripOffset) + "I + J), sized for " + std::to_string(n) +
                        " thread(s); raster order inside a block; a barrier per block diagonal";
        return Status::ok();
    }
    if (name == "wavefront") {
        p.delay = o.delay > 0 ? o.delay : kmin;
        if (Status s = checkDelay(kernel, p.delay); !s) return s;
        // default: the band height of the SIMD path wavefrontErrorDiffusion() picks on this machine
        const int bh = o.blockHeight > 0 ? o.blockHeight : simdBandRows(SimdPath::Auto);
        const int bw = o.blockWidth > 0 ? o.blockWidth : 256;
        if (Status s = blockPlan(p, kernel, bw, bh, p.delay); !s) return s;
        p.description = "wavefront bands: each thread owns bands of " + std::to_string(bh) + " rows and runs a " +
                        std::to_string(p.delay) +
                        "-delay wavefront across them with SIMD (one row per lane); a band runs ahead as far as "
                        "the band above allows (progress counters, no barrier). Units are " +
                        std::to_string(bw) + "-step chunks of a band; the step shown is the earliest a chunk can run";
        return Status::ok();
    }
    if (name == "gpu-wavefront") {
        // The GPU wavefront kernel (gpu/ed/wavefront.cu): its form and strip shape from core/ed/gpustrips.h, the
        // constants the kernels are built with. Units are boundary groups of a strip; a strip runs groupLag() groups
        // behind the strip above, the distance at which its checks find the words they wait for.
        const bool fast = gpuWavefrontFast(kernel, o.levels);
        const gpustrips::Shape& shape = fast ? gpustrips::kFast : gpustrips::kGeneral;
        p.delay = shape.delay(kmin);
        const int bh = o.blockHeight > 0 ? o.blockHeight : shape.rows();
        const int bw = o.blockWidth > 0 ? o.blockWidth : shape.group;
        if (Status s = blockPlan(p, kernel, bw, bh, p.delay, gpustrips::groupLag(bw, p.delay, bh)); !s) return s;
        p.description =
            std::string("GPU wavefront, ") + (fast ? "fast form (binary Floyd-Steinberg)" : "general form") +
            ": one warp per strip of " + std::to_string(bh) + " rows, row r of a strip " + std::to_string(p.delay) +
            " steps behind row r - 1 (one row per lane, errors passed down by shuffles); units are " +
            std::to_string(bw) + "-step groups, and a strip checks the errors the strip above published once per " +
            "group, so it runs " + std::to_string(p.geometry.stripOffset) + " groups behind it";
        return Status::ok();
    }
    if (name == "hilbert") {
        p.steps = int64_t(width) * height;
        p.description =
            "generalised Hilbert curve (Riemersma's dither, docs/spec.md section 8): one pixel per step along the "
            "curve, each step next to the one before; every pixel waits for the one before it on the curve";
        return Status::ok();
    }
    for (const ClassMatrix& m : classMatrices()) {
        if (name != dotSchedule(m.name)) continue;
        // Knuth (1987): the class matrix tiled over the image; class c runs at step c, all its pixels at once.
        p.classMatrix = &m;
        p.steps = m.classes();
        p.description = "dot diffusion (Knuth 1987), " + m.title +
                        " class matrix tiled over the image: pixel (i, j) "
                        "runs at the step of its class, after its lower-class neighbours and with every other pixel of "
                        "that class; " +
                        std::to_string(m.classes()) + " steps whatever the image size";
        return Status::ok();
    }
    std::string all;
    for (const auto& n : scheduleNames()) all += (all.empty() ? "" : ", ") + n;
    return Status::error("unknown schedule '" + name + "'; known schedules: " + all);
}

Status makeSchedule(const std::string& name, int width, int height, const Kernel& kernel,
                    const ScheduleOptions& options, Schedule& out) {
    SchedulePlan p;
    if (Status s = planSchedule(name, width, height, kernel, options, p); !s) return s;
    const int64_t n = int64_t(width) * height;
    if (n > (int64_t(1) << 28))
        return Status::error("a per-pixel schedule of " + std::to_string(width) + " x " + std::to_string(height) +
                             " would need " + std::to_string(n * 8 / (1 << 20)) +
                             " MiB; planSchedule() describes it without per-pixel planes");
    out = Schedule{};
    out.name = p.name;
    out.description = p.description;
    out.width = width;
    out.height = height;
    out.steps = int(p.steps);
    out.pixelStep = PlaneT<int32_t>(width, height);
    out.pixelUnit = PlaneT<int32_t>(width, height, -1);
    out.parallelism.assign(size_t(p.steps), 0);
    if (!p.blocks && name == "hilbert") {
        out.units = int(n);
        int32_t step = 0;
        forEachCurvePixel(width, height, [&](int i, int j) {
            out.pixelStep.at(i, j) = step;
            ++out.parallelism[size_t(step++)];
            return true;
        });
        return Status::ok();
    }
    out.classMatrix = p.classMatrix;
    if (p.classMatrix) {
        out.units = int(n);
        for (int i = 0; i < height; ++i)
            for (int j = 0; j < width; ++j) {
                const int c = p.classMatrix->classAt(i, j);
                out.pixelStep.at(i, j) = c;
                ++out.parallelism[size_t(c)];
            }
        return Status::ok();
    }
    if (!p.blocks) {
        out.units = int(n);
        for (int i = 0; i < height; ++i)
            for (int j = 0; j < width; ++j) {
                int64_t s;
                if (p.sequentialRows) {
                    const bool rev = name == "serpentine" && (i & 1);
                    s = int64_t(i) * width + (rev ? width - 1 - j : j);
                } else {
                    s = j + int64_t(p.delay) * i;
                }
                out.pixelStep.at(i, j) = int32_t(s);
                ++out.parallelism[size_t(s)];
            }
        return Status::ok();
    }
    const BlockGeometry& g = p.geometry;
    std::vector<int32_t> labelStep(size_t(p.stepLabel.back()) + 1, -1);
    for (size_t s = 0; s < p.stepLabel.size(); ++s) labelStep[size_t(p.stepLabel[s])] = int32_t(s);
    std::vector<int32_t> unitOf(size_t(g.strips) * size_t(g.blocksPerStrip), -1);
    for (int I = 0; I < g.strips; ++I)
        for (int J = 0; J < g.blocksPerStrip; ++J)
            if (blockNonEmpty(g, I, J, width, height)) {
                unitOf[size_t(I) * g.blocksPerStrip + J] = int32_t(out.unitStep.size());
                const int32_t s = labelStep[size_t(g.label(I, J))];
                out.unitStep.push_back(s);
                ++out.parallelism[size_t(s)];
            }
    out.units = int(out.unitStep.size());
    for (int i = 0; i < height; ++i)
        for (int j = 0; j < width; ++j) {
            const int I = i / g.blockHeight, J = g.blockOf(i, j);
            const int32_t u = unitOf[size_t(I) * g.blocksPerStrip + J];
            out.pixelUnit.at(i, j) = u;
            out.pixelStep.at(i, j) = u < 0 ? -1 : out.unitStep[size_t(u)];
        }
    return Status::ok();
}

Status verifySchedule(const Schedule& s, const Kernel& kernel, bool serpentine) {
    const int w = s.width, h = s.height;
    auto where = [](int i, int j) { return '(' + std::to_string(i) + ", " + std::to_string(j) + ')'; };
    if (s.pixelStep.width != w || s.pixelStep.height != h || s.pixelUnit.width != w || s.pixelUnit.height != h)
        return Status::error("schedule planes do not match the image size");
    if (int64_t(s.parallelism.size()) != s.steps) return Status::error("parallelism has the wrong number of steps");
    const bool blocks = !s.unitStep.empty();
    std::vector<int64_t> count(size_t(s.steps), 0);
    std::vector<int64_t> unitPixels(s.unitStep.size(), 0);
    for (int i = 0; i < h; ++i)
        for (int j = 0; j < w; ++j) {
            const int32_t st = s.pixelStep.at(i, j);
            if (st < 0 || st >= s.steps) return Status::error("pixel " + where(i, j) + " is never processed");
            if (blocks) {
                const int32_t u = s.pixelUnit.at(i, j);
                if (u < 0 || u >= s.units) return Status::error("pixel " + where(i, j) + " belongs to no block");
                if (s.unitStep[size_t(u)] != st)
                    return Status::error("pixel " + where(i, j) + " has a step other than its block's");
                ++unitPixels[size_t(u)];
            } else {
                if (s.pixelUnit.at(i, j) != -1) return Status::error("pixel schedule with block ids");
                ++count[size_t(st)];
            }
        }
    if (blocks) {
        if (int64_t(s.unitStep.size()) != s.units) return Status::error("unit count mismatch");
        for (size_t u = 0; u < s.unitStep.size(); ++u) {
            if (unitPixels[u] == 0) return Status::error("block " + std::to_string(u) + " has no pixels");
            if (s.unitStep[u] < 0 || s.unitStep[u] >= s.steps) return Status::error("block step out of range");
            ++count[size_t(s.unitStep[u])];
        }
    } else if (s.units != int64_t(w) * h) {
        return Status::error("unit count mismatch");
    }
    for (int64_t t = 0; t < s.steps; ++t) {
        if (count[size_t(t)] != s.parallelism[size_t(t)])
            return Status::error("step " + std::to_string(t) + " lists " + std::to_string(s.parallelism[size_t(t)]) +
                                 " units but has " + std::to_string(count[size_t(t)]));
        // Pixel wavefronts may have empty steps (Kasagi, Nakano and Ito count every t of k-D PS); block plans drop
        // them.
        if (count[size_t(t)] == 0 && blocks) return Status::error("step " + std::to_string(t) + " is empty");
    }
    if (s.name == "hilbert") {
        // a curve order has no tap stencil to check: one pixel per step, each next to the pixel of the step before
        std::vector<std::pair<int, int>> at(size_t(s.steps), {-1, -1});
        for (int i = 0; i < h; ++i)
            for (int j = 0; j < w; ++j) at[size_t(s.pixelStep.at(i, j))] = {i, j};
        for (size_t t = 1; t < at.size(); ++t)
            if (std::abs(at[t].first - at[t - 1].first) > 1 || std::abs(at[t].second - at[t - 1].second) > 1)
                return Status::error("step " + std::to_string(t) + " at " + where(at[t].first, at[t].second) +
                                     " is not next to step " + std::to_string(t - 1));
        return Status::ok();
    }
    if (s.classMatrix) {
        // Dot diffusion: every 8-neighbour of lower class (the pixels whose error it gathers) runs at an earlier step.
        const ClassMatrix& m = *s.classMatrix;
        for (int i = 0; i < h; ++i)
            for (int j = 0; j < w; ++j)
                for (int di = -1; di <= 1; ++di)
                    for (int dj = -1; dj <= 1; ++dj) {
                        const int si = i + di, sj = j + dj;
                        if ((di == 0 && dj == 0) || si < 0 || si >= h || sj < 0 || sj >= w) continue;
                        if (m.classAt(si, sj) >= m.classAt(i, j)) continue;
                        const int32_t a = s.pixelStep.at(si, sj), b = s.pixelStep.at(i, j);
                        if (a >= b)
                            return Status::error(
                                "pixel " + where(i, j) + " of class " + std::to_string(m.classAt(i, j)) + " (step " +
                                std::to_string(b) + ") would run before its lower-class neighbour " + where(si, sj) +
                                " of class " + std::to_string(m.classAt(si, sj)) + " (step " + std::to_string(a) + ")");
                    }
        return Status::ok();
    }
    // Order inside a unit (and of the sequential scans): raster, or serpentine when asked.
    auto scanKey = [&](int i, int j) { return int64_t(i) * w + ((serpentine && (i & 1)) ? w - 1 - j : j); };
    for (int i = 0; i < h; ++i)
        for (int j = 0; j < w; ++j)
            for (const Tap& t : kernel.taps) {
                const int si = i - t.di;
                if (si < 0) continue;
                const int sj = j - ((serpentine && (si & 1)) ? -t.dj : t.dj);
                if (sj < 0 || sj >= w) continue;
                const int32_t a = s.pixelStep.at(si, sj), b = s.pixelStep.at(i, j);
                bool ok = a < b;
                if (blocks && s.pixelUnit.at(si, sj) == s.pixelUnit.at(i, j)) ok = scanKey(si, sj) < scanKey(i, j);
                if (!ok)
                    return Status::error("pixel " + where(i, j) + " (step " + std::to_string(b) +
                                         ") would run before its source " + where(si, sj) + " (step " +
                                         std::to_string(a) + ") of tap " + tapText(t));
            }
    return Status::ok();
}

}  // namespace halftone
