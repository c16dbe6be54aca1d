// Saving in the background: the status bar shows the save's progress and a Cancel button while the window keeps
// handling events; a cancelled save leaves no file (and an older file of that name as it was); a finished one holds
// the result's pixels; a second save while one runs is refused.
#include <QPushButton>
#include <QSignalSpy>
#include <QStatusBar>
#include <QTemporaryDir>
#include <QTimer>
#include <QtTest>

#include <filesystem>
#include <fstream>

#include "io/imagefile.h"
#include "tests/common/qtestutil.h"
#include "tests/common/testutil.h"
#include "tests/studio/studioutil.h"
#include "widgets/mainwindow.h"
#include "widgets/methodpanel.h"

using namespace halftone;

namespace {

std::vector<std::string> entries(const QTemporaryDir& dir) {
    std::vector<std::string> names;
    for (const auto& e : std::filesystem::directory_iterator(dir.path().toStdString()))
        names.push_back(e.path().filename().string());
    std::sort(names.begin(), names.end());
    return names;
}

std::string contents(const QString& path) {
    std::ifstream f(path.toStdString(), std::ios::binary);
    return std::string((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
}

}  // namespace

class TestStudioSave : public QObject {
    Q_OBJECT
private slots:
    void initTestCase() { test::startStudioTest("test_studio_save"); }
    void cancelLeavesNoFile_data();
    void cancelLeavesNoFile();
    void finishedSave();
};

void TestStudioSave::cancelLeavesNoFile_data() {
    test::columns<QString, bool>("name", "button");
    QTest::newRow("png, cancelSave()") << "big.png" << false;
    QTest::newRow("png, the status bar's Cancel") << "big.png" << true;
    QTest::newRow("tif, the status bar's Cancel") << "big.tif" << true;
}

void TestStudioSave::cancelLeavesNoFile() {
    if (!io::haveOpenImageIO()) QSKIP("this build writes only PGM, PPM and PBM (built without OpenImageIO)");
    QFETCH(QString, name);
    QFETCH(bool, button);
    MainWindow w(Registry::instance());
    QSignalSpy shown(&w, &MainWindow::resultShown);
    // 256 gray levels of a 24-megapixel result: an 8-bit file whose write takes long enough to be stopped.
    QVERIFY(w.methodPanel()->setParam("levels", 256));
    w.setImage(Image::gray(test::randomPlane(6000, 4000, test::freshSeed("studio save cancel"))), "random");
    QVERIFY(shown.wait(120000));
    QTRY_VERIFY_WITH_TIMEOUT(w.currentResult() && w.currentResult()->params.getInt("levels", 0) == 256, 120000);
    QTemporaryDir dir;
    const QString path = dir.filePath(name);
    { std::ofstream(path.toStdString()) << "old"; }
    QSignalSpy finished(&w, &MainWindow::saveFinished);
    QVERIFY2(w.startSave(path), qPrintable(w.lastError()));
    // startSave returns at once: the save runs, its progress and Cancel are on the status bar.
    QVERIFY(w.saving());
    QVERIFY(!w.saveProgress()->isHidden());
    QVERIFY(!w.saveCancelButton()->isHidden());
    // A second save while this one runs is refused with a message.
    QVERIFY(!w.startSave(dir.filePath("second.png")));
    QVERIFY(w.lastError().contains("still running"));
    if (button)
        w.saveCancelButton()->click();
    else
        w.cancelSave();
    QVERIFY(finished.count() == 1 || finished.wait(60000));
    QCOMPARE(finished.count(), 1);
    QCOMPARE(finished.at(0).at(1).toBool(), false);  // not written
    QCOMPARE(finished.at(0).at(2).toBool(), true);   // cancelled
    QVERIFY(!w.saving());
    QVERIFY(w.saveProgress()->isHidden() && w.saveCancelButton()->isHidden());
    QCOMPARE(entries(dir), std::vector<std::string>{name.toStdString()});  // no partial or temporary file
    QCOMPARE(contents(path), std::string("old"));
}

void TestStudioSave::finishedSave() {
    if (!io::haveOpenImageIO()) QSKIP("this build writes only PGM, PPM and PBM (built without OpenImageIO)");
    MainWindow w(Registry::instance());
    QSignalSpy shown(&w, &MainWindow::resultShown);
    w.setImage(Image::gray(test::randomPlane(3001, 2003, test::freshSeed("studio save"))), "random");
    QVERIFY(shown.wait(120000));
    QTemporaryDir dir;
    const QString path = dir.filePath("out.png");
    QSignalSpy progressed(&w, &MainWindow::saveProgressed);
    QSignalSpy finished(&w, &MainWindow::saveFinished);
    // The window handles events while the save runs: a timer started with the save fires before it ends or with it.
    int ticks = 0;
    QTimer timer;
    connect(&timer, &QTimer::timeout, [&] { ++ticks; });
    timer.start(1);
    QVERIFY2(w.startSave(path), qPrintable(w.lastError()));
    QVERIFY(w.saving());  // the end comes through the event loop, never inside startSave
    QVERIFY(finished.wait(120000));
    timer.stop();
    QVERIFY(ticks > 0);
    QCOMPARE(finished.at(0).at(0).toString(), path);
    QCOMPARE(finished.at(0).at(1).toBool(), true);
    QVERIFY(progressed.count() > 0);
    for (int i = 1; i < progressed.count(); ++i)
        QVERIFY(progressed.at(i).at(0).toDouble() >= progressed.at(i - 1).at(0).toDouble());
    QVERIFY(w.statusBar()->currentMessage().contains("Saved"));
    Image back;
    QVERIFY(io::readImage(path.toStdString(), back).isOk());
    QVERIFY(back.channels[0] == w.currentResult()->halftone->channels[0]);
    QCOMPARE(entries(dir), std::vector<std::string>{"out.png"});
}

QTEST_MAIN(TestStudioSave)
#include "test_studio_save.moc"
