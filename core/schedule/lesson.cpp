#include "core/schedule/lesson.h"

#include "core/ed/dotdiffusion.h"
#include "core/ed/errordiffusion.h"
#include "core/ed/quantizer.h"
#include "core/ed/riemersma.h"
#include "core/ed/varkerneltable.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <tuple>

namespace halftone {

namespace {

enum class Arithmetic { ErrorDiffusion, Dot, Riemersma };

/// A naive parallel order of raceScheduleNames() as a pixel schedule of the model.
Status makeRaceSchedule(const std::string& name, int width, int height, Schedule& out) {
    out = Schedule{};
    out.name = name;
    out.width = width;
    out.height = height;
    out.pixelStep = PlaneT<int32_t>(width, height);
    out.pixelUnit = PlaneT<int32_t>(width, height, -1);
    out.units = width * height;
    const int delay = name == "rows" ? 0 : 2;
    if (name == "rows") {
        out.description = "every pixel of a row at once: each reads its left neighbour's error before it is written";
    } else {
        out.description =
            "2-delay: pixel (i, j) at step 2i + j whatever the kernel reaches; a kernel reaching two "
            "columns left on the next row (Jarvis) reads errors of its own step";
    }
    for (int i = 0; i < height; ++i)
        for (int j = 0; j < width; ++j) out.pixelStep.at(i, j) = name == "rows" ? i : delay * i + j;
    out.steps = name == "rows" ? height : delay * (height - 1) + width;
    out.parallelism.assign(size_t(out.steps), 0);
    for (int32_t s : out.pixelStep.data) ++out.parallelism[size_t(s)];
    return Status::ok();
}

/// The RGB planes of an indexed image from its palette.
void paintChannels(Image& im) {
    im.channels.assign(3, Plane8(im.indices.width, im.indices.height));
    for (size_t p = 0; p < im.indices.data.size(); ++p)
        for (int c = 0; c < 3; ++c) im.channels[size_t(c)].data[p] = im.palette[im.indices.data[p]][size_t(c)];
}

}  // namespace

std::vector<std::string> raceScheduleNames() { return {"rows", "2-delay"}; }

std::vector<std::string> lessonScheduleNames() {
    std::vector<std::string> names = scheduleNames();
    for (const std::string& n : raceScheduleNames()) names.push_back(n);
    return names;
}

std::pair<int, int> lessonBlockSize(const std::string& schedule) {
    // Parallelogram blocks are square (32 x 32 in the methods); wavefront units are flat chunks of a band (a band of
    // 8 or 16 rows, 256 steps long in the methods); GPU strips of 32 or 64 rows in groups of 8 or 16 steps: 4 rows in
    // groups of 4 steps show several strips. Trapezoid blocks are sized by the model from the thread count.
    if (schedule == "parallelogram" || schedule == "gpu-wavefront") return {4, 4};
    if (schedule == "wavefront") return {6, 2};
    return {0, 0};
}

Plane8 lessonRamp(int width, int height) {
    Plane8 p(width, height);
    for (int i = 0; i < height; ++i)
        for (int j = 0; j < width; ++j)
            p.at(i, j) = uint8_t(width > 1 ? (255 * j + (width - 1) / 2) / (width - 1) : 128);
    return p;
}

Plane8 lessonCrop(const Plane8& src, int width, int height) {
    const int w = std::min(width, src.width), h = std::min(height, src.height);
    const int x0 = (src.width - w) / 2, y0 = (src.height - h) / 2;
    Plane8 p(w, h);
    for (int i = 0; i < h; ++i)
        for (int j = 0; j < w; ++j) p.at(i, j) = src.at(y0 + i, x0 + j);
    return p;
}

Status traceLesson(const Plane8& src, const LessonOptions& o, LessonTrace& out) {
    const int w = src.width, h = src.height;
    if (w < 1 || h < 1 || w > kLessonMaxSide || h > kLessonMaxSide)
        return Status::error("a lesson image is 1 x 1 to " + std::to_string(kLessonMaxSide) + " x " +
                             std::to_string(kLessonMaxSide) + " pixels, not " + std::to_string(w) + " x " +
                             std::to_string(h));
    if (o.levels < 2 || o.levels > 16) return Status::error("a lesson has 2 to 16 output levels");
    const Kernel* kernel = findKernel(o.kernel);
    if (!kernel) return Status::error("unknown kernel '" + o.kernel + "'; known kernels: " + kernelNames());
    out = LessonTrace{};
    const std::vector<std::string> races = raceScheduleNames();
    if (std::find(races.begin(), races.end(), o.schedule) != races.end()) {
        if (!o.race)
            return Status::error("'" + o.schedule +
                                 "' is a naive parallel order, not an exact schedule: run it as a "
                                 "race to see where it reads errors before they are written");
        if (Status s = makeRaceSchedule(o.schedule, w, h, out.schedule); !s) return s;
    } else {
        ScheduleOptions so = o.scheduleOptions;
        if (so.blockWidth == 0 && so.blockHeight == 0)
            std::tie(so.blockWidth, so.blockHeight) = lessonBlockSize(o.schedule);
        if (so.threads == 0) so.threads = kLessonThreads;
        if (Status s = makeSchedule(o.schedule, w, h, *kernel, so, out.schedule); !s) return s;
    }
    const Schedule& sch = out.schedule;
    const Arithmetic arith = sch.classMatrix           ? Arithmetic::Dot
                             : o.schedule == "hilbert" ? Arithmetic::Riemersma
                                                       : Arithmetic::ErrorDiffusion;
    const bool serp = o.schedule == "serpentine";
    out.kernel = arith == Arithmetic::ErrorDiffusion ? kernel->name : std::string();
    out.arithmetic = arith == Arithmetic::Dot         ? "dot diffusion, " + sch.classMatrix->title + " class matrix"
                     : arith == Arithmetic::Riemersma ? std::string("Riemersma's dither along the Hilbert curve")
                                                      : "error diffusion, kernel " + kernel->name;
    out.levels = o.levels;
    out.race = o.race;
    out.input = src;
    const Quantizer q(o.levels, false);

    // The sources of every pixel: who sends it an error, with which weight.
    const size_t n = size_t(w) * size_t(h);
    std::vector<std::vector<LessonShare>> sources(n);
    std::vector<std::pair<int, int>> curve;
    PlaneT<int32_t> curvePos;
    if (arith == Arithmetic::Riemersma) {
        curve = curveOrder(w, h);
        curvePos = PlaneT<int32_t>(w, h);
        for (size_t p = 0; p < curve.size(); ++p) curvePos.at(curve[p].first, curve[p].second) = int32_t(p);
    }
    for (int i = 0; i < h; ++i)
        for (int j = 0; j < w; ++j) {
            std::vector<LessonShare>& list = sources[size_t(i) * w + j];
            if (arith == Arithmetic::ErrorDiffusion) {
                for (size_t t = 0; t < kernel->taps.size(); ++t) {
                    const Tap& tap = kernel->taps[t];
                    const int si = i - tap.di;
                    const int sj = j - ((serp && (si & 1)) ? -tap.dj : tap.dj);
                    if (si < 0 || sj < 0 || sj >= w) continue;
                    list.push_back({si, sj, kernel->weight(t, src.at(si, sj)), kernel->divisor});
                }
            } else if (arith == Arithmetic::Dot) {
                const ClassMatrix& m = *sch.classMatrix;
                for (int di = -1; di <= 1; ++di)
                    for (int dj = -1; dj <= 1; ++dj) {
                        const int si = i + di, sj = j + dj;
                        if ((di == 0 && dj == 0) || si < 0 || si >= h || sj < 0 || sj >= w) continue;
                        if (m.classAt(si, sj) >= m.classAt(i, j)) continue;
                        list.push_back({si, sj, (di == 0 || dj == 0) ? 2 : 1, dotWeightSum(m, w, h, si, sj)});
                    }
            } else {
                const int p = curvePos.at(i, j);
                for (int back = std::min(p, kRiemersmaListLength); back >= 1; --back) {
                    const auto [si, sj] = curve[size_t(p - back)];
                    list.push_back({si, sj, kRiemersmaWeights[size_t(kRiemersmaListLength - back)], kRiemersmaDivisor});
                }
            }
        }

    // Processing order: by step, then unit, then the scan inside a unit.
    auto scanKey = [&](int i, int j) { return int64_t(i) * w + ((serp && (i & 1)) ? w - 1 - j : j); };
    std::vector<std::pair<int, int>> orderList;
    orderList.reserve(n);
    for (int i = 0; i < h; ++i)
        for (int j = 0; j < w; ++j) orderList.emplace_back(i, j);
    auto key = [&](const std::pair<int, int>& p) {
        return std::tuple(sch.pixelStep.at(p.first, p.second), sch.pixelUnit.at(p.first, p.second),
                          scanKey(p.first, p.second));
    };
    std::stable_sort(orderList.begin(), orderList.end(), [&](const auto& a, const auto& b) { return key(a) < key(b); });
    // Whether the source's error is written when the receiver reads it: an earlier step, or earlier in one block.
    auto writtenBefore = [&](int si, int sj, int i, int j) {
        const int32_t a = sch.pixelStep.at(si, sj), b = sch.pixelStep.at(i, j);
        if (a != b) return a < b;
        const int32_t u = sch.pixelUnit.at(i, j);
        return u >= 0 && sch.pixelUnit.at(si, sj) == u && scanKey(si, sj) < scanKey(i, j);
    };

    PlaneT<int32_t> err(w, h, 0);
    out.output = Plane8(w, h);
    out.order = PlaneT<int32_t>(w, h, -1);
    out.pixels.reserve(n);
    out.stepBegin.assign(size_t(sch.steps) + 1, 0);
    for (const auto& [i, j] : orderList) {
        LessonPixel px;
        px.row = i;
        px.col = j;
        px.step = sch.pixelStep.at(i, j);
        px.input = src.at(i, j);
        px.scaled = q.input(px.input);
        px.collected = sources[size_t(i) * w + j];
        for (LessonShare& c : px.collected) {
            c.early = !writtenBefore(c.row, c.col, i, j);
            c.error = c.early ? 0 : err.at(c.row, c.col);
            c.term = arith == Arithmetic::Dot ? dotShare(c.numerator, c.error, c.denominator) : c.numerator * c.error;
            px.sum += c.term;
            px.earlyReads += c.early ? 1 : 0;
        }
        if (arith == Arithmetic::ErrorDiffusion)
            px.correction = floorDiv(px.sum + kernel->divisor / 2, kernel->divisor);
        else if (arith == Arithmetic::Riemersma)
            px.correction = floorDiv(px.sum + kRiemersmaDivisor / 2, kRiemersmaDivisor);
        else
            px.correction = px.sum;
        px.total = px.scaled + px.correction;
        if (arith == Arithmetic::ErrorDiffusion && kernel->modulated()) {
            const int u = varkerneltable::noiseU(uint32_t(i), uint32_t(j), EdParams{}.seed);
            px.perturbation =
                varkerneltable::perturbation(u, varkerneltable::modulationScale(kernel->strength(px.input), o.levels));
        }
        px.level = q.level(px.total - px.perturbation);
        px.output = q.values()[size_t(px.level)];
        px.target = q.targets()[size_t(px.level)];
        px.error = (arith == Arithmetic::Riemersma ? px.scaled : px.total) - px.target;
        err.at(i, j) = px.error;
        out.output.at(i, j) = px.output;
        out.order.at(i, j) = int32_t(out.pixels.size());
        out.earlyReads += px.earlyReads;
        ++out.stepBegin[size_t(px.step) + 1];
        out.pixels.push_back(std::move(px));
    }
    std::partial_sum(out.stepBegin.begin(), out.stepBegin.end(), out.stepBegin.begin());
    // What each pixel sends: its error with every receiver's weight, lost where the receiver read before the write.
    for (const LessonPixel& r : out.pixels)
        for (const LessonShare& c : r.collected) {
            LessonPixel& s = out.pixels[size_t(out.order.at(c.row, c.col))];
            const int32_t term =
                arith == Arithmetic::Dot ? dotShare(c.numerator, s.error, c.denominator) : c.numerator * s.error;
            s.sent.push_back({r.row, r.col, c.numerator, c.denominator, s.error, term, c.early});
        }

    // The proof: the sequential engine of the same arithmetic.
    if (arith == Arithmetic::ErrorDiffusion) {
        EdParams ep;
        ep.kernel = kernel->name;
        ep.levels = o.levels;
        ep.serpentine = serp;
        out.sequential = referenceErrorDiffusion(src, ep);
    } else if (arith == Arithmetic::Dot) {
        DotParams dp;
        dp.matrix = sch.classMatrix->name;
        dp.levels = o.levels;
        out.sequential = referenceDotDiffusion(src, dp);
    } else {
        RiemersmaParams rp;
        rp.levels = o.levels;
        if (Status s = riemersmaDither(src, out.sequential, rp, {}); !s) return s;
    }
    for (size_t p = 0; p < n; ++p) out.differing += out.output.data[p] != out.sequential.data[p] ? 1 : 0;

    // Parallelism and critical path of the schedule; the dependency chain of the arithmetic, in its sequential order.
    LessonStats& st = out.stats;
    st.steps = sch.steps;
    for (int64_t p : sch.parallelism) st.maxParallelism = std::max(st.maxParallelism, p);
    std::vector<int64_t> unitPixels(size_t(std::max(sch.units, 0)), 0);
    for (int32_t u : sch.pixelUnit.data)
        if (u >= 0) ++unitPixels[size_t(u)];
    for (int s = 0; s < sch.steps; ++s) {
        int64_t longest = 0;
        for (size_t p = out.stepBegin[size_t(s)]; p < out.stepBegin[size_t(s) + 1]; ++p) {
            const int32_t u = sch.pixelUnit.at(out.pixels[p].row, out.pixels[p].col);
            longest = std::max<int64_t>(longest, u >= 0 ? unitPixels[size_t(u)] : 1);
        }
        st.criticalPath += longest;
    }
    std::vector<std::pair<int, int>> seq = arith == Arithmetic::Riemersma ? curve : std::vector<std::pair<int, int>>{};
    if (arith != Arithmetic::Riemersma) {
        seq.reserve(n);
        for (int i = 0; i < h; ++i)
            for (int j = 0; j < w; ++j) seq.emplace_back(i, j);
        auto seqKey = [&](const std::pair<int, int>& p) {
            const int c = arith == Arithmetic::Dot ? sch.classMatrix->classAt(p.first, p.second) : 0;
            return std::pair(c, scanKey(p.first, p.second));
        };
        std::stable_sort(seq.begin(), seq.end(), [&](const auto& a, const auto& b) { return seqKey(a) < seqKey(b); });
    }
    PlaneT<int64_t> depth(w, h, 0);
    for (const auto& [i, j] : seq) {
        int64_t d = 0;
        for (const LessonShare& c : sources[size_t(i) * w + j]) d = std::max(d, depth.at(c.row, c.col));
        depth.at(i, j) = d + 1;
        st.dependencyChain = std::max(st.dependencyChain, d + 1);
    }
    return Status::ok();
}

int lessonInkIndex(int levels, LessonInk ink) { return levels + int(ink); }

int lessonCellSize(int width, int height) { return std::clamp(480 / std::max({width, height, 1}), 4, 48); }

Image renderLessonFrame(const LessonTrace& t, int step, int cell) {
    const int w = t.output.width, h = t.output.height;
    const int fw = w * cell + 1, fh = h * cell + 1;
    Image im;
    im.space = ColorSpace::RGB;
    const Quantizer q(t.levels, false);
    for (int k = 0; k < t.levels; ++k)
        im.palette.push_back({q.values()[size_t(k)], q.values()[size_t(k)], q.values()[size_t(k)]});
    im.palette.push_back({118, 138, 170});  // Grid
    im.palette.push_back({30, 110, 255});   // Step
    im.palette.push_back({230, 30, 30});    // Early
    im.palette.push_back({255, 150, 0});    // Differs
    constexpr int kShades = 16;
    for (int s = 0; s < kShades; ++s) {
        const uint8_t v = uint8_t(150 + s * 6);
        im.palette.push_back({v, v, uint8_t(std::min(255, v + 15))});
    }
    im.indices = Plane8(fw, fh, uint8_t(lessonInkIndex(t.levels, LessonInk::Grid)));
    const bool last = step >= t.steps() - 1;
    const int border = std::max(1, cell / 8);
    for (int i = 0; i < h; ++i)
        for (int j = 0; j < w; ++j) {
            const LessonPixel& p = t.at(i, j);
            const int fill =
                p.step <= step ? p.level : lessonInkIndex(t.levels, LessonInk::Pending) + p.input * kShades / 256;
            int frame = -1;
            if (p.step == step) frame = lessonInkIndex(t.levels, p.earlyReads > 0 ? LessonInk::Early : LessonInk::Step);
            const bool marked = last && t.output.at(i, j) != t.sequential.at(i, j);
            for (int y = 1; y < cell; ++y)
                for (int x = 1; x < cell; ++x) {
                    int v = fill;
                    if (frame >= 0 && (y <= border || x <= border || y >= cell - border || x >= cell - border))
                        v = frame;
                    if (marked && x + y <= cell / 2) v = lessonInkIndex(t.levels, LessonInk::Differs);
                    im.indices.at(i * cell + y, j * cell + x) = uint8_t(v);
                }
        }
    paintChannels(im);
    return im;
}

Image renderLessonPage(const LessonTrace& t, int first, int last, int columns, int cell) {
    const int count = std::max(1, last - first + 1);
    const int cols = std::clamp(columns, 1, count), rows = (count + cols - 1) / cols;
    const Image probe = renderLessonFrame(t, first, cell);
    const int fw = probe.width(), fh = probe.height(), gap = std::max(8, cell);
    Image page;
    page.space = ColorSpace::RGB;
    page.palette = probe.palette;
    page.indices = Plane8(cols * fw + (cols + 1) * gap, rows * fh + (rows + 1) * gap, uint8_t(t.levels - 1));
    for (int n = 0; n < count; ++n) {
        const Image f = n == 0 ? probe : renderLessonFrame(t, first + n, cell);
        const int x0 = gap + (n % cols) * (fw + gap), y0 = gap + (n / cols) * (fh + gap);
        for (int y = 0; y < fh; ++y) std::copy_n(f.indices.row(y), fw, page.indices.row(y0 + y) + x0);
    }
    paintChannels(page);
    return page;
}

}  // namespace halftone
