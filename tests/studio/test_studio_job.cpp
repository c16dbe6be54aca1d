// The whole job in the studio: the Adjust panel prepares the image in the worker (cached by its settings, never
// re-reading the file), File > Save preset / Load preset round-trip the job and refuse bad presets without changing
// it, and File > Batch writes each file's output as a single run does, names the broken ones, and leaves nothing
// partial behind when cancelled; a result made for a target has a simulated panel in the colours the device shows, and
// the quality panel measures it as `halftone analyze --target` does.
#include <QComboBox>
#include <QDir>
#include <QDirIterator>
#include <QDoubleSpinBox>
#include <QLabel>
#include <QLineEdit>
#include <QMessageBox>
#include <QPlainTextEdit>
#include <QProgressBar>
#include <QPushButton>
#include <QSettings>
#include <QSpinBox>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QtTest>
#include <map>

#include "core/palette/panel.h"
#include "core/prepare/prepare.h"
#include "core/quality/metrics.h"
#include "core/job/registry.h"
#include "gpu/gpu.h"
#include "io/filejob.h"
#include "io/imagefile.h"
#include "io/preset.h"
#include "tests/common/qtestutil.h"
#include "tests/common/testutil.h"
#include "tests/studio/studioutil.h"
#include "widgets/adjustpanel.h"
#include "widgets/batchdialog.h"
#include "widgets/compareview.h"
#include "widgets/mainwindow.h"
#include "widgets/methodpanel.h"
#include "widgets/palettepanel.h"
#include "widgets/qualitypanel.h"

using namespace halftone;

namespace {

using test::smoothImage;

/// Shows `w` running plain error diffusion on the CPU and waits until the result of `input` ("smooth") is shown.
bool showPlainResult(MainWindow& w, const Image& input) {
    w.show();
    if (!w.methodPanel()->setMethod("ed", "plain")) return false;
    w.methodPanel()->setDevice(Device::Cpu);
    QSignalSpy shown(&w, &MainWindow::resultShown);
    w.setImage(input, "smooth");
    return shown.wait(20000);
}

/// The halftone of `input` with `job`, computed here step by step with core calls (not through the studio or
/// io/filejob): prepare, run, enlarge.
Image expectedHalftone(const Image& input, const JobSettings& job) {
    RunRequest request;
    PrepareSettings prepare;
    if (Status s = resolveJob(job, &input, request, prepare); !s) qFatal("%s", s.message().c_str());
    Image prepared;
    if (Status s = prepareImage(input, prepare, prepared); !s) qFatal("%s", s.message().c_str());
    RunResult result;
    if (Status s = runImage(prepared, request, result); !s) qFatal("%s", s.message().c_str());
    return prepare.pixelSize > 1 ? enlargePixels(result.image, prepare.pixelSize) : result.image;
}

bool samePixels(const Image& a, const Image& b) {
    if (a.channelCount() != b.channelCount()) return false;
    for (int c = 0; c < a.channelCount(); ++c)
        if (!(a.channels[size_t(c)] == b.channels[size_t(c)])) return false;
    return true;
}

void writePng(const QString& path, const Image& image) {
    QVERIFY2(io::writeImage(QFile::encodeName(path).toStdString(), image).isOk(), qPrintable(path));
}

/// Every entry of a folder tree, hidden ones included.
QStringList allEntries(const QString& dir) {
    QStringList out;
    QDirIterator it(dir, QDir::AllEntries | QDir::Hidden | QDir::System | QDir::NoDotAndDotDot,
                    QDirIterator::Subdirectories);
    while (it.hasNext()) out << it.next();
    out.sort();
    return out;
}

}  // namespace

class TestStudioJob : public QObject {
    Q_OBJECT
private slots:
    void initTestCase() {
        test::startStudioTest("test_studio_job");
        test::registerSlowMethod();
    }
    void adjustChangesPreparedImageAndResult();
    void qualityMeasuresWhatAdjustMade_data();
    void qualityMeasuresWhatAdjustMade();
    void unchangedAdjustDoesNotPrepareAgain();
    void adjustNeverRereadsTheFile();
    void pixelSizeKeepsTheViewSize();
    void invalidAdjustDoesNotRun();
    void cancelWhilePreparing();
    void dpiIsThePrinterResolution();
    void adjustSettingsSaveAndRestore();
    void targetChooserRunsForTheDevice();
    void simulatedPanelShowsAndMeasuresTheShownColours();
    void presetRoundTripThroughMenu();
    void badPresetShowsErrorAndKeepsJob_data();
    void badPresetShowsErrorAndKeepsJob();
    void batchMatchesSingleRunsAndNamesBrokenFile();
    void batchRefusalBeforeAnyWork();
    void batchCancelLeavesNoPartialFile();
};

