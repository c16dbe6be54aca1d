// Image files: PNM codec, OpenImageIO layouts and sample types, orientation, atomic writes, hostile files.
#include <QtTest>

#include <OpenImageIO/imageio.h>

#include <sys/stat.h>
#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <random>
#include <set>

#include <webp/encode.h>
#include <webp/mux.h>

#include "core/palette/paletteed.h"
#include "io/imagefile.h"
#include "tests/common/qtestutil.h"
#include "tests/common/testutil.h"

using namespace halftone;
namespace fs = std::filesystem;

namespace {

std::string writeBytes(const std::string& path, const std::string& bytes) {
    std::ofstream f(path, std::ios::binary);
    f.write(bytes.data(), std::streamsize(bytes.size()));
    return path;
}

std::string readBytes(const std::string& path) {
    std::ifstream f(path, std::ios::binary);
    return std::string((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
}

/// Writes interleaved float samples (nch per pixel) with OpenImageIO as `format`.
bool oiioWrite(const std::string& path, int w, int h, int nch, OIIO::TypeDesc format, const std::vector<float>& data,
               const std::function<void(OIIO::ImageSpec&)>& tweak = {}) {
    auto out = OIIO::ImageOutput::create(path);
    if (!out) return false;
    OIIO::ImageSpec spec(w, h, nch, format);
    if (tweak) tweak(spec);
    if (!out->open(path, spec)) return false;
    const bool ok = out->write_image(OIIO::TypeDesc::FLOAT, data.data());
    return out->close() && ok;
}

/// Same for uint16 samples.
bool oiioWrite16(const std::string& path, int w, int h, int nch, const std::vector<uint16_t>& data) {
    auto out = OIIO::ImageOutput::create(path);
    if (!out) return false;
    OIIO::ImageSpec spec(w, h, nch, OIIO::TypeDesc::UINT16);
    if (!out->open(path, spec)) return false;
    const bool ok = out->write_image(OIIO::TypeDesc::UINT16, data.data());
    return out->close() && ok;
}

/// Writes interleaved uint8 samples with OpenImageIO.
bool oiioWrite8(const std::string& path, int w, int h, int nch, const std::vector<uint8_t>& data,
                const std::function<void(OIIO::ImageSpec&)>& tweak = {}, int subimages = 1) {
    auto out = OIIO::ImageOutput::create(path);
    if (!out) return false;
    OIIO::ImageSpec spec(w, h, nch, OIIO::TypeDesc::UINT8);
    if (tweak) tweak(spec);
    std::vector<OIIO::ImageSpec> specs(size_t(subimages), spec);
    if (subimages > 1) {
        if (!out->open(path, subimages, specs.data())) return false;
    } else if (!out->open(path, spec)) {
        return false;
    }
    bool ok = true;
    for (int s = 0; s < subimages && ok; ++s) {
        if (s > 0) ok = out->open(path, specs[size_t(s)], OIIO::ImageOutput::AppendSubimage);
        std::vector<uint8_t> d = data;
        if (s > 0)
            for (auto& v : d) v = uint8_t(255 - v);
        ok = ok && out->write_image(OIIO::TypeDesc::UINT8, d.data());
    }
    return out->close() && ok;
}

std::vector<std::string> dirEntries(const std::string& dir) {
    std::vector<std::string> names;
    for (const auto& e : fs::directory_iterator(dir)) names.push_back(e.path().filename().string());
    std::sort(names.begin(), names.end());
    return names;
}

int tiffShortTag(const std::string& bytes, int tag);

int oiioBitsPerSample(const std::string& path) {
    // OpenImageIO does not report a PNG's bit depth (read it from the IHDR chunk, byte 24), nor a palette TIFF's (it
    // expands the palette): BitsPerSample of one sample is read from the file.
    if (path.size() > 4 && path.compare(path.size() - 4, 4, ".png") == 0) {
        std::ifstream f(path, std::ios::binary);
        char head[26] = {};
        if (!f.read(head, sizeof head)) return -1;
        return int(static_cast<unsigned char>(head[24]));
    }
    std::ifstream f(path, std::ios::binary);
    const std::string bytes((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
    if (const int bits = tiffShortTag(bytes, 258); bits > 0) return bits;
    auto in = OIIO::ImageInput::open(path);
    if (!in) return -1;
    return in->spec().get_int_attribute("oiio:BitsPerSample", in->spec().format == OIIO::TypeDesc::UINT8 ? 8 : 0);
}

bool oneLine(const std::string& s) { return s.find('\n') == std::string::npos && s.find('\r') == std::string::npos; }

/// The value of a SHORT tag of the first IFD of a little-endian TIFF file, or -1.
int tiffShortTag(const std::string& bytes, int tag) {
    auto u16 = [&](size_t at) { return int(uint8_t(bytes[at])) | (int(uint8_t(bytes[at + 1])) << 8); };
    auto u32 = [&](size_t at) { return uint32_t(u16(at)) | (uint32_t(u16(at + 2)) << 16); };
    if (bytes.size() < 8 || bytes.compare(0, 4, std::string("II*\0", 4)) != 0) return -1;
    const size_t ifd = u32(4);
    if (ifd + 2 > bytes.size()) return -1;
    const int n = u16(ifd);
    for (int i = 0; i < n && ifd + 2 + 12 * size_t(i + 1) <= bytes.size(); ++i) {
        const size_t e = ifd + 2 + 12 * size_t(i);
        if (u16(e) == tag && u16(e + 2) == 3) return u16(e + 8);
    }
    return -1;
}

/// An RGB image drawn from `colors` random palette indices, with Image::palette and Image::indices set as palette
/// halftoning leaves them.
Image randomIndexed(int w, int h, int colors, uint64_t seed) {
    Palette p;
    std::mt19937_64 rng(seed);
    std::set<Rgb8> used;
    while (int(p.colors.size()) < colors) {
        const Rgb8 c{uint8_t(rng()), uint8_t(rng()), uint8_t(rng())};
        if (used.insert(c).second) p.colors.push_back(c);
    }
    Plane8 idx(w, h);
    for (auto& v : idx.data) v = uint8_t(rng() % uint64_t(colors));
    Image im = expandIndexed(idx, p);
    im.palette = p.colors;
    im.indices = idx;
    return im;
}

/// An image of `channels` planes (1 gray, 3 RGB) whose samples are drawn at random from `values`; each plane of at
/// least values.size() pixels holds every value.
Image fromValues(int w, int h, int channels, const std::vector<int>& values, uint64_t seed) {
    std::mt19937_64 rng(seed);
    Image im;
    im.space = channels == 1 ? ColorSpace::Gray : ColorSpace::RGB;
    for (int c = 0; c < channels; ++c) {
        Plane8 p(w, h);
        for (auto& v : p.data) v = uint8_t(values[size_t(rng() % values.size())]);
        for (size_t i = 0; i < values.size() && i < p.data.size(); ++i) p.data[i] = uint8_t(values[i]);
        im.channels.push_back(p);
    }
    return im;
}

/// The bits per sample and the colour type of a PNG (IHDR bytes 24 and 25), or the BitsPerSample and the
/// Photometric of a little-endian TIFF.
std::pair<int, int> storedForm(const std::string& file) {
    const std::string bytes = readBytes(file);
    if (bytes.size() > 26 && bytes.compare(1, 3, "PNG") == 0) return {int(uint8_t(bytes[24])), int(uint8_t(bytes[25]))};
    return {tiffShortTag(bytes, 258), tiffShortTag(bytes, 262)};
}

/// Reads `file` with both decoders (the built-in libpng/libtiff one and OpenImageIO's) and checks each against `im`.
void checkReadsBack(const std::string& file, const Image& im) {
    for (const io::Decoder decoder : {io::Decoder::BuiltIn, io::Decoder::OpenImageIO}) {
        io::ReadOptions ro;
        ro.decoder = decoder;
        Image back;
        const Status r = io::readImage(file, back, ro);
        QVERIFY2(r.isOk(), r.message().c_str());
        QCOMPARE(back.space, im.space);
        QCOMPARE(back.hasAlpha, im.hasAlpha);
        QVERIFY2(back.channels == im.channels, file.c_str());
        if (im.hasAlpha) QVERIFY(back.alpha == im.alpha);
    }
}

}  // namespace

class TestImageIo : public QObject {
    Q_OBJECT
private slots:
    void init();
    void pnmRoundTrip_data();
    void pnmRoundTrip();
    void pnmSampleConversion();
    void pnmHeaderComments();
    void pnmMultiImage();
    void pbmBits();
    void pnmMalformed_data();
    void pnmMalformed();
    void sampleTypes_data();
    void sampleTypes();
    void layouts_data();
    void layouts();
    void palette();
    void indexedWrite_data();
    void indexedWrite();
    void indexedFallsBackToRgb();
    void fewValuesWrite_data();
    void fewValuesWrite();
    void compressionLevels();
    void tiffStripsOnPool();
    void cancelledWrite_data();
    void cancelledWrite();
    void exifOrientation_data();
    void exifOrientation();
    void exifJpeg();
    void multiImageTiff();
    void tiledTiff();
    void writeByExtension_data();
    void writeByExtension();
    void writeRefusals_data();
    void writeRefusals();
    void writeResolution();
    void atomicWriteKeepsOldFile();
    void readOnlyDirectory();
    void samePathCases();
    void hostileFiles_data();
    void hostileFiles();
    void maxPixels();
    void notAFile();
    void realImages_data();
    void realImages();
    void memoryLimit();
    void cancelledRead();
    void webpStill();
    void webpAnimatedSmallFirstFrame();
    void icoLargestEntry();
    void contentNotName();

private:
    std::unique_ptr<QTemporaryDir> tmp_;  // fresh per test function and data row
    std::string dir() const { return tmp_->path().toStdString(); }
    std::string path(const std::string& name) const { return dir() + "/" + name; }
};

void TestImageIo::init() {
    tmp_ = std::make_unique<QTemporaryDir>();
    QVERIFY(tmp_->isValid());
}

void TestImageIo::pnmRoundTrip_data() {
    test::columns<QString, int, int>("ext", "w", "h");
    for (const char* ext : {"pgm", "ppm", "pbm"})
        for (auto [w, h] : std::vector<std::pair<int, int>>{{1, 1}, {1, 97}, {97, 1}, {7, 13}, {31, 33}, {257, 129}})
            QTest::newRow(qPrintable(QString("%1 %2x%3").arg(ext).arg(w).arg(h))) << QString(ext) << w << h;
}

void TestImageIo::pnmRoundTrip() {
    QFETCH(QString, ext);
    QFETCH(int, w);
    QFETCH(int, h);
    Image im;
    const int n = ext == "ppm" ? 3 : 1;
    im.space = n == 3 ? ColorSpace::RGB : ColorSpace::Gray;
    for (int c = 0; c < n; ++c) {
        Plane8 p = test::randomPlane(w, h, test::freshSeed("pnm round trip"));
        if (ext == "pbm")
            for (auto& v : p.data) v = v >= 128 ? 255 : 0;
        im.channels.push_back(p);
    }
    const std::string file = path("rt." + ext.toStdString());
    io::WriteOptions wo;
    const Status ws = io::writeImage(file, im, wo);
    QVERIFY2(ws.isOk(), ws.message().c_str());
    Image back;
    io::ReadInfo info;
    const Status rs = io::readImage(file, back, {}, &info);
    QVERIFY2(rs.isOk(), rs.message().c_str());
    QCOMPARE(info.format, std::string("pnm"));
    QCOMPARE(back.space, im.space);
    QCOMPARE(back.channelCount(), n);
    for (int c = 0; c < n; ++c) QVERIFY(back.channels[size_t(c)] == im.channels[size_t(c)]);
    QVERIFY(!back.hasAlpha);
    // Header: the file is exactly header + packed pixels.
    const size_t raster = ext == "pbm" ? size_t((w + 7) / 8) * size_t(h) : size_t(w) * size_t(h) * size_t(n);
    const std::string header = ext == "pbm" ? "P4\n" + std::to_string(w) + " " + std::to_string(h) + "\n"
                                            : std::string("P") + (n == 3 ? "6" : "5") + "\n" + std::to_string(w) + " " +
                                                  std::to_string(h) + "\n255\n";
    QCOMPARE(readBytes(file).size(), header.size() + raster);
    QCOMPARE(readBytes(file).substr(0, header.size()), header);
}

void TestImageIo::pnmSampleConversion() {
    // 16-bit P5: (v*255 + 32767) / 65535, big-endian samples.
    const std::vector<uint16_t> v16 = {0, 128, 129, 257, 32767, 32768, 32896, 65279, 65534, 65535};
    std::string f = "P5\n" + std::to_string(v16.size()) + " 1\n65535\n";
    for (uint16_t v : v16) f += char(v >> 8), f += char(v & 255);
    Image im;
    QVERIFY(io::readImage(writeBytes(path("s16.pgm"), f), im).isOk());
    const std::vector<uint8_t> expect16 = {0, 0, 1, 1, 127, 128, 128, 254, 255, 255};
    QCOMPARE(im.channels[0].data, expect16);
    // maxval 1000: (v*255 + 500) / 1000.
    std::string g = "P5\n4 1\n1000\n";
    for (uint16_t v : {0, 2, 501, 1000}) g += char(v >> 8), g += char(v & 255);
    QVERIFY(io::readImage(writeBytes(path("s1000.pgm"), g), im).isOk());
    QCOMPARE(im.channels[0].data, (std::vector<uint8_t>{0, 1, 128, 255}));
    // maxval 15 (one byte per sample): 15 -> 255, 7 -> (1785 + 7)/15 = 119.
    QVERIFY(io::readImage(writeBytes(path("s15.pgm"), std::string("P5\n3 1\n15\n") + char(0) + char(7) + char(15)), im)
                .isOk());
    QCOMPARE(im.channels[0].data, (std::vector<uint8_t>{0, 119, 255}));
}

void TestImageIo::pnmHeaderComments() {
    std::string f = "P6# magic comment\n# full line\n 2 #w\n1\n#before maxval\n255\n";
    f += std::string("\x01\x02\x03\xfa\xfb\xfc", 6);
    Image im;
    const Status s = io::readImage(writeBytes(path("c.ppm"), f), im);
    QVERIFY2(s.isOk(), s.message().c_str());
    QCOMPARE(im.width(), 2);
    QCOMPARE(im.height(), 1);
    QCOMPARE(im.space, ColorSpace::RGB);
    QCOMPARE(int(im.channels[1].at(0, 1)), 0xfb);
}

void TestImageIo::pnmMultiImage() {
    const std::string one = std::string("P5\n2 1\n255\n") + char(10) + char(20);
    Image im;
    io::ReadInfo info;
    QVERIFY(io::readImage(writeBytes(path("m.pgm"), one + "\n" + one), im, {}, &info).isOk());
    QVERIFY(!info.notes.empty());
    QVERIFY(io::readImage(writeBytes(path("s.pgm"), one), im, {}, &info).isOk());
    QVERIFY(info.notes.empty());
}

void TestImageIo::pbmBits() {
    // 10 x 2 bitmap: 1 bits are black (0), rows padded to whole bytes.
    const std::string f = std::string("P4\n10 2\n") + char(0b10100000) + char(0b01000000) + char(0xFF) + char(0xC0);
    Image im;
    QVERIFY(io::readImage(writeBytes(path("b.pbm"), f), im).isOk());
    const std::vector<uint8_t> expect = {0, 255, 0, 255, 255, 255, 255, 255, 255, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0};
    QCOMPARE(im.channels[0].data, expect);
    // and back: the writer produces the same bytes
    QVERIFY(io::writeImage(path("b2.pbm"), im).isOk());
    QCOMPARE(readBytes(path("b2.pbm")), f);
}

void TestImageIo::pnmMalformed_data() {
    test::columns<QByteArray, QString>("bytes", "message");
    auto row = [](const char* name, std::string b, const char* msg) {
        QTest::newRow(name) << QByteArray(b.data(), int(b.size())) << QString(msg);
    };
    row("missing height", "P5\n12", "header ends");
    row("missing maxval", "P6\n12 3\n", "maxval is missing");
    row("letters", "P5\nab 3\n255\n", "width is not a number");
    row("maxval 0", "P5\n1 1\n0\n\x01", "maxval 0 is outside");
    row("maxval big", "P5\n1 1\n65536\n\x01", "outside 1..65535");
    row("digits overflow", "P5\n99999999999 1\n255\n", "too large");
    row("no pixels", "P5\n4 4\n255\n", "truncated");
    // append(), not "literal" + std::string: GCC 12 at -O3 warns wrongly (-Warray-bounds) on the latter after a
    // precompiled <string>.
    row("short pixels", std::string("P6\n4 4\n255\n").append(47, 'x'), "truncated");
    row("short 16-bit", std::string("P5\n4 4\n65535\n").append(31, 'x'), "truncated");
    row("zero width", "P5\n0 4\n255\n", "zero size");
    row("header ends", "P5\n4 4\n255", "header ends");
    row("no whitespace", "P5\n1 1\n255x", "no whitespace after maxval");
    row("over maxval", "P5\n2 1\n100\n\x05\x65", "exceeds maxval");
    row("pam", "P7\nWIDTH 1\n", "PAM (P7) is not supported");
}

void TestImageIo::pnmMalformed() {
    QFETCH(QByteArray, bytes);
    QFETCH(QString, message);
    const std::string file = writeBytes(path("bad.pgm"), bytes.toStdString());
    Image im;
    const Status s = io::readImage(file, im);
    QVERIFY(!s.isOk());
    QVERIFY2(s.message().find(message.toStdString()) != std::string::npos, s.message().c_str());
    QVERIFY2(s.message().find("'" + file + "'") != std::string::npos, s.message().c_str());
    QVERIFY(oneLine(s.message()));
}

void TestImageIo::sampleTypes_data() {
    test::stringRows<2>({"ext", "type"}, {{"png uint8", "png", "uint8"},
                                          {"png uint16", "png", "uint16"},
                                          {"tif uint8", "tif", "uint8"},
                                          {"tif uint16", "tif", "uint16"},
                                          {"tif half", "tif", "half"},
                                          {"tif float", "tif", "float"},
                                          {"exr half", "exr", "half"},
                                          {"exr float", "exr", "float"}});
}

void TestImageIo::sampleTypes() {
    QFETCH(QString, ext);
    QFETCH(QString, type);
    const int w = 37, h = 11;
    std::mt19937_64 rng(test::freshSeed("sample types"));
    const std::string file = path("t." + ext.toStdString());
    std::vector<uint8_t> expect(size_t(w) * h);
    if (type == "uint16") {
        std::vector<uint16_t> d(size_t(w) * h);
        for (auto& v : d) v = uint16_t(rng());
        d[0] = 0, d[1] = 65535, d[2] = 128, d[3] = 129, d[4] = 32896;
        for (size_t i = 0; i < d.size(); ++i) expect[i] = uint8_t((uint32_t(d[i]) * 255 + 32767) / 65535);
        QCOMPARE(int(expect[2]), 0);
        QCOMPARE(int(expect[3]), 1);
        QVERIFY(oiioWrite16(file, w, h, 1, d));
    } else {
        std::vector<float> d(size_t(w) * h);
        const bool half = type == "half";
        for (auto& v : d)
            v = half ? float(int(rng() % 1400) - 200) / 1024.0f : float(int(rng() % 1400) - 200) / 1000.0f;
        // Spot values: clamp below and above, exact half-way 127.5 rounds up, NaN counts as 0.
        d[0] = -3.0f, d[1] = 7.0f, d[2] = 0.5f, d[3] = 1.0f, d[4] = std::nanf("");
        if (type == "uint8")
            for (auto& v : d)
                v = std::isnan(v)
                        ? 0.0f
                        : float(std::clamp(int(std::lround(std::clamp(v, 0.0f, 1.0f) * 255.0f)), 0, 255)) / 255.0f;
        for (size_t i = 0; i < d.size(); ++i) {
            const float v = d[i];
            expect[i] = std::isnan(v) ? 0 : uint8_t(std::lround(double(std::clamp(v, 0.0f, 1.0f)) * 255.0));
        }
        QCOMPARE(int(expect[0]), 0);
        QCOMPARE(int(expect[1]), 255);
        if (type != "uint8") QCOMPARE(int(expect[2]), 128);
        const OIIO::TypeDesc t = type == "uint8" ? OIIO::TypeDesc::UINT8
                                 : half          ? OIIO::TypeDesc::HALF
                                                 : OIIO::TypeDesc::FLOAT;
        QVERIFY2(oiioWrite(file, w, h, 1, t, d), OIIO::geterror().c_str());
    }
    Image im;
    io::ReadInfo info;
    const Status s = io::readImage(file, im, {}, &info);
    QVERIFY2(s.isOk(), s.message().c_str());
    auto direct = OIIO::ImageInput::open(file);
    QVERIFY(direct);
    QCOMPARE(info.sourceType, std::string(direct->spec().format.c_str()));  // as stored (TIFF may widen half)
    QCOMPARE(im.space, ColorSpace::Gray);
    QCOMPARE(im.channels[0].data, expect);
}

void TestImageIo::layouts_data() {
    test::columns<QString, int, bool>("ext", "nch", "cmyk");
    QTest::newRow("gray png") << "png" << 1 << false;
    QTest::newRow("gray+alpha png") << "png" << 2 << false;
    QTest::newRow("rgb png") << "png" << 3 << false;
    QTest::newRow("rgba png") << "png" << 4 << false;
    QTest::newRow("gray+alpha tif") << "tif" << 2 << false;
    QTest::newRow("rgba tif") << "tif" << 4 << false;
    QTest::newRow("cmyk tif") << "tif" << 4 << true;
    QTest::newRow("cmyk+alpha tif") << "tif" << 5 << true;
}

void TestImageIo::layouts() {
    QFETCH(QString, ext);
    QFETCH(int, nch);
    QFETCH(bool, cmyk);
    const int w = 23, h = 9;
    std::mt19937_64 rng(test::freshSeed("layouts"));
    std::vector<uint8_t> d(size_t(w) * h * nch);
    for (auto& v : d) v = uint8_t(rng());
    const bool alpha = cmyk ? nch == 5 : nch == 2 || nch == 4;
    if (alpha) d[size_t(nch - 1)] = 0;  // fully transparent first pixel keeps its colour (unassociated)
    const std::string file = path("l." + ext.toStdString());
    QVERIFY2(oiioWrite8(file, w, h, nch, d,
                        [&](OIIO::ImageSpec& s) {
                            if (cmyk) {
                                s.channelnames = {"C", "M", "Y", "K"};
                                if (nch == 5) s.channelnames.push_back("A");
                                s.attribute("tiff:ColorSpace", "CMYK");
                            }
                            if (alpha) {
                                s.alpha_channel = nch - 1;
                                s.attribute("oiio:UnassociatedAlpha", 1);
                            }
                        }),
             OIIO::geterror().c_str());
    Image im;
    const Status s = io::readImage(file, im);
    QVERIFY2(s.isOk(), s.message().c_str());
    const int colors = alpha ? nch - 1 : nch;
    QCOMPARE(im.channelCount(), colors);
    QCOMPARE(im.space, cmyk ? ColorSpace::CMYK : colors == 3 ? ColorSpace::RGB : ColorSpace::Gray);
    QCOMPARE(im.hasAlpha, alpha);
    for (int y = 0; y < h; ++y)
        for (int x = 0; x < w; ++x) {
            const size_t i = (size_t(y) * w + x) * nch;
            for (int c = 0; c < colors; ++c) QCOMPARE(im.channels[size_t(c)].at(y, x), d[i + c]);
            if (alpha) QCOMPARE(im.alpha.at(y, x), d[i + nch - 1]);
        }
    // Round trip through our writer keeps layout and samples (CMYK only in TIFF).
    const std::string again = path("again." + ext.toStdString());
    QVERIFY(io::writeImage(again, im).isOk());
    Image back;
    QVERIFY(io::readImage(again, back).isOk());
    QCOMPARE(back.space, im.space);
    QCOMPARE(back.hasAlpha, im.hasAlpha);
    QVERIFY(back.channels == im.channels);
    if (alpha) QVERIFY(back.alpha == im.alpha);
}

void TestImageIo::palette() {
    // tests/data/palette.png: 4x3, index (x + y) % 4 into this palette (make_testfiles.py).
    const uint8_t pal[4][3] = {{255, 0, 0}, {0, 128, 255}, {10, 20, 30}, {255, 255, 255}};
    Image im;
    const Status s = io::readImage(test::dataPath("palette.png"), im);
    QVERIFY2(s.isOk(), s.message().c_str());
    QCOMPARE(im.space, ColorSpace::RGB);
    QCOMPARE(im.width(), 4);
    QCOMPARE(im.height(), 3);
    for (int y = 0; y < 3; ++y)
        for (int x = 0; x < 4; ++x)
            for (int c = 0; c < 3; ++c) QCOMPARE(im.channels[size_t(c)].at(y, x), pal[(x + y) % 4][c]);
}

void TestImageIo::indexedWrite_data() {
    test::columns<QString, int>("name", "colors");
    QTest::addColumn<int>("bitDepth");  // of the indexed file; 0 = written as RGB
    QTest::newRow("png 2 colours, 1 bit") << "o.png" << 2 << 1;
    QTest::newRow("png 3 colours, 2 bits") << "o.png" << 3 << 2;
    QTest::newRow("png 4 colours, 2 bits") << "o.png" << 4 << 2;
    QTest::newRow("png 5 colours, 4 bits") << "o.png" << 5 << 4;
    QTest::newRow("png 16 colours, 4 bits") << "o.png" << 16 << 4;
    QTest::newRow("png 17 colours, 8 bits") << "o.png" << 17 << 8;
    QTest::newRow("png 256 colours, 8 bits") << "o.png" << 256 << 8;
    QTest::newRow("tif 2 colours, 4 bits") << "o.tif" << 2 << 4;
    QTest::newRow("tif 16 colours, 4 bits") << "o.tif" << 16 << 4;
    QTest::newRow("tiff 17 colours, 8 bits") << "o.tiff" << 17 << 8;
    QTest::newRow("tif 256 colours, 8 bits") << "o.tif" << 256 << 8;
    QTest::newRow("gif 2 colours") << "o.gif" << 2 << 1;
    QTest::newRow("gif 3 colours") << "o.gif" << 3 << 2;
    QTest::newRow("gif 16 colours") << "o.gif" << 16 << 4;
    QTest::newRow("gif 17 colours") << "o.gif" << 17 << 5;
    QTest::newRow("gif 256 colours") << "o.gif" << 256 << 8;
    QTest::newRow("ppm is RGB") << "o.ppm" << 7 << 0;
    QTest::newRow("bmp is RGB") << "o.bmp" << 7 << 0;
}

void TestImageIo::indexedWrite() {
    QFETCH(QString, name);
    QFETCH(int, colors);
    QFETCH(int, bitDepth);
    // Odd sizes: rows that end inside a byte at every bit depth; TIFF strips of more than one row, and (2000 x
    // 300) more than one strip; GIF codes past the 4096-entry table.
    for (const auto& [w, h] : {std::pair{1, 1}, std::pair{13, 7}, std::pair{301, 211}, std::pair{2000, 300}}) {
        const Image im = randomIndexed(w, h, colors, test::freshSeed("indexed write"));
        const std::string file = path(name.toStdString());
        const Status s = io::writeImage(file, im);
        QVERIFY2(s.isOk(), s.message().c_str());
        QCOMPARE(dirEntries(dir()), std::vector<std::string>{name.toStdString()});
        Image back;
        const Status r = io::readImage(file, back);
        QVERIFY2(r.isOk(), r.message().c_str());
        QCOMPARE(back.space, ColorSpace::RGB);
        QVERIFY(back.channels == im.channels);
        const std::string bytes = readBytes(file);
        if (name.endsWith(".png")) {
            // IHDR: bit depth at byte 24, colour type at 25 (3 = palette); a PLTE chunk of 3 bytes per colour.
            QVERIFY(bytes.size() > 33);
            QCOMPARE(int(uint8_t(bytes[25])), bitDepth ? 3 : 2);
            if (bitDepth) {
                QCOMPARE(int(uint8_t(bytes[24])), bitDepth);
                const size_t plte = bytes.find("PLTE");
                QVERIFY(plte != std::string::npos && plte >= 4);
                const uint32_t len = (uint32_t(uint8_t(bytes[plte - 4])) << 24) |
                                     (uint32_t(uint8_t(bytes[plte - 3])) << 16) |
                                     (uint32_t(uint8_t(bytes[plte - 2])) << 8) | uint8_t(bytes[plte - 1]);
                QCOMPARE(int(len), 3 * colors);
                QCOMPARE(uint8_t(bytes[plte + 4]), im.palette[0][0]);
            }
        } else if (name.endsWith(".gif")) {
            // The global colour table is the palette in its order, padded to 2^bitDepth entries.
            QCOMPARE(bytes.substr(0, 6), std::string("GIF89a"));
            QCOMPARE(int(uint8_t(bytes[10])), 0x80 | ((bitDepth - 1) << 4) | (bitDepth - 1));
            for (int k = 0; k < colors; ++k)
                for (int c = 0; c < 3; ++c)
                    QCOMPARE(uint8_t(bytes[size_t(13 + 3 * k + c)]), im.palette[size_t(k)][size_t(c)]);
        } else if (name.contains(".tif")) {
            QCOMPARE(tiffShortTag(bytes, 262), 3);  // photometric: palette colour
            QCOMPARE(tiffShortTag(bytes, 258), bitDepth);
            QCOMPARE(tiffShortTag(bytes, 277), 1);
        }
        QVERIFY(fs::remove(file));
    }
}

void TestImageIo::indexedFallsBackToRgb() {
    // A palette that does not describe the pixels (here one pixel changed) is not written: the file is RGB and
    // holds the pixels (40 random colours: their channels' values have far more than 256 combinations).
    Image im = randomIndexed(20, 10, 40, test::freshSeed("indexed fallback"));
    im.channels[1].at(3, 5) ^= 1;
    for (const char* name : {"o.png", "o.tif"}) {
        const std::string file = path(name);
        QVERIFY(io::writeImage(file, im).isOk());
        Image back;
        QVERIFY(io::readImage(file, back).isOk());
        QVERIFY(back.channels == im.channels);
        const std::string bytes = readBytes(file);
        if (std::string(name) == "o.png")
            QCOMPARE(int(uint8_t(bytes[25])), 2);
        else
            QCOMPARE(tiffShortTag(bytes, 262), 2);
    }
    // With alpha the palette is not used either (an indexed file holds no per-pixel alpha here).
    Image withAlpha = randomIndexed(9, 9, 4, test::freshSeed("indexed alpha"));
    withAlpha.hasAlpha = true;
    withAlpha.alpha = Plane8(9, 9, 128);
    const std::string file = path("a.png");
    QVERIFY(io::writeImage(file, withAlpha).isOk());
    Image back;
    QVERIFY(io::readImage(file, back).isOk());
    QVERIFY(back.hasAlpha && back.alpha == withAlpha.alpha && back.channels == withAlpha.channels);
}

void TestImageIo::fewValuesWrite_data() {
    test::columns<QString, int, QString>("name", "channels", "values");  // values: each channel's, comma-separated
    test::columns<int, int>("bits", "colorType");  // PNG colour type (0 gray, 2 RGB, 3 palette) or TIFF photometric
    QTest::newRow("png binary gray, 1 bit") << "o.png" << 1 << "0,255" << 1 << 0;
    QTest::newRow("png only white, 1 bit") << "o.png" << 1 << "255" << 1 << 0;
    QTest::newRow("png 4 levels, 2 bits") << "o.png" << 1 << "0,85,170,255" << 2 << 0;
    QTest::newRow("png 3 of 4 levels, 2 bits") << "o.png" << 1 << "0,170,255" << 2 << 0;
    QTest::newRow("png 16 levels, 4 bits")
        << "o.png" << 1 << "0,17,34,51,68,85,102,119,136,153,170,187,204,221,238,255" << 4 << 0;
    QTest::newRow("png 3 uneven levels, 8 bits") << "o.png" << 1 << "0,128,255" << 8 << 0;
    QTest::newRow("png binary rgb, 4-bit indexed") << "o.png" << 3 << "0,255" << 4 << 3;
    QTest::newRow("png rgb of 2 values, 8 colours") << "o.png" << 3 << "40,200" << 4 << 3;
    QTest::newRow("png rgb of 3 levels, 8-bit indexed") << "o.png" << 3 << "0,128,255" << 8 << 3;
    QTest::newRow("png rgb of 7 levels, 8-bit rgb") << "o.png" << 3 << "0,42,85,128,170,212,255" << 8 << 2;
    QTest::newRow("tif binary gray, 1 bit") << "o.tif" << 1 << "0,255" << 1 << 1;
    QTest::newRow("tif 4 levels, 2 bits") << "o.tif" << 1 << "0,85,170,255" << 2 << 1;
    QTest::newRow("tif 16 levels, 4 bits")
        << "o.tif" << 1 << "0,17,34,51,68,85,102,119,136,153,170,187,204,221,238,255" << 4 << 1;
    QTest::newRow("tif 3 uneven levels, 8 bits") << "o.tif" << 1 << "0,128,255" << 8 << 1;
    QTest::newRow("tif binary rgb, 4-bit palette") << "o.tif" << 3 << "0,255" << 4 << 3;
    QTest::newRow("tif rgb of 3 levels, 8-bit palette") << "o.tif" << 3 << "0,128,255" << 8 << 3;
}

void TestImageIo::fewValuesWrite() {
    QFETCH(QString, name);
    QFETCH(int, channels);
    QFETCH(QString, values);
    QFETCH(int, bits);
    QFETCH(int, colorType);
    std::vector<int> v;
    for (const QString& x : values.split(',')) v.push_back(x.toInt());
    // Rows that end inside a byte at every depth, single rows and columns, and TIFFs of many strips.
    for (const auto& [w, h] : {std::pair{1, 1}, std::pair{1, 37}, std::pair{53, 1}, std::pair{13, 7},
                               std::pair{301, 211}, std::pair{2003, 600}}) {
        const Image im = fromValues(w, h, channels, v, test::freshSeed("few values write"));
        const std::string file = path(name.toStdString());
        const Status s = io::writeImage(file, im);
        QVERIFY2(s.isOk(), s.message().c_str());
        QCOMPARE(dirEntries(dir()), std::vector<std::string>{name.toStdString()});
        if (size_t(w) * size_t(h) >= v.size()) {  // every value present: the form of the values
            const auto [storedBits, storedType] = storedForm(file);
            QCOMPARE(storedBits, bits);
            QCOMPARE(storedType, colorType);
        }
        checkReadsBack(file, im);
        QVERIFY(fs::remove(file));
    }
}

void TestImageIo::compressionLevels() {
    // Every level holds the same pixels; higher levels make a compressible image smaller.
    Image im = fromValues(640, 480, 3, {0, 255}, test::freshSeed("compression levels"));
    for (int y = 0; y < 240; ++y)  // a flat half that compresses
        for (int c = 0; c < 3; ++c) std::fill_n(im.channels[size_t(c)].row(y), 640, uint8_t(c == 1 ? 255 : 0));
    const Image gray = fromValues(640, 480, 1, {0, 40, 99, 255}, test::freshSeed("compression levels gray"));
    for (const char* name : {"c.png", "c.tif"}) {
        for (const Image* image : std::initializer_list<const Image*>{&im, &gray}) {
            std::vector<uintmax_t> sizes;
            for (const char* word : {"0", "1", "2", "3", "4", "5", "6", "7", "8", "9", "fast", "default", "best"}) {
                io::WriteOptions wo;
                QVERIFY2(io::parseCompression(word, wo.compressLevel).isOk(), word);
                const std::string file = path(name);
                QVERIFY(io::writeImage(file, *image, wo).isOk());
                checkReadsBack(file, *image);
                sizes.push_back(fs::file_size(file));
            }
            QVERIFY2(sizes[0] > sizes[9], name);  // stored against level 9
            QCOMPARE(sizes[10], sizes[1]);        // fast = 1
            QCOMPARE(sizes[11], sizes[6]);        // default = 6
            QCOMPARE(sizes[12], sizes[9]);        // best = 9
        }
    }
    int level = -1;
    for (const char* bad : {"", "10", "-1", "fastest", "Best", "1.5"}) {
        const Status s = io::parseCompression(bad, level);
        QVERIFY2(!s.isOk(), bad);
        QVERIFY2(s.message().find("fast, default, best or a level 0..9") != std::string::npos, s.message().c_str());
    }
}

void TestImageIo::tiffStripsOnPool() {
    // Strips compressed on 1, 2, 3 and 8 workers give the same file, byte for byte, for every sample layout; the
    // image is many strip groups long, with a last strip shorter than the rest.
    const int w = 1537, h = 1111;
    Image rgba = test::randomRgb(w, h, "tiff strips");
    rgba.hasAlpha = true;
    rgba.alpha = test::randomPlane(w, h, test::freshSeed("tiff strips alpha"));
    Image cmyk = test::randomRgb(w, h, "tiff strips cmyk");
    cmyk.space = ColorSpace::CMYK;
    cmyk.channels.push_back(test::randomPlane(w, h, test::freshSeed("tiff strips k")));
    const Image binary = fromValues(w, h, 1, {0, 255}, test::freshSeed("tiff strips binary"));
    const Image indexed = fromValues(w, h, 3, {0, 255}, test::freshSeed("tiff strips indexed"));
    for (const Image* im : std::initializer_list<const Image*>{&rgba, &cmyk, &binary, &indexed}) {
        std::string first;
        for (const int threads : {1, 2, 3, 8}) {
            io::WriteOptions wo;
            wo.control.threads = threads;
            const std::string file = path("s.tif");
            QVERIFY(io::writeImage(file, *im, wo).isOk());
            const std::string bytes = readBytes(file);
            if (first.empty()) {
                first = bytes;
                Image back;
                QVERIFY(io::readImage(file, back).isOk());
                QVERIFY(back.channels == im->channels);
                QCOMPARE(back.hasAlpha, im->hasAlpha);
                if (im->hasAlpha) QVERIFY(back.alpha == im->alpha);
            }
            QVERIFY2(bytes == first, qPrintable(QString("%1 workers").arg(threads)));
        }
    }
}

void TestImageIo::cancelledWrite_data() {
    test::columns<QString, int, bool>("name", "channels", "midway");
    for (const char* name : {"o.png", "o.tif"})
        for (const int channels : {1, 3})
            for (const bool midway : {false, true})
                QTest::newRow(qPrintable(QString("%1 %2 %3")
                                             .arg(name)
                                             .arg(channels == 1 ? "binary gray" : "rgb", midway ? "midway" : "before")))
                    << name << channels << midway;
}

void TestImageIo::cancelledWrite() {
    // A stop before the write or during it (from the progress callback, as the studio's Cancel does) ends it with
    // "cancelled" and leaves neither the file nor a temporary one; an older file of that name stays as it was.
    QFETCH(QString, name);
    QFETCH(int, channels);
    QFETCH(bool, midway);
    // Several strip groups of a TIFF on any number of workers.
    const Image im = channels == 1 ? fromValues(4000, 3000, 1, {0, 255}, test::freshSeed("cancelled write"))
                                   : test::randomRgb(1200, 900, "cancelled write");
    const std::string file = path(name.toStdString());
    writeBytes(file, "old");
    io::WriteOptions wo;
    std::vector<double> reported;
    wo.control.onProgress = [&](const Progress& p) {
        reported.push_back(p.fraction);
        if (midway && p.fraction > 0.3) wo.control.stop.requestStop();
    };
    if (!midway) wo.control.stop.requestStop();
    const Status s = io::writeImage(file, im, wo);
    QVERIFY2(s.isCancelled(), s.message().c_str());
    QCOMPARE(dirEntries(dir()), std::vector<std::string>{name.toStdString()});
    QCOMPARE(readBytes(file), std::string("old"));
    if (midway) {
        QVERIFY(reported.size() >= 2);
        QVERIFY(std::is_sorted(reported.begin(), reported.end()));
    }
    // Without a stop the same write completes, reporting progress from 0 towards 1.
    io::WriteOptions plain;
    std::vector<double> fractions;
    plain.control.onProgress = [&](const Progress& p) { fractions.push_back(p.fraction); };
    QVERIFY(io::writeImage(file, im, plain).isOk());
    QVERIFY(!fractions.empty() && fractions.front() == 0.0 && fractions.back() < 1.0);
    checkReadsBack(file, im);
}

void TestImageIo::exifOrientation_data() {
    // EXIF orientation: which stored corner ends up top-left and top-right, and whether w/h swap.
    // Corners: 0 = top-left, 1 = top-right, 2 = bottom-left, 3 = bottom-right (stored image).
    test::columns<int, int, int, bool>("orientation", "topLeft", "topRight", "swap");
    QTest::newRow("1 normal") << 1 << 0 << 1 << false;
    QTest::newRow("2 mirror") << 2 << 1 << 0 << false;
    QTest::newRow("3 rotate 180") << 3 << 3 << 2 << false;
    QTest::newRow("4 flip") << 4 << 2 << 3 << false;
    QTest::newRow("5 transpose") << 5 << 0 << 2 << true;
    QTest::newRow("6 rotate 90 cw") << 6 << 2 << 0 << true;
    QTest::newRow("7 transverse") << 7 << 3 << 1 << true;
    QTest::newRow("8 rotate 90 ccw") << 8 << 1 << 3 << true;
}

void TestImageIo::exifOrientation() {
    QFETCH(int, orientation);
    QFETCH(int, topLeft);
    QFETCH(int, topRight);
    QFETCH(bool, swap);
    const int w = 5, h = 3;
    std::vector<uint8_t> d(size_t(w) * h, 100);
    const uint8_t corner[4] = {10, 20, 30, 40};
    d[0] = corner[0], d[size_t(w - 1)] = corner[1], d[size_t((h - 1) * w)] = corner[2],
    d[size_t(h * w - 1)] = corner[3];
    const std::string file = path("o.tif");
    QVERIFY(oiioWrite8(file, w, h, 1, d, [&](OIIO::ImageSpec& s) { s.attribute("Orientation", orientation); }));
    Image im;
    QVERIFY(io::readImage(file, im).isOk());
    QCOMPARE(im.width(), swap ? h : w);
    QCOMPARE(im.height(), swap ? w : h);
    QCOMPARE(im.channels[0].at(0, 0), corner[topLeft]);
    QCOMPARE(im.channels[0].at(0, im.width() - 1), corner[topRight]);
    int count100 = 0;
    for (uint8_t v : im.channels[0].data) count100 += v == 100;
    QCOMPARE(count100, w * h - 4);
}

void TestImageIo::exifJpeg() {
    const int w = 16, h = 8;
    std::vector<uint8_t> d(size_t(w) * h);
    for (int y = 0; y < h; ++y)
        for (int x = 0; x < w; ++x) d[size_t(y * w + x)] = x < w / 2 ? 0 : 255;  // dark left half
    const std::string file = path("o6.jpg");
    QVERIFY(oiioWrite8(file, w, h, 1, d, [](OIIO::ImageSpec& s) {
        s.attribute("Orientation", 6);
        s.attribute("CompressionQuality", 100);
    }));
    Image im;
    QVERIFY(io::readImage(file, im).isOk());
    QCOMPARE(im.width(), h);
    QCOMPARE(im.height(), w);
    // rotated 90 degrees clockwise: the dark left half becomes the top half (JPEG is lossy: loose levels)
    QVERIFY(im.channels[0].at(1, h / 2) < 64);
    QVERIFY(im.channels[0].at(w - 2, h / 2) > 192);
}

void TestImageIo::multiImageTiff() {
    const int w = 6, h = 4;
    std::vector<uint8_t> d(size_t(w) * h);
    for (size_t i = 0; i < d.size(); ++i) d[i] = uint8_t(i * 7);
    const std::string file = path("multi.tif");
    QVERIFY2(oiioWrite8(file, w, h, 1, d, {}, 2), OIIO::geterror().c_str());
    Image im;
    io::ReadInfo info;
    QVERIFY(io::readImage(file, im, {}, &info).isOk());
    QCOMPARE(im.channels[0].data, d);  // the first image, not the inverted second
    QVERIFY(info.notes.find("first image") != std::string::npos);
}

void TestImageIo::tiledTiff() {
    const int w = 70, h = 45;  // not multiples of the 16 x 16 tiles
    Plane8 p = test::randomPlane(w, h, test::freshSeed("tiled tiff"));
    const std::string file = path("tiled.tif");
    QVERIFY(oiioWrite8(file, w, h, 1, p.data, [](OIIO::ImageSpec& s) {
        s.tile_width = 16;
        s.tile_height = 16;
    }));
    Image im;
    QVERIFY(io::readImage(file, im).isOk());
    QVERIFY(im.channels[0] == p);
}

void TestImageIo::writeByExtension_data() {
    test::columns<QString, int, bool>("name", "channels", "binary");
    QTest::addColumn<int>("bitsPerSample");  // as OpenImageIO reports the written file; 0 = not checked
    QTest::newRow("png gray") << "o.png" << 1 << false << 8;
    QTest::newRow("png binary is 1-bit") << "o.png" << 1 << true << 1;
    QTest::newRow("png rgb binary is 4-bit indexed") << "o.png" << 3 << true << 4;
    QTest::newRow("png rgb") << "o.png" << 3 << false << 8;
    QTest::newRow("tif gray") << "o.tif" << 1 << false << 8;
    QTest::newRow("tif binary is 1-bit") << "o.tif" << 1 << true << 1;
    QTest::newRow("tiff binary is 1-bit") << "o.TIFF" << 1 << true << 1;
    QTest::newRow("tif rgb binary is 4-bit palette") << "o.tif" << 3 << true << 4;
    QTest::newRow("pgm") << "o.pgm" << 1 << false << 0;
    QTest::newRow("pbm") << "o.pbm" << 1 << true << 0;
    QTest::newRow("ppm") << "o.ppm" << 3 << false << 0;
    QTest::newRow("ppm from gray") << "o.ppm" << 1 << false << 0;
    QTest::newRow("bmp through OpenImageIO") << "o.bmp" << 3 << false << 0;
}

void TestImageIo::writeByExtension() {
    QFETCH(QString, name);
    QFETCH(int, channels);
    QFETCH(bool, binary);
    QFETCH(int, bitsPerSample);
    const int w = 33, h = 17;
    Image im;
    im.space = channels == 3 ? ColorSpace::RGB : ColorSpace::Gray;
    for (int c = 0; c < channels; ++c) {
        Plane8 p = test::randomPlane(w, h, test::freshSeed("write by extension"));
        if (binary)
            for (auto& v : p.data) v = v & 1 ? 255 : 0;
        im.channels.push_back(p);
    }
    const std::string file = path(name.toStdString());
    const Status s = io::writeImage(file, im);
    QVERIFY2(s.isOk(), s.message().c_str());
    QCOMPARE(dirEntries(dir()), std::vector<std::string>{name.toStdString()});
    if (bitsPerSample) QCOMPARE(oiioBitsPerSample(file), bitsPerSample);
    if (bitsPerSample == 1 && (name.endsWith(".tif") || name.endsWith(".TIFF"))) {
        // A 1-bit TIFF says how large to print it: 300 dpi when the caller gave no resolution.
        auto in = OIIO::ImageInput::open(file);
        QVERIFY(in);
        const OIIO::ImageSpec& spec = in->spec();
        QCOMPARE(spec.get_float_attribute("XResolution", 0), 300.0f);
        QCOMPARE(spec.get_float_attribute("YResolution", 0), 300.0f);
        QCOMPARE(QString::fromStdString(spec.get_string_attribute("ResolutionUnit")), QString("in"));
    }
    Image back;
    QVERIFY(io::readImage(file, back).isOk());
    if (name.endsWith(".ppm") && channels == 1) {
        QCOMPARE(back.channelCount(), 3);
        for (int c = 0; c < 3; ++c) QVERIFY(back.channels[size_t(c)] == im.channels[0]);
    } else {
        QCOMPARE(back.channelCount(), channels);
        QVERIFY(back.channels == im.channels);
    }
    struct stat st {};
    QCOMPARE(::stat(file.c_str(), &st), 0);
    const mode_t mask = ::umask(0);
    ::umask(mask);
    QCOMPARE(int(st.st_mode & 0777), int(0666 & ~mask));  // not the 0600 of a temporary file
}

void TestImageIo::writeRefusals_data() {
    test::stringRows<3>({"name", "space", "message"},
                        {{"rgb to pgm", "x.pgm", "rgb", "PGM holds one gray channel"},
                         {"gray levels to pbm", "x.pbm", "gray", "PBM holds only black and white"},
                         {"cmyk to ppm", "x.ppm", "cmyk", "PPM cannot hold CMYK"},
                         {"cmyk to png", "x.png", "cmyk", "only TIFF output holds CMYK"},
                         {"unknown extension", "x.nosuchformat", "gray", "no image format is known"},
                         {"no extension", "noext", "gray", "no file extension"},
                         {"missing directory", "missing/x.png", "gray", "does not exist"}});
}

void TestImageIo::writeRefusals() {
    QFETCH(QString, name);
    QFETCH(QString, space);
    QFETCH(QString, message);
    Image im;
    const int n = space == "gray" ? 1 : space == "rgb" ? 3 : 4;
    im.space = n == 1 ? ColorSpace::Gray : n == 3 ? ColorSpace::RGB : ColorSpace::CMYK;
    for (int c = 0; c < n; ++c) im.channels.push_back(Plane8(5, 4, uint8_t(60 + c)));
    const std::string file = path(name.toStdString());
    const Status s = io::writeImage(file, im);
    QVERIFY(!s.isOk());
    QVERIFY2(s.message().find(message.toStdString()) != std::string::npos, s.message().c_str());
    QVERIFY2(s.message().find("'" + file + "'") != std::string::npos, s.message().c_str());
    QVERIFY(dirEntries(dir()).empty());  // neither output nor temporary file
}

void TestImageIo::writeResolution() {
    // A resolution given by the caller (e.g. the input's) goes into 1-bit TIFFs and PNGs alike.
    Plane8 p(40, 24);
    for (size_t i = 0; i < p.size(); ++i) p.data[i] = (i * 7) % 3 ? 255 : 0;
    io::WriteOptions wo;
    wo.dpi = 600;
    for (const char* name : {"r.tif", "r.png"}) {
        const std::string file = path(name);
        QVERIFY(io::writeImage(file, Image::gray(p), wo).isOk());
        QCOMPARE(oiioBitsPerSample(file), 1);
        auto in = OIIO::ImageInput::open(file);
        QVERIFY(in);
        // PNG stores pixels per metre, which readers report per centimetre.
        const std::string unit = in->spec().get_string_attribute("ResolutionUnit");
        const float perInch = unit == "cm" ? 2.54f : 1.0f;
        QVERIFY2(unit == "in" || unit == "inch" || unit == "cm", unit.c_str());
        const float xres = in->spec().get_float_attribute("XResolution", 0) * perInch;
        QVERIFY2(std::abs(xres - 600.0f) < 0.5f, qPrintable(QString("%1: %2").arg(name).arg(xres)));
        QVERIFY2(std::abs(in->spec().get_float_attribute("YResolution", 0) * perInch - 600.0f) < 0.5f, name);
        // The reader reports the resolution the file states, through either decoder.
        for (io::Decoder decoder : {io::Decoder::BuiltIn, io::Decoder::OpenImageIO}) {
            Image back;
            io::ReadOptions ro;
            ro.decoder = decoder;
            io::ReadInfo info;
            QVERIFY(io::readImage(file, back, ro, &info).isOk());
            QVERIFY(back.channels[0] == p);
            QVERIFY2(std::abs(info.dpi - 600) < 0.5, qPrintable(QString("%1: %2").arg(name).arg(info.dpi)));
        }
    }
    // No resolution where a file states none (a JPEG's JFIF density without a unit is only an aspect ratio).
    Image rgb;
    rgb.space = ColorSpace::RGB;
    for (int c = 0; c < 3; ++c) rgb.channels.push_back(Plane8(16, 8, uint8_t(60 * c)));
    for (const char* name : {"none.jpg", "none.png"}) {
        QVERIFY(io::writeImage(path(name), rgb).isOk());
        Image back;
        io::ReadInfo info;
        QVERIFY(io::readImage(path(name), back, {}, &info).isOk());
        QCOMPARE(info.dpi, 0.0);
    }
}

void TestImageIo::atomicWriteKeepsOldFile() {
    const std::string file = path("keep.pbm");
    Image good = Image::gray(Plane8(9, 5, 255));
    QVERIFY(io::writeImage(file, good).isOk());
    const std::string before = readBytes(file);
    // This write fails inside the writer (value 7 in a PBM), after the temporary file was made.
    Image bad = Image::gray(Plane8(9, 5, 7));
    QVERIFY(!io::writeImage(file, bad).isOk());
    QCOMPARE(readBytes(file), before);
    QCOMPARE(dirEntries(dir()), std::vector<std::string>{"keep.pbm"});
    // A good write replaces the file in one step.
    Image other = Image::gray(Plane8(9, 5, 0));
    QVERIFY(io::writeImage(file, other).isOk());
    Image back;
    QVERIFY(io::readImage(file, back).isOk());
    QVERIFY(back.channels[0] == other.channels[0]);
    QCOMPARE(dirEntries(dir()), std::vector<std::string>{"keep.pbm"});
    // A long but valid name (250 characters) still gets a temporary file beside it.
    const std::string longName = std::string(246, 'n') + ".pgm";
    QVERIFY(io::writeImage(path(longName), good).isOk());
    QCOMPARE(dirEntries(dir()), (std::vector<std::string>{"keep.pbm", longName}));
    // Writing onto a directory is refused.
    fs::create_directory(path("adir.png"));
    const Status s = io::writeImage(path("adir.png"), good);
    QVERIFY(!s.isOk());
    QVERIFY2(s.message().find("is a directory") != std::string::npos, s.message().c_str());
}

void TestImageIo::readOnlyDirectory() {
    if (::geteuid() == 0) QSKIP("running as root: permission bits do not stop root from writing");
    const std::string dir = path("ro");
    fs::create_directory(dir);
    const std::string file = dir + "/old.png";
    QVERIFY(io::writeImage(file, Image::gray(Plane8(3, 3, 9))).isOk());
    const std::string before = readBytes(file);
    fs::permissions(dir, fs::perms::owner_read | fs::perms::owner_exec);
    const Status s = io::writeImage(file, Image::gray(Plane8(3, 3, 200)));
    fs::permissions(dir, fs::perms::owner_all);
    QVERIFY(!s.isOk());
    QVERIFY2(s.message().find("not writable") != std::string::npos, s.message().c_str());
    QCOMPARE(readBytes(file), before);
    QCOMPARE(dirEntries(dir), std::vector<std::string>{"old.png"});
}

void TestImageIo::samePathCases() {
    const std::string a = path("a.pgm"), b = path("b.pgm");
    QVERIFY(io::writeImage(a, Image::gray(Plane8(2, 2, 1))).isOk());
    QVERIFY(io::writeImage(b, Image::gray(Plane8(2, 2, 1))).isOk());
    QVERIFY(io::samePath(a, a));
    QVERIFY(!io::samePath(a, b));
    QVERIFY(io::samePath(a, dir() + "/./sub/../a.pgm"));
    fs::create_symlink(a, path("link.pgm"));
    QVERIFY(io::samePath(a, path("link.pgm")));
    fs::create_hard_link(a, path("hard.pgm"));
    QVERIFY(io::samePath(path("hard.pgm"), a));
    QVERIFY(!io::samePath(a, path("new.png")));
    QVERIFY(io::samePath(path("new.png"), path("./new.png")));
}

void TestImageIo::hostileFiles_data() {
    test::columns<QString, QString>("file", "message");
    const QDir dir(QString(HALFTONE_TEST_DATA_DIR) + "/hostile");
    const QStringList files = dir.entryList(QDir::Files, QDir::Name);
    QVERIFY(files.size() >= 15);
    for (const QString& f : files) {
        QString msg;
        if (f.startsWith("huge-100000x100000"))
            msg = "over the limit";  // the pixel limit; others may fail otherwise
        else if (f.startsWith("truncated"))
            msg = f.endsWith(".pgm") ? "truncated" : "";
        else if (f.startsWith("zero-"))
            msg = f.endsWith(".pgm") ? "zero size" : "";
        else if (f == "empty.png")
            msg = "empty";
        QTest::newRow(qPrintable(f)) << dir.filePath(f) << msg;
    }
}

void TestImageIo::hostileFiles() {
    QFETCH(QString, file);
    QFETCH(QString, message);
    Image im;
    const std::string f = file.toStdString();
    const Status s = io::readImage(f, im);
    QVERIFY2(!s.isOk(), "a hostile file was accepted");
    QVERIFY2(s.message().rfind("cannot read '" + f + "': ", 0) == 0, s.message().c_str());
    QVERIFY2(s.message().size() > f.size() + 20, s.message().c_str());  // says what is wrong
    QVERIFY(oneLine(s.message()));
    if (!message.isEmpty()) QVERIFY2(s.message().find(message.toStdString()) != std::string::npos, s.message().c_str());
}

void TestImageIo::maxPixels() {
    Image im;
    io::ReadOptions ro;
    ro.maxPixels = 512 * 512 - 1;
    for (const char* name : {"moon.png", "page.jpg"}) {
        const Status s = io::readImage(test::dataPath(name), im, ro);
        if (std::string(name) == "moon.png") {
            QVERIFY(!s.isOk());
            QVERIFY2(s.message().find("raise it with --max-pixels") != std::string::npos, s.message().c_str());
        }
    }
    ro.maxPixels = 512 * 512;
    QVERIFY(io::readImage(test::dataPath("moon.png"), im, ro).isOk());
    // PNM obeys the same limit
    QVERIFY(io::writeImage(path("m.pgm"), im).isOk());
    ro.maxPixels = 1000;
    QVERIFY(!io::readImage(path("m.pgm"), im, ro).isOk());
}

void TestImageIo::notAFile() {
    Image im;
    Status s = io::readImage(dir(), im);
    QVERIFY(!s.isOk());
    QVERIFY2(s.message().find("is a directory") != std::string::npos, s.message().c_str());
    s = io::readImage("/dev/null", im);
    QVERIFY(!s.isOk());
    QVERIFY2(s.message().find("not a regular file") != std::string::npos, s.message().c_str());
    s = io::readImage(path("missing.png"), im);
    QVERIFY(!s.isOk());
    QVERIFY2(s.message().find("no such file") != std::string::npos, s.message().c_str());
}

void TestImageIo::realImages_data() {
    test::columns<QString, int, int, int>("name", "w", "h", "channels");
    QTest::newRow("moon") << "moon.png" << 512 << 512 << 1;
    QTest::newRow("page") << "page.png" << 384 << 191 << 1;
    QTest::newRow("chelsea") << "chelsea.png" << 451 << 300 << 3;
    QTest::newRow("page jpeg") << "page.jpg" << 384 << 191 << 1;
}

void TestImageIo::realImages() {
    QFETCH(QString, name);
    QFETCH(int, w);
    QFETCH(int, h);
    QFETCH(int, channels);
    const std::string file = test::dataPath(name.toStdString());
    Image im;
    const Status s = io::readImage(file, im);
    QVERIFY2(s.isOk(), s.message().c_str());
    QCOMPARE(im.width(), w);
    QCOMPARE(im.height(), h);
    QCOMPARE(im.channelCount(), channels);
    // Same samples as OpenImageIO's own 8-bit read.
    auto in = OIIO::ImageInput::open(file);
    QVERIFY(in);
    std::vector<uint8_t> ref(size_t(w) * h * in->spec().nchannels);
    QVERIFY(in->read_image(0, 0, 0, in->spec().nchannels, OIIO::TypeDesc::UINT8, ref.data()));
    for (int c = 0; c < channels; ++c)
        for (int i = 0; i < w * h; i += 7)
            QCOMPARE(im.channels[size_t(c)].data[size_t(i)], ref[size_t(i) * in->spec().nchannels + c]);
    // PNM round trip of a real image is lossless.
    const std::string pnm = path(channels == 1 ? "real.pgm" : "real.ppm");
    QVERIFY(io::writeImage(pnm, im).isOk());
    Image back;
    QVERIFY(io::readImage(pnm, back).isOk());
    QVERIFY(back.channels == im.channels);
}

void TestImageIo::memoryLimit() {
    // moon.png is 512 x 512 gray: 262144 bytes of plane plus the decoder's strip.
    Image im;
    io::ReadOptions ro;
    ro.maxMemory = 200000;
    Status s = io::readImage(test::dataPath("moon.png"), im, ro);
    QVERIFY(!s.isOk());
    QVERIFY2(s.message().find("512 x 512") != std::string::npos &&
                 s.message().find("over the memory limit") != std::string::npos &&
                 s.message().find("--max-memory") != std::string::npos,
             s.message().c_str());
    QCOMPARE(im.width(), 0);
    ro.maxMemory = 2000000;
    QVERIFY(io::readImage(test::dataPath("moon.png"), im, ro).isOk());
    // PNM and the built-in readers obey the same limit.
    QVERIFY(io::writeImage(path("m.pgm"), im).isOk());
    ro.maxMemory = 100000;
    s = io::readImage(path("m.pgm"), im, ro);
    QVERIFY2(!s.isOk() && s.message().find("memory limit") != std::string::npos, s.message().c_str());
    s = io::readImage(test::dataPath("unusual/icon-256.ico"), im, ro);
    QVERIFY2(!s.isOk() && s.message().find("memory limit") != std::string::npos, s.message().c_str());
    s = io::readImage(test::dataPath("unusual/rle8.bmp"), im, io::ReadOptions{1u << 30, 10, {}});
    QVERIFY2(!s.isOk() && s.message().find("memory limit") != std::string::npos, s.message().c_str());
    // The default is a fraction of this machine's memory, never zero.
    QVERIFY(io::ReadOptions{}.maxMemory > (uint64_t(64) << 20));
}

void TestImageIo::cancelledRead() {
    Image im;
    io::ReadOptions ro;
    ro.stop.requestStop();  // as the studio does when the user cancels a load
    for (const char* name : {"moon.png", "page.jpg", "unusual/cmyk.tif", "unusual/rle8.bmp"}) {
        const Status s = io::readImage(test::dataPath(name), im, ro);
        QVERIFY2(s.isCancelled(), qPrintable(QString("%1: %2").arg(name).arg(QString::fromStdString(s.message()))));
        QCOMPARE(im.width(), 0);
    }
}

namespace {

std::vector<uint8_t> webpRgba(int w, int h, int salt) {
    std::vector<uint8_t> p(size_t(w) * h * 4);
    for (int y = 0; y < h; ++y)
        for (int x = 0; x < w; ++x) {
            uint8_t* q = &p[(size_t(y) * w + x) * 4];
            q[0] = uint8_t(x * 11 + salt), q[1] = uint8_t(y * 17 + salt), q[2] = uint8_t(200 - x - y),
            q[3] = uint8_t(255 - ((x + y) % 3) * 60);
        }
    return p;
}

std::string webpLossless(int w, int h, const std::vector<uint8_t>& rgba) {
    uint8_t* out = nullptr;
    const size_t n = WebPEncodeLosslessRGBA(rgba.data(), w, h, w * 4, &out);
    std::string s(reinterpret_cast<const char*>(out), n);
    WebPFree(out);
    return s;
}

}  // namespace

void TestImageIo::webpStill() {
    // OpenImageIO 2.4's WebP reader fails after the multi-image probe; the loader reads WebP with libwebp.
    const int w = 17, h = 9;
    const std::vector<uint8_t> rgba = webpRgba(w, h, 3);
    const std::string file = path("still.webp");
    writeBytes(file, webpLossless(w, h, rgba));
    Image im;
    io::ReadInfo info;
    const Status s = io::readImage(file, im, {}, &info);
    QVERIFY2(s.isOk(), s.message().c_str());
    QCOMPARE(info.format, std::string("webp"));
    QCOMPARE(int(im.space), int(ColorSpace::RGB));
    QVERIFY(im.hasAlpha);
    for (int y = 0; y < h; ++y)
        for (int x = 0; x < w; ++x) {
            const uint8_t* q = &rgba[(size_t(y) * w + x) * 4];
            QCOMPARE(int(im.channels[0].at(y, x)), int(q[0]));
            QCOMPARE(int(im.channels[1].at(y, x)), int(q[1]));
            QCOMPARE(int(im.channels[2].at(y, x)), int(q[2]));
            QCOMPARE(int(im.alpha.at(y, x)), int(q[3]));
        }
    // Named .png, it is still WebP: the content decides.
    writeBytes(path("still.png"), webpLossless(w, h, rgba));
    QVERIFY(io::readImage(path("still.png"), im).isOk());
}

void TestImageIo::webpAnimatedSmallFirstFrame() {
    // Canvas 40 x 30; the first frame is 20 x 10 at (10, 6): the rest of the canvas is transparent,
    // never uninitialised memory. A second frame makes it an animation.
    const int cw = 40, ch = 30, fw = 20, fh = 10, fx = 10, fy = 6;
    std::vector<uint8_t> frame = webpRgba(fw, fh, 0);
    for (size_t i = 3; i < frame.size(); i += 4) frame[i] = 255;
    const std::string f1 = webpLossless(fw, fh, frame), f2 = webpLossless(cw, ch, webpRgba(cw, ch, 9));
    WebPMux* mux = WebPMuxNew();
    QVERIFY(mux);
    QCOMPARE(int(WebPMuxSetCanvasSize(mux, cw, ch)), int(WEBP_MUX_OK));
    WebPMuxAnimParams params{0xFF00FF00u, 0};  // a background colour the decoder must not paint as opaque pixels
    QCOMPARE(int(WebPMuxSetAnimationParams(mux, &params)), int(WEBP_MUX_OK));
    for (int k = 0; k < 2; ++k) {
        WebPMuxFrameInfo fi{};
        const std::string& bits = k == 0 ? f1 : f2;
        fi.bitstream = {reinterpret_cast<const uint8_t*>(bits.data()), bits.size()};
        fi.x_offset = k == 0 ? fx : 0;
        fi.y_offset = k == 0 ? fy : 0;
        fi.duration = 100;
        fi.id = WEBP_CHUNK_ANMF;
        fi.dispose_method = WEBP_MUX_DISPOSE_NONE;
        fi.blend_method = WEBP_MUX_NO_BLEND;
        QCOMPARE(int(WebPMuxPushFrame(mux, &fi, 1)), int(WEBP_MUX_OK));
    }
    WebPData assembled{};
    QCOMPARE(int(WebPMuxAssemble(mux, &assembled)), int(WEBP_MUX_OK));
    const std::string file = path("anim.webp");
    writeBytes(file, std::string(reinterpret_cast<const char*>(assembled.bytes), assembled.size));
    WebPDataClear(&assembled);
    WebPMuxDelete(mux);

    Image im;
    io::ReadInfo info;
    const Status s = io::readImage(file, im, {}, &info);
    QVERIFY2(s.isOk(), s.message().c_str());
    QCOMPARE(im.width(), cw);
    QCOMPARE(im.height(), ch);
    QVERIFY(im.hasAlpha);
    QVERIFY2(info.notes.find("first frame") != std::string::npos, info.notes.c_str());
    for (int y = 0; y < ch; ++y)
        for (int x = 0; x < cw; ++x) {
            const bool inside = x >= fx && x < fx + fw && y >= fy && y < fy + fh;
            if (!inside) {
                QCOMPARE(int(im.alpha.at(y, x)), 0);
                continue;
            }
            const uint8_t* q = &frame[(size_t(y - fy) * fw + size_t(x - fx)) * 4];
            QCOMPARE(int(im.alpha.at(y, x)), 255);
            QCOMPARE(int(im.channels[0].at(y, x)), int(q[0]));
            QCOMPARE(int(im.channels[1].at(y, x)), int(q[1]));
            QCOMPARE(int(im.channels[2].at(y, x)), int(q[2]));
        }
}

void TestImageIo::icoLargestEntry() {
    // A 16 x 16 BMP entry and a 48 x 48 PNG entry: the largest is the icon a person sees.
    Image big = Image::gray(Plane8(48, 48));
    for (int y = 0; y < 48; ++y)
        for (int x = 0; x < 48; ++x) big.channels[0].at(y, x) = uint8_t(x * 5 + y);
    QVERIFY(io::writeImage(path("big.png"), big).isOk());
    const std::string png = readBytes(path("big.png"));
    std::string bmp;
    auto le32 = [](uint32_t v) { return std::string{char(v), char(v >> 8), char(v >> 16), char(v >> 24)}; };
    auto le16 = [](uint16_t v) { return std::string{char(v), char(v >> 8)}; };
    bmp +=
        le32(40) + le32(16) + le32(32) + le16(1) + le16(24) + le32(0) + le32(0) + le32(0) + le32(0) + le32(0) + le32(0);
    bmp += std::string(16 * 16 * 3, '\x7f') + std::string(16 * 4, '\0');
    std::string ico = le16(0) + le16(1) + le16(2);
    const uint32_t off1 = 6 + 32, off2 = off1 + uint32_t(bmp.size());
    ico += std::string{16, 16, 0, 0} + le16(1) + le16(24) + le32(uint32_t(bmp.size())) + le32(off1);
    ico += std::string{48, 48, 0, 0} + le16(1) + le16(32) + le32(uint32_t(png.size())) + le32(off2);
    ico += bmp + png;
    writeBytes(path("two.ico"), ico);
    Image im;
    io::ReadInfo info;
    const Status s = io::readImage(path("two.ico"), im, {}, &info);
    QVERIFY2(s.isOk(), s.message().c_str());
    QCOMPARE(im.width(), 48);
    QVERIFY(im.channels[0] == big.channels[0]);
    QVERIFY2(info.notes.find("the largest (48 x 48)") != std::string::npos, info.notes.c_str());
}

void TestImageIo::contentNotName() {
    // A PNG named .jpg reads (by its content); bytes no format claims are refused at once, whatever the name.
    QVERIFY(std::filesystem::copy_file(test::dataPath("moon.png"), path("moon.jpg")));
    Image im;
    QVERIFY(io::readImage(path("moon.jpg"), im).isOk());
    QCOMPARE(im.width(), 512);
    writeBytes(path("zeros.png"), std::string(4096, '\0'));
    const Status s = io::readImage(path("zeros.png"), im);
    QVERIFY(!s.isOk());
    QVERIFY2(s.message().find("not an image file of any supported format") != std::string::npos, s.message().c_str());
    // A normal progressive JPEG still reads (the scan limit is far above what encoders write).
    QVERIFY(io::readImage(test::dataPath("unusual/progressive.jpg"), im).isOk());
    QCOMPARE(im.width(), 24);
}

QTEST_GUILESS_MAIN(TestImageIo)
#include "test_imageio.moc"
