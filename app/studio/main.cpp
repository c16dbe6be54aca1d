// halftone-studio: the Qt 6 GUI. See the studio section of README.md.
#include <QApplication>
#include <QCommandLineParser>
#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QFileInfo>
#include <QFutureWatcher>
#include <QIcon>
#include <QSettings>
#include <QTabWidget>
#include <QTimer>
#include <QtConcurrent/QtConcurrentRun>
#include <cstdio>

#include "core/job/registry.h"
#include "gpu/gpu.h"
#include "widgets/adjustpanel.h"
#include "widgets/compareview.h"
#include "widgets/latencyprobe.h"
#include "widgets/mainwindow.h"
#include "widgets/methodpanel.h"
#include "widgets/palettepanel.h"

using namespace halftone;

namespace {

/// A large synthetic gray picture for --ui-latency (made off the UI thread).
Image latencyImage(int n) {
    Plane8 p(n, n);
    for (int y = 0; y < n; ++y) {
        uint8_t* r = p.row(y);
        for (int x = 0; x < n; ++x)
            r[x] = uint8_t((int64_t(x + y) * 255) / std::max(1, 2 * n - 2) ^ ((x * 7 + y * 13) & 15));
    }
    return Image::gray(std::move(p));
}

/// Prints "halftone-studio: MESSAGE" to stderr and gives the exit code for a bad command line.
int usageError(const QString& message) {
    std::fprintf(stderr, "halftone-studio: %s\n", qPrintable(message));
    return 2;
}

const MethodInfo* findMethod(const QString& id) {
    if (!id.contains(QLatin1Char('/'))) return nullptr;
    return Registry::instance().find(id.section(QLatin1Char('/'), 0, 0).toStdString(),
                                     id.section(QLatin1Char('/'), 1).toStdString());
}

}  // namespace

