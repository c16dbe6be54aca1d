// Ordered dither to a palette (docs/spec.md section 5): hand-checked mixing plans, the plan against a plain
// re-statement of the rule, the threshold-to-entry table, palette colours reproduced alone, mean colour of flat
// patches in linear light, thread-count independence, awkward sizes, cancel, and the registry's palette form.
#include <QtTest>

#include <algorithm>
#include <cmath>
#include <random>

#include "core/palette/paletteordered.h"
#include "core/ed/quantizer.h"
#include "core/job/registry.h"
#include "core/screen/screen.h"
#include "tests/common/qtestutil.h"
#include "tests/common/testutil.h"

using namespace halftone;

namespace {

Palette makePalette(std::vector<Rgb8> colors, std::string name = "test") {
    Palette p;
    p.name = std::move(name);
    p.colors = std::move(colors);
    return p;
}

const Palette kBlackWhite = makePalette({{0, 0, 0}, {255, 255, 255}});
// A seven-colour e-paper panel's inks (black, white, green, blue, red, yellow, orange).
const Palette kEpaper = makePalette(
    {{0, 0, 0}, {255, 255, 255}, {0, 255, 0}, {0, 0, 255}, {255, 0, 0}, {255, 255, 0}, {255, 128, 0}}, "e-paper");
const Palette kCorners = makePalette(
    {{0, 0, 0}, {255, 0, 0}, {0, 255, 0}, {0, 0, 255}, {0, 255, 255}, {255, 0, 255}, {255, 255, 0}, {255, 255, 255}});

Palette randomPalette(std::mt19937_64& rng, int k) {
    Palette p;
    for (int i = 0; i < k; ++i) p.colors.push_back({uint8_t(rng()), uint8_t(rng()), uint8_t(rng())});
    return p;
}

/// The plan as the spec states it, with the full squared distance of the candidate mean and no algebra.
std::vector<int> specPlan(const Palette& p, int n, Rgb8 c, PaletteMatch match) {
    const auto lin = Quantizer(2, true).inputTable();
    std::vector<int64_t> s(3, 0);
    std::vector<int> count(size_t(p.size()), 0);
    for (int step = 0; step < n; ++step) {
        int best = 0;
        int64_t bestCost = INT64_MAX;
        for (int k = 0; k < p.size(); ++k) {
            int64_t cost = 0;
            const int64_t w[3] = {match == PaletteMatch::Weighted ? 299 : 1, match == PaletteMatch::Weighted ? 587 : 1,
                                  match == PaletteMatch::Weighted ? 114 : 1};
            for (int ch = 0; ch < 3; ++ch) {
                const int64_t d =
                    int64_t(step + 1) * lin[c[size_t(ch)]] - s[size_t(ch)] - lin[p.colors[size_t(k)][size_t(ch)]];
                cost += w[ch] * d * d;
            }
            if (cost < bestCost) bestCost = cost, best = k;
        }
        ++count[size_t(best)];
        for (int ch = 0; ch < 3; ++ch) s[size_t(ch)] += lin[p.colors[size_t(best)][size_t(ch)]];
    }
    std::vector<int> order(size_t(p.size()));
    for (int k = 0; k < p.size(); ++k) order[size_t(k)] = k;
    auto luma = [&](int k) {
        const auto& q = p.colors[size_t(k)];
        return 299 * int64_t(lin[q[0]]) + 587 * int64_t(lin[q[1]]) + 114 * int64_t(lin[q[2]]);
    };
    std::stable_sort(order.begin(), order.end(), [&](int a, int b) { return luma(a) > luma(b); });
    std::vector<int> plan;
    for (int k : order)
        for (int i = 0; i < count[size_t(k)]; ++i) plan.push_back(k);
    return plan;
}

std::vector<int> plannerPlan(const Palette& p, int n, Rgb8 c, PaletteMatch match = PaletteMatch::Weighted) {
    const MixingPlanner planner(p, n, match);
    std::vector<uint8_t> out(size_t(planner.planSize()));
    planner.plan(c[0], c[1], c[2], out.data());
    return {out.begin(), out.end()};
}

ThresholdArray screen(const std::string& spec) {
    ThresholdArray t;
    if (!screenFromSpec(spec, t).isOk()) qFatal("screen %s", spec.c_str());
    return t;
}

}  // namespace

class TestPaletteOrdered : public QObject {
    Q_OBJECT
private slots:
    void handCheckedPlans();
    void planMatchesSpecStatement();
    void entryTable();
    void paletteColourAlone_data();
    void paletteColourAlone();
    void flatPatchMeanInLinearLight();
    void threadsAndRepeatsAgree();
    void awkwardSizes_data();
    void awkwardSizes();
    void grayInputIsRgbGray();
    void cancel();
    void registryPaletteForm();
};

