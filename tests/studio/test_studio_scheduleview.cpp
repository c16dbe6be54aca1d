// The scheduling view shows core's schedule model and nothing else: its grid steps and its
// parallelism plot equal makeSchedule() for every schedule, kernel and awkward grid size. At its
// defaults every schedule shows several steps; the controls and captions are labelled and readable.
#include <QComboBox>
#include <QLabel>
#include <QSpinBox>
#include <QtTest>
#include <map>
#include <set>
#include <tuple>
#include <qcustomplot.h>

#include "core/ed/dotdiffusion.h"
#include "core/job/registry.h"
#include "core/schedule/schedule.h"
#include "tests/common/qtestutil.h"
#include "tests/studio/studioutil.h"
#include "widgets/mainwindow.h"
#include "widgets/methodpanel.h"
#include "widgets/scheduleview.h"

using namespace halftone;

class TestStudioScheduleView : public QObject {
    Q_OBJECT
private slots:
    void stepsMatchModel_data();
    void stepsMatchModel();
    void knightRamp();
    void playStepScrub();
    void defaultsShowEverySchedule();
    void integerTicks_data();
    void integerTicks();
    void gridSizeIsLabelled();
    void stencilCaptionFits();
    void delayNoteNamesTheDifference();
    void conflictFreeDelayHasNoCollisions();
    void followsTheMethodOnItsDevice();
    void dotDiffusionShowsItsClassOrder();
};

void TestStudioScheduleView::stepsMatchModel_data() {
    test::columns<QString, QString, int, int>("schedule", "kernel", "w", "h");
    const QList<QSize> sizes = {{1, 1}, {13, 7}, {1, 9}, {17, 1}, {31, 11}};
    int i = 0;
    for (const std::string& s : scheduleNames())
        for (const Kernel& k : kernels()) {
            const QSize sz = sizes[i++ % sizes.size()];
            QTest::addRow("%s %s %dx%d", s.c_str(), k.name.c_str(), sz.width(), sz.height())
                << QString::fromStdString(s) << QString::fromStdString(k.name) << sz.width() << sz.height();
        }
}

void TestStudioScheduleView::stepsMatchModel() {
    QFETCH(QString, schedule);
    QFETCH(QString, kernel);
    QFETCH(int, w);
    QFETCH(int, h);
    ScheduleView view;
    const bool ok = view.configure(schedule, kernel, w, h);
    Schedule model;
    const Status s =
        makeSchedule(schedule.toStdString(), w, h, *findKernel(kernel.toStdString()), view.options(), model);
    QCOMPARE(ok, s.isOk());
    if (!s.isOk()) {
        // The view says what the model said.
        QVERIFY(view.errorText().contains(QString::fromStdString(s.message()).toHtmlEscaped()));
        return;
    }
    QCOMPARE(view.schedule().name, model.name);
    QCOMPARE(view.schedule().steps, model.steps);
    QVERIFY(view.schedule().pixelStep == model.pixelStep);
    QVERIFY(view.schedule().pixelUnit == model.pixelUnit);
    const QVector<double> plotted = view.plottedParallelism();
    QCOMPARE(plotted.size(), int(model.parallelism.size()));
    for (int i = 0; i < plotted.size(); ++i) QCOMPARE(plotted[i], double(model.parallelism[size_t(i)]));
    // The grid draws pixel (x, y) in a cell of its own, inside the widget.
    view.resize(640, 480);
    view.show();
    QVERIFY(QTest::qWaitForWindowExposed(&view));
    const QRectF c00 = view.grid()->cellRect(0, 0), last = view.grid()->cellRect(w - 1, h - 1);
    QVERIFY(c00.width() >= 1);
    QVERIFY(view.grid()->rect().contains(last.center().toPoint()));
}

