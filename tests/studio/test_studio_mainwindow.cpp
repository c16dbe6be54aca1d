// The main window: bad files give an error dialog naming the file and the problem; the sample opens and a
// run completes; a cancel leaves the window usable; results save; recent files; paste; the screenshot
// path of the window and of the halftone-studio executable writes a PNG.
#include <QAbstractItemView>
#include <QClipboard>
#include <QDoubleSpinBox>
#include <QSettings>
#include <QMenu>
#include <QDockWidget>
#include <QUndoStack>
#include <QComboBox>
#include <QMessageBox>
#include <QMimeData>
#include <QProcess>
#include <QPushButton>
#include <QtTest>
#include <QTemporaryDir>
#include <QSet>
#include <thread>

#include "core/ed/errordiffusion.h"
#include "core/screen/ordered.h"
#include "core/screen/screen.h"
#include "core/job/registry.h"
#include "gpu/gpu.h"
#include "io/imagefile.h"
#include "tests/common/qtestutil.h"
#include "widgets/jobrunner.h"
#include "widgets/qualitypanel.h"
#include <QLabel>
#include <QStatusBar>
#include <QTabWidget>
#include <QToolBar>
#include <QTableWidget>
#include "tests/studio/studioutil.h"
#include "tests/common/testutil.h"
#include "widgets/batchdialog.h"
#include "widgets/adjustpanel.h"
#include "core/job/job.h"
#include "widgets/compareview.h"
#include "widgets/imageconvert.h"
#include "widgets/imageload.h"
#include "widgets/mainwindow.h"
#include "widgets/methodpanel.h"

using namespace halftone;

class TestStudioMainWindow : public QObject {
    Q_OBJECT
private slots:
    void initTestCase() {
        test::startStudioTest("test_studio_mainwindow");
        test::registerSlowMethod();
    }
    void badFilesShowErrorDialog_data();
    void badFilesShowErrorDialog();
    void sampleOpensAndRuns();
    void realImageRunsExact();
    void cancelKeepsWindowUsable();
    void escapeClosingAListKeepsTheRun();
    void cancelStopsOpening();
    void screenFromPngFile();
    void switchingBackIsCached();
    void saveResult();
    void pasteImage();
    void dropOpensFile();
    void perceivedToggle();
    void dropAddsToBatchList();
    void undoRedoSettings();
    void windowAndDocksRemembered();
    void fourPinsHaveDistinctLabels();
    void statusColourHintFollowsMode();
    void statusRunNoteClearedByLaterRun();
    void statusSaveErrorClearedOnTabChange();
    void saveTakesFilterExtension();
    void saveAdviceAndCmykPng();
    void cancelMarksPreviousResult();
    void titleNamesAppOnce();
    void toolbarFitsDefaultWindow();
    void helpListsEveryShortcut();
    void screenshotFromWindow();
    void screenshotOption();
};

void TestStudioMainWindow::badFilesShowErrorDialog_data() {
    QTest::addColumn<QString>("path");
    QTest::addColumn<QString>("problem");  // a word the message must contain besides the file name
    QTest::newRow("missing") << QString("/nonexistent/dir/none.png") << QString();
    QTest::newRow("text as png") << QString("TEXT") << QString();
    const QDir hostile(QStringLiteral(HALFTONE_TEST_DATA_DIR "/hostile"));
    for (const QString& f : hostile.entryList(QDir::Files))
        QTest::newRow(qPrintable("hostile/" + f)) << hostile.filePath(f) << QString();
}

