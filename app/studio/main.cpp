// halftone-studio: the Qt 6 GUI. See the studio section of README.md.
#include <QApplication>
#include <QCommandLineParser>
#include <QElapsedTimer>
#include <QFile>
#include <QFutureWatcher>
#include <QIcon>
#include <QSettings>
#include <QTabWidget>
#include <QTimer>
#include <QtConcurrent/QtConcurrentRun>
#include <cstdio>

#include "core/registry.h"
#include "gpu/gpu.h"
#include "widgets/compareview.h"
#include "widgets/latencyprobe.h"
#include "widgets/mainwindow.h"
#include "widgets/methodpanel.h"

using namespace halftone;

namespace {

/// A large synthetic gray picture for --ui-latency (made off the UI thread).
Image latencyImage(int n) {
    Plane8 p(n, n);
    for (int y = 0; y < n; ++y) {
        uint8_t* r = p.row(y);
        for (int x = 0; x < n; ++x) r[x] = uint8_t((int64_t(x + y) * 255) / std::max(1, 2 * n - 2) ^ ((x * 7 + y * 13) & 15));
    }
    return Image::gray(std::move(p));
}

}  // namespace

int main(int argc, char** argv) {
    QApplication app(argc, argv);
    QApplication::setOrganizationName(QStringLiteral("HalftoneStudio"));
    QApplication::setApplicationName(QStringLiteral("halftone-studio"));
    QApplication::setApplicationDisplayName(QStringLiteral("Halftone Studio"));
    QApplication::setApplicationVersion(QStringLiteral("0.1.0"));
    if (QFile::exists(QStringLiteral(":/icons/halftone-studio.png"))) QApplication::setWindowIcon(QIcon(QStringLiteral(":/icons/halftone-studio.png")));

    QCommandLineParser cli;
    cli.setApplicationDescription(QStringLiteral("Halftone Studio: compare halftoning methods, watch their schedules, time them."));
    cli.addHelpOption();
    cli.addVersionOption();
    cli.addPositionalArgument(QStringLiteral("image"), QStringLiteral("image to open (any format OpenImageIO reads); the embedded sample when omitted"));
    const QCommandLineOption screenshot(QStringLiteral("screenshot"), QStringLiteral("open, run the current method, save a PNG of the window to FILE, quit"), QStringLiteral("FILE"));
    const QCommandLineOption tab(QStringLiteral("tab"), QStringLiteral("tab to show: compare, scheduling, benchmark, quality"), QStringLiteral("NAME"));
    const QCommandLineOption method(QStringLiteral("method"), QStringLiteral("method/variant to select, e.g. ed/rc"), QStringLiteral("M/V"));
    const QCommandLineOption device(QStringLiteral("device"), QStringLiteral("cpu, gpu or auto"), QStringLiteral("DEVICE"), QStringLiteral("auto"));
    const QCommandLineOption color(QStringLiteral("color"), QStringLiteral("gray, rgb or cmyk"), QStringLiteral("MODE"));
    const QCommandLineOption size(QStringLiteral("size"), QStringLiteral("window size WxH"), QStringLiteral("WxH"), QStringLiteral("1400x900"));
    const QCommandLineOption compare(QStringLiteral("compare"), QStringLiteral("run these methods one after another and keep each on screen, e.g. ed/plain,ordered/screen,dbs/sequential (up to 4)"), QStringLiteral("LIST"));
    const QCommandLineOption perceived(QStringLiteral("perceived"), QStringLiteral("start with the perceived (HVS-filtered) view on"));
    const QCommandLineOption split(QStringLiteral("split"), QStringLiteral("start in split-slider mode"));
    const QCommandLineOption latency(QStringLiteral("ui-latency"), QStringLiteral("halftone a synthetic N x N image and print the UI thread's longest block, then quit"), QStringLiteral("N"));
    cli.addOptions({screenshot, tab, method, device, color, size, compare, perceived, split, latency});
    cli.process(app);

    gpu::registerMethods(Registry::instance());
    MainWindow w(Registry::instance());
    // The last method, variant and settings come back, except in scripted starts (screenshots, probes, --compare),
    // which must not depend on what a user chose before.
    const bool scripted = cli.isSet(screenshot) || cli.isSet(latency) || cli.isSet(compare);
    if (!scripted) {
        QSettings settings;
        w.methodPanel()->restoreSettings(settings);
        QObject::connect(&app, &QCoreApplication::aboutToQuit, &w, [&w] {
            QSettings s;
            w.methodPanel()->saveSettings(s);
        });
    }

    const QStringList wh = cli.value(size).split(QLatin1Char('x'));
    if (wh.size() == 2 && wh[0].toInt() > 0 && wh[1].toInt() > 0) w.resize(wh[0].toInt(), wh[1].toInt());
    if (cli.isSet(method)) {
        const QString m = cli.value(method);
        if (!w.methodPanel()->setMethod(m.section(QLatin1Char('/'), 0, 0), m.section(QLatin1Char('/'), 1))) {
            std::fprintf(stderr, "halftone-studio: unknown method '%s' (see halftone --list)\n", qPrintable(m));
            return 2;
        }
    }
    const QString dev = cli.value(device).toLower();
    if (dev == QLatin1String("cpu")) w.methodPanel()->setDevice(Device::Cpu);
    else if (dev == QLatin1String("gpu")) w.methodPanel()->setDevice(Device::Gpu);
    if (cli.isSet(color)) {
        ColorMode cm;
        if (!parseColorMode(cli.value(color).toLower().toStdString(), cm)) {
            std::fprintf(stderr, "halftone-studio: unknown colour mode '%s'; use gray, rgb or cmyk\n", qPrintable(cli.value(color)));
            return 2;
        }
        w.methodPanel()->setColorMode(cm);
    }
    if (cli.isSet(tab))
        for (int i = 0; i < w.tabs()->count(); ++i)
            if (w.tabs()->tabText(i).compare(cli.value(tab), Qt::CaseInsensitive) == 0) w.tabs()->setCurrentIndex(i);

    if (cli.isSet(perceived)) w.setPerceivedView(true);
    if (cli.isSet(split)) w.setSplitView(true);
    // --compare: select the first method now; each finished result is pinned and the next one selected.
    QStringList queue = cli.value(compare).split(QLatin1Char(','), Qt::SkipEmptyParts).mid(0, 4);
    for (const QString& m : queue)
        if (!Registry::instance().find(m.section(QLatin1Char('/'), 0, 0).toStdString(), m.section(QLatin1Char('/'), 1).toStdString())) {
            std::fprintf(stderr, "halftone-studio: unknown method '%s' in --compare\n", qPrintable(m));
            return 2;
        }
    auto selectMethod = [&w](const QString& m) { w.methodPanel()->setMethod(m.section(QLatin1Char('/'), 0, 0), m.section(QLatin1Char('/'), 1)); };
    if (!queue.isEmpty()) selectMethod(queue.takeFirst());
    const bool shotNow = cli.isSet(screenshot) && queue.isEmpty();

    int exitCode = 0;
    if (!queue.isEmpty()) {
        w.setAutoRun(true);
        QObject::connect(&w, &MainWindow::resultShown, &w, [&, selectMethod] {
            if (queue.isEmpty()) return;
            w.pinCurrent();
            if (queue.size() == 1 && cli.isSet(screenshot)) w.setScreenshotPath(cli.value(screenshot), cli.value(tab));
            selectMethod(queue.takeFirst());  // runs through the auto-run on change
        });
    }
    if (cli.isSet(screenshot)) {
        if (shotNow) w.setScreenshotPath(cli.value(screenshot), cli.value(tab));
        QObject::connect(&w, &MainWindow::screenshotSaved, &app, [&](const QString& path, bool ok) {
            std::fprintf(ok ? stdout : stderr, ok ? "screenshot saved to %s\n" : "cannot write the screenshot %s\n", qPrintable(path));
            QApplication::exit(ok ? exitCode : 1);
        });
        QObject::connect(&w, &MainWindow::errorShown, &app, [&](const QString& text) {
            std::fprintf(stderr, "halftone-studio: %s\n", qPrintable(text));
            exitCode = 1;
        });
    }

    LatencyProbe probe(2);
    QElapsedTimer clock;
    if (cli.isSet(latency)) {
        const int n = cli.value(latency).toInt();
        if (n < 1 || n > 32768) {
            std::fprintf(stderr, "halftone-studio: --ui-latency needs a side between 1 and 32768\n");
            return 2;
        }
        w.setAutoRun(false);
        w.show();
        auto* watcher = new QFutureWatcher<std::shared_ptr<Image>>(&w);
        QObject::connect(watcher, &QFutureWatcher<std::shared_ptr<Image>>::finished, &w, [&, watcher] {
            probe.start();
            clock.start();
            w.setImage(std::move(*watcher->result()), QStringLiteral("synthetic %1 x %1").arg(n));
        });
        QObject::connect(&w, &MainWindow::resultShown, &app, [&](JobResultPtr r) {
            // Let the result paint, then interact as a user would: 1:1, pan, fit.
            QTimer::singleShot(100, &w, [&, r] {
                w.compareView()->actualSize();
                QTimer::singleShot(100, &w, [&, r] {
                    w.compareView()->viewState()->panBy(QPointF(300, 200));
                    QTimer::singleShot(100, &w, [&, r] {
                        w.compareView()->fitToWindow();
                        QTimer::singleShot(200, &w, [&, r] {
                            probe.stop();
                            std::printf("ui-latency: %d x %d, %s on %s: method %.3f s, load+run+show %.3f s, "
                                        "UI thread longest gap %.1f ms (ending %.0f ms after the start); most UI-thread CPU time between two ticks %.1f ms; %lld ticks\n",
                                        n, n, qPrintable(r->methodId), toString(r->device), r->seconds, clock.elapsed() / 1000.0,
                                        probe.longestGapMs(), probe.longestAtMs(), probe.longestBusyMs(), (long long)probe.ticks());
                            QApplication::exit(0);
                        });
                    });
                });
            });
        });
        QObject::connect(&w, &MainWindow::runFailed, &app, [&](const QString& m, bool) {
            std::fprintf(stderr, "halftone-studio: run failed: %s\n", qPrintable(m));
            QApplication::exit(1);
        });
        watcher->setFuture(QtConcurrent::run([n] { return std::make_shared<Image>(latencyImage(n)); }));
        return app.exec();
    }

    w.show();
    const QStringList files = cli.positionalArguments();
    if (!files.isEmpty()) w.openFile(files.front());
    else w.openSample();
    return app.exec();
}
