#pragma once
// The fast form of ours for binary Floyd-Steinberg (shapes "f<extra>", the default for FS with 2 levels).
// Included by wavefront.cu inside its anonymous namespace; uses WavefrontArgs and the helpers there.
//
// Same schedule as the general kernel (a warp owns a strip of 32 P rows, lane i = rows P i .. P i + P - 1, row rho
// processes column j = t - K rho at step t, strips handed over through tagged words in global memory), but the
// step is cut to what the error chain needs, so that one warp per scheduler runs near the chain's latency
// instead of issuing ~36 instructions at ~4.5 cycles each (docs/perf/gpu-ed.md, "Session 2"):
//  - The sum is ordered by age and written as two IMADs the compiler cannot reassociate: older taps and
//    the input first, then 3 E(up, j+1), then the row's own 7 E(j-1), so the chain of a step is the sum's last
//    IMAD and the quantizer (y = 7 e + rest; level 1 iff y > 16 T + 15; e = y >> 4 (- 4080); with the G words
//    below, LEA.HI + IMAD.HI).
//    rest = 3 E(up, j+1) + 5 E(up, j) + E(up, j-1) + 16 A(j) + 8 (the +8 rounds, 16 A folds the input so
//    that S = y >> 4). With K = 3 (f1) the shuffled E(up, j+1) is one step old and the shuffle leaves the
//    chain too; K = 2 (f0, the default since session 9) has it on the chain but hands strips over in 2 steps
//    per row instead of 3 (docs/perf/gpu-ed.md, sessions 3 and 9).
//  - Errors are carried as tagged G words (session 9): G = tag + E + 4079 - T lies in [tag, tag + 4079] (E >= T -
//    4079 and E <= T by induction), so the sum of the four taps carries 16 tags and the constant - 16 (C + 1),
//    which fold into one offset; y' = y - (C + 1) is then quantized by its sign: G = tag + (y' >> 4) + 4080 [y' <
//    0] = LEA.HI + IMAD.HI (the high word of y' * 4081), the output bit is y''s sign funnel-shifted in, and the
//    word lane 31 publishes is G itself (no packing). "No error" (outside the image) is G = tag + 4079 - T.
//    Measured: f0 2.76 -> 2.54 ms, f1 2.63 -> 2.61 ms.
//  - Lane 0 gets the previous strip's error through the same shuffle: lane 31 (whose last-row error no lane
//    needs) sends the boundary word instead of its own error. The group's 32 boundary words are broadcast to
//    registers at the group start, so the per-step select never waits on a shuffle (session 4: 3.43 -> 3.10 ms).
//  - HB (shapes b0/b1): the strips of a block hand over through a shared-memory ring ordered by mbarriers, L2
//    only between blocks (see kHandSeg); exact and racecheck-clean, measured slower than f1.
//  - P = 2 (shapes p0/p1): a lane's second row reads its first row's error from a register (no shuffle) and a
//    strip has 64 rows (half the hand-offs); measured slower than P = 1 (docs/perf/gpu-ed.md, session 4).
//  - Input: cp.async copies each row's aligned 32-byte blocks two chunks ahead into a per-lane shared ring (slots
//    indexed by the chunk, so the mirror that keeps a window from wrapping is copied in one chunk of four: kRingUniform);
//    at step kReadAt (25) of the previous chunk the lane reads the next chunk's 9 words at its fixed offset (so that no
//    shared-memory latency sits at the chunk start) and funnel-shifts them at the chunk start; gamma input
//    becomes 256 a with one PRMT per pixel; linear input reads a 256-entry shared table.
//  - Output: one bit per pixel in a register (one predicated OR), realigned per chunk with a funnel shift,
//    expanded to 0/255 bytes and stored as 2 x 16 bytes per row and chunk, or (packed output) stored as
//    4 bytes of PBM bits.
//  - Only the chunks that touch a row's start or end (about 7 of 516 at 16K) mask errors outside the image.
//  - Boundary words are indexed by the producer's step (4 per 16-byte store); each lane reads one word per
//    group of 32 steps: since session 12 cp.async copies the next group's words L2 -> shared memory at step 20
//    (kBCopyAt; the input copy moved to step 21 so that the check's wait leaves it pending) and the check reads the
//    lane's word from shared memory; before, a register load at step 8 (kBCopyAt 0), because ptxas waited on a
//    later register load before the check (16K f0 2.355-2.365 -> 2.326-2.338 ms, lag 3584 -> 3328 ns, failed
//    checks per strip 58-75 -> 7-16; docs/perf/gpu-ed.md session 12). One vote per group checks all its tags.
//    Since session 13 a group is 16 steps (kFastGroup; the block hand-off kernels keep 32; since session 16 the
//    copies are at steps 7 and 23, 9 steps before each check, and the input copy at 24): the consumer needs 16 words
//    ready instead of 32, the lag falls by ~10 steps and a second check per chunk costs ~2 ns per step (16K f0
//    2.32-2.33 -> 2.27-2.28 ms, docs/perf/gpu-ed.md session 13).
//  - Cancel: only the first strip reads the cancel flag while it runs (in its boundary-word slot, one group ahead;
//    once per chunk, a chunk ahead, when groups are shorter than a chunk);
//    every other strip stops when its producer stops (its boundary poll checks the flag), and a strip taken after a
//    cancel does not start. A second global load in flight per group (the flag at step 13, as before session 6)
//    shared a register scoreboard with the step's shuffles in ptxas's allocation, so shuffle results waited for an
//    L2 round trip: 16K f1 2.89 -> 2.71 ms without it (docs/perf/gpu-ed.md, session 6). After a cancel, strips that
//    run unthrottled finish their rows (at most one strip's width of steps).
// Bit-identical to the SPEC reference (tests/gpu/test_gpu.cpp covers every shape of ours).