void TestStudioMainWindow::badFilesShowErrorDialog() {
    QFETCH(QString, path);
    QTemporaryDir dir;
    if (path == "TEXT") {
        path = dir.filePath("not-an-image.png");
        QVERIFY(test::writeFile(path, "this is not a PNG file\n"));
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
    QVERIFY2(text.contains(QFileInfo(path).fileName()), qPrintable(text));            // names the file
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
    QVERIFY(readImageFile(QString::fromStdString(test::dataPath("moon.png")), moon).isOk());
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
    w.setImage(Image::gray(test::randomPlane(16, 3000, test::freshSeed("window cancel"))),
               "tall");  // 9 s if not cancelled
    QSignalSpy progress(w.jobs(), &JobRunner::progress);
    QVERIFY(loaded.wait(10000));
    QVERIFY(progress.wait(10000));  // the slow run is under way
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

void TestStudioMainWindow::escapeClosingAListKeepsTheRun() {
    MainWindow w(Registry::instance());
    w.setAutoRun(false);
    w.show();
    QVERIFY(QTest::qWaitForWindowActive(&w));
    QSignalSpy loaded(&w, &MainWindow::imageLoaded);
    QSignalSpy failed(&w, &MainWindow::runFailed);
    QVERIFY(w.methodPanel()->setMethod("zz-slow", "rows"));
    QSignalSpy progress(w.jobs(), &JobRunner::progress);
    w.setImage(Image::gray(test::randomPlane(16, 3000, test::freshSeed("escape in a list"))), "tall");
    QVERIFY(loaded.wait(10000));
    QVERIFY(progress.wait(10000));  // the slow run is under way
    // Esc closes an open drop-down list and does nothing else.
    QComboBox* combo = w.methodPanel()->deviceCombo();
    combo->showPopup();
    QWidget* popup = combo->view()->window();
    QTRY_VERIFY(popup->isVisible());
    QTest::keyClick(QApplication::focusWidget() ? QApplication::focusWidget() : popup, Qt::Key_Escape);
    QTRY_VERIFY(!popup->isVisible());
    QTest::qWait(100);
    QVERIFY(w.jobs()->busy());
    QCOMPARE(failed.count(), 0);
    // Esc in the window cancels the run.
    QApplication::setActiveWindow(&w);  // the offscreen platform leaves the closed list active
    QTRY_COMPARE(QApplication::activeWindow(), &w);
    QTest::keyClick(&w, Qt::Key_Escape);
    QVERIFY(failed.count() > 0 || failed.wait(5000));
    QCOMPARE(failed.at(0).at(1).toBool(), true);
}

void TestStudioMainWindow::screenFromPngFile() {
    // Screen > From file... reads what the CLI's --screen reads: a PNG threshold array is used by the run.
    QTemporaryDir dir;
    const ThresholdArray thresholds = test::randomPlane(5, 3, test::freshSeed("screen file"));
    const QString png = dir.filePath("thresholds.png");
    QVERIFY(io::writeImage(QFile::encodeName(png).toStdString(), Image::gray(thresholds)).isOk());
    MainWindow w(Registry::instance());
    w.show();
    QVERIFY(w.methodPanel()->setMethod("ordered", "screen"));
    QVERIFY(w.methodPanel()->useFile("screen", png));
    QCOMPARE(w.methodPanel()->params().getText("screen", ""), png.toStdString());
    const Plane8 input = test::randomPlane(37, 23, test::freshSeed("screen file input"));
    w.setImage(Image::gray(input), "random");
    // Runs started before the last setting took effect may be shown first: the result settles on the file's screen.
    // The file as --screen reads it (a random array that holds 255 is a full-range texture, rescaled).
    ThresholdArray fromFile;
    QVERIFY(screenFromSpec(png.toStdString(), fromFile).isOk());
    Plane8 expected;
    QVERIFY(orderedDither(input, expected, fromFile).isOk());
    QTRY_VERIFY_WITH_TIMEOUT(
        w.currentResult() && w.currentResult()->halftone && w.currentResult()->halftone->channels[0] == expected,
        20000);
    QVERIFY2(!w.errorBox(), qPrintable(w.lastError()));

    // A file that is no image is refused with a message naming it; the PNG stays chosen.
    const QString bad = dir.filePath("not-thresholds.png");
    QVERIFY(test::writeFile(bad, QByteArray("not an image")));
    QVERIFY(!w.methodPanel()->useFile("screen", bad));
    QVERIFY(w.methodPanel()->errorBox());
    QVERIFY2(w.methodPanel()->errorBox()->text().contains("not-thresholds.png"),
             qPrintable(w.methodPanel()->errorBox()->text()));
    QCOMPARE(w.methodPanel()->params().getText("screen", ""), png.toStdString());
    auto* combo = qobject_cast<QComboBox*>(w.methodPanel()->paramWidget("screen"));
    QVERIFY(combo && combo->findData(bad) < 0);
}

void TestStudioMainWindow::cancelStopsOpening() {
    // A large file is being decoded when the user presses Cancel (Esc): the decoder stops between strips,
    // no error dialog opens, the image open before stays, and the next open works.
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const std::string big = dir.path().toStdString() + "/big.png";
    const Image bigImage = Image::gray(test::randomPlane(6000, 6000, test::freshSeed("open cancel")));
    if (io::haveOpenImageIO())
        QVERIFY(io::writeImage(big, bigImage).isOk());
    else  // a build without OpenImageIO writes PNG through Qt (and reads it back through Qt's reader)
        QVERIFY(toDisplayImageCopy(bigImage).save(QString::fromStdString(big)));
    MainWindow w(Registry::instance());
    w.setAutoRun(false);
    w.show();
    QSignalSpy loaded(&w, &MainWindow::imageLoaded);
    QSignalSpy cancelled(&w, &MainWindow::loadCancelled);
    w.openFile(QString::fromStdString(test::dataPath("moon.png")));
    QVERIFY(loaded.wait(20000));
    auto* cancel = w.findChild<QPushButton*>("cancel");
    QVERIFY(cancel);
    QTRY_VERIFY(!cancel->isEnabled());  // the run of the opened image has finished: Cancel below is the open's alone
    w.openFile(QString::fromStdString(big));
    QVERIFY(cancel->isEnabled());  // Cancel is offered while the file decodes
    QTest::mouseClick(cancel, Qt::LeftButton);
    QVERIFY(cancelled.wait(20000));
    QCOMPARE(cancelled.at(0).at(0).toString(), QStringLiteral("big.png"));
    QCOMPARE(loaded.count(), 1);
    QVERIFY(!w.errorBox());
    QVERIFY(w.windowTitle().startsWith(QStringLiteral("moon.png")));
    QVERIFY(w.statusBar()->currentMessage().contains(QStringLiteral("cancelled")));
    QVERIFY(!cancel->isEnabled());
    w.openFile(QString::fromStdString(test::dataPath("moon.png")));
    QVERIFY(loaded.wait(20000));
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
    if (!io::haveOpenImageIO()) QSKIP("this build writes only PGM, PPM and PBM (built without OpenImageIO)");
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

void TestStudioMainWindow::dropAddsToBatchList() {
    MainWindow w(Registry::instance());
    BatchDialog* batch = w.showBatch();
    QVERIFY(batch);
    batch->setInputs({});
    QTemporaryDir dir;
    const QString page = QString::fromStdString(test::dataPath("page.png"));
    QMimeData md;
    md.setUrls({QUrl::fromLocalFile(page), QUrl::fromLocalFile(dir.path()), QUrl("https://example.org/x.png")});
    QDragEnterEvent enter(QPoint(10, 10), Qt::CopyAction, &md, Qt::LeftButton, Qt::NoModifier);
    QApplication::sendEvent(batch, &enter);
    QVERIFY(enter.isAccepted());
    QDropEvent drop(QPointF(10, 10), Qt::CopyAction, &md, Qt::LeftButton, Qt::NoModifier);
    QApplication::sendEvent(batch, &drop);
    QCOMPARE(batch->inputs(), QStringList({page, dir.path()}));  // local files and folders; no remote URL
    QVERIFY(!w.image());                                         // the drop went to the batch, not to the window
}

void TestStudioMainWindow::undoRedoSettings() {
    MainWindow w(Registry::instance());
    w.setAutoRun(false);
    QVERIFY(w.methodPanel()->setMethod("ed", "plain"));
    w.resetUndo();
    JobSettings start;
    QVERIFY(w.currentJob(start).isOk());
    QVERIFY(w.methodPanel()->setParam("levels", 3));
    w.adjustPanel()->gammaSpin()->setValue(1.4);
    QVERIFY(w.methodPanel()->setMethod("ordered", "screen"));
    JobSettings end;
    QVERIFY(w.currentJob(end).isOk());
    QUndoStack* undo = w.undoStack();
    QCOMPARE(undo->count(), 3);
    undo->undo();  // back to ed/plain with 3 levels and gamma 1.4
    JobSettings job;
    QVERIFY(w.currentJob(job).isOk());
    QCOMPARE(QString::fromStdString(job.method), QString("ed"));
    QCOMPARE(job.prepare.gamma, 1.4);
    undo->undo();
    undo->undo();
    QVERIFY(w.currentJob(job).isOk());
    QVERIFY(job == start);
    QVERIFY(!undo->canUndo());
    // The menu's Undo and Redo work the stack; undoing made no new steps.
    auto* redo = w.findChild<QAction*>("redo");
    QVERIFY(redo && redo->isEnabled());
    for (int i = 0; i < 3; ++i) redo->trigger();
    QVERIFY(w.currentJob(job).isOk());
    QVERIFY(job == end);
    QCOMPARE(undo->count(), 3);
    // A new change after an undo drops the steps that could be redone.
    undo->undo();
    w.adjustPanel()->gammaSpin()->setValue(0.8);
    QVERIFY(!undo->canRedo());
}

void TestStudioMainWindow::windowAndDocksRemembered() {
    QSettings settings;  // the test's own settings (startStudioTest)
    QSize size;
    {
        MainWindow w(Registry::instance());
        QVERIFY(!w.restoreWindowState(settings));  // nothing stored yet
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        // Docks can be hidden from the View menu.
        auto* view = w.findChild<QMenu*>("viewMenu");
        QVERIFY(view);
        auto* adjust = w.findChild<QDockWidget*>("adjustDock");
        QVERIFY(adjust && adjust->isVisible());
        QAction* toggle = adjust->toggleViewAction();
        QVERIFY(view->actions().contains(toggle));
        toggle->trigger();
        QVERIFY(!adjust->isVisible());
        w.resize(1250, 760);
        QApplication::processEvents();
        size = w.size();
        QVERIFY(size != QSize(1400, 900));
        w.saveWindowState(settings);
    }
    MainWindow again(Registry::instance());
    QVERIFY(again.restoreWindowState(settings));
    again.show();
    QVERIFY(QTest::qWaitForWindowExposed(&again));
    QCOMPARE(again.size(), size);
    QVERIFY(!again.findChild<QDockWidget*>("adjustDock")->isVisible());
    QVERIFY(again.findChild<QDockWidget*>("methodDock")->isVisible());
    settings.remove("window");
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

namespace {
/// A small colour picture: gradients in each channel.
Image colourPicture(int w, int h) {
    Image im;
    im.space = ColorSpace::RGB;
    for (int c = 0; c < 3; ++c) {
        Plane8 p(w, h);
        for (int y = 0; y < h; ++y)
            for (int x = 0; x < w; ++x) p.at(y, x) = uint8_t((x * 255 / (w - 1) + c * 60 + y) % 256);
        im.channels.push_back(p);
    }
    return im;
}

bool runAndWait(MainWindow& w) {
    QSignalSpy shown(&w, &MainWindow::resultShown);
    w.runCurrent();
    return shown.wait(30000);
}
}  // namespace

void TestStudioMainWindow::fourPinsHaveDistinctLabels() {
    // CMYK FS, RGB FS, gray FS, gray Jarvis: the same method and device, told apart by their labels.
    MainWindow w(Registry::instance());
    w.setAutoRun(false);
    w.show();
    QVERIFY(w.methodPanel()->setMethod("ed", "plain"));
    w.methodPanel()->setDevice(Device::Cpu);
    w.methodPanel()->setColorMode(ColorMode::CMYK);
    QSignalSpy shown(&w, &MainWindow::resultShown);
    w.setImage(colourPicture(48, 32), "colour");
    QVERIFY(shown.wait(30000));
    w.pinCurrent();
    w.methodPanel()->setColorMode(ColorMode::RGB);
    QVERIFY(runAndWait(w));
    w.pinCurrent();
    w.methodPanel()->setColorMode(ColorMode::Gray);
    QVERIFY(runAndWait(w));
    w.pinCurrent();
    QVERIFY(w.methodPanel()->setParam("kernel", "jarvis"));
    QVERIFY(runAndWait(w));
    QCOMPARE(w.shownResults().size(), 4);

    QStringList paneLabels, shortTexts;
    for (int i = 0; i < 4; ++i) paneLabels << w.compareView()->resultPane(i)->label();
    for (const JobResultPtr& r : w.shownResults()) shortTexts << r->description.shortText;
    for (const QStringList& list : {paneLabels, shortTexts, w.resultChoices()}) {
        QCOMPARE(list.size(), 4);
        QCOMPARE(QSet<QString>(list.begin(), list.end()).size(), 4);
    }
    QVERIFY2(shortTexts[0].contains("CMYK") && shortTexts[1].contains("RGB") && shortTexts[2].contains("gray"),
             qPrintable(shortTexts.join(" | ")));
    QVERIFY(shortTexts[3].contains("jarvis"));
    QVERIFY(!shortTexts[2].contains("jarvis"));
    for (const QString& t : shortTexts) QVERIFY2(t.contains("ed/plain") && t.contains("[cpu]"), qPrintable(t));
    // The tooltip holds everything, the current result is marked apart from the pins.
    QVERIFY(w.compareView()->resultPane(3)->toolTip().contains("Kernel: jarvis"));
    QVERIFY(w.compareView()->resultPane(0)->toolTip().contains("Colour mode: CMYK"));
    QVERIFY(paneLabels[0].startsWith("Pin 1"));
    QVERIFY(paneLabels[3].startsWith("Current"));
    QVERIFY(w.compareView()->resultPane(3)->accent());
    QVERIFY(!w.compareView()->resultPane(0)->accent());
    // The default save name says what the result is.
    QVERIFY2(w.suggestedSaveName().contains("jarvis"), qPrintable(w.suggestedSaveName()));
    // The quality table and chart legends use the same labels.
    QSignalSpy measured(w.qualityPanel(), &QualityPanel::measured);
    w.qualityPanel()->measure();
    QVERIFY(measured.wait(60000));
    QStringList rowLabels;
    for (const QualityRow& r : w.qualityPanel()->rows()) rowLabels << r.label;
    QCOMPARE(rowLabels, shortTexts);
    // A fourth pin drops the oldest, and the status bar says which.
    QSignalSpy dropped(&w, &MainWindow::pinDropped);
    w.pinCurrent();
    QCOMPARE(dropped.count(), 1);
    QVERIFY2(
        w.statusBar()->currentMessage().contains("Pin dropped") && w.statusBar()->currentMessage().contains("CMYK"),
        qPrintable(w.statusBar()->currentMessage()));
    QCOMPARE(w.pinnedResults().size(), 3);
}

void TestStudioMainWindow::statusColourHintFollowsMode() {
    MainWindow w(Registry::instance());
    w.setAutoRun(false);
    w.methodPanel()->setColorMode(ColorMode::Gray);
    QSignalSpy loaded(&w, &MainWindow::imageLoaded);
    w.setImage(colourPicture(20, 10), "colour");
    QVERIFY(loaded.wait(10000));
    QVERIFY2(w.statusBar()->currentMessage().contains("Choose RGB or CMYK"),
             qPrintable(w.statusBar()->currentMessage()));
    w.methodPanel()->setColorMode(ColorMode::RGB);
    QVERIFY2(!w.statusBar()->currentMessage().contains("Choose RGB or CMYK"),
             qPrintable(w.statusBar()->currentMessage()));
    w.methodPanel()->setColorMode(ColorMode::Gray);
    QVERIFY(w.statusBar()->currentMessage().contains("Choose RGB or CMYK"));
}

void TestStudioMainWindow::statusRunNoteClearedByLaterRun() {
    if (Registry::instance().gpuAvailability().usable) QSKIP("a usable GPU runs GPU requests without a note");
    const MethodInfo* both = nullptr;
    for (const MethodInfo& m : Registry::instance().methods())
        if (m.cpu && m.gpu && m.family == "error-diffusion") {
            both = &m;
            break;
        }
    if (!both) QSKIP("this build has no method with both a CPU and a GPU path");
    MainWindow w(Registry::instance());
    w.setAutoRun(false);
    QVERIFY(w.methodPanel()->setMethod(QString::fromStdString(both->method), QString::fromStdString(both->variant)));
    w.methodPanel()->setDevice(Device::Gpu);
    QSignalSpy shown(&w, &MainWindow::resultShown);
    w.setImage(Image::gray(test::randomPlane(30, 20, test::freshSeed("status gpu"))), "random");
    QVERIFY(shown.wait(30000));
    QVERIFY2(w.statusBar()->currentMessage().contains("GPU"), qPrintable(w.statusBar()->currentMessage()));
    w.methodPanel()->setDevice(Device::Cpu);
    QVERIFY(runAndWait(w));
    QVERIFY2(!w.statusBar()->currentMessage().contains("GPU"), qPrintable(w.statusBar()->currentMessage()));
}

void TestStudioMainWindow::statusSaveErrorClearedOnTabChange() {
    MainWindow w(Registry::instance());
    QSignalSpy shown(&w, &MainWindow::resultShown);
    w.setImage(Image::gray(test::randomPlane(20, 10, test::freshSeed("status save"))), "random");
    QVERIFY(shown.wait(20000));
    QVERIFY(!w.saveResult("/nonexistent-dir/out.png"));
    w.errorBox()->close();
    QVERIFY(w.statusBar()->currentMessage().contains("/nonexistent-dir/out.png"));
    w.tabs()->setCurrentIndex(2);
    QVERIFY2(!w.statusBar()->currentMessage().contains("nonexistent"), qPrintable(w.statusBar()->currentMessage()));
    // A later result clears an old save message too.
    w.tabs()->setCurrentIndex(0);
    QVERIFY(!w.saveResult("/nonexistent-dir/out.png"));
    w.errorBox()->close();
    QVERIFY(w.methodPanel()->setParam("levels", 3));
    QTRY_VERIFY_WITH_TIMEOUT(!w.statusBar()->currentMessage().contains("nonexistent"), 20000);
}

void TestStudioMainWindow::saveTakesFilterExtension() {
    if (!io::haveOpenImageIO()) QSKIP("this build writes only PGM, PPM and PBM (built without OpenImageIO)");
    QCOMPARE(MainWindow::pathWithExtension("/tmp/a", "PNG, 1-bit (*.png)"), QString("/tmp/a.png"));
    QCOMPARE(MainWindow::pathWithExtension("/tmp/a", "TIFF (*.tif *.tiff)"), QString("/tmp/a.tif"));
    QCOMPARE(MainWindow::pathWithExtension("/tmp/a", "PBM, 1-bit (*.pbm)"), QString("/tmp/a.pbm"));
    QCOMPARE(MainWindow::pathWithExtension("/tmp/a.pgm", "TIFF (*.tif *.tiff)"), QString("/tmp/a.pgm"));
    QCOMPARE(MainWindow::pathWithExtension("/tmp/a", QString()), QString("/tmp/a.png"));
    MainWindow w(Registry::instance());
    QSignalSpy shown(&w, &MainWindow::resultShown);
    w.setImage(Image::gray(test::randomPlane(37, 23, test::freshSeed("save ext"))), "random");
    QVERIFY(shown.wait(20000));
    QTemporaryDir dir;
    QVERIFY2(w.saveResult(dir.filePath("noext"), "PBM, 1-bit (*.pbm)"), qPrintable(w.lastError()));
    QVERIFY(QFileInfo::exists(dir.filePath("noext.pbm")));
    QVERIFY(!QFileInfo::exists(dir.filePath("noext")));
    // A binary result goes to PNG with 1 bit per sample.
    QVERIFY(w.saveResult(dir.filePath("bw.png")));
    QFile png(dir.filePath("bw.png"));
    QVERIFY(png.open(QIODevice::ReadOnly));
    QCOMPARE(int(uchar(png.read(26).at(24))), 1);  // IHDR bit depth
    Image back;
    QVERIFY(io::readImage(dir.filePath("bw.png").toStdString(), back).isOk());
    QVERIFY(back.channels[0] == w.currentResult()->halftone->channels[0]);
    QVERIFY(w.saveFilters().join(";").contains("*.pbm"));
}

void TestStudioMainWindow::saveAdviceAndCmykPng() {
    if (!io::haveOpenImageIO()) QSKIP("this build writes only PGM, PPM and PBM (built without OpenImageIO)");
    MainWindow w(Registry::instance());
    w.setAutoRun(false);
    QVERIFY(w.methodPanel()->setMethod("ed", "plain"));
    QVERIFY(w.methodPanel()->setParam("levels", 4));
    w.methodPanel()->setColorMode(ColorMode::Gray);
    QSignalSpy shown(&w, &MainWindow::resultShown);
    w.setImage(Image::gray(test::randomPlane(30, 20, test::freshSeed("save advice"))), "random");
    QVERIFY(shown.wait(20000));
    QTemporaryDir dir;
    // Four gray levels cannot go to PBM: the advice names only formats that work, and no command-line flags.
    QVERIFY(!w.saveResult(dir.filePath("x.pbm")));
    const QString advice = w.lastError();
    w.errorBox()->close();
    QVERIFY2(advice.contains("PNG, TIFF or PGM") && !advice.contains("--") && !advice.contains("PPM"),
             qPrintable(advice));
    QVERIFY(!w.saveFilters().join(";").contains("*.pbm"));
    // CMYK to PNG: converted to RGB and said so.
    w.methodPanel()->setColorMode(ColorMode::CMYK);
    QVERIFY(w.methodPanel()->setParam("levels", 2));
    w.setImage(colourPicture(30, 20), "colour");
    QVERIFY(shown.wait(20000));
    QCOMPARE(w.currentResult()->halftone->space, ColorSpace::CMYK);
    QVERIFY2(w.saveResult(dir.filePath("cmyk.png")), qPrintable(w.lastError()));
    QVERIFY2(w.statusBar()->currentMessage().contains("converted to RGB"), qPrintable(w.statusBar()->currentMessage()));
    Image back;
    QVERIFY(io::readImage(dir.filePath("cmyk.png").toStdString(), back).isOk());
    QCOMPARE(back.space, ColorSpace::RGB);
    QVERIFY(back.channels == convertColor(*w.currentResult()->halftone, ColorMode::RGB).channels);
    QVERIFY(w.saveResult(dir.filePath("cmyk.tif")));
    QVERIFY(io::readImage(dir.filePath("cmyk.tif").toStdString(), back).isOk());
    QCOMPARE(back.space, ColorSpace::CMYK);
    QVERIFY(back.channels == w.currentResult()->halftone->channels);
    // The dialog proposes the separation, not a PNG: a .tif name and the 1-bit separation's filter first, then the
    // plates; the plates' filter writes one TIFF per ink.
    QVERIFY2(w.suggestedSaveName().endsWith(".tif"), qPrintable(w.suggestedSaveName()));
    const QStringList filters = w.saveFilters();
    QVERIFY2(filters.size() == 3 && filters[0].startsWith("TIFF, CMYK, 1-bit separations") &&
                 filters[1].startsWith("TIFF, 1-bit plates") && filters[2].startsWith("PNG"),
             qPrintable(filters.join(";")));
    QVERIFY2(w.saveResult(dir.filePath("job"), filters[1]), qPrintable(w.lastError()));
    QVERIFY(!QFile::exists(dir.filePath("job.tif")));
    const char* plates[4] = {"job-cyan.tif", "job-magenta.tif", "job-yellow.tif", "job-black.tif"};
    for (int c = 0; c < 4; ++c) {
        Image plate;
        QVERIFY2(io::readImage(dir.filePath(plates[c]).toStdString(), plate).isOk(), plates[c]);
        // Every plate is a bilevel picture of its ink: it reads back as gray, ink black.
        QCOMPARE(plate.space, ColorSpace::Gray);
        Plane8 ink = plate.channels[0];
        for (uint8_t& v : ink.data) v = uint8_t(255 - v);
        QVERIFY2(ink == w.currentResult()->halftone->channels[size_t(c)], plates[c]);
    }
}

void TestStudioMainWindow::cancelMarksPreviousResult() {
    MainWindow w(Registry::instance());
    w.setAutoRun(false);
    w.show();
    QVERIFY(w.methodPanel()->setMethod("ed", "plain"));
    QSignalSpy shown(&w, &MainWindow::resultShown);
    QSignalSpy failed(&w, &MainWindow::runFailed);
    w.setImage(Image::gray(test::randomPlane(16, 3000, test::freshSeed("cancel stale"))), "tall");
    QVERIFY(shown.wait(20000));
    QVERIFY(!w.compareView()->resultPane(0)->label().contains("Previous result"));
    QVERIFY(w.methodPanel()->setMethod("zz-slow", "rows"));
    w.runCurrent();
    QTRY_VERIFY_WITH_TIMEOUT(test::g_slowRowsRun > 0, 10000);
    w.cancelAction()->trigger();
    QVERIFY(failed.wait(5000));
    QVERIFY(w.currentIsStale());
    QVERIFY2(w.compareView()->resultPane(0)->label().contains("Previous result"),
             qPrintable(w.compareView()->resultPane(0)->label()));
    QVERIFY(w.statusBar()->currentMessage().contains("previous one"));
    QVERIFY(w.methodPanel()->setMethod("ed", "plain"));
    QVERIFY(runAndWait(w));
    QVERIFY(!w.currentIsStale());
    QVERIFY(!w.compareView()->resultPane(0)->label().contains("Previous result"));
    // Cancel with nothing running changes nothing: the finished result is not called previous or cancelled.
    auto* stage = w.findChild<QLabel*>("stageLabel");
    QVERIFY(stage);
    const QString done = stage->text();
    w.cancelAction()->trigger();
    w.cancelRun();
    QCOMPARE(stage->text(), done);
    QVERIFY(!w.currentIsStale());
}

void TestStudioMainWindow::toolbarFitsDefaultWindow() {
    // At the default 1400 x 900 every action of the Compare toolbar is on the bar (none behind the overflow button),
    // and the Split result selector stays on it, with results whose labels are long (pins, Adjust settings).
    MainWindow w(Registry::instance());
    QCOMPARE(w.size(), QSize(1400, 900));
    w.show();
    QVERIFY(QTest::qWaitForWindowExposed(&w));
    QVERIFY(w.methodPanel()->setMethod("ed", "plain"));
    QSignalSpy shown(&w, &MainWindow::resultShown);
    w.setImage(Image::gray(test::randomPlane(64, 48, test::freshSeed("toolbar"))), "a-rather-long-image-name");
    QVERIFY(shown.wait(20000));
    w.pinCurrent();
    QVERIFY(w.methodPanel()->setParam("levels", 3));
    QVERIFY(shown.wait(20000));
    w.setSplitView(true);
    QApplication::processEvents();
    for (const char* name : {"compareToolBar", "splitToolBar"}) {
        auto* bar = w.findChild<QToolBar*>(name);
        QVERIFY2(bar && bar->isVisible(), name);
        for (QAction* a : bar->actions()) {
            if (a->isSeparator()) continue;
            QWidget* on = bar->widgetForAction(a);
            const QString what = a->text().isEmpty() && on ? on->objectName() : a->text();
            QVERIFY2(on && on->isVisible(), qPrintable(what + " is hidden in the toolbar's overflow"));
            QVERIFY2(bar->rect().contains(on->geometry()), qPrintable(what + " is cut off"));
        }
        auto* more = bar->findChild<QWidget*>("qt_toolbar_ext_button");
        QVERIFY2(!more || !more->isVisible(), name);
    }
    auto* split = w.findChild<QComboBox*>("splitChoice");
    QVERIFY(split && split->isVisible() && split->count() == 2);
}

void TestStudioMainWindow::titleNamesAppOnce() {
    MainWindow w(Registry::instance());
    w.setAutoRun(false);
    QSignalSpy loaded(&w, &MainWindow::imageLoaded);
    w.setImage(Image::gray(Plane8(12, 8, 100)), "flat");
    QVERIFY(loaded.wait(10000));
    QCOMPARE(w.windowTitle().count("Halftone Studio"), 1);
    QVERIFY(w.windowTitle().contains("flat"));
    // The platform appends the display name unless the title already ends with it: the app stays named once.
    QVERIFY(w.windowTitle().endsWith("Halftone Studio"));
}

void TestStudioMainWindow::helpListsEveryShortcut() {
    MainWindow w(Registry::instance());
    const QList<QStringList> rows = w.shortcutList();
    auto has = [&](const QString& what, const QKeySequence& k) {
        for (const QStringList& r : rows)
            if (r[1] == what && r[2].contains(k.toString(QKeySequence::NativeText))) return true;
        return false;
    };
    QVERIFY(has("Run", QKeySequence(Qt::CTRL | Qt::Key_R)));
    QVERIFY(has("Cancel run", QKeySequence(Qt::Key_Escape)));
    QVERIFY(has("Open", QKeySequence(QKeySequence::Open)));
    QVERIFY(has("Fit", QKeySequence(Qt::Key_F)));
    QVERIFY(has("Pin", QKeySequence(Qt::CTRL | Qt::Key_P)));
    QVERIFY(has("Zoom in", QKeySequence(Qt::Key_Plus)));  // the image pane's own keys
    QVERIFY(has("Pan left", QKeySequence(Qt::Key_Left)));
    // Every action with a shortcut is listed: the list comes from the actions themselves.
    for (QAction* a : w.findChildren<QAction*>()) {
        if (a->shortcut().isEmpty()) continue;
        QString text = a->text().remove('&');
        if (text.endsWith("...")) text.chop(3);
        QVERIFY2(has(text, a->shortcut()), qPrintable(text));
    }
    auto* dlg = w.showShortcuts();
    auto* table = dlg->findChild<QTableWidget*>("shortcutsTable");
    QVERIFY(table);
    QCOMPARE(table->rowCount(), int(rows.size()));
    dlg->close();
    auto* about = qobject_cast<QMessageBox*>(w.showAbout());
    QVERIFY(about && about->text().contains("Halftone Studio"));
    about->close();
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
    p.start(HALFTONE_STUDIO_EXE, {"--screenshot", path, "--size", "1200x800", "--method", "ec/rc",
                                  QString::fromStdString(test::dataPath("page.png"))});
    QVERIFY(p.waitForFinished(60000));
    QVERIFY2(p.exitCode() == 0, p.readAllStandardError().constData());
    const QImage shot(path);
    QVERIFY(!shot.isNull());
    QCOMPARE(shot.size(), QSize(1200, 800));
    // A bad file: the option still writes a PNG (showing the error) and exits with 1.
    const QString bad = dir.filePath("bad.png");
    QVERIFY(test::writeFile(bad, "garbage"));
    const QString path2 = dir.filePath("studio-bad.png");
    p.start(HALFTONE_STUDIO_EXE, {"--screenshot", path2, bad});
    QVERIFY(p.waitForFinished(60000));
    QCOMPARE(p.exitCode(), 1);
    QVERIFY(QString::fromLocal8Bit(p.readAllStandardError()).contains("bad.png"));
#endif
}

QTEST_MAIN(TestStudioMainWindow)
#include "test_studio_mainwindow.moc"
