// The lesson trace: under every exact schedule its output equals the engines' bit for bit and every number it shows
// follows docs/spec.md; the naive parallel orders race where they must; step counts follow the schedules' formulas.
#include <QtTest>

#include "core/ed/dotdiffusion.h"
#include "core/ed/errordiffusion.h"
#include "core/ed/quantizer.h"
#include "core/ed/riemersma.h"
#include "core/job/registry.h"
#include "core/schedule/lesson.h"
#include "tests/common/qtestutil.h"

using namespace halftone;

class TestLesson : public QObject {
    Q_OBJECT
private slots:
    void traceEqualsEngines_data();
    void traceEqualsEngines();
    void numbersFollowTheSpec();
    void stepCounts_data();
    void stepCounts();
    void racesDifferWhereTheyMust_data();
    void racesDifferWhereTheyMust();
    void raceNeedsToBeAsked();
    void badInput();
    void framesShowTheSteps();
};

namespace {

Status trace(const Plane8& src, const QString& schedule, const QString& kernel, int levels, bool race,
             LessonTrace& out) {
    LessonOptions o;
    o.schedule = schedule.toStdString();
    o.kernel = kernel.toStdString();
    o.levels = levels;
    o.race = race;
    return traceLesson(src, o, out);
}

}  // namespace

void TestLesson::traceEqualsEngines_data() {
    test::columns<QString, QString, int, int, int>("schedule", "kernel", "levels", "w", "h");
    const QList<QPair<int, int>> sizes = {{1, 1}, {1, 9}, {9, 1}, {2, 2}, {7, 5}, {13, 11}, {32, 32}};
    for (const std::string& s : scheduleNames())
        for (const char* k : {"floyd-steinberg", "jarvis", "stucki", "atkinson", "ostromoukhov", "zhou-fang"}) {
            const bool kernelFree = s == "hilbert" || s.rfind("dot-", 0) == 0;
            if (kernelFree && std::string(k) != "floyd-steinberg") continue;
            for (int levels : {2, 3})
                for (const auto& sz : sizes)
                    QTest::addRow("%s/%s/L%d/%dx%d", s.c_str(), k, levels, sz.first, sz.second)
                        << QString::fromStdString(s) << k << levels << sz.first << sz.second;
        }
}

void TestLesson::traceEqualsEngines() {
    QFETCH(QString, schedule);
    QFETCH(QString, kernel);
    QFETCH(int, levels);
    QFETCH(int, w);
    QFETCH(int, h);
    const Plane8 src = test::randomPlane(w, h, test::freshSeed("lesson"));
    for (bool race : {false, true}) {
        LessonTrace t;
        const Status s = trace(src, schedule, kernel, levels, race, t);
        QVERIFY2(s.isOk(), s.message().c_str());
        QCOMPARE(t.earlyReads, int64_t(0));
        QVERIFY(t.proved());
        QCOMPARE(int64_t(t.pixels.size()), int64_t(w) * h);
        // the sequential engine of the arithmetic, run here
        Plane8 expected;
        if (schedule == "hilbert") {
            RiemersmaParams rp;
            rp.levels = levels;
            QVERIFY(riemersmaDither(src, expected, rp, {}).isOk());
        } else if (schedule.startsWith("dot-")) {
            DotParams dp;
            dp.matrix = schedule.mid(4).toStdString();
            dp.levels = levels;
            QVERIFY(dotDiffuse(src, expected, dp).isOk());
        } else {
            EdParams ep;
            ep.kernel = kernel.toStdString();
            ep.levels = levels;
            ep.serpentine = schedule == "serpentine";
            QVERIFY(errorDiffuse(src, expected, ep, EdVariant::DiffusionRegisters).isOk());
        }
        QCOMPARE(t.output.data, expected.data);
        QCOMPARE(t.sequential.data, expected.data);
    }
    // and every CPU method of the registry that runs this schedule
    int engines = 0;
    for (const MethodInfo& m : Registry::instance().methods()) {
        if (m.schedule != schedule.toStdString() || !m.cpu || m.fixedPalette) continue;
        if (!m.param("kernel") && kernel != "floyd-steinberg") continue;
        RunRequest req;
        req.method = &m;
        req.color = ColorMode::Gray;
        if (m.param("kernel")) req.params.set("kernel", kernel.toStdString());
        if (m.param("levels")) req.params.set("levels", int64_t(levels));
        if (m.param("serpentine")) req.params.set("serpentine", schedule == "serpentine");
        RunResult res;
        const Status st = runImage(Image::gray(src), req, res);
        QVERIFY2(st.isOk(), st.message().c_str());
        LessonTrace t;
        QVERIFY(trace(src, schedule, kernel, levels, false, t).isOk());
        QVERIFY2(res.image.channels[0].data == t.output.data, (m.family + "/" + m.variant).c_str());
        ++engines;
    }
    if (engines) qInfo("%d registry engine(s) agree", engines);
}

