#pragma once
// \brief nvcc-only: the fast form of the wavefront kernel, for binary Floyd-Steinberg (form "fast", the default
// for Floyd-Steinberg with 2 levels). Launched by gpu/ed/wavefront.cu; docs/design/gpu-wavefront.md explains the
// design.
//
// Same schedule as the general kernel (gpu/ed/wavefront.cu): a warp owns a strip of 32 rows (lane = row rho), row rho
// processes column j = t - K rho at step t with K = 2 (the smallest delay Floyd-Steinberg allows: Kasagi, Nakano and
// Ito's k-delay schedule inside the strip), and strips hand over through tagged words in global memory. The step is
// cut to what the error chain needs, so that one warp per scheduler runs near the chain's latency:
//  - The sum is ordered by age and written as IMADs the compiler cannot reassociate: the older taps and the input
//    first, then the row's own 7 E(j - 1), then the shuffled 3 E(up, j + 1) last (it is one step old and on the
//    chain), so the chain of a step is SHFL.UP -> IMAD -> the quantizer. Lane 0's boundary word enters through the
//    older part (weight 3 in lane 0, 0 elsewhere) instead of a select before the shuffle.
//  - Errors are carried as tagged G words: G = tag + E + 4079 - T lies in [tag, tag + 4079] (E >= T - 4079 and E <= T
//    by induction), so the sum of the four taps carries 16 tags and the constant - 16 (T + 1), which fold into one
//    offset; y' = y - 16 (T + 1) is then quantized by its sign: G = tag + (y' >> 4) + 4080 [y' < 0] = LEA.HI +
//    IMAD.HI (the high word of y' * 4081), the output bit is y''s sign funnel-shifted in, and the word lane 31
//    publishes is G itself (no packing). "No error" (outside the image) is G = tag + 4079 - T.
//  - Lane 0 gets the previous strip's errors from the boundary words: each group's 16 words are broadcast to registers
//    at the group start, so the per-step select never waits on a shuffle.
//  - Input: cp.async copies each row's aligned 32-byte blocks two chunks ahead into a per-lane shared ring (slots
//    indexed by the chunk, the same in every lane, so the mirror that keeps a window from wrapping is copied in one
//    chunk of four by the whole warp); at step kReadAt of the previous chunk the lane reads the next chunk's 9 words
//    at its fixed offset (no shared-memory latency at the chunk start) and funnel-shifts them at the chunk start.
//    Gamma input becomes 256 a with one PRMT per pixel; linear input reads a 256-entry shared table.
//  - Output: one bit per pixel in a register (one predicated OR), realigned per chunk with a funnel shift, expanded
//    to 0/255 bytes and stored as 2 x 16 bytes per row and chunk, or (packed output) stored as 4 bytes of PBM bits.
//    One chunk loop per output format (known at compile time) with two interior chunks per iteration.
//  - Only the chunks that touch a row's start or end mask errors outside the image, through the step's weights (0
//    for the newer taps, the older part replaced by a constant whose quantized word is "no error"): the selects act
//    on values known before the step's chain, which stays the same IMADs as in the interior.
//  - Boundary words are indexed by the producer's step (4 per 16-byte store); at step kBoundaryCopyAt of the chunk
//    (and kGroup steps later) cp.async copies the next group's words L2 -> shared memory (a copy holds no register
//    scoreboard, so the compiler cannot wait on it before the check), and the check reads the lane's word from
//    shared memory; one vote per group checks all its tags.
//  - Strips are placed statically: strip s runs on block s mod gridDim, warp (s / gridDim) mod kWarpsPerBlock, so
//    the strips that run at once sit one per SM instead of sharing its shuffle and memory pipes. A strip waits for
//    the one above it, so every block must be resident: launchWavefront launches this kernel cooperatively, which
//    guarantees it or fails (the caller then falls back to the CPU).
//  - Cancel: only the first strip reads the cancel flag while it runs (in its boundary-word slot, once per chunk, a
//    chunk ahead); every other strip stops when its producer stops (its boundary poll checks the flag), and a strip
//    taken after a cancel does not start.
// Bit-identical to the SPEC reference (tests/gpu/test_gpu.cpp).
#include <cuda_runtime.h>

