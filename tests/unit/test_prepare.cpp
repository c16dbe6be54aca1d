// Preparing an image before halftoning: sizes, orientation, the tone steps on flat patches, linear-light
// resampling, sharpening, the pixel-art enlargement, validation and cancel.
#include <QtTest>

#include <cmath>

#include "core/prepare/prepare.h"
#include "core/ed/quantizer.h"
#include "tests/common/testutil.h"

using namespace halftone;

namespace {

Image flat(int w, int h, uint8_t v, int channels = 1) {
    Image im;
    im.space = channels == 1 ? ColorSpace::Gray : channels == 3 ? ColorSpace::RGB : ColorSpace::CMYK;
    im.channels.assign(size_t(channels), Plane8(w, h, v));
    return im;
}

double mean(const Plane8& p) {
    double s = 0;
    for (uint8_t v : p.data) s += v;
    return s / double(p.size());
}

Image prepared(const Image& in, const PrepareSettings& s) {
    Image out;
    const Status st = prepareImage(in, s, out);
    if (!st) qWarning("%s", st.message().c_str());
    return out;
}

}  // namespace

class TestPrepare : public QObject {
    Q_OBJECT
private slots:
    void defaultsChangeNothing();
    void sizesFromWidthHeightScale();
    void printSizes();
    void orientationMovesEveryCorner();
    void levelsOnFlatPatches();
    void brightnessContrastGamma();
    void saturationZeroIsGray();
    void resizeKeepsFlatAndMonotone();
    void reductionAveragesInLinearLight();
    void sharpenKeepsFlatAndRaisesEdges();
    void pixelSizeReducesThenEnlarges();
    void cmykToneActsOnPaperLightness();
    void coverFillsTheFrameExactly_data();
    void coverFillsTheFrameExactly();
    void coverKeepsThePartTheGravityNames_data();
    void coverKeepsThePartTheGravityNames();
    void containLetterboxesInTheBackground();
    void rotationTurnsClockwise();
    void backgroundFlattensAlpha();
    void colourTexts();
    void badSettingsAreRefused();
    void cancelStops();
};

void TestPrepare::defaultsChangeNothing() {
    const Image in = Image::gray(test::randomPlane(37, 23, test::freshSeed("prepare identity")));
    PrepareSettings s;
    QVERIFY(s.isIdentity());
    const Image out = prepared(in, s);
    QCOMPARE(out.channels[0], in.channels[0]);
}

void TestPrepare::sizesFromWidthHeightScale() {
    PrepareSettings s;
    int w = 0, h = 0;
    s.width = 800;
    preparedSize(s, 4000, 3000, w, h);
    QCOMPARE(w, 800);
    QCOMPARE(h, 600);
    s = {};
    s.height = 300;
    preparedSize(s, 4000, 3000, w, h);
    QCOMPARE(w, 400);
    QCOMPARE(h, 300);
    s = {};
    s.width = 500;
    s.height = 500;  // fit inside: aspect kept
    preparedSize(s, 4000, 3000, w, h);
    QCOMPARE(w, 500);
    QCOMPARE(h, 375);
    s.fit = ResizeFit::Stretch;
    preparedSize(s, 4000, 3000, w, h);
    QCOMPARE(h, 500);
    s = {};
    s.scale = 0.25;
    preparedSize(s, 4000, 3000, w, h);
    QCOMPARE(w, 1000);
    QCOMPARE(h, 750);
    s = {};
    s.width = 300;
    // the image itself gets that size
    const Image out = prepared(flat(40, 30, 100), s);
    QCOMPARE(out.width(), 300);
    QCOMPARE(out.height(), 225);
}

