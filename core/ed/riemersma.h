#pragma once
// \brief Riemersma's dither (Riemersma 1998, "A Balanced Dithering Technique"): the pixels are visited along a
// space-filling curve and each is corrected by a weighted sum of the last 16 quantisation errors on the curve, the
// weights falling exponentially to 1/16 (docs/spec.md section 8). The curve is Cervený's generalised Hilbert curve,
// which covers any rectangle. Sequential by nature: every pixel depends on the one before it on the curve.
#include <array>
#include <cstdint>
#include <utility>
#include <vector>

#include "core/image.h"
#include "core/runcontrol.h"
#include "core/status.h"

namespace halftone {

class Registry;

/// \brief Options of Riemersma's dither: output levels (2..256) and the working space, as error diffusion's.
struct RiemersmaParams {
    int levels = 2;
    bool linear = false;  ///< diffuse in linear light (sRGB decoded)
};

/// \brief Length of the error list (Riemersma's SIZE).
inline constexpr int kRiemersmaListLength = 16;
/// \brief Divisor of the weighted sum: the weight of the newest error (Riemersma's MAX).
inline constexpr int kRiemersmaDivisor = 16;
/// \brief The weights, oldest error first: round(16^(i / 15)) for i = 0..15 (Riemersma's init_weights), so the
/// oldest error weighs 1/16 of the newest.
inline constexpr std::array<int, kRiemersmaListLength> kRiemersmaWeights = {1, 1, 1, 2, 2, 3,  3,  4,
                                                                            4, 5, 6, 8, 9, 11, 13, 16};

namespace curve {

/// \brief Cervený's generalised Hilbert curve: visits the rectangle from (x, y) spanned by the major axis (ax, ay) and
/// the minor axis (bx, by) (one of each pair zero), calling visit(row, col); false from visit stops the walk and is
/// returned.
template <class F>
bool generalisedHilbert(int x, int y, int ax, int ay, int bx, int by, F& visit) {
    const auto sgn = [](int v) { return (v > 0) - (v < 0); };
    const auto half = [](int v) { return v >= 0 ? v / 2 : -((-v + 1) / 2); };  // floor(v / 2)
    const int w = ax + ay >= 0 ? ax + ay : -(ax + ay), h = bx + by >= 0 ? bx + by : -(bx + by);
    const int dax = sgn(ax), day = sgn(ay), dbx = sgn(bx), dby = sgn(by);
    if (h == 1) {
        for (int i = 0; i < w; ++i, x += dax, y += day)
            if (!visit(y, x)) return false;
        return true;
    }
    if (w == 1) {
        for (int i = 0; i < h; ++i, x += dbx, y += dby)
            if (!visit(y, x)) return false;
        return true;
    }
    int ax2 = half(ax), ay2 = half(ay), bx2 = half(bx), by2 = half(by);
    const int w2 = ax2 + ay2 >= 0 ? ax2 + ay2 : -(ax2 + ay2), h2 = bx2 + by2 >= 0 ? bx2 + by2 : -(bx2 + by2);
    if (2 * w > 3 * h) {
        // long rectangle: two halves along the major axis (an even first half where possible)
        if ((w2 & 1) && w > 2) ax2 += dax, ay2 += day;
        return generalisedHilbert(x, y, ax2, ay2, bx, by, visit) &&
               generalisedHilbert(x + ax2, y + ay2, ax - ax2, ay - ay2, bx, by, visit);
    }
    // up the first half of the minor axis, along the whole major axis, back down
    if ((h2 & 1) && h > 2) bx2 += dbx, by2 += dby;
    return generalisedHilbert(x, y, bx2, by2, ax2, ay2, visit) &&
           generalisedHilbert(x + bx2, y + by2, ax, ay, bx - bx2, by - by2, visit) &&
           generalisedHilbert(x + (ax - dax) + (bx2 - dbx), y + (ay - day) + (by2 - dby), -bx2, -by2, -(ax - ax2),
                              -(ay - ay2), visit);
}

}  // namespace curve

/// \brief Calls visit(row, col) for every pixel of a width x height image exactly once, in the order of the
/// generalised Hilbert curve from the top-left pixel (docs/spec.md section 8); false from visit stops the walk.
/// Returns false when stopped.
template <class F>
bool forEachCurvePixel(int width, int height, F&& visit) {
    if (width <= 0 || height <= 0) return true;
    if (width >= height) return curve::generalisedHilbert(0, 0, width, 0, 0, height, visit);
    return curve::generalisedHilbert(0, 0, 0, height, width, 0, visit);
}

/// \brief The curve order as a list of (row, col), for tests and the scheduling view (8 bytes a pixel).
std::vector<std::pair<int, int>> curveOrder(int width, int height);

/// \brief Riemersma's dither of one plane (docs/spec.md section 8); dst gets the output values, same size.
Status riemersmaDither(const Plane8& src, Plane8& dst, const RiemersmaParams& params, const RunControl& control);

/// \brief Registers `riemersma/hilbert` in the method registry.
void registerRiemersmaMethods(Registry& r);

}  // namespace halftone