void TestStudioJob::adjustChangesPreparedImageAndResult() {
    MainWindow w(Registry::instance());
    const Image input = smoothImage(120, 80);
    QVERIFY(showPlainResult(w, input));
    const JobResultPtr plain = w.currentResult();
    QVERIFY(!plain->prepared);
    QVERIFY(w.compareView()->originalPane()->label().startsWith("Original: smooth"));

    // Width 60 and gamma 1.6: re-runs by itself (debounced) on the prepared image.
    w.adjustPanel()->widthSpin()->setValue(60);
    w.adjustPanel()->gammaSpin()->setValue(1.6);
    QTRY_VERIFY_WITH_TIMEOUT(w.currentResult() != plain && w.currentResult()->prepared, 20000);
    const JobResultPtr r = w.currentResult();
    QCOMPARE(r->prepared->image->width(), 60);
    QCOMPARE(r->prepared->image->height(), 40);
    QCOMPARE(r->display.size(), QSize(60, 40));
    // The original pane shows the prepared image, says so, and the shared view has its size.
    QCOMPARE(w.compareView()->originalPane()->image().size(), QSize(60, 40));
    QVERIFY2(w.compareView()->originalPane()->label().contains("prepared"),
             qPrintable(w.compareView()->originalPane()->label()));
    QVERIFY(w.compareView()->originalPane()->label().contains("gamma 1.6"));
    // The result's label says how it was prepared (pins made with other settings tell them apart).
    QVERIFY2(w.compareView()->resultPane(0)->label().contains("Adjust: resized to 60 x 40, gamma 1.6"),
             qPrintable(w.compareView()->resultPane(0)->label()));
    QCOMPARE(w.compareView()->viewState()->imageSize(), QSize(60, 40));
    // The halftone is that of the prepared image, made here independently.
    JobSettings job;
    QVERIFY(w.currentJob(job));
    QCOMPARE(job.prepare.width, 60);
    QVERIFY(samePixels(*r->halftone, expectedHalftone(input, job)));
    // A tone change alone changes the result.
    w.adjustPanel()->gammaSpin()->setValue(0.6);
    QTRY_VERIFY_WITH_TIMEOUT(w.currentResult() != r, 20000);
    QVERIFY(!(w.currentResult()->halftone->channels[0] == r->halftone->channels[0]));
    // Reset brings back the image as opened (and its cached result).
    QTest::mouseClick(w.adjustPanel()->resetButton(), Qt::LeftButton);
    QTRY_COMPARE_WITH_TIMEOUT(w.currentResult().get(), plain.get(), 20000);
    QVERIFY(w.compareView()->originalPane()->label().startsWith("Original: smooth"));
    QCOMPARE(w.compareView()->originalPane()->image().size(), QSize(120, 80));
}

void TestStudioJob::qualityMeasuresWhatAdjustMade_data() {
    QTest::addColumn<int>("width");
    QTest::addColumn<double>("gamma");
    QTest::addColumn<int>("pixelSize");
    QTest::newRow("width 320") << 320 << 1.0 << 1;
    QTest::newRow("gamma 1.2") << 0 << 1.2 << 1;
    QTest::newRow("pixel size 3") << 0 << 1.0 << 3;
}

void TestStudioJob::qualityMeasuresWhatAdjustMade() {
    QFETCH(int, width);
    QFETCH(double, gamma);
    QFETCH(int, pixelSize);
    MainWindow w(Registry::instance());
    QVERIFY(showPlainResult(w, smoothImage(481, 301)));
    w.pinCurrent();
    const JobResultPtr plain = w.currentResult();
    if (width) w.adjustPanel()->widthSpin()->setValue(width);
    w.adjustPanel()->gammaSpin()->setValue(gamma);
    w.adjustPanel()->pixelSizeSpin()->setValue(pixelSize);
    QTRY_VERIFY_WITH_TIMEOUT(w.currentResult() != plain && w.currentResult()->prepared, 20000);
    const JobResultPtr adjusted = w.currentResult();
    // The pinned result and the adjusted one differ only in Adjust: their labels differ too.
    QVERIFY2(adjusted->description.shortText != plain->description.shortText,
             qPrintable(adjusted->description.shortText));
    QVERIFY(adjusted->description.shortText.contains("Adjust: "));
    QSignalSpy measured(w.qualityPanel(), &QualityPanel::measured);
    w.qualityPanel()->measure();
    QVERIFY(measured.wait(60000));
    const QVector<QualityRow>& rows = w.qualityPanel()->rows();
    QCOMPARE(rows.size(), 2);
    QVERIFY(rows[0].label != rows[1].label);
    for (const QualityRow& row : rows) {
        const JobResultPtr r = row.label == adjusted->description.shortText ? adjusted : plain;
        QVERIFY2(std::isfinite(row.psnrDb) && std::isfinite(row.hvsError), qPrintable(row.label + ": " + row.error));
        // The table says what the pane says: both measure the result against the image it was made from.
        QVERIFY2(std::isfinite(r->psnrDb), qPrintable(r->label()));
        QCOMPARE(QString::number(row.psnrDb, 'f', 2), QString::number(r->psnrDb, 'f', 2));
    }
    // Measured here independently: the adjusted halftone against the prepared image, at the method's size.
    const Image& reference = *adjusted->prepared->image;
    Plane8 halftone(reference.width(), reference.height());
    for (int y = 0; y < halftone.height; ++y)
        for (int x = 0; x < halftone.width; ++x)
            halftone.at(y, x) = adjusted->halftone->channels[0].at(y * pixelSize, x * pixelSize);
    const QualityRow& row = rows[0].label == adjusted->description.shortText ? rows[0] : rows[1];
    QCOMPARE(row.psnrDb, filteredPsnr(reference.channels[0], halftone, 1.2, 4, false));
    QCOMPARE(row.hvsError, hvsWeightedError(reference.channels[0], halftone));
}