void TestLesson::numbersFollowTheSpec() {
    // A 4 x 3 ramp under Floyd-Steinberg: every pixel's sum, rounding, level and error as docs/spec.md section 1
    // writes them, its shares the kernel's fractions, and what it sends is what its receivers collect.
    const Plane8 src = lessonRamp(4, 3);
    LessonTrace t;
    QVERIFY(trace(src, "knight", "floyd-steinberg", 2, false, t).isOk());
    const Quantizer q(2, false);
    const LessonPixel& a = t.at(0, 0);
    QCOMPARE(a.collected.size(), size_t(0));
    QCOMPARE(a.scaled, 0);
    QCOMPARE(a.error, 0);
    const LessonPixel& b = t.at(0, 1);  // input 85: A = 1360
    QCOMPARE(int(b.input), 85);
    QCOMPARE(b.scaled, 1360);
    QCOMPARE(b.collected.size(), size_t(1));
    QCOMPARE(b.collected[0].numerator, 7);
    QCOMPARE(b.collected[0].denominator, 16);
    QCOMPARE(b.total, 1360);
    QCOMPARE(b.output, uint8_t(0));
    QCOMPARE(b.error, 1360);
    const LessonPixel& c = t.at(0, 2);  // 2720 + floor((7 * 1360 + 8) / 16) = 2720 + 595 = 3315 -> 255, E = -765
    QCOMPARE(c.correction, 595);
    QCOMPARE(c.total, 3315);
    QCOMPARE(c.output, uint8_t(255));
    QCOMPARE(c.error, 3315 - 4080);
    int64_t sent = 0, collected = 0;
    for (const LessonPixel& p : t.pixels) {
        int32_t sum = 0;
        for (const LessonShare& s : p.collected) {
            QCOMPARE(s.error, t.at(s.row, s.col).error);
            QCOMPARE(s.term, s.numerator * s.error);
            sum += s.term;
            QVERIFY(t.at(s.row, s.col).step < p.step);
        }
        QCOMPARE(p.sum, sum);
        QCOMPARE(p.correction, floorDiv(sum + 8, 16));
        QCOMPARE(p.total, p.scaled + p.correction);
        QCOMPARE(p.level, q.level(p.total));
        QCOMPARE(p.error, p.total - q.targets()[size_t(p.level)]);
        for (const LessonShare& s : p.sent) QCOMPARE(s.error, p.error);
        sent += int64_t(p.sent.size());
        collected += int64_t(p.collected.size());
    }
    QCOMPARE(sent, collected);
    // Dot diffusion: each share rounded on its own (docs/spec.md section 7's worked example).
    QVERIFY(trace(Plane8(3, 3, 100), "dot-knuth", "floyd-steinberg", 2, false, t).isOk());
    QCOMPARE(t.at(0, 1).total, 2573);
    QCOMPARE(t.at(0, 1).output, uint8_t(255));
}

void TestLesson::stepCounts_data() { test::sizeRows({{1, 1}, {2, 2}, {5, 3}, {16, 9}, {32, 32}, {3, 17}}); }

void TestLesson::stepCounts() {
    QFETCH(int, w);
    QFETCH(int, h);
    const Plane8 src = lessonRamp(w, h);
    LessonTrace t;
    QVERIFY(trace(src, "knight", "floyd-steinberg", 2, false, t).isOk());
    QCOMPARE(t.steps(), w + 2 * (h - 1));
    QCOMPARE(t.stats.criticalPath, int64_t(w + 2 * (h - 1)));
    if (w >= 2) QCOMPARE(t.stats.dependencyChain, int64_t(w + 2 * (h - 1)));
    QCOMPARE(t.stats.maxParallelism, int64_t(std::min(h, (w + 1) / 2)));
    QVERIFY(trace(src, "raster", "floyd-steinberg", 2, false, t).isOk());
    QCOMPARE(t.steps(), w * h);
    QCOMPARE(t.stats.maxParallelism, int64_t(1));
    QCOMPARE(t.stats.criticalPath, int64_t(w) * h);
    QVERIFY(trace(src, "dot-knuth", "floyd-steinberg", 2, false, t).isOk());
    QCOMPARE(t.steps(), 64);
    QVERIFY(trace(src, "hilbert", "floyd-steinberg", 2, false, t).isOk());
    QCOMPARE(t.stats.dependencyChain, int64_t(w) * h);
    for (int s = 0; s < t.steps(); ++s) QCOMPARE(t.stepBegin[size_t(s) + 1] - t.stepBegin[size_t(s)], size_t(1));
    QVERIFY(trace(src, "rows", "floyd-steinberg", 2, true, t).isOk());
    QCOMPARE(t.steps(), h);
    QCOMPARE(t.stats.maxParallelism, int64_t(w));
}