// Every startup option ends: a bad value, a bad method or a bad combination exits with 2 and a message
// before the window opens; with --screenshot a file that cannot be read or a run that fails exits with 1
// (after saving a screenshot that shows the error); --ui-latency exits 0 or 1.
int main(int argc, char** argv) {
    QApplication app(argc, argv);
    QApplication::setOrganizationName(QStringLiteral("HalftoneStudio"));
    QApplication::setApplicationName(QStringLiteral("halftone-studio"));
    QApplication::setApplicationDisplayName(QStringLiteral("Halftone Studio"));
    QApplication::setApplicationVersion(QStringLiteral("0.1.0"));
    if (QFile::exists(QStringLiteral(":/icons/halftone-studio.png")))
        QApplication::setWindowIcon(QIcon(QStringLiteral(":/icons/halftone-studio.png")));

    QCommandLineParser cli;
    cli.setApplicationDescription(
        QStringLiteral("Halftone Studio: compare halftoning methods, watch their schedules, time them.\n"
                       "Exit status: 0 on success, 1 when the image cannot be read, a run fails or the screenshot "
                       "cannot be written, 2 for a bad option."));
    cli.addHelpOption();
    cli.addVersionOption();
    cli.addPositionalArgument(
        QStringLiteral("image"),
        QStringLiteral("image to open (any format OpenImageIO reads); the embedded sample when omitted"));
    const QCommandLineOption screenshot(
        QStringLiteral("screenshot"),
        QStringLiteral("open, run the current method, save a PNG of the window to FILE, quit"), QStringLiteral("FILE"));
    const QCommandLineOption tab(QStringLiteral("tab"),
                                 QStringLiteral("tab to show: compare, scheduling, benchmark, quality"),
                                 QStringLiteral("NAME"));
    const QCommandLineOption method(QStringLiteral("method"), QStringLiteral("method/variant to select, e.g. ed/rc"),
                                    QStringLiteral("M/V"));
    const QCommandLineOption device(QStringLiteral("device"), QStringLiteral("cpu, gpu or auto"),
                                    QStringLiteral("DEVICE"), QStringLiteral("auto"));
    const QCommandLineOption color(QStringLiteral("color"), QStringLiteral("gray, rgb or cmyk"),
                                   QStringLiteral("MODE"));
    const QCommandLineOption size(QStringLiteral("size"), QStringLiteral("window size WxH"), QStringLiteral("WxH"),
                                  QStringLiteral("1400x900"));
    const QCommandLineOption compare(QStringLiteral("compare"),
                                     QStringLiteral("run these methods one after another and keep each on screen, e.g. "
                                                    "ed/plain,ordered/screen,dbs/sequential (up to 4)"),
                                     QStringLiteral("LIST"));
    const QCommandLineOption perceived(QStringLiteral("perceived"),
                                       QStringLiteral("start with the perceived (HVS-filtered) view on"));
    const QCommandLineOption split(QStringLiteral("split"), QStringLiteral("start in split-slider mode"));
    const QCommandLineOption palette(
        QStringLiteral("palette"),
        QStringLiteral("halftone to a palette: a built-in name (halftone --list-palettes), auto:N (N colours from the "
                       "image) or a palette file"),
        QStringLiteral("SPEC"));
    const QCommandLineOption printPreview(QStringLiteral("print-preview"),
                                          QStringLiteral("start with CMYK results shown as printed (process inks on "
                                                         "white paper)"));
    const QCommandLineOption latency(
        QStringLiteral("ui-latency"),
        QStringLiteral("halftone a synthetic N x N image and print the UI thread's longest block, then quit"),
        QStringLiteral("N"));
    cli.addOptions(
        {screenshot, tab, method, device, color, size, compare, perceived, split, palette, printPreview, latency});
    cli.process(app);  // unknown options and missing values: a message and exit status 1

    gpu::registerMethods(Registry::instance());
    gpu::startInBackground();  // context, kernels and staging memory on a thread of their own (idempotent)
    const GpuAvailability& gpuState = Registry::instance().gpuAvailability();

    // ---- check every option before anything opens
    const QStringList files = cli.positionalArguments();
    if (files.size() > 1)
        return usageError(QStringLiteral("give one image to open, not %1 (%2)")
                              .arg(files.size())
                              .arg(files.join(QStringLiteral(", "))));
    int winW = 0, winH = 0;
    {
        const QStringList wh = cli.value(size).toLower().split(QLatin1Char('x'));
        bool okW = false, okH = false;
        if (wh.size() == 2) {
            winW = wh[0].trimmed().toInt(&okW);
            winH = wh[1].trimmed().toInt(&okH);
        }
        if (!okW || !okH || winW < 200 || winH < 150 || winW > 16384 || winH > 16384)
            return usageError(
                QStringLiteral(
                    "--size '%1': give the window size as WIDTHxHEIGHT between 200x150 and 16384x16384, e.g. 1400x900")
                    .arg(cli.value(size)));
    }
    const QString dev = cli.value(device).toLower();
    if (dev != QLatin1String("cpu") && dev != QLatin1String("gpu") && dev != QLatin1String("auto"))
        return usageError(QStringLiteral("unknown --device '%1'; choose cpu, gpu or auto").arg(cli.value(device)));
    ColorMode colorMode = ColorMode::Gray;
    if (cli.isSet(color) && !parseColorMode(cli.value(color).toLower().toStdString(), colorMode))
        return usageError(QStringLiteral("unknown colour mode '%1'; use gray, rgb or cmyk").arg(cli.value(color)));
    QStringList methods;  // what will run: --method, or the --compare list
    if (cli.isSet(method)) {
        if (cli.isSet(compare))
            return usageError(
                QStringLiteral("--method and --compare cannot be combined: --compare names every method to run"));
        if (!findMethod(cli.value(method)))
            return usageError(
                QStringLiteral("unknown method '%1' (give method/variant, e.g. ed/plain; see halftone --list)")
                    .arg(cli.value(method)));
        methods << cli.value(method);
    }
    QStringList queue;
    if (cli.isSet(compare)) {
        for (const QString& m : cli.value(compare).split(QLatin1Char(','))) queue << m.trimmed();
        queue.removeAll(QString());
        if (queue.isEmpty())
            return usageError(QStringLiteral("--compare needs a list of methods, e.g. ed/plain,ordered/screen"));
        if (queue.size() > 4)
            return usageError(QStringLiteral("--compare takes up to 4 methods, not %1").arg(queue.size()));
        for (int i = 0; i < queue.size(); ++i) {
            if (!findMethod(queue[i]))
                return usageError(
                    QStringLiteral("unknown method '%1' in --compare (see halftone --list)").arg(queue[i]));
            if (queue.indexOf(queue[i]) != i)
                return usageError(QStringLiteral("method '%1' is listed twice in --compare").arg(queue[i]));
        }
        methods = queue;
    }
    for (const QString& id : methods) {
        const MethodInfo* m = findMethod(id);
        if (dev == QLatin1String("gpu") && !m->gpu)
            return usageError(QStringLiteral("--device gpu: method %1 has no GPU implementation").arg(id));
        if (dev == QLatin1String("cpu") && !m->runsOnCpu())
            return usageError(QStringLiteral("--device cpu: method %1 runs only on a GPU").arg(id));
        if (!m->runsOnCpu() && !gpuState.usable) {
            // The method panel does not offer such a variant, so the run could never start: say why and stop.
            std::fprintf(stderr, "halftone-studio: method %s runs only on a GPU, and no GPU is usable (%s)\n",
                         qPrintable(id), gpuState.reason.c_str());
            return 1;
        }
    }
    int autoColours = 0;  // --palette auto:N
    if (cli.isSet(palette)) {
        const std::string spec = cli.value(palette).toStdString();
        if (Status s = parseAutoPaletteSpec(spec, autoColours); !s)
            return usageError(QStringLiteral("--palette: %1").arg(QString::fromStdString(s.message())));
        Palette p;
        if (autoColours == 0 && !findBuiltinPalette(spec))
            if (Status s = loadPaletteFile(spec, p); !s)
                return usageError(
                    QStringLiteral("--palette '%1' is not a built-in palette (halftone --list-palettes) and cannot be "
                                   "read as a palette file: %2")
                        .arg(cli.value(palette), QString::fromStdString(s.message())));
        for (const QString& id : methods)
            if (const MethodInfo* m = findMethod(id); m && !m->hasPaletteForm())
                return usageError(QStringLiteral("--palette: method %1 cannot halftone to a palette").arg(id));
    }
    if (dev == QLatin1String("gpu") && !gpuState.usable)
        std::fprintf(stderr, "halftone-studio: no usable GPU (%s); methods with a CPU path run on the CPU\n",
                     gpuState.reason.c_str());
    int latencySide = 0;
    if (cli.isSet(latency)) {
        bool ok = false;
        latencySide = cli.value(latency).toInt(&ok);
        if (!ok || latencySide < 1 || latencySide > 32768)
            return usageError(
                QStringLiteral("--ui-latency '%1': give a side between 1 and 32768").arg(cli.value(latency)));
        if (!files.isEmpty() || cli.isSet(compare) || cli.isSet(screenshot))
            return usageError(
                QStringLiteral("--ui-latency runs on its own synthetic image; it cannot be combined with an image "
                               "file, --compare or --screenshot"));
    }
    if (cli.isSet(screenshot)) {
        const QFileInfo shot(cli.value(screenshot));
        if (cli.value(screenshot).isEmpty()) return usageError(QStringLiteral("--screenshot needs a file name"));
        if (!shot.absoluteDir().exists())
            return usageError(QStringLiteral("cannot write the screenshot %1: the folder %2 does not exist")
                                  .arg(cli.value(screenshot), shot.absolutePath()));
        if (shot.isDir())
            return usageError(
                QStringLiteral("cannot write the screenshot %1: it is a folder").arg(cli.value(screenshot)));
        if (!files.isEmpty() && QFileInfo(files.front()).exists() && shot.exists() &&
            QFileInfo(files.front()).canonicalFilePath() == shot.canonicalFilePath())
            return usageError(
                QStringLiteral("refusing to overwrite the image %1 with the screenshot").arg(files.front()));
    }

    MainWindow w(Registry::instance());
    // The last method, variant and settings come back, except in scripted starts (screenshots, probes, --compare),
    // which must not depend on what a user chose before.
    const bool scripted = cli.isSet(screenshot) || cli.isSet(latency) || cli.isSet(compare);
    if (!scripted) {
        QSettings settings;
        w.methodPanel()->restoreSettings(settings);
        w.adjustPanel()->restoreSettings(settings);
        QObject::connect(&app, &QCoreApplication::aboutToQuit, &w, [&w] {
            QSettings s;
            w.methodPanel()->saveSettings(s);
            w.adjustPanel()->saveSettings(s);
        });
    }
    if (cli.isSet(tab)) {
        int index = -1;
        QStringList names;
        for (int i = 0; i < w.tabs()->count(); ++i) {
            names << w.tabs()->tabText(i).toLower().remove(QLatin1Char('&'));
            if (names.back().compare(cli.value(tab), Qt::CaseInsensitive) == 0) index = i;
        }
        if (index < 0)
            return usageError(
                QStringLiteral("unknown --tab '%1'; choose %2").arg(cli.value(tab), names.join(QStringLiteral(", "))));
        w.tabs()->setCurrentIndex(index);
    }

    w.resize(winW, winH);
    if (cli.isSet(method))
        w.methodPanel()->setMethod(cli.value(method).section(QLatin1Char('/'), 0, 0),
                                   cli.value(method).section(QLatin1Char('/'), 1));
    if (dev == QLatin1String("cpu"))
        w.methodPanel()->setDevice(Device::Cpu);
    else if (dev == QLatin1String("gpu"))
        w.methodPanel()->setDevice(Device::Gpu);
    if (cli.isSet(color)) w.methodPanel()->setColorMode(colorMode);

    if (cli.isSet(palette)) {
        if (const MethodInfo* m = w.methodPanel()->method(); !m || !m->hasPaletteForm())
            return usageError(QStringLiteral("--palette: method %1 cannot halftone to a palette; name one that can "
                                             "with --method, e.g. ed/plain")
                                  .arg(m ? QString::fromStdString(m->id()) : QStringLiteral("(none)")));
        PalettePanel* pp = w.methodPanel()->palettePanel();
        const QString spec = cli.value(palette);
        if (autoColours > 0)
            pp->selectAuto(autoColours);
        else if (!pp->selectBuiltin(spec))
            pp->loadFile(spec);
    }
    if (cli.isSet(printPreview)) w.setPrintPreview(true);
    if (cli.isSet(perceived)) w.setPerceivedView(true);
    if (cli.isSet(split)) w.setSplitView(true);
    // --compare: select the first method now; each finished result is pinned and the next one selected.
    auto selectMethod = [&w](const QString& m) {
        w.methodPanel()->setMethod(m.section(QLatin1Char('/'), 0, 0), m.section(QLatin1Char('/'), 1));
    };
    if (!queue.isEmpty()) selectMethod(queue.takeFirst());
    const bool shotNow = cli.isSet(screenshot) && queue.isEmpty();
    bool shotArmed = false;  // the window has been given the screenshot path

    int exitCode = 0;
    if (!queue.isEmpty()) {
        w.setAutoRun(true);
        QObject::connect(&w, &MainWindow::resultShown, &w, [&, selectMethod] {
            if (queue.isEmpty()) return;
            w.pinCurrent();
            if (queue.size() == 1 && cli.isSet(screenshot)) {
                w.setScreenshotPath(cli.value(screenshot), cli.value(tab));
                shotArmed = true;
            }
            selectMethod(queue.takeFirst());  // runs through the auto-run on change
        });
    }
    if (cli.isSet(screenshot)) {
        if (shotNow) {
            w.setScreenshotPath(cli.value(screenshot), cli.value(tab));
            shotArmed = true;
        }
        QObject::connect(&w, &MainWindow::screenshotSaved, &app, [&](const QString& path, bool ok) {
            std::fprintf(ok ? stdout : stderr,
                         ok ? "screenshot saved to %s\n" : "halftone-studio: cannot write the screenshot %s\n",
                         qPrintable(path));
            QApplication::exit(ok ? exitCode : 1);
        });
        // An error ends a scripted run: the image cannot be read, or a run failed (also part-way through
        // --compare). The window is told to take its screenshot now, showing the error, and then we exit 1.
        QObject::connect(&w, &MainWindow::errorShown, &app, [&](const QString& text) {
            std::fprintf(stderr, "halftone-studio: %s\n", qPrintable(text));
            exitCode = 1;
            queue.clear();
            if (!shotArmed) {
                w.setScreenshotPath(cli.value(screenshot), cli.value(tab));
                shotArmed = true;
            }
        });
    }

    LatencyProbe probe(2);
    QElapsedTimer clock;
    if (cli.isSet(latency)) {
        const int n = latencySide;
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
                            std::printf(
                                "ui-latency: %d x %d, %s on %s: method %.3f s, load+run+show %.3f s, "
                                "UI thread longest gap %.1f ms (ending %.0f ms after the start); most UI-thread CPU "
                                "time between two ticks %.1f ms; %lld ticks\n",
                                n, n, qPrintable(r->methodId), toString(r->device), r->seconds,
                                clock.elapsed() / 1000.0, probe.longestGapMs(), probe.longestAtMs(),
                                probe.longestBusyMs(), (long long)probe.ticks());
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
    if (!files.isEmpty())
        w.openFile(files.front());
    else
        w.openSample();
    return app.exec();
}