void TestStudioJob::unchangedAdjustDoesNotPrepareAgain() {
    MainWindow w(Registry::instance());
    QVERIFY(w.methodPanel()->setMethod("ed", "plain"));
    QSignalSpy shown(&w, &MainWindow::resultShown);
    w.setImage(smoothImage(90, 70), "smooth");
    QVERIFY(shown.wait(20000));
    QCOMPARE(w.jobs()->prepareCount(), 0);  // nothing to prepare

    w.adjustPanel()->brightnessSpin()->setValue(20);
    QTRY_VERIFY_WITH_TIMEOUT(w.currentResult()->prepared, 20000);
    QCOMPARE(w.jobs()->prepareCount(), 1);
    const PreparedPtr first = w.currentResult()->prepared;

    // Another method parameter: the same prepared image, no new prepare.
    JobResultPtr before = w.currentResult();
    QVERIFY(w.methodPanel()->setParam("levels", 3));
    QTRY_VERIFY_WITH_TIMEOUT(w.currentResult() != before, 20000);
    QCOMPARE(w.currentResult()->prepared.get(), first.get());
    QCOMPARE(w.jobs()->prepareCount(), 1);

    // The same value set again, and a plain re-run: no prepare.
    w.adjustPanel()->brightnessSpin()->setValue(20);
    shown.clear();
    w.runCurrent();
    QVERIFY(shown.wait(20000));
    QCOMPARE(w.jobs()->prepareCount(), 1);

    // A different value prepares once; going back to the first value prepares nothing.
    before = w.currentResult();
    w.adjustPanel()->brightnessSpin()->setValue(-20);
    QTRY_VERIFY_WITH_TIMEOUT(w.currentResult() != before && w.currentResult()->prepared != first, 20000);
    QCOMPARE(w.jobs()->prepareCount(), 2);
    QVERIFY(w.methodPanel()->setParam("levels", 2));
    w.adjustPanel()->brightnessSpin()->setValue(20);
    QTRY_VERIFY_WITH_TIMEOUT(w.currentResult()->prepared == first, 20000);
    QCOMPARE(w.jobs()->prepareCount(), 2);
}

void TestStudioJob::adjustNeverRereadsTheFile() {
    // The file is opened once; Adjust changes prepare the image in memory even after the file is gone.
    QTemporaryDir dir;
    const QString path = dir.filePath("gone.png");
    writePng(path, smoothImage(64, 48));
    MainWindow w(Registry::instance());
    QSignalSpy shown(&w, &MainWindow::resultShown);
    QSignalSpy errors(&w, &MainWindow::errorShown);
    w.openFile(path);
    QVERIFY(shown.wait(20000));
    QVERIFY(QFile::remove(path));
    w.adjustPanel()->scaleSpin()->setValue(0.5);
    QTRY_VERIFY_WITH_TIMEOUT(w.currentResult()->prepared, 20000);
    QCOMPARE(w.currentResult()->display.size(), QSize(32, 24));
    QCOMPARE(errors.count(), 0);
}

void TestStudioJob::pixelSizeKeepsTheViewSize() {
    MainWindow w(Registry::instance());
    const Image input = smoothImage(120, 80);
    QVERIFY(showPlainResult(w, input));
    w.adjustPanel()->pixelSizeSpin()->setValue(4);
    QTRY_VERIFY_WITH_TIMEOUT(w.currentResult()->prepared, 20000);
    const JobResultPtr r = w.currentResult();
    QCOMPARE(r->prepared->image->width(), 30);    // halftoned at a quarter
    QCOMPARE(r->display.size(), QSize(120, 80));  // shown (and saved) enlarged, as the CLI writes it
    QCOMPARE(w.compareView()->originalPane()->image().size(), QSize(120, 80));
    QCOMPARE(w.compareView()->viewState()->imageSize(), QSize(120, 80));
    JobSettings job;
    QVERIFY(w.currentJob(job));
    QVERIFY(samePixels(*r->halftone, expectedHalftone(input, job)));
    // Every 4 x 4 block is one dot, and the pixel zoom reaches it: at 4x one image pixel is 4 screen pixels.
    const Plane8& h = r->halftone->channels[0];
    for (int y = 0; y < 80; ++y)
        for (int x = 0; x < 120; ++x) QCOMPARE(h.at(y, x), h.at(y / 4 * 4, x / 4 * 4));
    w.compareView()->viewState()->setZoom(4);
    QCOMPARE(w.compareView()->viewState()->zoom(), 4.0);
}

