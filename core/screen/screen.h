#pragma once
// \brief Threshold arrays ("screens") for ordered dither: Bayer, clustered dot, void-and-cluster blue noise,
// the DBS screen generator of Koge, Ito and Nakano, and screens loaded from files.
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "core/image.h"
#include "core/runcontrol.h"
#include "core/status.h"

namespace halftone {

/// \brief A periodic threshold array; entry t means "white where gray a > t" (Koge, Ito and Nakano's rule),
/// 0..254 normally.
using ThresholdArray = PlaneT<uint8_t>;

/// \brief Maps ranks 0..N-1 (each once) to thresholds floor(255 * rank / N): gray g then turns exactly
/// ceil(g N / 255) entries white.
ThresholdArray thresholdsFromRanks(const PlaneT<int32_t>& rank);

/// \brief The recursive Bayer array of side n (a power of two, 2..256).
Status bayerScreen(int n, ThresholdArray& out);

/// \brief Clustered-dot screen parameters: cell size in pixels, screen angle in degrees, dot shape.
struct ClusterParams {
    double cell = 8.0;
    double angle = 45.0;
    enum class Dot { Round, Elliptic } dot = Dot::Round;
};
/// \brief A clustered-dot screen: the cell vector is rounded to integers (a, b) so the array tiles; the array
/// side is (a^2 + b^2) / gcd(a, b).
Status clusteredDotScreen(const ClusterParams& params, ThresholdArray& out);

/// \brief Ulichney's void-and-cluster blue-noise array (side n, 8..1024), Gaussian sigma 1.5, seeded start
/// (core/screen/bluenoise.h has its ranks, frame sequences and cache).
Status voidAndClusterScreen(int n, uint64_t seed, ThresholdArray& out, const RunControl& control = {});

/// \brief Parameters of the DBS screen generator (Koge, Ito and Nakano, section 2.2, periodic, level by level).
struct DbsScreenParams {
    int size = 512;      ///< side of the (square, periodic) array; at least 4w+1 of the filter
    double sigma = 1.2;  ///< Gaussian HVS deviation in pixels
    int radius = 4;      ///< filter truncation w
    int maxPasses = 50;  ///< swap passes per level at most
    uint64_t seed = 1;   ///< tie-breaking between equally good positions
};
/// \brief Designs a periodic threshold array level by level: for g = 1..255 the dots of level g - 1 stay
/// (stacking), round(g N / 255) - round((g-1) N / 255) dots are added greedily into the largest voids of
/// the HVS-filtered pattern, then DBS swaps move only the new dots until no swap lowers the error.
Status dbsScreen(const DbsScreenParams& params, ThresholdArray& out, const RunControl& control = {});

/// \brief The shipped default DBS screen (resources/screens/dbs512.pgm, embedded at build time); when the
/// build has none, a 128 x 128 DBS screen generated on first use.
const ThresholdArray& defaultDbsScreen();
/// \brief A cached 64 x 64 void-and-cluster array (seed 1).
const ThresholdArray& defaultBlueNoiseScreen();

/// \brief Loads a threshold array from a file path; the CLI and studio install one that reads any image
/// format through io/; the built-in one reads binary PGM (P5, 8-bit).
using ScreenFileLoader = std::function<Status(const std::string& path, ThresholdArray& out)>;
void setScreenFileLoader(ScreenFileLoader loader);
/// \brief A threshold array from an 8-bit binary PGM held in memory (core/pnm.h reads it; pnm::encodePgm writes one).
Status parsePgm(const uint8_t* data, size_t size, ThresholdArray& out);

/// \brief Screen from its text form: "bayer:N", "cluster[:cell=C,angle=A,dot=round|elliptic]",
/// "blue-noise[:N]" or "blue-noise:size=N,seed=S,frames=T,frame=K" (parseBlueNoiseSpec), "dbs", or a file path
/// (anything else; a file that uses the value 255 is a full-range texture, rescaled t -> floor(255 t / 256)).
Status screenFromSpec(const std::string& spec, ThresholdArray& out, const RunControl& control = {});
/// \brief Checks a screen's text form without making the screen: sizes and options as screenFromSpec parses them,
/// and a file path for existence (not read). The `--screen` parameter's ParamSpec::check.
Status checkScreenSpec(const std::string& spec);

}  // namespace halftone
