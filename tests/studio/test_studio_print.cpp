// The studio as a prepress tool (docs/print.md, "The same job in the studio"): one DPI field for the job, screen
// angles typed per ink, the Print tab's picture at the printed size with the press's dot gain, and the quality panel's
// measures of AM results as printed and seen from a distance.
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QLineEdit>
#include <QTableWidget>
#include <QtTest>

#include <cmath>
#include <numbers>

#include "core/job/job.h"
#include "core/job/registry.h"
#include "core/print/printpreview.h"
#include "core/quality/metrics.h"
#include "core/screen/amscreen.h"
#include "tests/common/testutil.h"
#include "tests/studio/studioutil.h"
#include "widgets/adjustpanel.h"
#include "widgets/imageconvert.h"
#include "widgets/jobrunner.h"
#include "widgets/mainwindow.h"
#include "widgets/methodpanel.h"
#include "widgets/numberlistedit.h"
#include "widgets/printview.h"
#include "widgets/qualitypanel.h"

using namespace halftone;

namespace {

/// A flat blue with cyan, magenta and black in it (with full GCR, the least of C, M, Y, here yellow, goes to black).
Image flatColour(int w, int h) {
    Image im;
    im.space = ColorSpace::RGB;
    for (uint8_t v : {uint8_t(60), uint8_t(150), uint8_t(200)}) im.channels.push_back(Plane8(w, h, v));
    return im;
}

/// Sets `w` to the AM screen on the CPU (colour mode `color`), shows `image` and waits for its result.
JobResultPtr runAm(MainWindow& w, const Image& image, ColorMode color) {
    w.setAutoRun(false);
    if (!w.methodPanel()->setMethod("am", "clustered")) return nullptr;
    w.methodPanel()->setDevice(Device::Cpu);
    w.methodPanel()->setColorMode(color);
    QSignalSpy shown(&w, &MainWindow::resultShown);
    w.setImage(image, "print test");
    if (!shown.wait(60000)) return nullptr;
    return w.currentResult();
}

/// Runs the window's current job again and waits for its result.
JobResultPtr rerun(MainWindow& w) {
    QSignalSpy shown(&w, &MainWindow::resultShown);
    w.runCurrent();
    if (!shown.wait(60000)) return nullptr;
    return w.currentResult();
}

double meanOf(const Plane8& p) {
    double s = 0;
    for (uint8_t v : p.data) s += v;
    return s / double(p.size());
}

}  // namespace

class TestStudioPrint : public QObject {
    Q_OBJECT
private slots:
    void initTestCase() { test::startStudioTest("test_studio_print"); }
    void oneDpiField();
    void presetDpiShowsInTheOneField();
    void anglesTypedPerInk();
    void anglesRefuseWhatTheFieldsCannotHold();
    void dotGainSpreadsEachDot();
    void printedSizeFollowsTheResolution();
    void printTabShowsThePrintAtItsSize();
    void printTabCancels();
    void qualityMeasuredAsPrinted();
};

void TestStudioPrint::oneDpiField() {
    MainWindow w(Registry::instance());
    w.setAutoRun(false);
    QVERIFY(w.methodPanel()->setMethod("am", "clustered"));
    // The method panel has no DPI of its own: no widget, no row.
    QVERIFY(!w.methodPanel()->paramWidget("dpi"));
    QVERIFY(!w.methodPanel()->isParamShown("dpi"));
    QVERIFY(!w.methodPanel()->findChild<QWidget*>("param_dpi"));
    QVERIFY(w.methodPanel()->params().all().count("dpi") == 0);
    // While unset, the one field says what the run uses: the AM screen's 600 dpi.
    QDoubleSpinBox* dpi = w.adjustPanel()->dpiSpin();
    QCOMPARE(dpi->value(), 0.0);
    QVERIFY2(dpi->specialValueText().contains("600"), qPrintable(dpi->specialValueText()));
    JobSettings job;
    QVERIFY(w.currentJob(job));
    QCOMPARE(jobDpi(job, *w.methodPanel()->method()), 600.0);
    // Set it once: the job, the method's parameter and the run all have it, and no other value exists.
    dpi->setValue(1200);
    QVERIFY(w.currentJob(job));
    QCOMPARE(job.dpi, 1200.0);
    QCOMPARE(job.params.getReal("dpi", 0), 1200.0);
    QCOMPARE(jobDpi(job, *w.methodPanel()->method()), 1200.0);
    const JobResultPtr r = runAm(w, test::smoothImage(60, 40), ColorMode::Gray);
    QVERIFY(r);
    QCOMPARE(r->params.getReal("dpi", 0), 1200.0);
    QCOMPARE(w.resultDpi(*r), 1200.0);
    // A method without a printer model: the field is plain "unset" again.
    QVERIFY(w.methodPanel()->setMethod("ed", "plain"));
    dpi->setValue(0);
    QCOMPARE(dpi->specialValueText(), QString("unset"));
    QCOMPARE(dpi->text(), QString("unset"));
}

