// The studio's GPU paths, driven through the window as a user would: the method panel offers the GPU for every GPU
// method; each GPU method run from the window gives the CPU result bit for bit (exact methods) and says it ran on the
// GPU; the wavefront overlay follows the GPU's progress; a cancel in the middle of a GPU run leaves the window usable
// and the next run exact; a GPU failure (HALFTONE_GPU_FAULT) falls back to the CPU with a message; the benchmark panel
// charts CPU and GPU series; the UI thread is not blocked during a 16K x 16K GPU run. Skipped without a usable GPU.
// With HALFTONE_SCREENSHOT_DIR set, the compare view and the benchmark charts are saved there as PNG files.
#include <QComboBox>
#include <QDir>
#include <QElapsedTimer>
#include <QTemporaryDir>
#include <QStandardItemModel>
#include <QStatusBar>
#include <QTabWidget>
#include <QtTest>
#include <cstdlib>
#include <qcustomplot.h>

#include "core/ed/errordiffusion.h"
#include "core/job/registry.h"
#include "tests/common/qtestutil.h"
#include "tests/common/testutil.h"
#include "tests/studio/studioutil.h"
#include "widgets/benchmarkpanel.h"
#include "widgets/compareview.h"
#include "widgets/imagepane.h"
#include "widgets/jobrunner.h"
#include "widgets/latencyprobe.h"
#include "widgets/mainwindow.h"
#include "widgets/methodpanel.h"

using namespace halftone;

namespace {

/// The side of the large image: the size at which the studio's GPU run was found slower than the CPU's.
constexpr int kLarge = 16384;

/// The GPU method the large cases run: the wavefront kernel, which reports its rows as it goes.
const char* const kWavefrontMethod = "ec";
const char* const kWavefrontVariant = "wavefront";

std::vector<const MethodInfo*> gpuMethods() {
    std::vector<const MethodInfo*> out;
    for (const MethodInfo& m : Registry::instance().methods())
        if (m.gpu) out.push_back(&m);
    return out;
}

/// Runs the window's current choice and waits for its result (a large image's first GPU run included).
JobResultPtr runAndWait(MainWindow& w, int timeoutMs = 120000) {
    QSignalSpy shown(&w, &MainWindow::resultShown);
    QSignalSpy failed(&w, &MainWindow::runFailed);
    w.runCurrent();
    if (!QTest::qWaitFor([&] { return shown.count() + failed.count() > 0; }, timeoutMs)) return nullptr;
    if (failed.count() > 0) {
        qWarning("run failed: %s", qPrintable(failed.at(0).at(0).toString()));
        return nullptr;
    }
    return w.currentResult();
}

/// Opens `image` in the window and waits until it is shown (auto-run off: nothing runs yet).
bool openImage(MainWindow& w, std::shared_ptr<const Image> image, const QString& name) {
    QSignalSpy loaded(&w, &MainWindow::imageLoaded);
    w.setImage(Image(*image), name);
    return loaded.wait(120000);
}

/// Shows `w` with auto-run off, opens `image` in it and chooses the GPU wavefront; false when either failed.
bool showWavefrontOnGpu(MainWindow& w, std::shared_ptr<const Image> image, const QString& name) {
    w.setAutoRun(false);
    w.show();
    if (!openImage(w, std::move(image), name) || !w.methodPanel()->setMethod(kWavefrontMethod, kWavefrontVariant))
        return false;
    w.methodPanel()->setDevice(Device::Gpu);
    return true;
}

/// Saves a grab of `widget` to HALFTONE_SCREENSHOT_DIR/name when that is set.
void saveShot(QWidget& widget, const QString& name) {
    const QByteArray dir = qgetenv("HALFTONE_SCREENSHOT_DIR");
    if (dir.isEmpty()) return;
    const QString path = QDir(QString::fromLocal8Bit(dir)).filePath(name);
    QVERIFY2(widget.grab().save(path), qPrintable("cannot write " + path));
    qInfo("screenshot: %s", qPrintable(path));
}

/// The 16K x 16K picture of the large cases, made once (a ramp with texture, as --ui-latency uses).
std::shared_ptr<const Image> largeImage() {
    static std::shared_ptr<const Image> image = [] {
        Plane8 p(kLarge, kLarge);
        for (int y = 0; y < kLarge; ++y) {
            uint8_t* r = p.row(y);
            for (int x = 0; x < kLarge; ++x)
                r[x] = uint8_t((int64_t(x + y) * 255) / (2 * kLarge - 2) ^ ((x * 7 + y * 13) & 15));
        }
        return std::make_shared<const Image>(Image::gray(std::move(p)));
    }();
    return image;
}

}  // namespace

