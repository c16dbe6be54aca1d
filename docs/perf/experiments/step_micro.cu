// Micro-benchmark (session 24; docs/perf/gpu-ed.md "Session 24"): how many cycles one wavefront step of the fast form
// takes when ptxas has a clean loop, and what each part of the hand-off protocol adds to it.
// One warp per block (132 blocks, one per SM, all independent: no hand-off between them), each lane a row, K-column skew;
// the step is the fast form's arithmetic (G words, sum ordered by age, LEA.HI + IMAD.HI quantizer, output bit funnelled
// in). Timing only: the input is synthetic, the values are not checked. Prints cycles per step (clock64 around 512 chunks
// of 32 unrolled steps) as the min and max over the 132 blocks; PERSM=1 also prints each SM's value before the line.
//
//   nvcc -O3 -arch=sm_90 -o step_micro docs/perf/experiments/step_micro.cu && ./step_micro      (on the GPU machine)
//
// Stand-alone on purpose (one nvcc command, no project headers): mad, madHi, prmt and the cp.async helpers come from
// micro_helpers.cuh beside it, copies of gpu/wavefront_fast.cuh's (fastfs::), which live inside wavefront.cu's anonymous
// namespace.
//
// MODE bits (template argument): 1 a vote + branch on a global load every 16 steps (a poll, measured worst case);
// 2 lane 31 stores the boundary words, one STG.128 per 4 steps; 4 no shuffle (the row's own error instead: measurement
// only); 8 the tree's group start (cp.async copy of the next group's words 9 steps ahead, wait, LDS, vote, branch, 16
// broadcast shuffles); 16 the same with the branch at the group's end (speculative form; the redo path is a cold stand-in);
// 32 read and vote 2 steps before the group (copy 11 steps before the read); 128 no broadcast (measurement only); 256 lane
// 0 reads its word from shared memory in every step; 512 wait<1> instead of wait<0> (measurement only: the copy may pend);
// 1024 no end branch (measurement only); 2048 no read at all (measurement only); 4096 four one-address LDS.128 instead
// of the broadcast; 8192 the copy 14 steps before the read; 16384 the copy by lanes 0-4 into one contiguous area.
#include <cstdio>
#include <cstdlib>
#include <cstdint>
#include <cuda_runtime.h>

#include "micro_helpers.cuh"