void TestStudioJob::invalidAdjustDoesNotRun() {
    MainWindow w(Registry::instance());
    QSignalSpy shown(&w, &MainWindow::resultShown);
    w.setImage(smoothImage(40, 30), "smooth");
    QVERIFY(shown.wait(20000));
    const JobResultPtr before = w.currentResult();
    w.adjustPanel()->whitePointSpin()->setValue(100);
    w.adjustPanel()->blackPointSpin()->setValue(150);  // black above white
    QVERIFY(w.adjustPanel()->problemText().contains("black point"));
    w.runCurrent();
    QTRY_VERIFY(w.findChild<QLabel*>("stageLabel")->text().contains("black point"));
    QCOMPARE(w.currentResult(), before);
    JobSettings job;
    QVERIFY(!w.currentJob(job));
    // A print size needs a resolution; with one it sets the size.
    w.adjustPanel()->reset();
    w.adjustPanel()->printSizeEdit()->setText("2x1in");
    QVERIFY(w.adjustPanel()->problemText().contains("dpi"));
    w.adjustPanel()->dpiSpin()->setValue(30);
    QVERIFY(w.adjustPanel()->problemText().isEmpty());
    QTRY_VERIFY_WITH_TIMEOUT(w.currentResult()->prepared, 20000);
    QCOMPARE(w.currentResult()->display.size(), QSize(40, 30));  // inside 60 x 30, aspect kept
}

void TestStudioJob::cancelWhilePreparing() {
    // A large image with the strongest, widest sharpening: Cancel stops the preparation itself; the result on screen
    // stays and nothing half-prepared is kept.
    MainWindow w(Registry::instance());
    w.setAutoRun(false);
    QVERIFY(w.methodPanel()->setMethod("ed", "plain"));
    QSignalSpy shown(&w, &MainWindow::resultShown);
    QSignalSpy failed(&w, &MainWindow::runFailed);
    w.setImage(smoothImage(3000, 2000), "large");
    QVERIFY(shown.wait(60000));
    const JobResultPtr before = w.currentResult();
    w.adjustPanel()->sharpenSpin()->setValue(500);
    w.adjustPanel()->radiusSpin()->setValue(50);
    w.runCurrent();
    QVERIFY(w.jobs()->busy());
    w.cancelRun();
    QVERIFY(failed.wait(60000));
    QCOMPARE(failed.at(0).at(1).toBool(), true);
    QCOMPARE(w.currentResult(), before);
    QCOMPARE(w.jobs()->prepareCount(), 1);
    JobSettings job;
    QVERIFY(w.currentJob(job));
    PrepareSettings effective;
    QVERIFY(w.adjustPanel()->effective(effective));
    QVERIFY(!w.jobs()->cachedPrepared(preparedKey(1, effective)));
    QVERIFY(!w.jobs()->cachedPrepared(preparedKey(2, effective)));
}

void TestStudioJob::dpiIsThePrinterResolution() {
    // As the CLI's --dpi: the Adjust DPI reaches the methods with a printer model.
    const MethodInfo* withDpi = nullptr;
    for (const MethodInfo& m : Registry::instance().methods())
        if (m.cpu && m.param("dpi") && !withDpi) withDpi = &m;
    if (!withDpi) QSKIP("no method with a dpi parameter in this build");
    MainWindow w(Registry::instance());
    w.setAutoRun(false);
    QVERIFY(
        w.methodPanel()->setMethod(QString::fromStdString(withDpi->method), QString::fromStdString(withDpi->variant)));
    w.methodPanel()->setDevice(Device::Cpu);
    w.adjustPanel()->dpiSpin()->setValue(150);
    QSignalSpy shown(&w, &MainWindow::resultShown);
    w.setImage(smoothImage(24, 16), "small");
    QVERIFY(shown.wait(60000));
    QCOMPARE(w.currentResult()->params.getReal("dpi", 0), 150.0);
    JobSettings job;
    QVERIFY(w.currentJob(job));
    QCOMPARE(job.dpi, 150.0);
    QCOMPARE(job.params.getReal("dpi", 0), 150.0);
}

void TestStudioJob::adjustSettingsSaveAndRestore() {
    AdjustPanel a;
    PrepareSettings s;
    s.scale = 0.5;
    s.filter = ResizeFilter::Box;
    s.linearResize = false;
    s.pixelSize = 3;
    s.blackPoint = 10;
    s.whitePoint = 240;
    s.brightness = -12.5;
    s.contrast = 30;
    s.gamma = 1.25;
    s.saturation = 150;
    s.sharpenAmount = 80;
    s.sharpenRadius = 2.5;
    s.fit = ResizeFit::Contain;
    s.gravity = Gravity::SouthEast;
    s.rotate = 270;
    s.background = Rgb8{0x10, 0x20, 0x30};
    a.setSettings(s, {}, 300);
    QVERIFY(a.setTarget("Inky-Impression-5.7"));
    QVERIFY(!a.setTarget("no-such-panel"));
    QSettings q;
    a.saveSettings(q);
    AdjustPanel b;
    QSignalSpy changed(&b, &AdjustPanel::changed);
    b.restoreSettings(q);
    QCOMPARE(prepareSettingsKey(b.settings()), prepareSettingsKey(s));
    QVERIFY(b.settings() == s);
    QCOMPARE(b.target(), std::string("inky-impression-5.7"));
    QCOMPARE(b.dpi(), 300.0);
    QCOMPARE(changed.count(), 1);  // one change for the whole restore
}

