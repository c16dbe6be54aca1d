// The Lesson tab: the numbers it shows are the engine's, play/pause/step/speed answer buttons and keys, two schedules
// side by side show the model's step counts and the proof, the race demo differs where it must, and the numbers stay
// readable at small window sizes. Exports write one frame per step and a PDF handout.
#include <QCheckBox>
#include <QComboBox>
#include <QFontDatabase>
#include <QLabel>
#include <QToolButton>
#include <QRegularExpression>
#include <QTemporaryDir>
#include <QTextBrowser>
#include <QtTest>

#include "core/ed/errordiffusion.h"
#include "core/ed/quantizer.h"
#include "core/schedule/lesson.h"
#include "tests/common/qtestutil.h"
#include "widgets/lessonview.h"
#include "widgets/mainwindow.h"

using namespace halftone;

class TestStudioLesson : public QObject {
    Q_OBJECT
private slots:
    void numbersShownAreTheEngines_data();
    void numbersShownAreTheEngines();
    void playPauseStepSpeedKeys();
    void doesNotWidenTheWindow();
    void sideBySideShowsTheModel();
    void raceDiffersWhereItMust();
    void readableAtSmallSizes_data();
    void readableAtSmallSizes();
    void exports();
    void loadedImageIsCropped();
    void specSetsTheLesson();
};

void TestStudioLesson::numbersShownAreTheEngines_data() {
    test::columns<QString, QString>("schedule", "kernel");
    QTest::newRow("raster/fs") << "raster"
                               << "floyd-steinberg";
    QTest::newRow("knight/fs") << "knight"
                               << "floyd-steinberg";
    QTest::newRow("trapezoid/jarvis") << "trapezoid"
                                      << "jarvis";
    QTest::newRow("serpentine/stucki") << "serpentine"
                                       << "stucki";
    QTest::newRow("dot-knuth") << "dot-knuth"
                               << "floyd-steinberg";
    QTest::newRow("hilbert") << "hilbert"
                             << "floyd-steinberg";
}

void TestStudioLesson::numbersShownAreTheEngines() {
    QFETCH(QString, schedule);
    QFETCH(QString, kernel);
    LessonView v;
    v.resize(1400, 900);
    QVERIFY2(v.configure(schedule, kernel, 9, 7), qPrintable(v.errorText()));
    const LessonTrace& t = v.trace();
    QVERIFY(t.proved());
    if (schedule == "raster" || schedule == "knight" || schedule == "trapezoid" || schedule == "serpentine") {
        EdParams ep;
        ep.kernel = kernel.toStdString();
        ep.serpentine = schedule == "serpentine";
        QCOMPARE(t.output.data, referenceErrorDiffusion(lessonRamp(9, 7), ep).data);
    }
    // every pixel, selected: the panel shows its input, its S, its output and its error as the engine computed them
    const Quantizer q(2, false);
    for (int i = 0; i < 7; ++i)
        for (int j = 0; j < 9; ++j) {
            const LessonPixel& p = t.at(i, j);
            v.setStep(p.step);
            v.selectPixel(i, j);
            const QString text = v.arithmeticText();
            auto num = [](int64_t x) { return x < 0 ? QString("\u2212%1").arg(-x) : QString::number(x); };
            QVERIFY2(text.contains(QString("(%1, %2) input a = %3").arg(i).arg(j).arg(p.input)), qPrintable(text));
            QVERIFY2(text.contains(QString("= %1").arg(num(p.total))), qPrintable(text));
            QVERIFY(text.contains(QString("output %1 (level %2, Q = %3)").arg(p.output).arg(p.level).arg(p.target)));
            QVERIFY(text.contains(QString("= %1").arg(num(p.error))));
            QCOMPARE(p.output, t.sequential.at(i, j));
            QCOMPARE(p.target, q.targets()[size_t(p.level)]);
            for (const LessonShare& s : p.collected)
                QVERIFY(text.contains(QString("%1/%2").arg(s.numerator).arg(s.denominator)));
        }
    // the kernel's fractions for Floyd-Steinberg in raster order: (1, 1) collects 7/16, 3/16, 5/16 and 1/16
    if (schedule == "raster" && kernel == "floyd-steinberg") {
        v.selectPixel(1, 1);
        const QString text = v.arithmeticText();
        for (const char* f :
             {"7/16 \u00d7 E(1, 0)", "1/16 \u00d7 E(0, 0)", "5/16 \u00d7 E(0, 1)", "3/16 \u00d7 E(0, 2)"})
            QVERIFY2(text.contains(QString::fromUtf8(f)), qPrintable(text));
    }
}

