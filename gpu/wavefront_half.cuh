#pragma once
// The three-column pair form of ours for binary Floyd-Steinberg (shape "h0"; session 19). Included by wavefront.cu
// after wavefront_fast.cuh (uses its helpers).
//
// Schedule: a warp owns a strip of 32 rows (lane = row rho), every lane processes TWO columns per step, and a row is
// THREE columns behind the row above: row rho processes columns j0 = 2 t - 3 rho and j0 + 1 at step t. Pixel (j0)
// needs E(up, j0 + 1), the row above's first pixel of step t - 1, and pixel (j0 + 1) needs E(up, j0 + 2), its second
// pixel of step t - 1: each fresh cross-row error is shuffled as soon as it is computed and has the other pixel's
// quantizer to arrive. With the shuffle latency L and a dependent operation o, a step of two pixels is bounded by
// L + 3 o (the one-pixel step of f0 has the same bound), and a row costs 1.5 steps instead of f0's 2:
//  - f0: rows 2 columns apart, one column per step: a row costs 2 (L + 3 o), a column L + 3 o;
//  - h0: rows 3 columns apart, two columns per step: a row costs 1.5 (L + 3 o), a column (L + 3 o) / 2.
// The pair form w0 (rows 4 columns apart) has a row cost of 2 steps of two pixels; this is the tightest pair schedule
// FS allows (pixel j0 needs E(up, j0 + 1) from an earlier step: 2 t' - 3 (rho - 1) + 1 >= j0 + 1 for t' = t - 1).
//
// Per step t, lane rho (A1 / B1 = E(up, j0 + 1) / E(up, j0 + 2) = the row above's first / second error of step
// t - 1, A2 / B2 = those of step t - 2 = E(up, j0 - 1) / E(up, j0)):
//   pixel 1 (j0):     y1' = 3 A1 + 5 B2 + A2 + 7 E(j0 - 1) + 16 A(j0) + off
//   pixel 2 (j0 + 1): y2' = 3 B1 + 5 A1 + B2 + 7 E(j0)     + 16 A(j0 + 1) + off
// with errors as the fast form's tagged G words and its quantizer (LEA.HI + IMAD.HI, output bit = the sign). The
// shuffled A1 / B1 are the newest operands, added last. Lane 0's row above is the previous strip's last row: lane 31
// (whose own errors no lane needs) sends lane 0 those words through the same shuffles, one step ahead.
//
// Edges: outside the row a pixel is computed like any other, from input 0 (the ring's blocks before column 0 are
// zero-filled) or the pitch's bytes; only the up-right tap of columns -1 and W - 1 counts as "no error" (weight 0, its
// 3 G folded into the offset, so that the 16 tags of the sum stay). Then every error left of column 0 is "no error"
// exactly (input 0 and "no error" taps: y = 8, S = 0, level 0 for T >= 0), no column >= W reaches a column < W (only
// an up-right tap points right), and the words past the row stay tagged G words within the bounds of any pixel.
// So the chunks at a row's ends cost one select of a weight and one of an offset per pixel.
//
// Hand-off between strips: lane 31 stores its two G words per step as boundary words (word 2 t + 32 + p holds
// E(last row, 2 t - 93 + p), four per 16-byte store), and after its last step the words up to the consumer's last
// group as "no error" (so every word a consumer reads is eventually tagged). A consumer's group is a chunk of 16 steps
// (32 words, E(base - 1, 2 g0 + 3 + k), k = 0..31): lanes 0-7 copy the 8 aligned quads into a per-warp shared area with
// cp.async (kHBCopyAt steps before the check); at the end of the previous chunk every lane reads its word (the check)
// and all 32 (lane 31's sends) with LDS.128; one vote per group. A failed check polls L2 and writes the words into
// the area.
// Input: each row's aligned 32-byte blocks in a per-lane ring of 8 slots (and a mirror of slot 0), copied by cp.async
// kHAhead chunks ahead; the next chunk's 9 words are read at step kHReadAt and funnel-shifted at the chunk start.
// Output: one bit per pixel (four chains of 8), 32 per chunk and row, stored at step kHStoreAt of the next chunk with
// predicated stores (the fast form's 0/255 bytes or PBM bits).
// Bit-identical to the SPEC reference (tests/gpu/test_gpu.cpp).

