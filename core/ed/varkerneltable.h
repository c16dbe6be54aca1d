#pragma once
// \brief The kernels whose weights depend on the input level (docs/spec.md section 1, "Kernels whose weights depend on
// the input level") as plain constants (C++17, no allocation, usable in CUDA device code): the published tables, the
// integer weights and modulation strengths derived from them at compile time, and the position hash of the threshold
// modulation. core's kernels() (core/ed/kernel.cpp) lists these after the fixed kernels of core/ed/kerneltable.h.
#include <cstdint>

#include "core/ed/tdedtable.h"

#if defined(__CUDACC__)
#define HALFTONE_VK_HD __host__ __device__
#else
#define HALFTONE_VK_HD
#endif

namespace halftone::varkerneltable {

/// \brief log2 of the common divisor D of every level-dependent kernel.
inline constexpr int kShift = 14;
/// \brief The common divisor D = 2^14: the three weights of every input level sum to exactly D.
inline constexpr int kDivisor = 1 << kShift;
/// \brief The three taps, in this order: right (0, 1), down-left (1, -1), down (1, 0).
inline constexpr int kTaps = 3;
inline constexpr int kTapDi[kTaps] = {0, 1, 1};
inline constexpr int kTapDj[kTaps] = {1, -1, 0};

/// \brief One row of a published coefficient table: right, down-left, down and their sum.
struct CoefRow {
    int64_t right, downLeft, down, sum;
};

/// \brief Ostromoukhov (2001), the table of the paper's program (varcoeffED.c), levels 0..127; level a > 127 uses
/// row 255 - a.
inline constexpr CoefRow kOstromoukhov[128] = {
    {13, 0, 5, 18},        // 0
    {13, 0, 5, 18},        // 1
    {21, 0, 10, 31},       // 2
    {7, 0, 4, 11},         // 3
    {8, 0, 5, 13},         // 4
    {47, 3, 28, 78},       // 5
    {23, 3, 13, 39},       // 6
    {15, 3, 8, 26},        // 7
    {22, 6, 11, 39},       // 8
    {43, 15, 20, 78},      // 9
    {7, 3, 3, 13},         // 10
    {501, 224, 211, 936},  // 11
    {249, 116, 103, 468},  // 12
    {165, 80, 67, 312},    // 13
    {123, 62, 49, 234},    // 14
    {489, 256, 191, 936},  // 15
    {81, 44, 31, 156},     // 16
    {483, 272, 181, 936},  // 17
    {60, 35, 22, 117},     // 18
    {53, 32, 19, 104},     // 19
    {237, 148, 83, 468},   // 20
    {471, 304, 161, 936},  // 21
    {3, 2, 1, 6},          // 22
    {459, 304, 161, 924},  // 23
    {38, 25, 14, 77},      // 24
    {453, 296, 175, 924},  // 25
    {225, 146, 91, 462},   // 26
    {149, 96, 63, 308},    // 27
    {111, 71, 49, 231},    // 28
    {63, 40, 29, 132},     // 29
    {73, 46, 35, 154},     // 30
    {435, 272, 217, 924},  // 31
    {108, 67, 56, 231},    // 32
    {13, 8, 7, 28},        // 33
    {213, 130, 119, 462},  // 34
    {423, 256, 245, 924},  // 35
    {5, 3, 3, 11},         // 36
    {281, 173, 162, 616},  // 37
    {141, 89, 78, 308},    // 38
    {283, 183, 150, 616},  // 39
    {71, 47, 36, 154},     // 40
    {285, 193, 138, 616},  // 41
    {13, 9, 6, 28},        // 42
    {41, 29, 18, 88},      // 43
    {36, 26, 15, 77},      // 44
    {289, 213, 114, 616},  // 45
    {145, 109, 54, 308},   // 46
    {291, 223, 102, 616},  // 47
    {73, 57, 24, 154},     // 48
    {293, 233, 90, 616},   // 49
    {21, 17, 6, 44},       // 50
    {295, 243, 78, 616},   // 51
    {37, 31, 9, 77},       // 52
    {27, 23, 6, 56},       // 53
    {149, 129, 30, 308},   // 54
    {299, 263, 54, 616},   // 55
    {75, 67, 12, 154},     // 56
    {43, 39, 6, 88},       // 57
    {151, 139, 18, 308},   // 58
    {303, 283, 30, 616},   // 59
    {38, 36, 3, 77},       // 60
    {305, 293, 18, 616},   // 61
    {153, 149, 6, 308},    // 62
    {307, 303, 6, 616},    // 63
    {1, 1, 0, 2},          // 64
    {101, 105, 2, 208},    // 65
    {49, 53, 2, 104},      // 66
    {95, 107, 6, 208},     // 67
    {23, 27, 2, 52},       // 68
    {89, 109, 10, 208},    // 69
    {43, 55, 6, 104},      // 70
    {83, 111, 14, 208},    // 71
    {5, 7, 1, 13},         // 72
    {172, 181, 37, 390},   // 73
    {97, 76, 22, 195},     // 74
    {72, 41, 17, 130},     // 75
    {119, 47, 29, 195},    // 76
    {4, 1, 1, 6},          // 77
    {4, 1, 1, 6},          // 78
    {4, 1, 1, 6},          // 79
    {4, 1, 1, 6},          // 80
    {4, 1, 1, 6},          // 81
    {4, 1, 1, 6},          // 82
    {4, 1, 1, 6},          // 83
    {4, 1, 1, 6},          // 84
    {4, 1, 1, 6},          // 85
    {65, 18, 17, 100},     // 86
    {95, 29, 26, 150},     // 87
    {185, 62, 53, 300},    // 88
    {30, 11, 9, 50},       // 89
    {35, 14, 11, 60},      // 90
    {85, 37, 28, 150},     // 91
    {55, 26, 19, 100},     // 92
    {80, 41, 29, 150},     // 93
    {155, 86, 59, 300},    // 94
    {5, 3, 2, 10},         // 95
    {5, 3, 2, 10},         // 96
    {5, 3, 2, 10},         // 97
    {5, 3, 2, 10},         // 98
    {5, 3, 2, 10},         // 99
    {5, 3, 2, 10},         // 100
    {5, 3, 2, 10},         // 101
    {5, 3, 2, 10},         // 102
    {5, 3, 2, 10},         // 103
    {5, 3, 2, 10},         // 104
    {5, 3, 2, 10},         // 105
    {5, 3, 2, 10},         // 106
    {5, 3, 2, 10},         // 107
    {305, 176, 119, 600},  // 108
    {155, 86, 59, 300},    // 109
    {105, 56, 39, 200},    // 110
    {80, 41, 29, 150},     // 111
    {65, 32, 23, 120},     // 112
    {55, 26, 19, 100},     // 113
    {335, 152, 113, 600},  // 114
    {85, 37, 28, 150},     // 115
    {115, 48, 37, 200},    // 116
    {35, 14, 11, 60},      // 117
    {355, 136, 109, 600},  // 118
    {30, 11, 9, 50},       // 119
    {365, 128, 107, 600},  // 120
    {185, 62, 53, 300},    // 121
    {25, 8, 7, 40},        // 122
    {95, 29, 26, 150},     // 123
    {385, 112, 103, 600},  // 124
    {65, 18, 17, 100},     // 125
    {395, 104, 101, 600},  // 126
    {4, 1, 1, 6},          // 127
};

/// \brief Zhou and Fang (2003), Table 1: the coefficients at the key levels (sum = right + downLeft + down); the levels
/// in between are interpolated linearly in the normalised coefficients.
struct KeyRow {
    int level;
    int64_t right, downLeft, down;
};
inline constexpr KeyRow kZhouFangKeys[] = {
    {0, 13, 0, 5},
    {1, 1300249, 0, 499250},
    {2, 214114, 287, 99357},
    {3, 351854, 0, 199965},
    {4, 801100, 0, 490999},
    {10, 704075, 297466, 303694},
    {22, 46613, 31917, 21469},
    {32, 47482, 30617, 21900},
    {44, 43024, 42131, 14826},
    {64, 36411, 43219, 20369},
    {72, 38477, 53843, 7678},
    {77, 40503, 51547, 7948},
    {85, 35865, 34108, 30026},
    {95, 34117, 36899, 28983},
    {102, 35464, 35049, 29485},
    {107, 16477, 18810, 14712},
    {112, 33360, 37954, 28685},
    {127, 35269, 36066, 28664},
};
inline constexpr int kZhouFangKeyCount = int(sizeof(kZhouFangKeys) / sizeof(kZhouFangKeys[0]));

/// \brief Zhou and Fang (2003), Table 2: the threshold modulation strength in percent at the key levels, interpolated
/// linearly (rounded down) in between.
struct StrengthKey {
    int level, percent;
};
inline constexpr StrengthKey kZhouFangStrengthKeys[] = {{0, 0},    {44, 34},  {64, 50},  {85, 100}, {95, 17},
                                                        {102, 50}, {107, 70}, {112, 79}, {127, 100}};
inline constexpr int kZhouFangStrengthKeyCount = int(sizeof(kZhouFangStrengthKeys) / sizeof(kZhouFangStrengthKeys[0]));

/// \brief The integer weights of one input level: W_right + W_downLeft + W_down = kDivisor.
struct LevelWeights {
    int right, downLeft, down;
};

/// \brief A level-dependent kernel: name, weights, modulation strength (percent) and threshold offset per 8-bit input
/// level.
struct VarKernelDef {
    const char* name;
    LevelWeights w[256];
    int strength[256];   ///< M(a), 0..100; all zero for a kernel without position noise
    int threshold[256];  ///< T(a): the two-level threshold's offset at scale 16, -kMaxThreshold..kMaxThreshold
    bool modulated;      ///< the level is chosen from S - P (noise, threshold offsets or both)
    bool noise;          ///< P has the position-noise term (M(a) > 0 somewhere)
};

/// \brief The largest |P| a table may reach for two levels: |T(a)| + 127 M(a) 16 / 100 <= 2032 keeps |E| <= 4072.
inline constexpr int kMaxPerturbation = 2032;

/// \brief floor((2 num + den) / (2 den)) for num >= 0, den > 0: num / den rounded half up.
constexpr int64_t roundDiv(int64_t num, int64_t den) { return (2 * num + den) / (2 * den); }

/// \brief Weights from the normalised coefficients num_t / den (t = right, down-left): rounded, down takes the rest.
constexpr LevelWeights weightsOf(int64_t numRight, int64_t numDownLeft, int64_t den) {
    const int r = int(roundDiv(numRight * kDivisor, den));
    const int dl = int(roundDiv(numDownLeft * kDivisor, den));
    return LevelWeights{r, dl, kDivisor - r - dl};
}

constexpr VarKernelDef makeOstromoukhov() {
    VarKernelDef d{};
    d.name = "ostromoukhov";
    d.modulated = false;
    d.noise = false;
    for (int a = 0; a < 256; ++a) {
        const CoefRow& c = kOstromoukhov[a < 128 ? a : 255 - a];
        d.w[a] = weightsOf(c.right, c.downLeft, c.sum);
        d.strength[a] = 0;
        d.threshold[a] = 0;
    }
    return d;
}

constexpr VarKernelDef makeZhouFang() {
    VarKernelDef d{};
    d.name = "zhou-fang";
    d.modulated = true;
    d.noise = true;
    for (int a = 0; a < 256; ++a) {
        const int m = a < 128 ? a : 255 - a;
        int k = 0;  // key interval [k, k + 1] holding m
        while (k + 2 < kZhouFangKeyCount && kZhouFangKeys[k + 1].level <= m) ++k;
        const KeyRow& k0 = kZhouFangKeys[k];
        const KeyRow& k1 = kZhouFangKeys[k + 1];
        const int64_t s0 = k0.right + k0.downLeft + k0.down, s1 = k1.right + k1.downLeft + k1.down;
        const int64_t f0 = k1.level - m, f1 = m - k0.level;  // weights of the two keys, times (x1 - x0)
        // n_t(m) = (c0 / s0 f0 + c1 / s1 f1) / (x1 - x0), over the common denominator s0 s1 (x1 - x0)
        d.w[a] = weightsOf(k0.right * s1 * f0 + k1.right * s0 * f1, k0.downLeft * s1 * f0 + k1.downLeft * s0 * f1,
                           s0 * s1 * (f0 + f1));
        int j = 0;
        while (j + 2 < kZhouFangStrengthKeyCount && kZhouFangStrengthKeys[j + 1].level <= m) ++j;
        const StrengthKey& m0 = kZhouFangStrengthKeys[j];
        const StrengthKey& m1 = kZhouFangStrengthKeys[j + 1];
        d.strength[a] = (m0.percent * (m1.level - m) + m1.percent * (m - m0.level)) / (m1.level - m0.level);
        d.threshold[a] = 0;
    }
    return d;
}

/// \brief Li and Allebach (2004), tone-dependent error diffusion, from a table of levels 0..127 (the shipped one is
/// core/ed/tdedtable.h, trained by halftone-train-tded). Level a > 127 uses row 255 - a with the threshold offset
/// negated, so that a dark level and its light mirror place their minority dots alike.
constexpr VarKernelDef makeTded(const TdedRow (&rows)[128]) {
    VarKernelDef d{};
    d.name = "tded";
    d.modulated = true;
    d.noise = false;
    for (int a = 0; a < 256; ++a) {
        const TdedRow& r = rows[a < 128 ? a : 255 - a];
        d.w[a] = LevelWeights{r.right, r.downLeft, r.down};
        d.strength[a] = 0;
        d.threshold[a] = a < 128 ? r.threshold : -r.threshold;
    }
    return d;
}

/// \brief The level-dependent kernels, in the order kernels() lists them after the fixed ones.
inline constexpr VarKernelDef kVarKernels[] = {makeOstromoukhov(), makeZhouFang(), makeTded(kTded)};
inline constexpr int kVarCount = int(sizeof(kVarKernels) / sizeof(kVarKernels[0]));

constexpr bool allWeightsValid() {
    for (const VarKernelDef& k : kVarKernels)
        for (int a = 0; a < 256; ++a)
            if (k.w[a].right < 0 || k.w[a].downLeft < 0 || k.w[a].down < 0 ||
                k.w[a].right + k.w[a].downLeft + k.w[a].down != kDivisor || k.strength[a] < 0 || k.strength[a] > 100 ||
                (k.strength[a] > 0 && !k.noise) || (k.threshold[a] != 0 && !k.modulated) ||
                k.threshold[a] + 127 * 16 * k.strength[a] / 100 > kMaxPerturbation ||
                k.threshold[a] < -kMaxPerturbation)
                return false;
    return true;
}
static_assert(allWeightsValid(),
              "every weight is >= 0, the weights of a level sum to D, every strength is in 0..100 and |P| <= 2032");

/// \brief The constants of the position hash: multipliers of row, column and seed, and the finaliser's two.
inline constexpr uint32_t kHashRow = 0x8DA6B343u, kHashCol = 0xD8163841u, kHashSeed = 0xCB1AB31Fu;
inline constexpr uint32_t kMix1 = 0x7FEB352Du, kMix2 = 0x846CA68Bu;

/// \brief The position hash of the threshold modulation: 32 bits from row i, column j and the seed (all arithmetic
/// modulo 2^32; the finaliser is Wellons' "lowbias32").
HALFTONE_VK_HD constexpr uint32_t noiseHash(uint32_t i, uint32_t j, uint32_t seed) {
    uint32_t h = i * kHashRow + j * kHashCol + seed * kHashSeed;
    h ^= h >> 16;
    h *= kMix1;
    h ^= h >> 15;
    h *= kMix2;
    h ^= h >> 16;
    return h;
}
/// \brief The noise u(i, j) in 0..127: the top 7 bits of the hash.
HALFTONE_VK_HD constexpr int noiseU(uint32_t i, uint32_t j, uint32_t seed) { return int(noiseHash(i, j, seed) >> 25); }

/// \brief Z(a) = floor(M(a) 2^18 / (100 (L - 1))): the per-level modulation scale for L output levels (0..262144).
constexpr int modulationScale(int strengthPercent, int levels) {
    return int((int64_t(strengthPercent) << 18) / (100 * int64_t(levels - 1)));
}
/// \brief T_L(a) = floor(T(a) / (L - 1)): the threshold offset scaled to one level gap of L output levels.
constexpr int thresholdOffset(int threshold, int levels) {
    const int q = threshold / (levels - 1);
    return (threshold % (levels - 1) != 0 && threshold < 0) ? q - 1 : q;
}
/// \brief Bits of Z(a) in a modulation word; T_L(a) takes the bits above.
inline constexpr int kScaleBits = 19;
/// \brief The modulation word of input level a for L levels: Z(a) in the low 19 bits, T_L(a) (signed) above them.
constexpr int32_t modulationWord(const VarKernelDef& k, int a, int levels) {
    return int32_t(uint32_t(thresholdOffset(k.threshold[a], levels)) << kScaleBits) |
           modulationScale(k.strength[a], levels);
}
/// \brief The threshold perturbation P = ((u Z(a)) >> 14) + T_L(a) at scale 16 from u and the modulation word
/// (-2032..2032 for two levels).
HALFTONE_VK_HD constexpr int32_t perturbation(int u, int32_t word) {
    return ((u * (word & ((1 << kScaleBits) - 1))) >> 14) + (word >> kScaleBits);
}

}  // namespace halftone::varkerneltable

#undef HALFTONE_VK_HD