class TestStudioGpu : public QObject {
    Q_OBJECT
private slots:
    void initTestCase() {
        test::startStudioTest("test_studio_gpu");
        qunsetenv("HALFTONE_GPU_FAULT");
        const GpuAvailability& g = Registry::instance().gpuAvailability();
        if (!g.usable)
            QSKIP(qPrintable("no usable GPU, the studio's GPU paths cannot run here: " +
                             QString::fromStdString(g.reason)));
        if (gpuMethods().empty()) QSKIP("this build has no GPU methods (built without CUDA)");
        qInfo("GPU: %s", g.deviceName.c_str());
    }
    void methodPanelOffersGpu();
    void everyGpuMethodExact_data();
    void everyGpuMethodExact();
    void overlayFollowsGpuProgress();
    void cancelMidRunThenExact();
    void gpuFailureFallsBack();
    void benchmarkChartsCpuAndGpu();
    void uiThreadNotBlockedByLargeRun();
    void photoClickToResult();
};

void TestStudioGpu::methodPanelOffersGpu() {
    MethodPanel panel(Registry::instance());
    auto* model = qobject_cast<QStandardItemModel*>(panel.deviceCombo()->model());
    QVERIFY(model);
    for (const MethodInfo* m : gpuMethods()) {
        QVERIFY2(panel.setMethod(QString::fromStdString(m->method), QString::fromStdString(m->variant)),
                 m->id().c_str());
        const int gpuRow = panel.deviceCombo()->findData(QStringLiteral("gpu"));
        QVERIFY(gpuRow >= 0);
        QVERIFY2(model->item(gpuRow)->isEnabled(),
                 qPrintable(QString::fromStdString(m->id()) + ": " + model->item(gpuRow)->toolTip()));
        panel.setDevice(Device::Gpu);
        QCOMPARE(panel.device(), std::optional<Device>(Device::Gpu));
    }
}

void TestStudioGpu::everyGpuMethodExact_data() {
    test::columns<QString, QString, int>("method", "variant", "color");
    for (const MethodInfo* m : gpuMethods())
        QTest::newRow(m->id().c_str()) << QString::fromStdString(m->method) << QString::fromStdString(m->variant)
                                       << int(ColorMode::Gray);
    QTest::newRow("ec/wavefront RGB") << "ec"
                                      << "wavefront" << int(ColorMode::RGB);
}

void TestStudioGpu::everyGpuMethodExact() {
    QFETCH(QString, method);
    QFETCH(QString, variant);
    QFETCH(int, color);
    const MethodInfo* m = Registry::instance().find(method.toStdString(), variant.toStdString());
    QVERIFY(m);
    // Awkward sizes (primes, not multiples of 32); RGB from three different random planes.
    const int w0 = 331, h0 = 257;
    Image input = Image::gray(test::randomPlane(w0, h0, test::freshSeed("gpu method")));
    if (ColorMode(color) == ColorMode::RGB) {
        input.space = ColorSpace::RGB;
        input.channels.push_back(test::randomPlane(w0, h0, test::freshSeed("gpu method g")));
        input.channels.push_back(test::randomPlane(w0, h0, test::freshSeed("gpu method b")));
    }
    MainWindow w(Registry::instance());
    w.setAutoRun(false);
    w.show();
    QVERIFY(openImage(w, std::make_shared<const Image>(input), "random"));
    QVERIFY(w.methodPanel()->setMethod(method, variant));
    w.methodPanel()->setColorMode(ColorMode(color));
    w.methodPanel()->setDevice(Device::Gpu);
    const JobResultPtr onGpu = runAndWait(w);
    QVERIFY(onGpu);
    QCOMPARE(onGpu->methodId, QString::fromStdString(m->id()));
    QVERIFY2(onGpu->device == Device::Gpu, qPrintable("ran on the CPU: " + onGpu->note));
    QVERIFY2(onGpu->note.isEmpty(), qPrintable(onGpu->note));
    QCOMPARE(onGpu->halftone->width(), w0);
    QCOMPARE(onGpu->halftone->height(), h0);
    if (!m->exact) {
        // Not exact by contract (the GPU's own schedule): a halftone of the method's levels, nothing more to compare.
        qInfo("%s is not exact by contract: checked that it ran on the GPU", m->id().c_str());
        return;
    }
    if (m->cpu) {
        w.methodPanel()->setDevice(Device::Cpu);
        const JobResultPtr onCpu = runAndWait(w);
        QVERIFY(onCpu);
        QVERIFY(onCpu->device == Device::Cpu);
        QCOMPARE(onCpu->halftone->channelCount(), onGpu->halftone->channelCount());
        for (int c = 0; c < onGpu->halftone->channelCount(); ++c)
            QVERIFY2(onGpu->halftone->channels[size_t(c)] == onCpu->halftone->channels[size_t(c)],
                     qPrintable(QStringLiteral("channel %1 differs from the CPU result").arg(c)));
    } else {
        // A GPU-only exact method: the SPEC reference with the parameters it ran with.
        QVERIFY2(m->family == "error-diffusion", m->id().c_str());
        const EdParams p = edParamsFrom(onGpu->params);
        const Image planes = convertColor(input, ColorMode(color));
        for (int c = 0; c < planes.channelCount(); ++c)
            QVERIFY2(onGpu->halftone->channels[size_t(c)] == referenceErrorDiffusion(planes.channels[size_t(c)], p),
                     qPrintable(QStringLiteral("channel %1 differs from the reference").arg(c)));
    }
}

