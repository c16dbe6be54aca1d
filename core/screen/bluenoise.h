#pragma once
// \brief Blue-noise threshold arrays: Ulichney's void-and-cluster, with the spatiotemporal energy of Wolfe, Morrical
// and Ramamoorthi for frame sequences; their text form and a cache.
#include <cstdint>
#include <string>
#include <vector>

#include "core/image.h"
#include "core/runcontrol.h"
#include "core/screen/screen.h"
#include "core/status.h"

namespace halftone {

inline constexpr int kMinBlueNoiseSize = 8;
inline constexpr int kMaxBlueNoiseSize = 1024;
inline constexpr int kMaxBlueNoiseFrames = 64;

/// \brief A blue-noise array's definition; equal parameters give equal arrays on every machine and run.
struct BlueNoiseParams {
    int size = 64;  ///< side of the square, periodic array
    uint64_t seed = 1;
    int frames = 1;  ///< > 1: a spatiotemporal array of that many frames
    int frame = 0;   ///< the frame returned by blueNoiseScreen (taken modulo `frames`)
};

/// \brief Void-and-cluster ranks (Ulichney 1993) of `frames` periodic n x n frames, Gaussian energy sigma 1.5.
/// With one frame, each of the n^2 ranks occurs once. With more, the energy of a dot spreads over its own frame
/// (spatial Gaussian) and over the same pixel in the neighbouring frames (temporal Gaussian, periodic in time;
/// Wolfe, Morrical and Ramamoorthi 2022), the volume is ordered as one, and each frame's ranks are its dots' order
/// in the volume: every frame is a permutation of 0..n^2-1 on its own.
Status voidAndClusterRanks(int n, int frames, uint64_t seed, std::vector<PlaneT<int32_t>>& out,
                           const RunControl& control = {});

/// \brief Reads the options of a `blue-noise` screen spec (the text after "blue-noise:"): a bare size N, or items
/// size=N, seed=S, frames=T, frame=K separated by commas; the first item may be a bare size. Checks ranges;
/// generates nothing.
Status parseBlueNoiseSpec(const std::string& options, BlueNoiseParams& out);

/// \brief The threshold array of `params` (its frame `frame`), generated once per process and cached.
Status blueNoiseScreen(const BlueNoiseParams& params, ThresholdArray& out, const RunControl& control = {});

}  // namespace halftone