void TestPrepare::printSizes() {
    double wi = 0, hi = 0;
    QVERIFY(parsePrintSize("6x4in", wi, hi));
    QCOMPARE(wi, 6.0);
    QCOMPARE(hi, 4.0);
    QVERIFY(parsePrintSize("15.24x10.16cm", wi, hi));
    QVERIFY(std::abs(wi - 6.0) < 1e-9 && std::abs(hi - 4.0) < 1e-9);
    QVERIFY(parsePrintSize("254mmx127mm", wi, hi));
    QVERIFY(std::abs(wi - 10.0) < 1e-9 && std::abs(hi - 5.0) < 1e-9);
    for (const char* bad : {"", "6", "6x", "x4", "6x4ft", "6x4in extra", "-6x4", "6y4"}) {
        const Status st = parsePrintSize(bad, wi, hi);
        QVERIFY2(!st, bad);
        QVERIFY(st.message().find("print size") != std::string::npos);
    }
    PrepareSettings s;
    QVERIFY(applyPrintSize(s, "6x4in", 300));
    QCOMPARE(s.width, 1800);
    QCOMPARE(s.height, 1200);
    QVERIFY(!applyPrintSize(s, "6x4in", 0));
    QVERIFY(!applyPrintSize(s, "6000x4000in", 3000));
}

void TestPrepare::orientationMovesEveryCorner() {
    // A 3 x 2 image with distinct pixels; for each EXIF orientation, where the stored top-left pixel shows up.
    Plane8 p(3, 2);
    for (int i = 0; i < 6; ++i) p.data[size_t(i)] = uint8_t(10 * (i + 1));  // row 0: 10 20 30, row 1: 40 50 60
    const Image in = Image::gray(p);
    struct Case {
        int orientation, w, h;
        std::vector<uint8_t> rows;
    };
    const std::vector<Case> cases = {
        {1, 3, 2, {10, 20, 30, 40, 50, 60}}, {2, 3, 2, {30, 20, 10, 60, 50, 40}}, {3, 3, 2, {60, 50, 40, 30, 20, 10}},
        {4, 3, 2, {40, 50, 60, 10, 20, 30}}, {5, 2, 3, {10, 40, 20, 50, 30, 60}}, {6, 2, 3, {40, 10, 50, 20, 60, 30}},
        {7, 2, 3, {60, 30, 50, 20, 40, 10}}, {8, 2, 3, {30, 60, 20, 50, 10, 40}},
    };
    for (const Case& c : cases) {
        const Image o = applyOrientation(in, c.orientation);
        QCOMPARE(o.width(), c.w);
        QCOMPARE(o.height(), c.h);
        QVERIFY2(o.channels[0].data == c.rows, qPrintable(QString("orientation %1").arg(c.orientation)));
    }
}

void TestPrepare::levelsOnFlatPatches() {
    PrepareSettings s;
    s.blackPoint = 50;
    s.whitePoint = 200;
    QCOMPARE(prepared(flat(8, 8, 50), s).channels[0].data[0], uint8_t(0));
    QCOMPARE(prepared(flat(8, 8, 20), s).channels[0].data[0], uint8_t(0));
    QCOMPARE(prepared(flat(8, 8, 200), s).channels[0].data[0], uint8_t(255));
    QCOMPARE(prepared(flat(8, 8, 125), s).channels[0].data[0], uint8_t(128));  // (125-50) * 255/150 = 127.5
}

void TestPrepare::brightnessContrastGamma() {
    PrepareSettings s;
    s.brightness = 20;  // + 51 levels
    QCOMPARE(mean(prepared(flat(8, 8, 100), s).channels[0]), 151.0);
    QCOMPARE(mean(prepared(flat(8, 8, 250), s).channels[0]), 255.0);
    s = {};
    s.contrast = 50;                                                 // slope 3 about 127.5
    QCOMPARE(mean(prepared(flat(8, 8, 100), s).channels[0]), 45.0);  // 127.5 - 27.5 * 3 = 45
    s.contrast = -100;                                               // flat mid-gray
    QCOMPARE(mean(prepared(flat(8, 8, 10), s).channels[0]), 128.0);
    s.contrast = 100;  // a threshold
    QCOMPARE(mean(prepared(flat(8, 8, 127), s).channels[0]), 0.0);
    QCOMPARE(mean(prepared(flat(8, 8, 128), s).channels[0]), 255.0);
    s = {};
    s.gamma = 2.0;
    QCOMPARE(mean(prepared(flat(8, 8, 64), s).channels[0]), double(std::lround(255.0 * std::sqrt(64 / 255.0))));
    QCOMPARE(mean(prepared(flat(8, 8, 0), s).channels[0]), 0.0);
    QCOMPARE(mean(prepared(flat(8, 8, 255), s).channels[0]), 255.0);
}

