// The main window: bad files give an error dialog naming the file and the problem; the sample opens and a
// run completes; a cancel leaves the window usable; results save; recent files; paste; the screenshot
// path of the window and of the halftone-studio executable writes a PNG.
#include <QClipboard>
#include <QMessageBox>
#include <QMimeData>
#include <QProcess>
#include <QPushButton>
#include <QtTest>
#include <thread>

#include "core/errordiffusion.h"
#include "core/registry.h"
#include "gpu/gpu.h"
#include "io/imagefile.h"
#include "tests/test_studio_util.h"
#include "tests/testutil.h"
#include "widgets/compareview.h"
#include "widgets/mainwindow.h"
#include "widgets/methodpanel.h"

using namespace halftone;

class TestStudioMainWindow : public QObject {
    Q_OBJECT
private slots:
    void initTestCase();
    void badFilesShowErrorDialog_data();
    void badFilesShowErrorDialog();
    void sampleOpensAndRuns();
    void realImageRunsExact();
    void cancelKeepsWindowUsable();
    void switchingBackIsCached();
    void saveResult();
    void pasteImage();
    void dropOpensFile();
    void perceivedToggle();
    void screenshotFromWindow();
    void screenshotOption();
};

void TestStudioMainWindow::initTestCase() {
    QStandardPaths::setTestModeEnabled(true);
    QCoreApplication::setOrganizationName("HalftoneStudioTest");
    QCoreApplication::setApplicationName("test_studio_mainwindow");
    QSettings().clear();
    gpu::registerMethods(Registry::instance());
    test::registerSlowMethod();
}

void TestStudioMainWindow::badFilesShowErrorDialog_data() {
    QTest::addColumn<QString>("path");
    QTest::addColumn<QString>("problem");  // a word the message must contain besides the file name
    QTest::newRow("missing") << QString("/nonexistent/dir/none.png") << QString();
    QTest::newRow("text as png") << QString("TEXT") << QString();
    const QDir hostile(QStringLiteral(HALFTONE_TEST_DATA_DIR "/hostile"));
    for (const QString& f : hostile.entryList(QDir::Files)) QTest::newRow(qPrintable("hostile/" + f)) << hostile.filePath(f) << QString();
}

void TestStudioMainWindow::badFilesShowErrorDialog() {
    QFETCH(QString, path);
    QTemporaryDir dir;
    if (path == "TEXT") {
        path = dir.filePath("not-an-image.png");
        QFile f(path);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write("this is not a PNG file\n");
    }
    // tests/data/hostile/ holds files the loader must refuse (tests/data/LICENSES.md): each one gives the dialog.
    MainWindow w(Registry::instance());
    w.setAutoRun(false);
    w.show();
    QSignalSpy error(&w, &MainWindow::errorShown);
    QSignalSpy loaded(&w, &MainWindow::imageLoaded);
    w.openFile(path);
    // Generous: some hostile files take the reader tens of seconds to give up on a loaded machine.
    QTRY_VERIFY_WITH_TIMEOUT(error.count() + loaded.count() > 0, 120000);
    QVERIFY2(error.count() == 1, "a broken file was accepted without an error dialog");
    const QString text = error.at(0).at(0).toString();
    QVERIFY2(text.contains(QFileInfo(path).fileName()), qPrintable(text));  // names the file
    QVERIFY2(text.size() > QFileInfo(path).fileName().size() + 5, qPrintable(text));  // and the problem
    QMessageBox* box = w.errorBox();
    QVERIFY(box);
    QVERIFY(box->isVisible());
    QCOMPARE(box->text(), text);
    QCOMPARE(box->icon(), QMessageBox::Critical);
    box->close();  // auto-close, as a user would
    QTRY_VERIFY(!w.errorBox());
    QVERIFY(!w.image());
}

void TestStudioMainWindow::sampleOpensAndRuns() {
    MainWindow w(Registry::instance());
    w.show();
    QSignalSpy shown(&w, &MainWindow::resultShown);
    w.openSample();
    QVERIFY(shown.wait(30000));
    QVERIFY(w.image());
    QVERIFY(w.currentResult());
    QCOMPARE(w.currentResult()->display.size(), QSize(w.image()->width(), w.image()->height()));
    QCOMPARE(w.compareView()->resultCount(), 1);
    QVERIFY(!w.compareView()->originalPane()->image().isNull());
    QVERIFY(w.compareView()->resultPane(0)->label().contains(w.currentResult()->methodId));
}

