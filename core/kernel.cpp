#include "core/kernel.h"

#include <algorithm>

namespace halftone {

int Kernel::maxDi() const {
    int m = 0;
    for (const Tap& t : taps) m = std::max(m, t.di);
    return m;
}
int Kernel::maxDjLeft() const {
    int m = 0;
    for (const Tap& t : taps) m = std::max(m, -t.dj);
    return m;
}
int Kernel::maxDjRight() const {
    int m = 0;
    for (const Tap& t : taps) m = std::max(m, t.dj);
    return m;
}

int Kernel::minimalDelay() const {
    // Pixel (i, j) runs at step j + k*i. Source (i - di, j - dj) runs at j - dj + k*(i - di).
    // Need j - dj + k*(i - di) < j + k*i, i.e. k*di + dj > 0 for every tap.
    for (int k = 1;; ++k) {
        bool ok = true;
        for (const Tap& t : taps)
            if (k * t.di + t.dj <= 0) ok = false;
        if (ok) return k;
    }
}

std::span<const Kernel> kernels() {
    static const std::vector<Kernel> all = {
        {"floyd-steinberg", {{0, 1, 7}, {1, -1, 3}, {1, 0, 5}, {1, 1, 1}}, 16},
        {"jarvis",
         {{0, 1, 7},
          {0, 2, 5},
          {1, -2, 3},
          {1, -1, 5},
          {1, 0, 7},
          {1, 1, 5},
          {1, 2, 3},
          {2, -2, 1},
          {2, -1, 3},
          {2, 0, 5},
          {2, 1, 3},
          {2, 2, 1}},
         48},
        {"stucki",
         {{0, 1, 8},
          {0, 2, 4},
          {1, -2, 2},
          {1, -1, 4},
          {1, 0, 8},
          {1, 1, 4},
          {1, 2, 2},
          {2, -2, 1},
          {2, -1, 2},
          {2, 0, 4},
          {2, 1, 2},
          {2, 2, 1}},
         42},
        {"burkes", {{0, 1, 8}, {0, 2, 4}, {1, -2, 2}, {1, -1, 4}, {1, 0, 8}, {1, 1, 4}, {1, 2, 2}}, 32},
        {"sierra",
         {{0, 1, 5},
          {0, 2, 3},
          {1, -2, 2},
          {1, -1, 4},
          {1, 0, 5},
          {1, 1, 4},
          {1, 2, 2},
          {2, -1, 2},
          {2, 0, 3},
          {2, 1, 2}},
         32},
        {"sierra2", {{0, 1, 4}, {0, 2, 3}, {1, -2, 1}, {1, -1, 2}, {1, 0, 3}, {1, 1, 2}, {1, 2, 1}}, 16},
        {"sierra-lite", {{0, 1, 2}, {1, -1, 1}, {1, 0, 1}}, 4},
        {"atkinson", {{0, 1, 1}, {0, 2, 1}, {1, -1, 1}, {1, 0, 1}, {1, 1, 1}, {2, 0, 1}}, 8},
    };
    return all;
}

const Kernel* findKernel(std::string_view name) {
    if (name == "fs" || name == "floyd") name = "floyd-steinberg";
    for (const Kernel& k : kernels())
        if (k.name == name) return &k;
    return nullptr;
}

std::string kernelNames() {
    std::string s;
    for (const Kernel& k : kernels()) {
        if (!s.empty()) s += ", ";
        s += k.name;
    }
    return s;
}

}  // namespace halftone