void TestStudioJob::targetChooserRunsForTheDevice() {
    // The Adjust panel's target: the run has the device's frame and writes only its driver's codes.
    MainWindow w(Registry::instance());
    QVERIFY(w.methodPanel()->setMethod("ed", "plain"));
    w.methodPanel()->setDevice(Device::Cpu);
    QVERIFY(w.adjustPanel()->setTarget("waveshare-4e"));
    JobSettings job;
    QVERIFY(w.currentJob(job));
    QCOMPARE(job.target, std::string("waveshare-4e"));
    QVERIFY(job.palette.empty());
    QSignalSpy shown(&w, &MainWindow::resultShown);
    w.setImage(smoothImage(60, 40), "small");
    QVERIFY(shown.wait(60000));
    const JobResultPtr r = w.currentResult();
    QCOMPARE(r->halftone->width(), 400);
    QCOMPARE(r->halftone->height(), 600);
    for (uint8_t v : r->halftone->indices.data) QVERIFY(v <= 6 && v != 4);
}

void TestStudioJob::presetRoundTripThroughMenu() {
    QTemporaryDir dir;
    const QString path = dir.filePath("job");  // the .json extension is added
    MainWindow w(Registry::instance());
    w.setAutoRun(false);
    QVERIFY(w.methodPanel()->setMethod("ed", "plain"));
    QVERIFY(w.methodPanel()->setParam("levels", 3));
    w.methodPanel()->setColorMode(ColorMode::CMYK);
    w.methodPanel()->setSeparation({70, 260});
    w.methodPanel()->setDevice(Device::Cpu);
    w.adjustPanel()->widthSpin()->setValue(800);
    w.adjustPanel()->gammaSpin()->setValue(1.3);
    w.adjustPanel()->sharpenSpin()->setValue(50);
    JobSettings saved;
    QVERIFY(w.currentJob(saved));
    QString asked;
    w.setFileChooser([&](MainWindow::FileChoice c, const QString&) {
        asked = c == MainWindow::FileChoice::SavePreset ? "save" : "load";
        return c == MainWindow::FileChoice::SavePreset ? path : path + ".json";
    });
    w.savePresetAction()->trigger();
    QCOMPARE(asked, QString("save"));
    QVERIFY2(QFile::exists(path + ".json"), qPrintable(w.lastError()));
    JobSettings onDisk;
    QVERIFY(io::loadPreset((path + ".json").toStdString(), onDisk));
    QVERIFY(onDisk == saved);
    QCOMPARE(onDisk.params.getInt("levels", 0), int64_t(3));
    QCOMPARE(onDisk.prepare.gamma, 1.3);
    QCOMPARE(onDisk.separation.gcr, 70);
    QCOMPARE(onDisk.separation.inkLimit, 260);

    // Change everything, then load it back through the menu.
    QVERIFY(w.methodPanel()->setMethod("ordered", w.methodPanel()->variantCombo()->itemData(0).toString()) ||
            w.methodPanel()->setMethod("dbs", "sequential"));
    w.methodPanel()->setColorMode(ColorMode::Gray);
    w.methodPanel()->setSeparation({});
    w.adjustPanel()->reset();
    JobSettings changed;
    QVERIFY(w.currentJob(changed));
    QVERIFY(!(changed == saved));
    w.loadPresetAction()->trigger();
    QCOMPARE(asked, QString("load"));
    QVERIFY2(!w.errorBox(), qPrintable(w.lastError()));
    JobSettings back;
    QVERIFY(w.currentJob(back));
    QVERIFY2(back == saved, io::presetJson(back).c_str());
    QCOMPARE(w.methodPanel()->method()->id(), std::string("ed/plain"));
    QCOMPARE(w.adjustPanel()->widthSpin()->value(), 800);
    QCOMPARE(w.methodPanel()->separation().gcr, 70);
    QCOMPARE(w.methodPanel()->separation().inkLimit, 260);

    // The palette choice travels too: a built-in by name, an auto palette by its count.
    for (const QString& spec : {QStringLiteral("pico8"), QStringLiteral("auto:12")}) {
        QVERIFY(w.methodPanel()->palettePanel()->selectSpec(spec));
        JobSettings withPalette;
        QVERIFY(w.currentJob(withPalette));
        QCOMPARE(QString::fromStdString(withPalette.palette), spec);
        w.savePresetAction()->trigger();
        QVERIFY(w.methodPanel()->palettePanel()->selectNone());
        w.loadPresetAction()->trigger();
        QVERIFY2(!w.errorBox(), qPrintable(w.lastError()));
        QCOMPARE(w.methodPanel()->palettePanel()->spec(), spec);
    }
}