void TestPrepare::saturationZeroIsGray() {
    Image rgb;
    rgb.space = ColorSpace::RGB;
    rgb.channels = {Plane8(4, 4, 200), Plane8(4, 4, 50), Plane8(4, 4, 10)};
    PrepareSettings s;
    s.saturation = 0;
    const Image g = prepared(rgb, s);
    const uint8_t luma = uint8_t((77 * 200 + 150 * 50 + 29 * 10 + 128) >> 8);
    for (int c = 0; c < 3; ++c) QCOMPARE(g.channels[size_t(c)].data[5], luma);
    s.saturation = 200;  // away from the luma, clamped
    const Image v = prepared(rgb, s);
    QVERIFY(v.channels[0].data[0] > 200);
    QCOMPARE(v.channels[2].data[0], uint8_t(0));
}

void TestPrepare::resizeKeepsFlatAndMonotone() {
    for (ResizeFilter f : {ResizeFilter::Lanczos3, ResizeFilter::Bicubic, ResizeFilter::Box, ResizeFilter::Nearest})
        for (bool linear : {true, false})
            for (auto [w, h] : {std::pair{17, 9}, std::pair{200, 120}, std::pair{1, 1}, std::pair{3, 301}}) {
                PrepareSettings s;
                s.filter = f;
                s.linearResize = linear;
                s.width = w;
                s.height = h;
                s.fit = ResizeFit::Stretch;
                const Image out = prepared(flat(53, 31, 137), s);
                QCOMPARE(out.width(), w);
                QCOMPARE(out.height(), h);
                for (uint8_t v : out.channels[0].data) QCOMPARE(v, uint8_t(137));
            }
    // a horizontal ramp reduced by box stays non-decreasing (no ringing)
    Plane8 ramp(256, 4);
    for (int y = 0; y < 4; ++y)
        for (int x = 0; x < 256; ++x) ramp.at(y, x) = uint8_t(x);
    PrepareSettings s;
    s.filter = ResizeFilter::Box;
    s.width = 100;
    const Image r = prepared(Image::gray(ramp), s);
    for (int x = 1; x < r.width(); ++x) QVERIFY(r.channels[0].at(0, x) >= r.channels[0].at(0, x - 1));
}

void TestPrepare::reductionAveragesInLinearLight() {
    // A checkerboard of black and white reduced 2x: the mean light is half, which is sRGB 188, not 128.
    Plane8 p(64, 64);
    for (int y = 0; y < 64; ++y)
        for (int x = 0; x < 64; ++x) p.at(y, x) = ((x + y) & 1) ? 255 : 0;
    PrepareSettings s;
    s.filter = ResizeFilter::Box;
    s.scale = 0.5;
    const Image lin = prepared(Image::gray(p), s);
    QCOMPARE(lin.width(), 32);
    for (uint8_t v : lin.channels[0].data) QCOMPARE(v, uint8_t(188));
    s.linearResize = false;
    const Image gam = prepared(Image::gray(p), s);
    for (uint8_t v : gam.channels[0].data) QCOMPARE(v, uint8_t(128));
}

void TestPrepare::sharpenKeepsFlatAndRaisesEdges() {
    PrepareSettings s;
    s.sharpenAmount = 150;
    s.sharpenRadius = 2.0;
    const Image f = prepared(flat(30, 20, 90), s);
    for (uint8_t v : f.channels[0].data) QCOMPARE(v, uint8_t(90));
    Plane8 edge(40, 8);
    for (int y = 0; y < 8; ++y)
        for (int x = 0; x < 40; ++x) edge.at(y, x) = x < 20 ? 80 : 160;
    const Image e = prepared(Image::gray(edge), s);
    QVERIFY(e.channels[0].at(4, 19) < 80);   // undershoot on the dark side
    QVERIFY(e.channels[0].at(4, 20) > 160);  // overshoot on the bright side
    QCOMPARE(e.channels[0].at(4, 0), uint8_t(80));
}

