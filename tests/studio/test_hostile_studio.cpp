// Hardening of the studio: cancelling any job at any moment leaves the studio usable, and a full
// disk while saving from the studio leaves the old file intact.
// - Every registry method with a CPU path, cancelled at once, at its first progress report and after a
//   short delay, through the JobRunner: the job ends (finished, or failed as cancelled, never as an error),
//   the runner is idle, and the next job gives the exact SPEC result. The same through the main window's
//   Cancel at several moments of a DBS run, then an exact run in the same window.
// - MainWindow::saveResult under RLIMIT_FSIZE (0 %, 50 %, 97 % of the new file's size; SIGXFSZ ignored so
//   writes fail with EFBIG as on a full disk) over an existing PNG/TIFF/PBM/PGM: false, an error dialog
//   naming the file, the old file byte-identical, no temporary file left; with room it writes the new image.
// - The halftone-studio executable with bad startup options: a file that cannot be read (also with
//   --compare), unknown methods, values and tabs, impossible combinations. Each ends within a minute with a
//   message and a non-zero exit status (2 for a bad option, 1 for a file or a run that fails).
#include <signal.h>
#include <sys/resource.h>

#include <QDir>
#include <QFile>
#include <QProcess>
#include <QPushButton>
#include <QtTest>

#include "core/ed/errordiffusion.h"
#include "core/job/registry.h"
#include "gpu/gpu.h"
#include "io/imagefile.h"
#include "tests/common/qtestutil.h"
#include "tests/common/testutil.h"
#include "tests/studio/studioutil.h"
#include "widgets/jobrunner.h"
#include "widgets/mainwindow.h"
#include "widgets/methodpanel.h"

using namespace halftone;

namespace {

quint64 g_imageId = 1000;

QByteArray readAll(const QString& path) {
    QFile f(path);
    return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
}

/// Sets the soft file-size limit of this process (SIGXFSZ ignored: writes past it fail with EFBIG).
struct FileSizeLimit {
    rlimit old{};
    bool ok = false;
    explicit FileSizeLimit(rlim_t bytes) {
        if (getrlimit(RLIMIT_FSIZE, &old) != 0) return;
        rlimit r = old;
        r.rlim_cur = bytes;
        ok = setrlimit(RLIMIT_FSIZE, &r) == 0;
    }
    ~FileSizeLimit() {
        if (ok) setrlimit(RLIMIT_FSIZE, &old);
    }
};

}  // namespace

class TestHostileStudio : public QObject {
    Q_OBJECT
private slots:
    void initTestCase() {
        test::startStudioTest("test_hostile_studio");
        qRegisterMetaType<JobResultPtr>();
        signal(SIGXFSZ, SIG_IGN);
    }
    void cancelAnyMethodAnyMoment_data();
    void cancelAnyMethodAnyMoment();
    void cancelWindowAtMoments_data();
    void cancelWindowAtMoments();
    void fullDiskSaveKeepsOldFile_data();
    void fullDiskSaveKeepsOldFile();
    void startupOptionsEnd_data();
    void startupOptionsEnd();
    void latencyProbeRunsEveryStep();
};

void TestHostileStudio::cancelAnyMethodAnyMoment_data() {
    test::columns<QString, QString>("method", "variant");
    QTest::addColumn<int>("moment");  // -1: at once; 0: at the first progress report; > 0: after that many ms
    QStringList ids;
    for (const MethodInfo& m : Registry::instance().methods()) {
        if (!m.cpu) continue;
        ids << QString::fromStdString(m.id());
        for (int moment : {-1, 0, 2}) {
            const QByteArray name = QString("%1/%2 %3")
                                        .arg(QString::fromStdString(m.method), QString::fromStdString(m.variant),
                                             moment < 0    ? QString("at once")
                                             : moment == 0 ? QString("first progress")
                                                           : QString("progress report %1").arg(moment + 1))
                                        .toUtf8();
            QTest::newRow(name.constData())
                << QString::fromStdString(m.method) << QString::fromStdString(m.variant) << moment;
        }
    }
    // the registry really was enumerated: sequential ED/EC, parallel CPU, ordered, DBS
    for (const char* id : {"ed/plain", "ec/rc", "ec/wavefront", "ordered/screen", "dbs/sequential", "dbs/blocks"})
        QVERIFY2(ids.contains(id), id);
}

