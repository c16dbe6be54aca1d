// AM screening: the screen of a flat tone has the asked period and angle (the strongest peak of its spectrum, by
// FFTW3) for every dot shape, over a grid of rulings, resolutions, angle sets and tints, with no two plates beating
// coarser than the rosette; coverage follows the tone, each ink of a CMYK run gets its own angle, and the method is
// deterministic, cancellable and refuses bad parameters.
#include <QtTest>

#include <fftw3.h>

#include <algorithm>
#include <cmath>
#include <numbers>

#include "core/screen/amscreen.h"
#include "core/job/registry.h"
#include "tests/common/qtestutil.h"
#include "tests/common/testutil.h"

using namespace halftone;

namespace {

/// The strongest spatial frequency of a square power-of-two plane: its direction in degrees, counter-clockwise
/// from the horizontal as seen on the page, in [0, 180), and its period in pixels.
struct Peak {
    double angle = 0;
    double period = 0;
    double fx = 0, fy = 0;  ///< cycles per pixel, x to the right and y up the page
};

Peak strongestPeak(const Plane8& p) {
    const int n = p.width;
    const int half = n / 2 + 1;
    double* in = fftw_alloc_real(size_t(n) * n);
    fftw_complex* out = fftw_alloc_complex(size_t(n) * half);
    const fftw_plan plan = fftw_plan_dft_r2c_2d(n, n, in, out, FFTW_ESTIMATE);
    double mean = 0;
    for (uint8_t v : p.data) mean += v;
    mean /= double(p.size());
    // A Hann window: the screen's period is not a whole fraction of the patch, so its peak would leak otherwise.
    std::vector<double> hann(static_cast<size_t>(n));
    for (int i = 0; i < n; ++i) hann[size_t(i)] = 0.5 - 0.5 * std::cos(2 * std::numbers::pi * (i + 0.5) / n);
    for (int y = 0; y < n; ++y)
        for (int x = 0; x < n; ++x) in[size_t(y) * n + x] = (p.at(y, x) - mean) * hann[size_t(x)] * hann[size_t(y)];
    fftw_execute(plan);
    // Power at any signed frequency (kx, ky), through the conjugate symmetry of a real input.
    const auto power = [&](int kx, int ky) {
        kx = ((kx % n) + n) % n;
        if (kx > n / 2) kx -= n;
        if (kx < 0) kx = -kx, ky = -ky;
        ky = ((ky % n) + n) % n;
        const fftw_complex& c = out[size_t(ky) * half + size_t(kx)];
        return c[0] * c[0] + c[1] * c[1];
    };
    // A peak's power is the sum over the 5 x 5 bins around it, which holds the window's whole main lobe: a single
    // bin's power would depend on where the frequency falls between bins (up to 1.4 dB), enough to rank a harmonic
    // of nearly equal strength above the fundamental.
    int bx = 0, by = 0;
    double best = -1;
    for (int ky = -n / 2; ky < n / 2; ++ky)
        for (int kx = 0; kx < n / 2; ++kx) {
            if (kx * kx + ky * ky < 64) continue;  // the mean and the window's own spread
            double w = 0;
            for (int dy = -2; dy <= 2; ++dy)
                for (int dx = -2; dx <= 2; ++dx) w += power(kx + dx, ky + dy);
            if (w > best) best = w, bx = kx, by = ky;
        }
    // Sub-bin position: the power-weighted centroid of the 5 x 5 bins around the peak.
    double sw = 0, sx = 0, sy = 0;
    for (int dy = -2; dy <= 2; ++dy)
        for (int dx = -2; dx <= 2; ++dx) {
            const double w = power(bx + dx, by + dy);
            sw += w, sx += w * (bx + dx), sy += w * (by + dy);
        }
    fftw_destroy_plan(plan);
    fftw_free(in);
    fftw_free(out);
    const double fx = sx / sw / n, fy = sy / sw / n;  // cycles per pixel; rows run down the page
    Peak pk;
    pk.angle = std::atan2(-fy, fx) * 180 / std::numbers::pi;
    pk.angle = std::fmod(pk.angle + 360.0, 180.0);
    pk.period = 1.0 / std::hypot(fx, fy);
    pk.fx = fx;
    pk.fy = -fy;
    return pk;
}

/// The difference of two directions modulo `turn` degrees, in [-turn/2, turn/2).
double angleDiff(double a, double b, double turn) {
    double d = std::fmod(a - b, turn);
    if (d < -turn / 2) d += turn;
    if (d >= turn / 2) d -= turn;
    return d;
}

/// Checks that the screen in `plane` has period `period` (within 1.5 %) and the angle `angle` (within 1 degree):
/// a dot screen's strongest frequency runs along the angle or across it (modulo 90 degrees), a line screen's
/// across the lines (angle + 90, modulo 180).
void verifyScreen(const Plane8& plane, double angle, double period, AmDot dot, double tolerance = 0.015,
                  const QString& where = {}) {
    const Peak pk = strongestPeak(plane);
    const double d = dot == AmDot::Line ? angleDiff(pk.angle, angle + 90, 180) : angleDiff(pk.angle, angle, 90);
    QVERIFY2(std::abs(d) < 1.0, qPrintable(where + QString("angle %1 measured as %2 (period %3 measured as %4)")
                                                       .arg(angle)
                                                       .arg(pk.angle)
                                                       .arg(period)
                                                       .arg(pk.period)));
    QVERIFY2(std::abs(pk.period / period - 1) < tolerance,
             qPrintable(where + QString("period %1 measured as %2").arg(period).arg(pk.period)));
}

double inkedFraction(const Plane8& p, bool ink) {
    int64_t n = 0;
    for (uint8_t v : p.data) n += (v == 255) == ink;
    return double(n) / double(p.size());
}

const char* dotName(AmDot d) {
    switch (d) {
        case AmDot::Round:
            return "round";
        case AmDot::Elliptic:
            return "elliptic";
        case AmDot::Square:
            return "square";
        case AmDot::Line:
            return "line";
    }
    return "?";
}

}  // namespace

