// Which files a halftone can go to (io/outputformats.h): the list the studio's save dialog offers, the refusals and
// advice it shows, and the rule the file job applies to CMYK output.
#include <QtTest>

#include "io/outputformats.h"

using namespace halftone;
using namespace halftone::io;

namespace {

std::vector<std::string> filters(const ResultShape& shape) {
    std::vector<std::string> f;
    for (const OutputFormat& o : outputFormats(shape)) f.push_back(o.filter());
    return f;
}

Image grayImage(std::vector<uint8_t> values) {
    Plane8 p(int(values.size()), 1);
    p.data = std::move(values);
    return Image::gray(std::move(p));
}

}  // namespace

class TestOutputFormats : public QObject {
    Q_OBJECT
private slots:
    void shapeOfAResult();
    void formatsForEachKind();
    void pnmRefusalsAndAdvice();
    void onlyTiffKeepsCmyk();
};

void TestOutputFormats::shapeOfAResult() {
    const ResultShape binary = resultShape(grayImage({0, 255, 255, 0}));
    QVERIFY(binary.binary);
    QCOMPARE(binary.channels, 1);
    QCOMPARE(binary.paletteColors, 0);
    QVERIFY(!resultShape(grayImage({0, 128, 255})).binary);
    Image rgb = convertColor(grayImage({0, 255}), ColorMode::RGB);
    QCOMPARE(resultShape(rgb).space, ColorSpace::RGB);
    QVERIFY(!resultShape(rgb).binary);
    rgb.palette = {{0, 0, 0}, {255, 255, 255}};
    rgb.indices = Plane8(2, 1);
    QCOMPARE(resultShape(rgb).paletteColors, 2);
    rgb.hasAlpha = true;  // the indexed writer takes no alpha: such a result is written as RGB
    rgb.alpha = Plane8(2, 1);
    QCOMPARE(resultShape(rgb).paletteColors, 0);
}

void TestOutputFormats::formatsForEachKind() {
    using V = std::vector<std::string>;
    QCOMPARE(filters({ColorSpace::CMYK, 4}),
             (V{"TIFF, CMYK (*.tif *.tiff)", "PNG, converted to RGB for viewing (*.png)"}));
    // A binary CMYK halftone: the 1-bit separation first, then the plates (one TIFF per ink).
    QCOMPARE(filters({ColorSpace::CMYK, 4, true}),
             (V{"TIFF, CMYK, 1-bit separations (*.tif *.tiff)", "TIFF, 1-bit plates, one file per ink (*.tif *.tiff)",
                "PNG, converted to RGB for viewing (*.png)"}));
    QVERIFY(outputFormats({ColorSpace::CMYK, 4, true})[1].plates);
    Image cmyk;
    cmyk.space = ColorSpace::CMYK;
    for (uint8_t v : {0, 255, 255, 0}) cmyk.channels.push_back(Plane8(3, 2, v));
    QVERIFY(resultShape(cmyk).binary);
    cmyk.channels[2].data[4] = 7;
    QVERIFY(!resultShape(cmyk).binary);
    QCOMPARE(filters({ColorSpace::RGB, 3, false, 16}),
             (V{"PNG, indexed, 16 colours (*.png)", "TIFF, indexed, 16 colours (*.tif *.tiff)",
                "GIF, indexed, 16 colours (*.gif)", "PPM, RGB (*.ppm)"}));
    QCOMPARE(filters({ColorSpace::RGB, 3}), (V{"PNG (*.png)", "TIFF (*.tif *.tiff)", "PPM (*.ppm)"}));
    QCOMPARE(filters({ColorSpace::Gray, 1, true}),
             (V{"PNG, 1-bit (*.png)", "TIFF, 1-bit (*.tif *.tiff)", "PBM, 1-bit (*.pbm)", "PGM (*.pgm)"}));
    QCOMPARE(filters({ColorSpace::Gray, 1}), (V{"PNG (*.png)", "TIFF (*.tif *.tiff)", "PGM (*.pgm)"}));
    const std::vector<OutputFormat> gray = outputFormats({ColorSpace::Gray, 1});
    QVERIFY(findOutputFormat(gray, "out/a.TIFF") && findOutputFormat(gray, "out/a.TIFF")->name == "TIFF");
    QVERIFY(!findOutputFormat(gray, "a.pbm"));
    QVERIFY(!findOutputFormat(gray, "a"));
}

void TestOutputFormats::pnmRefusalsAndAdvice() {
    const ResultShape rgb{ColorSpace::RGB, 3};
    QCOMPARE(checkOutputFormat("a.pbm", rgb).message(),
             std::string("A PBM file holds one black-and-white channel, and this result has 3 channels."));
    QCOMPARE(checkOutputFormat("a.PBM", ResultShape{ColorSpace::Gray, 1}).message(),
             std::string("A PBM file holds only black and white, and this result has gray levels."));
    QVERIFY(checkOutputFormat("a.pbm", ResultShape{ColorSpace::Gray, 1, true}));
    QCOMPARE(checkOutputFormat("a.pgm", rgb).message(), std::string("A PGM file holds one gray channel."));
    QCOMPARE(checkOutputFormat("a.ppm", ResultShape{ColorSpace::CMYK, 4}).message(),
             std::string("A PPM file holds RGB, not CMYK."));
    QVERIFY(checkOutputFormat("a.png", rgb));
    QVERIFY(checkOutputFormat("a.jpg", ResultShape{ColorSpace::CMYK, 4}));  // not a PNM: the writer decides
    QCOMPARE(shapeName({ColorSpace::Gray, 1, true}), std::string("black and white"));
    QCOMPARE(outputAdvice({ColorSpace::Gray, 1, true}), std::string("PNG, TIFF, PBM or PGM"));
    QCOMPARE(outputAdvice({ColorSpace::CMYK, 4}), std::string("TIFF (keeps CMYK) or PNG (converted to RGB)"));
}

void TestOutputFormats::onlyTiffKeepsCmyk() {
    const std::vector<OutputFormat> cmyk = outputFormats({ColorSpace::CMYK, 4});
    for (const char* keeps : {"a.tif", "a.tiff", "A.TIF"}) {
        const OutputFormat* f = findOutputFormat(cmyk, keeps);
        QVERIFY2(f && !f->convertsToRgb, keeps);
    }
    QVERIFY(findOutputFormat(cmyk, "a.png")->convertsToRgb);
    QVERIFY(!findOutputFormat(cmyk, "a.jpg"));
}

QTEST_GUILESS_MAIN(TestOutputFormats)
#include "test_outputformats.moc"
