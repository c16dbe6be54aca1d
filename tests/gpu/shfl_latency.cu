// Diagnostic (not a test: timings never go in tests): cycles per link of dependent chains of the operations
// the wavefront step is made of, on the GPU it runs on. docs/perf/gpu-ed.md (session 5) quotes its output.
//   build/gpu-device/tests/gpu/shfl_latency
#include <cuda_runtime.h>

#include <cstdio>

namespace {

constexpr int kLinks = 8;  // links per loop iteration (unrolled)

__device__ __forceinline__ int madAsm(int a, int b, int c) {
    int d;
    asm volatile("mad.lo.s32 %0, %1, %2, %3;" : "=r"(d) : "r"(a), "r"(b), "r"(c));
    return d;
}

template <int MODE>
__global__ void chain(int* out, long long* cycles, int iterations) {
    const int lane = threadIdx.x & 31;
    int x = lane * 7 + 1;
    const int src = (lane + 31) & 31;
    __syncwarp();
    const long long t0 = clock64();
    for (int i = 0; i < iterations; ++i) {
#pragma unroll
        for (int j = 0; j < kLinks; ++j) {
            if (MODE == 0) x = __shfl_sync(0xffffffffu, x, src);        // SHFL.IDX, register lane index
            if (MODE == 1) x = __shfl_up_sync(0xffffffffu, x, 1);       // SHFL.UP
            if (MODE == 2) x = __shfl_xor_sync(0xffffffffu, x, 1);      // SHFL.BFLY
            if (MODE == 3) x = __shfl_sync(0xffffffffu, x, src) + 1;    // SHFL.IDX -> IADD
            if (MODE == 4) x = x > 100 ? x - 4080 : x + 1;              // ISETP -> SEL (a predicate on the chain)
            if (MODE == 5) x = madAsm(x, 7, 3);                         // IMAD
            if (MODE == 6) x = madAsm((100 - x) >> 31, 4080, x >> 4);   // the mask quantizer: IADD -> SHF -> IMAD
        }
    }
    const long long t1 = clock64();
    out[blockIdx.x * blockDim.x + threadIdx.x] = x;
    if (threadIdx.x == 0) cycles[blockIdx.x] = t1 - t0;
}

template <int MODE>
double measure(int* out, long long* cycles) {
    const int iterations = 2000;
    for (int rep = 0; rep < 2; ++rep) chain<MODE><<<1, 32>>>(out, cycles, iterations);  // first run warms up
    if (cudaDeviceSynchronize() != cudaSuccess) return -1;
    long long c = 0;
    cudaMemcpy(&c, cycles, sizeof c, cudaMemcpyDeviceToHost);
    return double(c) / (double(kLinks) * iterations);
}

}  // namespace

int main() {
    int* out = nullptr;
    long long* cycles = nullptr;
    if (cudaMalloc(&out, 32 * sizeof(int)) != cudaSuccess || cudaMalloc(&cycles, sizeof(long long)) != cudaSuccess) {
        std::fprintf(stderr, "shfl_latency: no usable CUDA device\n");
        return 77;
    }
    cudaDeviceProp prop{};
    cudaGetDeviceProperties(&prop, 0);
    std::printf("%s: cycles per link of a dependent chain (one warp)\n", prop.name);
    std::printf("  SHFL.IDX (register lane)     %6.1f\n", measure<0>(out, cycles));
    std::printf("  SHFL.UP 1                    %6.1f\n", measure<1>(out, cycles));
    std::printf("  SHFL.BFLY 1                  %6.1f\n", measure<2>(out, cycles));
    std::printf("  SHFL.IDX -> IADD             %6.1f\n", measure<3>(out, cycles));
    std::printf("  ISETP -> SEL                 %6.1f\n", measure<4>(out, cycles));
    std::printf("  IMAD                         %6.1f\n", measure<5>(out, cycles));
    std::printf("  IADD -> SHF -> IMAD (mask)   %6.1f\n", measure<6>(out, cycles));
    return 0;
}
