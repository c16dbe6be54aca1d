#include "widgets/latencyprobe.h"

#include <ctime>

namespace {
/// CPU time of the calling thread in ms, or -1 where the platform has no per-thread clock.
double threadCpuMs() {
#if defined(CLOCK_THREAD_CPUTIME_ID)
    timespec ts{};
    if (clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts) == 0) return double(ts.tv_sec) * 1e3 + double(ts.tv_nsec) / 1e6;
#endif
    return -1;
}
}  // namespace

namespace halftone {

LatencyProbe::LatencyProbe(int intervalMs, QObject* parent) : QObject(parent) {
    timer_.setTimerType(Qt::PreciseTimer);
    timer_.setInterval(intervalMs);
    connect(&timer_, &QTimer::timeout, this, [this] {
        const qint64 now = clock_.nsecsElapsed();
        if (last_ >= 0 && double(now - last_) / 1e6 > longest_) {
            longest_ = double(now - last_) / 1e6;
            longestAt_ = double(now) / 1e6;
        }
        last_ = now;
        const double cpu = threadCpuMs();
        if (lastCpu_ >= 0 && cpu >= 0) longestBusy_ = std::max(longestBusy_, cpu - lastCpu_);
        lastCpu_ = cpu;
        ++ticks_;
    });
}

void LatencyProbe::start() {
    longest_ = 0;
    longestAt_ = 0;
    longestBusy_ = -1;
    lastCpu_ = threadCpuMs();
    ticks_ = 0;
    last_ = -1;
    clock_.start();
    timer_.start();
}

void LatencyProbe::stop() { timer_.stop(); }

}  // namespace halftone
