#pragma once
// \brief Ours, CTA form: one persistent launch; each block owns a strip of 32 NW rows with NW compute warps (one row
// per lane) and one loader warp. The compute warps run in lockstep, group by group (8 steps, one named barrier
// per group), warp w exactly DELTA = 32 K + 8 steps behind warp w - 1, so the rows the next warp needs were
// computed in an earlier group: warp w - 1's last rows hand their errors to warp w through a small shared ring.
// Between blocks the strip's last rows go through L2 as tagged words (epoch << 16 | error, data and flag in one
// 32-bit store), batched per group; the loader warp polls them and copies them, in order, into a shared ring for
// warp 0, so no compute warp ever waits on an L2 round trip (it also forwards a cancel request).
//
// Per-row rings in shared memory are skewed by the row's delay: row rho keeps column c at byte (c + K rho) mod
// 128, so at step t every lane reads byte t mod 128, and a group's 8 input bytes (and 8 output bytes) are one
// aligned 8-byte access. Input chunks come in by cp.async (two 32-byte chunks ahead, into staging slots; no
// register waits on a load in flight), are funnel-shifted into the ring once per 32 steps; the output leaves
// the same way in reverse. Groups that lie entirely inside the image run without masks.
//
// Row rho of warp w processes column j = t - K rho at its local step t; global step = t + w DELTA.
#include <cuda_runtime.h>

#include <cstdint>

#include "gpu/devicecommon.cuh"