void TestLesson::racesDifferWhereTheyMust_data() {
    test::columns<QString, QString, bool>("schedule", "kernel", "races");
    QTest::newRow("rows/fs") << "rows"
                             << "floyd-steinberg" << true;
    QTest::newRow("rows/jarvis") << "rows"
                                 << "jarvis" << true;
    QTest::newRow("2-delay/jarvis") << "2-delay"
                                    << "jarvis" << true;
    QTest::newRow("2-delay/stucki") << "2-delay"
                                    << "stucki" << true;
    QTest::newRow("2-delay/fs") << "2-delay"
                                << "floyd-steinberg" << false;  // 2 is Floyd-Steinberg's own delay
    QTest::newRow("2-delay/sierra-lite") << "2-delay"
                                         << "sierra-lite" << false;
}

void TestLesson::racesDifferWhereTheyMust() {
    QFETCH(QString, schedule);
    QFETCH(QString, kernel);
    QFETCH(bool, races);
    const Plane8 src = lessonRamp(16, 12);
    LessonTrace t;
    QVERIFY(trace(src, schedule, kernel, 2, true, t).isOk());
    QCOMPARE(t.earlyReads > 0, races);
    QCOMPARE(t.proved(), !races);
    // An early read is exactly a source of the same step or later, and it reads 0.
    const Kernel* k = findKernel(kernel.toStdString());
    int64_t expectedEarly = 0;
    for (const LessonPixel& p : t.pixels) {
        for (const LessonShare& s : p.collected) {
            QCOMPARE(s.early, t.at(s.row, s.col).step >= p.step);
            if (s.early) QCOMPARE(s.error, 0);
        }
        for (const Tap& tap : k->taps) {
            const int si = p.row - tap.di, sj = p.col - tap.dj;
            if (si >= 0 && sj >= 0 && sj < 16 && t.schedule.pixelStep.at(si, sj) >= p.step) ++expectedEarly;
        }
    }
    QCOMPARE(t.earlyReads, expectedEarly);
    // a pixel that reads nothing early and whose sources all match the sequential errors matches it too
    EdParams ep;
    ep.kernel = kernel.toStdString();
    QCOMPARE(t.sequential.data, referenceErrorDiffusion(src, ep).data);
    QCOMPARE(t.differing > 0, races);
}

void TestLesson::raceNeedsToBeAsked() {
    LessonTrace t;
    const Status s = trace(lessonRamp(4, 4), "rows", "floyd-steinberg", 2, false, t);
    QVERIFY(!s.isOk());
    QVERIFY(s.message().find("race") != std::string::npos);
    QCOMPARE(lessonScheduleNames().size(), scheduleNames().size() + raceScheduleNames().size());
}

void TestLesson::badInput() {
    LessonTrace t;
    QVERIFY(!trace(Plane8(33, 4), "knight", "floyd-steinberg", 2, false, t).isOk());
    QVERIFY(!trace(Plane8(), "knight", "floyd-steinberg", 2, false, t).isOk());
    QVERIFY(!trace(Plane8(4, 4), "knight", "nope", 2, false, t).isOk());
    QVERIFY(!trace(Plane8(4, 4), "nope", "floyd-steinberg", 2, false, t).isOk());
    QVERIFY(!trace(Plane8(4, 4), "knight", "floyd-steinberg", 17, false, t).isOk());
    QCOMPARE(lessonCrop(lessonRamp(32, 32), 8, 4).at(0, 0), lessonRamp(32, 32).at(14, 12));
    QCOMPARE(lessonCrop(lessonRamp(4, 4), 8, 8).width, 4);
}

void TestLesson::framesShowTheSteps() {
    const Plane8 src = test::randomPlane(9, 7, test::freshSeed("frames"));
    LessonTrace t;
    QVERIFY(trace(src, "rows", "floyd-steinberg", 2, true, t).isOk());
    const int cell = lessonCellSize(9, 7);
    for (int step : {0, t.steps() - 1}) {
        const Image f = renderLessonFrame(t, step, cell);
        QCOMPARE(f.width(), 9 * cell + 1);
        QCOMPARE(f.height(), 7 * cell + 1);
        QVERIFY(f.palette.size() <= 256);
        for (int i = 0; i < 7; ++i)
            for (int j = 0; j < 9; ++j) {
                const uint8_t idx = f.indices.at(i * cell + cell / 2, j * cell + cell / 2);
                const uint8_t corner = f.indices.at(i * cell + 1, j * cell + 1);
                if (t.at(i, j).step <= step) {
                    QCOMPARE(f.channels[0].at(i * cell + cell / 2, j * cell + cell / 2), t.output.at(i, j));
                } else {
                    QVERIFY(idx >= lessonInkIndex(2, LessonInk::Pending));
                }
                if (step == t.steps() - 1 && t.output.at(i, j) != t.sequential.at(i, j))
                    QCOMPARE(int(corner), lessonInkIndex(2, LessonInk::Differs));
                else if (t.at(i, j).step == step)
                    QCOMPARE(int(corner),
                             lessonInkIndex(2, t.at(i, j).earlyReads ? LessonInk::Early : LessonInk::Step));
            }
    }
}

QTEST_GUILESS_MAIN(TestLesson)
#include "test_lesson.moc"