void TestStudioJob::badPresetShowsErrorAndKeepsJob_data() {
    QTest::addColumn<QString>("text");
    QTest::addColumn<QString>("problem");  // what the message must name besides the file
    QTest::newRow("unknown key") << R"({"halftone-preset": 1, "method": "ed", "colour": "rgb"})"
                                 << "colour";
    QTest::newRow("bad gamma") << R"({"halftone-preset": 1, "prepare": {"gamma": 0}})"
                               << "gamma";
    QTest::newRow("unknown prepare key") << R"({"halftone-preset": 1, "prepare": {"blur": 2}})"
                                         << "blur";
    QTest::newRow("unknown method") << R"({"halftone-preset": 1, "method": "nope"})"
                                    << "nope";
    QTest::newRow("not json") << "{ this is not json"
                              << "JSON";
    QTest::newRow("missing") << QString() << "cannot read";
}

void TestStudioJob::badPresetShowsErrorAndKeepsJob() {
    QFETCH(QString, text);
    QFETCH(QString, problem);
    QTemporaryDir dir;
    const QString path = dir.filePath("bad.json");
    if (!text.isNull()) {
        QVERIFY(test::writeFile(path, text.toUtf8()));
    }
    MainWindow w(Registry::instance());
    w.setAutoRun(false);
    QVERIFY(w.methodPanel()->setMethod("ed", "plain"));
    QVERIFY(w.methodPanel()->setParam("levels", 4));
    w.adjustPanel()->contrastSpin()->setValue(25);
    JobSettings before;
    QVERIFY(w.currentJob(before));
    w.setFileChooser([&](MainWindow::FileChoice, const QString&) { return path; });
    QSignalSpy error(&w, &MainWindow::errorShown);
    w.loadPresetAction()->trigger();
    QCOMPARE(error.count(), 1);
    const QString message = error.at(0).at(0).toString();
    QVERIFY2(message.contains("bad.json") && message.contains(problem), qPrintable(message));
    QVERIFY(w.errorBox() && w.errorBox()->isVisible());
    QCOMPARE(w.errorBox()->icon(), QMessageBox::Critical);
    JobSettings after;
    QVERIFY(w.currentJob(after));
    QVERIFY(after == before);
    w.errorBox()->close();
}

void TestStudioJob::batchMatchesSingleRunsAndNamesBrokenFile() {
    QTemporaryDir dir;
    const QString in = dir.filePath("in"), out = dir.filePath("out");
    QVERIFY(QDir().mkpath(in + "/sub"));
    QVector<QPair<QString, Image>> good = {
        {in + "/a.png", smoothImage(50, 40)},
        {in + "/b.png", Image::gray(test::randomPlane(33, 21, test::freshSeed("batch b")))},
        {in + "/sub/c.png", smoothImage(17, 64)},
    };
    for (const auto& [p, im] : good) writePng(p, im);
    QVERIFY(test::writeFile(in + "/broken.png", "not a PNG at all\n"));

    MainWindow w(Registry::instance());
    QVERIFY(w.methodPanel()->setMethod("ed", "plain"));
    QVERIFY(w.methodPanel()->setParam("levels", 3));
    w.methodPanel()->setDevice(Device::Cpu);
    w.adjustPanel()->scaleSpin()->setValue(0.5);
    w.batchAction()->trigger();
    BatchDialog* b = w.batchDialog();
    QVERIFY(b && b->isVisible());
    QVERIFY2(b->jobText().contains("ed/plain") && b->jobText().contains("scale 0.5"), qPrintable(b->jobText()));
    // Start takes the settings as they are then, also when changed after the dialog opened.
    w.adjustPanel()->contrastSpin()->setValue(20);
    JobSettings job;
    QVERIFY(w.currentJob(job));
    QCOMPARE(job.prepare.contrast, 20.0);
    b->setChooser([&](BatchDialog::Choice c) {
        return c == BatchDialog::Choice::OutputFolder ? QStringList{out} : QStringList{in};
    });
    QMetaObject::invokeMethod(b, [b] {
        for (QPushButton* p : b->findChildren<QPushButton*>())
            if (p->text() == "Add folder..." || p->text() == "Choose...") p->click();
    });
    QCOMPARE(b->inputs(), QStringList{in});
    QCOMPARE(b->outputFolder(), out);
    b->setSuffix("-ht");
    b->setJobs(2);
    QSignalSpy finished(b, &BatchDialog::finished);
    QVERIFY(b->start());
    QVERIFY(b->running());
    QVERIFY(b->jobText().contains("tone adjusted"));
    QVERIFY(finished.wait(60000));
    QCOMPARE(b->summary().written, 3);
    QCOMPARE(b->summary().failed, 1);
    QCOMPARE(b->progressBar()->value(), 4);
    QCOMPARE(b->failures().size(), 1);
    QVERIFY2(b->failures().front().startsWith(in + "/broken.png: "), qPrintable(b->failures().front()));
    QVERIFY(b->logView()->toPlainText().contains("broken.png"));
    QVERIFY2(b->statusText().contains("3 written") && b->statusText().contains("1 failed"),
             qPrintable(b->statusText()));
    for (const auto& [p, im] : good) {
        const QString rel = QDir(in).relativeFilePath(p);
        const QString o = QDir(out).filePath(rel.left(rel.size() - 4) + "-ht.png");
        Image written;
        QVERIFY2(io::readImage(QFile::encodeName(o).toStdString(), written).isOk(), qPrintable(o));
        QVERIFY2(samePixels(written, expectedHalftone(im, job)), qPrintable(o));
    }
    // Again with Skip existing: the written files are left alone, the broken one fails again.
    b->setSkipExisting(true);
    QVERIFY(b->start());
    QVERIFY(finished.wait(60000));
    QCOMPARE(b->summary().skipped, 3);
    QCOMPARE(b->summary().written, 0);
    QCOMPARE(b->summary().failed, 1);
    // The studio's own result for one of the files is the batch's output too.
    QSignalSpy shown(&w, &MainWindow::resultShown);
    w.openFile(in + "/a.png");
    QVERIFY(shown.wait(20000));
    Image written;
    QVERIFY(io::readImage(QFile::encodeName(out + "/a-ht.png").toStdString(), written).isOk());
    QVERIFY(samePixels(*w.currentResult()->halftone, written));
}

