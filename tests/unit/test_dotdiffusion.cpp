// Dot diffusion (Knuth 1987; Mese and Vaidyanathan 2000): the class matrices are the published ones, every pixel is
// halftoned once and after its lower-class neighbours, the parallel form equals the sequential reference bit for bit
// at every thread count, flat patches keep their tone, and the registry runs it.
#include <QtTest>
#include <atomic>
#include <cmath>
#include <memory>

#include "core/ed/dotdiffusion.h"
#include "core/ed/quantizer.h"
#include "core/job/registry.h"
#include "core/schedule/schedule.h"
#include "io/imagefile.h"
#include "tests/common/qtestutil.h"
#include "tests/common/testutil.h"

using namespace halftone;

class TestDotDiffusion : public QObject {
    Q_OBJECT
private slots:
    void matricesArePermutations();
    void matricesAreThePublishedOnes();
    void everyPixelOnceInClassOrder_data();
    void everyPixelOnceInClassOrder();
    void identicalAcrossThreadCounts_data();
    void identicalAcrossThreadCounts();
    void realImages_data();
    void realImages();
    void flatPatchesKeepTheirTone_data();
    void flatPatchesKeepTheirTone();
    void singlePixelIsThresholded();
    void errorGoesToHigherClassesOnly();
    void progressPerClassAndCancel();
    void badParameters();
    void registryRunsIt();
};

namespace {

int at(const ClassMatrix& m, int row, int col) { return m.cls[size_t(row) * m.size + size_t(col)]; }

}  // namespace

void TestDotDiffusion::matricesArePermutations() {
    QCOMPARE(int(classMatrices().size()), 3);
    for (const ClassMatrix& m : classMatrices()) {
        const Status s = validateClassMatrix(m);
        QVERIFY2(s.isOk(), s.message().c_str());
        std::vector<int> sorted(m.cls.begin(), m.cls.end());
        std::sort(sorted.begin(), sorted.end());
        for (int c = 0; c < m.classes(); ++c) QCOMPARE(sorted[size_t(c)], c);
    }
    // The check itself rejects what is not a permutation.
    ClassMatrix bad = *findClassMatrix("knuth");
    bad.cls[5] = bad.cls[6];
    QVERIFY(!validateClassMatrix(bad).isOk());
    ClassMatrix tiny{"tiny", "tiny", 2, {0, 1, 2, 3}};
    QVERIFY(!validateClassMatrix(tiny).isOk());
}

void TestDotDiffusion::matricesAreThePublishedOnes() {
    // Knuth (1987), the class matrix of his paper: first row, last row, and the two barons 62 and 63.
    const ClassMatrix* k = findClassMatrix("knuth");
    QVERIFY(k);
    QCOMPARE(k->size, 8);
    const int knuthRow0[8] = {34, 48, 40, 32, 29, 15, 23, 31};
    const int knuthRow7[8] = {24, 16, 8, 27, 39, 47, 55, 36};
    for (int j = 0; j < 8; ++j) {
        QCOMPARE(at(*k, 0, j), knuthRow0[j]);
        QCOMPARE(at(*k, 7, j), knuthRow7[j]);
    }
    QCOMPARE(at(*k, 2, 1), 62);
    QCOMPARE(at(*k, 6, 5), 63);
    QCOMPARE(at(*k, 6, 1), 0);
    QCOMPARE(at(*k, 3, 3), 37);

    // Mese and Vaidyanathan (2000), 8 x 8.
    const ClassMatrix* m8 = findClassMatrix("mese-vaidyanathan-8");
    QVERIFY(m8);
    QCOMPARE(m8->size, 8);
    const int mv8Row0[8] = {47, 31, 51, 24, 27, 45, 5, 21};
    const int mv8Row7[8] = {54, 23, 50, 12, 42, 59, 44, 19};
    for (int j = 0; j < 8; ++j) {
        QCOMPARE(at(*m8, 0, j), mv8Row0[j]);
        QCOMPARE(at(*m8, 7, j), mv8Row7[j]);
    }
    QCOMPARE(at(*m8, 1, 1), 63);
    QCOMPARE(at(*m8, 2, 1), 0);
    QCOMPARE(at(*m8, 4, 4), 55);

    // Mese and Vaidyanathan (2000), 16 x 16.
    const ClassMatrix* m16 = findClassMatrix("mese-vaidyanathan-16");
    QVERIFY(m16);
    QCOMPARE(m16->size, 16);
    const int mv16Row0[16] = {207, 0, 13, 17, 28, 55, 18, 102, 81, 97, 74, 144, 149, 169, 170, 172};
    const int mv16Row15[16] = {193, 210, 211, 8, 11, 27, 34, 57, 66, 89, 98, 121, 126, 153, 162, 186};
    for (int j = 0; j < 16; ++j) {
        QCOMPARE(at(*m16, 0, j), mv16Row0[j]);
        QCOMPARE(at(*m16, 15, j), mv16Row15[j]);
    }
    QCOMPARE(at(*m16, 9, 11), 255);
    QCOMPARE(at(*m16, 8, 8), 218);
    QCOMPARE(at(*m16, 11, 15), 125);
    QCOMPARE(at(*m16, 5, 14), 12);
}

