// Hardening of the studio (issue 7): cancelling any job at any moment leaves the studio usable, and a full
// disk while saving from the studio leaves the old file intact.
// - Every registry method with a CPU path, cancelled at once, at its first progress report and after a
//   short delay, through the JobRunner: the job ends (finished, or failed as cancelled, never as an error),
//   the runner is idle, and the next job gives the exact SPEC result. The same through the main window's
//   Cancel at several moments of a DBS run, then an exact run in the same window.
// - MainWindow::saveResult under RLIMIT_FSIZE (0 %, 50 %, 97 % of the new file's size; SIGXFSZ ignored so
//   writes fail with EFBIG as on a full disk) over an existing PNG/TIFF/PBM/PGM: false, an error dialog
//   naming the file, the old file byte-identical, no temporary file left; with room it writes the new image.
#include <signal.h>
#include <sys/resource.h>

#include <QDir>
#include <QFile>
#include <QPushButton>
#include <QtTest>

#include "core/errordiffusion.h"
#include "core/registry.h"
#include "gpu/gpu.h"
#include "io/imagefile.h"
#include "tests/testutil.h"
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
    void initTestCase();
    void cancelAnyMethodAnyMoment_data();
    void cancelAnyMethodAnyMoment();
    void cancelWindowAtMoments_data();
    void cancelWindowAtMoments();
    void fullDiskSaveKeepsOldFile_data();
    void fullDiskSaveKeepsOldFile();
};

void TestHostileStudio::initTestCase() {
    QStandardPaths::setTestModeEnabled(true);
    QCoreApplication::setOrganizationName("HalftoneStudioTest");
    QCoreApplication::setApplicationName("test_hostile_studio");
    QSettings().clear();
    qRegisterMetaType<JobResultPtr>();
    gpu::registerMethods(Registry::instance());
    signal(SIGXFSZ, SIG_IGN);
}

void TestHostileStudio::cancelAnyMethodAnyMoment_data() {
    QTest::addColumn<QString>("method");
    QTest::addColumn<QString>("variant");
    QTest::addColumn<int>("moment");  // -1: at once; 0: at the first progress report; > 0: after that many ms
    QStringList ids;
    for (const MethodInfo& m : Registry::instance().methods()) {
        if (!m.cpu) continue;
        ids << QString::fromStdString(m.id());
        for (int moment : {-1, 0, 25}) {
            const QByteArray name = QString("%1/%2 %3")
                                        .arg(QString::fromStdString(m.method), QString::fromStdString(m.variant),
                                             moment < 0 ? QString("at once")
                                                        : moment == 0 ? QString("first progress")
                                                                      : QString("after %1 ms").arg(moment))
                                        .toUtf8();
            QTest::newRow(name.constData()) << QString::fromStdString(m.method) << QString::fromStdString(m.variant)
                                            << moment;
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
    if (moment == 0)  // may finish before any report: then the cancel hits nothing
        (void)QTest::qWaitFor([&] { return progress.count() + done.count() + failed.count() > 0; }, 3000);
    else if (moment > 0) QTest::qWait(moment);
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
    QTest::addColumn<int>("delayMs");
    for (int d : {0, 10, 60, 250}) QTest::newRow(qPrintable(QString("cancel after %1 ms").arg(d))) << d;
}

void TestHostileStudio::cancelWindowAtMoments() {
    QFETCH(int, delayMs);
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
    w.runCurrent();
    if (delayMs > 0) QTest::qWait(delayMs);
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
    QTest::addColumn<QString>("ext");
    QTest::addColumn<double>("fraction");
    for (const char* ext : {"png", "tif", "pbm", "pgm"})
        for (double f : {0.0, 0.5, 0.97}) QTest::newRow(qPrintable(QString("%1 at %2 %").arg(ext).arg(f * 100))) << QString(ext) << f;
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

QTEST_MAIN(TestHostileStudio)
#include "test_hostile_studio.moc"
