#pragma once
// \brief Amplitude-modulated (AM) screening: clustered dots on a rotated screen at a given ruling (lines per
// inch) on a device of a given resolution (dots per inch), each ink at its own angle (docs/print.md).
#include <array>
#include <string>

#include "core/image.h"
#include "core/runcontrol.h"
#include "core/status.h"

namespace halftone {

/// \brief The dot shapes of the AM screen.
enum class AmDot {
    Round,     ///< Euclidean dot: round dots, a checkerboard at 50 %, round holes in the shadows
    Elliptic,  ///< chain dot: ellipses along the screen angle that join along it first, then across it
    Square,    ///< square dots, a checkerboard at 50 %, square holes in the shadows
    Line,      ///< lines along the screen angle whose width follows the tone
};

/// \brief Parses "round", "elliptic", "square" or "line".
bool parseAmDot(const std::string& s, AmDot& out);

/// \brief One ink's screen: ruling, device resolution, angle and dot shape, and what the plane's values mean.
struct AmScreenParams {
    double lpi = 60.0;    ///< screen ruling: cells (lines) per inch
    double dpi = 600.0;   ///< device resolution: pixels of the plane per inch
    double angle = 45.0;  ///< degrees, counter-clockwise from the horizontal as seen on the page
    AmDot dot = AmDot::Round;
    /// False: the plane is light (gray, R, G, B; 255 = paper) and the dots are black (0). True: the plane is an
    /// ink amount (C, M, Y, K; 255 = solid) and the dots are 255.
    bool inkPlane = false;
};

/// \brief The screen's period in device pixels, dpi / lpi.
inline double amPeriod(const AmScreenParams& p) { return p.dpi / p.lpi; }

/// \brief Checks ruling, resolution and angle: the period dpi / lpi must be 2 to 2048 pixels.
Status checkAmScreen(const AmScreenParams& p);

/// \brief Screens one plane (irrational screening: every pixel centre is rotated into the screen's cell in double
/// precision, so period and angle are exact, with no rounded tile); parallel over row blocks, cancellable.
Status amScreen(const Plane8& src, Plane8& dst, const AmScreenParams& p, const RunControl& control = {});

/// \brief The coverage threshold of the dot shape at cell coordinates (X, Y) in [-1, 1): the fraction of the cell
/// area inked before this point, in [0, 1). A pixel is inked when 255 x threshold < its ink amount.
double amThreshold(AmDot dot, double X, double Y);

/// \brief Parses the ink angles "C,M,Y,K" (four numbers of degrees) or one number for every ink.
Status parseAmAngles(const std::string& text, std::array<double, 4>& cmyk);

/// \brief The angle of a channel (registry.h's kChannelKey values): c, m, y, k their own; r, g, b those of their
/// complements c, m, y; gray that of black.
double amAngleFor(const std::array<double, 4>& cmyk, const std::string& channel);

class Registry;
/// \brief Registers `am/clustered` (family "ordered", display name "AM screen").
void registerAmScreenMethods(Registry& r);

}  // namespace halftone