void TestStudioPrint::presetDpiShowsInTheOneField() {
    // A preset that gives the resolution only to the method (written by hand, or by an older studio).
    MainWindow w(Registry::instance());
    w.setAutoRun(false);
    JobSettings preset;
    preset.method = "am";
    preset.variant = "clustered";
    preset.params.set("dpi", 850.0);
    QVERIFY(w.applyJob(preset));
    QCOMPARE(w.adjustPanel()->dpi(), 850.0);
    JobSettings job;
    QVERIFY(w.currentJob(job));
    QCOMPARE(job.dpi, 850.0);
    QCOMPARE(job.params.getReal("dpi", 0), 850.0);
    // Job and method disagreeing: the job's one DPI wins, as the CLI's --dpi does.
    preset.dpi = 1200;
    QVERIFY(w.applyJob(preset));
    QCOMPARE(w.adjustPanel()->dpi(), 1200.0);
    QVERIFY(w.currentJob(job));
    QCOMPARE(job.params.getReal("dpi", 0), 1200.0);
}

void TestStudioPrint::anglesTypedPerInk() {
    MainWindow w(Registry::instance());
    w.show();
    QVERIFY(QTest::qWaitForWindowExposed(&w));
    const Image tint = flatColour(96, 96);
    const JobResultPtr before = runAm(w, tint, ColorMode::CMYK);
    QVERIFY(before);
    auto* angles = qobject_cast<NumberListEdit*>(w.methodPanel()->paramWidget("angles"));
    QVERIFY(angles);
    QCOMPARE(angles->partCount(), 4);
    QCOMPARE(angles->text(), QString("15,75,0,45"));
    // Type cyan's angle as a person does: select the field, type, Enter.
    QDoubleSpinBox* cyan = angles->findChild<QDoubleSpinBox*>("part_C");
    QVERIFY(cyan);
    QCOMPARE(cyan->decimals(), 2);
    QCOMPARE(cyan->minimum(), 0.0);
    QCOMPARE(cyan->maximum(), 180.0);
    cyan->setFocus();
    cyan->selectAll();
    QTest::keyClicks(cyan, "22.5");
    QTest::keyClick(cyan, Qt::Key_Return);
    QCOMPARE(cyan->value(), 22.5);
    JobSettings job;
    QVERIFY(w.currentJob(job));
    QCOMPARE(job.params.getText("angles", ""), std::string("22.5,75,0,45"));
    const JobResultPtr after = rerun(w);
    QVERIFY(after && after != before);
    QCOMPARE(after->params.getText("angles", ""), std::string("22.5,75,0,45"));
    // Cyan's plate changed; magenta, yellow and black did not; the plate is the screen at the typed angle.
    QVERIFY(meanOf(before->halftone->channels[0]) > 50);  // a plate with dots to turn
    QVERIFY(after->halftone->channels[0] != before->halftone->channels[0]);
    for (int c = 1; c < 4; ++c) QVERIFY(after->halftone->channels[size_t(c)] == before->halftone->channels[size_t(c)]);
    RunRequest req;
    req.method = Registry::instance().find("am", "clustered");
    req.color = ColorMode::CMYK;
    req.device = Device::Cpu;
    req.params.set("angles", std::string("22.5,75,0,45"));
    RunResult direct;
    QVERIFY(runImage(tint, req, direct));
    QVERIFY(direct.image.channels == after->halftone->channels);
    // A named set from the Sets menu fills every field.
    QVERIFY(w.methodPanel()->setParam("angles", "105,75,90,45"));
    QCOMPARE(cyan->value(), 105.0);
    QCOMPARE(angles->findChild<QDoubleSpinBox*>("part_Y")->value(), 90.0);
}

