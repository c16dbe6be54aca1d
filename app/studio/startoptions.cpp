#include "app/studio/startoptions.h"

#include <QCoreApplication>
#include <QDir>
#include <QFileInfo>
#include <QSettings>
#include <QTabWidget>
#include <cstdio>

#include "core/job/registry.h"
#include "core/palette/palette.h"
#include "widgets/adjustpanel.h"
#include "widgets/lessonview.h"
#include "widgets/mainwindow.h"
#include "widgets/methodpanel.h"
#include "widgets/palettepanel.h"

namespace halftone {

namespace {

QCommandLineOption option(const char* name, const char* help, const char* value = nullptr,
                          const char* byDefault = nullptr) {
    return QCommandLineOption(QString::fromLatin1(name), QString::fromUtf8(help),
                              value ? QString::fromLatin1(value) : QString(),
                              byDefault ? QString::fromLatin1(byDefault) : QString());
}

const MethodInfo* findMethod(const QString& id) {
    if (!id.contains(QLatin1Char('/'))) return nullptr;
    return Registry::instance().find(id.section(QLatin1Char('/'), 0, 0).toStdString(),
                                     id.section(QLatin1Char('/'), 1).toStdString());
}

/// --size WxH.
int checkSize(const QCommandLineParser& cli, StartOptions& o) {
    const QStringList wh = cli.value(o.size).toLower().split(QLatin1Char('x'));
    bool okW = false, okH = false;
    if (wh.size() == 2) {
        o.winW = wh[0].trimmed().toInt(&okW);
        o.winH = wh[1].trimmed().toInt(&okH);
    }
    if (!okW || !okH || o.winW < 200 || o.winH < 150 || o.winW > 16384 || o.winH > 16384)
        return usageError(
            QStringLiteral(
                "--size '%1': give the window size as WIDTHxHEIGHT between 200x150 and 16384x16384, e.g. 1400x900")
                .arg(cli.value(o.size)));
    return 0;
}

/// --compare LIST into o.queue.
int checkCompare(const QCommandLineParser& cli, StartOptions& o) {
    for (const QString& m : cli.value(o.compare).split(QLatin1Char(','))) o.queue << m.trimmed();
    o.queue.removeAll(QString());
    if (o.queue.isEmpty())
        return usageError(QStringLiteral("--compare needs a list of methods, e.g. ed/plain,ordered/screen"));
    if (o.queue.size() > 4)
        return usageError(QStringLiteral("--compare takes up to 4 methods, not %1").arg(o.queue.size()));
    for (int i = 0; i < o.queue.size(); ++i) {
        if (!findMethod(o.queue[i]))
            return usageError(QStringLiteral("unknown method '%1' in --compare (see halftone --list)").arg(o.queue[i]));
        if (o.queue.indexOf(o.queue[i]) != i)
            return usageError(QStringLiteral("method '%1' is listed twice in --compare").arg(o.queue[i]));
    }
    o.methods = o.queue;
    return 0;
}

/// --method or --compare, and whether each method can run on the chosen device.
int checkMethods(const QCommandLineParser& cli, StartOptions& o) {
    if (cli.isSet(o.method)) {
        if (cli.isSet(o.compare))
            return usageError(
                QStringLiteral("--method and --compare cannot be combined: --compare names every method to run"));
        if (!findMethod(cli.value(o.method)))
            return usageError(QStringLiteral("unknown method '%1' (give method/variant, e.g. ed/plain; see halftone "
                                             "--list)")
                                  .arg(cli.value(o.method)));
        o.methods << cli.value(o.method);
    }
    if (cli.isSet(o.compare))
        if (int rc = checkCompare(cli, o)) return rc;
    const GpuAvailability& gpuState = Registry::instance().gpuAvailability();
    for (const QString& id : o.methods) {
        const MethodInfo* m = findMethod(id);
        if (o.dev == QLatin1String("gpu") && !m->gpu)
            return usageError(QStringLiteral("--device gpu: method %1 has no GPU implementation").arg(id));
        if (o.dev == QLatin1String("cpu") && !m->runsOnCpu())
            return usageError(QStringLiteral("--device cpu: method %1 runs only on a GPU").arg(id));
        if (!m->runsOnCpu() && !gpuState.usable) {
            // The method panel does not offer such a variant, so the run could never start: say why and stop.
            std::fprintf(stderr, "halftone-studio: method %s runs only on a GPU, and no GPU is usable (%s)\n",
                         qPrintable(id), gpuState.reason.c_str());
            return 1;
        }
    }
    return 0;
}

/// --palette SPEC: auto:N, a built-in name or a palette file, for methods with a palette form.
int checkPalette(const QCommandLineParser& cli, StartOptions& o) {
    const std::string spec = cli.value(o.palette).toStdString();
    if (Status s = parseAutoPaletteSpec(spec, o.autoColours); !s)
        return usageError(QStringLiteral("--palette: %1").arg(QString::fromStdString(s.message())));
    Palette p;
    if (o.autoColours == 0 && !findBuiltinPalette(spec))
        if (Status s = loadPaletteFile(spec, p); !s)
            return usageError(
                QStringLiteral("--palette '%1' is not a built-in palette (halftone --list-palettes) and cannot be "
                               "read as a palette file: %2")
                    .arg(cli.value(o.palette), QString::fromStdString(s.message())));
    for (const QString& id : o.methods)
        if (const MethodInfo* m = findMethod(id); m && !m->hasPaletteForm())
            return usageError(QStringLiteral("--palette: method %1 cannot halftone to a palette").arg(id));
    return 0;
}

/// --ui-latency N, which runs on its own.
int checkLatency(const QCommandLineParser& cli, StartOptions& o) {
    bool ok = false;
    o.latencySide = cli.value(o.latency).toInt(&ok);
    if (!ok || o.latencySide < 1 || o.latencySide > 32768)
        return usageError(
            QStringLiteral("--ui-latency '%1': give a side between 1 and 32768").arg(cli.value(o.latency)));
    if (!o.files.isEmpty() || cli.isSet(o.compare) || cli.isSet(o.screenshot))
        return usageError(
            QStringLiteral("--ui-latency runs on its own synthetic image; it cannot be combined with an image "
                           "file, --compare or --screenshot"));
    return 0;
}

/// --screenshot FILE: a file in an existing folder, not the image opened.
int checkScreenshot(const QCommandLineParser& cli, const StartOptions& o) {
    const QString path = cli.value(o.screenshot);
    const QFileInfo shot(path);
    if (path.isEmpty()) return usageError(QStringLiteral("--screenshot needs a file name"));
    if (!shot.absoluteDir().exists())
        return usageError(QStringLiteral("cannot write the screenshot %1: the folder %2 does not exist")
                              .arg(path, shot.absolutePath()));
    if (shot.isDir()) return usageError(QStringLiteral("cannot write the screenshot %1: it is a folder").arg(path));
    if (!o.files.isEmpty() && QFileInfo(o.files.front()).exists() && shot.exists() &&
        QFileInfo(o.files.front()).canonicalFilePath() == shot.canonicalFilePath())
        return usageError(
            QStringLiteral("refusing to overwrite the image %1 with the screenshot").arg(o.files.front()));
    return 0;
}

/// --tab NAME.
int selectTab(const QCommandLineParser& cli, const StartOptions& o, MainWindow& w) {
    int index = -1;
    QStringList names;
    for (int i = 0; i < w.tabs()->count(); ++i) {
        names << w.tabs()->tabText(i).toLower().remove(QLatin1Char('&'));
        if (names.back().compare(cli.value(o.tab), Qt::CaseInsensitive) == 0) index = i;
    }
    if (index < 0)
        return usageError(
            QStringLiteral("unknown --tab '%1'; choose %2").arg(cli.value(o.tab), names.join(QStringLiteral(", "))));
    w.tabs()->setCurrentIndex(index);
    return 0;
}

/// --palette in the palette panel, once the method is chosen.
int selectPalette(const QCommandLineParser& cli, const StartOptions& o, MainWindow& w) {
    if (const MethodInfo* m = w.methodPanel()->method(); !m || !m->hasPaletteForm())
        return usageError(QStringLiteral("--palette: method %1 cannot halftone to a palette; name one that can "
                                         "with --method, e.g. ed/plain")
                              .arg(m ? QString::fromStdString(m->id()) : QStringLiteral("(none)")));
    PalettePanel* pp = w.methodPanel()->palettePanel();
    const QString spec = cli.value(o.palette);
    if (o.autoColours > 0)
        pp->selectAuto(o.autoColours);
    else if (!pp->selectBuiltin(spec))
        pp->loadFile(spec);
    return 0;
}

/// The last method, variant and settings, the window's size and its docks come back, and are kept at the end.
bool rememberSettings(MainWindow& w) {
    QSettings settings;
    w.methodPanel()->restoreSettings(settings);
    w.adjustPanel()->restoreSettings(settings);
    const bool window = w.restoreWindowState(settings);
    w.resetUndo();
    QObject::connect(qApp, &QCoreApplication::aboutToQuit, &w, [&w] {
        QSettings s;
        w.methodPanel()->saveSettings(s);
        w.adjustPanel()->saveSettings(s);
        w.saveWindowState(s);
    });
    return window;
}

}  // namespace

int usageError(const QString& message) {
    std::fprintf(stderr, "halftone-studio: %s\n", qPrintable(message));
    return 2;
}

StartOptions::StartOptions()
    : screenshot(option("screenshot", "open, run the current method, save a PNG of the window to FILE, quit", "FILE")),
      tab(option("tab", "tab to show: compare, scheduling, lesson, benchmark, quality, print", "NAME")),
      method(option("method", "method/variant to select, e.g. ed/rc", "M/V")),
      device(option("device", "cpu, gpu or auto", "DEVICE", "auto")),
      color(option("color", "gray, rgb or cmyk", "MODE")),
      size(option("size", "window size WxH", "WxH", "1400x900")),
      compare(option("compare",
                     "run these methods one after another and keep each on screen, e.g. "
                     "ed/plain,ordered/screen,dbs/sequential (up to 4)",
                     "LIST")),
      perceived(option("perceived", "start with the perceived (HVS-filtered) view on")),
      split(option("split", "start in split-slider mode")),
      palette(option("palette",
                     "halftone to a palette: a built-in name (halftone --list-palettes), auto:N (N colours from the "
                     "image) or a palette file",
                     "SPEC")),
      printPreview(option("print-preview", "start with CMYK results shown as printed (process inks on white paper)")),
      latency(option("ui-latency",
                     "halftone a synthetic N x N image and print the UI thread's longest block, then quit", "N")),
      lesson(option("lesson",
                    "the Lesson tab: SCHEDULE[,COMPARE][,kernel=K][,size=WxH][,levels=L][,step=N][,race][,image], "
                    "e.g. rows,knight,size=16x10,step=3,race",
                    "SPEC")) {}

void StartOptions::addTo(QCommandLineParser& cli) const {
    cli.addOptions({screenshot, tab, method, device, color, size, compare, perceived, split, palette, printPreview,
                    latency, lesson});
}

int checkStartOptions(const QCommandLineParser& cli, StartOptions& o) {
    o.files = cli.positionalArguments();
    if (o.files.size() > 1)
        return usageError(QStringLiteral("give one image to open, not %1 (%2)")
                              .arg(o.files.size())
                              .arg(o.files.join(QStringLiteral(", "))));
    if (int rc = checkSize(cli, o)) return rc;
    o.dev = cli.value(o.device).toLower();
    if (o.dev != QLatin1String("cpu") && o.dev != QLatin1String("gpu") && o.dev != QLatin1String("auto"))
        return usageError(QStringLiteral("unknown --device '%1'; choose cpu, gpu or auto").arg(cli.value(o.device)));
    if (cli.isSet(o.color) && !parseColorMode(cli.value(o.color).toLower().toStdString(), o.colorMode))
        return usageError(QStringLiteral("unknown colour mode '%1'; use gray, rgb or cmyk").arg(cli.value(o.color)));
    if (int rc = checkMethods(cli, o)) return rc;
    if (cli.isSet(o.palette))
        if (int rc = checkPalette(cli, o)) return rc;
    const GpuAvailability& gpuState = Registry::instance().gpuAvailability();
    if (o.dev == QLatin1String("gpu") && !gpuState.usable)
        std::fprintf(stderr, "halftone-studio: no usable GPU (%s); methods with a CPU path run on the CPU\n",
                     gpuState.reason.c_str());
    if (cli.isSet(o.latency))
        if (int rc = checkLatency(cli, o)) return rc;
    if (cli.isSet(o.screenshot)) return checkScreenshot(cli, o);
    return 0;
}

int applyStartOptions(const QCommandLineParser& cli, const StartOptions& o, MainWindow& w) {
    // The last method, variant and settings come back, except in scripted starts (screenshots, probes, --compare),
    // which must not depend on what a user chose before.
    bool restoredWindow = false;
    if (!cli.isSet(o.screenshot) && !cli.isSet(o.latency) && !cli.isSet(o.compare))
        restoredWindow = rememberSettings(w);
    if (cli.isSet(o.tab))
        if (int rc = selectTab(cli, o, w)) return rc;
    if (cli.isSet(o.size) || !restoredWindow) w.resize(o.winW, o.winH);
    if (cli.isSet(o.method))
        w.methodPanel()->setMethod(cli.value(o.method).section(QLatin1Char('/'), 0, 0),
                                   cli.value(o.method).section(QLatin1Char('/'), 1));
    if (o.dev == QLatin1String("cpu"))
        w.methodPanel()->setDevice(Device::Cpu);
    else if (o.dev == QLatin1String("gpu"))
        w.methodPanel()->setDevice(Device::Gpu);
    if (cli.isSet(o.color)) w.methodPanel()->setColorMode(o.colorMode);
    if (cli.isSet(o.palette))
        if (int rc = selectPalette(cli, o, w)) return rc;
    if (cli.isSet(o.printPreview)) w.setPrintPreview(true);
    if (cli.isSet(o.perceived)) w.setPerceivedView(true);
    if (cli.isSet(o.split)) w.setSplitView(true);
    if (cli.isSet(o.lesson))
        if (Status s = w.lessonView()->applySpec(cli.value(o.lesson)); !s)
            return usageError(QString::fromStdString(s.message()));
    return 0;
}

}  // namespace halftone