class TestAmScreen : public QObject {
    Q_OBJECT
private slots:
    void thresholdIsTheAreaFraction();
    void periodAndAngle_data();
    void periodAndAngle();
    void gridOfSettings_data();
    void gridOfSettings();
    void coverageFollowsTone_data();
    void coverageFollowsTone();
    void cmykInksHaveTheirAngles();
    void grayAndRgbPlanes();
    void deterministicAndParallel();
    void cancels();
    void refusesBadParameters();
};

void TestAmScreen::thresholdIsTheAreaFraction() {
    // On a grid over the cell (other points than the table was made from), the part with threshold below t is t:
    // that is what makes the dot's area follow the tone.
    for (AmDot dot : {AmDot::Round, AmDot::Elliptic, AmDot::Square, AmDot::Line}) {
        constexpr int n = 301;
        std::vector<double> t;
        for (int j = 0; j < n; ++j)
            for (int i = 0; i < n; ++i) t.push_back(amThreshold(dot, (2.0 * i + 0.5) / n - 1, (2.0 * j + 0.5) / n - 1));
        for (double level = 0.05; level < 1; level += 0.05) {
            const double below =
                double(std::count_if(t.begin(), t.end(), [&](double v) { return v < level; })) / t.size();
            QVERIFY2(std::abs(below - level) < 0.01,
                     qPrintable(QString("%1 at %2: %3").arg(dotName(dot)).arg(level).arg(below)));
        }
        // The dot starts at the cell centre (a line along the middle) and ends at the corners.
        QVERIFY(amThreshold(dot, 0, 0) < 0.005);
        if (dot != AmDot::Line) QVERIFY(amThreshold(dot, -0.999, -0.999) > 0.995);
        QVERIFY(amThreshold(dot, 0.3, 0.2) < amThreshold(dot, 0.6, 0.4));
    }
    // The round and square dots make a checkerboard at 50 %: the diamond |X| + |Y| <= 1 is the first half.
    for (AmDot dot : {AmDot::Round, AmDot::Square}) {
        QVERIFY(amThreshold(dot, 0.49, 0.49) < 0.5);
        QVERIFY(amThreshold(dot, 0.51, 0.51) > 0.5);
    }
}

