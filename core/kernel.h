#pragma once
// \brief Error-diffusion kernels exactly as docs/spec.md section 1 lists them.
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace halftone {

/// \brief One tap: error of pixel (i, j) goes to (i + di, j + dj) with weight w.
struct Tap {
    int di = 0;
    int dj = 0;
    int w = 0;
};

/// \brief A diffusion kernel: integer taps and the integer divisor D.
struct Kernel {
    std::string name;
    std::vector<Tap> taps;
    int divisor = 1;

    int maxDi() const;       ///< rows below reached by the kernel
    int maxDjLeft() const;   ///< largest -dj over the taps (>= 0)
    int maxDjRight() const;  ///< largest dj over the taps (>= 0)
    /// \brief Smallest k such that row i may process column t - k*i at step t (Kasagi, Nakano and Ito's k-delay):
    /// every source (i - di, j - dj) is processed at a strictly earlier step.
    int minimalDelay() const;
};

/// \brief All kernels of the SPEC, Floyd-Steinberg first.
std::span<const Kernel> kernels();
/// \brief Kernel by name ("floyd-steinberg", "jarvis", ...); nullptr when unknown.
const Kernel* findKernel(std::string_view name);
/// \brief Comma-separated kernel names, for messages.
std::string kernelNames();

/// \brief floor(a / b) for b > 0, also for negative a.
constexpr int floorDiv(int a, int b) {
    const int q = a / b;
    return (a % b != 0 && a < 0) ? q - 1 : q;
}

}  // namespace halftone
