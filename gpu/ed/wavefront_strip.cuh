#pragma once
// \brief nvcc-only: the strip protocol of the persistent warp-strip wavefront, shared by the gray kernel's general form
// (gpu/ed/wavefront.cu), its fast form (gpu/ed/wavefront_fast.cuh, which uses the bookkeeping below) and the palette
// kernel (gpu/palette/palette_wavefront.cu). docs/design/gpu-wavefront.md explains it.
//
// The bookkeeping (take, waitForBand, spinAbort, finish) takes a strip, waits for its input band, passes a cancel on
// from spin loops and marks a strip done. `run` is the whole protocol of the general form, templated over the per-pixel
// step `P`: strips from the work-stealing counter, the boundary words of the strip above (tagged with the launch's
// epoch, checked once per group with one warp vote, prefetched one or two groups ahead), the prefill of the rows above
// a strip's first columns, the error windows of the rows above passed down the strip by shuffles, the publication of
// the strip's last one or two rows, and the cancel flag read once per chunk. Every function is warp-uniform: all 32
// lanes call it with the same arguments and get the same result.
#include <cuda_runtime.h>

#include <cstdint>

#include "gpu/devicecommon.cuh"
#include "gpu/ed/launch.h"

namespace halftone::gpu::strip {

inline constexpr unsigned kFull = 0xffffffffu;

/// \brief The next strip from the work-stealing counter (the same value in every lane).
__device__ __forceinline__ int take(const WavefrontArgs& a, int lane) {
    int s = 0;
    if (lane == 0) s = atomicAdd(a.stripCounter, 1);
    return __shfl_sync(kFull, s, 0);
}

/// \brief Overlapped path: waits until the input band of the strip starting at row `base` has arrived; false when a
/// cancel was seen meanwhile.
__device__ __forceinline__ bool waitForBand(const WavefrontArgs& a, int base, int lane) {
    if (!a.bandReady) return true;
    const int band = base / a.bandRows;
    int spins = 0;
    for (;;) {
        int ready = 0;
        if (lane == 0) ready = *reinterpret_cast<const volatile int*>(a.bandReady + band) == int(a.epoch);
        if (__shfl_sync(kFull, ready, 0)) return true;
        if (++spins > 64) {
            spins = 0;
            int ab = 0;
            if (lane == 0) ab = *reinterpret_cast<volatile int*>(a.abortFlag);
            if (__shfl_sync(kFull, ab, 0)) return false;
        }
        __nanosleep(256);
    }
}

/// \brief For spin loops: every 64th call reads the cancel flag (lane 0, broadcast); true when a cancel was seen,
/// after setting the flag for the other warps.
__device__ __forceinline__ bool spinAbort(const WavefrontArgs& a, int lane, int& spins) {
    if (++spins <= 64) return false;
    spins = 0;
    int ab = 0;
    if (lane == 0) ab = *reinterpret_cast<volatile int*>(a.abortFlag);
    if (!__shfl_sync(kFull, ab, 0)) return false;
    if (lane == 0) atomicExch(a.abortFlag, 1);
    return true;
}

/// \brief A strip is done: its done flag (overlapped path, after its output stores) and the progress counter.
__device__ __forceinline__ void finish(const WavefrontArgs& a, int s, int rowsDone, int lane) {
    if (a.stripDone) {
        __threadfence_system();  // this strip's output stores before its done flag
        __syncwarp();
        if (lane == 0) a.stripDone[s] = int(a.epoch);
    }
    if (lane == 0 && a.rowsDone) *a.rowsDone = rowsDone;
}

// ---- Tagged boundary words: data and flag in one single-copy-atomic store, so no fence is needed ----
// 32-bit words (gray): epoch << 16 | error. 64-bit words (palette): epoch << 48 | three 16-bit errors.

__device__ __forceinline__ uint32_t tagOf(uint32_t epoch, uint32_t) { return epoch << 16; }
__device__ __forceinline__ unsigned long long tagOf(uint32_t epoch, unsigned long long) {
    return (unsigned long long)epoch << 48;
}
/// \brief Whether word `w` carries tag `tag` (this launch's epoch).
__device__ __forceinline__ bool tagged(uint32_t w, uint32_t tag) { return (w & 0xffff0000u) == tag; }
__device__ __forceinline__ bool tagged(unsigned long long w, unsigned long long tag) {
    return (uint32_t(w >> 32) & 0xffff0000u) == uint32_t(tag >> 32);
}
/// \brief A boundary word from lane `src` (a 64-bit word travels as its two halves).
__device__ __forceinline__ uint32_t shfl(uint32_t w, int src) { return __shfl_sync(kFull, w, src); }
__device__ __forceinline__ unsigned long long shfl(unsigned long long w, int src) {
    const uint32_t lo = __shfl_sync(kFull, uint32_t(w), src), hi = __shfl_sync(kFull, uint32_t(w >> 32), src);
    return (unsigned long long)hi << 32 | lo;
}

/// \brief The window lengths for kernel ID (position in core's kernels()) at K steps between rows: MG of a row's own
/// errors, M1 and M2 of the rows one and two above (MAXDI: rows the kernel reaches down).
template <int ID, int K>
struct WindowShape {
    static constexpr dev::KernelC KD = dev::kernelDef(ID);
    static constexpr int MAXDI = dev::maxDiOf(KD);
    static constexpr int MG = dev::maxDjOf(KD, 0) > 0 ? dev::maxDjOf(KD, 0) : 1;
    static constexpr int M1 = K + dev::maxDjOf(KD, 1);
    static constexpr int M2 = MAXDI >= 2 ? 2 * K + dev::maxDjOf(KD, 2) : 1;
};

/// \brief The error windows of a strip's lane: for each of its QS rows and C channels its own recent errors (G: 1..MG
/// steps old, e the newest) and those of the rows one (H1) and two (H2) above, index m = m steps old.
template <int QS, int C, int MG, int M1, int M2>
struct Windows {
    int e[QS][C], G[QS][C][MG + 1], H1[QS][C][M1 + 1], H2[QS][C][M2 + 1];
};

/// \brief The error sum of a fixed kernel ID (core/ed/kerneltable.h) at delay K over one channel's windows.
template <int ID, int K, int MG, int M1, int M2>
__device__ __forceinline__ int tapSum(const int (&G)[MG + 1], const int (&H1)[M1 + 1], const int (&H2)[M2 + 1]) {
    constexpr dev::KernelC KD = dev::kernelDef(ID);
    int acc = 0;
#pragma unroll
    for (int k = 0; k < KD.n; ++k) {
        const dev::TapC tp = KD.t[k];
        if (tp.di == 0)
            acc += tp.w * G[tp.dj];
        else if (tp.di == 1)
            acc += tp.w * H1[K + tp.dj];
        else
            acc += tp.w * H2[2 * K + tp.dj];
    }
    return acc;
}

/// \brief The strip protocol over the per-pixel step P. P provides:
/// - `Word` (uint32_t or unsigned long long), `C` channels, `QS` row sets (strips of 32 QS rows), `ID` (position in
///   core's kernels()), `K` (steps between rows), `kGroup`, `kChunk`, `kAhead` (groups of boundary prefetch: 1 or 2),
///   `kUnrollGroups` (the groups of a chunk unrolled), `kRowAboveInput` (lanes 8-15 carry the row above's input);
/// - `decode(Word, int (&)[C])` and `encode(const int (&)[C], Word tag)`, the errors in a boundary word;
/// - `lane`, `rowOk[QS]` (set here), and the hooks `beginStrip(base)`, `rowAboveWord(col, base, tag)`,
///   `prefillAbove(w, m, col)`, `beginChunk(T)`, `endChunk(T)`, `beginGroup(g0, bCur)`, `shuffles(u)`,
///   `pixel(q, u, j, windows, err)` (the sum and quantiser of one pixel: its errors and its output) and
///   `endGroup(g0)`.
/// `boundary` holds [strips][2][boundaryStride] words. Returns when the strips are done or a cancel was seen.
template <class P>
__device__ __forceinline__ void run(const WavefrontArgs& a, typename P::Word* boundary, int boundaryStride, P& p) {
    using Word = typename P::Word;
    constexpr int QS = P::QS, C = P::C, K = P::K, kGroup = P::kGroup, kChunk = P::kChunk;
    using Shape = WindowShape<P::ID, K>;
    constexpr dev::KernelC KD = Shape::KD;
    constexpr int MAXDI = Shape::MAXDI, MG = Shape::MG, M1 = Shape::M1, M2 = Shape::M2;
    constexpr int ROWS = 32 * QS;
    static_assert(dev::wavefrontFits(KD, K), "kernels reach one or two rows down; the prefill reads 8 words per row");
    static_assert(P::kAhead == 1 || P::kAhead == 2, "boundary words are prefetched one or two groups ahead");
    static_assert(kChunk % kGroup == 0, "a chunk is a whole number of groups");

    const int lane = p.lane;
    const int W = a.width, H = a.height;
    const int strips = (H + ROWS - 1) / ROWS;
    const Word tag = tagOf(a.epoch, Word());
    const int lastChunk = (W - 1) / kChunk;
    const int tEnd = ((lastChunk + 1) * kChunk + K * (ROWS - 1) + kChunk - 1) / kChunk * kChunk;

    for (;;) {
        const int s = take(a, lane);
        if (s >= strips) break;
        const int base = s * ROWS;
        if (!waitForBand(a, base, lane)) return;
        const bool hasPrev = s > 0;
        const bool publish = s + 1 < strips;
        const Word* prevB1 = boundary + size_t(hasPrev ? s - 1 : 0) * 2 * boundaryStride;
        const Word* prevB2 = prevB1 + boundaryStride;
        Word* myB1 = boundary + size_t(s) * 2 * boundaryStride;
        Word* myB2 = myB1 + boundaryStride;

        Windows<QS, C, MG, M1, M2> win;
#pragma unroll
        for (int q = 0; q < QS; ++q) {
            p.rowOk[q] = base + 32 * q + lane < H;
#pragma unroll
            for (int c = 0; c < C; ++c) {
                win.e[q][c] = 0;
#pragma unroll
                for (int m = 0; m <= MG; ++m) win.G[q][c][m] = 0;
#pragma unroll
                for (int m = 0; m <= M1; ++m) win.H1[q][c][m] = 0;
#pragma unroll
                for (int m = 0; m <= M2; ++m) win.H2[q][c][m] = 0;
            }
        }
        p.beginStrip(base);

        // Boundary words from the previous strip: lanes 0-7 hold E(base-1, c1+lane), lanes 8-15 hold
        // E(base-2, c2+lane-8) for a two-row kernel, or (kRowAboveInput) the input of row base-1 in column c1+lane-8.
        // A group starting at step g0 reads c1 = g0+K-1, c2 = g0+2K-1; the prefill c1 = c2 = 0.
        auto load = [&](int c1, int c2) -> Word {
            if (!hasPrev) return tag;
            int col;
            const Word* src;
            if (lane < 8) {
                col = c1 + lane;
                src = prevB1;
            } else if (MAXDI == 2 && lane < 16) {
                col = c2 + lane - 8;
                src = prevB2;
            } else if (P::kRowAboveInput && lane < 16) {
                col = c1 + lane - 8;
                if (col >= W) return tag;
                return p.rowAboveWord(col, base, tag);
            } else {
                return tag;
            }
            if (col >= W) return tag;
            return __ldcg(src + col);
        };
        // Polls until every lane's word carries this launch's tag; false when a cancel was seen meanwhile.
        auto await = [&](Word& w, int c1, int c2, bool& reloaded) -> bool {
            int spins = 0;
            while (!__all_sync(kFull, tagged(w, tag))) {
                if (spinAbort(a, lane, spins)) return false;
                w = load(c1, c2);
                reloaded = true;
            }
            return true;
        };
        // The rows above this strip processed their first columns "before step 0": lane 0 (and lane 1 for two-row
        // kernels) start with those errors in their histories, the state "after step -1": H1[m] = E(row-1, K-1-m),
        // H2[m] = E(row-2, 2K-1-m) for lane 0 (rho = 0); lane 1 (rho = 1): H2[m] = E(base-1, K-1-m).
        if (hasPrev) {
            Word w = load(0, 0);
            bool reloaded = false;
            if (!await(w, 0, 0, reloaded)) return;
#pragma unroll
            for (int m = 1; m <= M1; ++m) {
                const int col = K - 1 - m;
                int v[C];
                P::decode(shfl(w, col >= 0 ? col : 0), v);
                if (lane == 0 && col >= 0)
#pragma unroll
                    for (int c = 0; c < C; ++c) win.H1[0][c][m] = v[c];
                p.prefillAbove(w, m, col);
            }
            if (MAXDI == 2) {
#pragma unroll
                for (int m = 1; m <= M2; ++m) {
                    const int col2 = 2 * K - 1 - m, col1 = K - 1 - m;
                    int v2[C], v1[C];
                    P::decode(shfl(w, 8 + (col2 >= 0 ? col2 : 0)), v2);
                    P::decode(shfl(w, col1 >= 0 ? col1 : 0), v1);
#pragma unroll
                    for (int c = 0; c < C; ++c) {
                        if (lane == 0 && col2 >= 0) win.H2[0][c][m] = v2[c];
                        if (lane == 1 && col1 >= 0) win.H2[0][c][m] = v1[c];
                    }
                }
            }
        }
        // boundary prefetch runs kAhead groups ahead so its latency hides behind computation
        Word bNext = load(K - 1, 2 * K - 1);
        Word bNext2 = P::kAhead == 2 ? load(kGroup + K - 1, kGroup + 2 * K - 1) : tag;

        for (int T = 0; T < tEnd; T += kChunk) {
            p.beginChunk(T);
            // cancellation: the device flag (set by the host through a copy on another stream), read now and used at
            // the chunk's end. No host memory is read here: system-scope reads from hundreds of waiting warps queue
            // up behind each other and stall the running ones.
            int abortNow = 0;
            if (lane == 0) abortNow = *reinterpret_cast<volatile int*>(a.abortFlag);
#pragma unroll(P::kUnrollGroups ? kChunk / kGroup : 1)
            for (int g0 = T; g0 < T + kChunk; g0 += kGroup) {
                Word bCur = bNext;
                bool refetch = false;
                if (P::kAhead == 2) bNext = bNext2;
                if (hasPrev && !await(bCur, g0 + K - 1, g0 + 2 * K - 1, refetch)) return;
                if (P::kAhead == 2) {
                    // After a wait the prefetched words of the next group were read too early: read them again now
                    // (valid by the time they are used) instead of waiting another round trip then.
                    if (refetch) bNext = load(g0 + kGroup + K - 1, g0 + kGroup + 2 * K - 1);
                    bNext2 = load(g0 + 2 * kGroup + K - 1, g0 + 2 * kGroup + 2 * K - 1);
                } else {
                    bNext = load(g0 + kGroup + K - 1, g0 + kGroup + 2 * K - 1);
                }
                p.beginGroup(g0, bCur);
#pragma unroll
                for (int u = 0; u < kGroup; ++u) {
                    const int t = g0 + u;
                    int bv1[C], bv2[C];
                    P::decode(shfl(bCur, u), bv1);
#pragma unroll
                    for (int c = 0; c < C; ++c) bv2[c] = 0;
                    if (MAXDI == 2) P::decode(shfl(bCur, 8 + u), bv2);
                    p.shuffles(u);
                    int r1[QS][C], r2[QS][C];
#pragma unroll
                    for (int q = 0; q < QS; ++q)
#pragma unroll
                        for (int c = 0; c < C; ++c) {
                            r1[q][c] = __shfl_sync(kFull, win.e[q][c], (lane + 31) & 31);
                            r2[q][c] = MAXDI == 2 ? __shfl_sync(kFull, win.e[q][c], (lane + 30) & 31) : 0;
                        }
#pragma unroll
                    for (int q = 0; q < QS; ++q) {
                        const int j = t - K * (32 * q + lane);
#pragma unroll
                        for (int c = 0; c < C; ++c) {
                            int above1 = r1[q][c];
                            if (lane == 0) above1 = q == 0 ? bv1[c] : r1[q - 1][c];
#pragma unroll
                            for (int m = M1; m >= 2; --m) win.H1[q][c][m] = win.H1[q][c][m - 1];
                            win.H1[q][c][1] = above1;
                            if (MAXDI == 2) {
                                int above2 = r2[q][c];
                                if (lane == 0) above2 = q == 0 ? bv2[c] : r2[q - 1][c];
                                if (lane == 1) above2 = q == 0 ? bv1[c] : r2[q - 1][c];
#pragma unroll
                                for (int m = M2; m >= 2; --m) win.H2[q][c][m] = win.H2[q][c][m - 1];
                                win.H2[q][c][1] = above2;
                            }
#pragma unroll
                            for (int m = MG; m >= 2; --m) win.G[q][c][m] = win.G[q][c][m - 1];
                            win.G[q][c][1] = win.e[q][c];
                        }
                        int err[C];
                        p.pixel(q, u, j, win, err);
                        const bool valid = p.rowOk[q] && unsigned(j) < unsigned(W);
#pragma unroll
                        for (int c = 0; c < C; ++c) win.e[q][c] = valid ? err[c] : 0;
                        if (q == QS - 1 && publish && valid) {
                            const Word word = P::encode(win.e[q], tag);
                            if (lane == 31) __stcg(myB1 + j, word);
                            if (MAXDI == 2 && lane == 30) __stcg(myB2 + j, word);
                        }
                    }
                }
                p.endGroup(g0);
            }
            p.endChunk(T);
            if (__shfl_sync(kFull, abortNow, 0)) {
                if (lane == 0) atomicExch(a.abortFlag, 1);
                return;
            }
        }
        finish(a, s, min(H, base + ROWS), lane);
    }
}

}  // namespace halftone::gpu::strip
