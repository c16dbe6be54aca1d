// Micro-benchmark (session 27; docs/perf/gpu-ed.md "Session 27"): the step of the fast form with one and with two rows per
// lane (shapes f0 and p0, K = 2) in a clean loop, and what the hand-off protocol and the chunk's input and output add to it.
// Same frame as step_micro.cu (session 24): 132 independent warps, one per SM, never waiting for another warp; cycles by
// clock64 around 512 chunks of 32 unrolled steps; min and max over the 132 blocks.
//
//   nvcc -O3 -arch=sm_90 -o p2_micro docs/perf/experiments/p2_micro.cu && ./p2_micro      (on the GPU machine)
//
// Stand-alone on purpose (one nvcc command): mad, madHi, prmt and the cp.async helpers come from micro_helpers.cuh beside
// it (shared with step_micro.cu); expandNibble below is a copy of gpu/wavefront_fast.cuh's.
//
// MODE bits: 2 lane 31 stores its last row's words (one predicated STG.128 per 4 steps, as in the kernel); 8 the tree's group
// start every 16 steps (cp.async copy of the next group's words 9 steps ahead, wait, LDS, vote, branch, 16 broadcast
// shuffles); 16 the same with the vote and its branch at the group's last step (speculative form; the redo path is a cold
// stand-in, never taken); 64 the chunk's input and output as in the kernel (input: cp.async of each row's next 32-byte block
// at step 24, the next window's 9 words read from the ring at step 25, funnel-shifted at the chunk start; output: the chunk's
// bits realigned, expanded to 0/255 bytes and stored as 2 x 16 bytes per row).
// Row p of lane l is row P l + p of the strip (P rows per lane, as the kernel's p0): the lane's first row takes E(up, j + 1)
// from lane l - 1's last row through SHFL.UP (one step old), its other rows from the lane's previous row (a register, one
// step old), so the shuffle is on the chain once per P rows.
// Timing only: the input is synthetic and the values are not checked.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

#include "micro_helpers.cuh"

/// A predicated 16-byte st.global.cg (the kernel's lane-31 store compiles to a predicated STG; a plain `if` here became a
/// branch with a convergence barrier around it, +24 cycles per step)
__device__ __forceinline__ void stcgIf(bool p, uint4* dst, uint4 v) {
    asm volatile("{\n\t.reg .pred q;\n\tsetp.ne.u32 q, %0, 0;\n\t@q st.global.cg.v4.u32 [%1], {%2, %3, %4, %5};\n\t}" ::"r"(
                     unsigned(p)),
                 "l"(dst), "r"(v.x), "r"(v.y), "r"(v.z), "r"(v.w)
                 : "memory");
}
__device__ __forceinline__ uint32_t expandNibble(uint32_t nib) { return prmt(nib * 0x10204080u, 0u, 0xba98u); }

constexpr int kRingWords = 44;

