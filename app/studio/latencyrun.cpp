#include "app/studio/latencyrun.h"

#include <QApplication>
#include <QElapsedTimer>
#include <QFutureWatcher>
#include <QTimer>
#include <QtConcurrent/QtConcurrentRun>
#include <cstdio>
#include <memory>

#include "widgets/compareview.h"
#include "widgets/latencyprobe.h"
#include "widgets/mainwindow.h"

namespace halftone {

namespace {

/// A large synthetic gray picture (made off the UI thread).
Image latencyImage(int n) {
    Plane8 p(n, n);
    for (int y = 0; y < n; ++y) {
        uint8_t* r = p.row(y);
        for (int x = 0; x < n; ++x)
            r[x] = uint8_t((int64_t(x + y) * 255) / std::max(1, 2 * n - 2) ^ ((x * 7 + y * 13) & 15));
    }
    return Image::gray(std::move(p));
}

/// After `r` is shown, interacts as a user would (1:1, pan, fit), then prints the probe's numbers and quits with 0.
void interactThenReport(MainWindow& w, LatencyProbe& probe, const QElapsedTimer& clock, int n, JobResultPtr r) {
    QTimer::singleShot(100, &w, [&, r, n] {
        w.compareView()->actualSize();
        QTimer::singleShot(100, &w, [&, r, n] {
            w.compareView()->viewState()->panBy(QPointF(300, 200));
            QTimer::singleShot(100, &w, [&, r, n] {
                w.compareView()->fitToWindow();
                QTimer::singleShot(200, &w, [&, r, n] {
                    probe.stop();
                    std::printf(
                        "ui-latency: %d x %d, %s on %s: method %.3f s, load+run+show %.3f s, "
                        "UI thread longest gap %.1f ms (ending %.0f ms after the start); most UI-thread CPU "
                        "time between two ticks %.1f ms; %lld ticks\n",
                        n, n, qPrintable(r->methodId), toString(r->device), r->seconds, clock.elapsed() / 1000.0,
                        probe.longestGapMs(), probe.longestAtMs(), probe.longestBusyMs(), (long long)probe.ticks());
                    QApplication::exit(0);
                });
            });
        });
    });
}

}  // namespace

int runLatencyProbe(MainWindow& w, int n) {
    LatencyProbe probe(2);
    QElapsedTimer clock;
    w.setAutoRun(false);
    w.show();
    auto* watcher = new QFutureWatcher<std::shared_ptr<Image>>(&w);
    QObject::connect(watcher, &QFutureWatcher<std::shared_ptr<Image>>::finished, &w, [&, watcher, n] {
        probe.start();
        clock.start();
        w.setImage(std::move(*watcher->result()), QStringLiteral("synthetic %1 x %1").arg(n));
    });
    QObject::connect(&w, &MainWindow::resultShown, qApp,
                     [&, n](JobResultPtr r) { interactThenReport(w, probe, clock, n, r); });
    QObject::connect(&w, &MainWindow::runFailed, qApp, [](const QString& m, bool) {
        std::fprintf(stderr, "halftone-studio: run failed: %s\n", qPrintable(m));
        QApplication::exit(1);
    });
    watcher->setFuture(QtConcurrent::run([n] { return std::make_shared<Image>(latencyImage(n)); }));
    return QApplication::exec();
}

}  // namespace halftone