void TestHostileStudio::cancelAnyMethodAnyMoment() {
    QFETCH(QString, method);
    QFETCH(QString, variant);
    QFETCH(int, moment);
    JobRunner runner;
    QSignalSpy done(&runner, &JobRunner::finished);
    QSignalSpy failed(&runner, &JobRunner::failed);
    QSignalSpy progress(&runner, &JobRunner::progress);
    JobRequest job;
    job.image = test::randomGrayImage(192, 160, "cancel matrix");
    job.imageId = ++g_imageId;
    job.method = Registry::instance().find(method.toStdString(), variant.toStdString());
    QVERIFY(job.method);
    job.device = Device::Cpu;
    job.perceived = true;  // the perceived view (HVS filter, PSNR) is part of the job too
    const quint64 gen = runner.submit(job);
    // moment -1: at once; else once it has reported progress moment + 1 times (it may finish first: then the cancel
    // hits nothing)
    if (moment >= 0)
        (void)QTest::qWaitFor([&] { return progress.count() > moment || done.count() + failed.count() > 0; }, 30000);
    runner.cancel();
    // it ends: either it had finished or the cancel stopped it; never an error, never a hang
    QTRY_VERIFY_WITH_TIMEOUT(done.count() + failed.count() >= 1 && !runner.busy(), 120000);
    for (const QList<QVariant>& f : failed) {
        QCOMPARE(f.at(0).toULongLong(), gen);
        QVERIFY2(f.at(2).toBool(), qPrintable("failed instead of cancelled: " + f.at(1).toString()));
    }
    QCOMPARE(done.count() + failed.count(), 1);
    // still usable: the next job runs to the end and is exact
    done.clear();
    failed.clear();
    JobRequest next;
    next.image = test::randomGrayImage(61, 47, "after cancel");
    next.imageId = ++g_imageId;
    next.method = Registry::instance().find("ed", "plain");
    next.device = Device::Cpu;
    next.perceived = false;
    runner.submit(next);
    QVERIFY(done.wait(30000));
    QCOMPARE(failed.count(), 0);
    const JobResultPtr r = done.at(0).at(1).value<JobResultPtr>();
    QVERIFY(r && r->halftone);
    QVERIFY(r->halftone->channels[0] == referenceErrorDiffusion(next.image->channels[0], EdParams{}));
}

void TestHostileStudio::cancelWindowAtMoments_data() {
    // how far the run is when it is cancelled: -1 at once, else the fraction its progress has reached
    QTest::addColumn<double>("reached");
    QTest::newRow("cancel at once") << -1.0;
    for (double f : {0.0, 0.25, 0.5}) QTest::newRow(qPrintable(QString("cancel at %1 % progress").arg(100 * f))) << f;
}

void TestHostileStudio::cancelWindowAtMoments() {
    QFETCH(double, reached);
    MainWindow w(Registry::instance());
    w.setAutoRun(false);
    w.show();
    QSignalSpy loaded(&w, &MainWindow::imageLoaded);
    QSignalSpy shown(&w, &MainWindow::resultShown);
    QSignalSpy failed(&w, &MainWindow::runFailed);
    QVERIFY(w.methodPanel()->setMethod("dbs", QString::fromStdString(Registry::instance().variants("dbs").front())));
    const Plane8 src = test::randomPlane(320, 240, test::freshSeed("window cancel moments"));
    w.setImage(Image::gray(src), "random");
    QTRY_VERIFY_WITH_TIMEOUT(loaded.count() >= 1, 10000);
    QSignalSpy progress(w.jobs(), &JobRunner::progress);
    w.runCurrent();
    if (reached >= 0)
        (void)QTest::qWaitFor(
            [&] {
                return (!progress.isEmpty() && progress.last().at(1).toDouble() >= reached) ||
                       shown.count() + failed.count() > 0;
            },
            30000);
    w.cancelRun();
    QTRY_VERIFY_WITH_TIMEOUT(shown.count() + failed.count() >= 1 && !w.jobs()->busy(), 120000);
    for (const QList<QVariant>& f : failed) QVERIFY2(f.at(1).toBool(), qPrintable(f.at(0).toString()));
    QVERIFY(!w.errorBox());  // a cancel is not an error
    // the same window runs the next method to the end, exactly
    shown.clear();
    QVERIFY(w.methodPanel()->setMethod("ed", "plain"));
    w.runCurrent();
    QVERIFY(shown.wait(30000));
    QCOMPARE(w.currentResult()->methodId, QString("ed/plain"));
    QVERIFY(w.currentResult()->halftone->channels[0] == referenceErrorDiffusion(src, EdParams{}));
    auto* cancel = w.findChild<QPushButton*>("cancel");
    QVERIFY(cancel && !cancel->isEnabled());  // nothing left running
}

