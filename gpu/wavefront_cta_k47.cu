// Instances of the CTA kernel (wavefront_cta.cuh), default shape, kernels 4-7 (split for parallel builds).
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

CtaFn defaultShape47(int id, bool bin, bool ident) {
    switch (id) {
        case 4: return pick<4>(bin, ident);
        case 5: return pick<5>(bin, ident);
        case 6: return pick<6>(bin, ident);
        case 7: return pick<7>(bin, ident);
        default: return nullptr;
    }
}
}  // namespace halftone::gpu::cta