void TestStudioLesson::playPauseStepSpeedKeys() {
    LessonView v;
    v.resize(1000, 700);
    QVERIFY(v.configure("knight", "floyd-steinberg", 8, 6));
    QCOMPARE(v.stepCount(), std::max(8 + 2 * 5, v.compareTrace().steps()));
    QCOMPARE(v.step(), 0);
    QTest::keyClick(&v, Qt::Key_Right);
    QTest::keyClick(&v, Qt::Key_Right);
    QCOMPARE(v.step(), 2);
    QTest::keyClick(&v, Qt::Key_Left);
    QCOMPARE(v.step(), 1);
    QTest::keyClick(&v, Qt::Key_End);
    QCOMPARE(v.step(), v.stepCount() - 1);
    QTest::keyClick(&v, Qt::Key_Home);
    QCOMPARE(v.step(), 0);
    QTest::keyClick(&v, Qt::Key_Left);
    QCOMPARE(v.step(), 0);
    v.findChild<QToolButton*>("forward")->click();
    QCOMPARE(v.step(), 1);
    v.findChild<QToolButton*>("back")->click();
    QCOMPARE(v.step(), 0);
    const int slow = v.intervalMs();
    QTest::keyClick(&v, Qt::Key_Plus);
    QVERIFY(v.intervalMs() < slow);
    v.findChild<QToolButton*>("slower")->click();
    QCOMPARE(v.intervalMs(), slow);
    QVERIFY(v.findChild<QLabel*>("speed")->text().contains("s/step"));
    for (int i = 0; i < 6; ++i) v.faster();
    QTest::keyClick(&v, Qt::Key_Space);
    QVERIFY(v.playing());
    QCOMPARE(v.findChild<QToolButton*>("play")->text(), QString("Pause"));
    QTRY_VERIFY_WITH_TIMEOUT(v.step() >= 3, 5000);
    QTest::keyClick(&v, Qt::Key_Space);
    QVERIFY(!v.playing());
    const int stopped = v.step();
    QTest::qWait(3 * v.intervalMs());
    QCOMPARE(v.step(), stopped);
    // playing runs to the end and stops there
    v.play();
    QTRY_VERIFY_WITH_TIMEOUT(!v.playing(), 10000);
    QCOMPARE(v.step(), v.stepCount() - 1);
    QVERIFY(v.findChild<QLabel*>("stepLabel")->text().contains(QString::number(v.stepCount())));
}

void TestStudioLesson::doesNotWidenTheWindow() {
    // the tab shares the window with the others: its smallest size must leave room for the side panels of a
    // 1200 x 800 window, whatever schedule names its lists hold
    LessonView v;
    QVERIFY(v.minimumSizeHint().width() <= 640);
    QVERIFY(v.minimumSizeHint().height() <= 480);
}