template <int P, int MODE>
__global__ void __launch_bounds__(32, 1) micro(const uint32_t* in, const unsigned char* img, unsigned char* outImg, uint32_t* out,
                                              long long* cyc, int chunks, int tag) {
    constexpr bool kSpec = MODE & 16;
    constexpr bool kStg = MODE & 2, kGroup = (MODE & 8) || kSpec, kSeam = MODE & 64, kStgAll = MODE & 256, kStgArg = MODE & 128;
    const int lane = threadIdx.x & 31;
    // who stores: lane 31 (a compile-time lane test), lane 31 and a run-time argument (as the kernel's `producer`), or every
    // lane (one uniform address)
    const bool producer = kStgAll ? true : kStgArg ? (lane == 31 && chunks > tag) : lane == 31;
    const unsigned kFull = 0xffffffffu;
    __shared__ __align__(16) uint32_t sRing[32 * P * kRingWords];
    __shared__ __align__(16) uint32_t sB[32 * 4];
    uint32_t* bSlot = sB + lane * 4;
    const uint32_t* prevB = in + 8192;  // zeroed: every word valid (tag 0)
    uint32_t* ring[P];
    int rb8[P], rw[P], q[P];
#pragma unroll
    for (int p = 0; p < P; ++p) {
        ring[p] = sRing + (lane * P + p) * kRingWords;
        const int rho = P * lane + p;
        q[p] = (2 * rho + 31) >> 5;
        const int r = 32 * q[p] - 2 * rho;
        rb8[p] = (r & 3) * 8;
        rw[p] = r >> 2;
        for (int k = 0; k < kRingWords; ++k) ring[p][k] = in[(rho * 8 + k) & 4095];
    }
    __syncwarp();
    uint32_t win[P][9], inw[P][8];
#pragma unroll
    for (int p = 0; p < P; ++p) {
#pragma unroll
        for (int k = 0; k < 9; ++k) win[p][k] = in[(lane * 8 + p * 3 + k) & 4095];
#pragma unroll
        for (int k = 0; k < 8; ++k) inw[p][k] = win[p][k];
    }
    int e[P], hist[P][3];
#pragma unroll
    for (int p = 0; p < P; ++p) {
        e[p] = tag + 2000;
        hist[p][0] = hist[p][1] = hist[p][2] = tag + 2000;
    }
    const int gOff = 8;
    const int w3 = lane == 0 ? 0 : 3, w0 = lane == 0 ? 3 : 0;
    uint32_t acc = 0, ob[P], obPrev[P];
#pragma unroll
    for (int p = 0; p < P; ++p) ob[p] = obPrev[p] = 0;
    int bw = tag + 1000;
    uint32_t pw[4];
    uint4* pub = reinterpret_cast<uint4*>(out + 64 + blockIdx.x * 4096);
    int bvs[16];
#pragma unroll
    for (int i = 0; i < 16; ++i) bvs[i] = bw;
    if (kGroup) {
        cpAsync16(bSlot, prevB + ((lane & 15) & ~3), 16);
        cpAsyncCommit();
    }
    const unsigned char* inRow[P];
    unsigned char* outRow[P];
#pragma unroll
    for (int p = 0; p < P; ++p) {
        inRow[p] = img + size_t(blockIdx.x * 128 + P * lane + p) * 2048;
        outRow[p] = outImg + size_t(blockIdx.x * 128 + P * lane + p) * 2048;
    }
    bool okSpec = true;
    int bad = 0;
    long long t0 = clock64();
    for (int c = 0; c < chunks; ++c) {
        if (kSeam) {
#pragma unroll
            for (int p = 0; p < P; ++p)
#pragma unroll
                for (int k = 0; k < 8; ++k) inw[p][k] = __funnelshift_r(win[p][k], win[p][k + 1], rb8[p]);
        }
#pragma unroll
        for (int p = 0; p < P; ++p) ob[p] = 0;
#pragma unroll
        for (int u = 0; u < 32; ++u) {
            if (kGroup && u % 16 == 0) {
                cpAsyncWait<0>();
                uint32_t w = bSlot[lane & 3];
                if (kSpec) {
                    okSpec = (w & 0xffff0000u) == 0;  // voted at the group's end
                } else if (!__all_sync(kFull, (w & 0xffff0000u) == 0)) {
                    do { w = __ldcg(prevB + (lane & 15) + c); } while (!__all_sync(kFull, (w & 0xffff0000u) == 0));
                }
                bw = int(w);
#pragma unroll
                for (int i = 0; i < 16; ++i) bvs[i] = __shfl_sync(kFull, int(w), i);
            }
            if (kGroup && u % 16 == 7) {
                cpAsync16(bSlot, prevB + (((lane & 15) + 16 * (c + 1)) & ~3 & 4095), 16);
                cpAsyncCommit();
            }
            if (kSeam && u == 24) {  // input two chunks ahead
#pragma unroll
                for (int p = 0; p < P; ++p) {
                    const int B = (c + 3 - q[p]) & 63;
                    uint32_t* dst = ring[p] + ((c + 3) & 3) * 8;
                    cpAsync16(dst, inRow[p] + 32 * B, 16);
                    cpAsync16(dst + 4, inRow[p] + 32 * B + 16, 16);
                    if (((c + 3) & 3) == 0) {
                        cpAsync16(ring[p] + 32, inRow[p] + 32 * B, 16);
                        cpAsync16(ring[p] + 36, inRow[p] + 32 * B + 16, 16);
                    }
                }
                cpAsyncCommit();
            }
            if (kSeam && u == 25) {  // the next chunk's window
                cpAsyncWait<1>();
#pragma unroll
                for (int p = 0; p < P; ++p) {
                    const uint32_t* src = ring[p] + ((c + 1) & 3) * 8 + rw[p];
#pragma unroll
                    for (int k = 0; k < 9; ++k) win[p][k] = src[k];
                }
            }
            const int bnow = kGroup ? bvs[u % 16] : bw;
            // row 0 of the lane: E(up, j + 1) from lane - 1's last row (lane 0: the boundary word), one step old
            const int xs = __shfl_up_sync(kFull, e[P - 1], 1);
            int x[P];
            x[0] = lane == 0 ? bnow : xs;
#pragma unroll
            for (int p = 1; p < P; ++p) x[p] = e[p - 1];
#pragma unroll
            for (int p = 0; p < P; ++p) {
                hist[p][2] = hist[p][1];
                hist[p][1] = hist[p][0];
                hist[p][0] = x[p];
                const int term = int(prmt(kSeam ? inw[p][u >> 2] : win[p][(u >> 2) & 7], 0u, 0x4404u | ((u & 3) << 4)));
                const int older = 5 * hist[p][1] + hist[p][2] + term + gOff;
                int y;
                if (p == 0) {
                    const int withB = mad(bnow, w0, older);
                    y = mad(xs, w3, mad(e[p], 7, withB));
                } else {
                    y = mad(hist[p][0], 3, mad(e[p], 7, older));
                }
                e[p] = madHi(y, 4081u, (y >> 4) + tag);
                ob[p] = __funnelshift_l(uint32_t(y), ob[p], 1);
            }
            if (kSpec && u % 16 == 15 && !__all_sync(kFull, okSpec)) {  // cold: the redo path's stand-in (never taken here)
                bad += 1;
                do { bw = int(__ldcg(prevB + (lane & 15) + c)); } while (!__all_sync(kFull, (bw & 0xffff0000) == 0));
#pragma unroll
                for (int p = 0; p < P; ++p) e[p] = bw;
            }
            if (kStg) {
                pw[u & 3] = uint32_t(e[P - 1]);
                if ((u & 3) == 3) stcgIf(producer, pub + (c * 8 + (u >> 2)) % 1024, make_uint4(pw[0], pw[1], pw[2], pw[3]));
            }
        }
        if (kSeam) {
#pragma unroll
            for (int p = 0; p < P; ++p) {
                const uint32_t o = ~__brev(ob[p]);
                const uint32_t bits = __funnelshift_rc(obPrev[p], o, (32 - 2 * (P * lane + p)) & 31);
                obPrev[p] = o;
                uint4* d = reinterpret_cast<uint4*>(outRow[p] + 32 * (c & 63));
                d[0] = make_uint4(expandNibble(bits & 15u), expandNibble((bits >> 4) & 15u), expandNibble((bits >> 8) & 15u),
                                  expandNibble((bits >> 12) & 15u));
                d[1] = make_uint4(expandNibble((bits >> 16) & 15u), expandNibble((bits >> 20) & 15u),
                                  expandNibble((bits >> 24) & 15u), expandNibble(bits >> 28));
            }
        } else {
#pragma unroll
            for (int p = 0; p < P; ++p) acc += ob[p];
#pragma unroll
            for (int p = 0; p < P; ++p)
#pragma unroll
                for (int k = 0; k < 8; ++k) win[p][k] = win[p][k] * 1664525u + 1013904223u;  // new input per chunk (cheap)
        }
    }
    long long t1 = clock64();
    cpAsyncWait<0>();
    uint32_t s = acc + bad;
#pragma unroll
    for (int p = 0; p < P; ++p) s += uint32_t(e[p]) + obPrev[p];
    out[blockIdx.x * 32 + lane] = s;
    if (lane == 0) cyc[blockIdx.x] = t1 - t0;
}