void TestStudioPrint::anglesRefuseWhatTheFieldsCannotHold() {
    MethodPanel panel(Registry::instance());
    QVERIFY(panel.setMethod("am", "clustered"));
    auto* angles = qobject_cast<NumberListEdit*>(panel.paramWidget("angles"));
    QVERIFY(angles);
    QVERIFY(panel.setParam("angles", "30"));  // one angle for every ink
    QCOMPARE(angles->text(), QString("30,30,30,30"));
    for (const char* bad : {"15,75", "15,75,0,45,30", "200,0,0,0", "-15,75,0,45", "fifteen", ""})
        QVERIFY2(!panel.setParam("angles", bad), bad);
    QCOMPARE(angles->text(), QString("30,30,30,30"));  // nothing changed
    // The field itself holds 0..180: a typed 200 goes no further than 180.
    QDoubleSpinBox* black = angles->findChild<QDoubleSpinBox*>("part_K");
    black->setValue(200);
    QCOMPARE(black->value(), 180.0);
    QCOMPARE(panel.params().getText("angles", ""), std::string("30,30,30,180"));
    // Only the inks the colour mode prints are open: gray takes K's angle, R, G and B those of C, M and Y.
    const auto open = [&] {
        QString s;
        for (const char* part : {"part_C", "part_M", "part_Y", "part_K"})
            s += angles->findChild<QDoubleSpinBox*>(part)->isEnabled() ? "1" : "0";
        return s;
    };
    panel.setColorMode(ColorMode::Gray);
    QCOMPARE(open(), QString("0001"));
    QVERIFY(angles->findChild<QDoubleSpinBox*>("part_C")->toolTip().contains("not used"));
    panel.setColorMode(ColorMode::RGB);
    QCOMPARE(open(), QString("1110"));
    panel.setColorMode(ColorMode::CMYK);
    QCOMPARE(open(), QString("1111"));
    QVERIFY(!angles->findChild<QDoubleSpinBox*>("part_C")->toolTip().contains("not used"));
}

void TestStudioPrint::dotGainSpreadsEachDot() {
    // A 50 % tint screened at 85 lpi on 1200 dpi: the press's 14 % at 50 % shows as a 64 % print.
    Plane8 tint(600, 600, 128), plate;
    AmScreenParams p;
    p.lpi = 85;
    p.dpi = 1200;
    p.angle = 45;
    p.inkPlane = true;
    QVERIFY(amScreen(tint, plate, p));
    Image ink;
    ink.space = ColorSpace::CMYK;
    ink.channels = {Plane8(600, 600), Plane8(600, 600), Plane8(600, 600), plate};
    const double nominal = meanOf(plate) / 255;
    QVERIFY2(std::abs(nominal - 0.5) < 0.01, qPrintable(QString::number(nominal)));
    const double rim = dotGainRim(14, 1200.0 / 85);
    QVERIFY(std::abs(rim - 0.14 * (1200.0 / 85) / (2 * std::sqrt(2.0))) < 1e-12);
    const Image spread = spreadDots(ink, rim);
    const double printed = meanOf(spread.channels[3]) / 255;
    // The rim model against the one-number curve at 50 % (printed = t + 4 g t (1 - t)): within 2 %, the corners
    // where the checkerboard's dots meet and the pixel grid being what the straight-edge model leaves out.
    QVERIFY2(std::abs(printed - (nominal + 0.14)) < 0.02, qPrintable(QString::number(printed)));
    // Ink stays ink, paper far from any dot stays paper, the other inks stay empty.
    for (size_t i = 0; i < plate.size(); ++i)
        if (plate.data[i] == 255) QCOMPARE(int(spread.channels[3].data[i]), 255);
    QCOMPARE(meanOf(spread.channels[0]), 0.0);
    // No gain, no change; more gain, more ink.
    QVERIFY(spreadDots(ink, 0).channels == ink.channels);
    QVERIFY(meanOf(spreadDots(ink, dotGainRim(25, 1200.0 / 85)).channels[3]) > meanOf(spread.channels[3]));
}