void TestDotDiffusion::everyPixelOnceInClassOrder_data() {
    test::columns<QString, int, int, int>("matrix", "width", "height", "threads");
    const QList<QPair<int, int>> sizes = {{1, 1}, {1, 41}, {41, 1}, {13, 7}, {33, 17}, {67, 53}};
    for (const ClassMatrix& m : classMatrices())
        for (const auto& sz : sizes)
            for (int threads : {1, 3, 8})
                QTest::addRow("%s/%dx%d/t%d", m.name.c_str(), sz.first, sz.second, threads)
                    << QString::fromStdString(m.name) << sz.first << sz.second << threads;
}

void TestDotDiffusion::everyPixelOnceInClassOrder() {
    QFETCH(QString, matrix);
    QFETCH(int, width);
    QFETCH(int, height);
    QFETCH(int, threads);
    const ClassMatrix& m = *findClassMatrix(matrix.toStdString());
    Schedule schedule;
    QVERIFY(makeSchedule(dotSchedule(m.name), width, height, *findKernel("floyd-steinberg"), {}, schedule).isOk());
    // The visit hook runs on worker threads: it records, the test thread checks.
    std::unique_ptr<std::atomic<int>[]> visits(new std::atomic<int>[size_t(width) * height]);
    for (size_t k = 0; k < size_t(width) * height; ++k) visits[k] = 0;
    std::atomic<int> wrongStep{0}, early{0}, late{0};
    const DotVisit visit = [&](int i, int j, int step) {
        if (step != m.classAt(i, j) || step != schedule.pixelStep.at(i, j)) ++wrongStep;
        for (int di = -1; di <= 1; ++di)
            for (int dj = -1; dj <= 1; ++dj) {
                const int r = i + di, s = j + dj;
                if ((di == 0 && dj == 0) || r < 0 || r >= height || s < 0 || s >= width) continue;
                const int seen = visits[size_t(r) * width + size_t(s)].load();
                if (m.classAt(r, s) < step && seen != 1) ++early;  // a source not yet halftoned
                if (m.classAt(r, s) > step && seen != 0) ++late;   // a receiver halftoned already
            }
        ++visits[size_t(i) * width + size_t(j)];
    };
    const Plane8 src = test::randomPlane(width, height, test::freshSeed("dot visits"));
    DotParams p;
    p.matrix = m.name;
    p.threads = threads;
    Plane8 out;
    QVERIFY(dotDiffuse(src, out, p, {}, visit).isOk());
    for (size_t k = 0; k < size_t(width) * height; ++k)
        QVERIFY2(visits[k].load() == 1, qPrintable(QString("pixel %1 visited %2 times").arg(k).arg(visits[k].load())));
    QCOMPARE(wrongStep.load(), 0);
    QCOMPARE(early.load(), 0);
    QCOMPARE(late.load(), 0);
    // The reference visits in the same class order.
    for (size_t k = 0; k < size_t(width) * height; ++k) visits[k] = 0;
    QVERIFY(!referenceDotDiffusion(src, p, visit).empty());
    for (size_t k = 0; k < size_t(width) * height; ++k) QCOMPARE(visits[k].load(), 1);
    QCOMPARE(early.load(), 0);
    QCOMPARE(late.load(), 0);
}

