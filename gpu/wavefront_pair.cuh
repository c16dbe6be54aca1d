#pragma once
// The pair form of ours for binary Floyd-Steinberg (shapes "w0" / "w1"): the fast form's strips (a warp owns 32
// rows, lane = row, strips handed over through tagged words in global memory), but every lane processes TWO
// columns per step and a row lags the row above by KP steps (2 KP columns): row rho processes columns
// 2 (t - KP rho) and 2 (t - KP rho) + 1 at step t. Included by wavefront.cu after wavefront_fast.cuh (uses its
// helpers). Exact; a tuning shape, measured slower than f1 (docs/perf/gpu-ed.md, session 5).
//
// The idea: in the one-column forms each step pays a shuffle latency either on the chain (K = 2) or in the
// schedule (K = 3: 3 steps per row). With KP = 2 the only fresh cross-row value, E(up, j + 2) for the second pixel,
// is the row above's FIRST pixel of the previous step: shuffled as soon as it is done, it has a step to arrive,
// and the critical path is W / 2 + 2 H steps instead of W + 2 H (f0) or W + 3 H (f1). Measured on the H100 (SM
// clock 1980 MHz): a step of two pixels costs 97 cycles (49 ns) against f1's 61 cycles (31 ns) for one, so a row
// costs 98 ns against f1's 93 and the gain is only in the W term; Nsight Compute shows ~40 instructions per step
// and fixed-latency waits (45 %) rather than shuffle waits (9 %). KP = 3 (w1) gives every shuffle two steps and
// is slower still (128 cycles per step: the step is issue- and chain-bound, not shuffle-bound).
//
// Per step t, lane rho (j0 = 2 t - 2 KP rho; xa(t') / xb(t') = the row above's first / second error at step t'):
//   pixel 1 (j0):     y1 = 7 E(j0 - 1) + 3 xb(t - KP) + 5 xa(t - KP) + xb(t - KP - 1) + 16 A + 8
//   pixel 2 (j0 + 1): y2 = 7 E(j0)     + 3 xa(t - KP + 1) + 5 xb(t - KP) + xa(t - KP) + 16 A + 8
// The quantizer has no predicate on the chain: S = y >> 4, m = (16 T + 15 - y) >> 31 (-1 at level 1, else 0),
// E = S + 4080 m, and 7 E enters the next sum as 7 S + 28560 m (59.5 -> 49.2 ns per step for w0; the same change
// made f0/f1 slower, so they keep ISETP + predicated move).
// Lane 0's row above is the previous strip's last row: lane 31 (whose own errors no lane needs) sends lane 0 the
// boundary words instead, read per group of 16 steps (one word per lane, broadcast). Boundary words: word
// c + 62 KP + 64 of a strip = tag | E(last row, c), column order (lane 31 stores two steps per 16-byte store).
// Input: each lane's 64-column window per chunk is 16 words (funnel-shifted for odd KP) of its two aligned
// 64-byte blocks, copied by cp.async three chunks ahead into a per-lane ring. Output: 64 bits per chunk and row.
// Bit-identical to the SPEC reference (tests/gpu/test_gpu.cpp).