void TestPaletteOrdered::handCheckedPlans() {
    // Gray 188 is 2052 in linear light (round(4080 lin(188 / 255))); the greedy plan of four takes white (2028 from
    // the target against 2052 for black), then black (the two-entry mean 2040 against 4080), then white, then black.
    QCOMPARE(Quantizer(2, true).input(188), 2052);
    QCOMPARE(plannerPlan(kBlackWhite, 4, {188, 188, 188}), (std::vector<int>{1, 1, 0, 0}));
    QCOMPARE(plannerPlan(kBlackWhite, 4, {0, 0, 0}), (std::vector<int>{0, 0, 0, 0}));
    QCOMPARE(plannerPlan(kBlackWhite, 3, {255, 255, 255}), (std::vector<int>{1, 1, 1}));
    // Black, red, white and a light red (255, 188, 188): first white (299 * 0 + 701 * 2028^2 beats red's
    // 701 * 2052^2), then red (the remaining difference is (4080, 24, 24) from black, (0, 24, 24) from red). Brightest
    // first: white, red.
    const Palette krw = makePalette({{0, 0, 0}, {255, 0, 0}, {255, 255, 255}});
    QCOMPARE(plannerPlan(krw, 2, {255, 188, 188}), (std::vector<int>{2, 1}));
    QCOMPARE(plannerPlan(krw, 2, {255, 0, 0}), (std::vector<int>{1, 1}));
    // A plan of one is the nearest colour in linear light.
    QCOMPARE(plannerPlan(krw, 1, {200, 30, 20}), (std::vector<int>{1}));
    // The match decides between green and blue for (0, 201, 223), linear (0, 2383, 3011): euclidean
    // 1697^2 + 3011^2 = 11945930 against 2383^2 + 1069^2 = 6821450 takes blue; weighted 587 * 1697^2 + 114 * 3011^2 =
    // 2723985677 against 587 * 2383^2 + 114 * 1069^2 = 3463665197 takes green.
    const Palette gb = makePalette({{0, 255, 0}, {0, 0, 255}});
    QCOMPARE(Quantizer(2, true).input(201), 2383);
    QCOMPARE(Quantizer(2, true).input(223), 3011);
    QCOMPARE(plannerPlan(gb, 1, {0, 201, 223}, PaletteMatch::Euclidean), (std::vector<int>{1}));
    QCOMPARE(plannerPlan(gb, 1, {0, 201, 223}, PaletteMatch::Weighted), (std::vector<int>{0}));
    // Equal colours: the smaller index wins every step.
    const Palette twice = makePalette({{10, 20, 30}, {10, 20, 30}, {255, 255, 255}});
    QCOMPARE(plannerPlan(twice, 2, {10, 20, 30}), (std::vector<int>{0, 0}));
}

void TestPaletteOrdered::planMatchesSpecStatement() {
    std::mt19937_64 rng(test::freshSeed("palette ordered plans"));
    for (int trial = 0; trial < 60; ++trial) {
        const int k = trial % 2 ? 2 + int(rng() % 15) : 17 + int(rng() % 240);
        const Palette p = randomPalette(rng, k);
        const int n = std::vector<int>{1, 2, 3, 16, 64, 256}[size_t(trial % 6)];
        for (int c = 0; c < 20; ++c) {
            const Rgb8 col = {uint8_t(rng()), uint8_t(rng()), uint8_t(rng())};
            for (PaletteMatch match : {PaletteMatch::Euclidean, PaletteMatch::Weighted})
                QCOMPARE(plannerPlan(p, n, col, match), specPlan(p, n, col, match));
        }
    }
}

void TestPaletteOrdered::entryTable() {
    // A screen of N distinct thresholds (Bayer 2, 4, 8) and a plan of N: each threshold picks its own entry. (Bayer 16
    // has 256 ranks on 255 threshold values, so two ranks share one.)
    for (int side : {2, 4, 8}) {
        const ThresholdArray t = screen("bayer:" + std::to_string(side));
        const int n = side * side;
        const auto e = MixingPlanner::entryTable(t, n);
        std::vector<int> hits(size_t(n), 0);
        for (uint8_t v : t.data) ++hits[e[v]];
        QCOMPARE(std::count(hits.begin(), hits.end(), 1), n);
    }
    // Blue noise 64 x 64 and a plan of 64: every entry picked by about one 64th of the screen (within one threshold
    // value's 16 or 17 entries).
    const ThresholdArray bn = screen("blue-noise");
    const auto e = MixingPlanner::entryTable(bn, 64);
    std::vector<int> hits(64, 0);
    for (uint8_t v : bn.data) ++hits[e[v]];
    for (int h : hits) QVERIFY2(std::abs(h - 64) <= 17, qPrintable(QString::number(h)));
    // A plan of one: everything picks entry 0.
    const auto one = MixingPlanner::entryTable(bn, 1);
    QVERIFY(std::all_of(one.begin(), one.end(), [](uint8_t v) { return v == 0; }));
}

