#pragma once
// \brief Error-diffusion kernels exactly as docs/spec.md section 1 lists them.
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace halftone {

namespace varkerneltable {
struct VarKernelDef;
}

/// \brief One tap: error of pixel (i, j) goes to (i + di, j + dj) with weight w.
struct Tap {
    int di = 0;
    int dj = 0;
    int w = 0;
};

/// \brief A diffusion kernel: integer taps and the integer divisor D. A level-dependent kernel (Ostromoukhov; Zhou and
/// Fang; Li and Allebach) takes the weight of each tap from the 8-bit input level of the pixel that sends the error
/// (weight()); its taps' `w` are 0 and its divisor is the common D of core/ed/varkerneltable.h.
struct Kernel {
    std::string name;
    std::vector<Tap> taps;
    int divisor = 1;
    /// \brief The per-level weights and modulation strengths (core/ed/varkerneltable.h); null for a fixed kernel.
    const varkerneltable::VarKernelDef* levelTable = nullptr;

    /// \brief True when the weights depend on the source pixel's input level.
    bool levelDependent() const { return levelTable != nullptr; }
    /// \brief True when the level is chosen from a perturbed value: position noise (Zhou and Fang) or a threshold per
    /// level (Li and Allebach).
    bool modulated() const;
    /// \brief Weight of tap `t` for a source pixel of 8-bit input `a` (taps[t].w for a fixed kernel).
    int weight(size_t t, uint8_t a) const;
    /// \brief Threshold modulation strength M(a) in percent (0 for a kernel without modulation).
    int strength(uint8_t a) const;
    /// \brief Threshold offset T(a) at scale 16 for two levels (Li and Allebach's tone-dependent threshold; 0 for a
    /// kernel without one).
    int threshold(uint8_t a) const;
    /// \brief The modulation word of input a for L output levels (docs/spec.md section 1), which
    /// varkerneltable::perturbation() turns into P; 0 for a kernel without modulation.
    int32_t modulationWord(uint8_t a, int levels) const;

    int maxDi() const;       ///< rows below reached by the kernel
    int maxDjLeft() const;   ///< largest -dj over the taps (>= 0)
    int maxDjRight() const;  ///< largest dj over the taps (>= 0)
    /// \brief Smallest k such that row i may process column t - k*i at step t (Kasagi, Nakano and Ito's k-delay):
    /// every source (i - di, j - dj) is processed at a strictly earlier step.
    int minimalDelay() const;
};

/// \brief All kernels of the SPEC, Floyd-Steinberg first: the fixed kernels (core/ed/kerneltable.h, in its order), then
/// the level-dependent ones (core/ed/varkerneltable.h).
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