#include <climits>
#include <cstdint>
#include <type_traits>

#include "core/ed/gpustrips.h"
#include "gpu/devicecommon.cuh"
#include "gpu/ed/launch.h"
#include "gpu/ed/wavefront_strip.cuh"

namespace halftone::gpu::fastfs {

/// \brief The fast form's tuning, measured best at 16K x 16K on an H100 (docs/design/gpu-wavefront.md lists the
/// values that lost and why). Steps are counted inside a chunk, 0 .. kChunk - 1. The strip shape comes from
/// core/ed/gpustrips.h, which the schedule model reads too.
struct FastPolicy {
    static constexpr int kWarpsPerBlock = gpustrips::kFast.warpsPerBlock;
    static constexpr int kRows = gpustrips::kFast.rows();  ///< rows per strip: lane i owns row i
    /// K: steps between a row and the row below (Floyd-Steinberg's minimal delay is 2)
    static constexpr int kDelay = gpustrips::kFast.delay(2);
    static constexpr int kChunk = gpustrips::kFast.chunk;  ///< steps per chunk: input, output and loop granularity
    static constexpr int kGroup = gpustrips::kFast.group;  ///< steps per boundary group: one vote per group
    static constexpr int kFlagAt = 8;  ///< the first strip loads the next chunk's cancel flag at this step
    static constexpr int kBoundaryCopyAt =
        23;                              ///< the next group's boundary words are copied at this step (mod kGroup)
    static constexpr int kInputAt = 24;  ///< input blocks are copied two chunks ahead at this step
    static constexpr int kReadAt = 25;   ///< the next chunk's input window is read from the ring at this step
};

inline constexpr unsigned kFull = strip::kFull;
inline constexpr int kWarpsPerBlock = FastPolicy::kWarpsPerBlock;
inline constexpr int kChunk = FastPolicy::kChunk;
inline constexpr int kGroup = FastPolicy::kGroup;
inline constexpr int kReadAt = FastPolicy::kReadAt;
inline constexpr int kInputAt = FastPolicy::kInputAt;
inline constexpr int kBoundaryCopyAt = FastPolicy::kBoundaryCopyAt;
static_assert(kChunk == 32 && kChunk / kGroup == 2, "two boundary groups per chunk of 32 steps");
static_assert(kReadAt > kInputAt && kReadAt < kChunk, "the window read waits for older copies");

/// \brief Steps of a chunk at which the next group's boundary words are copied (kGroup - kBoundaryCopyAt mod kGroup
/// steps before each check).
inline constexpr int kBPhase = kBoundaryCopyAt % kGroup;
constexpr bool isBCopyStep(int u) { return u % kGroup == kBPhase; }
constexpr bool bCopyClash() {
    for (int u = 0; u < kChunk; ++u)
        if (isBCopyStep(u) && (u == kInputAt || u == kReadAt)) return true;
    return false;
}
static_assert(!bCopyClash() && kBoundaryCopyAt < kChunk, "the window read and the input copy have steps of their own");
/// \brief cp.async groups committed in the open step interval (lo, hi) of the periodic schedule (boundary copies at
/// every isBCopyStep, the input copy at kInputAt of every chunk; lo may be negative: the previous chunk).
constexpr int commitsBetween(int lo, int hi) {
    int n = 0;
    for (int v = lo + 1; v < hi; ++v) {
        const int u = (v % kChunk + kChunk) % kChunk;
        n += (isBCopyStep(u) ? 1 : 0) + (u == kInputAt ? 1 : 0);
    }
    return n;
}
/// \brief cp.async groups still pending that a wait may leave: at the window read (step kReadAt of chunk c, which
/// needs the input group committed at step kInputAt of chunk c - 1) the groups committed after that one; at the check
/// of the group starting at step s (which needs the boundary copy committed kGroup - kBPhase steps before it) the
/// groups committed after that copy.
inline constexpr int kReadWait = commitsBetween(kInputAt - kChunk, kReadAt);
constexpr int checkWait(int s) { return commitsBetween(s - kGroup + kBPhase, s); }
/// \brief Boundary copies between the input copy and the chunk's end: the prelude commits as many empty groups after
/// its last input group, so that the first chunk's waits count as in every later chunk.
inline constexpr int kPreludeEmpty = commitsBetween(kInputAt, kChunk);

__device__ __forceinline__ uint32_t prmt(uint32_t a, uint32_t b, uint32_t sel) {
    uint32_t d;
    asm("prmt.b32 %0, %1, %2, %3;" : "=r"(d) : "r"(a), "r"(b), "r"(sel));
    return d;
}

/// \brief a * b + c as one IMAD that the compiler keeps in this place of the sum.
__device__ __forceinline__ int mad(int a, int b, int c) {
    int d;
    asm("mad.lo.s32 %0, %1, %2, %3;" : "=r"(d) : "r"(a), "r"(b), "r"(c));
    return d;
}
/// \brief The high 32 bits of the unsigned product a * b, plus c, as one IMAD.HI.
__device__ __forceinline__ int madHi(int a, unsigned b, int c) {
    int d;
    asm("mad.hi.u32 %0, %1, %2, %3;" : "=r"(d) : "r"(a), "r"(b), "r"(c));
    return d;
}

/// \brief 16 bytes global -> shared without registers (zero-filled when `bytes` is 0).
__device__ __forceinline__ void cpAsync16(void* smemDst, const void* src, int bytes) {
    const unsigned d = static_cast<unsigned>(__cvta_generic_to_shared(smemDst));
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;" ::"r"(d), "l"(src), "r"(bytes) : "memory");
}
__device__ __forceinline__ void cpAsyncCommit() { asm volatile("cp.async.commit_group;" ::: "memory"); }
template <int N>
__device__ __forceinline__ void cpAsyncWait() {
    asm volatile("cp.async.wait_group %0;" ::"n"(N) : "memory");
}
/// \brief A strong gpu-scope load that the compiler does not cache (the cancel flag).
__device__ __forceinline__ int loadRelaxed(const int* p) {
    int v;
    asm volatile("ld.relaxed.gpu.global.s32 %0, [%1];" : "=r"(v) : "l"(p));
    return v;
}

inline constexpr int kRingWords = 44;  // per lane: 5 slots of 8 words (slot 4 mirrors slot 0) + 4 words of padding

/// \brief 4 bits of `nib` (0..15) -> 4 bytes of 0x00 / 0xff, byte k = bit k.
__device__ __forceinline__ uint32_t expandNibble(uint32_t nib) {
    // bit k -> bit 8k + 7 (the products do not overlap), then PRMT replicates each byte's top bit
    return prmt(nib * 0x10204080u, 0u, 0xba98u);
}

/// \brief The PBM word of the 32 output pixels in columns [32 B, 32 B + 32) (bit i = level 1 at column 32 B + i):
/// 1 = black, leftmost pixel in the most significant bit of each byte, columns past W cleared.
__device__ __forceinline__ uint32_t packedWord(int width, int B, uint32_t bits) {
    const int left = width - 32 * B;
    const uint32_t black = ~bits & (left >= 32 ? 0xffffffffu : (1u << left) - 1u);
    return __byte_perm(__brev(black), 0u, 0x0123u);
}
/// \brief The 32 output bytes (0/255) of the same pixels, as two 16-byte halves.
__device__ __forceinline__ void blockBytes(uint32_t bits, uint4& d0, uint4& d1) {
    d0 = make_uint4(expandNibble(bits & 15u), expandNibble((bits >> 4) & 15u), expandNibble((bits >> 8) & 15u),
                    expandNibble((bits >> 12) & 15u));
    d1 = make_uint4(expandNibble((bits >> 16) & 15u), expandNibble((bits >> 20) & 15u),
                    expandNibble((bits >> 24) & 15u), expandNibble(bits >> 28));
}

/// \brief Stores the 32 output pixels of row `row` in columns [32 B, 32 B + 32) (32 B < W): 0/255 bytes (32 bytes,
/// inside the 32-byte-aligned pitch) or, with packed output, the 4 bytes of packedWord.
template <bool PACKED>
__device__ __forceinline__ void storeBlock32(const WavefrontArgs& a, unsigned char* outRow, int row, int B,
                                             uint32_t bits) {
    if (PACKED) {
        *reinterpret_cast<uint32_t*>(a.packed + size_t(row) * a.packedPitch + 4 * B) = packedWord(a.width, B, bits);
    } else {
        uint4* d = reinterpret_cast<uint4*>(outRow + 32 * B);
        blockBytes(bits, d[0], d[1]);
    }
}

/// \brief The fast form; GAMMA: the input table is A = 16 a (computed here), else read from a.q.input.
template <bool GAMMA>
__global__ void __launch_bounds__(kWarpsPerBlock * 32, 1) fastKernel(WavefrontArgs a) {
    constexpr int K = FastPolicy::kDelay;
    static_assert(K == 2, "the step's sum order is written for K = 2");
    constexpr int kG = kGroup;
    constexpr int kSl = kChunk / kG;  // boundary-word registers: one per group of a chunk
    constexpr int kRows = FastPolicy::kRows;
    static_assert(kRows == 32, "lane i owns row i of the strip");
    __shared__ int32_t sTerm[256];  // 16 A(a) + 8 (linear input)
    // input rings: per lane the aligned 32-byte blocks B..B+3 of its row in slots (T / 32) & 3 (cp.async)
    __shared__ __align__(16) uint32_t sRing[kWarpsPerBlock * 32 * kRingWords];
    // boundary words copied ahead: per lane the aligned 16 bytes that hold its word (a private slot, so the copy and
    // the read are one thread's)
    __shared__ __align__(16) uint32_t sBnd[kWarpsPerBlock * 32 * 4];
    if (!GAMMA)
        for (int k = threadIdx.x; k < 256; k += blockDim.x) sTerm[k] = 16 * a.q.input[k] + 8;
    __syncthreads();

    const int lane = threadIdx.x & 31;
    const int warp = threadIdx.x >> 5;
    const int w0 = lane == 0 ? 3 : 0, w3 = 3 - w0;  // weights of lane 0's boundary word and of the shuffle
    const int W = a.width, H = a.height;
    const int strips = (H + kRows - 1) / kRows;
    const uint32_t tag = a.epoch << 16;
    // errors are G = tag + E + 4079 - T in [tag, tag + 4079] (the boundary word itself); "no error" is zero_.
    // Level 1 iff S > T iff y > 16 T + 15; the step computes y' = y - 16 (T + 1) = 7 G + 3 G + 5 G + G + 16 A +
    // gOff (mod 2^32; each G carries its tag once)
    const int zero_ = int(tag) + 4079 - a.threshold;
    // y' whose quantized word is zero_ (masked pixels): 0 <= y' < 2^20, so G = tag + (y' >> 4) = tag + 4079 - T
    const int maskY = 16 * (4079 - a.threshold);
    const int gOff = int(8u - 65280u - 16u * tag);
    const int bLast = (W - 1) >> 5;            // last aligned 32-column block of a row
    constexpr int kLastLag = (kRows - 1) * K;  // steps from a strip's first row to its last
    const int tLast = 32 * bLast + kLastLag + 31;
    // row constants: chunk T covers columns [T - K rho, +32) of row rho = lane = block B(T) = T/32 - q at byte offset r
    const int q = (K * lane + 31) >> 5;
    const int r = 32 * q - K * lane;
    const int rb8 = (r & 3) * 8;
    const int rw = r >> 2;
    uint32_t* const ring = sRing + threadIdx.x * kRingWords;

    for (int iter = 0;; ++iter) {
        // this warp's iter-th strip by its place (the launch is cooperative: every block is resident)
        const int s = int(blockIdx.x) + int(gridDim.x) * (warp + kWarpsPerBlock * iter);
        if (s >= strips) break;
        if (loadRelaxed(a.abortFlag)) return;  // cancelled: strips taken later do not start
        const int base = s * kRows;
        if (!strip::waitForBand(a, base, lane)) return;
        const bool hasPrev = s > 0;
        const bool publish = s + 1 < strips;
        const int rowIdx = base + lane;
        const bool rowOk = rowIdx < H;
        const unsigned char* const rowIn = a.in + size_t(rowOk ? rowIdx : 0) * a.pitch;
        unsigned char* const rowOut = a.out + size_t(rowOk ? rowIdx : 0) * a.outPitch;
        const uint32_t* prevB = a.boundary + size_t(hasPrev ? s - 1 : 0) * 2 * a.boundaryStride;
        uint32_t* myB = a.boundary + size_t(s) * 2 * a.boundaryStride;
        const bool producer = lane == 31 && publish;

        // one cp.async group per chunk index Bq: block Bq - q of the row into slot Bq & 3, and into slot 4 too when
        // that slot is 0 (the mirror, so that a window never wraps)
        auto fetchBlocks = [&](int Bq) {  // Bq = T/32 of the chunk the blocks belong to
            const int B = Bq - q;
            const bool inside = rowOk && B >= 0 && 32 * B < W;
            const unsigned char* src = inside ? rowIn + 32 * B : a.in;
            const int n = inside ? 16 : 0;
            const int slot = Bq & 3;
            uint32_t* dst = ring + slot * 8;
            cpAsync16(dst, src, n);
            cpAsync16(dst + 4, src + 16, n);
            if (slot == 0) {
                cpAsync16(ring + 32, src, n);
                cpAsync16(ring + 36, src + 16, n);
            }
            cpAsyncCommit();
        };
        // Boundary words are indexed by the producer's step: word t + 32 of strip s - 1 holds
        // tag | E(base - 1, t - kLastLag) (also for columns outside the image, where the error is 0), so lane 31
        // stores 4 steps with one aligned 16-byte store. Lane l reads the word of E(base - 1, g0 + K - 1 + (l & (kG -
        // 1))) for the group starting at step g0. The first strip has no producer: every word counts as ready and zero
        // (column >= wlim), and its slot carries the cancel flag instead (one global load in flight per chunk).
        const int wlim = hasPrev ? W : INT_MIN;
        const int bMax = a.boundaryStride - 1;
        const bool cancelSlot = !hasPrev;
        uint32_t* const bSlot = sBnd + threadIdx.x * 4;
        // the word of lane l for the group at g0 has index g0 + K - 1 + kLastLag + 32 + l (see boundaryLoad); the lane
        // copies the aligned 16 bytes around it (zero-filled past the array or without a producer: those columns are
        // >= wlim and pass the check; the first strip's check reads the cancel flag's load instead, but waits for the
        // copy all the same, so that two copies into the slot never overlap)
        constexpr int kBOff = (K - 1 + kLastLag + 32) & 3;
        auto boundaryCopy = [&](int g0) {
            const int c0 = (g0 + K - 1 + kLastLag + 32 + (lane & (kG - 1))) & ~3;
            const bool ok = hasPrev && c0 >= 0 && c0 + 3 <= bMax;
            cpAsync16(bSlot, ok ? prevB + c0 : prevB, ok ? 16 : 0);
            cpAsyncCommit();
        };
        auto boundaryLoad = [&](int g0) -> uint32_t {
            const int col = g0 + K - 1 + (lane & (kG - 1));
            return __ldcg(hasPrev ? prevB + min(col + kLastLag + 32, bMax)
                                  : reinterpret_cast<const uint32_t*>(a.abortFlag));
        };

        constexpr int T0 = -kChunk;
        boundaryCopy(T0);  // the first group's words (older than the input groups below)
        fetchBlocks((T0 >> 5));
        fetchBlocks((T0 >> 5) + 1);
        fetchBlocks((T0 >> 5) + 2);  // the loop fetches B + 3 in each chunk
        // the first chunk's waits count the boundary copies that a previous chunk would have committed after its input
        // group: empty groups stand for them, so that the waits hold from the first chunk on
#pragma unroll
        for (int i = 0; i < kPreludeEmpty; ++i) cpAsyncCommit();

        int e = zero_;    // E(row, j - 1)
        int hist[K + 1];  // hist[m] = E(row - 1, j + K - 1) as seen at step t - m
        uint32_t obPrev = 0;
#pragma unroll
        for (int m = 0; m <= K; ++m) hist[m] = zero_;
        // boundary words of the groups of a chunk, group i in slot i; fixed slots so that no register copy waits on a
        // load in flight. The first strip keeps the cancel flag's load in slot 0.
        uint32_t bq[kSl];
        bq[0] = cancelSlot ? boundaryLoad(T0) : 0u;
#pragma unroll
        for (int g = 1; g < kSl; ++g) bq[g] = 0u;
        uint4* pub = reinterpret_cast<uint4*>(myB + T0 + 32);  // lane 31's words of the current chunk

        // the 9 input words of chunk T's window (blocks B and B + 1 of the row) from the ring into win: the caller
        // first waits until the copies of blocks up to B + 1 are complete (the groups committed after them may pend)
        uint32_t win[9];
        auto readWindow = [&](int T) {
            const uint32_t* src = ring + ((T >> 5) & 3) * 8 + rw;
#pragma unroll
            for (int k = 0; k < 9; ++k) win[k] = src[k];
        };
        cpAsyncWait<1>();  // the first chunk's input words (the loop reads each next chunk's)
        readWindow(T0);

        auto chunk = [&](int T, auto maskedTag, auto packedTag) -> bool {
            constexpr bool MASKED = decltype(maskedTag)::value;
            constexpr bool PACKED = decltype(packedTag)::value;
            // in[k] = bytes [r + 4k, r + 4k + 4) of (block B, block B + 1): 9 aligned words (read at step kReadAt of
            // the previous chunk) and a funnel shift
            uint32_t in[8];
#pragma unroll
            for (int k = 0; k < 8; ++k) in[k] = __funnelshift_r(win[k], win[k + 1], rb8);

            int abortNow = 0;
            const int jlo = T - K * lane;  // the row's column at u = 0
            uint32_t ob = 0;
            int bw = 0;
            int bvs[kG];  // lane 31: the group's boundary words, broadcast at the group start (off the chain)
            uint32_t pw[4];
#pragma unroll
            for (int u = 0; u < kChunk; ++u) {
                if (u % kG == 0) {
                    const int gi = u / kG;  // a constant once unrolled
                    const int g0 = T + u;
                    const int col = g0 + K - 1 + (lane & (kG - 1));
                    // the word from the copy (the first strip keeps the cancel flag's load)
                    if (u == 0)
                        cpAsyncWait<checkWait(0)>();
                    else
                        cpAsyncWait<checkWait(kG)>();
                    if (!cancelSlot) bq[gi] = bSlot[(lane + kBOff) & 3];
                    if (!__all_sync(kFull, (bq[gi] & 0xffff0000u) == tag || col >= wlim)) {
                        // not there yet: poll
                        int spins = 0;
                        do {
                            if (strip::spinAbort(a, lane, spins)) return false;
                            bq[gi] = boundaryLoad(g0);
                        } while (!__all_sync(kFull, (bq[gi] & 0xffff0000u) == tag || col >= wlim));
                    }
                    bw = col < wlim ? int(bq[gi]) : zero_;
                    if (cancelSlot) abortNow |= int(bq[gi]);  // the first strip: the cancel flag (same in every lane)
#pragma unroll
                    for (int i = 0; i < kG; ++i) bvs[i] = __shfl_sync(kFull, bw, i);
                }
                // the first strip loads the cancel flag once per chunk, a chunk ahead, into slot 0 (the other slots
                // stay 0)
                if (cancelSlot && u == FastPolicy::kFlagAt) bq[0] = boundaryLoad(T + kChunk);
                if (isBCopyStep(u)) boundaryCopy(T + u - kBPhase + kG);  // the next group's words
                if (u == kReadAt) {                                      // the next chunk's input words
                    cpAsyncWait<kReadWait>();
                    readWindow(T + kChunk);
                }
                if (u == kInputAt) fetchBlocks((T >> 5) + 3);  // away from the group checks: input two chunks ahead
                // E(row - 1, j + K - 1): from lane - 1 by SHFL.UP (lane 0 gets its own error back, weighted 0 there);
                // lane 0's row above is the previous strip's last row, whose word comes from bvs
                const int xs = __shfl_up_sync(kFull, e, 1);
                const int x = lane == 0 ? bvs[u % kG] : xs;  // for the later steps (hist), off the chain
#pragma unroll
                for (int m = K; m >= 1; --m) hist[m] = hist[m - 1];
                hist[0] = x;
                int term;  // 16 A(j) + 8 without the 8
                if (GAMMA) {
                    term = int(prmt(in[u >> 2], 0u, 0x4404u | ((u & 3) << 4)));  // 256 a
                } else {
                    term = sTerm[prmt(in[u >> 2], 0u, 0x4440u | (u & 3))] - 8;
                }
                // taps (1,-1,3) (1,0,5) (1,1,1): sources E(up, j+1), E(up, j), E(up, j-1) = hist[K-2], hist[K-1],
                // hist[K]. The newest source is added last and the row's own error before it (inline PTX, so that
                // the compiler cannot reassociate the sum and put older terms on the chain).
                int older = 5 * hist[K - 1] + hist[K] + term + gOff;
                // Masked chunks: outside the row the weights of the newer taps become 0 and `older` becomes maskY, so
                // y' = maskY and the quantizer below yields the "no error" word itself
                const bool inRow = !MASKED || unsigned(jlo + u) < unsigned(W);
                const bool off = MASKED && !inRow;  // this pixel is outside the row
                const int w7 = off ? 0 : 7;
                if (MASKED) older = inRow ? older : maskY;
                // 3 b for lane 0 (w0 = 3 there, 0 elsewhere), then 7 e, then 3 x (w3 = 0 in lane 0)
                const int withB = mad(bvs[u % kG], off ? 0 : w0, older);
                const int y = mad(xs, off ? 0 : w3, mad(e, w7, withB));
                // The quantizer: y here is y': level 1 iff y' >= 0; G = tag + (y' >> 4) + 4080 [y' < 0]
                // (= tag + E + 4079 - T), the high word of y' * 4081 being 4080 for -2^20 < y' < 0 and 0 for
                // 0 <= y' < 2^20 (|y'| < 2^18 here): LEA.HI + IMAD.HI, the output bit (level 0) funnel-shifted in
                e = madHi(y, 4081u, (y >> 4) + int(tag));
                ob = __funnelshift_l(uint32_t(y), ob, 1);
                pw[u & 3] = uint32_t(e);
                if ((u & 3) == 3 && producer) __stcg(pub + (u >> 2), make_uint4(pw[0], pw[1], pw[2], pw[3]));
            }
            pub += kChunk / 4;
            ob = ~__brev(ob);  // bit 31 - u held "level 0 at step u"
            // output: the row's aligned block B = T/32 - q (columns [32 B, 32 B + 32)) is complete now
            const int B = (T >> 5) - q;
            const uint32_t bits = __funnelshift_rc(obPrev, ob, 32 - r);
            obPrev = ob;
            if (rowOk && B >= 0 && 32 * B < W) storeBlock32<PACKED>(a, rowOut, rowIdx, B, bits);
            if (abortNow) {  // the same value in every lane
                if (lane == 0) atomicExch(a.abortFlag, 1);
                return false;
            }
            return true;
        };

        // the chunks of a strip, with the output format known at compile time (no branch per chunk), two interior
        // chunks per iteration
        auto chunks = [&](auto packedTag) -> bool {
            bool ok = true;
            for (int T = T0; T <= tLast && ok; T += kChunk) {
                const bool interior = T >= kLastLag && T + kChunk <= W;
                if (interior && T + 2 * kChunk <= W) {
                    ok = chunk(T, std::false_type{}, packedTag) && chunk(T + kChunk, std::false_type{}, packedTag);
                    T += kChunk;
                } else if (interior) {
                    ok = chunk(T, std::false_type{}, packedTag);
                } else {
                    ok = chunk(T, std::true_type{}, packedTag);
                }
            }
            return ok;
        };
        const bool ok = a.packed ? chunks(std::true_type{}) : chunks(std::false_type{});
        cpAsyncWait<0>();  // the next strip reuses the ring
        if (!ok) return;
        strip::finish(a, s, min(H, base + kRows), lane);
    }
}

}  // namespace halftone::gpu::fastfs
