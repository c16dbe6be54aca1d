#include "widgets/latencyprobe.h"

namespace halftone {

LatencyProbe::LatencyProbe(int intervalMs, QObject* parent) : QObject(parent) {
    timer_.setTimerType(Qt::PreciseTimer);
    timer_.setInterval(intervalMs);
    connect(&timer_, &QTimer::timeout, this, [this] {
        const qint64 now = clock_.nsecsElapsed();
        if (last_ >= 0) longest_ = std::max(longest_, double(now - last_) / 1e6);
        last_ = now;
        ++ticks_;
    });
}

void LatencyProbe::start() {
    longest_ = 0;
    ticks_ = 0;
    last_ = -1;
    clock_.start();
    timer_.start();
}

void LatencyProbe::stop() { timer_.stop(); }

}  // namespace halftone