void TestAmScreen::periodAndAngle_data() {
    test::columns<int, double, double, double, int>("dot", "angle", "lpi", "dpi", "level");
    for (AmDot dot : {AmDot::Round, AmDot::Elliptic, AmDot::Square, AmDot::Line})
        for (double angle : {0.0, 15.0, 45.0, 75.0, 108.4, -30.0})
            for (auto [lpi, dpi] : {std::pair{60.0, 600.0}, std::pair{85.0, 600.0}, std::pair{150.0, 2400.0}})
                QTest::newRow(
                    qPrintable(QString("%1 %2 deg %3 lpi %4 dpi").arg(dotName(dot)).arg(angle).arg(lpi).arg(dpi)))
                    << int(dot) << angle << lpi << dpi << 100;
    QTest::newRow("round 15 deg light tone") << int(AmDot::Round) << 15.0 << 60.0 << 600.0 << 220;
    QTest::newRow("round 75 deg dark tone") << int(AmDot::Round) << 75.0 << 60.0 << 600.0 << 30;
}

void TestAmScreen::periodAndAngle() {
    QFETCH(int, dot);
    QFETCH(double, angle);
    QFETCH(double, lpi);
    QFETCH(double, dpi);
    QFETCH(int, level);
    AmScreenParams p;
    p.dot = AmDot(dot);
    p.angle = angle;
    p.lpi = lpi;
    p.dpi = dpi;
    Plane8 out;
    QVERIFY(amScreen(Plane8(1024, 1024, uint8_t(level)), out, p).isOk());
    verifyScreen(out, angle, dpi / lpi, p.dot);
}

void TestAmScreen::gridOfSettings_data() {
    // Rulings and resolutions users meet, each with one of the angle sets in turn: the classic set, the same set
    // written 105/75/90/45, and a custom set (the classic one turned by 7.5 degrees).
    test::columns<double, double, QString>("lpi", "dpi", "angles");
    const std::pair<double, double> settings[] = {{65, 600},   {85, 2540},  {100, 800},  {133, 1200},
                                                  {150, 2400}, {175, 1200}, {200, 2540}, {200, 1200}};
    const char* sets[] = {"15,75,0,45", "105,75,90,45", "22.5,82.5,7.5,52.5"};
    int i = 0;
    for (auto [lpi, dpi] : settings) {
        const char* set = sets[i++ % 3];
        QTest::newRow(qPrintable(QString("%1 lpi %2 dpi %3").arg(lpi).arg(dpi).arg(set))) << lpi << dpi << QString(set);
    }
}