void TestStudioScheduleView::knightRamp() {
    // Deshpande, Misra and Narayanan: the knight's-move order on Floyd-Steinberg runs 1,1,2,2,3,3,... pixels per step.
    if (!scheduleNames().empty() &&
        std::find(scheduleNames().begin(), scheduleNames().end(), "knight") == scheduleNames().end())
        QSKIP("the schedule model has no knight schedule");
    ScheduleView view;
    QVERIFY(view.configure("knight", "floyd-steinberg", 40, 12));
    const QVector<double> p = view.plottedParallelism();
    QVERIFY(p.size() >= 8);
    const QVector<double> ramp = {1, 1, 2, 2, 3, 3, 4, 4};
    QCOMPARE(p.mid(0, 8), ramp);
}

void TestStudioScheduleView::playStepScrub() {
    ScheduleView view;
    QVERIFY(view.configure(QString::fromStdString(scheduleNames().front()), "floyd-steinberg", 6, 4));
    const int steps = view.schedule().steps;
    QVERIFY(steps > 1);
    QCOMPARE(view.currentStep(), 0);
    view.stepForward();
    QCOMPARE(view.currentStep(), 1);
    view.stepBack();
    view.stepBack();
    QCOMPARE(view.currentStep(), 0);  // clamps at the first step
    view.setCurrentStep(steps + 10);
    QCOMPARE(view.currentStep(), steps - 1);  // and at the last
    auto* scrub = view.findChild<QSlider*>("scrub");
    QVERIFY(scrub);
    scrub->setValue(2);
    QCOMPARE(view.currentStep(), 2);
    view.setCurrentStep(0);
    view.play();
    QTRY_VERIFY_WITH_TIMEOUT(view.currentStep() >= 2, 5000);
    view.pause();
    const int at = view.currentStep();
    // paused: a timer of the animation's interval (250 ms) fires twice, the view does not step
    QTimer reference;
    QSignalSpy fired(&reference, &QTimer::timeout);
    reference.start(250);
    QVERIFY(fired.wait(5000));
    QVERIFY(fired.wait(5000));
    QCOMPARE(view.currentStep(), at);
}

namespace {

QLabel* buddyLabel(QWidget* root, QWidget* buddy) {
    for (QLabel* l : root->findChildren<QLabel*>())
        if (l->buddy() == buddy) return l;
    return nullptr;
}

bool allIntegers(const QVector<double>& ticks) {
    for (double t : ticks)
        if (std::abs(t - std::round(t)) > 1e-9) return false;
    return true;
}

}  // namespace

void TestStudioScheduleView::defaultsShowEverySchedule() {
    // Chosen in the list as a user would, at the view's default grid and block sizes: several steps,
    // several distinct step numbers on the grid, a chart that counts every unit once.
    for (const std::string& name : scheduleNames()) {
        ScheduleView view;
        auto* combo = view.findChild<QComboBox*>("schedule");
        QVERIFY(combo);
        combo->setCurrentText(QString::fromStdString(name));
        QCOMPARE(combo->currentText(), QString::fromStdString(name));
        QVERIFY2(view.valid(), qPrintable(view.errorText()));
        const Schedule& s = view.schedule();
        QVERIFY2(s.steps > 1, name.c_str());
        std::set<int32_t> distinct;
        for (int y = 0; y < s.height; ++y)
            for (int x = 0; x < s.width; ++x) distinct.insert(s.pixelStep.at(y, x));
        QVERIFY2(distinct.size() > 1, name.c_str());
        const QVector<double> plotted = view.plottedParallelism();
        QCOMPARE(plotted.size(), s.steps);
        double sum = 0;
        for (double v : plotted) sum += v;
        QCOMPARE(sum, double(s.units));
        if (!s.unitStep.empty()) QVERIFY2(s.units > 2, name.c_str());
        // the model with the view's options gives the same schedule
        Schedule model;
        QVERIFY(makeSchedule(name, s.width, s.height, *findKernel("floyd-steinberg"), view.options(), model).isOk());
        QVERIFY(model.pixelStep == s.pixelStep);
    }
}