void TestStudioJob::batchRefusalBeforeAnyWork() {
    QTemporaryDir dir;
    QVERIFY(QDir().mkpath(dir.filePath("x")) && QDir().mkpath(dir.filePath("y")));
    writePng(dir.filePath("x/same.png"), smoothImage(8, 8));
    writePng(dir.filePath("y/same.png"), smoothImage(8, 8));
    BatchDialog b;
    JobSettings job;
    b.setJob(job);
    QSignalSpy refused(&b, &BatchDialog::refused);
    QVERIFY(!b.start());  // nothing to do yet
    QVERIFY(b.errorText().contains("input"));
    b.setInputs({dir.filePath("x/same.png"), dir.filePath("y/same.png")});
    b.setOutputFolder(dir.filePath("out"));
    QVERIFY(!b.start());  // both would write out/same.png
    QCOMPARE(refused.count(), 2);
    QVERIFY2(b.errorText().contains("same.png"), qPrintable(b.errorText()));
    QVERIFY(!b.running());
    QVERIFY(!QDir(dir.filePath("out")).exists());
    // The output folder as an input folder: an output would be an input.
    b.setInputs({dir.filePath("x")});
    b.setOutputFolder(dir.filePath("x"));
    b.setFormat("png");
    QVERIFY(!b.start());
    QVERIFY(!b.errorText().isEmpty());
    QCOMPARE(allEntries(dir.filePath("x")), QStringList{dir.filePath("x/same.png")});
}

void TestStudioJob::batchCancelLeavesNoPartialFile() {
    // The slow test method copies a row per 2 ms: each 16 x 600 file takes over a second, so the cancel lands while
    // files are being halftoned.
    QTemporaryDir dir;
    const QString in = dir.filePath("in"), out = dir.filePath("out");
    QVERIFY(QDir().mkpath(in));
    QVector<Image> images;
    for (int i = 0; i < 8; ++i) {
        images.push_back(Image::gray(test::randomPlane(16, 600, test::freshSeed("batch cancel") + uint64_t(i))));
        writePng(QStringLiteral("%1/f%2.png").arg(in).arg(i), images.back());
    }
    MainWindow w(Registry::instance());
    w.setAutoRun(false);
    QVERIFY(w.methodPanel()->setMethod("zz-slow", "rows"));
    BatchDialog* b = w.showBatch();
    QVERIFY(b);
    b->setInputs({in});
    b->setOutputFolder(out);
    b->setJobs(2);
    QSignalSpy progressed(b, &BatchDialog::progressed);
    QSignalSpy finished(b, &BatchDialog::finished);
    test::g_slowRowsRun = 0;
    QVERIFY(b->start());
    QVERIFY(!b->startButton()->isEnabled());
    QVERIFY(b->cancelButton()->isEnabled());
    // Cancel once the first files are part-way through their rows.
    QTRY_VERIFY_WITH_TIMEOUT(test::g_slowRowsRun.load() > 300, 20000);
    QTest::mouseClick(b->cancelButton(), Qt::LeftButton);
    QVERIFY(finished.wait(30000));
    const BatchSummary sum = b->summary();
    QVERIFY2(sum.cancelled > 0, "the cancel came after every file was done");
    QCOMPARE(sum.written + sum.cancelled + sum.failed + sum.skipped, 8);
    QCOMPARE(sum.failed, 0);
    QVERIFY(b->statusText().contains("cancelled"));
    QVERIFY(b->startButton()->isEnabled());
    // Only complete outputs: each one that exists is the whole copy of its input; nothing else (no temporary).
    QStringList expected;
    for (int i = 0; i < 8; ++i) {
        const QString o = QStringLiteral("%1/f%2.png").arg(out).arg(i);
        if (!QFile::exists(o)) continue;
        expected << o;
        Image back;
        QVERIFY2(io::readImage(QFile::encodeName(o).toStdString(), back).isOk(), qPrintable(o));
        QVERIFY2(back.channels[0] == images[i].channels[0], qPrintable(o));
    }
    QCOMPARE(expected.size(), sum.written);
    const QStringList entries = QDir(out).exists() ? allEntries(out) : QStringList{};
    QCOMPARE(entries, expected);
}

