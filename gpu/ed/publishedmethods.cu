// The published GPU methods for Floyd-Steinberg that the wavefront kernel is compared with, bit-exact with the SPEC
// (any level count, gamma or linear):
//  - Kasagi, Nakano and Ito, section IV: k-delay PED/PEC on global memory, one launch per step, with and without
//    the data permutation (row-wise shift + transpose: pixel (i, j) stored at (j + k i) H + i);
//  - Deshpande, Misra and Narayanan (2011): pixel-per-thread in knight order with knight-order storage; the CPU-GPU
//    hybrid's GPU part;
//  - Kasagi, Nakano and Ito, section V (and their preliminary version's BWED/BWEC): 32 x 32 parallelogram blocks
//    (row r shifted 2 left per row) in shared memory, one launch per block label 3 y + x, boundary arrays C
//    (columns) and R (rows).
#include <cuda_runtime.h>

#include "gpu/devicecommon.cuh"

namespace halftone::gpu {
namespace {

using namespace dev;

__device__ __forceinline__ void quantizeFs(int A, int acc, const int32_t* level, int& e, int& v) {
    const int S = A + roundedShare<16>(acc);
    const int p = lookupLevel(S, level);
    e = S - (p & 0xffff);
    v = p >> 16;
}

template <bool PERM>
__device__ __forceinline__ size_t gidx(int i, int j, int W, int H, int k) {
    if (PERM) return size_t(j + k * i) * size_t(H) + size_t(i);
    return size_t(i) * size_t(W) + size_t(j);
}

// ---------------------------------------------------------------- Kasagi, Nakano and Ito, section IV
/// PEC, 2-delay: thread for row i gathers its four sources from the error plane.
template <bool PERM>
__global__ void pecStep(GlobalArgs a, int t, int iLo, int iHi) {
    const int i = iLo + blockIdx.x * blockDim.x + threadIdx.x;
    if (i > iHi) return;
    const int W = a.width, H = a.height, k = a.delay;
    const int j = t - k * i;
    int acc = 0;
    if (j > 0) acc += 7 * a.work[gidx<PERM>(i, j - 1, W, H, k)];
    if (i > 0) {
        if (j > 0) acc += a.work[gidx<PERM>(i - 1, j - 1, W, H, k)];
        acc += 5 * a.work[gidx<PERM>(i - 1, j, W, H, k)];
        if (j + 1 < W) acc += 3 * a.work[gidx<PERM>(i - 1, j + 1, W, H, k)];
    }
    const size_t p = gidx<PERM>(i, j, W, H, k);
    int e, v;
    quantizeFs(a.q.input[a.in[p]], acc, a.q.level, e, v);
    a.work[p] = e;
    a.out[p] = (uint8_t)v;
}

/// PED: thread for row i reads its accumulator and scatters w e to its four receivers.
/// mode 0: plain adds (3-delay: no two threads touch one receiver), 1: atomicAdd (2-delay),
/// 2: first half of the double launch (same-row receiver only, error kept in rowErr).
template <bool PERM, int MODE>
__global__ void pedStep(GlobalArgs a, int t, int iLo, int iHi) {
    const int i = iLo + blockIdx.x * blockDim.x + threadIdx.x;
    if (i > iHi) return;
    const int W = a.width, H = a.height, k = a.delay;
    const int j = t - k * i;
    const size_t p = gidx<PERM>(i, j, W, H, k);
    int e, v;
    quantizeFs(a.q.input[a.in[p]], a.work[p], a.q.level, e, v);
    a.out[p] = (uint8_t)v;
    if (MODE == 1) {
        if (j + 1 < W) atomicAdd(&a.work[gidx<PERM>(i, j + 1, W, H, k)], 7 * e);
        if (i + 1 < H) {
            if (j > 0) atomicAdd(&a.work[gidx<PERM>(i + 1, j - 1, W, H, k)], 3 * e);
            atomicAdd(&a.work[gidx<PERM>(i + 1, j, W, H, k)], 5 * e);
            if (j + 1 < W) atomicAdd(&a.work[gidx<PERM>(i + 1, j + 1, W, H, k)], e);
        }
        return;
    }
    if (j + 1 < W) a.work[gidx<PERM>(i, j + 1, W, H, k)] += 7 * e;
    if (MODE == 2) {
        a.rowErr[i] = e;
        return;
    }
    if (i + 1 < H) {
        if (j > 0) a.work[gidx<PERM>(i + 1, j - 1, W, H, k)] += 3 * e;
        a.work[gidx<PERM>(i + 1, j, W, H, k)] += 5 * e;
        if (j + 1 < W) a.work[gidx<PERM>(i + 1, j + 1, W, H, k)] += e;
    }
}

/// Second half of the double launch: row i scatters into row i + 1 only, so no two threads collide.
template <bool PERM>
__global__ void pedBelow(GlobalArgs a, int t, int iLo, int iHi) {
    const int i = iLo + blockIdx.x * blockDim.x + threadIdx.x;
    if (i > iHi || i + 1 >= a.height) return;
    const int W = a.width, H = a.height, k = a.delay;
    const int j = t - k * i;
    const int e = a.rowErr[i];
    if (j > 0) a.work[gidx<PERM>(i + 1, j - 1, W, H, k)] += 3 * e;
    a.work[gidx<PERM>(i + 1, j, W, H, k)] += 5 * e;
    if (j + 1 < W) a.work[gidx<PERM>(i + 1, j + 1, W, H, k)] += e;
}

__global__ void permuteKernel(const uint8_t* src, uint8_t* dst, int W, int H, int k, bool forward) {
    const size_t n = size_t(W) * H;
    for (size_t p = blockIdx.x * size_t(blockDim.x) + threadIdx.x; p < n; p += size_t(gridDim.x) * blockDim.x) {
        const int i = int(p / W), j = int(p % W);
        const size_t q = size_t(j + k * i) * H + i;
        if (forward)
            dst[q] = src[p];
        else
            dst[p] = src[q];
    }
}

template <bool PERM>
cudaError_t globalStepsT(GlobalVariant v, const GlobalArgs& a, int t0, int t1, cudaStream_t stream) {
    const int W = a.width, H = a.height, k = a.delay;
    constexpr int kThreads = 128;
    for (int t = t0; t < t1; ++t) {
        // rows active at step t: 0 <= t - k i < W
        int iLo = t - W + 1 <= 0 ? 0 : (t - W + 1 + k - 1) / k;
        int iHi = t / k;
        if (iHi > H - 1) iHi = H - 1;
        if (iLo > iHi) continue;
        const int blocks = (iHi - iLo + 1 + kThreads - 1) / kThreads;
        switch (v) {
            case GlobalVariant::Pec2:
                pecStep<PERM><<<blocks, kThreads, 0, stream>>>(a, t, iLo, iHi);
                break;
            case GlobalVariant::Ped3:
                pedStep<PERM, 0><<<blocks, kThreads, 0, stream>>>(a, t, iLo, iHi);
                break;
            case GlobalVariant::Ped2Atomic:
                pedStep<PERM, 1><<<blocks, kThreads, 0, stream>>>(a, t, iLo, iHi);
                break;
            case GlobalVariant::Ped2Double:
                pedStep<PERM, 2><<<blocks, kThreads, 0, stream>>>(a, t, iLo, iHi);
                pedBelow<PERM><<<blocks, kThreads, 0, stream>>>(a, t, iLo, iHi);
                break;
        }
        if ((t & 1023) == 0)
            if (cudaError_t e = cudaGetLastError(); e != cudaSuccess) return e;
    }
    return cudaGetLastError();
}

// ---------------------------------------------------------------- Deshpande, Misra and Narayanan: knight order
__device__ __forceinline__ int knightLo(int t, int W) { return t - W + 1 <= 0 ? 0 : (t - W + 2) / 2; }

__global__ void knightStep(KnightArgs a, int t, int n, int64_t o0, int64_t o1, int64_t o2, int64_t o3, int lo0, int lo1,
                           int lo2, int lo3) {
    const int idx = blockIdx.x * blockDim.x + threadIdx.x;
    if (idx >= n) return;
    const int W = a.width;
    const int i = lo0 + idx, j = t - 2 * i;
    // sources in knight storage: (i, j-1) and (i-1, j+1) at step t-1, (i-1, j) at t-2, (i-1, j-1) at t-3
    int acc = 0;
    if (j > 0) acc += 7 * a.err[o1 + (i - lo1)];
    if (i > 0) {
        if (j + 1 < W) acc += 3 * a.err[o1 + (i - 1 - lo1)];
        acc += 5 * a.err[o2 + (i - 1 - lo2)];
        if (j > 0) acc += a.err[o3 + (i - 1 - lo3)];
    }
    const int64_t p = o0 + idx;
    int e, v;
    quantizeFs(a.q.input[a.in[p]], acc, a.q.level, e, v);
    a.err[p] = e;
    a.out[p] = (uint8_t)v;
}

__global__ void knightPermuteKernel(const uint8_t* src, uint8_t* dst, int W, int H, const int64_t* off, bool forward) {
    const size_t n = size_t(W) * H;
    for (size_t p = blockIdx.x * size_t(blockDim.x) + threadIdx.x; p < n; p += size_t(gridDim.x) * blockDim.x) {
        const int i = int(p / W), j = int(p % W);
        const int t = j + 2 * i;
        const int64_t q = off[t] + (i - knightLo(t, W));
        if (forward)
            dst[q] = src[p];
        else
            dst[p] = src[q];
    }
}

// ---------------------------------------------------------------- Deshpande, Misra and Narayanan: CPU-GPU hybrid, GPU
// part
__global__ void hybridStep(HybridArgs a, int t, int iLo, int iHi) {
    const int i = iLo + blockIdx.x * blockDim.x + threadIdx.x;
    if (i > iHi) return;
    const int W = a.width, c0 = a.cpuCols;
    const int j = t - 2 * i;
    auto err = [&](int ii, int jj) -> int {
        if (jj == c0 - 1) {  // the CPU's column: wait for its value in mapped host memory
            int v;
            while ((v = a.cpuEdge[ii]) == kEdgeSentinel) __nanosleep(200);
            return v;
        }
        return a.err[size_t(ii) * W + jj];
    };
    int acc = 0;
    if (j > 0) acc += 7 * err(i, j - 1);
    if (i > 0) {
        if (j > 0) acc += err(i - 1, j - 1);
        acc += 5 * err(i - 1, j);
        if (j + 1 < W) acc += 3 * err(i - 1, j + 1);
    }
    const size_t p = size_t(i) * W + j;
    int e, v;
    quantizeFs(a.q.input[a.in[p]], acc, a.q.level, e, v);
    a.err[p] = e;
    a.out[p] = (uint8_t)v;
    if (j == c0) {
        a.gpuEdge[i] = e;
        __threadfence_system();
    }
}

// ---------------------------------------------------------------- Kasagi, Nakano and Ito, section V: parallelogram
// blocks Block (y, x): pixel (r, m) is image pixel (32 y + r, 32 x - 2 r + m). With this shift, pixel (r, m) needs only
// (r, m-1) and (r-1, m-3..m-1), so the 32 rows advance together, one column per step. Shared error tile Es[r+1][m+3]:
// row 0 = image row 32y-1 (from C), columns 0..2 = m -3..-1 (from R).
constexpr int kTileW = kBlock + 3;

template <bool DIFF, bool RC>
__global__ void __launch_bounds__(kBlock) blockLabel(BlockArgs a, int label, int yLo) {
    __shared__ int Es[kBlock + 1][kTileW];
    __shared__ int As[kBlock + 1][kTileW];
    const int y = yLo + blockIdx.x;
    const int x = label - 3 * y;
    const int r = threadIdx.x;
    const int W = a.width, H = a.height;
    const int i = kBlock * y + r;
    const int c0 = kBlock * x - kBlockSkew * r;  // image column of local m = 0 in this row
    const bool rowOk = i < H;
    // halo: row above from C (image row 32y - 1 at local columns -3..31 => image 32x + 2 + m')
    for (int m = r; m < kTileW; m += kBlock) {
        const int col = kBlock * x + 2 + (m - 3);
        Es[0][m] = (y > 0 && col >= 0 && col < W) ? a.C[size_t(y - 1) * W + col] : 0;
    }
    // left halo from R (the left block's last three errors of this row), rest cleared
    for (int m = 0; m < kTileW; ++m) Es[r + 1][m] = 0;
    if (rowOk) {
        for (int d = 1; d <= 3; ++d) Es[r + 1][3 - d] = (c0 - d >= 0 && c0 - d < W) ? a.R[size_t(d - 1) * H + i] : 0;
    }
    __syncwarp();
    int accRow[1] = {0};
    (void)accRow;
    if (DIFF) {
        // accumulators start with what the halo errors send into this row (zeros inside the tile)
        for (int m = 0; m < kBlock; ++m) {
            int acc = 7 * Es[r + 1][m - 1 + 3] + 3 * Es[r][m - 1 + 3] + 5 * Es[r][m - 2 + 3] + Es[r][m - 3 + 3];
            As[r][m] = acc;
        }
        if (r == 0)
            for (int m = 0; m < kTileW; ++m) As[kBlock][m] = 0;
        __syncwarp();
    }
    // register caching window: after the shift at step m, up1..up3 = row r-1 at local m-1, m-2, m-3
    int eLeft = Es[r + 1][2], up1 = Es[r][1], up2 = Es[r][0], up3 = 0;
    int carry = 0;
    for (int m = 0; m < kBlock; ++m) {
        const int j = c0 + m;
        const bool ok = rowOk && j >= 0 && j < W;
        int e = 0, v = 0;
        if (DIFF) {
            if (ok) {
                const int acc = As[r][m] + (RC ? carry : 0);
                quantizeFs(a.q.input[a.in[size_t(i) * W + j]], acc, a.q.level, e, v);
            }
            if (!RC) {
                if (m + 1 < kBlock) As[r][m + 1] += 7 * e;
                __syncwarp();
            } else {
                carry = 7 * e;
            }
            if (r + 1 < kBlock) {  // receivers in row r + 1: local m + 1, m + 2, m + 3
                if (m + 1 < kBlock) As[r + 1][m + 1] += 3 * e;
                if (m + 2 < kBlock) As[r + 1][m + 2] += 5 * e;
                if (m + 3 < kBlock) As[r + 1][m + 3] += e;
            }
        } else {
            int acc;
            if (RC) {
                up3 = up2;
                up2 = up1;
                up1 = Es[r][m - 1 + 3];  // one shared read per step; the rest stays in registers
                acc = 7 * eLeft + 3 * up1 + 5 * up2 + up3;
            } else {
                acc = 7 * Es[r + 1][m - 1 + 3] + 3 * Es[r][m - 1 + 3] + 5 * Es[r][m - 2 + 3] + Es[r][m - 3 + 3];
            }
            if (ok) quantizeFs(a.q.input[a.in[size_t(i) * W + j]], acc, a.q.level, e, v);
            eLeft = e;
        }
        Es[r + 1][m + 3] = e;
        if (ok) a.out[size_t(i) * W + j] = (uint8_t)v;
        __syncwarp();
    }
    // boundary arrays: last three errors of each row into R, the last row into C
    if (rowOk)
        for (int d = 1; d <= 3; ++d) a.R[size_t(d - 1) * H + i] = Es[r + 1][kBlock - d + 3];
    if (kBlock * y + kBlock - 1 < H) {
        const int rowLast = kBlock - 1;
        for (int m = r; m < kBlock; m += kBlock) {
            const int col = kBlock * x - kBlockSkew * rowLast + m;
            if (col >= 0 && col < W) a.C[size_t(y) * W + col] = Es[rowLast + 1][m + 3];
        }
    }
}

}  // namespace

cudaError_t launchGlobalSteps(GlobalVariant v, const GlobalArgs& a, int t0, int t1, cudaStream_t stream) {
    return a.permuted ? globalStepsT<true>(v, a, t0, t1, stream) : globalStepsT<false>(v, a, t0, t1, stream);
}

cudaError_t launchPermute(const uint8_t* src, uint8_t* dst, int width, int height, int delay, bool forward,
                          cudaStream_t stream) {
    permuteKernel<<<1024, 256, 0, stream>>>(src, dst, width, height, delay, forward);
    return cudaGetLastError();
}

cudaError_t launchKnightSteps(const KnightArgs& a, int t0, int t1, cudaStream_t stream) {
    const int W = a.width, H = a.height;
    auto lo = [&](int t) { return t - W + 1 <= 0 ? 0 : (t - W + 2) / 2; };
    auto off = [&](int t) -> int64_t { return t < 0 ? 0 : a.offsets[t]; };
    for (int t = t0; t <= t1; ++t) {
        const int n = int(a.offsets[t + 1] - a.offsets[t]);
        if (n <= 0) continue;
        const int threads = 128, blocks = (n + threads - 1) / threads;
        knightStep<<<blocks, threads, 0, stream>>>(a, t, n, off(t), off(t - 1), off(t - 2), off(t - 3), lo(t),
                                                   lo(t - 1 < 0 ? 0 : t - 1), lo(t - 2 < 0 ? 0 : t - 2),
                                                   lo(t - 3 < 0 ? 0 : t - 3));
        if ((t & 1023) == 0)
            if (cudaError_t e = cudaGetLastError(); e != cudaSuccess) return e;
    }
    (void)H;
    return cudaGetLastError();
}

cudaError_t launchKnightPermute(const uint8_t* src, uint8_t* dst, int width, int height, const int64_t* devOffsets,
                                bool forward, cudaStream_t stream) {
    knightPermuteKernel<<<1024, 256, 0, stream>>>(src, dst, width, height, devOffsets, forward);
    return cudaGetLastError();
}

cudaError_t launchHybridSteps(const HybridArgs& a, cudaStream_t stream) {
    const int W = a.width, H = a.height, c0 = a.cpuCols;
    if (c0 >= W) return cudaSuccess;
    const int tLast = W - 1 + 2 * (H - 1);
    for (int t = c0; t <= tLast; ++t) {
        // rows whose column t - 2 i lies in [c0, W)
        int iLo = t - W + 1 <= 0 ? 0 : (t - W + 2) / 2;
        int iHi = (t - c0) / 2;
        if (iHi > H - 1) iHi = H - 1;
        if (iLo > iHi) continue;
        const int threads = 128, blocks = (iHi - iLo + 1 + threads - 1) / threads;
        hybridStep<<<blocks, threads, 0, stream>>>(a, t, iLo, iHi);
        if ((t & 1023) == 0)
            if (cudaError_t e = cudaGetLastError(); e != cudaSuccess) return e;
    }
    return cudaGetLastError();
}

cudaError_t launchBlockLabels(const BlockArgs& a, const int32_t* labels, int count, cudaStream_t stream) {
    const int YB = blockRows(a.height), XB = blockCols(a.width);
    for (int li = 0; li < count; ++li) {
        const int k = labels[li];
        // blocks (y, k - 3y) with 0 <= k - 3y < XB
        int yLo = k - XB + 1 <= 0 ? 0 : (k - XB + 1 + 2) / 3;
        int yHi = k / 3;
        if (yHi > YB - 1) yHi = YB - 1;
        if (yLo > yHi) continue;
        const int n = yHi - yLo + 1;
        if (a.diffusion) {
            if (a.registers)
                blockLabel<true, true><<<n, kBlock, 0, stream>>>(a, k, yLo);
            else
                blockLabel<true, false><<<n, kBlock, 0, stream>>>(a, k, yLo);
        } else {
            if (a.registers)
                blockLabel<false, true><<<n, kBlock, 0, stream>>>(a, k, yLo);
            else
                blockLabel<false, false><<<n, kBlock, 0, stream>>>(a, k, yLo);
        }
        if ((li & 255) == 0)
            if (cudaError_t e = cudaGetLastError(); e != cudaSuccess) return e;
    }
    return cudaGetLastError();
}

}  // namespace halftone::gpu
