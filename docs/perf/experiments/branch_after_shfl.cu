// Session 18: does a branch after a shuffle wait for it? Build with `nvcc -arch=sm_90 -cubin -O3 branch_after_shfl.cu`
// and read `cuobjdump -sass`: the `@P0 BRA` after the VOTE.ALL waits on the SHFL.UP's write and read barriers (wait
// mask), the VOTE.ALL does not; without the poll loop ptxas predicates the body and no branch waits.
__global__ void k(int* o, const int* in, int n, const volatile int* flag) {
    int e = in[threadIdx.x];
    int p = in[threadIdx.x + 32];
    int acc = 0;
#pragma unroll 1
    for (int i = 0; i < n; ++i) {
        int xs = __shfl_up_sync(0xffffffffu, e, 1);
        if (!__all_sync(0xffffffffu, (p & 0xffff0000) == 0x10000)) {
            int spins = 0;
            do {
                if (++spins > 100 && *flag) return;
                p = __ldcg(in + i + 64 + (threadIdx.x & 15));
            } while (!__all_sync(0xffffffffu, (p & 0xffff0000) == 0x10000));
        }
        acc = acc * 3 + xs;
        e = (acc >> 4) * 4081 + e;
    }
    o[threadIdx.x] = acc + e + p;
}