void TestPaletteOrdered::paletteColourAlone_data() {
    test::columns<QString, int>("spec", "plan");
    QTest::newRow("bayer:8 plan 64") << "bayer:8" << 64;
    QTest::newRow("blue-noise plan 64") << "blue-noise" << 64;
    QTest::newRow("cluster plan 16") << "cluster:cell=8,angle=45" << 16;
    QTest::newRow("dbs plan 256") << "dbs" << 256;
}

void TestPaletteOrdered::paletteColourAlone() {
    QFETCH(QString, spec);
    QFETCH(int, plan);
    const ThresholdArray t = screen(spec.toStdString());
    for (const Palette& p : {kEpaper, kCorners})
        for (int k = 0; k < p.size(); ++k) {
            Plane8 idx;
            QVERIFY(orderedPaletteDither(test::flatRgb(37, 23, p.colors[size_t(k)]), p, t, plan,
                                         PaletteMatch::Euclidean, idx)
                        .isOk());
            QVERIFY2(std::all_of(idx.data.begin(), idx.data.end(), [&](uint8_t v) { return v == k; }),
                     qPrintable(QString("%1 colour %2").arg(QString::fromStdString(p.name)).arg(k)));
        }
}

void TestPaletteOrdered::flatPatchMeanInLinearLight() {
    // With the eight RGB-cube corners every colour is in gamut. A 64 x 64 patch under Bayer 8 x 8 and a plan of 64
    // shows each plan entry equally often, so the patch mean is the plan mean; the greedy plan keeps that within 1.5 %
    // of full scale per channel (measured worst case over many colours: under 1 %).
    std::mt19937_64 rng(test::freshSeed("palette ordered means"));
    const ThresholdArray t = screen("bayer:8");
    const auto lin = Quantizer(2, true).inputTable();
    for (int trial = 0; trial < 40; ++trial) {
        const Rgb8 c = {uint8_t(rng()), uint8_t(rng()), uint8_t(rng())};
        Plane8 idx;
        QVERIFY(orderedPaletteDither(test::flatRgb(64, 64, c), kCorners, t, 64, PaletteMatch::Euclidean, idx).isOk());
        for (int ch = 0; ch < 3; ++ch) {
            double sum = 0;
            for (uint8_t v : idx.data) sum += lin[kCorners.colors[v][size_t(ch)]];
            const double mean = sum / double(idx.size());
            QVERIFY2(std::abs(mean - lin[c[size_t(ch)]]) <= 0.015 * 4080,
                     qPrintable(QString("colour %1,%2,%3 channel %4: mean %5, target %6")
                                    .arg(c[0])
                                    .arg(c[1])
                                    .arg(c[2])
                                    .arg(ch)
                                    .arg(mean)
                                    .arg(lin[c[size_t(ch)]])));
        }
    }
}

void TestPaletteOrdered::threadsAndRepeatsAgree() {
    std::mt19937_64 rng(test::freshSeed("palette ordered threads"));
    const Image im = test::randomRgb(131, 67, rng());
    const Palette p = randomPalette(rng, 5);
    const ThresholdArray t = screen("blue-noise");
    Plane8 first;
    QVERIFY(orderedPaletteDither(im, p, t, 32, PaletteMatch::Euclidean, first).isOk());
    for (int threads : {1, 2, 3, 0})
        for (uint64_t table : {kPlanTableBytes, uint64_t(0)}) {  // the table of every colour's plan, or the caches
            const RunControl rc = test::threads(threads);
            Plane8 again;
            QVERIFY(orderedPaletteDither(im, p, t, 32, PaletteMatch::Euclidean, again, rc, table).isOk());
            QCOMPARE(again, first);
        }
}

void TestPaletteOrdered::awkwardSizes_data() {
    test::sizeRows({{1, 1}, {97, 1}, {1, 97}, {7, 13}, {67, 211}, {257, 33}});
}

