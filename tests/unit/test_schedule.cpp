// The schedule model: every schedule x kernel x awkward size processes each pixel once and after
// all its sources; step counts match the seeds' formulas under the seeds' conventions.
#include <QtTest>
#include <algorithm>

#include "core/ed/dotdiffusion.h"
#include "core/ed/gpustrips.h"
#include "core/ed/kernel.h"
#include "core/ed/parallel.h"
#include "core/job/registry.h"
#include "core/ed/riemersma.h"
#include "core/schedule/schedule.h"
#include "tests/common/qtestutil.h"

using namespace halftone;

class TestSchedule : public QObject {
    Q_OBJECT
private slots:
    void hilbertIsTheCurveOrder();
    void everyScheduleIsValid_data();
    void everyScheduleIsValid();
    void kDelayStepCount_data();
    void kDelayStepCount();
    void parallelogramStepCount_data();
    void parallelogramStepCount();
    void knightIsTwoIPlusJForFs();
    void trapezoidIsKnightOrderOfBlocks();
    void serpentineIsSequential();
    void verifierCatchesBadSchedules();
    void badOptions();
    void planWithoutPlanesForHugeImages();
    void gpuWavefrontIsTheKernelsSchedule_data();
    void gpuWavefrontIsTheKernelsSchedule();
    void dotDiffusionRunsClassByClass_data();
    void dotDiffusionRunsClassByClass();
    void verifierCatchesBadDotSchedules();
};

void TestSchedule::everyScheduleIsValid_data() {
    test::columns<QString, QString, int, int, int, int, int>("name", "kernel", "width", "height", "blockWidth",
                                                             "blockHeight", "threads");
    const QList<QPair<int, int>> sizes = {{1, 1}, {1, 37}, {37, 1}, {2, 2}, {7, 13}, {31, 33}, {97, 61}, {5, 200}};
    for (const std::string& s : scheduleNames())
        for (const Kernel& k : kernels())
            for (const auto& sz : sizes) {
                // default blocks, small odd blocks, and blocks larger than the image
                const QList<QPair<int, int>> blocks = {{0, 0}, {5, 3}, {3, 7}, {64, 64}};
                for (const auto& b : blocks) {
                    if ((s == "raster" || s == "serpentine" || s == "k-delay" || s == "knight" ||
                         s.rfind("dot-", 0) == 0) &&
                        b.first != 0)
                        continue;
                    for (int threads : {1, 3}) {
                        if (s != "trapezoid" && threads != 1) continue;
                        QTest::addRow("%s/%s/%dx%d/b%dx%d/t%d", s.c_str(), k.name.c_str(), sz.first, sz.second, b.first,
                                      b.second, threads)
                            << QString::fromStdString(s) << QString::fromStdString(k.name) << sz.first << sz.second
                            << b.first << b.second << threads;
                    }
                }
            }
}

void TestSchedule::everyScheduleIsValid() {
    QFETCH(QString, name);
    QFETCH(QString, kernel);
    QFETCH(int, width);
    QFETCH(int, height);
    QFETCH(int, blockWidth);
    QFETCH(int, blockHeight);
    QFETCH(int, threads);
    const Kernel* k = findKernel(kernel.toStdString());
    QVERIFY(k);
    ScheduleOptions o;
    o.blockWidth = blockWidth;
    o.blockHeight = blockHeight;
    o.threads = threads;
    Schedule s;
    const Status st = makeSchedule(name.toStdString(), width, height, *k, o, s);
    QVERIFY2(st.isOk(), st.message().c_str());
    const bool serp = name == "serpentine";
    const Status v = verifySchedule(s, *k, serp);
    QVERIFY2(v.isOk(), v.message().c_str());
    // The plan (no planes) agrees with the materialised schedule.
    SchedulePlan p;
    QVERIFY(planSchedule(name.toStdString(), width, height, *k, o, p).isOk());
    QCOMPARE(p.steps, int64_t(s.steps));
    int64_t total = 0;
    for (int64_t c : s.parallelism) total += c;
    QCOMPARE(total, int64_t(s.units));
    if (!p.blocks) QCOMPARE(int64_t(s.units), int64_t(width) * height);
}

