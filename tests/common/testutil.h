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
#include "core/palette/palette.h"
#include "core/runcontrol.h"

namespace halftone::test {

/// \brief True in a build under AddressSanitizer (the asan preset). The sanitizer stage looks for memory errors, and
/// the release stage runs every exhaustive table whole; a table whose rows repeat the same code paths on larger inputs
/// may run a sample of them under the sanitizers (docs/testing.md says which).
#if defined(__SANITIZE_ADDRESS__)
inline constexpr bool kUnderSanitizer = true;
#else
inline constexpr bool kUnderSanitizer = false;
#endif

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

/// \brief A w x h RGB image of one colour.
inline Image flatRgb(int w, int h, Rgb8 c) {
    Image im;
    im.space = ColorSpace::RGB;
    for (int ch = 0; ch < 3; ++ch) im.channels.emplace_back(w, h, c[size_t(ch)]);
    return im;
}

/// \brief A w x h RGB image whose three planes are random planes of seeds seed, seed + 7919, seed + 2 * 7919.
inline Image randomRgb(int w, int h, uint64_t seed) {
    Image im;
    im.space = ColorSpace::RGB;
    for (int ch = 0; ch < 3; ++ch) im.channels.push_back(randomPlane(w, h, seed + uint64_t(ch) * 7919));
    return im;
}

/// \brief A w x h RGB image of random colours, its seed drawn fresh and logged under `what`.
inline Image randomRgb(int w, int h, const char* what) { return randomRgb(w, h, freshSeed(what)); }

/// \brief A palette of n random colours named "random:n".
inline Palette randomPalette(int n, uint64_t seed) {
    std::mt19937_64 rng(seed);
    Palette p;
    p.name = "random:" + std::to_string(n);
    for (int i = 0; i < n; ++i) p.colors.push_back({uint8_t(rng()), uint8_t(rng()), uint8_t(rng())});
    return p;
}

/// \brief A RunControl of `threads` threads (no progress callback, no stop requested).
inline RunControl threads(int n) {
    RunControl rc;
    rc.threads = n;
    return rc;
}

/// \brief Where `got` first differs from the reference `want`, for a failure message ("equal" when nowhere).
inline std::string firstDifference(const Plane8& got, const Plane8& want) {
    if (!got.sameSize(want))
        return "size " + std::to_string(got.width) + "x" + std::to_string(got.height) + " vs reference " +
               std::to_string(want.width) + "x" + std::to_string(want.height);
    for (int y = 0; y < got.height; ++y)
        for (int x = 0; x < got.width; ++x)
            if (got.at(y, x) != want.at(y, x))
                return "first difference at (row " + std::to_string(y) + ", col " + std::to_string(x) +
                       "): " + std::to_string(got.at(y, x)) + " vs reference " + std::to_string(want.at(y, x));
    return "equal";
}

#ifdef HALFTONE_TEST_DATA_DIR
/// \brief A shared gray image of fresh random pixels (the seed logged under `what`), as studio jobs take it.
inline std::shared_ptr<const Image> randomGrayImage(int w, int h, const char* what) {
    return std::make_shared<const Image>(Image::gray(randomPlane(w, h, freshSeed(what))));
}

// Appended in place: GCC 12's -Warray-bounds misreads `std::string(literal) + "/" + name` at -O3 for some lengths.
inline std::string dataPath(const std::string& name) {
    std::string path = HALFTONE_TEST_DATA_DIR;
    path += '/';
    path += name;
    return path;
}

/// \brief Where Debian's libgs-common puts Ghostscript's ICC profiles (default_cmyk.icc, ps_cmyk.icc,
/// default_rgb.icc, ...): the free profiles the ICC separation is tested with (docs/print.md, "ICC separation").
inline std::string ghostscriptProfile(const std::string& name) { return "/usr/share/color/icc/ghostscript/" + name; }
#endif

}  // namespace halftone::test