void TestStudioMainWindow::realImageRunsExact() {
    // A real picture through the whole window: the halftone is the SPEC reference bit for bit.
    MainWindow w(Registry::instance());
    w.setAutoRun(false);
    QSignalSpy shown(&w, &MainWindow::resultShown);
    QVERIFY(w.methodPanel()->setMethod("ec", "rc"));
    QVERIFY(w.methodPanel()->setParam("kernel", "jarvis"));
    w.methodPanel()->setDevice(Device::Cpu);
    w.openFile(QString::fromStdString(test::dataPath("moon.png")));
    QVERIFY(shown.wait(30000));
    Image moon;
    QVERIFY(io::readImage(test::dataPath("moon.png"), moon).isOk());
    EdParams p;
    p.kernel = "jarvis";
    const Plane8 ref = referenceErrorDiffusion(convertColor(moon, ColorMode::Gray).channels[0], p);
    QVERIFY(w.currentResult()->halftone->channels[0] == ref);
    QVERIFY(w.recentFiles().contains(QFileInfo(QString::fromStdString(test::dataPath("moon.png"))).absoluteFilePath()));
}

void TestStudioMainWindow::cancelKeepsWindowUsable() {
    MainWindow w(Registry::instance());
    w.setAutoRun(false);
    w.show();
    QSignalSpy loaded(&w, &MainWindow::imageLoaded);
    QSignalSpy shown(&w, &MainWindow::resultShown);
    QSignalSpy failed(&w, &MainWindow::runFailed);
    QVERIFY(w.methodPanel()->setMethod("zz-slow", "rows"));
    w.setImage(Image::gray(test::randomPlane(16, 3000, test::freshSeed("window cancel"))), "tall");  // 9 s if not cancelled
    QVERIFY(loaded.wait(10000));
    QTest::qWait(150);
    QVERIFY(w.jobs()->busy());
    auto* cancel = w.findChild<QPushButton*>("cancel");
    QVERIFY(cancel && cancel->isEnabled());
    QTest::mouseClick(cancel, Qt::LeftButton);
    QVERIFY(failed.wait(5000));
    QCOMPARE(failed.at(0).at(1).toBool(), true);
    QVERIFY(!w.errorBox());  // a cancel is not an error
    QCOMPARE(shown.count(), 0);
    // Still usable: another method runs to the end.
    QVERIFY(w.methodPanel()->setMethod("ed", "plain"));
    w.runCurrent();
    QVERIFY(shown.wait(20000));
    QCOMPARE(w.currentResult()->methodId, QString("ed/plain"));
}

void TestStudioMainWindow::switchingBackIsCached() {
    MainWindow w(Registry::instance());
    QSignalSpy shown(&w, &MainWindow::resultShown);
    w.setImage(Image::gray(test::randomPlane(120, 80, test::freshSeed("cache window"))), "random");
    QVERIFY(shown.wait(20000));
    const JobResultPtr first = w.currentResult();
    QVERIFY(w.methodPanel()->setParam("levels", 3));  // auto-run on change
    QTRY_VERIFY_WITH_TIMEOUT(w.currentResult() != first && w.currentResult(), 20000);
    QVERIFY(w.methodPanel()->setParam("levels", 2));
    QTRY_COMPARE_WITH_TIMEOUT(w.currentResult().get(), first.get(), 5000);  // the very same result object
}

void TestStudioMainWindow::saveResult() {
    MainWindow w(Registry::instance());
    QSignalSpy shown(&w, &MainWindow::resultShown);
    w.setImage(Image::gray(test::randomPlane(37, 23, test::freshSeed("save"))), "random");
    QVERIFY(shown.wait(20000));
    QTemporaryDir dir;
    for (const char* name : {"out.png", "out.pbm", "out.tif"}) {
        const QString path = dir.filePath(name);
        QVERIFY2(w.saveResult(path), qPrintable(w.lastError()));
        Image back;
        QVERIFY(io::readImage(path.toStdString(), back).isOk());
        QVERIFY2(back.channels[0] == w.currentResult()->halftone->channels[0], name);
    }
    // A path that cannot be written gives the error dialog naming it.
    QSignalSpy error(&w, &MainWindow::errorShown);
    QVERIFY(!w.saveResult("/nonexistent-dir/out.png"));
    QCOMPARE(error.count(), 1);
    QVERIFY(error.at(0).at(0).toString().contains("/nonexistent-dir/out.png"));
    w.errorBox()->close();
}

void TestStudioMainWindow::pasteImage() {
    MainWindow w(Registry::instance());
    w.setAutoRun(false);
    QSignalSpy loaded(&w, &MainWindow::imageLoaded);
    QImage img(19, 7, QImage::Format_RGB32);
    img.fill(QColor(10, 200, 30));
    QGuiApplication::clipboard()->setImage(img);
    if (QGuiApplication::clipboard()->image().isNull()) QSKIP("this platform has no clipboard");
    QAction* pasteAction = nullptr;
    for (QAction* a : w.findChildren<QAction*>())
        if (a->shortcut() == QKeySequence(QKeySequence::Paste)) pasteAction = a;
    QVERIFY(pasteAction);
    pasteAction->trigger();
    QVERIFY(loaded.wait(10000));
    QCOMPARE(w.image()->width(), 19);
    QCOMPARE(w.image()->space, ColorSpace::RGB);
    QCOMPARE(int(w.image()->channels[1].at(3, 4)), 200);
}

