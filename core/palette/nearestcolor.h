#pragma once
// \brief The exact nearest-colour search of palette error diffusion (docs/spec.md section 4): the same argmin as
// PaletteTargets::nearest, ties to the smaller index, for 2..256 colours, through a lazily built grid of candidate
// lists over the clamped working space [0, 4080]^3.
#include <array>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace halftone {

struct PaletteTargets;

/// \brief Nearest palette colour under the match's distance w_R dR^2 + w_G dG^2 + w_B dB^2 (the weights of
/// PaletteTargets: euclidean or luma-weighted), exact, for T in [0, 4080]^3.
///
/// The cube is cut into cells of side 2^shift. A cell's candidate list holds every colour k whose smallest
/// possible distance to the cell, dmin_k, is at most m = min_j dmax_j (the smallest largest distance of any
/// colour to the cell). For a point p of the cell and its true nearest colour k*, d(p, k*) <= d(p, j) <= dmax_j
/// for every j, so dmin_k* <= d(p, k*) <= m: k* is listed, and so is every colour tied with it. The list keeps
/// palette order and the scan replaces the best only on a strictly smaller distance, so the smaller index wins
/// a tie exactly as in the full search. A colour equal to an earlier one is never listed (it cannot win).
/// Cells are built on first use (a cell costs one pass over the palette), so a run pays only for the colours
/// its image reaches. Not thread-safe: each thread uses its own copy.
class NearestColor {
public:
    /// \brief Search over `targets` (P_k at scale 16, and the match's weights) with cells of side 2^shift (4..12; 0 =
    /// the default, 7).
    explicit NearestColor(const PaletteTargets& targets, int shift = 0);

    /// \brief The index minimising the match's distance to (r, g, b), each in [0, 4080]; ties to the smaller index.
    int nearest(int32_t r, int32_t g, int32_t b) {
        const Cell& c =
            cells_[(size_t(r >> shift_) << (2 * bits_)) | (size_t(g >> shift_) << bits_) | size_t(b >> shift_)];
        if (c.count == 1) [[likely]]
            return c.first;
        return scan(c, r, g, b);
    }

    /// \brief Cells built so far and the mean candidate list length over them (for the benchmark).
    int builtCells() const;
    double meanCandidates() const;
    int shift() const { return shift_; }

private:
    struct Cell {
        uint32_t offset = 0;  ///< first candidate in pool_
        uint16_t count = 0;   ///< 0: not built yet
        uint16_t first = 0;   ///< the colour when count == 1
    };
    struct Candidate {
        int32_t r, g, b, k;
    };
    int scan(const Cell& c, int32_t r, int32_t g, int32_t b);
    void build(size_t cellIndex, Cell& c);

    std::vector<std::array<int32_t, 3>> targets_;
    std::array<int64_t, 3> weights_{};
    std::vector<uint8_t> duplicate_;        ///< colour k equals an earlier colour
    int shift_ = 7, bits_ = 5, side_ = 32;  ///< cell side 2^shift_; side_ = 2^bits_ cells per axis
    std::vector<int64_t> scratch_;
    std::vector<Cell> cells_;
    std::vector<Candidate> pool_;
};

}  // namespace halftone