void TestHostileStudio::fullDiskSaveKeepsOldFile_data() {
    test::columns<QString, double>("ext", "fraction");
    for (const char* ext : {"png", "tif", "pbm", "pgm"})
        for (double f : {0.0, 0.5, 0.97})
            QTest::newRow(qPrintable(QString("%1 at %2 %").arg(ext).arg(f * 100))) << QString(ext) << f;
}

void TestHostileStudio::fullDiskSaveKeepsOldFile() {
    QFETCH(QString, ext);
    QFETCH(double, fraction);
    MainWindow w(Registry::instance());
    w.setAutoRun(false);
    QSignalSpy loaded(&w, &MainWindow::imageLoaded);
    QSignalSpy shown(&w, &MainWindow::resultShown);
    QVERIFY(w.methodPanel()->setMethod("ed", "plain"));
    w.setImage(Image::gray(test::randomPlane(203, 151, test::freshSeed("old save"))), "old");
    QTRY_VERIFY_WITH_TIMEOUT(loaded.count() >= 1, 10000);
    w.runCurrent();
    QVERIFY(shown.wait(30000));
    QTemporaryDir dir, probeDir;
    const QString path = dir.filePath("out." + ext);
    QVERIFY2(w.saveResult(path), qPrintable(w.lastError()));
    const QByteArray old = readAll(path);
    QVERIFY(!old.isEmpty());

    // a different result, and the bytes it gives with room enough
    shown.clear();
    loaded.clear();
    w.setImage(Image::gray(test::randomPlane(211, 167, test::freshSeed("new save"))), "new");
    QTRY_VERIFY_WITH_TIMEOUT(loaded.count() >= 1, 10000);
    w.runCurrent();
    QVERIFY(shown.wait(30000));
    const QString probe = probeDir.filePath("probe." + ext);
    QVERIFY2(w.saveResult(probe), qPrintable(w.lastError()));
    const QByteArray fresh = readAll(probe);
    QVERIFY(fresh.size() > 0 && fresh != old);

    bool saved = true;
    {
        FileSizeLimit limit(rlim_t(double(fresh.size()) * fraction));
        QVERIFY(limit.ok);
        saved = w.saveResult(path);
    }
    QVERIFY(!saved);
    QVERIFY2(w.lastError().contains("out." + ext), qPrintable("the message names the file: " + w.lastError()));
    QVERIFY(w.errorBox());
    QCOMPARE(readAll(path), old);  // the old file is intact
    QCOMPARE(QDir(dir.path()).entryList(QDir::AllEntries | QDir::NoDotAndDotDot | QDir::Hidden),
             QStringList{"out." + ext});  // no partial or temporary file
    // with room again the same save succeeds: the new pixels, and the new bytes (TIFF bytes hold a date)
    QVERIFY2(w.saveResult(path), qPrintable(w.lastError()));
    Image back;
    QVERIFY(io::readImage(path.toStdString(), back).isOk());
    QVERIFY(back.channels.size() == 1 && back.channels[0] == w.currentResult()->halftone->channels[0]);
    if (ext != "tif") QCOMPARE(readAll(path), fresh);
}