void TestAmScreen::gridOfSettings() {
    QFETCH(double, lpi);
    QFETCH(double, dpi);
    QFETCH(QString, angles);
    std::array<double, 4> inkAngles{};
    QVERIFY(parseAmAngles(angles.toStdString(), inkAngles).isOk());
    const double period = dpi / lpi;
    int n = 128;  // a tile of at least 12 periods: the peak is 12 bins or more from the origin
    while (n < 12 * period) n *= 2;
    for (AmDot dot : {AmDot::Round, AmDot::Elliptic, AmDot::Square, AmDot::Line})
        for (int pct : {5, 20, 50, 80, 95}) {
            // A dot (or hole) of under 4 pixels, or a line under 2 pixels wide, is a lattice of points or hairlines:
            // its harmonics are as strong as its fundamental, so no peak stands out. Those tints are left out; the
            // screen is too fine for the resolution there (docs/print.md, "Screens and resolution").
            const double minority = std::min(pct, 100 - pct) / 100.0;
            if (dot == AmDot::Line ? minority * period < 2 : minority * period * period < 4) continue;
            const int level = (pct * 255 + 50) / 100;
            std::array<Peak, 4> peaks;
            for (int c = 0; c < 4; ++c) {
                AmScreenParams p;
                p.lpi = lpi;
                p.dpi = dpi;
                p.angle = inkAngles[size_t(c)];
                p.dot = dot;
                p.inkPlane = true;
                Plane8 out;
                QVERIFY(amScreen(Plane8(n, n, uint8_t(level)), out, p).isOk());
                const QString where = QString("%1 %2 %: ink %3: ").arg(dotName(dot)).arg(pct).arg(c);
                verifyScreen(out, p.angle, period, dot, 0.02, where);
                peaks[size_t(c)] = strongestPeak(out);
            }
            // No two plates beat coarser than four screen periods: the difference of their fundamentals (each
            // dot screen's taken in all four of its directions, a line screen's in both) is at least a quarter of
            // the screen frequency, the scale of the rosette, and not a moire pattern of its own.
            const int turns = dot == AmDot::Line ? 2 : 4;
            for (int a = 0; a < 4; ++a)
                for (int b = a + 1; b < 4; ++b) {
                    double beat = 1e9;
                    for (int r = 0; r < turns; ++r) {
                        const double t = r * 2 * std::numbers::pi / turns;
                        const double bx = peaks[size_t(b)].fx * std::cos(t) - peaks[size_t(b)].fy * std::sin(t);
                        const double by = peaks[size_t(b)].fx * std::sin(t) + peaks[size_t(b)].fy * std::cos(t);
                        beat = std::min(beat, std::hypot(peaks[size_t(a)].fx - bx, peaks[size_t(a)].fy - by));
                    }
                    QVERIFY2(beat * period >= 0.25,
                             qPrintable(QString("%1 %2 %: inks %3 and %4 beat at %5 of the screen frequency")
                                            .arg(dotName(dot))
                                            .arg(pct)
                                            .arg(a)
                                            .arg(b)
                                            .arg(beat * period)));
                }
        }
}

void TestAmScreen::coverageFollowsTone_data() {
    test::columns<int, double, bool>("dot", "angle", "ink");
    for (AmDot dot : {AmDot::Round, AmDot::Elliptic, AmDot::Square, AmDot::Line})
        for (double angle : {0.0, 15.0, 45.0, 75.0})
            for (bool ink : {false, true})
                QTest::newRow(
                    qPrintable(QString("%1 %2 deg %3").arg(dotName(dot)).arg(angle).arg(ink ? "ink" : "light")))
                    << int(dot) << angle << ink;
}

void TestAmScreen::coverageFollowsTone() {
    QFETCH(int, dot);
    QFETCH(double, angle);
    QFETCH(bool, ink);
    AmScreenParams p;
    p.dot = AmDot(dot);
    p.angle = angle;
    p.inkPlane = ink;
    // 10 px cells: at 0 degrees the screen is rational (whole-pixel cell sides) and its tone is exact to one
    // position of the cell (1 %); at 15, 45 and 75 degrees the pixel centres sample the tone-equalised spot
    // function at ever other positions, within about 1 % of the area (1.5 % allowed).
    for (int pct = 10; pct <= 90; pct += 10) {
        const int level = (pct * 255 + 50) / 100;
        Plane8 out;
        QVERIFY(amScreen(Plane8(500, 500, uint8_t(level)), out, p).isOk());
        const double inked = inkedFraction(out, ink);
        const double want = ink ? level / 255.0 : 1.0 - level / 255.0;
        QVERIFY2(std::abs(inked - want) < 0.015,
                 qPrintable(QString("level %1: inked %2, want %3").arg(level).arg(inked).arg(want)));
    }
    // The ends are exact: no ink at all, and solid ink.
    for (int level : {0, 255}) {
        Plane8 out;
        QVERIFY(amScreen(Plane8(64, 64, uint8_t(level)), out, p).isOk());
        const bool solid = ink == (level == 255);
        QCOMPARE(inkedFraction(out, ink), solid ? 1.0 : 0.0);
    }
}

