// halftone-studio: the Qt 6 GUI. See the studio section of README.md.
#include <QApplication>
#include <QCommandLineParser>
#include <QFile>
#include <QIcon>
#include <cstdio>

#include "app/studio/latencyrun.h"
#include "app/studio/startoptions.h"
#include "core/job/registry.h"
#include "gpu/gpu.h"
#include "io/screenfile.h"
#include "io/targetfile.h"
#include "widgets/mainwindow.h"
#include "widgets/methodpanel.h"

using namespace halftone;

namespace {

/// What a scripted start does as it goes: --compare's methods still to run, and whether the window has been given
/// the screenshot's path.
struct Script {
    QStringList queue;
    bool shotArmed = false;
    int exitCode = 0;
};

void selectMethod(MainWindow& w, const QString& id) {
    w.methodPanel()->setMethod(id.section(QLatin1Char('/'), 0, 0), id.section(QLatin1Char('/'), 1));
}

/// --compare: the first method is selected now; each finished result is pinned and the next one selected (it runs
/// through the auto-run on change); the screenshot comes after the last.
void scriptCompare(MainWindow& w, Script& s, const QString& shot, const QString& tab) {
    if (!s.queue.isEmpty()) selectMethod(w, s.queue.takeFirst());
    if (s.queue.isEmpty()) return;
    w.setAutoRun(true);
    QObject::connect(&w, &MainWindow::resultShown, &w, [&w, &s, shot, tab] {
        if (s.queue.isEmpty()) return;
        w.pinCurrent();
        if (s.queue.size() == 1 && !shot.isEmpty()) {
            w.setScreenshotPath(shot, tab);
            s.shotArmed = true;
        }
        selectMethod(w, s.queue.takeFirst());
    });
}

/// --screenshot: saved once the (last) result is shown, then the application exits; an error ends a scripted run (the
/// image cannot be read, or a run failed, also part-way through --compare): the screenshot then shows the error, and
/// the exit status is 1.
void scriptScreenshot(MainWindow& w, Script& s, const QString& shot, const QString& tab) {
    if (s.queue.isEmpty()) {
        w.setScreenshotPath(shot, tab);
        s.shotArmed = true;
    }
    QObject::connect(&w, &MainWindow::screenshotSaved, qApp, [&s](const QString& path, bool ok) {
        std::fprintf(ok ? stdout : stderr,
                     ok ? "screenshot saved to %s\n" : "halftone-studio: cannot write the screenshot %s\n",
                     qPrintable(path));
        QApplication::exit(ok ? s.exitCode : 1);
    });
    QObject::connect(&w, &MainWindow::errorShown, qApp, [&w, &s, shot, tab](const QString& text) {
        std::fprintf(stderr, "halftone-studio: %s\n", qPrintable(text));
        s.exitCode = 1;
        s.queue.clear();
        if (!s.shotArmed) {
            w.setScreenshotPath(shot, tab);
            s.shotArmed = true;
        }
    });
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
    StartOptions o;
    o.addTo(cli);
    cli.process(app);  // unknown options and missing values: a message and exit status 1

    gpu::registerMethods(Registry::instance());
    io::installScreenFileLoader();  // "From file..." screens in any image format, not only PGM
    io::installTargetFileReader();
    gpu::startInBackground();  // context, kernels and staging memory on a thread of their own (idempotent)
    if (int rc = checkStartOptions(cli, o)) return rc;

    MainWindow w(Registry::instance());
    if (int rc = applyStartOptions(cli, o, w)) return rc;
    if (cli.isSet(o.latency)) return runLatencyProbe(w, o.latencySide);
    Script script;
    script.queue = o.queue;
    const QString shot = cli.value(o.screenshot), tab = cli.value(o.tab);
    scriptCompare(w, script, cli.isSet(o.screenshot) ? shot : QString(), tab);
    if (cli.isSet(o.screenshot)) scriptScreenshot(w, script, shot, tab);
    w.show();
    if (!o.files.isEmpty())
        w.openFile(o.files.front());
    else
        w.openSample();
    return app.exec();
}
