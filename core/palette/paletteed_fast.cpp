// Error diffusion to a colour palette (docs/spec.md section 4), the fast forms: the four sequential variants of
// Kasagi, Nakano and Ito, Table V (1) (core/ed/sequentialforms.h), the k-delay wavefront bands and the trapezoid
// blocks on several threads (core/ed/bandengine.h), each with the three channels interleaved and the nearest-colour
// step of this file. Every form gives referencePaletteErrorDiffusion's indices bit for bit.
#include <algorithm>
#include <utility>

#include "core/ed/bandengine.h"
#include "core/ed/sequentialforms.h"
#include "core/palette/nearestcolor.h"
#include "core/palette/paletteed.h"

namespace halftone {

namespace {

using band::divideSum;
using band::forTaps;
using band::tapOf;
using band::withKernelId;

/// The per-pixel step of section 4 after the error sums: S = A + floor((acc + D/2) / D), clamp to [0, 4080], the
/// nearest colour, the error T - P_k.
struct Quantize {
    const int32_t* input;    ///< A for an 8-bit value
    const int32_t* targets;  ///< P_k, three per colour
    NearestColor* search;
    inline int operator()(const uint8_t a[3], const int32_t sum[3], int32_t e[3]) const {
        int32_t t[3];
        for (int c = 0; c < 3; ++c) t[c] = std::clamp(input[a[c]] + sum[c], 0, 4080);
        const int k = search->nearest(t[0], t[1], t[2]);
        const int32_t* p = targets + 3 * k;
        for (int c = 0; c < 3; ++c) e[c] = t[c] - p[c];
        return k;
    }
};

struct Job {
    const uint8_t* planes[3];  ///< R, G, B rows of width `width`
    int width, height;
    Plane8& dst;
    const EdParams& p;
    const RunControl& rc;
    Quantize q;
};

/// The three input rows of image row i. Moved to another row by seek, not by assignment: clang 14 cannot generate
/// the assignment of an array of restrict pointers ("cannot initialize a parameter of type 'void *'").
struct InputRow {
    const uint8_t* __restrict ch[3];
    InputRow(const Job& c, int i) { seek(c, i); }
    void seek(const Job& c, int i) {
        for (int k = 0; k < 3; ++k) ch[k] = c.planes[k] + size_t(i) * size_t(c.width);
    }
    void at(int j, uint8_t a[3]) const {
        for (int k = 0; k < 3; ++k) a[k] = ch[k][j];
    }
};

/// The per-pixel step of section 4 on row i: the nearest colour from the divided error sums, for the sequential forms
/// (core/ed/sequentialforms.h) and the trapezoid rows (core/ed/bandengine.h's collectRow).
struct PaletteStep {
    static constexpr int kChannels = 3;
    const Job& c;
    const Quantize q = c.q;
    InputRow in{c, 0};
    uint8_t* out = nullptr;
    int width() const { return c.width; }
    int height() const { return c.height; }
    void startRow(int i) {
        in.seek(c, i);
        out = c.dst.row(i);
    }
    uint8_t level(int, int) const { return 0; }  // fixed kernels only
    inline void operator()(int j, const int32_t* s, int32_t* e) const {
        uint8_t a[3];
        in.at(j, a);
        out[j] = uint8_t(q(a, s, e));
    }
    inline void operator()(int, int j, const int32_t* s, int32_t* e) const { (*this)(j, s, e); }
};

Status prepare(const Image& rgb, const Palette& palette, Plane8& indices, const EdParams& params, int& kid) {
    const Kernel* kernel = nullptr;
    if (Status s = fixedColorKernel(params, "palette error diffusion", kernel); !s) return s;
    if (Status s = checkPalette(palette); !s) return s;
    if (rgb.channels.size() != 1 && rgb.channels.size() != 3)
        return Status::error("palette error diffusion needs a gray or RGB image, got " +
                             std::to_string(rgb.channels.size()) + " channels");
    for (const Plane8& p : rgb.channels)
        if (!p.sameSize(rgb.channels.front())) return Status::error("the image's channels differ in size");
    if (Status s = checkImageSize(rgb.width(), rgb.height(), 3, ~0ull); !s) return s;
    kid = band::compiledKernelId(*kernel);
    if (kid < 0) return Status::error("kernel '" + kernel->name + "' has no compiled palette form");
    if (!indices.sameSize(rgb.channels.front())) indices = Plane8(rgb.width(), rgb.height());
    return Status::ok();
}

std::vector<int32_t> flatTargets(const PaletteTargets& pt) {
    std::vector<int32_t> v;
    for (const auto& t : pt.targets) v.insert(v.end(), t.begin(), t.end());
    return v;
}

const uint8_t* planeOf(const Image& rgb, int c) {
    return rgb.channels[rgb.channels.size() == 1 ? 0 : size_t(c)].data.data();
}

/// What every form shares: the checked request, the kernel, the colour targets.
struct PaletteRun {
    const Image& rgb;
    Plane8& indices;
    const EdParams& params;
    const Kernel& kernel;
    int kid;
    PaletteTargets pt;
    std::vector<int32_t> targets;
    PaletteRun(const Image& rgb_, const Palette& palette, Plane8& indices_, const EdParams& params_, int kid_)
        : rgb(rgb_),
          indices(indices_),
          params(params_),
          kernel(*findKernel(params_.kernel)),
          kid(kid_),
          pt(palette, params_.linear, params_.match),
          targets(flatTargets(pt)) {}
    /// \brief The job of one worker, searching with its own NearestColor.
    Job job(NearestColor& search, const RunControl& control) const {
        return Job{
            {planeOf(rgb, 0), planeOf(rgb, 1), planeOf(rgb, 2)}, rgb.width(), rgb.height(), indices, params, control,
            Quantize{pt.input.data(), targets.data(), &search}};
    }
    /// \brief Zero margin of the error rows: the columns the kernel reaches either side.
    int margin() const { return std::max(kernel.maxDjLeft(), kernel.maxDjRight()); }
};

}  // namespace

Status paletteErrorDiffuse(const Image& rgb, const Palette& palette, Plane8& indices, const EdParams& params,
                           EdVariant variant, const RunControl& control, int searchShift) {
    int kid = -1;
    if (Status s = prepare(rgb, palette, indices, params, kid); !s) return s;
    const PaletteRun run(rgb, palette, indices, params, kid);
    NearestColor search(run.pt, searchShift);
    const Job job = run.job(search, control);
    PaletteStep step{job};
    const Status st = edforms::withTableKernel(
        run.kid, [&](auto k) { return edforms::runForm<decltype(k)>(variant, step, params, control); });
    if (st) control.report(1.0);
    return st;
}

// ---------------------------------------------------------------------------------------------
// Wavefront bands and trapezoid blocks: the band driver and the step-block list of core/ed/bandengine.h, with the
// nearest-colour step of section 4.

namespace {

/// Steps between the progress counter's publications.
constexpr int kWaveChunk = 64;

/// One band of the wavefront. rows[-d] (d = 1..maxDi): error rows of image rows i0 - d; rows[r]: band row r.
/// Error rows are int16 with 3 channels interleaved and zero margins (|E| <= 4080 after the clamp).
template <int KID>
bool paletteBand(band::WaveBands& bands, int b, const Job& c, int i0, int R, int16_t* const* rows) {
    constexpr int k = par::cdelay(par::ckernel<KID>());
    const int w = c.width;
    const int64_t total = w + int64_t(k) * (R - 1);
    uint8_t* __restrict out = c.dst.row(i0);
    const uint8_t* __restrict planes[3] = {c.planes[0], c.planes[1], c.planes[2]};
    const Quantize q = c.q;
    for (int64_t t0 = 0; t0 < total; t0 += kWaveChunk) {
        const int64_t t1 = std::min<int64_t>(total, t0 + kWaveChunk);
        if (!bands.wait(b, t1)) return false;
        for (int64_t t = t0; t < t1; ++t) {
            const int rlo = t >= w ? int((t - w + k) / k) : 0;
            const int rhi = int(std::min<int64_t>(R - 1, t / k));
            for (int r = rlo; r <= rhi; ++r) {
                const int j = int(t - int64_t(k) * r);
                int32_t s[3] = {0, 0, 0}, e[3];
                forTaps<KID>([&](auto I) {
                    constexpr par::CTap tp = tapOf<KID, decltype(I)::value>();
                    const int16_t* p = rows[r - tp.di] + 3 * (j - tp.dj);
                    for (int ch = 0; ch < 3; ++ch) s[ch] += tp.w * int32_t(p[ch]);
                });
                for (int ch = 0; ch < 3; ++ch) s[ch] = divideSum<KID>(s[ch]);
                uint8_t a[3];
                const size_t at = size_t(i0 + r) * size_t(w) + size_t(j);
                for (int ch = 0; ch < 3; ++ch) a[ch] = planes[ch][at];
                out[size_t(r) * size_t(w) + size_t(j)] = uint8_t(q(a, s, e));
                int16_t* dst = rows[r] + 3 * j;
                for (int ch = 0; ch < 3; ++ch) dst[ch] = int16_t(e[ch]);
            }
        }
        bands.publish(b, t1);
    }
    return true;
}

/// Checks the request and runs f(run). Serpentine: every row waits for the whole previous row (docs/spec.md section
/// 1): no wavefront to run; the sequential error collection with register caching runs.
template <class F>
Status withPaletteRun(const Image& rgb, const Palette& palette, Plane8& indices, const EdParams& params,
                      const RunControl& control, F&& f) {
    int kid = -1;
    if (Status s = prepare(rgb, palette, indices, params, kid); !s) return s;
    if (params.serpentine)
        return paletteErrorDiffuse(rgb, palette, indices, params, EdVariant::CollectionRegisters, control);
    return f(PaletteRun(rgb, palette, indices, params, kid));
}

}  // namespace

Status wavefrontPaletteErrorDiffusion(const Image& rgb, const Palette& palette, Plane8& indices, const EdParams& params,
                                      const ParallelOptions& options, const RunControl& control) {
    return withPaletteRun(rgb, palette, indices, params, control, [&](const PaletteRun& run) {
        const Kernel& kernel = run.kernel;
        const int W = rgb.width(), H = rgb.height();
        const int bandRows = std::max(simdBandRows(options.simd), kernel.maxDi());
        band::WaveBands bands(W, H, bandRows, kernel, band::threadsFor(options, control),
                              W + int64_t(kernel.minimalDelay()) * (bandRows - 1), control);

        // Error rows: zero margins of m pixels either side. Each thread has bandRows rows of its own; the last maxDi
        // rows of band b go to its hand-off slot, read by band b + 1.
        const int maxDi = kernel.maxDi(), m = run.margin();
        const size_t rowLen = 3 * (size_t(W) + 2 * size_t(m));
        band::HandoffRows<int16_t> handoff(bands.slots(), maxDi, rowLen, 3 * size_t(m));
        std::vector<int16_t> zero(rowLen, 0);
        std::vector<int16_t> local(size_t(bands.threads()) * size_t(bandRows) * rowLen, 0);

        return bands.run([&](int tid) {
            return [&, tid, search = NearestColor(run.pt),
                    rowTable = std::vector<int16_t*>(size_t(maxDi + bandRows))](int b) mutable {
                const Job job = run.job(search, control);
                int16_t** rows = rowTable.data() + maxDi;
                const int i0 = b * bandRows;
                const int R = std::min(bandRows, H - i0);
                for (int d = 1; d <= maxDi; ++d) rows[-d] = b == 0 ? zero.data() + 3 * m : handoff.row(b - 1, d - 1);
                for (int r = 0; r < R; ++r) {
                    const int fromEnd = R - 1 - r;
                    rows[r] = b + 1 < bands.bands() && fromEnd < maxDi
                                  ? handoff.row(b, fromEnd)
                                  : local.data() + (size_t(tid) * size_t(bandRows) + size_t(r)) * rowLen + 3 * m;
                }
                return withKernelId(
                    run.kid, [&](auto k) { return paletteBand<decltype(k)::value>(bands, b, job, i0, R, rows); });
            };
        });
    });
}

Status trapezoidPaletteErrorDiffusion(const Image& rgb, const Palette& palette, Plane8& indices, const EdParams& params,
                                      const ParallelOptions& options, const RunControl& control) {
    return withPaletteRun(rgb, palette, indices, params, control, [&](const PaletteRun& run) {
        band::TrapezoidRun trapezoid;
        if (Status s = trapezoid.plan(rgb.width(), rgb.height(), run.kernel, options, control); !s) return s;
        band::ErrorPlane err(rgb.width(), rgb.height(), run.kernel.maxDi(), run.margin(), 3);
        return withKernelId(run.kid, [&](auto k) {
            return trapezoid.run([&](band::TrapezoidRun& r) {
                NearestColor search(run.pt);
                const Job job = run.job(search, control);
                r.work([&](int y, int x0, int x1) {
                    int16_t* rows[4];
                    err.rowsAt(y, rows);
                    PaletteStep step{job};
                    step.startRow(y);
                    band::collectRow<decltype(k)::value>(rows, x0, x1, step);
                });
            });
        });
    });
}

}  // namespace halftone
