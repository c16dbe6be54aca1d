// Instances of the CTA kernel (wavefront_cta.cuh), default shape, kernels 0-3 (split for parallel builds).
#include "gpu/wavefront_cta.cuh"

namespace halftone::gpu::cta {
namespace {
template <int ID>
CtaFn pick(bool bin, bool ident) {
    constexpr int E = defaultExtra(ID);
    if (!bin) return &ctaKernel<ID, E, 4, false, false>;
    return ident ? &ctaKernel<ID, E, 4, true, true> : &ctaKernel<ID, E, 4, true, false>;
}
}  // namespace

CtaFn defaultShape03(int id, bool bin, bool ident) {
    switch (id) {
        case 0: return pick<0>(bin, ident);
        case 1: return pick<1>(bin, ident);
        case 2: return pick<2>(bin, ident);
        case 3: return pick<3>(bin, ident);
        default: return nullptr;
    }
}
}  // namespace halftone::gpu::cta