void TestHostileStudio::startupOptionsEnd_data() {
    // Placeholders in the arguments: @DIR@ = a fresh temporary folder, @BAD@ = a file that is not an image
    // there, @GOOD@ = a test image.
    test::columns<QStringList, int>("args", "exitCode");
    QTest::addColumn<QString>("message");  // part of what stderr must say
    const QString shot = "@DIR@/shot.png";
    QTest::newRow("compare, unreadable file")
        << QStringList{"--compare", "ec/wavefront,dbs/blocks", "--screenshot", shot, "@BAD@"} << 1 << "bad.png";
    QTest::newRow("compare, missing file")
        << QStringList{"--compare", "ed/plain,ec/rc", "--screenshot", shot, "@DIR@/missing.png"} << 1 << "missing.png";
    QTest::newRow("method, unreadable file")
        << QStringList{"--method", "ed/plain", "--screenshot", shot, "@BAD@"} << 1 << "bad.png";
    QTest::newRow("compare, benchmark tab, unreadable file")
        << QStringList{"--compare", "ed/plain,ec/rc", "--tab", "benchmark", "--screenshot", shot, "@BAD@"} << 1
        << "bad.png";
    QTest::newRow("unknown method") << QStringList{"--method", "ed/nope", "--screenshot", shot, "@GOOD@"} << 2
                                    << "ed/nope";
    QTest::newRow("method without variant") << QStringList{"--method", "ed", "--screenshot", shot} << 2 << "'ed'";
    QTest::newRow("unknown method in compare")
        << QStringList{"--compare", "ed/plain,xx/yy", "--screenshot", shot} << 2 << "xx/yy";
    QTest::newRow("method twice in compare")
        << QStringList{"--compare", "ed/plain,ed/plain", "--screenshot", shot} << 2 << "twice";
    QTest::newRow("five methods in compare")
        << QStringList{"--compare", "ed/plain,ed/rc,ec/plain,ec/rc,ordered/screen", "--screenshot", shot} << 2
        << "up to 4";
    QTest::newRow("empty compare") << QStringList{"--compare", ",", "--screenshot", shot} << 2 << "--compare";
    QTest::newRow("method and compare") << QStringList{"--method",    "ed/plain",     "--compare",
                                                       "ec/rc,ed/rc", "--screenshot", shot}
                                        << 2 << "--compare";
    QTest::newRow("unknown device") << QStringList{"--device", "gpx", "--screenshot", shot} << 2 << "gpx";
    QTest::newRow("gpu for a method without one")
        << QStringList{"--device", "gpu", "--method", "ordered/screen", "--screenshot", shot} << 2 << "ordered/screen";
    QTest::newRow("unknown colour") << QStringList{"--color", "purple", "--screenshot", shot} << 2 << "purple";
    for (const char* bad : {"abc", "0x100", "1400", "1400x", "-5x10", "99999x900"})
        QTest::addRow("bad size %s", bad) << QStringList{"--size", bad, "--screenshot", shot} << 2 << QString(bad);
    QTest::newRow("unknown tab") << QStringList{"--tab", "nope", "--screenshot", shot} << 2 << "nope";
    QTest::newRow("ui-latency not a number") << QStringList{"--ui-latency", "big"} << 2 << "big";
    QTest::newRow("ui-latency zero") << QStringList{"--ui-latency", "0"} << 2 << "--ui-latency";
    QTest::newRow("ui-latency with a file") << QStringList{"--ui-latency", "64", "@GOOD@"} << 2 << "--ui-latency";
    QTest::newRow("two images") << QStringList{"--screenshot", shot, "@GOOD@", "@BAD@"} << 2 << "one image";
    QTest::newRow("screenshot into a missing folder")
        << QStringList{"--screenshot", "@DIR@/no/such/folder/s.png", "@GOOD@"} << 2 << "does not exist";
    QTest::newRow("screenshot over the image")
        << QStringList{"--screenshot", "@DIR@/copy.png", "@DIR@/copy.png"} << 2 << "overwrite";
    QTest::newRow("unknown option") << QStringList{"--no-such-option"} << 1 << "no-such-option";
    QTest::newRow("missing value") << QStringList{"--screenshot"} << 1 << "screenshot";
    // A GPU-only variant on a machine without a usable GPU: its run fails, also part-way through --compare.
    for (const MethodInfo& m : Registry::instance().methods())
        if (!m.cpu && m.gpu && !Registry::instance().gpuAvailability().usable) {
            const QString id = QString::fromStdString(m.id());
            QTest::newRow("compare, GPU-only variant without a GPU")
                << QStringList{"--compare", "ed/plain," + id, "--screenshot", shot, "@GOOD@"} << 1 << "GPU";
            QTest::newRow("method, GPU-only variant without a GPU")
                << QStringList{"--method", id, "--screenshot", shot, "@GOOD@"} << 1 << "GPU";
            break;
        }
    // and the good cases, so that the rows above cannot pass by failing for another reason
    QTest::newRow("good compare") << QStringList{"--compare", "ed/plain,ec/rc", "--screenshot", shot,
                                                 "--size",    "900x600",        "@GOOD@"}
                                  << 0 << "";
    QTest::newRow("good method and tab") << QStringList{"--method", "ec/rc",        "--tab", "scheduling", "--device",
                                                        "cpu",      "--screenshot", shot,    "@GOOD@"}
                                         << 0 << "";
}

