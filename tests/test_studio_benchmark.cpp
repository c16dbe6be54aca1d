// The benchmark panel runs a sweep from the registry in the background and produces chart data,
// a speed-up against the baseline, CSV and PNG; a cancel stops the sweep.
#include <QtTest>
#include <qcustomplot.h>

#include "core/registry.h"
#include "widgets/benchmarkpanel.h"

using namespace halftone;

class TestStudioBenchmark : public QObject {
    Q_OBJECT
private slots:
    void sweepProducesChartData();
    void cancelStopsSweep();
};

void TestStudioBenchmark::sweepProducesChartData() {
    BenchmarkPanel panel(Registry::instance());
    QSignalSpy finished(&panel, &BenchmarkPanel::sweepFinished);
    panel.configure({"ed/plain", "ec/rc"}, {Device::Cpu}, {17, 64, 5}, 1);
    panel.start();
    QVERIFY(panel.running());
    QVERIFY(finished.wait(60000));
    QCOMPARE(finished.at(0).at(0).toBool(), false);
    QCOMPARE(panel.points().size(), 6);
    for (const BenchPoint& p : panel.points()) {
        QVERIFY(p.seconds >= 0);
        QVERIFY(p.size == 5 || p.size == 17 || p.size == 64);
    }
    QCustomPlot* t = panel.timePlot();
    QCOMPARE(t->graphCount(), 2);
    QStringList names;
    for (int i = 0; i < 2; ++i) {
        QCOMPARE(t->graph(i)->data()->size(), 3);
        names << t->graph(i)->name();
    }
    names.sort();
    QCOMPARE(names, QStringList({"ec/rc @cpu", "ed/plain @cpu"}));
    QCOMPARE(t->xAxis->scaleType(), QCPAxis::stLogarithmic);
    QCOMPARE(t->yAxis->scaleType(), QCPAxis::stLogarithmic);
    // Speed-up of the baseline against itself is 1 at every size.
    panel.setBaseline("ed/plain @cpu");
    QCustomPlot* s = panel.speedupPlot();
    bool sawBaseline = false;
    for (int i = 0; i < s->graphCount(); ++i) {
        if (s->graph(i)->name() != "ed/plain @cpu") continue;
        sawBaseline = true;
        for (auto it = s->graph(i)->data()->constBegin(); it != s->graph(i)->data()->constEnd(); ++it)
            if (qIsFinite(it->value)) QCOMPARE(it->value, 1.0);
    }
    QVERIFY(sawBaseline);
    // CSV: a header and one line per point.
    const QStringList lines = panel.csv().trimmed().split('\n');
    QCOMPARE(lines.size(), 7);
    QVERIFY(lines[0].startsWith("method,variant,device,width,height,pixels,seconds"));
    QTemporaryDir dir;
    QVERIFY(panel.exportCsv(dir.filePath("b.csv")));
    QFile f(dir.filePath("b.csv"));
    QVERIFY(f.open(QIODevice::ReadOnly));
    QCOMPARE(QString::fromUtf8(f.readAll()), panel.csv());
    QVERIFY(panel.exportPng(dir.filePath("b.png")));
    QImage png(dir.filePath("b.png"));
    QVERIFY(!png.isNull());
    QVERIFY(png.width() > 800);
    QString err;
    QVERIFY(!panel.exportCsv("/nonexistent-dir/x.csv", &err));
    QVERIFY(err.contains("/nonexistent-dir/x.csv"));
}

void TestStudioBenchmark::cancelStopsSweep() {
    BenchmarkPanel panel(Registry::instance());
    QSignalSpy finished(&panel, &BenchmarkPanel::sweepFinished);
    // 12 measurements of 2048 x 2048 with 5 repeats: tens of seconds if not cancelled.
    panel.configure({"ed/plain", "ec/plain", "ed/rc", "ec/rc"}, {Device::Cpu}, {2048, 2049, 2050}, 5);
    panel.start();
    QTest::qWait(100);
    panel.cancel();
    QVERIFY(finished.wait(30000));
    QCOMPARE(finished.at(0).at(0).toBool(), true);
    QVERIFY(panel.points().size() < 12);
    QVERIFY(!panel.running());
    // Usable again.
    panel.configure({"ed/rc"}, {Device::Cpu}, {9}, 1);
    panel.start();
    QVERIFY(finished.wait(30000));
    QCOMPARE(panel.points().size(), 1);
}

QTEST_MAIN(TestStudioBenchmark)
#include "test_studio_benchmark.moc"