void TestDotDiffusion::identicalAcrossThreadCounts_data() {
    test::columns<QString, int, int, int, bool>("matrix", "width", "height", "levels", "linear");
    const QList<QPair<int, int>> sizes = {{1, 1},   {1, 97},  {97, 1},   {2, 2},    {13, 7},
                                          {33, 17}, {31, 37}, {101, 67}, {257, 129}};
    for (const ClassMatrix& m : classMatrices())
        for (const auto& sz : sizes)
            for (int levels : {2, 4, 256})
                for (bool linear : {false, true}) {
                    if ((levels != 2 || linear) && sz.first * sz.second < 100) continue;
                    QTest::addRow("%s/%dx%d/L%d/%s", m.name.c_str(), sz.first, sz.second, levels,
                                  linear ? "linear" : "gamma")
                        << QString::fromStdString(m.name) << sz.first << sz.second << levels << linear;
                }
}

void TestDotDiffusion::identicalAcrossThreadCounts() {
    QFETCH(QString, matrix);
    QFETCH(int, width);
    QFETCH(int, height);
    QFETCH(int, levels);
    QFETCH(bool, linear);
    const Plane8 src = test::randomPlane(width, height, test::freshSeed("dot threads"));
    DotParams p;
    p.matrix = matrix.toStdString();
    p.levels = levels;
    p.linear = linear;
    const Plane8 ref = referenceDotDiffusion(src, p);
    QCOMPARE(ref.width, width);
    for (int threads = 1; threads <= 8; ++threads) {
        p.threads = threads;
        Plane8 out;
        QVERIFY(dotDiffuse(src, out, p).isOk());
        QVERIFY2(out == ref, qPrintable(QString("threads %1 differ from the reference").arg(threads)));
    }
    // Every output value is one of the L levels.
    const Quantizer q(levels, linear);
    for (uint8_t v : ref.data) QVERIFY(std::find(q.values().begin(), q.values().end(), v) != q.values().end());
}

void TestDotDiffusion::realImages_data() {
    QTest::addColumn<QString>("file");
    const QDir dir(QStringLiteral(HALFTONE_TEST_DATA_DIR));
    for (const QString& f : dir.entryList({"*.png", "*.jpg"}, QDir::Files))
        QTest::newRow(qPrintable(f)) << dir.filePath(f);
}

void TestDotDiffusion::realImages() {
    QFETCH(QString, file);
    Image img;
    QVERIFY2(io::readImage(file.toStdString(), img).isOk(), qPrintable(file));
    const Image rgb = convertColor(img, ColorMode::RGB);
    for (const ClassMatrix& m : classMatrices()) {
        DotParams p;
        p.matrix = m.name;
        const Plane8 ref = referenceDotDiffusion(rgb.channels[1], p);
        for (int threads : {1, 2, 5}) {
            p.threads = threads;
            Plane8 out;
            QVERIFY(dotDiffuse(rgb.channels[1], out, p).isOk());
            QVERIFY2(out == ref,
                     qPrintable(QString("%1, %2 threads").arg(QString::fromStdString(m.name)).arg(threads)));
        }
    }
}

void TestDotDiffusion::flatPatchesKeepTheirTone_data() {
    test::columns<QString, int>("matrix", "gray");
    for (const ClassMatrix& m : classMatrices())
        for (int g : {0, 1, 8, 32, 64, 100, 127, 128, 160, 192, 224, 247, 254, 255})
            QTest::addRow("%s/%d", m.name.c_str(), g) << QString::fromStdString(m.name) << g;
}

