#pragma once
// \brief Measures how long the UI thread is blocked: a fast QTimer whose tick gaps show every stall.
#include <QElapsedTimer>
#include <QObject>
#include <QTimer>

namespace halftone {

/// \brief Ticks every `intervalMs` on the thread it lives on; the longest gap minus the interval is the longest block.
class LatencyProbe : public QObject {
    Q_OBJECT
public:
    explicit LatencyProbe(int intervalMs = 2, QObject* parent = nullptr);
    void start();
    void stop();
    /// \brief Longest time between two ticks, in ms (includes the interval itself).
    double longestGapMs() const { return longest_; }
    qint64 ticks() const { return ticks_; }
    /// \brief Most CPU time the UI thread itself used between two ticks, in ms: the longest block caused by
    /// work on the UI thread, as opposed to the thread waiting for a core on a loaded machine (-1 if unknown).
    double longestBusyMs() const { return longestBusy_; }
    /// \brief When the longest gap ended, in ms since start().
    double longestAtMs() const { return longestAt_; }

private:
    QTimer timer_;
    QElapsedTimer clock_;
    qint64 last_ = -1;
    double longest_ = 0;
    double longestAt_ = 0;
    double longestBusy_ = -1;
    double lastCpu_ = -1;
    qint64 ticks_ = 0;
};

}  // namespace halftone
