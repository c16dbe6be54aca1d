// Ping-pong between two warps on two SMs through global memory (session 24, docs/perf/gpu-ed.md "Session 24"): does polling
// with several loads in flight (staggered) see a flag sooner than one load at a time? A failed check's poll sees its word up
// to a round trip late, and the lag a consumer keeps is set by such late sightings. Prints the round trip per mode (clock64
// cycles of block 0; 8 pairs of blocks, 2000 rounds, 3 repetitions).
//   nvcc -O3 -arch=sm_90 -o poll_micro docs/perf/experiments/poll_micro.cu && ./poll_micro      (on the GPU machine)
// Stand-alone on purpose; the kept hand-off diagnostic with the same relaxed loads and stores is tests/gpu/handoff_latency.cu.
#include <cstdio>
#include <cstdint>
#include <cuda_runtime.h>

__device__ __forceinline__ int ldRelaxed(const int* p) {
    int v;
    asm volatile("ld.relaxed.gpu.global.s32 %0, [%1];" : "=r"(v) : "l"(p) : "memory");
    return v;
}
__device__ __forceinline__ void stRelaxed(int* p, int v) {
    asm volatile("st.relaxed.gpu.global.s32 [%0], %1;" ::"l"(p), "r"(v) : "memory");
}
__device__ __forceinline__ void spin(int cycles) {
    const long long t = clock64();
    while (clock64() - t < cycles) {
    }
}

// MODE 0: one load at a time. MODE n > 0: n loads in flight, a new one every GAP cycles (a ring of registers).
template <int MODE>
__device__ __forceinline__ void waitFor(const int* p, int target, int gap) {
    if (MODE == 0) {
        while (!__all_sync(0xffffffffu, ldRelaxed(p) >= target)) {
        }
    } else {
        int r[MODE > 0 ? MODE : 1];
#pragma unroll
        for (int k = 0; k < MODE; ++k) {
            r[k] = ldRelaxed(p);
            if (gap) spin(gap);
        }
        for (;;) {
#pragma unroll
            for (int k = 0; k < MODE; ++k) {
                if (__all_sync(0xffffffffu, r[k] >= target)) return;
                r[k] = ldRelaxed(p);
                if (gap) spin(gap);
            }
        }
    }
}

template <int MODE>
__global__ void pingpong(int* flags, long long* out, int rounds, int gap) {
    int* a = flags + 32 * blockIdx.y;        // one line per pair
    int* b = flags + 4096 + 32 * blockIdx.y;
    unsigned sm;
    asm("mov.u32 %0, %%smid;" : "=r"(sm));
    if (blockIdx.x == 0) {
        const long long t0 = clock64();
        for (int r = 1; r <= rounds; ++r) {
            if (threadIdx.x == 0) stRelaxed(a, r);
            waitFor<MODE>(b, r, gap);
        }
        const long long t1 = clock64();
        if (threadIdx.x == 0) { out[2 * blockIdx.y] = (t1 - t0) / rounds; out[2 * blockIdx.y + 1] = sm; }
    } else {
        for (int r = 1; r <= rounds; ++r) {
            waitFor<MODE>(a, r, gap);
            if (threadIdx.x == 0) stRelaxed(b, r);
        }
    }
}

template <int MODE>
void run(int* flags, long long* out, int gap) {
    const int pairs = 8, rounds = 2000;
    long long h[2 * pairs];
    double sum = 0;
    long long mn = 1LL << 60, mx = 0;
    for (int rep = 0; rep < 3; ++rep) {
        cudaMemset(flags, 0, 8192 * 4);
        pingpong<MODE><<<dim3(2, pairs), 32>>>(flags, out, rounds, gap);
        cudaDeviceSynchronize();
        cudaMemcpy(h, out, sizeof h, cudaMemcpyDeviceToHost);
        for (int p = 0; p < pairs; ++p) {
            sum += h[2 * p];
            mn = h[2 * p] < mn ? h[2 * p] : mn;
            mx = h[2 * p] > mx ? h[2 * p] : mx;
        }
    }
    std::printf("mode %d gap %3d: round trip mean %.0f min %lld max %lld cycles (%s)\n", MODE, gap, sum / (3 * pairs), mn, mx,
                cudaGetErrorString(cudaGetLastError()));
}

int main() {
    int* flags;
    long long* out;
    cudaMalloc(&flags, 8192 * 4);
    cudaMalloc(&out, 64 * 8);
    run<0>(flags, out, 0);
    run<2>(flags, out, 0);
    run<4>(flags, out, 0);
    run<2>(flags, out, 100);
    run<4>(flags, out, 50);
    run<4>(flags, out, 100);
    run<8>(flags, out, 50);
    run<8>(flags, out, 100);
    run<0>(flags, out, 0);
    return 0;
}