void TestAmScreen::cmykInksHaveTheirAngles() {
    // R, G, B = 55, 85, 105 with GCR 50 separates into C 177, M 135, Y 106, K 75 (docs/spec.md "Separation into inks").
    Image im;
    im.space = ColorSpace::RGB;
    for (int v : {55, 85, 105}) im.channels.push_back(Plane8(1024, 1024, uint8_t(v)));
    RunRequest req;
    req.method = Registry::instance().find("am", "clustered");
    QVERIFY(req.method);
    QCOMPARE(Registry::instance().displayName("am"), std::string("AM screen"));
    req.color = ColorMode::CMYK;
    req.separation = {50, 400};
    req.params.set("lpi", 85.0);
    req.params.set("dpi", 1200.0);
    RunResult res;
    QVERIFY(runImage(im, req, res).isOk());
    QCOMPARE(res.image.space, ColorSpace::CMYK);
    QCOMPARE(res.image.channelCount(), 4);
    const double angles[4] = {15, 75, 0, 45};
    const int amounts[4] = {177, 135, 106, 75};
    for (int c = 0; c < 4; ++c) {
        const Plane8& plane = res.image.channels[size_t(c)];
        verifyScreen(plane, angles[c], 1200.0 / 85.0, AmDot::Round);
        // Ink planes: 255 is ink, and the inked area follows the separation.
        QVERIFY2(std::abs(inkedFraction(plane, true) - amounts[c] / 255.0) < 0.025, qPrintable(QString::number(c)));
    }
    // A flat tint of rgb(140, 110, 95) at 100 lpi on 800 dpi with GCR 50 (C 74, M 113, Y 132, K 58): black at
    // 45 degrees has a harmonic at 0 and 90 degrees (period 8 / sqrt 2 = 5.66 px) that would beat against yellow's
    // 0-degree screen; every plate's strongest peak is its own fundamental.
    {
        Image tint;
        tint.space = ColorSpace::RGB;
        for (int v : {140, 110, 95}) tint.channels.push_back(Plane8(1024, 1024, uint8_t(v)));
        RunRequest at800 = req;
        at800.params.set("lpi", 100.0);
        at800.params.set("dpi", 800.0);
        RunResult r;
        QVERIFY(runImage(tint, at800, r).isOk());
        for (int c = 0; c < 4; ++c) verifyScreen(r.image.channels[size_t(c)], angles[c], 8.0, AmDot::Round, 0.02);
    }
    // Other angles for the inks, and one for all.
    req.params.set("angles", std::string("105, 75, 90, 45"));
    QVERIFY(runImage(im, req, res).isOk());
    verifyScreen(res.image.channels[0], 105, 1200.0 / 85.0, AmDot::Round);
    verifyScreen(res.image.channels[2], 90, 1200.0 / 85.0, AmDot::Round);
    req.params.set("angles", std::string("30"));
    QVERIFY(runImage(im, req, res).isOk());
    for (int c = 0; c < 4; ++c) verifyScreen(res.image.channels[size_t(c)], 30, 1200.0 / 85.0, AmDot::Round);
}

