#pragma once
// \brief The exact nearest-colour search of docs/spec.md section 4 as the GPU runs it: 64-bit keys built on the host
// from core's PaletteTargets (targets and the match's weights), and the host form of the search (plain C++, no CUDA:
// tested in every build by test_paletteed).
#include <algorithm>
#include <array>
#include <cstdint>
#include <vector>

namespace halftone::gpu {

inline constexpr int kMaxPalette = 256;

/// \brief The palette as the kernel compares it (docs/spec.md section 4, made on the host from core's
/// PaletteTargets). For a clamped colour T, entry k and the match's weights w (euclidean (1, 1, 1), weighted
/// (299, 587, 114)) the kernel computes the 64-bit key
///
///     key_k(T) = c_k + T_R a_kR + T_G a_kG + T_B a_kB,   a_kc = 512 w_c P_kc,
///     c_k = 256 (B - Q_k) + (255 - k),   Q_k = sum_c w_c P_kc^2,   B = max_k Q_k + 1
///
/// and takes the entry with the largest key. Since sum_c w_c (T_c - P_kc)^2 = sum_c w_c T_c^2 - 2 sum_c w_c T_c P_kc
/// + Q_k and the first term is the same for every k, key_k = 256 (B + sum_c w_c T_c^2 - dist_k) + 255 - k: the
/// largest key is the smallest distance, and on equal distances the smaller k (its low byte is larger). Every key is
/// distinct, so the maximum does not depend on the order in which the keys are compared.
///
/// Bounds, with W = w_R + w_G + w_B and 0 <= T_c, P_kc <= 4080: a_kc <= 512 max_c w_c 4080, Q_k <= W 4080^2 and
/// 0 <= key_k <= 256 (B + W 4080^2) + 255 <= 256 (2 W 4080^2 + 1) + 255. Weighted (W = 1000): a_kc <= 512 * 587 *
/// 4080 < 2^31 and keys < 2^44; euclidean (W = 3): a_kc <= 512 * 4080 < 2^21 and keys < 2^35. Both fit the
/// unsigned 32-bit a and the unsigned 64-bit key exactly. A padding entry (k >= size) has a = c = 0, key 0, below
/// every real key (>= 256).
struct PaletteKeys {
    uint32_t a[3][kMaxPalette] = {};      ///< a_kc per channel
    uint64_t c[kMaxPalette] = {};         ///< c_k
    int32_t target[kMaxPalette][2] = {};  ///< P_kR | P_kG << 16, P_kB: the error E_c = T_c - P_kc of the winner
    int size = 0;                         ///< palette colours (2..256)
};

/// \brief Builds the keys from the targets P_k (scale 16, 0..4080) in palette order (at most 256) and the match's
/// weights (1..1000 each), both from core's PaletteTargets (its `targets` and `weights`).
inline PaletteKeys makePaletteKeys(const std::vector<std::array<int32_t, 3>>& targets,
                                   const std::array<int32_t, 3>& weights) {
    PaletteKeys k;
    k.size = int(std::min<size_t>(targets.size(), kMaxPalette));
    uint64_t q[kMaxPalette] = {};
    uint64_t big = 0;
    for (int i = 0; i < k.size; ++i) {
        for (int c = 0; c < 3; ++c) {
            const uint64_t p = uint64_t(targets[size_t(i)][size_t(c)]);
            q[i] += uint64_t(weights[size_t(c)]) * p * p;
        }
        big = std::max(big, q[i] + 1);
    }
    for (int i = 0; i < k.size; ++i) {
        const auto& t = targets[size_t(i)];
        for (int c = 0; c < 3; ++c) k.a[c][i] = uint32_t(512 * weights[size_t(c)] * t[size_t(c)]);
        k.c[i] = 256 * (big - q[i]) + uint64_t(255 - i);
        k.target[i][0] = t[0] | (t[1] << 16);
        k.target[i][1] = t[2];
    }
    return k;
}

/// \brief The key of entry i for the clamped colour (r, g, b), 0 <= r, g, b <= 4080.
inline uint64_t paletteKey(const PaletteKeys& k, int i, uint32_t r, uint32_t g, uint32_t b) {
    return k.c[i] + uint64_t(r) * k.a[0][i] + uint64_t(g) * k.a[1][i] + uint64_t(b) * k.a[2][i];
}

/// \brief The nearest entry by the keys (host form of the kernel's search; tested against core's
/// PaletteTargets::nearest): 255 minus the low byte of the largest key.
inline int nearestByKeys(const PaletteKeys& k, int32_t r, int32_t g, int32_t b) {
    uint64_t best = 0;
    for (int i = 0; i < k.size; ++i) best = std::max(best, paletteKey(k, i, uint32_t(r), uint32_t(g), uint32_t(b)));
    return 255 - int(best & 255);
}

}  // namespace halftone::gpu