void TestSchedule::kDelayStepCount_data() {
    test::columns<QString, int, int>("kernel", "k", "side");
    for (const Kernel& kn : kernels())
        for (int side : {1, 2, 16, 33, 100}) {
            QTest::addRow("%s/min/%d", kn.name.c_str(), side) << QString::fromStdString(kn.name) << 0 << side;
            QTest::addRow("%s/k5/%d", kn.name.c_str(), side) << QString::fromStdString(kn.name) << 5 << side;
        }
}

void TestSchedule::kDelayStepCount() {
    // Kasagi, Nakano and Ito, section IV: k-D PS on sqrt(n) x sqrt(n) performs (k+1)(sqrt(n)-1)+1 steps.
    QFETCH(QString, kernel);
    QFETCH(int, k);
    QFETCH(int, side);
    const Kernel* kn = findKernel(kernel.toStdString());
    ScheduleOptions o;
    o.delay = k;
    const int kk = k > 0 ? k : kn->minimalDelay();
    Schedule s;
    QVERIFY(makeSchedule("k-delay", side, side, *kn, o, s).isOk());
    QCOMPARE(s.steps, (kk + 1) * (side - 1) + 1);
    QVERIFY(verifySchedule(s, *kn).isOk());
    // parallelism never exceeds floor((sqrt(n)-1)/k) + 1 (Kasagi, Nakano and Ito's m)
    for (int64_t c : s.parallelism) QVERIFY(c <= (side - 1) / kk + 1);
}

void TestSchedule::parallelogramStepCount_data() {
    test::columns<int, int>("side", "w");
    for (int w : {4, 8, 16, 32})
        for (int m : {1, 2, 3, 8}) QTest::addRow("%dx%d/w%d", w * m, w * m, w) << w * m << w;
}

void TestSchedule::parallelogramStepCount() {
    // Kasagi, Nakano and Ito, section V, under their conventions (Floyd-Steinberg, square image, side a multiple of
    // w, shift 2 per row): strip i has labels 3i .. 3i + sqrt(n)/w + 1, so 4 sqrt(n)/w - 1 steps.
    QFETCH(int, side);
    QFETCH(int, w);
    const Kernel* fs = findKernel("floyd-steinberg");
    ScheduleOptions o;
    o.blockWidth = w;
    SchedulePlan p;
    QVERIFY(planSchedule("parallelogram", side, side, *fs, o, p).isOk());
    QCOMPARE(p.geometry.skew, 2);
    QCOMPARE(p.geometry.stripOffset, 3);
    QCOMPARE(p.geometry.blocksPerStrip, side / w + 2);
    QCOMPARE(p.steps, int64_t(4 * side / w - 1));
    Schedule s;
    QVERIFY(makeSchedule("parallelogram", side, side, *fs, o, s).isOk());
    QVERIFY(verifySchedule(s, *fs).isOk());
    // block PB(i, t) holds the label t: the first pixel of strip i is in the block labelled 3i
    for (int i = 0; i < side / w; ++i) QCOMPARE(s.pixelStep.at(i * w, 0), 3 * i);
}

void TestSchedule::knightIsTwoIPlusJForFs() {
    const Kernel* fs = findKernel("floyd-steinberg");
    Schedule s;
    QVERIFY(makeSchedule("knight", 23, 17, *fs, {}, s).isOk());
    for (int i = 0; i < 17; ++i)
        for (int j = 0; j < 23; ++j) QCOMPARE(s.pixelStep.at(i, j), 2 * i + j);
    // Deshpande, Misra and Narayanan: an m x n image needs 2m + n - 2 steps (labels 0 .. 2(m-1) + n-1),
    // parallelism min(m, n/2)
    QCOMPARE(s.steps, 2 * 16 + 22 + 1);
    int64_t maxPar = 0;
    for (int64_t c : s.parallelism) maxPar = std::max(maxPar, c);
    QCOMPARE(maxPar, int64_t(std::min(17, (23 + 1) / 2)));
}

