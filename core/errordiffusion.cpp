#include "core/errordiffusion.h"

#include <algorithm>
#include <cstdint>
#include <vector>

#include "core/quantizer.h"

namespace halftone {

Status validateEdParams(const EdParams& params, const Kernel*& kernel) {
    kernel = findKernel(params.kernel);
    if (!kernel) return Status::error("unknown kernel '" + params.kernel + "'; known kernels: " + kernelNames());
    return Quantizer::checkLevels(params.levels);
}

Plane8 referenceErrorDiffusion(const Plane8& src, const EdParams& params) {
    const Kernel* kernel = findKernel(params.kernel);
    const Quantizer q(params.levels, params.linear);
    const int h = src.height, w = src.width;
    Plane8 out(w, h);
    PlaneT<int32_t> err(w, h);
    const int d = kernel->divisor;
    auto odd = [&](int row) { return params.serpentine && (row & 1); };
    for (int i = 0; i < h; ++i) {
        for (int n = 0; n < w; ++n) {
            const int j = odd(i) ? w - 1 - n : n;
            int32_t acc = 0;
            for (const Tap& t : kernel->taps) {
                const int si = i - t.di;
                const int sj = j - (odd(si) ? -t.dj : t.dj);
                if (si >= 0 && sj >= 0 && sj < w) acc += t.w * err.at(si, sj);
            }
            const int32_t s = q.input(src.at(i, j)) + floorDiv(acc + d / 2, d);
            const int k = q.level(s);
            out.at(i, j) = q.values()[size_t(k)];
            err.at(i, j) = s - q.targets()[size_t(k)];
        }
    }
    return out;
}

namespace {

/// Scan direction of row i: +1 left to right, -1 right to left (serpentine odd rows).
inline int dirOf(const EdParams& p, int i) { return (p.serpentine && (i & 1)) ? -1 : 1; }

Status diffusionPlain(const Plane8& src, Plane8& dst, const Kernel& k, const Quantizer& q, const EdParams& p,
                      const RunControl& rc) {
    const int h = src.height, w = src.width, d = k.divisor;
    PlaneT<int32_t> acc(w, h);
    for (int i = 0; i < h; ++i) {
        if (rc.cancelled()) return Status::cancelled();
        const int dir = dirOf(p, i);
        const uint8_t* in = src.row(i);
        uint8_t* out = dst.row(i);
        for (int n = 0; n < w; ++n) {
            const int j = dir > 0 ? n : w - 1 - n;
            const int32_t s = q.input(in[j]) + floorDiv(acc.at(i, j) + d / 2, d);
            const int lv = q.level(s);
            out[j] = q.values()[size_t(lv)];
            const int32_t e = s - q.targets()[size_t(lv)];
            for (const Tap& t : k.taps) {
                const int ti = i + t.di, tj = j + dir * t.dj;
                if (ti < h && tj >= 0 && tj < w) acc.at(ti, tj) += t.w * e;
            }
        }
        if ((i & 63) == 63) rc.report(double(i + 1) / h);
    }
    return Status::ok();
}

Status collectionPlain(const Plane8& src, Plane8& dst, const Kernel& k, const Quantizer& q, const EdParams& p,
                       const RunControl& rc) {
    const int h = src.height, w = src.width, d = k.divisor;
    PlaneT<int32_t> err(w, h);
    for (int i = 0; i < h; ++i) {
        if (rc.cancelled()) return Status::cancelled();
        const int dir = dirOf(p, i);
        const uint8_t* in = src.row(i);
        uint8_t* out = dst.row(i);
        for (int n = 0; n < w; ++n) {
            const int j = dir > 0 ? n : w - 1 - n;
            int32_t acc = 0;
            for (const Tap& t : k.taps) {
                const int si = i - t.di;
                if (si < 0) continue;
                const int sj = j - dirOf(p, si) * t.dj;
                if (sj >= 0 && sj < w) acc += t.w * err.at(si, sj);
            }
            const int32_t s = q.input(in[j]) + floorDiv(acc + d / 2, d);
            const int lv = q.level(s);
            out[j] = q.values()[size_t(lv)];
            err.at(i, j) = s - q.targets()[size_t(lv)];
        }
        if ((i & 63) == 63) rc.report(double(i + 1) / h);
    }
    return Status::ok();
}

// Register caching (seed 000, section III): the errors that stay within the current row travel
// in a small local window instead of memory; rows below/above live in O(width) ring buffers with
// a margin of maxDj on each side so boundary taps need no branches.
constexpr int kMaxWindow = 8;

Status diffusionRegisters(const Plane8& src, Plane8& dst, const Kernel& k, const Quantizer& q, const EdParams& p,
                          const RunControl& rc) {
    const int h = src.height, w = src.width, d = k.divisor;
    const int rows = k.maxDi();                                      // accumulator rows below
    const int margin = std::max(k.maxDjLeft(), k.maxDjRight());
    const int stride = w + 2 * margin;
    // ring[r] accumulates for image row i + r; rotated after each row.
    std::vector<std::vector<int32_t>> ring(size_t(rows + 1), std::vector<int32_t>(size_t(stride), 0));
    std::vector<Tap> same, below;  // same-row taps (di == 0) and the rest
    for (const Tap& t : k.taps) (t.di == 0 ? same : below).push_back(t);
    const int fwd = k.maxDjRight();  // window length of same-row carried error sums
    for (int i = 0; i < h; ++i) {
        if (rc.cancelled()) return Status::cancelled();
        const int dir = dirOf(p, i);
        const uint8_t* in = src.row(i);
        uint8_t* out = dst.row(i);
        int32_t* cur = ring[0].data() + margin;
        int32_t win[kMaxWindow] = {};  // win[m]: weighted error arriving at the pixel m+1 steps ahead
        for (int n = 0; n < w; ++n) {
            const int j = dir > 0 ? n : w - 1 - n;
            const int32_t a = cur[j] + win[0];
            const int32_t s = q.input(in[j]) + floorDiv(a + d / 2, d);
            const int lv = q.level(s);
            out[j] = q.values()[size_t(lv)];
            const int32_t e = s - q.targets()[size_t(lv)];
            for (int m = 0; m + 1 < fwd; ++m) win[m] = win[m + 1];
            if (fwd > 0) win[fwd - 1] = 0;
            for (const Tap& t : same) win[t.dj - 1] += t.w * e;
            for (const Tap& t : below) ring[size_t(t.di)][size_t(margin + j + dir * t.dj)] += t.w * e;
        }
        std::rotate(ring.begin(), ring.begin() + 1, ring.end());
        std::fill(ring.back().begin(), ring.back().end(), 0);
        if ((i & 63) == 63) rc.report(double(i + 1) / h);
    }
    return Status::ok();
}

Status collectionRegisters(const Plane8& src, Plane8& dst, const Kernel& k, const Quantizer& q, const EdParams& p,
                           const RunControl& rc) {
    const int h = src.height, w = src.width, d = k.divisor;
    const int rows = k.maxDi();
    const int margin = std::max(k.maxDjLeft(), k.maxDjRight());
    const int stride = w + 2 * margin;
    // hist[r-1] holds the errors of image row i - r (zero margins stand for outside pixels).
    std::vector<std::vector<int32_t>> hist(size_t(std::max(rows, 1)), std::vector<int32_t>(size_t(stride), 0));
    std::vector<Tap> same, above;
    for (const Tap& t : k.taps) (t.di == 0 ? same : above).push_back(t);
    std::vector<int32_t> cur(size_t(stride), 0);
    for (int i = 0; i < h; ++i) {
        if (rc.cancelled()) return Status::cancelled();
        const int dir = dirOf(p, i);
        const uint8_t* in = src.row(i);
        uint8_t* out = dst.row(i);
        int32_t win[kMaxWindow] = {};  // win[m]: error of the pixel m+1 steps back in scan order
        for (int n = 0; n < w; ++n) {
            const int j = dir > 0 ? n : w - 1 - n;
            int32_t a = 0;
            for (const Tap& t : same) a += t.w * win[t.dj - 1];
            for (const Tap& t : above) {
                const int si = i - t.di;
                if (si < 0) continue;
                a += t.w * hist[size_t(t.di - 1)][size_t(margin + j - dirOf(p, si) * t.dj)];
            }
            const int32_t s = q.input(in[j]) + floorDiv(a + d / 2, d);
            const int lv = q.level(s);
            out[j] = q.values()[size_t(lv)];
            const int32_t e = s - q.targets()[size_t(lv)];
            for (int m = kMaxWindow - 1; m > 0; --m) win[m] = win[m - 1];
            win[0] = e;
            cur[size_t(margin + j)] = e;
        }
        if (rows > 0) {
            std::rotate(hist.rbegin(), hist.rbegin() + 1, hist.rend());
            hist[0].swap(cur);
            std::fill(cur.begin(), cur.end(), 0);
        }
        if ((i & 63) == 63) rc.report(double(i + 1) / h);
    }
    return Status::ok();
}

}  // namespace

Status errorDiffuse(const Plane8& src, Plane8& dst, const EdParams& params, EdVariant variant,
                    const RunControl& control) {
    const Kernel* kernel = nullptr;
    if (Status s = validateEdParams(params, kernel); !s) return s;
    if (Status s = checkImageSize(src.width, src.height, 1, ~0ull); !s) return s;
    if (std::max(kernel->maxDjLeft(), kernel->maxDjRight()) > kMaxWindow)
        return Status::error("kernel '" + kernel->name + "' reaches too far for the register-caching window");
    const Quantizer q(params.levels, params.linear);
    if (!dst.sameSize(src)) dst = Plane8(src.width, src.height);
    Status st;
    switch (variant) {
        case EdVariant::Diffusion: st = diffusionPlain(src, dst, *kernel, q, params, control); break;
        case EdVariant::Collection: st = collectionPlain(src, dst, *kernel, q, params, control); break;
        case EdVariant::DiffusionRegisters: st = diffusionRegisters(src, dst, *kernel, q, params, control); break;
        case EdVariant::CollectionRegisters: st = collectionRegisters(src, dst, *kernel, q, params, control); break;
    }
    if (st) control.report(1.0);
    return st;
}

}  // namespace halftone
