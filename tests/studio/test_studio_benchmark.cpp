// The benchmark panel runs a sweep from the registry in the background and produces chart data,
// a speed-up against the baseline, CSV and PNG that say what was measured; a cancel stops the sweep.
// Without a usable GPU the GPU-only variants are greyed out with the reason, and a sweep says what it
// left out. Legends stay outside the data and appear only with data.
#include <QLabel>
#include <QListWidget>
#include <QSpinBox>
#include <QtTest>
#include <qcustomplot.h>

#include "core/job/registry.h"
#include "core/threads.h"
#include "gpu/gpu.h"
#include "widgets/benchmarkpanel.h"

using namespace halftone;

class TestStudioBenchmark : public QObject {
    Q_OBJECT
private slots:
    void sweepProducesChartData();
    void cancelStopsSweep();
    void tickedByDefaultIsMeasured();
    void gpuOnlyVariantsWithoutGpu();
    void legendsOutsideAndOnlyWithData();
    void moreRepeatsAtSmallSizes();
    void exportsSayWhatWasMeasured();
    void refusedSweepStillEnds();
};

namespace {

/// The CSV's data lines: without the '#' lines that say what was measured.
QStringList csvRows(const QString& csv) {
    QStringList out;
    for (const QString& l : csv.trimmed().split('\n'))
        if (!l.startsWith('#')) out << l;
    return out;
}

QString contextValue(const QStringList& context, const QString& key) {
    for (const QString& l : context)
        if (l.startsWith(key + ": ")) return l.mid(key.size() + 2);
    return {};
}

}  // namespace

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
    // CSV: a header and one line per point (after the '#' lines).
    const QStringList lines = csvRows(panel.csv());
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

void TestStudioBenchmark::tickedByDefaultIsMeasured() {
    // Every method ticked by default is measured on a device ticked by default (MBVQ, whose only CPU form is its
    // fixed palette's, included), and nothing is said to be left out.
    BenchmarkPanel panel(Registry::instance());
    QStringList ticked;
    for (const MethodInfo& m : Registry::instance().methods()) {
        const QString id = QString::fromStdString(m.id());
        QListWidgetItem* item = panel.methodItem(id);
        QVERIFY2(item, qPrintable(id));
        if (item->checkState() == Qt::Checked) ticked << id;
    }
    QVERIFY(ticked.contains("ed/mbvq"));
    QSignalSpy finished(&panel, &BenchmarkPanel::sweepFinished);
    panel.configure(ticked, {Device::Cpu}, {9}, 1);
    panel.start();
    QVERIFY(finished.wait(120000));
    QVERIFY2(panel.skippedText().isEmpty() || !panel.skippedText().startsWith("Not measured"),
             qPrintable(panel.skippedText()));
    QStringList measured;
    for (const BenchPoint& p : panel.points()) measured << p.methodId;
    for (const QString& id : ticked) QVERIFY2(measured.contains(id), qPrintable(id + " was not measured"));
}

