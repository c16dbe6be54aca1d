// The quality panel measures the results on screen with core/quality/metrics.h, in the background:
// its numbers equal the metrics computed directly, and its tone and spectrum charts hold the data.
#include <QTemporaryDir>
#include <QtTest>
#include <QTableWidget>

#include <cmath>
#include <qcustomplot.h>

#include "core/quality/metrics.h"
#include "core/job/registry.h"
#include "tests/common/testutil.h"
#include "widgets/jobrunner.h"
#include "widgets/qualitypanel.h"

using namespace halftone;

class TestStudioQualityPanel : public QObject {
    Q_OBJECT
private slots:
    void measuresMatchMetrics();
    void emptyIsSaid();
    void legendsOutsideDataAndOnlyWithData();
    void exportsSayWhatWasMeasured();
    void deltaEForColourResults();
};

namespace {
/// Two results on one picture: gray Floyd-Steinberg and RGB Jarvis in linear light.
void measureTwo(QualityPanel& panel, std::shared_ptr<const Image>& image) {
    Image im;
    im.space = ColorSpace::RGB;
    for (int c = 0; c < 3; ++c) im.channels.push_back(test::randomPlane(64, 40, test::freshSeed("quality export")));
    image = std::make_shared<const Image>(im);
    QVector<JobResultPtr> results;
    for (int i = 0; i < 2; ++i) {
        JobRequest r;
        r.image = image;
        r.method = Registry::instance().find("ed", "plain");
        r.device = Device::Cpu;
        r.color = i == 0 ? ColorMode::Gray : ColorMode::RGB;
        if (i == 1) {
            r.params.set("kernel", std::string("jarvis"));
            r.params.set("linear", true);
        }
        auto result = std::make_shared<JobResult>();
        QVERIFY(runJob(r, {}, *result).isOk());
        results.push_back(result);
    }
    QSignalSpy measured(&panel, &QualityPanel::measured);
    panel.setResults(image, results, "colour test picture");
    panel.measure();
    QVERIFY(measured.wait(60000));
}
}  // namespace

void TestStudioQualityPanel::measuresMatchMetrics() {
    auto image = std::make_shared<const Image>(Image::gray(test::randomPlane(97, 61, test::freshSeed("quality"))));
    JobRequest r;
    r.image = image;
    r.method = Registry::instance().find("ed", "rc");
    r.device = Device::Cpu;
    auto result = std::make_shared<JobResult>();
    QVERIFY(runJob(r, {}, *result).isOk());
    result->methodId = "ed/rc";
    QualityPanel panel(Registry::instance());
    QSignalSpy measured(&panel, &QualityPanel::measured);
    panel.setResults(image, {result});
    panel.measure();
    QVERIFY(measured.wait(60000));
    QCOMPARE(panel.rows().size(), 1);
    const QualityRow& row = panel.rows().front();
    QVERIFY2(row.error.isEmpty(), qPrintable(row.error));
    QCOMPARE(row.hvsError, hvsWeightedError(image->channels[0], result->halftone->channels[0]));
    QCOMPARE(row.psnrDb, filteredPsnr(image->channels[0], result->halftone->channels[0]));
    QCOMPARE(row.psnrDb, result->psnrDb);  // the pane label shows the same number
    QCOMPARE(row.region, QString("whole image"));
    QCOMPARE(row.toneIn.size(), 256);  // every level of the ramp
    QVERIFY(row.toneMaxDeviation >= 0);
    QVERIFY(!row.freq.isEmpty());
    QCOMPARE(row.freq.size(), row.power.size());
    for (double f : row.freq) QVERIFY(f <= 0.5);
    // Charts: the ideal line + one graph per result.
    QCOMPARE(panel.tonePlot()->graphCount(), 2);
    QCOMPARE(panel.tonePlot()->graph(1)->data()->size(), 256);
    QCOMPARE(panel.spectrumPlot()->graphCount(), 1);
    QCOMPARE(panel.spectrumPlot()->graph(0)->data()->size(), row.freq.size());
}

void TestStudioQualityPanel::emptyIsSaid() {
    QualityPanel panel(Registry::instance());
    panel.setResults(nullptr, {});
    panel.measure();
    QCOMPARE(panel.rows().size(), 0);
    QVERIFY(!panel.running());
}