void TestAmScreen::grayAndRgbPlanes() {
    RunRequest req;
    req.method = Registry::instance().find("am", "clustered");
    req.params.set("dot", std::string("elliptic"));
    RunResult res;
    // Gray takes black's angle (45 by default); the dots are black on white.
    QVERIFY(runImage(Image::gray(Plane8(1024, 1024, 160)), req, res).isOk());
    verifyScreen(res.image.channels[0], 45, 10, AmDot::Elliptic);
    QVERIFY(std::abs(inkedFraction(res.image.channels[0], false) - (1 - 160 / 255.0)) < 0.025);
    // R, G, B take the angles of their complements C, M, Y.
    Image rgb;
    rgb.space = ColorSpace::RGB;
    for (int v : {90, 120, 150}) rgb.channels.push_back(Plane8(1024, 1024, uint8_t(v)));
    req.color = ColorMode::RGB;
    QVERIFY(runImage(rgb, req, res).isOk());
    verifyScreen(res.image.channels[0], 15, 10, AmDot::Elliptic);
    verifyScreen(res.image.channels[1], 75, 10, AmDot::Elliptic);
    verifyScreen(res.image.channels[2], 0, 10, AmDot::Elliptic);
}

void TestAmScreen::deterministicAndParallel() {
    Plane8 src(333, 257);
    for (int y = 0; y < src.height; ++y)
        for (int x = 0; x < src.width; ++x) src.at(y, x) = uint8_t((x * 255) / (src.width - 1));
    AmScreenParams p;
    p.angle = 15;
    p.lpi = 71.3;
    Plane8 one, many, again;
    const RunControl single = test::threads(1);
    const RunControl four = test::threads(4);
    QVERIFY(amScreen(src, one, p, single).isOk());
    QVERIFY(amScreen(src, many, p, four).isOk());
    QVERIFY(amScreen(src, again, p, four).isOk());
    QVERIFY(one == many);
    QVERIFY(many == again);
    // A ramp is darker on the left: the ink falls monotonically from left to right in column bands.
    double previous = 2;
    for (int x0 = 0; x0 + 37 <= src.width; x0 += 37) {
        int64_t black = 0;
        for (int y = 0; y < src.height; ++y)
            for (int x = x0; x < x0 + 37; ++x) black += one.at(y, x) == 0;
        const double f = double(black) / (37.0 * src.height);
        QVERIFY(f < previous);
        previous = f;
    }
}

void TestAmScreen::cancels() {
    AmScreenParams p;
    RunControl rc;
    rc.stop.requestStop();
    Plane8 out;
    QVERIFY(amScreen(Plane8(300, 300, 128), out, p, rc).isCancelled());
    QVERIFY(out.empty());
    // Progress is reported and ends at 1.
    RunControl watched;
    double last = -1;
    watched.threads = 1;
    watched.onProgress = [&](const Progress& pr) { last = pr.fraction; };
    QVERIFY(amScreen(Plane8(300, 300, 128), out, p, watched).isOk());
    QCOMPARE(last, 1.0);
}

void TestAmScreen::refusesBadParameters() {
    AmScreenParams p;
    p.lpi = 400;
    p.dpi = 600;
    Plane8 out;
    Status s = amScreen(Plane8(8, 8, 100), out, p);
    QVERIFY(!s.isOk());
    QVERIFY2(s.message().find("at least 2 pixels") != std::string::npos, s.message().c_str());
    std::array<double, 4> a{};
    QVERIFY(parseAmAngles("15,75,0,45", a).isOk());
    QCOMPARE(a[1], 75.0);
    QVERIFY(parseAmAngles("22.5", a).isOk());
    QCOMPARE(a[3], 22.5);
    for (const char* bad : {"", "15,75,0", "15,75,0,45,10", "a,b,c,d", "15,,0,45", "15,75,0,45,", "nan", "15x"})
        QVERIFY2(!parseAmAngles(bad, a).isOk(), bad);
    RunRequest req;
    req.method = Registry::instance().find("am", "clustered");
    req.params.set("angles", std::string("fifteen"));
    RunResult res;
    s = runImage(Image::gray(Plane8(8, 8, 100)), req, res);
    QVERIFY2(s.message().find("--angles") != std::string::npos, s.message().c_str());
    req.params = {};
    req.params.set("dot", std::string("star"));
    QVERIFY(!runImage(Image::gray(Plane8(8, 8, 100)), req, res).isOk());
}

QTEST_APPLESS_MAIN(TestAmScreen)
#include "test_amscreen.moc"