void TestStudioBenchmark::cancelStopsSweep() {
    BenchmarkPanel panel(Registry::instance());
    QSignalSpy finished(&panel, &BenchmarkPanel::sweepFinished);
    QSignalSpy added(&panel, &BenchmarkPanel::pointAdded);
    // 12 measurements of 2048 x 2048 with 5 repeats: tens of seconds if not cancelled.
    panel.configure({"ed/plain", "ec/plain", "ed/rc", "ec/rc"}, {Device::Cpu}, {2048, 2049, 2050}, 5);
    panel.start();
    QVERIFY(added.wait(60000));  // cancelled mid-sweep, after its first measurement
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

void TestStudioBenchmark::gpuOnlyVariantsWithoutGpu() {
    Registry& reg = Registry::instance();
    gpu::registerMethods(reg);
    const GpuAvailability saved = reg.gpuAvailability();
    GpuAvailability none;
    none.usable = false;
    none.reason = "no CUDA driver on this test machine";
    reg.setGpuAvailability(none);
    QStringList gpuOnly;
    for (const MethodInfo& m : reg.methods())
        if (!m.cpu && m.gpu) gpuOnly << QString::fromStdString(m.id());
    if (gpuOnly.isEmpty()) {  // a build without CUDA: a GPU-only variant of our own
        reg.attachGpu("ec", "gpu-only-test",
                      [](const Plane8&, Plane8&, const ParamValues&, const RunControl&) { return Status::ok(); });
        gpuOnly << "ec/gpu-only-test";
    }
    {
        BenchmarkPanel panel(reg);
        // greyed out, never ticked, the reason in the tooltip; the panel says so
        for (const QString& id : gpuOnly) {
            QListWidgetItem* item = panel.methodItem(id);
            QVERIFY2(item, qPrintable(id));
            QVERIFY2(!(item->flags() & Qt::ItemIsEnabled), qPrintable(id));
            QCOMPARE(item->checkState(), Qt::Unchecked);
            QVERIFY2(item->toolTip().contains(QString::fromStdString(none.reason)), qPrintable(item->toolTip()));
        }
        QVERIFY2(panel.skippedText().contains(QString::number(gpuOnly.size())), qPrintable(panel.skippedText()));
        QVERIFY(panel.skippedText().contains(QString::fromStdString(none.reason)));
        // methods with a CPU path are still ticked by default
        QCOMPARE(panel.methodItem("ed/plain")->checkState(), Qt::Checked);
        // asked for anyway (scripted): measured without them, and the panel names them and the reason
        QSignalSpy finished(&panel, &BenchmarkPanel::sweepFinished);
        panel.configure({"ed/plain", gpuOnly.front()}, {Device::Cpu, Device::Gpu}, {8}, 1);
        QCOMPARE(panel.methodItem(gpuOnly.front())->checkState(), Qt::Unchecked);
        panel.start();
        QVERIFY(finished.wait(30000));
        QCOMPARE(panel.points().size(), 1);
        QCOMPARE(panel.points().front().methodId, QString("ed/plain"));
        const QString skipped = panel.skippedText();
        QVERIFY2(skipped.contains(gpuOnly.front()) && skipped.contains(QString::fromStdString(none.reason)),
                 qPrintable(skipped));
        auto* label = panel.findChild<QLabel*>("benchSkipped");
        QVERIFY(label && label->text() == skipped);
    }
    reg.setGpuAvailability(saved);
}

void TestStudioBenchmark::legendsOutsideAndOnlyWithData() {
    BenchmarkPanel panel(Registry::instance());
    panel.resize(1300, 800);
    panel.show();
    QVERIFY(QTest::qWaitForWindowExposed(&panel));
    for (QCustomPlot* p : {panel.timePlot(), panel.speedupPlot()}) {
        p->replot();
        QCOMPARE(p->graphCount(), 0);
        QVERIFY2(!p->legend->visible(), "an empty legend before the first sweep");
        bool hint = false;
        for (int i = 0; i < p->itemCount(); ++i)
            if (auto* t = qobject_cast<QCPItemText*>(p->item(i)); t && t->visible() && t->text().contains("Run sweep"))
                hint = true;
        QVERIFY(hint);
    }
    QSignalSpy finished(&panel, &BenchmarkPanel::sweepFinished);
    panel.configure({"ed/plain", "ec/plain", "ed/rc", "ec/rc", "ordered/screen"}, {Device::Cpu}, {4, 9, 16}, 1);
    panel.start();
    QVERIFY(finished.wait(60000));
    for (QCustomPlot* p : {panel.timePlot(), panel.speedupPlot()}) {
        p->replot();
        QVERIFY(p->legend->visible());
        QCOMPARE(p->legend->itemCount(), 5);
        const QRect data = p->axisRect()->outerRect(), legend = p->legend->outerRect();
        QVERIFY(legend.width() > 0 && legend.height() > 0);
        QVERIFY2(!data.intersects(legend), qPrintable(QString("legend %1,%2 %3x%4 over the axes %5,%6 %7x%8")
                                                          .arg(legend.x())
                                                          .arg(legend.y())
                                                          .arg(legend.width())
                                                          .arg(legend.height())
                                                          .arg(data.x())
                                                          .arg(data.y())
                                                          .arg(data.width())
                                                          .arg(data.height())));
        QVERIFY(p->rect().contains(legend));  // and inside the chart widget
        for (int i = 0; i < p->itemCount(); ++i)
            if (auto* t = qobject_cast<QCPItemText*>(p->item(i)); t && t->text().contains("Run sweep"))
                QVERIFY(!t->visible());
    }
}

void TestStudioBenchmark::moreRepeatsAtSmallSizes() {
    QVERIFY(BenchmarkPanel::autoRepeats(64) > BenchmarkPanel::autoRepeats(1024));
    QVERIFY(BenchmarkPanel::autoRepeats(256) > 3);
    QVERIFY(BenchmarkPanel::autoRepeats(4096) >= 3);  // a median needs three
    BenchmarkPanel panel(Registry::instance());
    auto* repeats = panel.findChild<QSpinBox*>("repeats");
    QVERIFY(repeats);
    QCOMPARE(repeats->value(), 0);  // automatic by default
    QCOMPARE(repeats->text(), QString("auto"));
    QSignalSpy finished(&panel, &BenchmarkPanel::sweepFinished);
    panel.configure({"ed/plain"}, {Device::Cpu}, {16, 300}, 0);
    panel.start();
    QVERIFY(finished.wait(60000));
    QCOMPARE(panel.points().size(), 2);
    for (const BenchPoint& p : panel.points()) {
        QVERIFY2(p.repeats >= 3 && p.repeats <= BenchmarkPanel::autoRepeats(p.size),
                 qPrintable(QString::number(p.repeats)));
        if (p.size == 16) QCOMPARE(p.repeats, BenchmarkPanel::autoRepeats(16));  // 16 x 16 runs in microseconds
    }
    // a fixed count is kept
    panel.configure({"ed/plain"}, {Device::Cpu}, {16}, 2);
    panel.start();
    QVERIFY(finished.wait(60000));
    QCOMPARE(panel.points().front().repeats, 2);
}

void TestStudioBenchmark::exportsSayWhatWasMeasured() {
    BenchmarkPanel panel(Registry::instance());
    QSignalSpy finished(&panel, &BenchmarkPanel::sweepFinished);
    panel.configure({"ed/plain", "ordered/screen"}, {Device::Cpu}, {12}, 4);
    panel.start();
    QVERIFY(finished.wait(60000));
    const QStringList context = panel.measurementContext();
    QVERIFY(contextValue(context, "image").contains("gray"));
    QCOMPARE(contextValue(context, "colour mode").left(4), QString("gray"));
    QVERIFY2(contextValue(context, "kernel").contains("floyd-steinberg"), qPrintable(context.join('\n')));
    QCOMPARE(contextValue(context, "levels"), QString("2"));
    QVERIFY(!contextValue(context, "threads").isEmpty());
    QCOMPARE(contextValue(context, "repeats"), QString("4"));
    const QString machine = contextValue(context, "machine");
    QVERIFY2(machine.contains(QString("%1 logical cores").arg(hardwareThreads())), qPrintable(machine));
    QVERIFY(machine.section(',', 0, 0).trimmed().size() > 2);  // the CPU model
    QFile cpuinfo("/proc/cpuinfo");
    if (cpuinfo.open(QIODevice::ReadOnly))
        for (const QByteArray& l : cpuinfo.readAll().split('\n'))
            if (l.startsWith("model name")) {
                QVERIFY2(machine.startsWith(QString::fromUtf8(l.mid(l.indexOf(':') + 1)).simplified()),
                         qPrintable(machine));
                break;
            }
    QVERIFY(!contextValue(context, "GPU").isEmpty());
    const QDateTime date = QDateTime::fromString(contextValue(context, "date"), Qt::ISODate);
    QVERIFY(date.isValid());
    QVERIFY(qAbs(date.secsTo(QDateTime::currentDateTime())) < 3600);
    // the CSV carries the same lines, and per row the repeats, kernel, levels, colour and threads
    const QString csv = panel.csv();
    for (const QString& l : context) QVERIFY2(csv.contains("# " + l), qPrintable(l));
    const QStringList rows = csvRows(csv);
    const QStringList header = rows[0].split(',');
    for (const char* col : {"repeats", "kernel", "levels", "color", "threads"}) QVERIFY2(header.contains(col), col);
    bool sawEd = false;
    for (int i = 1; i < rows.size(); ++i) {
        const QStringList f = rows[i].split(',');
        QCOMPARE(f.size(), header.size());
        QCOMPARE(f[header.indexOf("repeats")], QString("4"));
        QCOMPARE(f[header.indexOf("color")], QString("gray"));
        if (f[0] == "ed") {
            sawEd = true;
            QCOMPARE(f[header.indexOf("kernel")], QString("floyd-steinberg"));
            QCOMPARE(f[header.indexOf("levels")], QString("2"));
        }
    }
    QVERIFY(sawEd);
    // the PNG has the charts and, under them, the same lines (a band with text, not blank)
    QTemporaryDir dir;
    QVERIFY(panel.exportPng(dir.filePath("b.png")));
    const QImage png(dir.filePath("b.png"));
    QVERIFY(png.height() > 520 + 5 * QFontMetrics(QFont(panel.font().family(), 10)).lineSpacing());
    int dark = 0;
    for (int y = 522; y < png.height(); ++y)
        for (int x = 0; x < png.width(); ++x) dark += qGray(png.pixel(x, y)) < 128;
    QVERIFY2(dark > 500, qPrintable(QString::number(dark)));
}

void TestStudioBenchmark::refusedSweepStillEnds() {
    // start() that has nothing to run says why and still reports an end (scripted users wait for it).
    BenchmarkPanel panel(Registry::instance());
    QSignalSpy finished(&panel, &BenchmarkPanel::sweepFinished);
    panel.configure({}, {Device::Cpu}, {16}, 1);
    panel.start();
    QCOMPARE(finished.count(), 1);
    QVERIFY(!panel.running());
    QVERIFY(panel.points().isEmpty());
    QVERIFY(panel.findChild<QLabel*>("benchStatus")->text().contains("Nothing to run"));
}

QTEST_MAIN(TestStudioBenchmark)
#include "test_studio_benchmark.moc"