void TestSchedule::trapezoidIsKnightOrderOfBlocks() {
    // Deshpande, Misra and Narayanan: for Floyd-Steinberg the blocks follow the knight's move (label 2I + J); with
    // n threads the block width is chosen so that n blocks run side by side along most diagonals.
    const Kernel* fs = findKernel("floyd-steinberg");
    for (int n : {1, 2, 4, 8}) {
        ScheduleOptions o;
        o.threads = n;
        SchedulePlan p;
        QVERIFY(planSchedule("trapezoid", 4096, 4096, *fs, o, p).isOk());
        QCOMPARE(p.geometry.stripOffset, 2);
        QCOMPARE(p.geometry.skew, 1);
        QCOMPARE(p.geometry.blockWidth, 4096 / (2 * n));
        Schedule s;
        ScheduleOptions small = o;
        small.blockWidth = 64 / (2 * n);
        QVERIFY(makeSchedule("trapezoid", 64, 64, *fs, small, s).isOk());
        int64_t maxPar = 0;
        for (int64_t c : s.parallelism) maxPar = std::max(maxPar, c);
        QVERIFY2(maxPar >= n, qPrintable(QString("max parallelism %1 < %2 threads").arg(maxPar).arg(n)));
    }
}

void TestSchedule::serpentineIsSequential() {
    const Kernel* fs = findKernel("floyd-steinberg");
    Schedule s;
    QVERIFY(makeSchedule("serpentine", 9, 5, *fs, {}, s).isOk());
    QCOMPARE(s.steps, 45);
    for (int64_t c : s.parallelism) QCOMPARE(c, int64_t(1));
    QCOMPARE(s.pixelStep.at(1, 8), 9);  // row 1 starts at its right end
    QVERIFY(verifySchedule(s, *fs, true).isOk());
    // read with raster taps the serpentine order is wrong, and raster read with mirrored taps too
    QVERIFY(!verifySchedule(s, *fs, false).isOk());
    Schedule r;
    QVERIFY(makeSchedule("raster", 9, 5, *fs, {}, r).isOk());
    QVERIFY(!verifySchedule(r, *fs, true).isOk());
}

void TestSchedule::verifierCatchesBadSchedules() {
    const Kernel* fs = findKernel("floyd-steinberg");
    ScheduleOptions o;
    o.delay = 2;
    Schedule s;
    QVERIFY(makeSchedule("k-delay", 12, 6, *fs, o, s).isOk());
    QVERIFY(verifySchedule(s, *fs).isOk());
    // 2-delay is not enough for Jarvis (tap (1,-2))
    QVERIFY(!verifySchedule(s, *findKernel("jarvis")).isOk());
    // a 1-delay step labelling breaks the (1,-1) tap
    Schedule bad = s;
    for (int i = 0; i < 6; ++i)
        for (int j = 0; j < 12; ++j) bad.pixelStep.at(i, j) = j + i;
    QVERIFY(!verifySchedule(bad, *fs).isOk());
    // a pixel left out
    bad = s;
    bad.pixelStep.at(3, 3) = -1;
    QVERIFY(!verifySchedule(bad, *fs).isOk());
    // wrong parallelism counts
    bad = s;
    bad.parallelism[0] += 1;
    QVERIFY(!verifySchedule(bad, *fs).isOk());
    // block schedule whose strips are too close (label offset 2 instead of 3 for shift-2 blocks)
    Schedule pb;
    ScheduleOptions po;
    po.blockWidth = 4;
    QVERIFY(makeSchedule("parallelogram", 16, 16, *fs, po, pb).isOk());
    QVERIFY(verifySchedule(pb, *fs).isOk());
    Schedule wrong = pb;
    for (int i = 0; i < 16; ++i)
        for (int j = 0; j < 16; ++j) {
            // recompute the step with stripOffset 2 for every unit (units are numbered strip-major)
            const int strip = i / 4;
            const int J = (j + 2 * (i % 4)) / 4;
            wrong.pixelStep.at(i, j) = 2 * strip + J;
        }
    for (size_t u = 0; u < wrong.unitStep.size(); ++u) wrong.unitStep[u] = -2;
    for (int i = 0; i < 16; ++i)
        for (int j = 0; j < 16; ++j) wrong.unitStep[size_t(wrong.pixelUnit.at(i, j))] = wrong.pixelStep.at(i, j);
    int maxStep = 0;
    for (int32_t v : wrong.unitStep) maxStep = std::max(maxStep, v);
    wrong.steps = maxStep + 1;
    wrong.parallelism.assign(size_t(wrong.steps), 0);
    for (int32_t v : wrong.unitStep) ++wrong.parallelism[size_t(v)];
    const Status ws = verifySchedule(wrong, *fs);
    QVERIFY(!ws.isOk());
    QVERIFY2(ws.message().find("before its source") != std::string::npos, ws.message().c_str());
}