void TestStudioScheduleView::integerTicks_data() {
    test::columns<QString, int, int>("schedule", "w", "h");
    for (const std::string& name : scheduleNames())
        for (QSize sz : {QSize(24, 12), QSize(1, 1), QSize(3, 2), QSize(97, 61)})
            QTest::addRow("%s %dx%d", name.c_str(), sz.width(), sz.height())
                << QString::fromStdString(name) << sz.width() << sz.height();
}

void TestStudioScheduleView::integerTicks() {
    QFETCH(QString, schedule);
    QFETCH(int, w);
    QFETCH(int, h);
    ScheduleView view;
    QVERIFY(view.configure(schedule, "floyd-steinberg", w, h));
    view.resize(900, 600);
    view.plot()->replot();
    const QVector<double> x = view.plot()->xAxis->tickVector(), y = view.plot()->yAxis->tickVector();
    QVERIFY(!y.isEmpty());
    QVERIFY2(allIntegers(x), qPrintable(QString("step ticks %1")
                                            .arg(QStringList([&] {
                                                     QStringList l;
                                                     for (double v : x) l << QString::number(v);
                                                     return l;
                                                 }())
                                                     .join(' '))));
    QVERIFY2(allIntegers(y), qPrintable(QString("unit ticks %1")
                                            .arg(QStringList([&] {
                                                     QStringList l;
                                                     for (double v : y) l << QString::number(v);
                                                     return l;
                                                 }())
                                                     .join(' '))));
    QVERIFY(!view.plot()->yAxis->subTicks());  // no marks between whole numbers either
}

void TestStudioScheduleView::gridSizeIsLabelled() {
    ScheduleView view;
    for (const char* name : {"gridWidth", "gridHeight", "blockWidth", "blockHeight", "delay"}) {
        auto* spin = view.findChild<QSpinBox*>(name);
        QVERIFY2(spin, name);
        QLabel* l = buddyLabel(&view, spin);
        QVERIFY2(l, name);
        const QString text = l->text().remove('&').toLower();
        const QString want = QString(name).contains("Width")    ? "width"
                             : QString(name).contains("Height") ? "height"
                                                                : "delay";
        QVERIFY2(text.contains(want), qPrintable(name + QString(": ") + text));
    }
}

void TestStudioScheduleView::stencilCaptionFits() {
    ScheduleView view;
    auto* caption = view.findChild<QLabel*>("stencilCaption");
    QVERIFY(caption);
    QVERIFY(caption->wordWrap());
    for (QSize size : {QSize(1400, 900), QSize(900, 620)}) {
        view.resize(size);
        view.show();
        QVERIFY(QTest::qWaitForWindowExposed(&view));
        for (const Kernel& k : kernels()) {
            QVERIFY(view.configure("knight", QString::fromStdString(k.name), 24, 12));
            QCoreApplication::processEvents();
            view.layout()->activate();
            QVERIFY(!caption->text().isEmpty());
            QVERIFY(caption->text().contains(QString::number(k.minimalDelay())));
            // the whole wrapped caption fits in the height it was given
            QVERIFY2(caption->height() >= caption->heightForWidth(caption->width()),
                     qPrintable(QString("%1 at %2x%3: %4 < %5")
                                    .arg(QString::fromStdString(k.name))
                                    .arg(size.width())
                                    .arg(size.height())
                                    .arg(caption->height())
                                    .arg(caption->heightForWidth(caption->width()))));
            QVERIFY(caption->isVisible());
        }
    }
}

