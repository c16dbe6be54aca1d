#include "app/studio/latencyrun.h"

#include <QApplication>
#include <QDoubleSpinBox>
#include <QElapsedTimer>
#include <QFutureWatcher>
#include <QTimer>
#include <QtConcurrent/QtConcurrentRun>
#include <cstdio>
#include <fstream>
#include <memory>
#include <string>
#include <sys/resource.h>

#include "widgets/adjustpanel.h"
#include "widgets/compareview.h"
#include "widgets/latencyprobe.h"
#include "widgets/mainwindow.h"
#include "widgets/methodpanel.h"

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

/// Seconds of CPU time (user + system, every thread) the process has used.
double cpuSeconds() {
    rusage u{};
    getrusage(RUSAGE_SELF, &u);
    return double(u.ru_utime.tv_sec + u.ru_stime.tv_sec) + double(u.ru_utime.tv_usec + u.ru_stime.tv_usec) / 1e6;
}

/// The process's resident set and its peak, in bytes (/proc/self/status).
void residentBytes(double& now, double& peak) {
    std::ifstream f("/proc/self/status");
    std::string line;
    now = peak = 0;
    while (std::getline(f, line)) {
        if (line.rfind("VmRSS:", 0) == 0) now = std::stod(line.substr(6)) * 1024;
        if (line.rfind("VmHWM:", 0) == 0) peak = std::stod(line.substr(6)) * 1024;
    }
}

/// The steps after the first result: a setting change of the shown result (brightness up by 10, as a user tunes the
/// Adjust panel), then a kernel change to Jarvis, each timed to its result on screen; then two more methods (ordered
/// dither, plain Floyd-Steinberg error diffusion), so that five results are cached; then the resident memory per
/// image pixel. Prints one line each, then `done`.
void changeThenMeasureMemory(MainWindow& w, int n, std::function<void()> done) {
    struct Step {
        const char* what;
        std::function<void()> apply;
    };
    auto steps = std::make_shared<std::vector<Step>>(std::vector<Step>{
        {"brightness +10", [&w] { w.adjustPanel()->brightnessSpin()->setValue(10); }},
        {"kernel change to Jarvis",
         [&w] { w.methodPanel()->setParam(QStringLiteral("kernel"), QStringLiteral("jarvis")); }},
        {"ordered/screen", [&w] { w.methodPanel()->setMethod(QStringLiteral("ordered"), QStringLiteral("screen")); }},
        {"ed/plain", [&w] { w.methodPanel()->setMethod(QStringLiteral("ed"), QStringLiteral("plain")); }},
    });
    auto next = std::make_shared<std::function<void(size_t)>>();
    *next = [&w, n, steps, next, done](size_t i) {
        if (i == steps->size()) {
            double rss = 0, peak = 0;
            residentBytes(rss, peak);
            const double pixels = double(n) * n;
            std::printf(
                "ui-latency: after %zu methods: resident %.0f MB (%.1f bytes a pixel), peak %.0f MB "
                "(%.1f bytes a pixel); %zu results cached\n",
                steps->size() + 1, rss / 1e6, rss / pixels, peak / 1e6, peak / pixels, size_t(w.jobs()->cacheSize()));
            done();
            return;
        }
        auto clock = std::make_shared<QElapsedTimer>();
        const double cpu0 = cpuSeconds();
        auto conn = std::make_shared<QMetaObject::Connection>();
        *conn = QObject::connect(&w, &MainWindow::resultShown, &w, [=, &w](JobResultPtr r) {
            QObject::disconnect(*conn);
            std::printf("ui-latency: %s: %s shown after %.3f s (method %.3f s), %.3f CPU-s\n", (*steps)[i].what,
                        qPrintable(r->methodId), clock->elapsed() / 1000.0, r->seconds, cpuSeconds() - cpu0);
            QTimer::singleShot(50, &w, [=] { (*next)(i + 1); });
        });
        clock->start();
        (*steps)[i].apply();
        w.runCurrent();
    };
    (*next)(0);
}

/// After `r` is shown, interacts as a user would (1:1, pan, fit), then prints the probe's numbers and quits with 0.
void interactThenReport(MainWindow& w, LatencyProbe& probe, const QElapsedTimer& clock, int n, JobResultPtr r) {
    const qint64 firstShown = clock.elapsed();
    const double cpu = cpuSeconds();
    std::printf("ui-latency: first result shown %.3f s after the image was given, %.3f CPU-s since launch\n",
                firstShown / 1000.0, cpu);
    QTimer::singleShot(100, &w, [&, r, n, firstShown] {
        w.compareView()->actualSize();
        QTimer::singleShot(100, &w, [&, r, n, firstShown] {
            w.compareView()->viewState()->panBy(QPointF(300, 200));
            QTimer::singleShot(100, &w, [&, r, n, firstShown] {
                w.compareView()->fitToWindow();
                QTimer::singleShot(200, &w, [&, r, n, firstShown] {
                    probe.stop();
                    std::printf(
                        "ui-latency: %d x %d, %s on %s: method %.3f s, load+run+show %.3f s, "
                        "UI thread longest gap %.1f ms (ending %.0f ms after the start); most UI-thread CPU "
                        "time between two ticks %.1f ms; %lld ticks\n",
                        n, n, qPrintable(r->methodId), toString(r->device), r->seconds, firstShown / 1000.0,
                        probe.longestGapMs(), probe.longestAtMs(), probe.longestBusyMs(), (long long)probe.ticks());
                    changeThenMeasureMemory(w, n, [] { QApplication::exit(0); });
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
    auto first = std::make_shared<bool>(true);
    QObject::connect(&w, &MainWindow::resultShown, qApp, [&, n, first](JobResultPtr r) {
        if (!*first) return;
        *first = false;
        interactThenReport(w, probe, clock, n, r);
    });
    QObject::connect(&w, &MainWindow::runFailed, qApp, [](const QString& m, bool) {
        std::fprintf(stderr, "halftone-studio: run failed: %s\n", qPrintable(m));
        QApplication::exit(1);
    });
    watcher->setFuture(QtConcurrent::run([n] { return std::make_shared<Image>(latencyImage(n)); }));
    return QApplication::exec();
}

}  // namespace halftone