void TestStudioLesson::sideBySideShowsTheModel() {
    LessonView v;
    v.resize(1400, 900);
    v.show();
    QVERIFY(QTest::qWaitForWindowExposed(&v));
    const int w = 12, h = 8;
    for (const std::string& name : scheduleNames()) {
        QVERIFY(v.configure("raster", "floyd-steinberg", w, h));
        QVERIFY2(v.setCompareSchedule(QString::fromStdString(name)), name.c_str());
        const LessonTrace& c = v.compareTrace();
        QVERIFY(c.proved());
        // the model's schedule, step for step
        Schedule s;
        ScheduleOptions o;
        std::tie(o.blockWidth, o.blockHeight) = lessonBlockSize(name);
        o.threads = kLessonThreads;
        QVERIFY(makeSchedule(name, w, h, *findKernel("floyd-steinberg"), o, s).isOk());
        QCOMPARE(c.schedule.pixelStep.data, s.pixelStep.data);
        QCOMPARE(c.schedule.parallelism, s.parallelism);
        const QString stats = v.statsText(1);
        QVERIFY2(stats.contains(QString("%1 steps").arg(s.steps)), qPrintable(stats));
        QVERIFY(stats.contains(QString("critical path %1").arg(c.stats.criticalPath)));
        QVERIFY(stats.contains("Proof: the final image equals the sequential one bit for bit"));
        QCOMPARE(v.findChild<QLabel*>("compareStats")->text(), stats);
    }
    QVERIFY(v.setCompareSchedule("knight"));
    QVERIFY(v.statsText(1).startsWith(QString("%1 steps").arg(w + 2 * (h - 1))));
    QVERIFY(v.statsText(0).startsWith(QString("%1 steps").arg(w * h)));
    // arrows: every pixel of a knight step gets one arrow from each of its sources inside the image
    v.setStep(10);
    int expected = 0;
    const LessonTrace& c = v.compareTrace();
    for (size_t i = c.stepBegin[10]; i < c.stepBegin[11]; ++i) expected += int(c.pixels[i].collected.size());
    QCOMPARE(v.grid(1)->arrows().size(), expected);
    for (const LessonGrid::Arrow& a : v.grid(1)->arrows()) {
        QVERIFY(!a.early);
        QVERIFY(c.at(a.from.y(), a.from.x()).step < c.at(a.to.y(), a.to.x()).step);
    }
}

void TestStudioLesson::raceDiffersWhereItMust() {
    LessonView v;
    v.resize(1400, 900);
    QVERIFY(!v.configure("rows", "floyd-steinberg", 16, 10, false));
    QVERIFY(v.errorText().contains("race"));
    QVERIFY(v.arithmeticText().contains("race"));
    QVERIFY(v.configure("rows", "floyd-steinberg", 16, 10, true));
    QVERIFY(v.trace().earlyReads > 0);
    QVERIFY(!v.trace().proved());
    QVERIFY(v.statsText(0).contains("early read"));
    QVERIFY(v.statsText(0).contains("differ from the sequential result"));
    // the pixels that read early are shown in red, with the pixel that had not written yet
    v.setStep(1);
    v.selectPixel(1, 5);
    QVERIFY2(v.arithmeticText().contains("read before (1, 4) wrote it (step 1)"), qPrintable(v.arithmeticText()));
    bool redArrow = false;
    for (const LessonGrid::Arrow& a : v.grid(0)->arrows()) redArrow = redArrow || a.early;
    QVERIFY(redArrow);
    // 2-delay races for Jarvis, which reaches two columns left on the next row, and not for Floyd-Steinberg
    QVERIFY(v.configure("2-delay", "jarvis", 16, 10, true));
    QVERIFY(v.trace().earlyReads > 0);
    QVERIFY(!v.trace().proved());
    QVERIFY(v.configure("2-delay", "floyd-steinberg", 16, 10, true));
    QCOMPARE(v.trace().earlyReads, int64_t(0));
    QVERIFY(v.trace().proved());
    QVERIFY(v.statsText(0).contains("Proof"));
    // the comparison side, an exact schedule, runs as a race without an early read
    QVERIFY(v.setCompareSchedule("knight"));
    QVERIFY(v.compareTrace().race);
    QCOMPARE(v.compareTrace().earlyReads, int64_t(0));
}

void TestStudioLesson::readableAtSmallSizes_data() { test::sizeRows({{800, 500}, {1400, 900}, {2400, 1500}}); }