namespace pairfs {

using fastfs::cpAsync16;
using fastfs::cpAsyncCommit;
using fastfs::cpAsyncWait;
using fastfs::loadRelaxed;
using fastfs::mad;
using fastfs::prmt;
using fastfs::storeBlock32;

constexpr int kChunk = 32;   // steps per chunk (64 columns)
constexpr int kGroup = 16;   // steps per boundary group: 32 words, one per lane
#ifndef HALFTONE_PAIR_AHEAD
#define HALFTONE_PAIR_AHEAD 1
#endif
constexpr int kAhead = HALFTONE_PAIR_AHEAD;  // boundary groups read ahead (1 or 2; w0 16K 3.74 -> 4.16 ms with 2)
static_assert(kAhead == 1 || kAhead == 2, "one or two groups ahead");
constexpr int kSlots = kChunk / kGroup;      // 2 fixed read-ahead registers
constexpr int kRingWords = 84;               // per lane: 5 slots of 16 words (slot 4 mirrors slot 0) + padding

/// KP = steps between a row and the row below (2: shape w0, 3: shape w1).
template <int KP, bool GAMMA>
__global__ void __launch_bounds__(kWarpsPerBlock * 32, 1) fsPairKernel(WavefrontArgs a) {
    static_assert(KP == 2 || KP == 3, "rows 2 or 3 steps apart");
    constexpr int kLastLag = KP * 31;          // steps from a strip's first row to its last
    constexpr int kWordOffset = 62 * KP + 64;  // boundary word of column c: lane 31 at step t stores 2 t + 64 + k
    constexpr int q31 = (62 * KP + 63) >> 6;   // lane 31's block lag (below)
    __shared__ int32_t sTerm[256];  // 16 A(a) + 8 (linear input)
    __shared__ __align__(16) uint32_t sRing[kWarpsPerBlock * 32 * kRingWords];
    if (!GAMMA)
        for (int k = threadIdx.x; k < 256; k += blockDim.x) sTerm[k] = 16 * a.q.input[k] + 8;
    __syncthreads();

    const int lane = threadIdx.x & 31;
    const int W = a.width, H = a.height;
    const int strips = (H + 31) / 32;
    const uint32_t tag = a.epoch << 16;
    const int C = 16 * a.threshold + 15;
    const int bLast = (W - 1) >> 6;                  // last aligned 64-column block of a row
    const int tLast = 32 * (bLast + q31);            // the chunk in which the last row completes its last block
    // chunk T covers columns [2 T - 2 KP rho, +64) of row rho = bytes [r, r + 64) of blocks B(T) = T/32 - q, B + 1
    const int q = (2 * KP * lane + 63) >> 6;
    const int r = 64 * q - 2 * KP * lane;  // 0..62, even
    const int rw = r >> 2, rb8 = (r & 3) * 8;
    uint32_t* ring = sRing + threadIdx.x * kRingWords;

    for (;;) {
        const int s = takeStrip(a, lane);
        if (s >= strips) break;
        if (loadRelaxed(a.abortFlag)) return;  // cancelled: later strips do not start (the fast form's "Cancel")
        const int base = s * 32;
        if (!waitForBand(a, base, lane)) return;
        const bool hasPrev = s > 0;
        const bool publish = s + 1 < strips;
        const int row = base + lane;
        const bool rowOk = row < H;
        const unsigned char* inRow = a.in + size_t(rowOk ? row : 0) * a.pitch;
        unsigned char* outRow = a.out + size_t(rowOk ? row : 0) * a.outPitch;
        const uint32_t* prevB = a.boundary + size_t(hasPrev ? s - 1 : 0) * 2 * a.boundaryStride;
        uint32_t* myB = a.boundary + size_t(s) * 2 * a.boundaryStride;
        const bool producer = lane == 31 && publish;

        // block B of this row (64 bytes, 4 pieces of 16) into slot B & 3 (and slot 4 when B & 3 == 0)
        auto fetchBlock = [&](int Bq) {
            const int B = Bq - q;
            uint32_t* dst = ring + (B & 3) * 16;
#pragma unroll
            for (int k = 0; k < 4; ++k) {
                const int col = 64 * B + 16 * k;
                const bool inside = rowOk && B >= 0 && col < W;  // the piece starts inside the row (ends in pitch)
                const unsigned char* src = inside ? inRow + col : a.in;
                cpAsync16(dst + 4 * k, src, inside ? 16 : 0);
                if ((B & 3) == 0) cpAsync16(ring + 64 + 4 * k, src, inside ? 16 : 0);
            }
            cpAsyncCommit();
        };
        // group at step g0: lane k reads the word of E(base - 1, 2 g0 + 2 KP + k), which lane 31 sends to lane 0 at
        // step g0 + k / 2 as the row above's error (k even: first, k odd: second pixel); the first strip has no
        // producer (every word counts as ready and zero) and its slot carries the cancel flag instead (one global
        // load in flight per group, as in the fast form)
        const int wlim = hasPrev ? W : INT_MIN;
        const int bMax = 2 * a.boundaryStride - 1;
        auto boundaryLoad = [&](int g0) -> uint32_t {
            const int col = 2 * g0 + 2 * KP + lane;
            return __ldcg(hasPrev ? prevB + min(col + kWordOffset, bMax) : reinterpret_cast<const uint32_t*>(a.abortFlag));
        };

        constexpr int T0 = -kChunk;
        fetchBlock(T0 >> 5);
        fetchBlock((T0 >> 5) + 1);
        fetchBlock((T0 >> 5) + 2);

        int S2 = 0, m2 = 0;  // E(row, j0 - 1) = S2 + 4080 m2: the second error of the previous step
        int ha[KP], hb[KP + 1];  // at the start of step t: ha[m] = xa(t - 1 - m), hb[m] = xb(t - 1 - m)
#pragma unroll
        for (int m = 0; m < KP; ++m) ha[m] = 0;
#pragma unroll
        for (int m = 0; m <= KP; ++m) hb[m] = 0;
        uint32_t obPrev[2] = {0u, 0u};
        uint32_t bq[kSlots];
#pragma unroll
        for (int g = 0; g < kAhead; ++g) bq[g] = boundaryLoad(T0 + g * kGroup);
        uint4* pub = reinterpret_cast<uint4*>(myB + 2 * T0 + 64);  // lane 31's words of the current chunk

        auto chunk = [&](int T, auto maskedTag) -> bool {
            constexpr bool MASKED = decltype(maskedTag)::value;
            cpAsyncWait<1>();
            uint32_t in[16];  // bytes [r + 4k, r + 4k + 4) of (block B, block B + 1)
            {
                const int B = (T >> 5) - q;
                const uint32_t* src = ring + (B & 3) * 16 + rw;
                if (KP % 2 == 0) {  // r is a multiple of 4
#pragma unroll
                    for (int k = 0; k < 16; ++k) in[k] = src[k];
                } else {
                    uint32_t w[17];
#pragma unroll
                    for (int k = 0; k < 17; ++k) w[k] = src[k];
#pragma unroll
                    for (int k = 0; k < 16; ++k) in[k] = __funnelshift_r(w[k], w[k + 1], rb8);
                }
            }
            int abortNow = 0;
            const int jlo = 2 * T - 2 * KP * lane;  // column of pixel 1 at u = 0
            uint32_t ob[2] = {0u, 0u};
            int bvs[2 * kGroup];  // the group's boundary words, broadcast to every lane
            uint32_t pw[4];
#pragma unroll
            for (int u = 0; u < kChunk; ++u) {
                if (u % kGroup == 0) {
                    const int gi = (u / kGroup) % kSlots;
                    const int g0 = T + u;
                    const int col = 2 * g0 + 2 * KP + lane;
                    if (!__all_sync(kFull, (bq[gi] & 0xffff0000u) == tag || col >= wlim)) {
                        int spins = 0;
                        do {
                            if (spinAbort(a, lane, spins)) return false;
                            bq[gi] = boundaryLoad(g0);
                        } while (!__all_sync(kFull, (bq[gi] & 0xffff0000u) == tag || col >= wlim));
                        if (kAhead > 1) bq[(gi + 1) % kSlots] = boundaryLoad(g0 + kGroup);
                    }
                    const int bw = col < wlim ? int(short(bq[gi] & 0xffffu)) : 0;
                    if (!hasPrev) abortNow |= int(bq[gi]);  // the first strip: the cancel flag (same in every lane)
#pragma unroll
                    for (int i = 0; i < 2 * kGroup; ++i) bvs[i] = __shfl_sync(kFull, bw, i);
                    bq[(gi + kAhead) % kSlots] = boundaryLoad(g0 + kAhead * kGroup);
                }
                if (u == 13) fetchBlock((T >> 5) + 3);
                const int v = u % kGroup;
                const uint32_t w = in[u >> 1];
                int term1, term2;  // 16 A + 8 without the 8
                if (GAMMA) {
                    term1 = int(prmt(w, 0u, 0x4404u | (((u & 1) * 2) << 4)));
                    term2 = int(prmt(w, 0u, 0x4404u | (((u & 1) * 2 + 1) << 4)));
                } else {
                    term1 = sTerm[prmt(w, 0u, 0x4440u | ((u & 1) * 2))] - 8;
                    term2 = sTerm[prmt(w, 0u, 0x4440u | ((u & 1) * 2 + 1))] - 8;
                }
                // pixel 1 (j0): taps (1,-1,3) (1,0,5) (1,1,1) on E(up, j0 + 1) = xb(t - KP), E(up, j0) = xa(t - KP),
                // E(up, j0 - 1) = xb(t - KP - 1); the row's own error last
                const int older1 = mad(hb[KP - 1], 3, mad(ha[KP - 1], 5, hb[KP] + term1 + 8));
                // quantizer without a predicate on the chain (as fastfs::kNoPred): S = y >> 4, m = -1 at level 1
                // (else 0), E = S + 4080 m, and 7 E enters the next sum as 7 S + 28560 m
                const int y1 = mad(m2, 28560, mad(S2, 7, older1));
                const bool in1 = !MASKED || unsigned(jlo + 2 * u) < unsigned(W);
                const int S1 = in1 ? y1 >> 4 : 0, m1 = in1 ? (C - y1) >> 31 : 0;
                const int e1 = mad(m1, 4080, S1);
                // lane 31 sends lane 0 the previous strip's word instead of its own error (no lane needs that)
                const int xaNext = __shfl_sync(kFull, lane == 31 ? bvs[2 * v] : e1, (lane + 31) & 31);
                // pixel 2 (j0 + 1): E(up, j0 + 2) = xa(t - KP + 1) (KP = 2: shuffled last step), E(up, j0 + 1) =
                // xb(t - KP), E(up, j0) = xa(t - KP)
                const int older2 = mad(hb[KP - 1], 5, ha[KP - 1] + term2 + 8);
                const int y2 = mad(m1, 28560, mad(S1, 7, mad(ha[KP - 2], 3, older2)));
                const bool in2 = !MASKED || unsigned(jlo + 2 * u + 1) < unsigned(W);
                S2 = in2 ? y2 >> 4 : 0;
                m2 = in2 ? (C - y2) >> 31 : 0;
                const int e2 = mad(m2, 4080, S2);
                const int xbNext = __shfl_sync(kFull, lane == 31 ? bvs[2 * v + 1] : e2, (lane + 31) & 31);
#pragma unroll
                for (int m = KP - 1; m >= 1; --m) ha[m] = ha[m - 1];
#pragma unroll
                for (int m = KP; m >= 1; --m) hb[m] = hb[m - 1];
                ha[0] = xaNext;
                hb[0] = xbNext;
                ob[u / 16] |= (uint32_t(m1) & (1u << (2 * (u % 16)))) | (uint32_t(m2) & (2u << (2 * (u % 16))));
                pw[2 * (u & 1)] = tag | (uint32_t(e1) & 0xffffu);
                pw[2 * (u & 1) + 1] = tag | (uint32_t(e2) & 0xffffu);
                if ((u & 1) == 1 && producer) __stcg(pub + (u >> 1), make_uint4(pw[0], pw[1], pw[2], pw[3]));
            }
            pub += kChunk / 2;
            // output: the row's aligned 64-column block B = T/32 - q is complete now: bits [64 - r, 128 - r) of
            // (previous chunk, this chunk), r = 4 rw'
            const int B = (T >> 5) - q;
            const bool hi = r <= 32;  // shift 64 - r >= 32
            const int sh = hi ? 32 - r : 64 - r;
            const uint32_t lo0 = hi ? obPrev[1] : obPrev[0], hi0 = hi ? ob[0] : obPrev[1];
            const uint32_t lo1 = hi ? ob[0] : obPrev[1], hi1 = hi ? ob[1] : ob[0];
            const uint32_t bits0 = __funnelshift_rc(lo0, hi0, sh), bits1 = __funnelshift_rc(lo1, hi1, sh);
            obPrev[0] = ob[0];
            obPrev[1] = ob[1];
            // the block's two 32-column halves (each inside the 32-byte-aligned pitch when it starts inside the row)
            if (rowOk && B >= 0 && 64 * B < W) storeBlock32(a, outRow, row, 2 * B, bits0);
            if (rowOk && B >= 0 && 64 * B + 32 < W) storeBlock32(a, outRow, row, 2 * B + 1, bits1);
            if (abortNow) {
                if (lane == 0) atomicExch(a.abortFlag, 1);
                return false;
            }
            return true;
        };

        auto stamp = [&](int k) { traceStamp(a, s, k, lane); };
        stamp(0);
        bool ok = true;
        for (int T = T0; T <= tLast && ok; T += kChunk) {
            if (T == 96) stamp(1);
            const bool interior = T >= kLastLag && 2 * T + 64 <= W;
            if (interior)
                ok = chunk(T, std::false_type{});
            else
                ok = chunk(T, std::true_type{});
        }
        cpAsyncWait<0>();  // the next strip reuses the ring
        if (!ok) return;
        stamp(2);
        finishStrip(a, s, min(H, base + 32), lane);
    }
}

}  // namespace pairfs