void TestStudioScheduleView::delayNoteNamesTheDifference() {
    ScheduleView view;
    QVERIFY(view.configure("k-delay", "floyd-steinberg", 24, 12));
    QString note = view.delayNote();
    QVERIFY2(note.contains("2i + j"), qPrintable(note));
    QVERIFY2(note.contains("same schedule"), qPrintable(note));
    QVERIFY2(note.contains("k = 3"), qPrintable(note));  // pushing errors: the 3-delay of Kasagi, Nakano and Ito
    Schedule knight;
    QVERIFY(makeSchedule("knight", 24, 12, *findKernel("floyd-steinberg"), {}, knight).isOk());
    QCOMPARE(view.schedule().steps, knight.steps);
    // a larger k: k-delay takes (k - 2)(h - 1) more steps, and the note says how many
    QVERIFY(view.setBlockOptions(0, 0, 4));
    QCOMPARE(view.schedule().steps, knight.steps + 2 * 11);
    note = view.delayNote();
    QVERIFY2(note.contains("22 more steps"), qPrintable(note));
    // another kernel: its own smallest delay and its own conflict-free one
    QVERIFY(view.setBlockOptions(0, 0, 0));
    QVERIFY(view.configure("k-delay", "jarvis", 24, 12));
    note = view.delayNote();
    QVERIFY2(note.contains("3i + j"), qPrintable(note));
    QVERIFY2(note.contains(QString("k = %1").arg(conflictFreeDelay(*findKernel("jarvis")))), qPrintable(note));
    QVERIFY(note.contains("Jarvis"));
}

void TestStudioScheduleView::conflictFreeDelayHasNoCollisions() {
    // Brute force on a grid: at k = conflictFreeDelay() no receiver gets two errors in one step; at the
    // k below it (if still a valid delay) some receiver does.
    auto collides = [](const Kernel& k, int delay) {
        const int w = 40, h = 12;
        std::map<std::tuple<int, int, int>, int> writes;  // (step, ri, rj) -> count
        for (int i = 0; i < h; ++i)
            for (int j = 0; j < w; ++j)
                for (const Tap& t : k.taps) {
                    const int ri = i + t.di, rj = j + t.dj;
                    if (ri >= h || rj < 0 || rj >= w) continue;
                    if (++writes[{delay * i + j, ri, rj}] > 1) return true;
                }
        return false;
    };
    for (const Kernel& k : kernels()) {
        const int c = conflictFreeDelay(k);
        QVERIFY2(c >= k.minimalDelay(), k.name.c_str());
        QVERIFY2(!collides(k, c), k.name.c_str());
        if (c - 1 >= k.minimalDelay()) QVERIFY2(collides(k, c - 1), k.name.c_str());
    }
    QCOMPARE(conflictFreeDelay(*findKernel("floyd-steinberg")), 3);
}