// MODE bits: 1 = vote+branch check every 16 steps; 2 = lane-31 STG of 4 words every 4 steps; 4 = skip shuffle (own e)
template <int K, int MODE>
__global__ void micro(const uint32_t* in, uint32_t* out, long long* cyc, int chunks, int tag) {
    const int lane = threadIdx.x & 31;
    const unsigned kFull = 0xffffffffu;
    uint32_t win[8];
#pragma unroll
    for (int k = 0; k < 8; ++k) win[k] = in[lane * 8 + k];
    int e = tag + 2000, hist[K + 1];
#pragma unroll
    for (int m = 0; m <= K; ++m) hist[m] = tag + 2000;
    const int gOff = -16 * (tag + 2000) * 0 + 8;  // folded constant (value irrelevant for timing, same ops)
    const int w3 = lane == 0 ? 0 : 3, w0 = lane == 0 ? 3 : 0;
    uint32_t acc = 0, ob = 0;
    int bw = tag + 1000;
    uint32_t pw[4];
    uint4* pub = reinterpret_cast<uint4*>(out + 64 + blockIdx.x * 4096);
    const volatile uint32_t* flag = in + 4096;
    __shared__ uint32_t sB[32 * 4];
    __shared__ uint32_t sG[2][16];
    __shared__ __align__(16) uint32_t sC[20];
    uint32_t* bSlot = sB + threadIdx.x * 4;
    const uint32_t* prevB = in + 8192;  // zeroed: every word valid (tag 0)
    int bvs[16], bvsN[16];
#pragma unroll
    for (int i = 0; i < 16; ++i) bvs[i] = bvsN[i] = bw;
    bool okSpec = true;
    int bad = 0;
    if (MODE & 24) {
        cpAsync16(bSlot, prevB + ((lane & 15) & ~3), 16);
        cpAsyncCommit();
    }
    if (MODE & 256) {
        if (lane < 4) cpAsync16(&sG[0][lane * 4], prevB + 4 * lane, 16);
        cpAsyncCommit();
        cpAsyncWait<0>();
        __syncwarp();
    }
    long long t0 = clock64();
    for (int c = 0; c < chunks; ++c) {
#pragma unroll
        for (int u = 0; u < 32; ++u) {
            if ((MODE & 1) && u % 16 == 0) {
                uint32_t f = flag[(lane + c) & 15];
                if (!__all_sync(kFull, (f & 0xffff0000u) == 0)) {
                    do { f = flag[(lane + c + 1) & 15]; } while (!__all_sync(kFull, (f & 0xffff0000u) == 0));
                }
                bw += int(f);
            }
            if ((MODE & 32) && !(MODE & 2048) && u % 16 == 14) {  // early read: two steps before the group start
                if (MODE & 512) cpAsyncWait<1>(); else cpAsyncWait<0>();
                uint32_t w = bSlot[lane & 3];
                okSpec = __all_sync(kFull, (w & 0xffff0000u) == 0);
                if (MODE & 4096) {
#pragma unroll
                    for (int q = 0; q < 4; ++q) {
                        const uint4 v = *reinterpret_cast<const uint4*>(sB + 16 * q);
                        bvsN[4 * q] = int(v.x); bvsN[4 * q + 1] = int(v.y); bvsN[4 * q + 2] = int(v.z); bvsN[4 * q + 3] = int(v.w);
                    }
                } else if (!(MODE & 128)) {
#pragma unroll
                    for (int i = 0; i < 16; ++i) bvsN[i] = __shfl_sync(kFull, int(w), i);
                } else {
                    bvsN[0] = int(w);
                }
            }
            if ((MODE & 32) && u % 16 == 0) {
#pragma unroll
                for (int i = 0; i < 16; ++i) bvs[i] = bvsN[i];
            }
            if ((MODE & 32) && u % 16 == ((MODE & 8192) ? 0 : 3)) {
                cpAsync16(bSlot, prevB + (((lane & 15) + 16 * (c + 1)) & ~3 & 4095), 16);
                cpAsyncCommit();
            }
            if (!(MODE & 288) && (MODE & 24) && u % 16 == 0) {
                cpAsyncWait<0>();
                uint32_t w = (MODE & 16384) ? sC[1 + (lane & 15)] : bSlot[lane & 3];
                const bool ok = __all_sync(kFull, (w & 0xffff0000u) == 0);
                if (MODE & 8) {
                    if (!ok) {
                        do { w = __ldcg(prevB + (lane & 15) + c); } while (!__all_sync(kFull, (w & 0xffff0000u) == 0));
                    }
                } else {
                    okSpec = ok;
                }
                if (!(MODE & 128)) {
#pragma unroll
                    for (int i = 0; i < 16; ++i) bvs[i] = __shfl_sync(kFull, int(w), i);
                } else {
                    bvs[0] = int(w);
                }
            }
            if (!(MODE & 288) && (MODE & 24) && u % 16 == 7) {
                if (MODE & 16384) {
                    if (lane < 5) cpAsync16(sC + 4 * lane, prevB + ((16 * (c + 1) + 4 * lane) & 4095), 16);
                } else {
                    cpAsync16(bSlot, prevB + (((lane & 15) + 16 * (c + 1)) & ~3 & 4095), 16);
                }
                cpAsyncCommit();
            }
            if ((MODE & 256) && u % 16 == 14) {  // the next group: wait, vote (no branch here)
                cpAsyncWait<0>();
                const uint32_t w = sG[((u + 2) >> 4) & 1][lane & 15];
                okSpec = __all_sync(kFull, (w & 0xffff0000u) == 0);
            }
            if ((MODE & 256) && u % 16 == 3) {
                if (lane < 4) cpAsync16(&sG[((u + 13) >> 4) & 1][lane * 4], prevB + ((16 * (c + 1) + 4 * lane) & 4095), 16);
                cpAsyncCommit();
            }
            if (MODE & 256) bvs[u % 16] = int(sG[(u >> 4) & 1][u & 15]);
            int x, y;
            const int term = int(prmt(win[(u >> 2) & 7], 0u, 0x4404u | ((u & 3) << 4)));
            if (K == 2) {
                const int xs = (MODE & 4) ? e : __shfl_up_sync(kFull, e, 1);
#pragma unroll
                for (int m = K; m >= 1; --m) hist[m] = hist[m - 1];
                hist[0] = lane == 0 ? ((MODE & 24) ? bvs[u % 16] : bw) : xs;
                const int older = 5 * hist[1] + hist[2] + term + gOff;
                const int withB = mad((MODE & 24) ? bvs[u % 16] : bw, w0, older);
                y = mad(xs, w3, mad(e, 7, withB));
            } else {
                x = (MODE & 4) ? e : __shfl_sync(kFull, lane == 31 ? ((MODE & 24) ? bvs[u % 16] : bw) : e, (lane + 31) & 31);
#pragma unroll
                for (int m = K; m >= 1; --m) hist[m] = hist[m - 1];
                hist[0] = x;
                const int older = 5 * hist[K - 1] + hist[K] + term + gOff;
                const int rest = mad(hist[K - 2], 3, older);
                y = mad(e, 7, rest);
            }
            e = madHi(y, 4081u, (y >> 4) + tag);
            ob = __funnelshift_l(uint32_t(y), ob, 1);
            if ((MODE & 16) && !(MODE & 1024) && u % 16 == 15) {
                if (!okSpec) {  // cold: the redo path stand-in (never taken here)
                    bad += 1;
                    do { bw = int(__ldcg(prevB + (lane & 15) + c)); } while (!__all_sync(kFull, (bw & 0xffff0000) == 0));
                    e = bw;
                }
            }
            if (MODE & 2) {
                pw[u & 3] = uint32_t(e);
                if ((u & 3) == 3) __stcg(pub + (c * 8 + (u >> 2)) % 1024, make_uint4(pw[0], pw[1], pw[2], pw[3]));
            }
        }
        acc += ob;
#pragma unroll
        for (int k = 0; k < 8; ++k) win[k] = win[k] * 1664525u + 1013904223u;  // new input per chunk (cheap)
    }
    long long t1 = clock64();
    out[blockIdx.x * 32 + lane] = acc + uint32_t(e) + bad;
    unsigned sm;
    asm("mov.u32 %0, %%smid;" : "=r"(sm));
    if (lane == 0) { cyc[blockIdx.x] = t1 - t0; cyc[132 + blockIdx.x] = sm; }
}