namespace fastfs {

constexpr int kFastChunk = 32;  // steps per chunk (input, output and loop granularity)
#ifndef HALFTONE_FAST_GROUP
#define HALFTONE_FAST_GROUP 16
#endif
// steps per boundary group (8, 16 or 32; the block hand-off kernels always use 32): one vote per group. Session 4
// measured 32 best with register loads (f1 3.15-3.46 ms, against 3.72 for 16, 4.08-4.21 for 8, 5.94 for 4); with the
// boundary words copied into shared memory (session 12) 16 is best: 16K f0 2.270-2.282 ms against 2.330-2.332 for 32
// and 3.19-3.24 for 8 in the same calls (session 13; each check costs the strip with no producer ~2.3 ns per step,
// the lag shrinks from ~118 to ~107 steps)
constexpr int kFastGroup = HALFTONE_FAST_GROUP;
static_assert(kFastGroup == 8 || kFastGroup == 16 || kFastGroup == 32, "groups of 8, 16 or 32 steps");
#ifndef HALFTONE_FAST_AHEAD
#define HALFTONE_FAST_AHEAD 1
#endif
// boundary groups read ahead (1..3; up to 4 fixed register slots): 1 measured best at 16K with groups of 8
// (f0 4.30 ms against 4.47 for 2 and 4.95 for 3): each group of read-ahead adds to the lag between strips
constexpr int kFastAhead = HALFTONE_FAST_AHEAD;
#ifndef HALFTONE_FAST_K2_XLAST
#define HALFTONE_FAST_K2_XLAST 1
#endif
// K = 2: the shuffled E(up, j + 1) is one step old and on the chain, so it is added last (y = 3 x + (7 e + older))
// and lane 0's boundary word enters through `older` (3 b) instead of a select before the shuffle: the chain of a
// step is SHFL -> IMAD -> the quantizer (LEA.HI -> IMAD.HI with the G words)
constexpr bool kK2XLast = HALFTONE_FAST_K2_XLAST != 0;
#ifndef HALFTONE_FAST_K2_SHFLUP
#define HALFTONE_FAST_K2_SHFLUP 1
#endif
// K = 2: the shuffle is SHFL.UP (lane 0 gets its own word back, weighted 0): 16K f0 2.55 -> 2.51 ms against
// SHFL.IDX from lane - 1 (session 9)
constexpr bool kK2ShflUp = HALFTONE_FAST_K2_SHFLUP != 0;
#ifndef HALFTONE_FAST_PACKED_LOOP
#define HALFTONE_FAST_PACKED_LOOP 1
#endif
// one chunk loop per output format (8-bit or packed known at compile time: no branch per chunk): 16K f0 2.52 ->
// 2.44 ms (session 9)
constexpr bool kPackedLoop = HALFTONE_FAST_PACKED_LOOP != 0;
#ifndef HALFTONE_FAST_UNROLL2
#define HALFTONE_FAST_UNROLL2 1
#endif
// two interior chunks per loop iteration (one loop branch per 64 steps): 16K f0 2.52 -> 2.42 ms, with
// kPackedLoop 2.36 ms; 3 or 4 chunks per iteration (a loop with a break) measured 2.43-2.49 ms (session 9)
constexpr bool kUnroll2 = HALFTONE_FAST_UNROLL2 != 0;
#ifndef HALFTONE_FAST_P2_NEWLAST
#define HALFTONE_FAST_P2_NEWLAST 1
#endif
// P = 2, K = 2 (p0): the second row adds its first row's error last (y = 3 E(first row) + (7 e + older)): that error
// is one step old and came through the shuffle chain, so the chain of the step loses one IMAD (16K p0 2.914-2.945 ->
// 2.814-2.835 ms, docs/perf/gpu-ed.md session 14)
constexpr bool kP2NewLast = HALFTONE_FAST_P2_NEWLAST != 0;
#ifndef HALFTONE_FAST_RING_UNIFORM
#define HALFTONE_FAST_RING_UNIFORM 1
#endif
// input ring slots indexed by the chunk a block is fetched for (T / 32 + 3 at the copy, the same in every lane) instead
// of by the block's own index (T / 32 - q, three values in a warp): the mirror of slot 0 is then copied in one chunk of
// four, by the whole warp, instead of in every chunk by the lanes whose block index is a multiple of 4. Each of those
// copies touches one line per row (32 per instruction) and the chain's next shuffles queue behind them (Nsight Compute,
// docs/perf/gpu-ed.md session 15)
constexpr bool kRingUniform = HALFTONE_FAST_RING_UNIFORM != 0;
#ifndef HALFTONE_FAST_MASK_WEIGHTS
#define HALFTONE_FAST_MASK_WEIGHTS 1
#endif
// the chunks that touch a row's start or end mask the errors outside the row through the step's weights (0 for the
// newer taps, `older` replaced by a constant whose quantized word is "no error": selects off the chain) instead of a
// select of the quantizer's result on the chain. Those chunks set the lag between strips: a consumer's first check
// waits for its producer to run 80 steps of them, and the lag it starts with stays for the whole strip (session 16)
constexpr bool kMaskWeights = HALFTONE_FAST_MASK_WEIGHTS != 0;
#ifndef HALFTONE_FAST_STATIC
#define HALFTONE_FAST_STATIC 1
#endif
// Static strip placement (session 23): strip s runs on block s mod gridDim (warp (s / gridDim) mod kWarpsPerBlock), so the
// strips that run at once (~145 consecutive ones at 16K) sit one per SM. The work-stealing counter (takeStrip) hands its
// tickets out in arrival order, where the four warps of a block arrive together: the running strips sat ~3.5 per SM and
// shared its shuffle and memory pipes (16K f0 2.267-2.279 -> 2.226-2.240 ms, step 30.6-31.0 -> 29.5-29.8 ns, same calls;
// docs/perf/gpu-ed.md session 23). A strip waits for the one above it, so every block must be resident: launchWavefront
// launches these kernels cooperatively, which guarantees it or fails.
// A runtime switch between the two placements in one kernel changed ptxas's schedule of the step (2.34 ms static, 2.39
// ms by the counter), so the placement is fixed at compile time.
constexpr bool kStatic = HALFTONE_FAST_STATIC != 0;
#ifndef HALFTONE_FAST_PREFETCH_AT
#define HALFTONE_FAST_PREFETCH_AT 8
#endif
#ifndef HALFTONE_FAST_INPUT_AT
#define HALFTONE_FAST_INPUT_AT 24
#endif
// step of a group that loads the next group's words (0: at the group start): 8 measured best at 16K in session 6
// (f1 2.74-2.76 -> 2.68 ms; 16: 3.09, 24: 2.84), the producer gets 8 more steps before the load; with kBCopyAt
// only the first strip loads here (the cancel flag), the others copy their words at kBCopyAt
// (per kernel: kPf, 0 when the group is not longer than this; the first strip of the copy form with groups shorter
// than a chunk loads the flag once per chunk, at this step, for the next chunk)
static_assert(HALFTONE_FAST_PREFETCH_AT >= 0 && HALFTONE_FAST_PREFETCH_AT < 32, "a step inside the chunk");
#ifndef HALFTONE_FAST_READ_AT
#define HALFTONE_FAST_READ_AT 25
#endif
// step of a chunk that reads the next chunk's input words from the shared ring (0: at the chunk start, where the
// funnel shifts then wait for the shared loads); must be after kInputAt (the copies it waits for are older)
// (16K f1 2.66 -> 2.64 ms; consumers' step 29.0 -> 26.8 ns, docs/perf/gpu-ed.md session 7)
constexpr int kReadAt = HALFTONE_FAST_READ_AT;
// step of a chunk that copies input two chunks ahead (away from the group check; 2 measured no faster than 13; 21
// since session 12: after the boundary copy at kBCopyAt 20, so that the check's wait for that copy leaves the input
// copy pending: with the input at 13 the check waited for it and 16K took 2.48 ms instead of 2.33; 24 since session 16,
// after the boundary copy at 23)
constexpr int kInputAt = HALFTONE_FAST_INPUT_AT;
static_assert(kReadAt == 0 || (kReadAt > kInputAt && kReadAt < kFastChunk), "the window read waits for older copies");
#ifndef HALFTONE_FAST_BCOPY_AT
#define HALFTONE_FAST_BCOPY_AT 23
#endif
// step of a chunk at which the next group's boundary words are copied L2 -> shared memory with cp.async (0: loaded into a
// register at the prefetch step instead): a copy holds no register scoreboard, so ptxas cannot wait on it before the check
// (session 9: a register load later than step 8 made the step longer); the check then reads the word from shared memory.
// Session 16: 23 (copies 9 steps before each check, the input copy right after them at 24 and the window read at 25) reads
// the producer's words 3 steps later than 20/21/24 did, so fewer checks fail (16K f0: 27-45 against 68-78 per strip,
// 2.241-2.259 against 2.264-2.283 ms in the same calls); 8, 7 or 6 steps measured 2.41-2.43 ms (the check then waits for
// its copy: an L2 -> shared copy takes ~9 steps, ~270 ns); 10 and 11 steps 2.256-2.262 ms
constexpr int kBCopyAt = HALFTONE_FAST_BCOPY_AT;
// With groups shorter than a chunk (HALFTONE_FAST_GROUP 16 or 8) each group's words are copied at step kBCopyAt mod kFastGroup
// of the group before it, i.e. the same kFastChunk - kBCopyAt steps ahead of the check
constexpr int kBPhase = kBCopyAt % kFastGroup;
constexpr bool isBCopyStep(int u) { return kBCopyAt > 0 && u % kFastGroup == kBPhase; }
constexpr bool bCopyClash() {
    for (int u = 0; u < kFastChunk; ++u)
        if (isBCopyStep(u) && (u == kInputAt || u == kReadAt)) return true;
    return false;
}
static_assert(kBCopyAt == 0 || (kFastChunk % kFastGroup == 0 && kReadAt > 0 && !bCopyClash() && kBCopyAt < kFastChunk),
              "whole groups per chunk, the window read and the input copy steps of their own");
// cp.async groups committed in the open step interval (lo, hi) of the periodic schedule (boundary copies at every
// isBCopyStep, the input copy at kInputAt of every chunk; lo may be negative: the previous chunk)
constexpr int commitsBetween(int lo, int hi) {
    int n = 0;
    for (int v = lo + 1; v < hi; ++v) {
        const int u = (v % kFastChunk + kFastChunk) % kFastChunk;
        n += (isBCopyStep(u) ? 1 : 0) + (u == kInputAt ? 1 : 0);
    }
    return n;
}
// cp.async groups still pending that a wait of the copy form may leave (the other forms leave 1 at the window read):
// at the window read (step kReadAt of chunk c, which needs the input group committed at step kInputAt of chunk c - 1)
// the groups committed after that one; at the check of the group starting at step s (which needs the boundary copy
// committed kFastGroup - kBPhase steps before it) the groups committed after that copy
constexpr int kReadWait = kBCopyAt > 0 ? commitsBetween(kInputAt - kFastChunk, kReadAt) : 1;
constexpr int checkWait(int s) { return kBCopyAt > 0 ? commitsBetween(s - kFastGroup + kBPhase, s) : 0; }
// boundary copies between the input copy and the chunk's end: the prelude commits as many empty groups after its
// last input group, so that the first chunk's waits count as in every later chunk
constexpr int kPreludeEmpty = kBCopyAt > 0 ? commitsBetween(kInputAt, kFastChunk) : 0;
static_assert(kBCopyAt != 20 || kFastGroup != 32 || (kReadWait == 2 && checkWait(0) == 1 && kPreludeEmpty == 0),
              "the session-12 schedule (copy at 20, input at 21, read at 24) keeps its waits");
static_assert(kBCopyAt == 0 || kFastAhead == 1, "one group copied ahead");


__device__ __forceinline__ uint32_t prmt(uint32_t a, uint32_t b, uint32_t sel) {
    uint32_t d;
    asm("prmt.b32 %0, %1, %2, %3;" : "=r"(d) : "r"(a), "r"(b), "r"(sel));
    return d;
}

/// a * b + c as one IMAD that the compiler keeps in this place of the sum.
__device__ __forceinline__ int mad(int a, int b, int c) {
    int d;
    asm("mad.lo.s32 %0, %1, %2, %3;" : "=r"(d) : "r"(a), "r"(b), "r"(c));
    return d;
}
/// The high 32 bits of the unsigned product a * b, plus c, as one IMAD.HI.
__device__ __forceinline__ int madHi(int a, unsigned b, int c) {
    int d;
    asm("mad.hi.u32 %0, %1, %2, %3;" : "=r"(d) : "r"(a), "r"(b), "r"(c));
    return d;
}

/// 16 bytes global -> shared without registers (zero-filled when `bytes` is 0).
__device__ __forceinline__ void cpAsync16(void* smemDst, const void* src, int bytes) {
    const unsigned d = static_cast<unsigned>(__cvta_generic_to_shared(smemDst));
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;" ::"r"(d), "l"(src), "r"(bytes) : "memory");
}
__device__ __forceinline__ void cpAsyncCommit() { asm volatile("cp.async.commit_group;" ::: "memory"); }
template <int N>
__device__ __forceinline__ void cpAsyncWait() {
    asm volatile("cp.async.wait_group %0;" ::"n"(N) : "memory");
}
/// A strong gpu-scope load that the compiler does not cache (the cancel flag).
__device__ __forceinline__ int loadRelaxed(const int* p) {
    int v;
    asm volatile("ld.relaxed.gpu.global.s32 %0, [%1];" : "=r"(v) : "l"(p));
    return v;
}

// Block hand-off (shapes b<extra>): a shared-memory ring between consecutive strips of one block, in the
// global words' format (word t + 32 = tag | E(last row, t - 31 K), stored 4 at a time), cut into segments of
// kHandSeg words and ordered by mbarriers (PTX ISA, "mbarrier"): per segment slot a "full" and an "empty"
// barrier, count 32 each. Every producer lane arrives on "full" once lane 31 has stored a segment (warp-uniform,
// so the step never diverges; lane 31's arrive releases its stores); every consumer lane arrives on "empty"
// after reading its word, and the producer waits for "empty" before it reuses a slot.
// Measured (docs/perf/gpu-ed.md, session 4): every shape b is slower than f1, because each segment's wait,
// arrives and broadcast cost more step time than the shorter hand-off saves in lag (16K b1: segments of 4 / 8 /
// 16 / 32 steps 6.46 / 5.01 / 4.56 / 3.42 ms against f1 3.15-3.21 ms); 32 is the least bad.
#ifndef HALFTONE_HAND_SEG
#define HALFTONE_HAND_SEG 32
#endif
constexpr int kHandSeg = HALFTONE_HAND_SEG;  // steps per segment (4, 8, 16 or 32): the consumer waits per segment
constexpr int kHandWords = 512;              // ring words (a power of two)
constexpr int kHandSegs = kHandWords / kHandSeg;
static_assert(kHandSeg >= 4 && 32 % kHandSeg == 0, "segments of 4, 8, 16 or 32 steps");
__device__ __forceinline__ unsigned smemAddr(const void* p) {
    return static_cast<unsigned>(__cvta_generic_to_shared(p));
}
__device__ __forceinline__ void mbarInit(uint64_t* bar, int count) {
    asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" ::"r"(smemAddr(bar)), "r"(count) : "memory");
}
__device__ __forceinline__ void mbarArrive(uint64_t* bar) {
    asm volatile("mbarrier.arrive.release.cta.shared::cta.b64 _, [%0];" ::"r"(smemAddr(bar)) : "memory");
}
/// True once the phase of parity `parity` of `bar` has completed (acquire; the hardware may wait a while).
__device__ __forceinline__ bool mbarTryWait(uint64_t* bar, unsigned parity) {
    unsigned ok;
    asm volatile(
        "{\n\t.reg .pred p;\n\t"
        "mbarrier.try_wait.parity.acquire.cta.shared::cta.b64 p, [%1], %2;\n\t"
        "selp.u32 %0, 1, 0, p;\n\t}"
        : "=r"(ok)
        : "r"(smemAddr(bar)), "r"(parity)
        : "memory");
    return ok != 0;
}

constexpr int kRingWords = 44;  // per lane: 5 slots of 8 words (slot 4 mirrors slot 0) + 4 words of padding

/// 4 bits of `nib` (0..15) -> 4 bytes of 0x00 / 0xff, byte k = bit k.
__device__ __forceinline__ uint32_t expandNibble(uint32_t nib) {
    // bit k -> bit 8k + 7 (the products do not overlap), then PRMT replicates each byte's top bit
    return prmt(nib * 0x10204080u, 0u, 0xba98u);
}

/// The PBM word of the 32 output pixels in columns [32 B, 32 B + 32) (bit i = level 1 at column 32 B + i): 1 = black,
/// leftmost pixel in the most significant bit of each byte, columns past W cleared.
__device__ __forceinline__ uint32_t packedWord(int width, int B, uint32_t bits) {
    const int left = width - 32 * B;
    const uint32_t black = ~bits & (left >= 32 ? 0xffffffffu : (1u << left) - 1u);
    return __byte_perm(__brev(black), 0u, 0x0123u);
}
/// The 32 output bytes (0/255) of the same pixels, as two 16-byte halves.
__device__ __forceinline__ void blockBytes(uint32_t bits, uint4& d0, uint4& d1) {
    d0 = make_uint4(expandNibble(bits & 15u), expandNibble((bits >> 4) & 15u), expandNibble((bits >> 8) & 15u),
                    expandNibble((bits >> 12) & 15u));
    d1 = make_uint4(expandNibble((bits >> 16) & 15u), expandNibble((bits >> 20) & 15u), expandNibble((bits >> 24) & 15u),
                    expandNibble(bits >> 28));
}

/// Stores the 32 output pixels of row `row` in columns [32 B, 32 B + 32) (32 B < W): 0/255 bytes (32 bytes, inside the
/// 32-byte-aligned pitch) or, with packed output, the 4 bytes of packedWord.
template <int PACKED = -1>  // -1: a.packed decides at run time; 0 / 1: known at compile time
__device__ __forceinline__ void storeBlock32(const WavefrontArgs& a, unsigned char* outRow, int row, int B, uint32_t bits) {
    if (PACKED == 1 || (PACKED == -1 && a.packed)) {
        *reinterpret_cast<uint32_t*>(a.packed + size_t(row) * a.packedPitch + 4 * B) = packedWord(a.width, B, bits);
    } else {
        uint4* d = reinterpret_cast<uint4*>(outRow + 32 * B);
        blockBytes(bits, d[0], d[1]);
    }
}

template <int K, bool GAMMA, int P, bool HB = false>
__global__ void __launch_bounds__(kWarpsPerBlock * 32, 1) fsFastKernel(WavefrontArgs a) {
    static_assert(K >= 2 && K <= 4, "FS needs K >= 2; the tail bound assumes K <= 4");
    static_assert(P == 1 || P == 2, "one or two rows per lane");
    static_assert(!HB || P == 1, "block hand-off: one row per lane");
    // this kernel's boundary groups: the block hand-off form keeps groups of 32 steps (its global hand-off was
    // measured with them, and its shared-memory segments assume them), the others use kFastGroup
    constexpr int kG = HB ? 32 : kFastGroup;
    constexpr int kSl = kFastChunk / kG < 4 ? kFastChunk / kG : 4;  // fixed read-ahead registers
    constexpr int kPf = HALFTONE_FAST_PREFETCH_AT < kG ? HALFTONE_FAST_PREFETCH_AT : 0;
    constexpr int kRows = 32 * P;  // rows per strip: lane i owns rows P i .. P i + P - 1
    __shared__ int32_t sTerm[256];  // 16 A(a) + 8 (linear input)
    // input rings: per lane and row the aligned 32-byte blocks B..B+3 of the row in slots B & 3 (cp.async)
    __shared__ __align__(16) uint32_t sRing[kWarpsPerBlock * 32 * P * kRingWords];
    // block hand-off: ring w carries strip (w - 1)'s last row to strip w (w = 1 .. warps - 1)
    __shared__ __align__(16) uint32_t sHand[HB ? kWarpsPerBlock : 1][HB ? kHandWords : 1];
    __shared__ uint64_t sFull[HB ? kWarpsPerBlock : 1][kHandSegs], sEmpty[HB ? kWarpsPerBlock : 1][kHandSegs];
    __shared__ int sSuper;
    // boundary words copied ahead (kBCopyAt): per lane the aligned 16 bytes that hold its word (a private slot, so the
    // copy and the read are one thread's)
    __shared__ __align__(16) uint32_t sBnd[kBCopyAt > 0 && !HB ? kWarpsPerBlock * 32 * 4 : 4];
    if (blockIdx.x == 0 && threadIdx.x == 0) traceKernel(a, (a.height + kRows - 1) / kRows, 0, 0);  // entry
    if (!GAMMA)
        for (int k = threadIdx.x; k < 256; k += blockDim.x) sTerm[k] = 16 * a.q.input[k] + 8;
    if (HB && threadIdx.x == 0) {
        for (int w = 0; w < kWarpsPerBlock; ++w)
            for (int i = 0; i < kHandSegs; ++i) {
                mbarInit(&sFull[w][i], 32);
                mbarInit(&sEmpty[w][i], 32);
            }
        sSuper = atomicAdd(a.stripCounter, 1);  // this block's strips: kWarpsPerBlock consecutive ones
    }
    __syncthreads();

    const int lane = threadIdx.x & 31;
    const int warp = threadIdx.x >> 5;
    const int w0 = lane == 0 ? 3 : 0, w3 = 3 - w0;  // weights of lane 0's boundary word and of the shuffle (kK2XLast)
    const int W = a.width, H = a.height;
    const int strips = (H + kRows - 1) / kRows;
    const uint32_t tag = a.epoch << 16;
    // errors are G = tag + E + 4079 - T in [tag, tag + 4079] (the boundary word itself); "no error" is zero_.
    // Level 1 iff S > T iff y > 16 T + 15; the step computes y' = y - 16 (T + 1) = 7 G + 3 G + 5 G + G + 16 A +
    // gOff (mod 2^32; each G carries its tag once)
    const int zero_ = int(tag) + 4079 - a.threshold;
    // y' whose quantized word is zero_ (kMaskWeights): 0 <= y' < 2^20, so G = tag + (y' >> 4) = tag + 4079 - T
    const int maskY = 16 * (4079 - a.threshold);
    const int gOff = int(8u - 65280u - 16u * tag);
    const int bLast = (W - 1) >> 5;       // last aligned 32-column block of a row
    constexpr int kLastLag = (kRows - 1) * K;  // steps from a strip's first row to its last
    const int tLast = 32 * bLast + kLastLag + 31;
    // row constants: chunk T covers columns [T - K rho, +32) of row rho = P lane + p = block B(T) = T/32 - q at
    // byte offset r
    int q[P], r[P], rb8[P], rw[P];
    uint32_t* ring[P];
#pragma unroll
    for (int p = 0; p < P; ++p) {
        const int rho = P * lane + p;
        q[p] = (K * rho + 31) >> 5;
        r[p] = 32 * q[p] - K * rho;
        rb8[p] = (r[p] & 3) * 8;
        rw[p] = r[p] >> 2;
        ring[p] = sRing + (threadIdx.x * P + p) * kRingWords;
    }

    for (int iter = 0;; ++iter) {
        int s;
        if (HB) {
            if (iter > 0) break;  // one set of strips per block (blocks are launched per set)
            s = sSuper * kWarpsPerBlock + warp;
        } else {
            // kStatic: this warp's iter-th strip by its place (the launch is cooperative: every block is resident);
            // else the work-stealing counter
            s = kStatic ? int(blockIdx.x) + int(gridDim.x) * (warp + kWarpsPerBlock * iter) : takeStrip(a, lane);
        }
        if (s >= strips) break;
        if (loadRelaxed(a.abortFlag)) return;  // cancelled: strips taken later do not start (see "Cancel")
        const int base = s * kRows;
        if (!waitForBand(a, base, lane)) return;
        const bool hasPrev = s > 0;
        const bool publish = s + 1 < strips;
        bool rowOk[P];
        const unsigned char* inRow[P];
        unsigned char* outRow[P];
        int rowIdx[P];
#pragma unroll
        for (int p = 0; p < P; ++p) {
            rowIdx[p] = base + P * lane + p;
            rowOk[p] = rowIdx[p] < H;
            inRow[p] = a.in + size_t(rowOk[p] ? rowIdx[p] : 0) * a.pitch;
            outRow[p] = a.out + size_t(rowOk[p] ? rowIdx[p] : 0) * a.outPitch;
        }
        const uint32_t* prevB = a.boundary + size_t(hasPrev ? s - 1 : 0) * 2 * a.boundaryStride;
        uint32_t* myB = a.boundary + size_t(s) * 2 * a.boundaryStride;
        // block hand-off roles: warps 1.. read their boundary from the ring of the warp above; the last warp (and
        // every warp without HB) hands over through global memory
        const bool fromShared = HB && warp > 0;
        const bool toShared = HB && warp + 1 < kWarpsPerBlock && publish;
        const bool producer = lane == 31 && publish && !toShared;
        const uint32_t* handIn = sHand[HB ? warp : 0];
        uint32_t* handOut = sHand[HB && warp + 1 < kWarpsPerBlock ? warp + 1 : 0];
        uint64_t* fullIn = sFull[HB ? warp : 0];
        uint64_t* emptyIn = sEmpty[HB ? warp : 0];
        uint64_t* fullOut = sFull[HB && warp + 1 < kWarpsPerBlock ? warp + 1 : 0];
        uint64_t* emptyOut = sEmpty[HB && warp + 1 < kWarpsPerBlock ? warp + 1 : 0];
        // Ring word i = t + 32 (producer step t); segment g = words [g S, g S + S). The consumer's group at step
        // g0 needs words [g0 + 32 K + 31, g0 + 32 K + 30 + S]: the last word of segment g - 1 and all of segment
        // g = (g0 + 32 K + 30 + S) / S, so it waits for g and then releases g - 1.
        auto consumerSeg = [](int g0) { return (g0 + 32 * K + 30 + kHandSeg) / kHandSeg; };
        const int tEnd = ((tLast + 32) & ~31) - 1;  // the last step of the last chunk
        // waits (warp-uniform) for barrier phase `parity`; false when a cancel was seen meanwhile
        auto waitBar = [&](uint64_t* bar, unsigned parity) -> bool {
            int spins = 0;
            while (!__all_sync(kFull, mbarTryWait(bar, parity)))
                if (spinAbort(a, lane, spins)) return false;
            return true;
        };
        if (fromShared)  // segments below the first one the consumer waits for are released up front
            for (int i = 0; i < consumerSeg(-kFastChunk) - 1; ++i) mbarArrive(&emptyIn[i % kHandSegs]);
        // the producer waits until the consumer released the previous use of slot g % kHandSegs
        auto producerReady = [&](int g) -> bool {
            return g < kHandSegs || waitBar(&emptyOut[g % kHandSegs], ((g / kHandSegs) & 1) ^ 1);
        };

        // one cp.async group per block index: block B(p) = Bq - q of each row into slot Bq & 3 (kRingUniform; else B & 3), and
        // into slot 4 too when that slot is 0 (the mirror, so that a window never wraps)
        auto fetchBlocks = [&](int Bq) {  // Bq = T/32 of the chunk the blocks belong to
#pragma unroll
            for (int p = 0; p < P; ++p) {
                const int B = Bq - q[p];
                const bool inside = rowOk[p] && B >= 0 && 32 * B < W;
                const unsigned char* src = inside ? inRow[p] + 32 * B : a.in;
                const int n = inside ? 16 : 0;
                const int slot = (kRingUniform ? Bq : B) & 3;
                uint32_t* dst = ring[p] + slot * 8;
                cpAsync16(dst, src, n);
                cpAsync16(dst + 4, src + 16, n);
                if (slot == 0) {
                    cpAsync16(ring[p] + 32, src, n);
                    cpAsync16(ring[p] + 36, src + 16, n);
                }
            }
            cpAsyncCommit();
        };
        // Boundary words are indexed by the producer's step: word t + 32 of strip s - 1 holds
        // tag | E(base - 1, t - kLastLag) (also for columns outside the image, where the error is 0), so lane 31
        // stores 4 steps with one aligned 16-byte store. Lanes 0-7 (and 8-31 duplicated) read the words of
        // E(base - 1, g0 + K - 1 + (lane & (kG - 1))) for the group starting at step g0. The first strip has no
        // producer: every word counts as ready and zero (column >= wlim), and its slot carries the cancel flag
        // instead (see "Cancel" above: one global load in flight per group, in every strip).
        const int wlim = hasPrev ? W : INT_MIN;
        const int bMax = a.boundaryStride - 1;
        const bool cancelSlot = !hasPrev && !fromShared;
        constexpr bool kCopy = kBCopyAt > 0 && !HB;
        uint32_t* bSlot = sBnd + (kCopy ? threadIdx.x * 4 : 0);
        // the word of lane l for the group at g0 has index g0 + K - 1 + kLastLag + 32 + l (see boundaryLoad); the lane
        // copies the aligned 16 bytes around it (zero-filled past the array or without a producer: those columns are >=
        // wlim and pass the check)
        constexpr int kBOff = (K - 1 + kLastLag + 32) & 3;
        // (the first strip copies zeros: its check reads the cancel flag's load instead, but waits for the copy all the
        // same, so that two copies into the slot never overlap)
        auto boundaryCopy = [&](int g0) {
            const int c0 = (g0 + K - 1 + kLastLag + 32 + (lane & (kG - 1))) & ~3;
            const bool ok = hasPrev && c0 >= 0 && c0 + 3 <= bMax;
            cpAsync16(bSlot, ok ? prevB + c0 : prevB, ok ? 16 : 0);
            cpAsyncCommit();
        };
        // the waits of this kernel (the block hand-off form copies no boundary words)
        constexpr int kRWait = kCopy ? kReadWait : 1;
        auto boundaryLoad = [&](int g0) -> uint32_t {
            const int col = g0 + K - 1 + (lane & (kG - 1));
            if (fromShared) return tag;
            return __ldcg(hasPrev ? prevB + min(col + kLastLag + 32, bMax) : reinterpret_cast<const uint32_t*>(a.abortFlag));
        };

        constexpr int T0 = -kFastChunk;
        if (kCopy) boundaryCopy(T0);  // the first group's words (older than the input groups below)
        fetchBlocks((T0 >> 5));
        fetchBlocks((T0 >> 5) + 1);
        fetchBlocks((T0 >> 5) + 2);  // the loop fetches B + 3 in each chunk
        // the first chunk's waits count the boundary copies that a previous chunk would have committed after its input
        // group: empty groups stand for them (kPreludeEmpty), so that the waits hold from the first chunk on
        if (kCopy)
#pragma unroll
            for (int i = 0; i < kPreludeEmpty; ++i) cpAsyncCommit();

        int e[P];          // E(row, j - 1)
        int hist[P][K + 1];  // hist[p][m] = E(row - 1, j + K - 1) as seen at step t - m
        uint32_t obPrev[P];
#pragma unroll
        for (int p = 0; p < P; ++p) {
            e[p] = zero_;
            obPrev[p] = 0;
#pragma unroll
            for (int m = 0; m <= K; ++m) hist[p][m] = zero_;
        }
        // boundary words of the groups of a chunk, group i in slot i, loaded ahead; fixed slots so that no
        // register copy waits on a load in flight
        uint32_t bq[kSl];
#pragma unroll
        for (int g = 0; g < kFastAhead; ++g) bq[g] = kCopy && !cancelSlot ? 0u : boundaryLoad(T0 + g * kG);
#pragma unroll
        for (int g = kFastAhead; g < kSl; ++g) bq[g] = 0u;
        uint4* pub = reinterpret_cast<uint4*>(myB + T0 + 32);  // lane 31's words of the current chunk

        // the 9 input words of chunk T's window (blocks B and B + 1 of each row) from the ring into win: the caller first
        // waits until the copies of blocks up to B + 1 are complete (kRWait: the groups committed after them may pend)
        uint32_t win[P][9];
        auto readWindow = [&](int T) {
#pragma unroll
            for (int p = 0; p < P; ++p) {
                const int B = (T >> 5) - q[p];
                const uint32_t* src = ring[p] + ((kRingUniform ? T >> 5 : B) & 3) * 8 + rw[p];
#pragma unroll
                for (int k = 0; k < 9; ++k) win[p][k] = src[k];
            }
        };
        if (kReadAt > 0) {  // the first chunk's input words (the loop reads each next chunk's)
            cpAsyncWait<1>();
            readWindow(T0);
        }
        unsigned waitFails = 0, waitPolls = 0;  // diagnostics (trace): hand-off waits after chunk 96
        auto chunk = [&](int T, auto maskedTag, auto packedTag) -> bool {
            constexpr bool MASKED = decltype(maskedTag)::value;
            constexpr int PACKED = decltype(packedTag)::value;
            uint32_t* handChunk = handOut + ((T + 32) & (kHandWords - 1));  // this chunk's 32 words (contiguous)
            // in[p][k] = bytes [r + 4k, r + 4k + 4) of (block B, block B + 1): 9 aligned words (read at step kReadAt of
            // the previous chunk, or here with kReadAt 0) and a funnel shift
            if (kReadAt == 0) {
                cpAsyncWait<1>();
                readWindow(T);
            }
            uint32_t in[P][8];
#pragma unroll
            for (int p = 0; p < P; ++p) {
#pragma unroll
                for (int k = 0; k < 8; ++k) in[p][k] = __funnelshift_r(win[p][k], win[p][k + 1], rb8[p]);
            }

            int abortNow = 0;
            int jlo[P];  // each row's column at u = 0
#pragma unroll
            for (int p = 0; p < P; ++p) jlo[p] = T - K * (P * lane + p);
            uint32_t ob[P];
#pragma unroll
            for (int p = 0; p < P; ++p) ob[p] = 0;
            int bw = 0;
            int bvs[kG];  // lane 31: the group's boundary words, broadcast at the group start (off the chain)
            uint32_t pw[4];
#pragma unroll
            for (int u = 0; u < kFastChunk; ++u) {
                if (HB && u == 0 && toShared) {
                    // this chunk stores words T + 32 .. T + 63: their slots must have been read (consumers release
                    // in order, so the last segment suffices)
                    if (!producerReady((T + 63) / kHandSeg)) return false;
                }
                if (HB && u % kHandSeg == 0 && fromShared) {
                    const int g0 = T + u;
                    const int col = g0 + K - 1 + (lane & (kHandSeg - 1));
                    const int sg = consumerSeg(g0);
                    if (!waitBar(&fullIn[sg % kHandSegs], (sg / kHandSegs) & 1)) return false;
                    const uint32_t v = handIn[(col + 31 * K + 32) & (kHandWords - 1)];
                    mbarArrive(&emptyIn[(sg - 1) % kHandSegs]);
                    // words past the row were never stored
                    const int w = col < W ? int(v) : zero_;
#pragma unroll
                    for (int i = 0; i < kHandSeg; ++i) bvs[(u + i) % kG] = __shfl_sync(kFull, w, i);
                } else if (u % kG == 0) {
                    const int gi = (u / kG) % kSl;  // a constant once unrolled
                    const int g0 = T + u;
                    const int col = g0 + K - 1 + (lane & (kG - 1));
                    if (kCopy) {  // the word from the copy (the first strip keeps the cancel flag's load)
                        // (the group starts are 0, 8, 16, 24; u is a constant once unrolled)
                        if (u == 0)
                            cpAsyncWait<checkWait(0)>();
                        else if (u == 8)
                            cpAsyncWait<checkWait(8)>();
                        else if (u == 16)
                            cpAsyncWait<checkWait(16)>();
                        else
                            cpAsyncWait<checkWait(24)>();
                        if (!cancelSlot) bq[gi] = bSlot[(lane + kBOff) & 3];
                    }
                    if (!__all_sync(kFull, (bq[gi] & 0xffff0000u) == tag || col >= wlim)) {
                        // not there yet: poll (the prefetched next group was read too early too)
                        int spins = 0;
                        if (T >= 96) ++waitFails;  // diagnostics (trace): waits after the strip's start
                        do {
                            if (spinAbort(a, lane, spins)) return false;
                            bq[gi] = boundaryLoad(g0);
                            if (T >= 96) ++waitPolls;
                        } while (!__all_sync(kFull, (bq[gi] & 0xffff0000u) == tag || col >= wlim));
#pragma unroll
                        for (int g = 1; g < kFastAhead; ++g) bq[(gi + g) % kSl] = boundaryLoad(g0 + g * kG);
                    }
                    if (MASKED && u == 0 && T == T0) traceStamp(a, s, 4, lane);  // diagnostics: the strip's first check passed
                    bw = col < wlim ? int(bq[gi]) : zero_;
                    if (cancelSlot) abortNow |= int(bq[gi]);  // the first strip: the cancel flag (same in every lane)
#pragma unroll
                    for (int i = 0; i < kG; ++i) bvs[i] = __shfl_sync(kFull, bw, i);
                    // the next group's words: here with kPf 0, else at step kPf of the group (8: an L2
                    // round trip before they are needed; 16 and 24 measured slower, docs/perf/gpu-ed.md session 6)
                    if (kPf == 0 && !kCopy) bq[(gi + kFastAhead) % kSl] = boundaryLoad(g0 + kFastAhead * kG);
                }
                if (!kCopy && kPf > 0 && u % kG == kPf && !(HB && fromShared)) {
                    const int gi = (u / kG) % kSl;
                    bq[(gi + kFastAhead) % kSl] = boundaryLoad(T + u - kPf + kFastAhead * kG);
                } else if (kCopy && cancelSlot && u == HALFTONE_FAST_PREFETCH_AT) {
                    // the copy form: only the first strip loads, the cancel flag, once per chunk and a chunk ahead, into
                    // slot 0 (with shorter groups a load 8 steps ahead of every group held up the first strip, and every
                    // strip follows its pace); the other slots stay 0
                    bq[0] = boundaryLoad(T + kFastChunk);
                }
                if (kCopy && isBCopyStep(u)) boundaryCopy(T + u - kBPhase + kG);  // the next group's words
                if (kReadAt > 0 && u == kReadAt) {  // the next chunk's input words
                    cpAsyncWait<kRWait>();
                    readWindow(T + kFastChunk);
                }
                if (u == kInputAt) fetchBlocks((T >> 5) + 3);  // away from the group checks: input two chunks ahead
                // E(row - 1, j + K - 1): for the lane's first row from lane - 1's last row (lane 0 gets the
                // previous strip's word through lane 31, whose own last-row error no lane needs: it leaves through
                // the boundary words); for its other rows the lane's previous row, as it was before this step
                int x[P];
                constexpr bool kXLast = K == 2 && kK2XLast;
                int xs = 0;  // kXLast: the shuffled word itself (lane 0: lane 31's error, weighted 0)
                if (kXLast) {
                    // lane 0 gets its own error back from SHFL.UP (weighted 0 there); IDX measured 2 cycles slower
                    xs = kK2ShflUp ? __shfl_up_sync(kFull, e[P - 1], 1) : __shfl_sync(kFull, e[P - 1], (lane + 31) & 31);
                    x[0] = lane == 0 ? bvs[u % kG] : xs;  // for the later steps (hist), off the chain
                } else {
                    x[0] = __shfl_sync(kFull, lane == 31 ? bvs[u % kG] : e[P - 1], (lane + 31) & 31);
                }
#pragma unroll
                for (int p = 1; p < P; ++p) x[p] = e[p - 1];
#pragma unroll
                for (int p = 0; p < P; ++p) {
#pragma unroll
                    for (int m = K; m >= 1; --m) hist[p][m] = hist[p][m - 1];
                    hist[p][0] = x[p];
                    int term;  // 16 A(j) + 8 without the 8
                    if (GAMMA) {
                        term = int(prmt(in[p][u >> 2], 0u, 0x4404u | ((u & 3) << 4)));  // 256 a
                    } else {
                        term = sTerm[prmt(in[p][u >> 2], 0u, 0x4440u | (u & 3))] - 8;
                    }
                    // taps (1,-1,3) (1,0,5) (1,1,1): sources E(up, j+1), E(up, j), E(up, j-1) = hist[K-2], hist[K-1],
                    // hist[K]. The newest source is added last and the row's own error after it (inline PTX, so that
                    // the compiler cannot reassociate the sum and put older terms on the chain).
                    int older = 5 * hist[p][K - 1] + hist[p][K] + term + gOff;
                    // Masked chunks (kMaskWeights): outside the row the weights of the newer taps become 0 and `older`
                    // becomes maskY, so y' = maskY and the quantizer below yields the "no error" word itself; the
                    // selects act on values known before the step's chain, which stays the same IMADs as in the
                    // interior (before: a select of the quantizer's result, on the chain)
                    const bool inRow = !MASKED || unsigned(jlo[p] + u) < unsigned(W);
                    const bool off = MASKED && kMaskWeights && !inRow;  // this pixel is outside the row
                    const int w7 = off ? 0 : 7;
                    const int w3n = off ? 0 : 3;
                    if (MASKED && kMaskWeights) older = inRow ? older : maskY;
                    int y;
                    if (kXLast && p == 0) {
                        // 3 b for lane 0 (w0 = 3 there, 0 elsewhere), then 7 e, then 3 x (w3 = 0 in lane 0)
                        const int withB = mad(bvs[u % kG], off ? 0 : w0, older);
                        y = mad(xs, off ? 0 : w3, mad(e[p], w7, withB));
                    } else if (K == 2 && p > 0 && kP2NewLast) {
                        // the row above is the lane's own previous row, one step old (the end of the shuffle chain):
                        // this row's newest input, added last
                        y = mad(hist[p][0], w3n, mad(e[p], w7, older));
                    } else {
                        const int rest = mad(hist[p][K - 2], w3n, older);
                        y = mad(e[p], w7, rest);
                    }
                    // The quantizer (session 9; the earlier mask and predicate forms are in git history, e.g. aba9090):
                    // y here is y': level 1 iff y' >= 0; G = tag + (y' >> 4) + 4080 [y' < 0] (= tag + E + 4079 - T),
                    // the high word of y' * 4081 being 4080 for -2^20 < y' < 0 and 0 for 0 <= y' < 2^20 (|y'| < 2^18
                    // here): LEA.HI + IMAD.HI, the output bit (level 0) funnel-shifted in, no packing for the word
                    int en = madHi(y, 4081u, (y >> 4) + int(tag));
                    if (MASKED && !kMaskWeights) en = inRow ? en : zero_;  // outside the row
                    e[p] = en;
                    ob[p] = __funnelshift_l(uint32_t(y), ob[p], 1);
                }
                pw[u & 3] = uint32_t(e[P - 1]);
                if ((u & 3) == 3 && producer) __stcg(pub + (u >> 2), make_uint4(pw[0], pw[1], pw[2], pw[3]));
                if (HB && toShared && (u & 3) == 3) {  // warp-uniform: no divergence in the step
                    if (lane == 31) reinterpret_cast<uint4*>(handChunk)[u >> 2] = make_uint4(pw[0], pw[1], pw[2], pw[3]);
                    if (u % kHandSeg == kHandSeg - 1)  // words up to T + u + 32 stored: segment (T + u + 33) / S - 1
                        mbarArrive(&fullOut[((T + u + 33) / kHandSeg - 1) % kHandSegs]);
                }
            }
            pub += kFastChunk / 4;
#pragma unroll
            for (int p = 0; p < P; ++p) ob[p] = ~__brev(ob[p]);  // bit 31 - u held "level 0 at step u"
            // output: each row's aligned block B = T/32 - q (columns [32 B, 32 B + 32)) is complete now
#pragma unroll
            for (int p = 0; p < P; ++p) {
                const int B = (T >> 5) - q[p];
                const uint32_t bits = __funnelshift_rc(obPrev[p], ob[p], 32 - r[p]);
                obPrev[p] = ob[p];
                if (rowOk[p] && B >= 0 && 32 * B < W) storeBlock32<PACKED>(a, outRow[p], rowIdx[p], B, bits);
            }
            if (abortNow) {  // the same value in every lane
                if (lane == 0) atomicExch(a.abortFlag, 1);
                return false;
            }
            return true;
        };

        auto stamp = [&](int k) { traceStamp(a, s, k, lane); };
        stamp(0);
        // the chunks of a strip, with the output format known at compile time (kPackedLoop: no branch per chunk)
        auto chunks = [&](auto packedTag) -> bool {
            bool ok = true;
            for (int T = T0; T <= tLast && ok; T += kFastChunk) {
                if (T == 96) stamp(1);
                if (T == 32) stamp(5);
                const bool interior = T >= kLastLag && T + kFastChunk <= W;
                if (kUnroll2 && interior && T + 2 * kFastChunk <= W) {  // two interior chunks per iteration
                    if (T + kFastChunk == 96) stamp(1);
                    ok = chunk(T, std::false_type{}, packedTag) && chunk(T + kFastChunk, std::false_type{}, packedTag);
                    T += kFastChunk;
                } else if (interior) {
                    ok = chunk(T, std::false_type{}, packedTag);
                } else {
                    ok = chunk(T, std::true_type{}, packedTag);
                }
            }
            return ok;
        };
        bool ok;
        if (kPackedLoop)
            ok = a.packed ? chunks(std::integral_constant<int, 1>{}) : chunks(std::integral_constant<int, 0>{});
        else
            ok = chunks(std::integral_constant<int, -1>{});
        cpAsyncWait<0>();  // the next strip reuses the ring
        if (!ok) return;
        if (HB && toShared) {
            // the consumer's last groups wait for segments past the last stored word (their words are columns >= W,
            // read as 0): mark them full too, each after its slot's previous use was released
            const int done = (tEnd + 33) / kHandSeg - 1, last = consumerSeg(tEnd + 1 - kHandSeg);
            for (int g = done + 1; g <= last; ++g) {
                if (!producerReady(g)) return;
                mbarArrive(&fullOut[g % kHandSegs]);
            }
        }
        stamp(2);
        traceWaits(a, s, waitFails, waitPolls, lane);
        finishStrip(a, s, min(H, base + kRows), lane);
    }
    traceKernel(a, strips, 1, lane);  // diagnostics (trace): the last warp's exit
}

}  // namespace fastfs
