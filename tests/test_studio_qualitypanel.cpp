// The quality panel measures the results on screen with core/metrics.h, in the background:
// its numbers equal the metrics computed directly, and its tone and spectrum charts hold the data.
#include <QtTest>
#include <qcustomplot.h>

#include "core/metrics.h"
#include "core/registry.h"
#include "tests/testutil.h"
#include "widgets/jobrunner.h"
#include "widgets/qualitypanel.h"

using namespace halftone;

class TestStudioQualityPanel : public QObject {
    Q_OBJECT
private slots:
    void measuresMatchMetrics();
    void emptyIsSaid();
};

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

QTEST_MAIN(TestStudioQualityPanel)
#include "test_studio_qualitypanel.moc"
