#pragma once
// \brief Dot diffusion (Knuth 1987) with Knuth's class matrix and the optimised class matrices of Mese and
// Vaidyanathan (2000), in integers (docs/spec.md section 7): run class by class, every pixel of one class at once.
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "core/image.h"
#include "core/runcontrol.h"
#include "core/status.h"

namespace halftone {

/// \brief An n x n class matrix: a permutation of 0 .. n^2 - 1 tiled over the image from the top-left corner.
struct ClassMatrix {
    std::string name;          ///< "knuth", "mese-vaidyanathan-8", "mese-vaidyanathan-16"
    std::string title;         ///< for people: "Knuth 8 x 8"
    int size = 0;              ///< n
    std::vector<int32_t> cls;  ///< n x n, row-major

    int classes() const { return size * size; }
    /// \brief The class of pixel (row, col) of an image the matrix is tiled over.
    int classAt(int row, int col) const { return cls[size_t(row % size) * size_t(size) + size_t(col % size)]; }
};

/// \brief The built-in class matrices, Knuth's first (the default).
const std::vector<ClassMatrix>& classMatrices();
/// \brief The class matrix called `name`, or nullptr.
const ClassMatrix* findClassMatrix(const std::string& name);
/// \brief Checks that a matrix is a permutation of 0 .. n^2 - 1 with n >= 3 (so that no two 8-neighbours of the
/// tiled image share a class, which is what lets one class run in parallel).
Status validateClassMatrix(const ClassMatrix& m);

/// \brief The schedule-model name of dot diffusion with class matrix `matrix` ("dot-knuth"): the step of pixel (i, j)
/// is its class.
std::string dotSchedule(const std::string& matrix);

/// \brief The share of error `e` a receiver of neighbour weight `w` gets from a sender of weight sum `W` (docs/spec.md
/// section 7): floor((w e + floor(W / 2)) / W).
int32_t dotShare(int32_t w, int32_t e, int32_t W);
/// \brief W(q): the summed weights (2 orthogonal, 1 diagonal) of the neighbours of (i, j) inside a width x height
/// image whose class is higher; 0 for a baron.
int32_t dotWeightSum(const ClassMatrix& m, int width, int height, int i, int j);

/// \brief Parameters of dot diffusion.
struct DotParams {
    std::string matrix = "knuth";
    int levels = 2;
    bool linear = false;
    int threads = 0;  ///< 0 = RunControl::threads, else every hardware thread
};

/// \brief Called once per pixel as it is halftoned: its row, column and the class step being run. The parallel form
/// calls it from several threads at once (pixels of one class only).
using DotVisit = std::function<void(int row, int col, int step)>;

/// \brief Dot diffusion on the CPU in collection form: for each class c = 0 .. n^2 - 1, every pixel of class c
/// gathers the shares of its lower-class neighbours and is quantised, all of them at once over the worker pool.
/// The output does not depend on the thread count. Progress is reported per class; cancel is checked per class and
/// per chunk of rows.
Status dotDiffuse(const Plane8& src, Plane8& dst, const DotParams& params, const RunControl& control = {},
                  const DotVisit& visit = {});

/// \brief The sequential reference, in diffusion form as Knuth writes it: class by class, the pixels of a class in
/// raster order on one thread, each scattering its shares to its higher-class neighbours. docs/spec.md section 7
/// literally; dotDiffuse is tested against it bit for bit.
Plane8 referenceDotDiffusion(const Plane8& src, const DotParams& params, const DotVisit& visit = {});

}  // namespace halftone