void TestStudioGpu::overlayFollowsGpuProgress() {
    MainWindow w(Registry::instance());
    QVERIFY(showWavefrontOnGpu(w, largeImage(), "16K"));
    // After the window has drawn each progress report: what it reported and whether the overlay is on screen.
    QVector<qint64> rows;
    bool overlayShown = true;
    connect(w.jobs(), &JobRunner::progress, &w,
            [&](quint64, double, const QString&, qint64 rowsDone, const QVector<int>&) {
                if (rowsDone < 0) return;
                rows << rowsDone;
                if (!w.compareView()->originalPane()->hasWavefront()) overlayShown = false;
            });
    const JobResultPtr r = runAndWait(w);
    QVERIFY(r);
    QVERIFY2(r->device == Device::Gpu, qPrintable(r->note));
    qInfo("%lld progress reports with rows while the GPU ran (%.3f s)", (long long)rows.size(), r->seconds);
    QVERIFY2(std::any_of(rows.begin(), rows.end(), [](qint64 v) { return v > 0 && v < kLarge; }),
             "no progress from the middle of the GPU run reached the window");
    QVERIFY(std::is_sorted(rows.begin(), rows.end()));
    QVERIFY(overlayShown);
    QVERIFY(!w.compareView()->originalPane()->hasWavefront());  // cleared with the result
    saveShot(w, QStringLiteral("studio-gpu-compare.png"));
}

void TestStudioGpu::cancelMidRunThenExact() {
    MainWindow w(Registry::instance());
    QVERIFY(showWavefrontOnGpu(w, largeImage(), "16K"));
    QSignalSpy failed(&w, &MainWindow::runFailed);
    QSignalSpy shown(&w, &MainWindow::resultShown);
    bool sent = false;
    qint64 rowsAtCancel = -1;
    connect(w.jobs(), &JobRunner::progress, &w,
            [&](quint64, double, const QString&, qint64 rowsDone, const QVector<int>&) {
                if (sent || rowsDone <= 0 || rowsDone >= kLarge) return;
                sent = true;  // in the middle of the GPU run: cancel as the Cancel button does
                rowsAtCancel = rowsDone;
                w.cancelRun();
            });
    w.runCurrent();
    QTRY_VERIFY_WITH_TIMEOUT(failed.count() + shown.count() > 0, 120000);
    if (!sent) QSKIP("the GPU finished before any progress from the middle of the run could cancel it");
    QCOMPARE(shown.count(), 0);
    QCOMPARE(failed.count(), 1);
    QVERIFY(failed.at(0).at(1).toBool());  // cancelled, not failed
    qInfo("cancelled at row %lld of %d", (long long)rowsAtCancel, kLarge);
    QVERIFY(w.runAction()->isEnabled());
    QVERIFY(!w.jobs()->busy());
    // The next GPU run completes and is the CPU's result bit for bit.
    disconnect(w.jobs(), &JobRunner::progress, &w, nullptr);
    const JobResultPtr gpuRun = runAndWait(w);
    QVERIFY(gpuRun);
    QVERIFY2(gpuRun->device == Device::Gpu, qPrintable(gpuRun->note));
    w.methodPanel()->setDevice(Device::Cpu);
    const JobResultPtr cpuRun = runAndWait(w);
    QVERIFY(cpuRun);
    QVERIFY(cpuRun->device == Device::Cpu);
    QVERIFY(gpuRun->halftone->channels[0] == cpuRun->halftone->channels[0]);
}