void TestSchedule::badOptions() {
    const Kernel* fs = findKernel("floyd-steinberg");
    ScheduleOptions o;
    o.delay = 1;
    Schedule s;
    Status st = makeSchedule("k-delay", 10, 10, *fs, o, s);
    QVERIFY(!st.isOk());
    QVERIFY2(st.message().find("too small") != std::string::npos, st.message().c_str());
    st = makeSchedule("no-such", 10, 10, *fs, {}, s);
    QVERIFY(!st.isOk());
    QVERIFY(st.message().find("known schedules") != std::string::npos);
    QVERIFY(!makeSchedule("raster", 0, 10, *fs, {}, s).isOk());
}

void TestSchedule::planWithoutPlanesForHugeImages() {
    const Kernel* fs = findKernel("floyd-steinberg");
    SchedulePlan p;
    QVERIFY(planSchedule("wavefront", 32768, 32768, *fs, {}, p).isOk());
    QVERIFY(p.steps > 0);
    QCOMPARE(p.geometry.blockHeight, simdBandRows(SimdPath::Auto));  // the bands the method runs here
    QVERIFY(planSchedule("k-delay", 32768, 32768, *fs, {}, p).isOk());
    QCOMPARE(p.steps, int64_t(3) * 32767 + 1);
    Schedule s;
    QVERIFY(!makeSchedule("raster", 32768, 32768, *fs, {}, s).isOk());
}

void TestSchedule::gpuWavefrontIsTheKernelsSchedule_data() {
    test::columns<QString, int, int, int>("kernel", "levels", "width", "height");
    const QList<QPair<int, int>> sizes = {{1, 1}, {1, 130}, {130, 1}, {7, 13}, {97, 61}, {300, 200}, {33, 65}};
    for (const Kernel& k : kernels())
        for (int levels : {2, 5})
            for (const auto& sz : sizes)
                QTest::addRow("%s/L%d/%dx%d", k.name.c_str(), levels, sz.first, sz.second)
                    << QString::fromStdString(k.name) << levels << sz.first << sz.second;
}