void TestPrepare::pixelSizeReducesThenEnlarges() {
    PrepareSettings s;
    s.pixelSize = 4;
    s.filter = ResizeFilter::Box;
    const Image in = Image::gray(test::randomPlane(64, 40, test::freshSeed("pixel size")));
    const Image small = prepared(in, s);
    QCOMPARE(small.width(), 16);
    QCOMPARE(small.height(), 10);
    Image withIndices = small;
    withIndices.indices = small.channels[0];
    const Image big = enlargePixels(withIndices, 4);
    QCOMPARE(big.width(), 64);
    QCOMPARE(big.height(), 40);
    for (int y = 0; y < 40; ++y)
        for (int x = 0; x < 64; ++x) {
            QCOMPARE(big.channels[0].at(y, x), small.channels[0].at(y / 4, x / 4));
            QCOMPARE(big.indices.at(y, x), small.channels[0].at(y / 4, x / 4));
        }
}

void TestPrepare::cmykToneActsOnPaperLightness() {
    PrepareSettings s;
    s.brightness = 20;  // lighter print: less ink
    const Image out = prepared(flat(4, 4, 100, 4), s);
    for (int c = 0; c < 4; ++c) QCOMPARE(out.channels[size_t(c)].data[0], uint8_t(49));  // 255 - (155 + 51)
}

void TestPrepare::coverFillsTheFrameExactly_data() {
    QTest::addColumn<int>("inW");
    QTest::addColumn<int>("inH");
    QTest::addColumn<int>("w");
    QTest::addColumn<int>("h");
    QTest::addColumn<int>("fit");
    QTest::addColumn<int>("pixelSize");
    for (int fit : {int(ResizeFit::Cover), int(ResizeFit::Contain)}) {
        const char* name = fit == int(ResizeFit::Cover) ? "cover" : "contain";
        QTest::addRow("%s 3:2 to 800x480", name) << 1200 << 800 << 800 << 480 << fit << 1;
        QTest::addRow("%s 2:3 to 800x480", name) << 800 << 1200 << 800 << 480 << fit << 1;
        QTest::addRow("%s primes", name) << 37 << 101 << 17 << 13 << fit << 1;
        QTest::addRow("%s 1x1 to 7x5", name) << 1 << 1 << 7 << 5 << fit << 1;
        QTest::addRow("%s 1xN to 5x3", name) << 1 << 61 << 5 << 3 << fit << 1;
        QTest::addRow("%s Nx1 to 3x5", name) << 61 << 1 << 3 << 5 << fit << 1;
        QTest::addRow("%s pixel size 4", name) << 640 << 427 << 800 << 480 << fit << 4;
    }
}

void TestPrepare::coverFillsTheFrameExactly() {
    QFETCH(int, inW);
    QFETCH(int, inH);
    QFETCH(int, w);
    QFETCH(int, h);
    QFETCH(int, fit);
    QFETCH(int, pixelSize);
    PrepareSettings s;
    s.width = w;
    s.height = h;
    s.fit = ResizeFit(fit);
    s.pixelSize = pixelSize;
    int pw = 0, ph = 0;
    QVERIFY(preparedSize(s, inW, inH, pw, ph));
    QCOMPARE(pw, w);
    QCOMPARE(ph, h);
    Image in;
    in.space = ColorSpace::RGB;
    const uint64_t seed = test::freshSeed("frame");
    for (int c = 0; c < 3; ++c) in.channels.push_back(test::randomPlane(inW, inH, seed + uint64_t(c)));
    const Image out = prepared(in, s);
    QCOMPARE(out.width(), w / pixelSize);
    QCOMPARE(out.height(), h / pixelSize);
    QCOMPARE(enlargePixels(out, pixelSize).width(), w);
    QCOMPARE(enlargePixels(out, pixelSize).height(), h);
}

void TestPrepare::coverKeepsThePartTheGravityNames_data() {
    // A 10 x 20 image whose row y has the value 10 y (and a 20 x 10 one whose column x has 10 x) into a 10 x 10 frame
    // with the nearest filter at scale 1: the first kept row (column) is the crop's offset.
    QTest::addColumn<int>("gravity");
    QTest::addColumn<bool>("tall");
    QTest::addColumn<int>("first");
    QTest::newRow("tall center") << int(Gravity::Center) << true << 50;
    QTest::newRow("tall north") << int(Gravity::North) << true << 0;
    QTest::newRow("tall south") << int(Gravity::South) << true << 100;
    QTest::newRow("tall northeast") << int(Gravity::NorthEast) << true << 0;
    QTest::newRow("tall east") << int(Gravity::East) << true << 50;
    QTest::newRow("wide center") << int(Gravity::Center) << false << 50;
    QTest::newRow("wide west") << int(Gravity::West) << false << 0;
    QTest::newRow("wide east") << int(Gravity::East) << false << 100;
    QTest::newRow("wide southeast") << int(Gravity::SouthEast) << false << 100;
    QTest::newRow("wide north") << int(Gravity::North) << false << 50;
}