void TestStudioQualityPanel::legendsOutsideDataAndOnlyWithData() {
    QualityPanel panel(Registry::instance());
    panel.resize(1000, 700);
    panel.show();
    QVERIFY(QTest::qWaitForWindowExposed(&panel));
    // Before any data: no legend at all (an empty legend box is noise).
    QVERIFY(!panel.tonePlot()->legend->visible());
    QVERIFY(!panel.spectrumPlot()->legend->visible());
    std::shared_ptr<const Image> image;
    measureTwo(panel, image);
    for (QCustomPlot* plot : {panel.tonePlot(), panel.spectrumPlot()}) {
        plot->replot();
        QVERIFY(plot->legend->visible());
        // The legend is its own layout element below the axes, so it can never cover a curve.
        QCOMPARE(plot->legend->layout(), static_cast<QCPLayout*>(plot->plotLayout()));
        QVERIFY(plot->legend->outerRect().top() >= plot->axisRect()->outerRect().bottom());
    }
    QCOMPARE(panel.tonePlot()->legend->itemCount(), 3);  // ideal + two results
    QCOMPARE(panel.tonePlot()->graph(2)->name(), panel.rows()[1].label);
    QVERIFY(panel.rows()[1].label.contains("jarvis") && panel.rows()[1].label.contains("RGB"));
}

void TestStudioQualityPanel::exportsSayWhatWasMeasured() {
    QualityPanel panel(Registry::instance());
    std::shared_ptr<const Image> image;
    measureTwo(panel, image);
    QVERIFY(panel.rows()[1].linear);
    QTemporaryDir dir;
    QString err;
    QVERIFY2(panel.exportCsv(dir.filePath("q.csv"), &err), qPrintable(err));
    QFile f(dir.filePath("q.csv"));
    QVERIFY(f.open(QIODevice::ReadOnly));
    const QString csv = QString::fromUtf8(f.readAll());
    for (const QString& needle :
         {QString("# image: colour test picture"), QString("# image size: 64 x 40"),
          QString("ed/plain jarvis, RGB, linear"), QString("colour mode: RGB, linear light"), QString("Kernel: jarvis"),
          QString("# machine: "), QString("# date: "), QString("table,"), QString("tone,"), QString("spectrum,")})
        QVERIFY2(csv.contains(needle), qPrintable(needle));
    QVERIFY2(panel.exportPng(dir.filePath("q.png"), &err), qPrintable(err));
    const QImage png(dir.filePath("q.png"));
    QVERIFY(!png.isNull());
    QVERIFY(png.width() >= 1280);
    // The header lines are drawn above the charts: the top rows are not blank.
    bool ink = false;
    for (int x = 0; x < png.width() && !ink; ++x) ink = png.pixelColor(x, 14).lightness() < 128;
    QVERIFY(ink);
}

void TestStudioQualityPanel::deltaEForColourResults() {
    // A "Delta E seen" column beside E/N: the library's seenDeltaE2000 for gray and colour results alike.
    QualityPanel panel(Registry::instance());
    std::shared_ptr<const Image> image;
    measureTwo(panel, image);
    QCOMPARE(panel.rows().size(), 2);
    auto* table = panel.findChild<QTableWidget*>("qualityTable");
    QVERIFY(table);
    int col = -1;
    for (int c = 0; c < table->columnCount(); ++c)
        if (table->horizontalHeaderItem(c)->text() == "Delta E seen") col = c;
    QVERIFY(col >= 0);
    QCOMPARE(table->horizontalHeaderItem(col - 1)->text(), QString("HVS error E/N"));
    for (int i = 0; i < 2; ++i) {
        const double de = panel.rows()[i].seenDeltaE;
        QVERIFY2(de > 0 && de < 30, qPrintable(QString::number(de)));
        QCOMPARE(table->item(i, col)->text(), QString::number(de, 'f', 2));
    }

    // MBVQ: a colour result of the eight corners, measured against the original as it is.
    JobRequest r;
    r.image = image;
    r.method = Registry::instance().find("ed", "mbvq");
    QVERIFY(r.method);
    r.device = Device::Cpu;
    r.params.set("linear", true);
    auto result = std::make_shared<JobResult>();
    QVERIFY(runJob(r, {}, *result).isOk());
    QCOMPARE(result->halftone->space, ColorSpace::RGB);
    QSignalSpy measured(&panel, &QualityPanel::measured);
    panel.setResults(image, {result});
    panel.measure();
    QVERIFY(measured.wait(60000));
    const QualityRow& row = panel.rows().front();
    QVERIFY2(row.error.isEmpty(), qPrintable(row.error));
    QCOMPARE(row.seenDeltaE, seenDeltaE2000(*image, *result->halftone, true));
    // PSNR over the three channels of the original, not the gray original against the red channel; the tone curve
    // (of the result's luma on the gray ramp) has every level.
    double psnr = 0;
    for (int c = 0; c < 3; ++c)
        psnr += filteredPsnr(image->channels[size_t(c)], result->halftone->channels[size_t(c)], 1.2, 4, true);
    QCOMPARE(row.psnrDb, psnr / 3);
    QCOMPARE(row.toneIn.size(), 256);
}

QTEST_MAIN(TestStudioQualityPanel)
#include "test_studio_qualitypanel.moc"