void TestStudioGpu::gpuFailureFallsBack() {
    MainWindow w(Registry::instance());
    const Image input = Image::gray(test::randomPlane(517, 389, test::freshSeed("gpu fault")));
    QVERIFY(showWavefrontOnGpu(w, std::make_shared<const Image>(input), "random"));
    // A kernel launch the device refuses, just before the method's kernels (gpu/faultinject.h); the context stays
    // usable, so the run after the fault is lifted must be on the GPU again.
    qputenv("HALFTONE_GPU_FAULT", "launch");
    const JobResultPtr r = runAndWait(w);
    qunsetenv("HALFTONE_GPU_FAULT");
    QVERIFY(r);
    QVERIFY(r->device == Device::Cpu);
    QVERIFY2(r->note.contains("GPU failed") && r->note.contains("CPU"), qPrintable(r->note));
    QVERIFY2(w.statusBar()->currentMessage().contains("GPU failed"), qPrintable(w.statusBar()->currentMessage()));
    QVERIFY2(w.compareView()->resultPane(0)->label().contains("cpu"),
             qPrintable(w.compareView()->resultPane(0)->label()));
    QVERIFY(r->halftone->channels[0] == referenceErrorDiffusion(input.channels[0], edParamsFrom(r->params)));
    // The cache keeps results per device choice: a changed parameter makes the next run a new one.
    QVERIFY(w.methodPanel()->setParam("kernel", "jarvis"));
    const JobResultPtr again = runAndWait(w);
    QVERIFY(again);
    QVERIFY2(again->device == Device::Gpu, qPrintable(again->note));
    QVERIFY(again->note.isEmpty());
    QVERIFY(!w.statusBar()->currentMessage().contains("GPU failed"));
    QVERIFY(again->halftone->channels[0] == referenceErrorDiffusion(input.channels[0], edParamsFrom(again->params)));
}

void TestStudioGpu::benchmarkChartsCpuAndGpu() {
    BenchmarkPanel panel(Registry::instance());
    panel.resize(1400, 900);
    panel.show();
    const QString id = QStringLiteral("%1/%2").arg(kWavefrontMethod, kWavefrontVariant);
    panel.configure({id, QStringLiteral("ed/plain")}, {Device::Cpu, Device::Gpu}, {256, 1024, 4096}, 0);
    QSignalSpy finished(&panel, &BenchmarkPanel::sweepFinished);
    panel.start();
    QVERIFY(finished.wait(300000));
    QCOMPARE(finished.at(0).at(0).toBool(), false);
    QSet<QString> series;
    for (const BenchPoint& p : panel.points()) {
        series << p.series();
        QVERIFY2(p.seconds > 0, qPrintable(p.series()));
        if (p.device == Device::Gpu) QVERIFY2(p.note.isEmpty() || !p.note.contains("CPU"), qPrintable(p.note));
    }
    QVERIFY2(series.contains(id + " @gpu") && series.contains(id + " @cpu"),
             qPrintable(QStringList(series.values()).join(", ")));
    QVERIFY(series.contains("ed/plain @cpu"));
    QStringList charted;
    for (int i = 0; i < panel.timePlot()->graphCount(); ++i) charted << panel.timePlot()->graph(i)->name();
    QVERIFY2(charted.contains(id + " @gpu") && charted.contains(id + " @cpu"), qPrintable(charted.join(", ")));
    for (int i = 0; i < panel.timePlot()->graphCount(); ++i) QCOMPARE(panel.timePlot()->graph(i)->dataCount(), 3);
    QVERIFY(panel.csv().contains(",gpu,"));
    saveShot(panel, QStringLiteral("studio-gpu-benchmark.png"));
}