namespace halffs {

using fastfs::cpAsync16;
using fastfs::cpAsyncCommit;
using fastfs::cpAsyncWait;
using fastfs::loadRelaxed;
using fastfs::mad;
using fastfs::madHi;
using fastfs::prmt;

constexpr int kHC = 16;  // steps per chunk (32 columns) = steps per boundary group (32 words, one per lane)
#ifndef HALFTONE_HALF_BCOPY_AT
#define HALFTONE_HALF_BCOPY_AT 7
#endif
#ifndef HALFTONE_HALF_INPUT_AT
#define HALFTONE_HALF_INPUT_AT 8
#endif
#ifndef HALFTONE_HALF_READ_AT
#define HALFTONE_HALF_READ_AT 9
#endif
#ifndef HALFTONE_HALF_FLAG_AT
#define HALFTONE_HALF_FLAG_AT 4
#endif
#ifndef HALFTONE_HALF_STORE_AT
#define HALFTONE_HALF_STORE_AT 10
#endif
#ifndef HALFTONE_HALF_SEND31
#define HALFTONE_HALF_SEND31 1
#endif
#ifndef HALFTONE_HALF_UNROLL
#define HALFTONE_HALF_UNROLL 2
#endif
// step of a chunk that copies the next group's boundary words (kHC - kHBCopyAt steps before its check), the step that
// copies input kHAhead chunks ahead, the step that reads the next chunk's input words, the step at which the first
// strip loads the cancel flag for the next chunk; interior chunks per loop iteration (1, 2 or 4)
constexpr int kHBCopyAt = HALFTONE_HALF_BCOPY_AT;
constexpr int kHInputAt = HALFTONE_HALF_INPUT_AT;
constexpr int kHReadAt = HALFTONE_HALF_READ_AT;
constexpr int kHFlagAt = HALFTONE_HALF_FLAG_AT;
constexpr int kHUnroll = HALFTONE_HALF_UNROLL;
// 1: lane 31 sends lane 0 the previous strip's words through the step's shuffles (a select before each shuffle, on the
// chain); 0: SHFL.UP (lane 0 gets its own error, weighted 0) and lane 0's words enter with weight 3 before the chain, as
// in the fast form (two more instructions per pixel, one operation less on the chain)
constexpr bool kHSend31 = HALFTONE_HALF_SEND31 != 0;
// step of a chunk at which the previous chunk's output block is stored (its instructions fill the step's idle issue slots
// instead of sitting between two chunks). The schedule ptxas makes is sensitive to it: 16K h0 2.34 ms at 10 (right after
// the window read), 2.41-2.42 at 11, 13 and 15, 2.49 at 6, 2.56 at 3 (docs/perf/gpu-ed.md, session 19)
constexpr int kHStoreAt = HALFTONE_HALF_STORE_AT;
static_assert(kHStoreAt >= 0 && kHStoreAt < kHC, "a step of the chunk");
static_assert(kHBCopyAt > 0 && kHBCopyAt < kHInputAt && kHInputAt < kHReadAt && kHReadAt < kHC,
              "boundary copy, input copy and window read in this order inside a chunk");
static_assert(kHUnroll == 1 || kHUnroll == 2 || kHUnroll == 4, "1, 2 or 4 chunks per iteration");
constexpr int kHAhead = 4;       // input blocks copied 4 chunks ahead (block of chunk c + 4 at chunk c)
constexpr int kHSlots = 8;       // ring slots of 8 words (a power of two), plus the mirror of slot 0
constexpr int kHRingWords = 76;  // per lane: 9 slots of 8 words + 4 words of padding
// cp.async groups per chunk: the boundary copy (step kHBCopyAt), the input copy (step kHInputAt). The check at a chunk's
// start needs the previous chunk's boundary copy (1 group after it); the window read of chunk c + 1 at step kHReadAt of
// chunk c needs the input copy of chunk c - 2 (4 groups after it)
constexpr int kHCheckWait = 1;
constexpr int kHReadWait = 4;
constexpr int kHBWords = 32;      // per warp and buffer: the group's 32 words (8 quads)
constexpr int kHLastLag = 93;     // columns from a strip's first row to its last (3 x 31)
constexpr int kHQMax = 3;         // (3 x 31 + 31) / 32: the last row's block lag

template <bool GAMMA>
__global__ void __launch_bounds__(kWarpsPerBlock * 32, 1) fsHalfKernel(WavefrontArgs a) {
    __shared__ int32_t sTerm[256];  // 16 A(a) + 8 (linear input)
    __shared__ __align__(16) uint32_t sRing[kWarpsPerBlock * 32 * kHRingWords];
    __shared__ __align__(16) uint32_t sBnd[kWarpsPerBlock][2][kHBWords];
    if (blockIdx.x == 0 && threadIdx.x == 0) traceKernel(a, (a.height + 31) / 32, 0, 0);  // entry
    if (!GAMMA)
        for (int k = threadIdx.x; k < 256; k += blockDim.x) sTerm[k] = 16 * a.q.input[k] + 8;
    __syncthreads();

    const int lane = threadIdx.x & 31;
    const int warp = threadIdx.x >> 5;
    const int W = a.width, H = a.height;
    const int strips = (H + 31) / 32;
    const uint32_t tag = a.epoch << 16;
    const int zero_ = int(tag) + 4079 - a.threshold;  // "no error" (see wavefront_fast.cuh)
    const int gOff = int(8u - 65280u - 16u * tag);
    const int gOffEdge = gOff + 3 * zero_;  // an edge pixel: its up-right tap weighs 0 and counts as "no error"
    const int w0 = !kHSend31 && lane == 0 ? 3 : 0, w3 = 3 - w0;  // weights of lane 0's word and of the shuffled word
    const int bLast = (W - 1) >> 5;            // last aligned 32-column block of a row
    const int cLast = bLast + kHQMax;          // the chunk in which the last row completes its last block
    const int tLast = kHC * cLast;             // that chunk's first step
    // chunk T (steps T .. T + 15, chunk index c = T / 16) covers columns [2 T - 3 rho, +32) of row rho = block
    // B = c - q at byte offset r
    const int q = (3 * lane + 31) >> 5;
    const int r = 32 * q - 3 * lane;  // 0..31
    const int rb8 = (r & 3) * 8, rw = r >> 2;
    uint32_t* ring = sRing + threadIdx.x * kHRingWords;
    uint32_t* bArea = &sBnd[warp][0][0];

    for (;;) {
        const int s = takeStrip(a, lane);
        if (s >= strips) break;
        if (loadRelaxed(a.abortFlag)) return;  // cancelled: strips taken later do not start
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
        const int bMax = 2 * a.boundaryStride - 1;
        const bool producer = lane == 31 && publish;

        // input: block Bq - q of this row into slot Bq & 7 (and the mirror, slot 8, when that is 0)
        auto fetchBlocks = [&](int Bq) {
            const int B = Bq - q;
            const bool inside = rowOk && B >= 0 && 32 * B < W;
            const unsigned char* src = inside ? inRow + 32 * B : a.in;
            const int n = inside ? 16 : 0;
            const int slot = Bq & (kHSlots - 1);
            uint32_t* dst = ring + slot * 8;
            cpAsync16(dst, src, n);
            cpAsync16(dst + 4, src + 16, n);
            if (slot == 0) {
                cpAsync16(ring + 8 * kHSlots, src, n);
                cpAsync16(ring + 8 * kHSlots + 4, src + 16, n);
            }
            cpAsyncCommit();
        };
        // boundary words of the group (chunk) at step g0: word k of the area of buffer (g0 / 16) & 1 is word 2 g0 + 128 + k =
        // E(base - 1, 2 g0 + 3 + k), which lane 31 sends to lane 0 at step g0 + k / 2 (lane 0 uses it one step later);
        // lane k checks word k. The first strip copies nothing (its area holds "no error" words) but commits the group all
        // the same
        auto boundaryCopy = [&](int g0) {
            uint32_t* area = bArea + ((g0 / kHC) & 1) * kHBWords;
            const int w = 2 * g0 + 128 + 4 * lane;
            if (hasPrev && lane < 8) cpAsync16(area + 4 * lane, prevB + min(w, bMax - 3), w + 3 <= bMax ? 16 : 0);
            cpAsyncCommit();
        };
        auto boundaryPoll = [&](int g0) -> uint32_t { return __ldcg(prevB + min(2 * g0 + 128 + lane, bMax)); };
        if (!hasPrev) {  // no producer: every word is "no error"
            for (int k = lane; k < 2 * kHBWords; k += 32) bArea[k] = uint32_t(zero_);
            __syncwarp();
        }

        constexpr int T0 = -kHC;
        constexpr int c0 = T0 / kHC;
        fetchBlocks(c0);
        fetchBlocks(c0 + 1);
        fetchBlocks(c0 + 2);
        boundaryCopy(T0);
        fetchBlocks(c0 + 3);

        uint32_t win[9];  // the next chunk's input words
        auto readWindow = [&](int T) {
            const uint32_t* src = ring + ((T / kHC) & (kHSlots - 1)) * 8 + rw;
#pragma unroll
            for (int k = 0; k < 9; ++k) win[k] = src[k];
        };
        cpAsyncWait<3>();
        readWindow(T0);
        // the next group's check word and lane 31's 32 words, read at the end of the previous chunk (after its copy has
        // landed: no group is committed between a chunk's end and the next chunk's check)
        uint32_t vChk;
        uint32_t bwv[kHBWords];
        uint32_t carry0 = uint32_t(zero_), carry1 = uint32_t(zero_);  // the previous area's last two words
        auto readGroup = [&](int g0) {
            __syncwarp();  // lanes 0-7 copied the words: their completed copies before every lane's reads
            const uint32_t* area = bArea + ((g0 / kHC) & 1) * kHBWords;
            vChk = area[lane];
#pragma unroll
            for (int k = 0; k < kHBWords; k += 4) {
                const uint4 q4 = *reinterpret_cast<const uint4*>(area + k);
                bwv[k] = q4.x;
                bwv[k + 1] = q4.y;
                bwv[k + 2] = q4.z;
                bwv[k + 3] = q4.w;
            }
        };
        cpAsyncWait<kHCheckWait>();
        readGroup(T0);
        // the previous chunk's output block, stored at step kHStoreAt of the next chunk (or after the last one)
        uint32_t pendBits = 0;
        int pendB = -1;
        // the store of the pending block: fastfs::storeBlock32's words, computed unconditionally, and the stores predicated
        // (no branch in the step)
        auto storePending = [&](int packed) {
            const bool ok = pendB >= 0;
            const int B = ok ? pendB : 0;
            if (packed) {
                const uint32_t black = fastfs::packedWord(W, B, pendBits);
                if (ok) *reinterpret_cast<uint32_t*>(a.packed + size_t(row) * a.packedPitch + 4 * B) = black;
            } else {
                uint4 d0, d1;
                fastfs::blockBytes(pendBits, d0, d1);
                uint4* d = reinterpret_cast<uint4*>(outRow + 32 * B);
                if (ok) {
                    d[0] = d0;
                    d[1] = d1;
                }
            }
        };

        int e1 = zero_, e2 = zero_;  // the row's errors of the previous step (columns j0 - 2, j0 - 1)
        int A2 = zero_, B2 = zero_;  // E(up, j0 - 1), E(up, j0) (the row above's errors of step t - 2)
        int xsA = zero_, xsB = zero_;  // shuffled from lane - 1: its errors of step t - 1 (lane 0: lane 31's boundary words)
        uint32_t obPrev = 0;
        uint32_t flag = 0;  // the first strip: the cancel flag, loaded a chunk ahead
        if (!hasPrev) flag = __ldcg(reinterpret_cast<const uint32_t*>(a.abortFlag));
        uint4* pub = reinterpret_cast<uint4*>(myB + 2 * T0 + 32);  // lane 31's words of the current chunk
        unsigned waitFails = 0, waitPolls = 0;  // diagnostics (trace)

        auto chunk = [&](int T, auto maskedTag, auto packedTag) -> bool {
            constexpr bool MASKED = decltype(maskedTag)::value;
            constexpr int PACKED = decltype(packedTag)::value;
            uint32_t in[8];
#pragma unroll
            for (int k = 0; k < 8; ++k) in[k] = __funnelshift_r(win[k], win[k + 1], rb8);
            uint32_t* area = bArea + ((T / kHC) & 1) * kHBWords;
            int abortNow = 0;
            {  // the group check: one word per lane (every word of a producer is eventually tagged, also past the row)
                uint32_t v = vChk;
                if (hasPrev && !__all_sync(kFull, (v & 0xffff0000u) == tag)) {
                    int spins = 0;
                    if (T >= 96) ++waitFails;
                    do {
                        if (spinAbort(a, lane, spins)) return false;
                        v = boundaryPoll(T);
                        if (T >= 96) ++waitPolls;
                    } while (!__all_sync(kFull, (v & 0xffff0000u) == tag));
                    __syncwarp();  // every lane's reads of the area (readGroup) before the writes
                    area[lane] = v;
                    readGroup(T);  // (its __syncwarp orders the writes before the reads)
                }
                if (MASKED && T == T0) traceStamp(a, s, 4, lane);  // diagnostics: the strip's first check passed
                if (!hasPrev) abortNow = int(flag);
            }
            const int jlo = 2 * T - 3 * lane;  // column of pixel 1 at u = 0
            // Edges: the chunk's pixels i = 2 u + p whose up-right tap lies outside the row (columns -1 and W - 1)
            const int k1 = -1 - jlo, k2 = W - 1 - jlo;
            uint32_t ob[4] = {0u, 0u, 0u, 0u};  // four chains of 8 pixels (steps 4k .. 4k + 3): short dependency chains
            uint32_t pw[4];
#pragma unroll
            for (int u = 0; u < kHC; ++u) {
                if (u == kHBCopyAt) boundaryCopy(T + kHC);
                if (u == kHInputAt) fetchBlocks(T / kHC + kHAhead);
                if (u == kHReadAt) {
                    cpAsyncWait<kHReadWait>();
                    readWindow(T + kHC);
                }
                if (u == kHFlagAt && !hasPrev) flag = __ldcg(reinterpret_cast<const uint32_t*>(a.abortFlag));
                if (u == kHStoreAt) storePending(PACKED);
                // lane 31 sends lane 0 the words of step t + 1 instead of its own errors (no lane needs those):
                // E(base - 1, j0' + 3), E(base - 1, j0' + 4) with j0' = lane 0's column 2 t
                const uint2 bw = make_uint2(bwv[2 * u], bwv[2 * u + 1]);
                // !kHSend31: lane 0's own words of this step (E(base - 1, j0 + 1), E(base - 1, j0 + 2)), the last two of
                // the previous group's area at u = 0
                const int bA = u == 0 ? int(carry0) : int(bwv[2 * u - 2 < 0 ? 0 : 2 * u - 2]);
                const int bB = u == 0 ? int(carry1) : int(bwv[2 * u - 1 < 0 ? 0 : 2 * u - 1]);
                const int A1 = kHSend31 || lane != 0 ? xsA : bA;  // E(up, j0 + 1) for the older taps
                const int B1 = kHSend31 || lane != 0 ? xsB : bB;
                int term1, term2;  // 16 A + 8 without the 8
                {
                    const uint32_t w = in[u >> 1];
                    if (GAMMA) {
                        term1 = int(prmt(w, 0u, 0x4404u | (((u & 1) * 2) << 4)));
                        term2 = int(prmt(w, 0u, 0x4404u | (((u & 1) * 2 + 1) << 4)));
                    } else {
                        term1 = sTerm[prmt(w, 0u, 0x4440u | ((u & 1) * 2))] - 8;
                        term2 = sTerm[prmt(w, 0u, 0x4440u | ((u & 1) * 2 + 1))] - 8;
                    }
                }
                // pixel 1 (j0): older taps 5 B2 + A2, then 7 E(j0 - 1), then 3 A1 (shuffled); in the chunks at a row's
                // ends the up-right tap of columns -1 and W - 1 has weight 0 (see "Edges")
                {
                    const bool edge = MASKED && (2 * u == k1 || 2 * u == k2);
                    int older = mad(B2, 5, A2 + term1 + (edge ? gOffEdge : gOff));
                    if (!kHSend31) older = mad(bA, edge ? 0 : w0, older);
                    const int y = mad(xsA, edge ? 0 : w3, mad(e2, 7, older));
                    e1 = madHi(y, 4081u, (y >> 4) + int(tag));
                    ob[u / 4] = __funnelshift_l(uint32_t(y), ob[u / 4], 1);
                }
                const int nxA = kHSend31 ? __shfl_sync(kFull, lane == 31 ? int(bw.x) : e1, lane - 1) : __shfl_up_sync(kFull, e1, 1);
                // pixel 2 (j0 + 1): older taps 5 A1 + B2, then 7 E(j0), then 3 B1 (shuffled)
                {
                    const bool edge = MASKED && (2 * u + 1 == k1 || 2 * u + 1 == k2);
                    int older = mad(A1, 5, B2 + term2 + (edge ? gOffEdge : gOff));
                    if (!kHSend31) older = mad(bB, edge ? 0 : w0, older);
                    const int y = mad(xsB, edge ? 0 : w3, mad(e1, 7, older));
                    e2 = madHi(y, 4081u, (y >> 4) + int(tag));
                    ob[u / 4] = __funnelshift_l(uint32_t(y), ob[u / 4], 1);
                }
                const int nxB = kHSend31 ? __shfl_sync(kFull, lane == 31 ? int(bw.y) : e2, lane - 1) : __shfl_up_sync(kFull, e2, 1);
                A2 = A1;
                B2 = B1;
                xsA = nxA;
                xsB = nxB;
                pw[2 * (u & 1)] = uint32_t(e1);
                pw[2 * (u & 1) + 1] = uint32_t(e2);
                if ((u & 1) == 1 && producer) __stcg(pub + (u >> 1), make_uint4(pw[0], pw[1], pw[2], pw[3]));
            }
            pub += kHC / 2;
            // bit 31 - i held "level 0 at window column i" (chain k in bits 7..0 of ob[k], k = i / 8)
            const uint32_t obAll = ~__brev((ob[0] << 24) | (ob[1] << 16) | (ob[2] << 8) | ob[3]);
            // output: the row's aligned block B = c - q (columns [32 B, 32 B + 32)) is complete now
            const int B = T / kHC - q;
            const uint32_t bits = __funnelshift_rc(obPrev, obAll, 32 - r);
            obPrev = obAll;
            pendBits = bits;
            pendB = rowOk && B >= 0 && 32 * B < W ? B : -1;
            carry0 = bwv[kHBWords - 2];
            carry1 = bwv[kHBWords - 1];
            cpAsyncWait<kHCheckWait>();
            readGroup(T + kHC);
            if (abortNow) {  // the same value in every lane
                if (lane == 0) atomicExch(a.abortFlag, 1);
                return false;
            }
            return true;
        };

        auto stamp = [&](int k) { traceStamp(a, s, k, lane); };
        stamp(0);
        auto chunks = [&](auto packedTag) -> bool {
            bool ok = true;
            for (int T = T0; T <= tLast && ok; T += kHC) {
                // interior: no pixel of the chunk at column -1 or W - 1 (the edges, whose up-right tap is outside the row)
                const bool interior = 2 * T >= kHLastLag && 2 * T + 2 * kHC < W;
                const bool run = kHUnroll > 1 && interior && 2 * (T + kHUnroll * kHC) < W;
                // (diagnostics: the stamp of step 96 at the start of the chunks that hold it)
                if (T <= 96 && 96 < T + (run ? kHUnroll : 1) * kHC) stamp(1);
                if (T == 32) stamp(5);
                if (run) {
#pragma unroll
                    for (int i = 0; i < kHUnroll && ok; ++i) {
                        ok = chunk(T + i * kHC, std::false_type{}, packedTag);
                    }
                    T += (kHUnroll - 1) * kHC;
                } else if (interior) {
                    ok = chunk(T, std::false_type{}, packedTag);
                } else {
                    ok = chunk(T, std::true_type{}, packedTag);
                }
            }
            return ok;
        };
        const bool ok = a.packed ? chunks(std::integral_constant<int, 1>{}) : chunks(std::integral_constant<int, 0>{});
        cpAsyncWait<0>();  // the next strip reuses the ring and the area
        __syncwarp();
        if (!ok) return;
        storePending(a.packed ? 1 : 0);  // the last chunk's block
        if (publish) {
            // words past the last step, up to the consumer's last group: "no error", tagged
            const int w = 2 * (tLast + kHC) + 32;
            for (int k = lane; k < 6 * 32; k += 32)
                if (w + k <= bMax) __stcg(myB + w + k, uint32_t(zero_));
        }
        stamp(2);
        traceWaits(a, s, waitFails, waitPolls, lane);
        finishStrip(a, s, min(H, base + 32), lane);
    }
    traceKernel(a, strips, 1, lane);  // diagnostics (trace): the last warp's exit
}

}  // namespace halffs