void TestStudioPrint::printedSizeFollowsTheResolution() {
    Image cmyk;
    cmyk.space = ColorSpace::CMYK;
    for (int c = 0; c < 4; ++c) cmyk.channels.push_back(test::randomPlane(240, 120, test::freshSeed("print size")));
    PrintSizeView v;
    v.deviceDpi = 1200;
    v.viewDpi = 96;
    Image out;
    QVERIFY(printAtSize(cmyk, v, out));
    QCOMPARE(out.space, ColorSpace::RGB);
    QCOMPARE(out.width(), 19);  // 240 / 1200 in = 0.2 in = 19.2 screen pixels
    QCOMPARE(out.height(), 10);
    // At the device's own resolution and no gain: the print preview itself, pixel for pixel.
    v.viewDpi = 1200;
    QVERIFY(printAtSize(cmyk, v, out));
    QVERIFY(out.channels == simulatePrint(cmyk).channels);
    // Larger than the device: each dot repeated.
    v.viewDpi = 2400;
    QVERIFY(printAtSize(cmyk, v, out));
    QCOMPARE(out.width(), 480);
    // A gray halftone prints in black ink.
    Plane8 g(4, 1);
    g.data = {0, 255, 0, 255};
    v.viewDpi = v.deviceDpi;
    QVERIFY(printAtSize(Image::gray(g), v, out));
    const PrintInks inks;
    QCOMPARE(int(out.channels[0].at(0, 0)), int(inks.black[0]));
    QCOMPARE(int(out.channels[0].at(0, 1)), 255);
    // What it cannot show is said.
    const Image rgb = flatColour(8, 8);
    const Status s = printAtSize(rgb, v, out);
    QVERIFY(!s);
    QVERIFY2(QString::fromStdString(s.message()).contains("RGB"), s.message().c_str());
    v.viewDpi = 0;
    QVERIFY(!printAtSize(cmyk, v, out));
}

void TestStudioPrint::printTabShowsThePrintAtItsSize() {
    MainWindow w(Registry::instance());
    w.adjustPanel()->dpiSpin()->setValue(1200);
    const JobResultPtr r = runAm(w, flatColour(480, 360), ColorMode::CMYK);
    QVERIFY(r);
    PrintView* view = w.printView();
    QVERIFY(view);
    QSignalSpy updated(view, &PrintView::updated);
    view->setDotGain(14);
    view->setZoom(1.0);
    view->refresh();
    QVERIFY(updated.wait(60000));
    // 100 %: the print's inches are the screen's inches (logical dpi); the picture is printAtSize's, only shown.
    const double screen = view->screenDpi();
    QVERIFY(screen > 0);
    const QImage& shown = view->image();
    QVERIFY(!shown.isNull());
    const double ratio = shown.devicePixelRatio();
    QCOMPARE(shown.width(), int(std::llround(480 * screen * ratio / 1200)));
    QCOMPARE(shown.height(), int(std::llround(360 * screen * ratio / 1200)));
    QCOMPARE(view->shownView().deviceDpi, 1200.0);
    QCOMPARE(view->shownView().lpi, 60.0);  // the AM screen's own ruling
    QCOMPARE(view->shownView().dotGain, 14.0);
    Image expected;
    QVERIFY(printAtSize(*r->halftone, view->shownView(), expected));
    QImage plain = shown;
    plain.setDevicePixelRatio(1);
    QCOMPARE(plain, toDisplayImageCopy(expected));
    QVERIFY2(view->infoText().contains("0.40 x 0.30 in") && view->infoText().contains("1200 dpi"),
             qPrintable(view->infoText()));
    // More dot gain prints darker; 4x zoom is four times the picture.
    const auto meanLight = [](const QImage& im) {
        double s = 0;
        for (int y = 0; y < im.height(); ++y)
            for (int x = 0; x < im.width(); ++x) s += qGray(im.pixel(x, y));
        return s / (double(im.width()) * im.height());
    };
    const double light14 = meanLight(shown);
    view->setDotGain(30);
    view->refresh();
    QVERIFY(updated.wait(60000));
    QVERIFY(meanLight(view->image()) < light14 - 1);
    view->setZoom(4.0);
    view->refresh();
    QVERIFY(updated.wait(60000));
    QCOMPARE(view->image().width(), int(std::llround(480 * screen * 4 * ratio / 1200)));
}