template <int P, int MODE>
void run(const char* name, const uint32_t* in, const unsigned char* img, unsigned char* outImg, uint32_t* out, long long* cyc,
         int chunks) {
    micro<P, MODE><<<132, 32>>>(in, img, outImg, out, cyc, chunks, 0);
    micro<P, MODE><<<132, 32>>>(in, img, outImg, out, cyc, chunks, 0);
    cudaDeviceSynchronize();
    long long h[132];
    cudaMemcpy(h, cyc, sizeof h, cudaMemcpyDeviceToHost);
    long long mn = h[0], mx = h[0];
    for (int b = 0; b < 132; ++b) {
        mn = h[b] < mn ? h[b] : mn;
        mx = h[b] > mx ? h[b] : mx;
    }
    const double steps = 32.0 * chunks;
    std::printf("%-26s P=%d  cycles/step min %6.2f max %6.2f   per row %6.2f  (%s)\n", name, P, mn / steps, mx / steps,
                mn / steps / P, cudaGetErrorString(cudaGetLastError()));
}

int main() {
    uint32_t *in, *out;
    unsigned char *img, *outImg;
    long long* cyc;
    cudaMalloc(&in, 16384 * 4);
    cudaMemset(in, 0, 16384 * 4);
    cudaMalloc(&out, (64 + 132 * 4096 + 4096) * 16);
    cudaMalloc(&img, size_t(132 * 128 + 128) * 2048);
    cudaMemset(img, 77, size_t(132 * 128 + 128) * 2048);
    cudaMalloc(&outImg, size_t(132 * 128 + 128) * 2048);
    cudaMalloc(&cyc, 132 * 8);
    const int chunks = 512;
    run<1, 0>("chain", in, img, outImg, out, cyc, chunks);
    run<2, 0>("chain", in, img, outImg, out, cyc, chunks);
    run<3, 0>("chain", in, img, outImg, out, cyc, chunks);
    run<4, 0>("chain", in, img, outImg, out, cyc, chunks);
    run<1, 2>("chain+stg", in, img, outImg, out, cyc, chunks);
    run<2, 2>("chain+stg", in, img, outImg, out, cyc, chunks);
    run<4, 2>("chain+stg", in, img, outImg, out, cyc, chunks);
    run<1, 10>("chain+stg+group", in, img, outImg, out, cyc, chunks);
    run<2, 10>("chain+stg+group", in, img, outImg, out, cyc, chunks);
    run<4, 10>("chain+stg+group", in, img, outImg, out, cyc, chunks);
    run<1, 18>("chain+stg+group at end", in, img, outImg, out, cyc, chunks);
    run<2, 18>("chain+stg+group at end", in, img, outImg, out, cyc, chunks);
    run<4, 18>("chain+stg+group at end", in, img, outImg, out, cyc, chunks);
    run<1, 66>("chain+stg+seam", in, img, outImg, out, cyc, chunks);
    run<2, 66>("chain+stg+seam", in, img, outImg, out, cyc, chunks);
    run<4, 66>("chain+stg+seam", in, img, outImg, out, cyc, chunks);
    run<1, 74>("all (stg+group+seam)", in, img, outImg, out, cyc, chunks);
    run<2, 74>("all (stg+group+seam)", in, img, outImg, out, cyc, chunks);
    run<3, 74>("all (stg+group+seam)", in, img, outImg, out, cyc, chunks);
    run<4, 74>("all (stg+group+seam)", in, img, outImg, out, cyc, chunks);
    run<1, 82>("all, group at end", in, img, outImg, out, cyc, chunks);
    run<2, 82>("all, group at end", in, img, outImg, out, cyc, chunks);
    run<4, 82>("all, group at end", in, img, outImg, out, cyc, chunks);
    return 0;
}