void TestStudioLesson::readableAtSmallSizes() {
    QFETCH(int, w);
    QFETCH(int, h);
    LessonView v;
    v.resize(w, h);
    v.show();
    QVERIFY(QTest::qWaitForWindowExposed(&v));
    QVERIFY(v.configure("knight", "floyd-steinberg", 12, 8));
    v.setStep(6);
    // the arithmetic panel keeps the application's font and room for several lines at any size
    QTextBrowser* panel = v.arithmeticPanel();
    QVERIFY(panel->font().pointSizeF() >= QApplication::font().pointSizeF());
    QVERIFY(panel->viewport()->height() >= 4 * panel->fontMetrics().lineSpacing());
    QVERIFY(panel->viewport()->width() >= 30 * panel->fontMetrics().averageCharWidth());
    // the step label is not cut off
    QLabel* step = v.findChild<QLabel*>("stepLabel");
    QVERIFY(step->width() >= step->fontMetrics().horizontalAdvance(step->text()));
    // numbers in the cells: large enough to read, or left to the panel
    const int px = v.grid(0)->numberPixelSize();
    QVERIFY(px == 0 || px >= 8);
    if (w >= 1400) QVERIFY(px >= 8);
    if (px > 0) {
        QFont f = QFontDatabase::systemFont(QFontDatabase::FixedFont);
        f.setPixelSize(px);
        QVERIFY(QFontMetrics(f).horizontalAdvance(QStringLiteral("\u22124080")) <= v.grid(0)->cellRect(0, 0).width());
    }
}

void TestStudioLesson::exports() {
    QTemporaryDir dir;
    LessonView v;
    QVERIFY(v.configure("knight", "floyd-steinberg", 6, 4));
    QVERIFY(v.exportAnimation(dir.filePath("a.gif")).isOk());
    QVERIFY(QFileInfo(dir.filePath("a.gif")).size() > 0);
    QVERIFY(!v.exportAnimation(dir.filePath("a.bmp")).isOk());
    QVERIFY(!QFile::exists(dir.filePath("a.bmp")));
    v.setStep(3);
    QVERIFY(v.exportHandout(dir.filePath("h.pdf"), 2, 5).isOk());
    QFile pdf(dir.filePath("h.pdf"));
    QVERIFY(pdf.open(QIODevice::ReadOnly));
    const QByteArray bytes = pdf.readAll();
    QVERIFY(bytes.startsWith("%PDF"));
    QCOMPARE(QString::fromLatin1(bytes).count(QRegularExpression("/Type\\s*/Page(?!s)")), 4);
    QCOMPARE(v.step(), 3);
    QVERIFY(!v.exportHandout(dir.filePath("bad.pdf"), 5, 200).isOk());
}

void TestStudioLesson::loadedImageIsCropped() {
    MainWindow w(Registry::instance());
    Image im = Image::gray(test::randomPlane(100, 80, test::freshSeed("lesson image")));
    QSignalSpy shown(&w, &MainWindow::resultShown);
    w.setImage(im, "random");
    QVERIFY(shown.wait(20000));
    LessonView* v = w.lessonView();
    QVERIFY(v);
    v->useLoadedImage(true);
    QVERIFY(v->configure("knight", "floyd-steinberg", 10, 6));
    QCOMPARE(v->trace().input.data, lessonCrop(im.channels[0], 10, 6).data);
    v->useLoadedImage(false);
    QCOMPARE(v->trace().input.data, lessonRamp(10, 6).data);
}

void TestStudioLesson::specSetsTheLesson() {
    LessonView v;
    QVERIFY(v.applySpec("rows,knight,kernel=jarvis,size=16x10,step=3,race").isOk());
    QCOMPARE(QString::fromStdString(v.trace().schedule.name), QString("rows"));
    QCOMPARE(QString::fromStdString(v.compareTrace().schedule.name), QString("knight"));
    QCOMPARE(v.trace().kernel, std::string("jarvis"));
    QCOMPARE(v.trace().output.width, 16);
    QVERIFY(v.trace().race);
    QCOMPARE(v.step(), 3);
    for (const char* bad :
         {"spiral", "knight,size=40x4", "knight,kernel=nope", "rows", "knight,levels=1", "knight,x=1"})
        QVERIFY2(!v.applySpec(bad).isOk(), bad);
}

QTEST_MAIN(TestStudioLesson)
#include "test_studio_lesson.moc"