void TestStudioMainWindow::dropOpensFile() {
    MainWindow w(Registry::instance());
    w.setAutoRun(false);
    QSignalSpy loaded(&w, &MainWindow::imageLoaded);
    QMimeData md;
    md.setUrls({QUrl::fromLocalFile(QString::fromStdString(test::dataPath("page.png")))});
    QDragEnterEvent enter(QPoint(10, 10), Qt::CopyAction, &md, Qt::LeftButton, Qt::NoModifier);
    QApplication::sendEvent(&w, &enter);
    QVERIFY(enter.isAccepted());
    QDropEvent drop(QPointF(10, 10), Qt::CopyAction, &md, Qt::LeftButton, Qt::NoModifier);
    QApplication::sendEvent(&w, &drop);
    QVERIFY(loaded.wait(20000));
    QCOMPARE(w.imageName(), QString("page.png"));
    QCOMPARE(w.image()->width(), 384);
    QCOMPARE(w.image()->height(), 191);
}

void TestStudioMainWindow::perceivedToggle() {
    MainWindow w(Registry::instance());
    QSignalSpy shown(&w, &MainWindow::resultShown);
    w.setImage(Image::gray(Plane8(40, 30, 128)), "flat gray");
    QVERIFY(shown.wait(20000));
    QVERIFY(!w.currentResult()->perceived.isNull());
    // Perceived: a 50% binary halftone looks close to gray 128 through the HVS filter.
    w.compareView()->setPerceived(true);
    const QImage& p = w.compareView()->resultPane(0)->image();
    QCOMPARE(p.size(), QSize(40, 30));
    const int centre = p.constScanLine(15)[20];
    QVERIFY2(std::abs(centre - 128) < 40, qPrintable(QString::number(centre)));
    const QImage& d = w.compareView()->resultPane(0)->image();
    Q_UNUSED(d);
    w.compareView()->setPerceived(false);
    const int raw = w.compareView()->resultPane(0)->image().constScanLine(15)[20];
    QVERIFY(raw == 0 || raw == 255);
}

void TestStudioMainWindow::screenshotFromWindow() {
    MainWindow w(Registry::instance());
    w.resize(1000, 700);
    w.show();
    QTemporaryDir dir;
    const QString path = dir.filePath("shot.png");
    QSignalSpy saved(&w, &MainWindow::screenshotSaved);
    w.setScreenshotPath(path);
    w.openSample();
    QVERIFY(saved.wait(30000));
    QCOMPARE(saved.at(0).at(1).toBool(), true);
    const QImage shot(path);
    QVERIFY(!shot.isNull());
    QCOMPARE(shot.size(), w.size() * w.devicePixelRatio());
}

void TestStudioMainWindow::screenshotOption() {
#ifndef HALFTONE_STUDIO_EXE
    QSKIP("the halftone-studio executable is not part of this build");
#else
    QTemporaryDir dir;
    const QString path = dir.filePath("studio.png");
    QProcess p;
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.insert("QT_QPA_PLATFORM", "offscreen");
    env.insert("XDG_CONFIG_HOME", dir.filePath("config"));
    p.setProcessEnvironment(env);
    p.start(HALFTONE_STUDIO_EXE, {"--screenshot", path, "--size", "1200x800", "--method", "ec/rc", QString::fromStdString(test::dataPath("page.png"))});
    QVERIFY(p.waitForFinished(60000));
    QVERIFY2(p.exitCode() == 0, p.readAllStandardError().constData());
    const QImage shot(path);
    QVERIFY(!shot.isNull());
    QCOMPARE(shot.size(), QSize(1200, 800));
    // A bad file: the option still writes a PNG (showing the error) and exits with 1.
    const QString bad = dir.filePath("bad.png");
    QFile f(bad);
    QVERIFY(f.open(QIODevice::WriteOnly));
    f.write("garbage");
    f.close();
    const QString path2 = dir.filePath("studio-bad.png");
    p.start(HALFTONE_STUDIO_EXE, {"--screenshot", path2, bad});
    QVERIFY(p.waitForFinished(60000));
    QCOMPARE(p.exitCode(), 1);
    QVERIFY(QString::fromLocal8Bit(p.readAllStandardError()).contains("bad.png"));
#endif
}

QTEST_MAIN(TestStudioMainWindow)
#include "test_studio_mainwindow.moc"