void TestStudioPrint::printTabCancels() {
    // A large result: Cancel, pressed as soon as the picture is asked for, stops it between rows.
    auto r = std::make_shared<JobResult>();
    Image big;
    big.space = ColorSpace::CMYK;
    for (int c = 0; c < 4; ++c) big.channels.push_back(Plane8(4000, 4000, uint8_t(c * 60)));
    r->halftone = std::make_shared<const Image>(std::move(big));
    PrintView view;
    QSignalSpy updated(&view, &PrintView::updated);
    view.setResult(r, 1200);
    view.refresh();
    QVERIFY(view.busy());
    view.cancel();
    QVERIFY(updated.wait(60000));
    QVERIFY(view.image().isNull());
    QVERIFY2(view.infoText().startsWith("Cancelled"), qPrintable(view.infoText()));
    // Asked again, it is made.
    view.refresh();
    QVERIFY(updated.wait(120000));
    QVERIFY(!view.image().isNull());
    QCOMPARE(view.image().width(), int(std::llround(4000 * view.screenDpi() * view.image().devicePixelRatio() / 1200)));
}

void TestStudioPrint::qualityMeasuredAsPrinted() {
    // The earlier finding: an 85 lpi / 1200 dpi screen rated about 10 dB, measured at screen pixels.
    auto image = std::make_shared<const Image>(test::smoothImage(512, 512));
    JobRequest req;
    req.image = image;
    req.method = Registry::instance().find("am", "clustered");
    QVERIFY(req.method);
    req.device = Device::Cpu;
    req.params.set("lpi", 85.0);
    req.params.set("dpi", 1200.0);
    auto result = std::make_shared<JobResult>();
    QVERIFY(runJob(req, {}, *result));
    const double atPixels = result->psnrDb;  // the pane label's measure: sigma 1.2 px
    QVERIFY2(atPixels < 15, qPrintable(QString::number(atPixels)));
    QualityPanel panel(Registry::instance());
    QCOMPARE(panel.viewingDistanceCm(), 30.0);
    QSignalSpy measured(&panel, &QualityPanel::measured);
    panel.setResults(image, {result}, "smooth");
    panel.measure();
    QVERIFY(measured.wait(120000));
    QCOMPARE(panel.rows().size(), 1);
    const QualityRow row = panel.rows().front();  // a copy: measuring again replaces the rows
    QCOMPARE(row.printDpi, 1200.0);
    QCOMPARE(row.seenAs, QString("1200 dpi from 30 cm"));
    // 1200 dpi x 11.8 in x tan(0.05 degree) = 12.4 px: the screen's 14 px cells are what the eye averages.
    QVERIFY(std::abs(row.sigmaPixels - 1200 * (30 / 2.54) * std::tan(0.05 * std::numbers::pi / 180)) < 1e-9);
    QVERIFY2(row.psnrDb > atPixels + 10, qPrintable(QString("%1 vs %2").arg(row.psnrDb).arg(atPixels)));
    // The number `halftone analyze --dpi 1200 --distance 30` gives for the same pair (docs/quality.md).
    const double analyze =
        seenPsnr(image->channels[0], result->halftone->channels[0], ViewingConditions{1200, 30 / 2.54});
    QCOMPARE(row.psnrDb, analyze);
    auto* table = panel.findChild<QTableWidget*>("qualityTable");
    QCOMPARE(table->item(0, table->columnCount() - 1)->text(), QString("1200 dpi from 30 cm"));
    // Farther away the eye averages more: the screen rates higher still.
    panel.setViewingDistanceCm(60);
    panel.measure();
    QVERIFY(measured.wait(120000));
    QVERIFY(panel.rows().front().psnrDb > row.psnrDb);
    // Error diffusion has no printer resolution: measured at screen pixels, as before.
    JobRequest ed = req;
    ed.method = Registry::instance().find("ed", "plain");
    ed.params = ParamValues{};
    auto edResult = std::make_shared<JobResult>();
    QVERIFY(runJob(ed, {}, *edResult));
    panel.setResults(image, {edResult}, "smooth");
    panel.measure();
    QVERIFY(measured.wait(120000));
    QCOMPARE(panel.rows().front().printDpi, 0.0);
    QCOMPARE(panel.rows().front().seenAs, QString("screen pixels"));
    QCOMPARE(panel.rows().front().psnrDb, edResult->psnrDb);
}

QTEST_MAIN(TestStudioPrint)
#include "test_studio_print.moc"