void TestHostileStudio::startupOptionsEnd() {
#ifndef HALFTONE_STUDIO_EXE
    QSKIP("the halftone-studio executable is not part of this build");
#else
    QFETCH(QStringList, args);
    QFETCH(int, exitCode);
    QFETCH(QString, message);
    QTemporaryDir dir;
    QVERIFY(test::writeFile(dir.filePath("bad.png"), "this is not a PNG file"));
    const QString good = QString::fromStdString(test::dataPath("page.png"));
    QVERIFY(QFile::copy(good, dir.filePath("copy.png")));
    const QByteArray copyBefore = readAll(dir.filePath("copy.png"));
    for (QString& a : args)
        a.replace("@DIR@", dir.path()).replace("@BAD@", dir.filePath("bad.png")).replace("@GOOD@", good);
    QString err;
    const QString problem = test::studioEndProblem(args, dir.filePath("config"), exitCode, err);
    QVERIFY2(problem.isEmpty(), qPrintable(problem));
    QVERIFY2(err.contains(message), qPrintable("stderr: " + err));
    if (exitCode == 2)
        QVERIFY2(!QFile::exists(dir.filePath("shot.png")), "a bad option opened the window and took a screenshot");
    if (exitCode == 0) QVERIFY(!QImage(dir.filePath("shot.png")).isNull());
    QCOMPARE(readAll(dir.filePath("copy.png")), copyBefore);  // the input is never overwritten
#endif
}

// The latency probe (docs/performance.md) ends by itself with 0 after every step, each printed with its timing; the
// numbers themselves are not checked (timings never go in tests).
void TestHostileStudio::latencyProbeRunsEveryStep() {
#ifndef HALFTONE_STUDIO_EXE
    QSKIP("the halftone-studio executable is not part of this build");
#else
    QTemporaryDir dir;
    const test::ProcessRun r =
        test::runStudio({"--ui-latency", "96", "--method", "ec/wavefront"}, dir.filePath("config"));
    QVERIFY2(!r.crashed, qPrintable(r.err));
    QCOMPARE(r.exitCode, 0);
    for (const char* line : {"ui-latency: first result shown", "ui-latency: brightness +10: ec/wavefront shown after",
                             "ui-latency: kernel change to Jarvis: ec/wavefront shown after",
                             "ui-latency: ordered/screen: ordered/screen shown after",
                             "ui-latency: ed/plain: ed/plain shown after", "ui-latency: after 5 methods: resident"})
        QVERIFY2(r.out.contains(line), qPrintable(QString(line) + " missing from: " + r.out));
#endif
}

QTEST_MAIN(TestHostileStudio)
#include "test_hostile_studio.moc"
