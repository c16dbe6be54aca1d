#pragma once
// \brief The harness of the GPU tests (plain C++: the GPU machine has no Qt): counted checks, the skip that ctest
// reports as skipped (exit code 77, SKIP_RETURN_CODE), one summary line and the exit code.
#include <cstdio>
#include <string>

#include "core/image.h"

namespace halftone::gputest {

/// \brief Exit code of a test program that found no usable GPU (ctest: skipped).
inline constexpr int kSkipped = 77;

/// \brief The counts of one test program.
struct Counts {
    int passed = 0, failed = 0, skipped = 0;
    bool verbose = false;  ///< also print every passed check ("ok: ...")
};

inline Counts& counts() {
    static Counts c;
    return c;
}

/// \brief Counts a check; a failed one is printed at once ("FAIL: what"), a passed one only when verbose.
inline void check(bool ok, const std::string& what) {
    Counts& c = counts();
    if (ok) {
        ++c.passed;
        if (c.verbose) std::printf("ok: %s\n", what.c_str());
    } else {
        ++c.failed;
        std::printf("FAIL: %s\n", what.c_str());
    }
    std::fflush(stdout);
}

/// \brief Counts a part of the test that did not run, and says why.
inline void skip(const std::string& what) {
    ++counts().skipped;
    std::printf("skipped: %s\n", what.c_str());
}

/// \brief The whole program cannot run (no usable GPU): prints why; return its value from main.
inline int skipAll(const std::string& reason) {
    std::printf("SKIP: %s\n0 passed, 0 failed, 1 skipped\n", reason.c_str());
    return kSkipped;
}

/// \brief Prints "P passed, F failed, S skipped" and returns main's exit code (1 when any check failed).
inline int finish() {
    const Counts& c = counts();
    std::printf("%d passed, %d failed, %d skipped\n", c.passed, c.failed, c.skipped);
    return c.failed ? 1 : 0;
}

inline bool contains(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }

/// \brief The first pixel where `got` differs from `want`, for a failure message ("equal" when none does).
inline std::string firstDiff(const Plane8& got, const Plane8& want) {
    if (!got.sameSize(want)) return "size differs";
    for (int y = 0; y < got.height; ++y)
        for (int x = 0; x < got.width; ++x)
            if (got.at(y, x) != want.at(y, x))
                return "first difference at (row " + std::to_string(y) + ", col " + std::to_string(x) + "): gpu " +
                       std::to_string(got.at(y, x)) + " vs reference " + std::to_string(want.at(y, x));
    return "equal";
}

}  // namespace halftone::gputest
