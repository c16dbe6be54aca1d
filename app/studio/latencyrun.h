#pragma once
// \brief The studio's --ui-latency run: halftone a synthetic image, zoom and pan as a user would, and print the UI
// thread's longest block.
namespace halftone {

class MainWindow;

/// \brief Runs the probe on a synthetic `side` x `side` image in `w` and returns the application's exit status
/// (0, or 1 when the run fails).
int runLatencyProbe(MainWindow& w, int side);

}  // namespace halftone