void TestPaletteOrdered::awkwardSizes() {
    // Pixel by pixel: the plan of the pixel's colour, entry entryTable(screen)[t] of the tiled screen.
    QFETCH(int, w);
    QFETCH(int, h);
    std::mt19937_64 rng(test::freshSeed("palette ordered sizes"));
    const Image im = test::randomRgb(w, h, rng());
    const Palette p = randomPalette(rng, 2 + int(rng() % 10));
    for (const char* spec : {"bayer:4", "cluster:cell=6,angle=30"})
        for (PaletteMatch match : {PaletteMatch::Euclidean, PaletteMatch::Weighted}) {
            const ThresholdArray t = screen(spec);
            RunControl rc;
            rc.threads = 3;
            Plane8 idx;
            QVERIFY(orderedPaletteDither(im, p, t, 16, match, idx, rc).isOk());
            QCOMPARE(idx.width, w);
            QCOMPARE(idx.height, h);
            const MixingPlanner planner(p, 16, match);
            const auto entry = MixingPlanner::entryTable(t, 16);
            std::vector<uint8_t> plan(16);
            for (int y = 0; y < h; ++y)
                for (int x = 0; x < w; ++x) {
                    planner.plan(im.channels[0].at(y, x), im.channels[1].at(y, x), im.channels[2].at(y, x),
                                 plan.data());
                    QCOMPARE(int(idx.at(y, x)), int(plan[entry[t.at(y % t.height, x % t.width)]]));
                }
        }
}

void TestPaletteOrdered::grayInputIsRgbGray() {
    const Plane8 g = test::randomPlane(45, 38, test::freshSeed("palette ordered gray"));
    Image rgb;
    rgb.space = ColorSpace::RGB;
    rgb.channels.assign(3, g);
    Plane8 a, b;
    const ThresholdArray t = screen("bayer:8");
    QVERIFY(orderedPaletteDither(Image::gray(g), kEpaper, t, 64, PaletteMatch::Euclidean, a).isOk());
    QVERIFY(orderedPaletteDither(rgb, kEpaper, t, 64, PaletteMatch::Euclidean, b).isOk());
    QCOMPARE(a, b);
}

void TestPaletteOrdered::cancel() {
    RunControl rc;
    rc.stop.requestStop();
    Plane8 idx;
    for (uint64_t table : {kPlanTableBytes, uint64_t(0)}) {
        const Status s = orderedPaletteDither(test::flatRgb(64, 64, {1, 2, 3}), kEpaper, screen("bayer:8"), 64,
                                              PaletteMatch::Euclidean, idx, rc, table);
        QVERIFY(s.isCancelled());
        QVERIFY(idx.empty());
    }
    // Palettes out of range and empty screens are errors with a message.
    QVERIFY(!orderedPaletteDither(test::flatRgb(4, 4, {1, 2, 3}), makePalette({{0, 0, 0}}), screen("bayer:8"), 8,
                                  PaletteMatch::Euclidean, idx)
                 .isOk());
    QVERIFY(!orderedPaletteDither(test::flatRgb(4, 4, {1, 2, 3}), kEpaper, ThresholdArray{}, 8, PaletteMatch::Euclidean,
                                  idx)
                 .isOk());
}

void TestPaletteOrdered::registryPaletteForm() {
    const MethodInfo* m = Registry::instance().find("ordered", "screen");
    QVERIFY(m && m->paletteCpu && m->param("plan"));
    QCOMPARE(m->param("plan")->def, double(kDefaultMixingPlan));
    RunRequest req;
    req.method = m;
    req.params.set("screen", std::string("bayer:4"));
    req.params.set("plan", int64_t(16));
    req.palette = kEpaper;
    const Image im = test::randomRgb(29, 31, test::freshSeed("palette ordered registry"));
    // the plans take the weighted match, whatever match the request names
    for (PaletteMatch match : {PaletteMatch::Euclidean, PaletteMatch::Weighted}) {
        req.paletteMatch = match;
        RunResult res;
        QVERIFY(runImage(im, req, res).isOk());
        QCOMPARE(res.image.space, ColorSpace::RGB);
        QCOMPARE(int(res.image.palette.size()), kEpaper.size());
        Plane8 idx;
        QVERIFY(orderedPaletteDither(im, kEpaper, screen("bayer:4"), 16, PaletteMatch::Weighted, idx).isOk());
        QCOMPARE(res.image.indices, idx);
        for (size_t i = 0; i < idx.size(); ++i)
            for (int ch = 0; ch < 3; ++ch)
                QCOMPARE(res.image.channels[size_t(ch)].data[i], kEpaper.colors[idx.data[i]][size_t(ch)]);
    }
}

QTEST_GUILESS_MAIN(TestPaletteOrdered)
#include "test_paletteordered.moc"