void TestDotDiffusion::flatPatchesKeepTheirTone() {
    // Error leaves the image only where a pixel has no higher-class neighbour: Knuth's barons, and pixels at the edge
    // whose higher-class neighbours lie outside. On a flat patch every pixel quantises around the same value, so a
    // baron drops at most half a step, |E| <= 2040 (127.5 levels). With b barons per n x n cell the mean moves by at
    // most 127.5 b / n^2 levels: 3.98 for Knuth's matrix (2 barons in 64), 11.95 for Mese and Vaidyanathan's 8 x 8
    // (6 in 64), 0.50 for their 16 x 16 (1 in 256). Half a level more covers the edge pixels of a 256 x 256 patch and
    // the rounding of the shares (each within half a unit of 1/16 level). Measured over all 256 grays: at most 3.72,
    // 7.00 and 0.39 levels. A share lost or counted twice moves the mean by tens of levels.
    QFETCH(QString, matrix);
    QFETCH(int, gray);
    const ClassMatrix& m = *findClassMatrix(matrix.toStdString());
    int barons = 0;
    for (int a = 0; a < m.size; ++a)
        for (int b = 0; b < m.size; ++b) {
            bool higher = false;
            for (int di = -1; di <= 1; ++di)
                for (int dj = -1; dj <= 1; ++dj)
                    if ((di || dj) && m.classAt(a + di + m.size, b + dj + m.size) > m.classAt(a, b)) higher = true;
            barons += higher ? 0 : 1;
        }
    // The published matrices: Knuth's two barons (62 and 63), six in the 8 x 8 and one in the 16 x 16 of Mese and
    // Vaidyanathan.
    QCOMPARE(barons, m.name == "knuth" ? 2 : m.name == "mese-vaidyanathan-8" ? 6 : 1);
    const double tolerance = 127.5 * barons / m.classes() + 0.5;
    const int side = 256;
    const Plane8 src(side, side, uint8_t(gray));
    DotParams p;
    p.matrix = m.name;
    Plane8 out;
    QVERIFY(dotDiffuse(src, out, p).isOk());
    double sum = 0;
    for (uint8_t v : out.data) sum += v;
    const double mean = sum / double(out.size());
    QVERIFY2(std::abs(mean - gray) <= tolerance,
             qPrintable(QString("mean %1 for gray %2, tolerance %3").arg(mean).arg(gray).arg(tolerance)));
    // Black and white stay exact: no error arises.
    if (gray == 0 || gray == 255) QCOMPARE(mean, double(gray));
}

void TestDotDiffusion::singlePixelIsThresholded() {
    // A 1 x 1 image has no neighbours: the pixel is quantised alone (S = 16 a, ties go down).
    for (int a = 0; a < 256; ++a) {
        const Plane8 src(1, 1, uint8_t(a));
        Plane8 out;
        QVERIFY(dotDiffuse(src, out, DotParams{}).isOk());
        QCOMPARE(int(out.at(0, 0)), 16 * a > 2040 ? 255 : 0);
    }
}

void TestDotDiffusion::errorGoesToHigherClassesOnly() {
    // Knuth's matrix, 3 x 3 image of gray 100 (A = 1600), worked by hand from docs/spec.md section 7.
    // Classes: 34 48 40 / 42 58 56 / 50 62 61. Class 34 (0,0) first: S = 1600 -> 0, E = 1600; its in-image
    // neighbours (0,1) 48, (1,0) 42, (1,1) 58 are all higher: W = 2 + 2 + 1 = 5; shares floor((2*1600 + 2) / 5) = 640
    // to (0,1) and (1,0), floor((1600 + 2) / 5) = 320 to (1,1).
    // Class 40 (0,2): S = 1600 -> 0, E = 1600; neighbours (0,1) 48, (1,1) 58, (1,2) 56: W = 2 + 1 + 2 = 5; shares
    // 640 to (0,1) and (1,2), 320 to (1,1).
    // Class 42 (1,0): S = 1600 + 640 = 2240 -> 255, E = 2240 - 4080 = -1840; higher neighbours (0,1) 48 (w 1),
    // (1,1) 58 (2), (2,0) 50 (2), (2,1) 62 (1): W = 6; shares floor((-1840 + 3) / 6) = -307 to (0,1) and (2,1),
    // floor((-3680 + 3) / 6) = -613 to (1,1) and (2,0).
    // Class 48 (0,1): S = 1600 + 640 + 640 - 307 = 2573 -> 255, E = -1507; higher: (1,1) 58 (w 2), (1,2) 56 (w 1);
    // W = 3; shares floor((-3014 + 1) / 3) = -1005 to (1,1), floor((-1507 + 1) / 3) = -502 to (1,2).
    // Class 50 (2,0): S = 1600 - 613 = 987 -> 0.
    const Plane8 src(3, 3, uint8_t(100));
    Plane8 out;
    QVERIFY(dotDiffuse(src, out, DotParams{}).isOk());
    QCOMPARE(int(out.at(0, 0)), 0);
    QCOMPARE(int(out.at(0, 2)), 0);
    QCOMPARE(int(out.at(1, 0)), 255);
    QCOMPARE(int(out.at(0, 1)), 255);
    QCOMPARE(int(out.at(2, 0)), 0);
    QCOMPARE(referenceDotDiffusion(src, DotParams{}), out);
}