void TestSchedule::gpuWavefrontIsTheKernelsSchedule() {
    // The schedule the GPU wavefront kernel runs (gpu/ed/wavefront.cu, gpu/ed/wavefront_fast.cuh): strips of R rows,
    // row r of a strip at column t - K r at the strip's step t, steps in groups of G; before the group starting at step
    // g0 a strip waits for the row above it in columns g0 + K - 1 .. g0 + K - 2 + G (and, in the general form, the row
    // two above in columns g0 + 2K - 1 .. g0 + 2K - 2 + G). Worked out here pixel by pixel against the model.
    QFETCH(QString, kernel);
    QFETCH(int, levels);
    QFETCH(int, width);
    QFETCH(int, height);
    const Kernel* k = findKernel(kernel.toStdString());
    ScheduleOptions o;
    o.levels = levels;
    Schedule s;
    const Status st = makeSchedule("gpu-wavefront", width, height, *k, o, s);
    QVERIFY2(st.isOk(), st.message().c_str());
    // every pixel once, after every source (or earlier in its own group's wavefront)
    const Status v = verifySchedule(s, *k);
    QVERIFY2(v.isOk(), v.message().c_str());

    // the kernel's form and shape: the fast form for binary Floyd-Steinberg only, as the GPU picks it
    const bool fast = kernel == "floyd-steinberg" && levels == 2;
    QCOMPARE(gpuWavefrontFast(*k, levels), fast);
    const gpustrips::Shape shape = fast ? gpustrips::kFast : gpustrips::kGeneral;
    const int R = fast ? 32 : 64, G = fast ? 16 : 8, K = k->minimalDelay() + (fast ? 0 : 1);
    QCOMPARE(shape.rows(), R);
    QCOMPARE(shape.group, G);
    QCOMPARE(shape.delay(k->minimalDelay()), K);
    SchedulePlan p;
    QVERIFY(planSchedule("gpu-wavefront", width, height, *k, o, p).isOk());
    QVERIFY(p.blocks);
    QCOMPARE(p.geometry.blockHeight, R);
    QCOMPARE(p.geometry.blockWidth, G);
    QCOMPARE(p.geometry.skew, K);
    QCOMPARE(p.delay, K);

    // The label distance between strips is the smallest at which every group starts after the groups of the strip
    // above whose words it checks, and the taps' dependencies alone never need more.
    int need = 1;
    const bool twoRows = !fast && std::any_of(k->taps.begin(), k->taps.end(), [](const Tap& t) { return t.di == 2; });
    for (int J = 0; J < 64; ++J) {
        const int g0 = G * J;
        int lastStep = g0 + K - 2 + G + K * (R - 1);  // the strip above's step of its last row, last column checked
        if (twoRows) lastStep = std::max(lastStep, g0 + 2 * K - 2 + G + K * (R - 2));
        need = std::max(need, lastStep / G - J + 1);
    }
    QCOMPARE(p.geometry.stripOffset, need);
    QCOMPARE(p.geometry.stripOffset, gpustrips::groupLag(shape, k->minimalDelay()));
    QVERIFY(p.geometry.stripOffset >= minimalStripOffset(*k, G, R, K));
    if (fast) QCOMPARE(p.geometry.stripOffset, 5);  // 80 steps: 64 of schedule (32 rows x 2) and a group of 16

    // Pixel by pixel: (i, j) is in group (j + K r) / G of strip i / R, and the groups run in label order.
    std::vector<int32_t> labels;
    for (int i = 0; i < height; ++i)
        for (int j = 0; j < width; ++j) labels.push_back(need * (i / R) + (j + K * (i % R)) / G);
    std::vector<int32_t> sorted = labels;
    std::sort(sorted.begin(), sorted.end());
    sorted.erase(std::unique(sorted.begin(), sorted.end()), sorted.end());
    QCOMPARE(int64_t(sorted.size()), int64_t(s.steps));
    for (int i = 0; i < height; ++i)
        for (int j = 0; j < width; ++j) {
            const int32_t label = labels[size_t(i) * width + j];
            const int32_t step = int32_t(std::lower_bound(sorted.begin(), sorted.end(), label) - sorted.begin());
            QCOMPARE(s.pixelStep.at(i, j), step);
        }
}

void TestSchedule::hilbertIsTheCurveOrder() {
    // Riemersma's dither runs along the generalised Hilbert curve: the schedule is that order, one pixel per step
    for (const auto& [w, h] : std::vector<std::pair<int, int>>{{1, 1}, {33, 17}, {1, 9}, {16, 16}, {5, 40}}) {
        Schedule s;
        QVERIFY(makeSchedule("hilbert", w, h, *findKernel("floyd-steinberg"), {}, s).isOk());
        QCOMPARE(s.steps, w * h);
        const auto order = curveOrder(w, h);
        for (size_t t = 0; t < order.size(); ++t) QCOMPARE(s.pixelStep.at(order[t].first, order[t].second), int(t));
        QVERIFY(verifySchedule(s, *findKernel("floyd-steinberg")).isOk());
        // a raster order is not the curve: the check finds the first step that is not next to the one before
        if (w > 2 && h > 2) {
            Schedule raster = s;
            for (int i = 0; i < h; ++i)
                for (int j = 0; j < w; ++j) raster.pixelStep.at(i, j) = i * w + j;
            QVERIFY(!verifySchedule(raster, *findKernel("floyd-steinberg")).isOk());
        }
    }
    QCOMPARE(Registry::instance().find("riemersma", "hilbert")->schedule, std::string("hilbert"));
}

