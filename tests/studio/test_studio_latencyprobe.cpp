// The UI latency probe sees a block of the UI thread: the gap and the UI thread's own CPU time in it are
// at least as long as a deliberate busy block (lower bounds only; no timing of the product is asserted).
#include <QtTest>
#include <ctime>

#include "widgets/latencyprobe.h"

using namespace halftone;

class TestStudioLatencyProbe : public QObject {
    Q_OBJECT
private slots:
    void seesABlock();
};

void TestStudioLatencyProbe::seesABlock() {
    LatencyProbe probe(2);
    probe.start();
    QTRY_VERIFY(probe.ticks() >= 2);
    // A block of this (the UI) thread that uses 60 ms of its own CPU time (however loaded the machine is).
    auto cpuMs = [] {
        timespec ts{};
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
        return double(ts.tv_sec) * 1e3 + double(ts.tv_nsec) / 1e6;
    };
    const double c0 = cpuMs();
    volatile double sink = 0;
    while (cpuMs() - c0 < 60) sink = sink + 1.0;
    // the first tick after the block measures it
    const qint64 before = probe.ticks();
    QTRY_VERIFY(probe.ticks() > before);
    probe.stop();
    QVERIFY2(probe.longestGapMs() >= 60, qPrintable(QString::number(probe.longestGapMs())));
    QVERIFY2(probe.longestBusyMs() >= 60, qPrintable(QString::number(probe.longestBusyMs())));
    const qint64 ticks = probe.ticks();
    // stopped: a timer of the probe's interval fires several times, the probe no more
    QTimer reference;
    QSignalSpy fired(&reference, &QTimer::timeout);
    reference.start(2);
    QTRY_VERIFY(fired.count() >= 10);
    QCOMPARE(probe.ticks(), ticks);
}

QTEST_MAIN(TestStudioLatencyProbe)
#include "test_studio_latencyprobe.moc"