void TestStudioGpu::uiThreadNotBlockedByLargeRun() {
    MainWindow w(Registry::instance());
    QVERIFY(showWavefrontOnGpu(w, largeImage(), "16K"));
    LatencyProbe probe(2);
    probe.start();
    QTRY_VERIFY(probe.ticks() >= 2);
    const JobResultPtr r = runAndWait(w);
    QVERIFY(r);
    QVERIFY2(r->device == Device::Gpu, qPrintable(r->note));
    // Let the result paint, then stop.
    const qint64 ticks = probe.ticks();
    QTRY_VERIFY(probe.ticks() > ticks + 10);
    probe.stop();
    qInfo(
        "16K x 16K %s on the GPU: method %.3f s; UI thread longest gap %.1f ms, most UI-thread CPU time between two "
        "ticks %.1f ms",
        qPrintable(r->methodId), r->seconds, probe.longestGapMs(), probe.longestBusyMs());
    // The UI thread's own work between two ticks (not its waits for a core on a loaded machine): the run, its
    // progress and the result's display images are made off the UI thread, so no step of it blocks a user.
    QVERIFY2(probe.longestBusyMs() >= 0, "the probe cannot measure the UI thread's CPU time here");
    QVERIFY2(probe.longestBusyMs() < 50, qPrintable(QString::number(probe.longestBusyMs())));
}

void TestStudioGpu::photoClickToResult() {
    // A 24-megapixel photo (6000 x 4000 JPEG, the cat of tests/data enlarged) opened from its file, then Run clicked
    // on the GPU and on the CPU, in gray and in RGB: the GPU gives the CPU's halftone bit for bit. The times from the
    // click to the result on screen are printed (first click of a device, then a second one), not checked.
    QTemporaryDir dir;
    const QString photo = dir.filePath("photo-24mp.jpg");
    {
        const QImage cat(QStringLiteral(HALFTONE_TEST_DATA_DIR "/chelsea.png"));
        QVERIFY(!cat.isNull());
        QVERIFY(cat.scaled(6000, 4000, Qt::IgnoreAspectRatio, Qt::SmoothTransformation)
                    .convertToFormat(QImage::Format_RGB888)
                    .save(photo, "JPEG", 92));
    }
    MainWindow w(Registry::instance());
    w.setAutoRun(false);
    w.show();
    QSignalSpy loaded(&w, &MainWindow::imageLoaded);
    QElapsedTimer open;
    open.start();
    w.openFile(photo);
    QVERIFY(loaded.wait(120000));
    qInfo("click to result: open %s (6000 x 4000 JPEG) %.3f s", qPrintable(QFileInfo(photo).fileName()),
          open.elapsed() / 1000.0);
    QCOMPARE(w.image()->width(), 6000);
    QVERIFY(w.methodPanel()->setMethod(kWavefrontMethod, kWavefrontVariant));
    for (const ColorMode mode : {ColorMode::Gray, ColorMode::RGB}) {
        w.methodPanel()->setColorMode(mode);
        JobResultPtr byDevice[2];
        for (const Device device : {Device::Gpu, Device::Cpu}) {
            w.methodPanel()->setDevice(device);
            for (int click = 1; click <= 2; ++click) {
                w.jobs()->clearCache();  // each click computes
                QSignalSpy shown(&w, &MainWindow::resultShown);
                QElapsedTimer clock;
                clock.start();
                w.runAction()->trigger();
                QVERIFY(shown.wait(120000));
                const double s = clock.elapsed() / 1000.0;
                const JobResultPtr r = w.currentResult();
                QVERIFY2(r->device == device, qPrintable(r->note));
                qInfo("click to result: %s %s on the %s, click %d: %.3f s (method %.3f s)", qPrintable(r->methodId),
                      qPrintable(colorModeName(mode)), toString(device), click, s, r->seconds);
                byDevice[device == Device::Gpu ? 0 : 1] = r;
            }
        }
        QCOMPARE(byDevice[0]->halftone->channelCount(), byDevice[1]->halftone->channelCount());
        for (int c = 0; c < byDevice[0]->halftone->channelCount(); ++c)
            QVERIFY(byDevice[0]->halftone->channels[size_t(c)] == byDevice[1]->halftone->channels[size_t(c)]);
    }
}

QTEST_MAIN(TestStudioGpu)
#include "test_studio_gpu.moc"