namespace halftone::gpu::cta {

using namespace dev;

inline constexpr unsigned kFull = 0xffffffffu;
inline constexpr int kG = 8;              // steps per group: one barrier, one 8-byte ring access per lane
inline constexpr int kChunk = 32;         // steps per input refill and output flush
inline constexpr int kRingStride = 136;   // bytes per row ring: 128 (steps mod 128) + 8 padding
inline constexpr int kBRing = 64;         // hand-off ring between warps (steps mod 64), words
inline constexpr int kLRing = 32;         // loader ring: groups of 16 words from the previous strip
inline constexpr int kStageBytesPerWarp = 3 * 2 * 32 * 16;  // input staging: 3 slots x 32 bytes per lane

/// Extra delay of the default shape: K = 3 for every kernel (the shuffle latency spreads over two steps).
__host__ __device__ constexpr int defaultExtra(int id) {
    const int k = minDelayOf(kernelDef(id));
    return k >= 3 ? 0 : 3 - k;
}

__host__ __device__ constexpr size_t sharedBytes(int nw, bool bin) {
    return size_t(nw) * 2 * 32 * kRingStride      // input + output rings
           + size_t(nw) * kStageBytesPerWarp      // input staging (cp.async)
           + 256 * 4                             // input table
           + size_t(nw) * 2 * kBRing * 4         // hand-off rings (row base-1, base-2)
           + kLRing * 16 * 4 + 16 * 4            // loader ring, prefill words
           + 16 * 4                              // control words
           + (bin ? 0 : 4096 * 4);               // level table
}

/// Weight of the tap (0, 1): the same-row neighbour just left, the only tap on the row's own chain.
__host__ __device__ constexpr int chainWeight(const KernelC& k) {
    for (int i = 0; i < k.n; ++i)
        if (k.t[i].di == 0 && k.t[i].dj == 1) return k.t[i].w;
    return 0;
}

template <int MG, int M1, int M2>
struct State {
    int e;
    int G[MG + 1];
    int H1[M1 + 1];
    int H2[M2 + 1];
};

/// One group of kG steps. bCur: lanes 0-7 hold the words (low 16 bits = error) of row base-1 at columns
/// g0 + K - 1 + u, lanes 8-15 those of row base-2 at g0 + 2K - 1 + u. inW: this lane's 8 input bytes.
template <int ID, int K, bool BIN, bool IDENT, bool MASK, class S>
__device__ __forceinline__ void runGroup(S& st, uint32_t bCur, uint2 inW, uint2& outW, int (&errOut)[kG], int g0,
                                         int lane, int Krho, int W, bool rowOk, const int32_t* sInput,
                                         const int32_t* sLevel, int threshold) {
    constexpr KernelC KD = kernelDef(ID);
    constexpr int MAXDI = maxDiOf(KD);
    constexpr int MG = maxDjOf(KD, 0) > 0 ? maxDjOf(KD, 0) : 1;
    constexpr int M1 = K + maxDjOf(KD, 1);
    constexpr int M2 = MAXDI >= 2 ? 2 * K + maxDjOf(KD, 2) : 1;
    constexpr int D = KD.D;
    constexpr int L2D = log2Exact(D);
    // weight of the same-row neighbour just left (the only tap on the row's own chain)
    constexpr int W01 = chainWeight(KD);

    int A[kG];
#pragma unroll
    for (int u = 0; u < kG; ++u) {
        const uint32_t w = u < 4 ? inW.x : inW.y;
        const int byte = int((w >> (8 * (u & 3))) & 0xffu);
        A[u] = IDENT ? byte << 4 : sInput[byte];
    }
    uint32_t lo = 0, hi = 0;
#pragma unroll
    for (int u = 0; u < kG; ++u) {
        const int bv1 = int(short(__shfl_sync(kFull, bCur, u) & 0xffffu));
        int bv2 = 0;
        if constexpr (MAXDI == 2) bv2 = int(short(__shfl_sync(kFull, bCur, 8 + u) & 0xffffu));
        const int r1 = __shfl_sync(kFull, st.e, (lane + 31) & 31);
        int r2 = 0;
        if constexpr (MAXDI == 2) r2 = __shfl_sync(kFull, st.e, (lane + 30) & 31);
#pragma unroll
        for (int m = M1; m >= 2; --m) st.H1[m] = st.H1[m - 1];
        st.H1[1] = lane == 0 ? bv1 : r1;
        if constexpr (MAXDI == 2) {
#pragma unroll
            for (int m = M2; m >= 2; --m) st.H2[m] = st.H2[m - 1];
            st.H2[1] = lane == 0 ? bv2 : (lane == 1 ? bv1 : r2);
        }
#pragma unroll
        for (int m = MG; m >= 2; --m) st.G[m] = st.G[m - 1];
        st.G[1] = st.e;

        // everything but the row's own chain first, the chain's tap last
        int pre = L2D >= 0 ? D / 2 : 0;
#pragma unroll
        for (int k = 0; k < KD.n; ++k) {
            const TapC tp = KD.t[k];
            if (tp.di == 0 && tp.dj == 1) continue;
            if (tp.di == 0) pre += tp.w * st.G[tp.dj];
            else if (tp.di == 1) pre += tp.w * st.H1[K + tp.dj];
            else pre += tp.w * st.H2[2 * K + tp.dj];
        }
        const int acc = pre + W01 * st.G[1];
        int share;
        if constexpr (L2D >= 0) share = acc >> L2D;
        else share = roundedShare<D>(acc);
        const int Sv = A[u] + share;
        int err, v;
        if constexpr (BIN) {
            const bool one = Sv > threshold;
            err = one ? Sv - 4080 : Sv;
            v = one ? 255 : 0;
        } else {
            const int p = lookupLevel(Sv, sLevel);
            err = Sv - (p & 0xffff);
            v = p >> 16;
        }
        if constexpr (MASK) {
            const bool valid = rowOk && unsigned(g0 + u - Krho) < unsigned(W);
            st.e = valid ? err : 0;
        } else {
            st.e = err;
        }
        errOut[u] = st.e;
        if (u < 4) lo |= uint32_t(v) << (8 * u);
        else hi |= uint32_t(v) << (8 * (u - 4));
    }
    outW = make_uint2(lo, hi);
}

__device__ __forceinline__ void cpAsync16(void* smemDst, const void* gsrc) {
    const unsigned d = unsigned(__cvta_generic_to_shared(smemDst));
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16;" ::"r"(d), "l"(gsrc) : "memory");
}
__device__ __forceinline__ void cpAsyncCommit() { asm volatile("cp.async.commit_group;" ::: "memory"); }
template <int N>
__device__ __forceinline__ void cpAsyncWait() {
    asm volatile("cp.async.wait_group %0;" ::"n"(N) : "memory");
}
/// Barrier 1 among the compute warps only (the loader warp runs free), with an OR over their predicates.
__device__ __forceinline__ int computeBarrierOr(int pred, int threads) {
    int r;
    asm volatile(
        "{\n\t.reg .pred p, q;\n\tsetp.ne.s32 p, %1, 0;\n\tbarrier.red.or.pred q, 1, %2, p;\n\tselp.s32 %0, 1, 0, q;\n\t}"
        : "=r"(r)
        : "r"(pred), "r"(threads)
        : "memory");
    return r;
}

// control words in shared memory
inline constexpr int kCtlStrip = 0, kCtlLoaded = 1, kCtlConsumed = 2, kCtlAbort = 3, kCtlDone = 4;

template <int ID, int EXTRA, int NW, bool BIN, bool IDENT>
__global__ void __launch_bounds__((NW + 1) * 32, 1) ctaKernel(WavefrontArgs a) {
    constexpr KernelC KD = kernelDef(ID);
    constexpr int K = minDelayOf(KD) + EXTRA;
    constexpr int MAXDI = maxDiOf(KD);
    constexpr int MG = maxDjOf(KD, 0) > 0 ? maxDjOf(KD, 0) : 1;
    constexpr int M1 = K + maxDjOf(KD, 1);
    constexpr int M2 = MAXDI >= 2 ? 2 * K + maxDjOf(KD, 2) : 1;
    constexpr int ROWS = 32 * NW;
    constexpr int DELTA = 32 * K + kG;
    constexpr int DG = DELTA / kG;
    constexpr int COMPUTE_THREADS = NW * 32;
    static_assert(DELTA % kG == 0, "warp offset is a whole number of groups");
    static_assert(MAXDI >= 1 && MAXDI <= 2, "kernels reach one or two rows down");
    static_assert(2 * K - 2 < 8, "the prefill reads at most 8 words per row");
    static_assert(K * 31 + 8 < kBoundarySlack, "boundary words are indexed by step: the stride has slack for it");

    extern __shared__ __align__(16) unsigned char smem[];
    unsigned char* rings = smem;                                            // [NW][in/out][32][kRingStride]
    unsigned char* stage = rings + size_t(NW) * 2 * 32 * kRingStride;       // [NW][3 slots][2 halves][32][16]
    int32_t* sInput = reinterpret_cast<int32_t*>(stage + size_t(NW) * kStageBytesPerWarp);
    uint32_t* sB1 = reinterpret_cast<uint32_t*>(sInput + 256);              // [NW][kBRing], written by warp - 1
    uint32_t* sB2 = sB1 + NW * kBRing;
    uint32_t* lring = sB2 + NW * kBRing;                                    // [kLRing][16] from the loader
    uint32_t* sPre = lring + kLRing * 16;                                   // [16] prefill words from the loader
    volatile int* ctl = reinterpret_cast<volatile int*>(sPre + 16);         // [16]
    int32_t* sLevel = reinterpret_cast<int32_t*>(const_cast<int*>(ctl) + 16);

    const int lane = threadIdx.x & 31;
    const int warp = threadIdx.x >> 5;
    const bool loader = warp == NW;

    if constexpr (!BIN)
        for (int k = threadIdx.x; k < kLevelTableSize; k += blockDim.x) sLevel[k] = a.q.level[k];
    for (int k = threadIdx.x; k < 256; k += blockDim.x) sInput[k] = a.q.input[k];

    const int W = a.width, H = a.height;
    const int strips = (H + ROWS - 1) / ROWS;
    const uint32_t epochTag = a.epoch << 16;
    const int lastChunk = (W - 1) / kChunk;
    const int tEnd = ((lastChunk + 1) * kChunk + K * 31 + kChunk - 1) / kChunk * kChunk;
    const int nGroups = tEnd / kG;
    const int totalGroups = nGroups + (NW - 1) * DG;
    const int Krho = K * lane;
    const int sh = (Krho & 3) * 8;  // funnel shift (bits) between aligned chunks and this row's skewed ring

    for (;;) {
        if (threadIdx.x == 0) {
            ctl[kCtlStrip] = atomicAdd(a.stripCounter, 1);
            ctl[kCtlLoaded] = -1;
            ctl[kCtlConsumed] = 0;
            ctl[kCtlAbort] = 0;
            ctl[kCtlDone] = 0;
        }
        __syncthreads();
        const int s = ctl[kCtlStrip];
        if (s >= strips) break;
        const int base = s * ROWS;
        if (a.trace && threadIdx.x == 0) {
            unsigned long long t;
            asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
            a.trace[4 * s] = t;
            a.trace[4 * s + 2] = clock64();
        }
        if (a.bandReady) {  // overlapped path: wait for this strip's input band
            int ab = 0;
            if (threadIdx.x == 0) {
                const int band = base / a.bandRows;
                int spins = 0;
                while (*reinterpret_cast<const volatile int*>(a.bandReady + band) != int(a.epoch)) {
                    if (++spins > 64) {
                        spins = 0;
                        if (*reinterpret_cast<volatile int*>(a.abortFlag)) {
                            ab = 1;
                            break;
                        }
                    }
                    __nanosleep(256);
                }
            }
            if (__syncthreads_or(ab)) return;
        }
        const bool hasPrev = s > 0;
        const uint32_t* prevB1 = a.boundary + size_t(hasPrev ? s - 1 : 0) * 2 * a.boundaryStride;
        const uint32_t* prevB2 = prevB1 + a.boundaryStride;

        if (loader) {
            // The loader warp: polls the previous strip's tagged words in L2 and copies them, group by group and
            // in order, into a shared ring for warp 0 (the compute warps never wait on L2); polls the cancel flag.
            auto word = [&](int gidx, int wi) -> uint32_t {  // word wi (0-15) of group gidx (-1 = prefill)
                int col;
                const uint32_t* src;
                int off;
                if (wi < 8) {
                    col = gidx < 0 ? wi : gidx * kG + K - 1 + wi;
                    src = prevB1;
                    off = 31 * K;
                } else if (MAXDI == 2) {
                    col = gidx < 0 ? wi - 8 : gidx * kG + 2 * K - 1 + wi - 8;
                    src = prevB2;
                    off = 30 * K;
                } else {
                    return epochTag;
                }
                if (col >= W || gidx >= nGroups) return epochTag;
                return __ldcg(src + col + off);
            };
            bool stop = false;
            int polls = 0;
            auto pollAbort = [&]() {
                if (++polls < 16) return;
                polls = 0;
                int ab = 0;
                if (lane == 0) ab = *reinterpret_cast<volatile int*>(a.abortFlag) | ctl[kCtlAbort];
                if (__shfl_sync(kFull, ab, 0)) {
                    if (lane == 0) ctl[kCtlAbort] = 1;
                    stop = true;
                }
            };
            if (hasPrev) {
                for (;;) {  // prefill words: columns 0-7 of the rows above
                    const uint32_t w = lane < 16 ? word(-1, lane) : epochTag;
                    if (__all_sync(kFull, (w & 0xffff0000u) == epochTag)) {
                        if (lane < 16) sPre[lane] = w;
                        __syncwarp();
                        __threadfence_block();
                        if (lane == 0) ctl[kCtlLoaded] = 0;
                        break;
                    }
                    pollAbort();
                    if (stop) break;
                }
                int next = 0;
                while (!stop && next < nGroups) {
                    // room in the ring for 8 more groups?
                    if (next + 8 > ctl[kCtlConsumed] + kLRing) {
                        __nanosleep(64);
                        pollAbort();
                        continue;
                    }
                    const int b = lane >> 4, wi = lane & 15;
                    uint32_t w[4];
#pragma unroll
                    for (int i = 0; i < 4; ++i) w[i] = word(next + 2 * i + b, wi);
                    int k = 0;  // leading groups whose 16 words all carry this launch's tag
#pragma unroll
                    for (int i = 0; i < 4; ++i) {
                        const unsigned ok = __ballot_sync(kFull, (w[i] & 0xffff0000u) == epochTag);
                        if (k == 2 * i && (ok & 0xffffu) == 0xffffu) ++k;
                        if (k == 2 * i + 1 && ok == kFull) ++k;
                    }
                    if (k > 0) {
#pragma unroll
                        for (int i = 0; i < 4; ++i)
                            if (2 * i + b < k) lring[((next + 2 * i + b) & (kLRing - 1)) * 16 + wi] = w[i];
                        __syncwarp();
                        __threadfence_block();
                        next += k;
                        if (lane == 0) ctl[kCtlLoaded] = next;
                    } else {
                        pollAbort();
                    }
                }
            }
            // until the compute warps are done: forward a cancel request
            while (!stop && !ctl[kCtlDone]) {
                __nanosleep(500);
                polls = 15;
                pollAbort();
            }
            if (ctl[kCtlAbort]) return;
        } else {
            const int row = base + 32 * warp + lane;
            const bool rowOk = row < H;
            const bool warpFull = base + 32 * warp + 31 < H;
            const unsigned char* inRow = a.in + size_t(rowOk ? row : 0) * a.pitch;
            unsigned char* outRow = a.out + size_t(rowOk ? row : 0) * a.outPitch;
            const bool publish = s + 1 < strips && warp == NW - 1;
            uint32_t* myB1 = a.boundary + size_t(s) * 2 * a.boundaryStride;
            uint32_t* myB2 = myB1 + a.boundaryStride;
            uint32_t* inB1 = sB1 + warp * kBRing;  // written by warp - 1
            uint32_t* inB2 = sB2 + warp * kBRing;
            uint32_t* outB1 = sB1 + (warp + 1 < NW ? warp + 1 : 0) * kBRing;
            uint32_t* outB2 = sB2 + (warp + 1 < NW ? warp + 1 : 0) * kBRing;
            unsigned char* myIn = rings + (size_t(warp) * 2 * 32 + lane) * kRingStride;
            unsigned char* myOut = rings + (size_t(warp) * 2 * 32 + 32 + lane) * kRingStride;
            uint32_t* myInW = reinterpret_cast<uint32_t*>(myIn);
            uint32_t* myOutW = reinterpret_cast<uint32_t*>(myOut);
            unsigned char* myStage = stage + size_t(warp) * kStageBytesPerWarp + lane * 16;

            State<MG, M1, M2> st;
            st.e = 0;
#pragma unroll
            for (int m = 0; m <= MG; ++m) st.G[m] = 0;
#pragma unroll
            for (int m = 0; m <= M1; ++m) st.H1[m] = 0;
#pragma unroll
            for (int m = 0; m <= M2; ++m) st.H2[m] = 0;

            // Input: aligned 32-byte chunks go global -> stage slot (cp.async, two chunks ahead, no registers held
            // in flight) -> skewed ring (funnel shift by this row's skew). Refill k writes chunk cFirst + k.
            const int cFirst = (31 - Krho) >> 5;  // the chunk that holds column 31 - K rho (the first window's last)
            auto issue = [&](int c, int slot) {
                if (rowOk && c >= 0 && c * kChunk < W) {
                    cpAsync16(myStage + slot * 1024, inRow + c * kChunk);
                    cpAsync16(myStage + slot * 1024 + 512, inRow + c * kChunk + 16);
                }
                cpAsyncCommit();
            };
            issue(cFirst, 0);
            issue(cFirst + 1, 1);
            uint32_t prev7 = 0;
            auto refill = [&](int k) {
                const int c = cFirst + k;
                const int slot = k % 3;
                cpAsyncWait<1>();
                const uint4 lo = *reinterpret_cast<const uint4*>(myStage + slot * 1024);
                const uint4 hi = *reinterpret_cast<const uint4*>(myStage + slot * 1024 + 512);
                const int dw = ((c * kChunk + Krho) & 127) >> 2;
                const uint32_t w[9] = {lo.x, lo.y, lo.z, lo.w, hi.x, hi.y, hi.z, hi.w, 0u};
                uint32_t lastOld = prev7;
#pragma unroll
                for (int m = 0; m < 9; ++m) {
                    myInW[(dw + m) & 31] = __funnelshift_l(lastOld, w[m], sh);
                    lastOld = w[m];
                }
                prev7 = hi.w;
                issue(c + 2, (k + 2) % 3);
            };
            // flush after steps [T, T + 32): the column chunk floor((T - K rho) / 32) is complete
            auto flush = [&](int T) {
                const int c = (T - Krho) >> 5;
                if (rowOk && c >= 0 && c * kChunk < W) {
                    const int dw = ((c * kChunk + Krho) & 127) >> 2;
                    uint32_t r[9];
#pragma unroll
                    for (int m = 0; m < 9; ++m) r[m] = myOutW[(dw + m) & 31];
                    uint32_t o[8];
#pragma unroll
                    for (int m = 0; m < 8; ++m) o[m] = __funnelshift_r(r[m], r[m + 1], sh);
                    uint4* d = reinterpret_cast<uint4*>(outRow + c * kChunk);
                    d[0] = make_uint4(o[0], o[1], o[2], o[3]);
                    d[1] = make_uint4(o[4], o[5], o[6], o[7]);
                }
            };
            // the words of the warp above in this block (shared ring, complete since the last barrier)
            auto sharedWords = [&](int g0) -> uint32_t {
                int col;
                if (lane < 8) {
                    col = g0 + K - 1 + lane;
                    if (col >= W) return 0u;
                    return inB1[(col + 31 * K) & (kBRing - 1)];
                }
                if (MAXDI == 2 && lane < 16) {
                    col = g0 + 2 * K - 1 + lane - 8;
                    if (col >= W) return 0u;
                    return inB2[(col + 30 * K) & (kBRing - 1)];
                }
                return 0u;
            };
            // warp 0: waits until the loader has published `need` groups (-1 waits for the prefill)
            int seen = -1;
            auto waitLoaded = [&](int need) -> bool {
                while (seen < need) {
                    const int v = __shfl_sync(kFull, ctl[kCtlLoaded], 0);
                    if (v >= need) {
                        seen = v;
                        __threadfence_block();
                        break;
                    }
                    if (__shfl_sync(kFull, ctl[kCtlAbort], 0)) return false;
                }
                return true;
            };

            uint2 inNext = make_uint2(0, 0);
            int abortLocal = 0;
            for (int gam = 0; gam < totalGroups; ++gam) {
                const int g = gam - warp * DG;
                const int abortSeen = ctl[kCtlAbort];
                if (g >= 0 && g < nGroups && !abortLocal) {
                    const int g0 = g * kG;
                    bool ok = true;
                    if (g == 0) {
                        // prefill: the rows above processed their first columns "before step 0"
                        if (warp > 0 || hasPrev) {
                            uint32_t w = epochTag;
                            if (warp > 0) {
                                if (lane < 8) w = lane < W ? inB1[(lane + 31 * K) & (kBRing - 1)] : 0u;
                                else if (MAXDI == 2 && lane < 16) w = lane - 8 < W ? inB2[(lane - 8 + 30 * K) & (kBRing - 1)] : 0u;
                            } else {
                                ok = waitLoaded(0);
                                if (ok && lane < 16) w = sPre[lane];
                            }
                            if (ok) {
#pragma unroll
                                for (int m = 1; m <= M1; ++m) {
                                    const int col = K - 1 - m;
                                    const int v = col >= 0 ? int(short(__shfl_sync(kFull, w, col >= 0 ? col : 0) & 0xffffu)) : 0;
                                    if (lane == 0) st.H1[m] = v;
                                }
                                if constexpr (MAXDI == 2) {
#pragma unroll
                                    for (int m = 1; m <= M2; ++m) {
                                        const int col2 = 2 * K - 1 - m;
                                        const int v2 = col2 >= 0 ? int(short(__shfl_sync(kFull, w, 8 + (col2 >= 0 ? col2 : 0)) & 0xffffu)) : 0;
                                        const int col1 = K - 1 - m;
                                        const int v1 = col1 >= 0 ? int(short(__shfl_sync(kFull, w, col1 >= 0 ? col1 : 0) & 0xffffu)) : 0;
                                        if (lane == 0) st.H2[m] = v2;
                                        if (lane == 1) st.H2[m] = v1;
                                    }
                                }
                            }
                        }
                        if (ok) {
                            refill(0);  // chunk cFirst: the window of steps [0, 32)
                            inNext = *reinterpret_cast<const uint2*>(myIn);  // step 0's bytes
                        }
                    }
                    if (ok && (g & 3) == 0) refill(g / 4 + 1);  // the window of steps [g0 + 32, g0 + 64)
                    uint32_t bCur = 0;
                    if (ok) {
                        if (warp == 0) {
                            if (hasPrev) {
                                ok = waitLoaded(g + 1);
                                bCur = lane < 16 ? lring[(g & (kLRing - 1)) * 16 + lane] : epochTag;
                            } else {
                                bCur = epochTag;
                            }
                        } else {
                            bCur = sharedWords(g0);
                        }
                    }
                    if (ok) {
                        const uint2 inCur = inNext;
                        inNext = *reinterpret_cast<const uint2*>(myIn + ((g0 + kG) & 127));
                        uint2 outW;
                        int errOut[kG];
                        const bool full = warpFull && g0 - 31 * K >= 0 && g0 + kG - 1 < W;
                        if (full)
                            runGroup<ID, K, BIN, IDENT, false>(st, bCur, inCur, outW, errOut, g0, lane, Krho, W, rowOk,
                                                               sInput, sLevel, a.threshold);
                        else
                            runGroup<ID, K, BIN, IDENT, true>(st, bCur, inCur, outW, errOut, g0, lane, Krho, W, rowOk,
                                                              sInput, sLevel, a.threshold);
                        *reinterpret_cast<uint2*>(myOut + (g0 & 127)) = outW;
                        if (warp == 0 && lane == 0) ctl[kCtlConsumed] = g + 1;
                        // hand the last rows' errors on: to the next warp (shared ring) or the next strip (L2)
                        if (warp + 1 < NW) {
                            if (lane == 31 || (MAXDI == 2 && lane == 30)) {
                                uint32_t* dst = (lane == 31 ? outB1 : outB2) + (g0 & (kBRing - 1));
                                reinterpret_cast<uint4*>(dst)[0] = make_uint4(uint32_t(errOut[0]) & 0xffffu, uint32_t(errOut[1]) & 0xffffu,
                                                                              uint32_t(errOut[2]) & 0xffffu, uint32_t(errOut[3]) & 0xffffu);
                                reinterpret_cast<uint4*>(dst)[1] = make_uint4(uint32_t(errOut[4]) & 0xffffu, uint32_t(errOut[5]) & 0xffffu,
                                                                              uint32_t(errOut[6]) & 0xffffu, uint32_t(errOut[7]) & 0xffffu);
                            }
                        } else if (publish) {
                            if (lane == 31 || (MAXDI == 2 && lane == 30)) {
                                uint32_t* dst = (lane == 31 ? myB1 : myB2) + g0;
                                __stcg(reinterpret_cast<uint4*>(dst),
                                       make_uint4(epochTag | (uint32_t(errOut[0]) & 0xffffu), epochTag | (uint32_t(errOut[1]) & 0xffffu),
                                                  epochTag | (uint32_t(errOut[2]) & 0xffffu), epochTag | (uint32_t(errOut[3]) & 0xffffu)));
                                __stcg(reinterpret_cast<uint4*>(dst) + 1,
                                       make_uint4(epochTag | (uint32_t(errOut[4]) & 0xffffu), epochTag | (uint32_t(errOut[5]) & 0xffffu),
                                                  epochTag | (uint32_t(errOut[6]) & 0xffffu), epochTag | (uint32_t(errOut[7]) & 0xffffu)));
                            }
                        }
                        if ((g & 3) == 3) flush(g0 - 3 * kG);
                    }
                    if (!ok) abortLocal = 1;
                }
                if (computeBarrierOr(abortLocal | abortSeen, COMPUTE_THREADS)) {
                    cpAsyncWait<0>();
                    if (threadIdx.x == 0) {
                        ctl[kCtlAbort] = 1;
                        atomicExch(a.abortFlag, 1);
                    }
                    return;
                }
            }
            cpAsyncWait<0>();  // no copy of this strip may land in a slot of the next
            if (threadIdx.x == 0) ctl[kCtlDone] = 1;
        }
        __syncthreads();
        if (a.stripDone) {
            __threadfence_system();  // this strip's output stores before its done flag
            __syncthreads();
            if (threadIdx.x == 0) a.stripDone[s] = int(a.epoch);
        }
        if (threadIdx.x == 0) {
            if (a.rowsDone) *a.rowsDone = min(H, base + ROWS);
            if (a.trace) {
                unsigned long long t;
                asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
                a.trace[4 * s + 1] = t;
                a.trace[4 * s + 3] = clock64();
            }
        }
        __syncthreads();  // everyone has read ctl before thread 0 resets it for the next strip
    }
}

}  // namespace halftone::gpu::cta

namespace halftone::gpu::cta {
using CtaFn = void (*)(WavefrontArgs);
/// Binary Floyd-Steinberg with the identity input table: extra delay 0..2, 4 or 8 warps (wavefront_cta_fs.cu).
CtaFn fsTuning(int extra, int warps);
/// The default shape (extra = defaultExtra(id), 4 warps) of kernels 0-3 / 4-7 (wavefront_cta_k03.cu, _k47.cu).
CtaFn defaultShape03(int id, bool bin, bool ident);
CtaFn defaultShape47(int id, bool bin, bool ident);
}  // namespace halftone::gpu::cta