void TestSchedule::dotDiffusionRunsClassByClass_data() {
    test::columns<QString, int, int>("matrix", "width", "height");
    const QList<QPair<int, int>> sizes = {{1, 1}, {1, 37}, {37, 1}, {2, 2}, {7, 13}, {33, 17}, {97, 61}};
    for (const ClassMatrix& m : classMatrices())
        for (const auto& sz : sizes)
            QTest::addRow("%s/%dx%d", m.name.c_str(), sz.first, sz.second)
                << QString::fromStdString(m.name) << sz.first << sz.second;
}

void TestSchedule::dotDiffusionRunsClassByClass() {
    // Knuth (1987): one step per class, pixel (i, j) at the step of its class, so every pixel runs once, after its
    // lower-class neighbours and with no neighbour in the same step.
    QFETCH(QString, matrix);
    QFETCH(int, width);
    QFETCH(int, height);
    const ClassMatrix& m = *findClassMatrix(matrix.toStdString());
    Schedule s;
    // The kernel plays no part: dot diffusion's sources are the lower-class neighbours.
    QVERIFY(makeSchedule(dotSchedule(m.name), width, height, *findKernel("jarvis"), {}, s).isOk());
    const Status v = verifySchedule(s, *findKernel("floyd-steinberg"));
    QVERIFY2(v.isOk(), v.message().c_str());
    QCOMPARE(s.steps, m.classes());
    QVERIFY(s.unitStep.empty());
    std::vector<int64_t> perClass(size_t(m.classes()), 0);
    for (int i = 0; i < height; ++i)
        for (int j = 0; j < width; ++j) {
            QCOMPARE(s.pixelStep.at(i, j), m.cls[size_t(i % m.size) * m.size + size_t(j % m.size)]);
            ++perClass[size_t(s.pixelStep.at(i, j))];
            for (int di = -1; di <= 1; ++di)
                for (int dj = -1; dj <= 1; ++dj) {
                    const int r = i + di, c = j + dj;
                    if ((di || dj) && r >= 0 && r < height && c >= 0 && c < width)
                        QVERIFY(s.pixelStep.at(r, c) != s.pixelStep.at(i, j));
                }
        }
    for (int c = 0; c < m.classes(); ++c) QCOMPARE(s.parallelism[size_t(c)], perClass[size_t(c)]);
    SchedulePlan p;
    QVERIFY(planSchedule(dotSchedule(m.name), width, height, *findKernel("floyd-steinberg"), {}, p).isOk());
    QCOMPARE(p.steps, int64_t(m.classes()));
    QVERIFY(p.classMatrix == &m);
}

void TestSchedule::verifierCatchesBadDotSchedules() {
    const Kernel* fs = findKernel("floyd-steinberg");
    Schedule s;
    QVERIFY(makeSchedule("dot-knuth", 16, 16, *fs, {}, s).isOk());
    QVERIFY(verifySchedule(s, *fs).isOk());
    // Raster order is not Knuth's class order.
    Schedule raster = s;
    raster.steps = 256;
    raster.parallelism.assign(256, 1);
    for (int i = 0; i < 16; ++i)
        for (int j = 0; j < 16; ++j) raster.pixelStep.at(i, j) = i * 16 + j;
    const Status st = verifySchedule(raster, *fs);
    QVERIFY(!st.isOk());
    QVERIFY2(st.message().find("lower-class neighbour") != std::string::npos, st.message().c_str());
    // Two neighbours swapped: class 0 at (6, 1) and class 3 at (6, 2) of Knuth's matrix.
    Schedule swapped = s;
    std::swap(swapped.pixelStep.at(6, 1), swapped.pixelStep.at(6, 2));
    QVERIFY(!verifySchedule(swapped, *fs).isOk());
    // A pixel left out.
    Schedule missing = s;
    missing.pixelStep.at(5, 5) = -1;
    QVERIFY(!verifySchedule(missing, *fs).isOk());
}

QTEST_GUILESS_MAIN(TestSchedule)
#include "test_schedule.moc"