void TestStudioJob::simulatedPanelShowsAndMeasuresTheShownColours() {
    // A result made for a target: the Simulated panel view shows every pixel in the colour the panel shows for its
    // code, and the quality panel's Delta E panel is core's panelDeltaE2000, which `halftone analyze --target` prints
    // for the saved file (the same number from the file's colours).
    const std::string name = "inky-impression-7.3-spectra6";
    const Target& t = *findBuiltinTarget(name);
    MainWindow w(Registry::instance());
    QVERIFY(w.methodPanel()->setMethod("ed", "plain"));
    w.methodPanel()->setDevice(Device::Cpu);
    QVERIFY(w.adjustPanel()->setTarget(name));
    w.adjustPanel()->widthSpin()->setValue(90);  // the job's own size: a small run
    w.adjustPanel()->heightSpin()->setValue(54);
    QSignalSpy shown(&w, &MainWindow::resultShown);
    w.setImage(test::randomRgb(90, 54, test::freshSeed("panel")), "colour");
    QVERIFY(shown.wait(60000));
    const JobResultPtr r = w.currentResult();
    QVERIFY(r && r->target && r->prepared);
    QCOMPARE(r->target->name, name);
    QVERIFY(w.panelAction()->isEnabled());
    QVERIFY(!w.compareView()->panel());
    QCOMPARE(w.compareView()->resultPane(0)->image(), r->display);
    w.panelAction()->setChecked(true);
    QVERIFY(w.compareView()->panel());
    const QImage view = w.compareView()->resultPane(0)->image().convertToFormat(QImage::Format_RGB32);
    QCOMPARE(view.size(), QSize(90, 54));
    std::map<int, Rgb8> shownOf;
    for (const TargetInk& k : t.inks) shownOf[k.code] = k.shown;
    int differs = 0;
    for (int y = 0; y < view.height(); ++y)
        for (int x = 0; x < view.width(); ++x) {
            const Rgb8 want = shownOf.at(r->halftone->indices.at(y, x));
            const QRgb got = view.pixel(x, y);
            QCOMPARE((Rgb8{uint8_t(qRed(got)), uint8_t(qGreen(got)), uint8_t(qBlue(got))}), want);
            const QRgb written = r->display.pixel(x, y);
            differs += qRed(written) != want[0] || qGreen(written) != want[1] || qBlue(written) != want[2];
        }
    QVERIFY(differs > 0);  // the panel's colours are not the driver's
    // With Perceived: the panel through the HVS Gaussian (made with the run for an image this small).
    QVERIFY(!r->perceivedPanel.isNull());
    QVERIFY(r->perceivedPanel != r->perceived);
    w.setPerceivedView(true);
    QCOMPARE(w.compareView()->resultPane(0)->image(), r->perceivedPanel);
    w.setPerceivedView(false);
    w.panelAction()->setChecked(false);
    QCOMPARE(w.compareView()->resultPane(0)->image(), r->display);

    QSignalSpy measured(w.qualityPanel(), &QualityPanel::measured);
    w.qualityPanel()->measure();
    QVERIFY(measured.wait(60000));
    QCOMPARE(w.qualityPanel()->rows().size(), 1);
    const QualityRow& row = w.qualityPanel()->rows().front();
    double want = 0;
    QVERIFY(panelDeltaE2000(t, *r->prepared->image, *r->halftone, want));
    QCOMPARE(row.panelDeltaE, want);
    QCOMPARE(row.panelName, QString::fromStdString(name));
    auto* table = w.qualityPanel()->findChild<QTableWidget*>("qualityTable");
    QVERIFY(table);
    QCOMPARE(table->horizontalHeaderItem(8)->text(), QString("Delta E panel"));
    QCOMPARE(table->item(0, 8)->text(), QString::number(want, 'f', 3));
    // The saved file, read back as the CLI reads it, measures the same.
    QTemporaryDir dir;
    const QString file = dir.filePath("frame.png");
    QVERIFY(w.saveResult(file));
    Image back;
    QVERIFY(io::readImage(file.toStdString(), back));
    QVERIFY(back.indices.empty());
    double fromFile = 0;
    QVERIFY(panelDeltaE2000(t, *r->prepared->image, back, fromFile));
    QCOMPARE(fromFile, want);
}

QTEST_MAIN(TestStudioJob)
#include "test_studio_job.moc"