void TestPrepare::coverKeepsThePartTheGravityNames() {
    QFETCH(int, gravity);
    QFETCH(bool, tall);
    QFETCH(int, first);
    const int w = tall ? 10 : 20, h = tall ? 20 : 10;
    Plane8 p(w, h);
    for (int y = 0; y < h; ++y)
        for (int x = 0; x < w; ++x) p.at(y, x) = uint8_t(10 * (tall ? y : x));
    PrepareSettings s;
    s.width = s.height = 10;
    s.fit = ResizeFit::Cover;
    s.gravity = Gravity(gravity);
    s.filter = ResizeFilter::Nearest;
    const Image out = prepared(Image::gray(p), s);
    QCOMPARE(out.width(), 10);
    QCOMPARE(out.height(), 10);
    for (int k = 0; k < 10; ++k)
        QCOMPARE(int(tall ? out.channels[0].at(k, 3) : out.channels[0].at(3, k)), first + 10 * k);
}

void TestPrepare::containLetterboxesInTheBackground() {
    // 20 x 10 of gray 100 into 10 x 10: a 10 x 5 image and 5 rows of red, placed by the gravity.
    PrepareSettings s;
    s.width = s.height = 10;
    s.fit = ResizeFit::Contain;
    s.background = Rgb8{255, 0, 0};
    const std::pair<Gravity, int> cases[] = {{Gravity::Center, 2}, {Gravity::North, 0}, {Gravity::South, 5}};
    for (const auto& [g, top] : cases) {
        s.gravity = g;
        const Image out = prepared(flat(20, 10, 100), s);
        QCOMPARE(out.space, ColorSpace::RGB);  // a red letterbox on a gray image: the image becomes RGB
        QCOMPARE(out.width(), 10);
        QCOMPARE(out.height(), 10);
        for (int y = 0; y < 10; ++y) {
            const bool image = y >= top && y < top + 5;
            const Rgb8 want = image ? Rgb8{100, 100, 100} : Rgb8{255, 0, 0};
            for (int c = 0; c < 3; ++c) QCOMPARE(out.channels[size_t(c)].at(y, 7), want[size_t(c)]);
        }
    }
    // Without a background: white paper, and transparent where the image has alpha.
    s.background.reset();
    s.gravity = Gravity::West;
    Image withAlpha = flat(10, 20, 60);
    withAlpha.hasAlpha = true;
    withAlpha.alpha = Plane8(10, 20, 255);
    const Image out = prepared(withAlpha, s);
    QCOMPARE(out.space, ColorSpace::Gray);
    QVERIFY(out.hasAlpha);
    QCOMPARE(out.channels[0].at(4, 2), uint8_t(60));
    QCOMPARE(out.channels[0].at(4, 7), uint8_t(255));
    QCOMPARE(out.alpha.at(4, 2), uint8_t(255));
    QCOMPARE(out.alpha.at(4, 7), uint8_t(0));
    // CMYK: the background's inks (white = no ink).
    const Image inks = prepared(flat(20, 10, 30, 4), [] {
        PrepareSettings c;
        c.width = c.height = 10;
        c.fit = ResizeFit::Contain;
        return c;
    }());
    for (int c = 0; c < 4; ++c) QCOMPARE(inks.channels[size_t(c)].at(0, 0), uint8_t(0));
}