void TestDotDiffusion::progressPerClassAndCancel() {
    const Plane8 src = test::randomPlane(70, 50, test::freshSeed("dot progress"));
    for (const ClassMatrix& m : classMatrices()) {
        DotParams p;
        p.matrix = m.name;
        p.threads = 3;
        std::vector<double> fractions;
        RunControl rc;
        rc.onProgress = [&](const Progress& pr) { fractions.push_back(pr.fraction); };
        Plane8 out;
        QVERIFY(dotDiffuse(src, out, p, rc).isOk());
        QCOMPARE(int(fractions.size()), m.classes());
        QVERIFY(std::is_sorted(fractions.begin(), fractions.end()));
        QCOMPARE(fractions.back(), 1.0);
        // Cancelled half-way through: stops at the next class.
        RunControl cancel;
        int reports = 0;
        cancel.onProgress = [&](const Progress&) {
            if (++reports == m.classes() / 2) cancel.stop.requestStop();
        };
        QVERIFY(dotDiffuse(src, out, p, cancel).isCancelled());
        QCOMPARE(reports, m.classes() / 2);
    }
}

void TestDotDiffusion::badParameters() {
    const Plane8 src(4, 4, uint8_t(9));
    Plane8 out;
    DotParams p;
    p.matrix = "no-such";
    const Status s = dotDiffuse(src, out, p);
    QVERIFY(!s.isOk());
    QVERIFY2(QString::fromStdString(s.message()).contains("knuth"), s.message().c_str());
    p = DotParams{};
    p.levels = 1;
    QVERIFY(!dotDiffuse(src, out, p).isOk());
    p.levels = 257;
    QVERIFY(!dotDiffuse(src, out, p).isOk());
    QVERIFY(referenceDotDiffusion(src, p).empty());
    QVERIFY(!dotDiffuse(Plane8{}, out, DotParams{}).isOk());
}

void TestDotDiffusion::registryRunsIt() {
    const Registry& r = Registry::instance();
    QCOMPARE(r.defaultVariant("dot"), std::string("knuth"));
    QCOMPARE(r.displayName("dot"), std::string("Dot diffusion"));
    const Plane8 src = test::randomPlane(45, 38, test::freshSeed("dot registry"));
    for (const ClassMatrix& cm : classMatrices()) {
        const MethodInfo* m = r.find("dot", cm.name);
        QVERIFY2(m, cm.name.c_str());
        QVERIFY(m->cpu && m->reference && m->exact);
        QVERIFY(m->param("levels") && m->param("linear") && m->param("threads"));
        // The schedule it names is the one the model knows, with one step per class.
        SchedulePlan plan;
        QVERIFY(planSchedule(m->schedule, 100, 100, *findKernel("floyd-steinberg"), {}, plan).isOk());
        QCOMPARE(plan.steps, int64_t(cm.classes()));
        ParamValues v;
        v.set("levels", int64_t(3));
        v.set("threads", int64_t(4));
        QVERIFY(r.resolveParams(*m, v).isOk());
        Plane8 out, ref;
        QVERIFY(m->cpu(src, out, v, {}).isOk());
        QVERIFY(m->reference(src, ref, v, {}).isOk());
        QVERIFY(out == ref);
        DotParams p;
        p.matrix = cm.name;
        p.levels = 3;
        QVERIFY(out == referenceDotDiffusion(src, p));
    }
}

QTEST_GUILESS_MAIN(TestDotDiffusion)
#include "test_dotdiffusion.moc"