void TestStudioScheduleView::followsTheMethodOnItsDevice() {
    // Picking ec/wavefront shows the schedule that runs: the SIMD bands on the CPU, the GPU kernel's strips on the GPU
    // (its fast form for binary Floyd-Steinberg, the general form otherwise), in the view alone and in the window.
    test::startStudioTest("test_studio_scheduleview");
    Registry& r = Registry::instance();
    const MethodInfo* m = r.find("ec", "wavefront");
    QVERIFY(m);
    if (!m->gpu) QSKIP("this build has no GPU path for ec/wavefront");
    QCOMPARE(m->scheduleOn(Device::Cpu), std::string("wavefront"));
    QCOMPARE(m->scheduleOn(Device::Gpu), std::string("gpu-wavefront"));
    QCOMPARE(r.find("ec", "rc")->scheduleOn(Device::Gpu), std::string("gpu-wavefront"));  // the same kernel runs
    // a usable GPU for the length of the test (the schedule shown does not need one to run)
    const GpuAvailability saved = r.gpuAvailability();
    GpuAvailability usable;
    usable.usable = true;
    usable.deviceName = "test device";
    r.setGpuAvailability(usable);
    auto restore = qScopeGuard([&] { r.setGpuAvailability(saved); });

    ScheduleView view;
    ParamValues v;
    v.set("kernel", std::string("floyd-steinberg"));
    v.set("levels", int64_t(2));
    QVERIFY(view.showMethod(*m, Device::Gpu, v));
    QCOMPARE(view.schedule().name, std::string("gpu-wavefront"));
    QCOMPARE(view.findChild<QComboBox*>("schedule")->currentText(), QString("gpu-wavefront"));
    QVERIFY2(QString::fromStdString(view.schedule().description).contains("fast form"),
             view.schedule().description.c_str());
    Schedule model;
    QVERIFY(makeSchedule("gpu-wavefront", view.schedule().width, view.schedule().height, *findKernel("floyd-steinberg"),
                         view.options(), model)
                .isOk());
    QVERIFY(model.pixelStep == view.schedule().pixelStep);
    QVERIFY(view.schedule().units > 2);  // several strips and groups on the default grid
    // the info line names the kernel's own strips: 32 rows in groups of 16 steps
    QVERIFY2(view.findChild<QLabel*>("scheduleInfo")->text().contains("16 x 32"),
             qPrintable(view.findChild<QLabel*>("scheduleInfo")->text()));

    v.set("levels", int64_t(4));  // more levels: the general form
    QVERIFY(view.showMethod(*m, std::nullopt, v));
    QCOMPARE(view.levels(), 4);
    QCOMPARE(view.schedule().name, std::string("gpu-wavefront"));
    QVERIFY2(QString::fromStdString(view.schedule().description).contains("general form"),
             view.schedule().description.c_str());
    QVERIFY(view.showMethod(*m, Device::Cpu, v));
    QCOMPARE(view.schedule().name, std::string("wavefront"));
    // without a usable GPU the run falls back to the CPU, and so does the view
    r.setGpuAvailability(saved);
    if (!saved.usable) {
        QVERIFY(view.showMethod(*m, Device::Gpu, v));
        QCOMPARE(view.schedule().name, std::string("wavefront"));
        r.setGpuAvailability(usable);
    }

    // The window: choosing the method and the device in the panel is enough.
    r.setGpuAvailability(usable);
    MainWindow w(r);
    MethodPanel* panel = w.findChild<MethodPanel*>();
    QVERIFY(panel);
    QVERIFY(panel->setMethod("ec", "wavefront"));
    panel->setDevice(Device::Gpu);
    QTRY_COMPARE(w.scheduleView()->schedule().name, std::string("gpu-wavefront"));
    panel->setDevice(Device::Cpu);
    QTRY_COMPARE(w.scheduleView()->schedule().name, std::string("wavefront"));
}

void TestStudioScheduleView::dotDiffusionShowsItsClassOrder() {
    // Picking dot diffusion shows its class order (Knuth 1987): a step per class, each cell at the step of its class,
    // and no kernel stencil or kernel choice, since the class matrix alone says which pixels a pixel waits for.
    const MethodInfo* m = Registry::instance().find("dot", "knuth");
    QVERIFY(m);
    ParamValues v;
    QVERIFY(Registry::instance().resolveParams(*m, v).isOk());
    ScheduleView view;
    QVERIFY(view.showMethod(*m, Device::Cpu, v));
    QCOMPARE(view.schedule().name, std::string("dot-knuth"));
    QCOMPARE(view.schedule().steps, 64);
    const Schedule& s = view.schedule();
    QVERIFY(s.classMatrix);
    for (int y = 0; y < s.height; ++y)
        for (int x = 0; x < s.width; ++x) QCOMPARE(s.pixelStep.at(y, x), s.classMatrix->classAt(y, x));
    QVERIFY2(view.stencilCaption().contains("class matrix"), qPrintable(view.stencilCaption()));
    QVERIFY(view.delayNote().isEmpty());
    auto* kernel = view.findChild<QComboBox*>("kernel");
    QVERIFY(kernel);
    QVERIFY(!kernel->isEnabled());
    // Back to error diffusion: the kernel matters again.
    QVERIFY(view.configure("knight", "floyd-steinberg", 12, 6));
    QVERIFY(kernel->isEnabled());
    QVERIFY(!view.delayNote().isEmpty());
}

QTEST_MAIN(TestStudioScheduleView)
#include "test_studio_scheduleview.moc"
