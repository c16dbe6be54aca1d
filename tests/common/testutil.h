#pragma once
// \brief Shared helpers for the tests: fresh random planes with a logged seed, paths to test data.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <algorithm>
#include <random>
#include <string>

#include "core/image.h"

namespace halftone::test {

/// \brief A seed drawn fresh per run (or taken from HALFTONE_TEST_SEED) and printed, so failures replay.
inline uint64_t freshSeed(const char* what) {
    static uint64_t base = [] {
        if (const char* s = std::getenv("HALFTONE_TEST_SEED")) return uint64_t(std::strtoull(s, nullptr, 10));
        return uint64_t(std::random_device{}()) ^ (uint64_t(std::random_device{}()) << 32);
    }();
    static uint64_t counter = 0;
    static bool logged = false;
    if (!logged) {
        std::fprintf(stderr, "[seed] random test images from HALFTONE_TEST_SEED=%llu (first use: %s)\n",
                     (unsigned long long)base, what);
        logged = true;
    }
    return base + 0x9E3779B97F4A7C15ull * ++counter;
}

/// \brief Random plane: a mix of noise, flat areas and ramps so every error path is exercised.
inline Plane8 randomPlane(int w, int h, uint64_t seed) {
    std::mt19937_64 rng(seed);
    Plane8 p(w, h);
    const int mode = int(rng() % 3);
    for (int y = 0; y < h; ++y)
        for (int x = 0; x < w; ++x) {
            uint8_t v;
            if (mode == 0)
                v = uint8_t(rng());
            else if (mode == 1)
                v = uint8_t((x * 255) / std::max(1, w - 1));
            else
                v = (rng() % 4 == 0) ? uint8_t(rng()) : uint8_t(((x / 3 + y / 5) * 37) & 255);
            p.at(y, x) = v;
        }
    return p;
}

#ifdef HALFTONE_TEST_DATA_DIR
/// \brief A shared gray image of fresh random pixels (the seed logged under `what`), as studio jobs take it.
inline std::shared_ptr<const Image> randomGrayImage(int w, int h, const char* what) {
    return std::make_shared<const Image>(Image::gray(randomPlane(w, h, freshSeed(what))));
}

inline std::string dataPath(const std::string& name) { return std::string(HALFTONE_TEST_DATA_DIR) + "/" + name; }
#endif

}  // namespace halftone::test