template <int K, int MODE>
void run(const char* name, const uint32_t* in, uint32_t* out, long long* cyc, int chunks) {
    micro<K, MODE><<<132, 32>>>(in, out, cyc, chunks, 0);
    micro<K, MODE><<<132, 32>>>(in, out, cyc, chunks, 0);
    cudaDeviceSynchronize();
    long long h[264];
    cudaMemcpy(h, cyc, sizeof h, cudaMemcpyDeviceToHost);
    long long mn = h[0], mx = h[0];
    for (int b = 0; b < 132; ++b) { long long v = h[b]; mn = v < mn ? v : mn; mx = v > mx ? v : mx; }
    if (getenv("PERSM")) {
        double bySm[132] = {0};
        for (int b = 0; b < 132; ++b) bySm[h[132 + b] % 132] = double(h[b]) / (32.0 * chunks);
        std::printf("  per SM:");
        for (int s = 0; s < 132; ++s) std::printf(" %.1f", bySm[s]);
        std::printf("\n");
    }
    std::printf("%-28s K=%d  cycles/step min %.2f max %.2f  (%s)\n", name, K, double(mn) / (32.0 * chunks),
                double(mx) / (32.0 * chunks), cudaGetErrorString(cudaGetLastError()));
}

int main() {
    uint32_t *in, *out;
    long long* cyc;
    cudaMalloc(&in, 16384 * 4);
    cudaMemset(in, 0, 16384 * 4);
    cudaMalloc(&out, (64 + 132 * 4096 + 4096) * 16);
    cudaMalloc(&cyc, 264 * 8);
    const int chunks = 512;
    run<2, 0>("chain only", in, out, cyc, chunks);
    run<3, 0>("chain only", in, out, cyc, chunks);
    run<4, 0>("chain only", in, out, cyc, chunks);
    run<2, 4>("no shuffle", in, out, cyc, chunks);
    run<3, 4>("no shuffle", in, out, cyc, chunks);
    run<2, 1>("check/16", in, out, cyc, chunks);
    run<3, 1>("check/16", in, out, cyc, chunks);
    run<2, 2>("stg/4", in, out, cyc, chunks);
    run<3, 2>("stg/4", in, out, cyc, chunks);
    run<2, 3>("check+stg", in, out, cyc, chunks);
    run<3, 3>("check+stg", in, out, cyc, chunks);
    run<2, 10>("copy-check+stg", in, out, cyc, chunks);
    run<3, 10>("copy-check+stg", in, out, cyc, chunks);
    run<2, 18>("spec-check+stg", in, out, cyc, chunks);
    run<3, 18>("spec-check+stg", in, out, cyc, chunks);
    run<2, 50>("spec-early+stg", in, out, cyc, chunks);
    run<3, 50>("spec-early+stg", in, out, cyc, chunks);
    run<2, 138>("copy-check nobcast", in, out, cyc, chunks);
    run<2, 178>("spec-early nobcast", in, out, cyc, chunks);
    run<2, 274>("spec-lds/step+stg", in, out, cyc, chunks);
    run<2, 10 + 16384>("copy-check+stg contiguous", in, out, cyc, chunks);
    run<3, 10 + 16384>("copy-check+stg contiguous", in, out, cyc, chunks);
    run<2, 50 + 4096>("E: spec-early lds128", in, out, cyc, chunks);
    run<2, 50 + 4096 + 512>("F: E + wait<1>", in, out, cyc, chunks);
    run<3, 50 + 4096>("E: spec-early lds128", in, out, cyc, chunks);
    run<2, 50 + 4096 + 8192>("G: E, copy at 0", in, out, cyc, chunks);
    run<2, 50 + 8192>("H: spec-early bcast, copy at 0", in, out, cyc, chunks);
    run<2, 178 + 512>("A: +wait<1>", in, out, cyc, chunks);
    run<2, 178 + 1024>("B: +no end branch", in, out, cyc, chunks);
    run<2, 178 + 1536>("C: A+B", in, out, cyc, chunks);
    run<2, 178 + 2048 + 1024>("D: copies only", in, out, cyc, chunks);
    run<3, 178 + 1536>("C: A+B", in, out, cyc, chunks);
    run<3, 178 + 2048 + 1024>("D: copies only", in, out, cyc, chunks);
    run<3, 274>("spec-lds/step+stg", in, out, cyc, chunks);
    return 0;
}
