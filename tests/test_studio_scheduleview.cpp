// The scheduling view shows core's schedule model and nothing else: its grid steps and its
// parallelism plot equal makeSchedule() for every schedule, kernel and awkward grid size.
#include <QtTest>
#include <qcustomplot.h>

#include "core/schedule.h"
#include "widgets/scheduleview.h"

using namespace halftone;

class TestStudioScheduleView : public QObject {
    Q_OBJECT
private slots:
    void stepsMatchModel_data();
    void stepsMatchModel();
    void knightRamp();
    void playStepScrub();
};

void TestStudioScheduleView::stepsMatchModel_data() {
    QTest::addColumn<QString>("schedule");
    QTest::addColumn<QString>("kernel");
    QTest::addColumn<int>("w");
    QTest::addColumn<int>("h");
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
    const Status s = makeSchedule(schedule.toStdString(), w, h, *findKernel(kernel.toStdString()), {}, model);
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
    // Seed 002: the knight's-move order on Floyd-Steinberg runs 1,1,2,2,3,3,... pixels per step.
    if (!scheduleNames().empty() && std::find(scheduleNames().begin(), scheduleNames().end(), "knight") == scheduleNames().end())
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
    QTest::qWait(600);
    QCOMPARE(view.currentStep(), at);
}

QTEST_MAIN(TestStudioScheduleView)
#include "test_studio_scheduleview.moc"