void TestPrepare::rotationTurnsClockwise() {
    const Plane8 p = test::randomPlane(7, 3, test::freshSeed("rotate"));
    for (int deg : {90, 180, 270}) {
        PrepareSettings s;
        s.rotate = deg;
        int w = 0, h = 0;
        QVERIFY(preparedSize(s, 7, 3, w, h));
        QCOMPARE(w, deg == 180 ? 7 : 3);
        QCOMPARE(h, deg == 180 ? 3 : 7);
        const Image turned = prepared(Image::gray(p), s);
        const Plane8& o = turned.channels[0];
        QCOMPARE(o.width, w);
        for (int y = 0; y < o.height; ++y)
            for (int x = 0; x < o.width; ++x) {
                // Clockwise: the output's top row is the input's left column read upwards.
                const uint8_t want = deg == 90    ? p.at(p.height - 1 - x, y)
                                     : deg == 180 ? p.at(p.height - 1 - y, p.width - 1 - x)
                                                  : p.at(x, p.width - 1 - y);
                QCOMPARE(o.at(y, x), want);
            }
    }
    // A turn then a cover frame: the frame is filled in the turned image's orientation.
    PrepareSettings s;
    s.rotate = 90;
    s.width = 80;
    s.height = 48;
    s.fit = ResizeFit::Cover;
    const Image out = prepared(flat(120, 80, 9), s);
    QCOMPARE(out.width(), 80);
    QCOMPARE(out.height(), 48);
}

void TestPrepare::backgroundFlattensAlpha() {
    Image in = flat(3, 1, 0, 3);
    for (Plane8& c : in.channels) c.data = {200, 200, 200};
    in.hasAlpha = true;
    in.alpha.width = 3;
    in.alpha.height = 1;
    in.alpha.data = {0, 128, 255};
    PrepareSettings s;
    s.background = Rgb8{0, 0, 255};
    QVERIFY(!s.isIdentity());
    const Image out = prepared(in, s);
    QVERIFY(!out.hasAlpha);
    QCOMPARE(out.channels[0].data, (std::vector<uint8_t>{0, 100, 200}));    // (128 * 200 + 127) / 255
    QCOMPARE(out.channels[2].data, (std::vector<uint8_t>{255, 227, 200}));  // (128 * 200 + 127 * 255 + 127) / 255
    // Gray with a gray background stays gray; the background is its luma.
    Image g = flat(2, 1, 0);
    g.hasAlpha = true;
    g.alpha = Plane8(2, 1, 0);
    s.background = Rgb8{40, 40, 40};
    const Image gout = prepared(g, s);
    QCOMPARE(gout.space, ColorSpace::Gray);
    QCOMPARE(gout.channels[0].data[0], uint8_t(40));
}

void TestPrepare::colourTexts() {
    Rgb8 c{};
    QVERIFY(parseColorText("#FF8000", c));
    QCOMPARE(c, (Rgb8{255, 128, 0}));
    QVERIFY(parseColorText("0a0", c));
    QCOMPARE(c, (Rgb8{0, 170, 0}));
    QVERIFY(parseColorText("White", c));
    QCOMPARE(c, (Rgb8{255, 255, 255}));
    QCOMPARE(colorText(Rgb8{1, 171, 255}), std::string("#01abff"));
    for (const char* bad : {"", "#12345", "#1234567", "purple-ish", "#gg0000"}) QVERIFY2(!parseColorText(bad, c), bad);
}

void TestPrepare::badSettingsAreRefused() {
    const Image in = flat(8, 8, 10);
    Image out;
    // Each case: the settings changed from the defaults, and the word the refusal must name.
    const std::pair<void (*)(PrepareSettings&), const char*> cases[] = {
        {[](PrepareSettings& s) { s.brightness = 101; }, "brightness"},
        {[](PrepareSettings& s) { s.gamma = 0; }, "gamma"},
        {[](PrepareSettings& s) { s.blackPoint = 200, s.whitePoint = 100; }, "black point"},
        {[](PrepareSettings& s) { s.pixelSize = 0; }, "pixel size"},
        {[](PrepareSettings& s) { s.sharpenAmount = 50, s.sharpenRadius = 0; }, "sharpen radius"},
        {[](PrepareSettings& s) { s.rotate = 45; }, "rotate"},
    };
    for (const auto& [change, word] : cases) {
        PrepareSettings s;
        change(s);
        const Status st = prepareImage(in, s, out);
        QVERIFY2(!st && st.message().find(word) != std::string::npos, word);
    }
}

void TestPrepare::cancelStops() {
    RunControl rc;
    rc.stop.requestStop();
    PrepareSettings s;
    s.width = 300;
    Image out;
    const Status st = prepareImage(flat(600, 400, 50), s, out, rc);
    QVERIFY(st.isCancelled());
}

QTEST_APPLESS_MAIN(TestPrepare)
#include "test_prepare.moc"
