// `halftone teach` as a process: one frame per schedule step in APNG, WebP and GIF, the first and last frames
// against the engine, races, handout pages, MP4 with or without ffmpeg, and usage errors that write nothing.
#include <QTemporaryDir>
#include <QtTest>

#include <gif_lib.h>
#include <webp/demux.h>
#include <zlib.h>

#include <fstream>
#include <iterator>

#include "core/ed/dotdiffusion.h"
#include "core/ed/errordiffusion.h"
#include "core/schedule/lesson.h"
#include "io/imagefile.h"
#include "tests/common/process.h"
#include "tests/common/qtestutil.h"

using namespace halftone;

namespace {

/// A decoded animation: its frames as RGB planes (three per frame).
struct Frames {
    int width = 0, height = 0;
    std::vector<std::array<Plane8, 3>> rgb;
};

bool readGif(const QString& path, Frames& out) {
    int error = 0;
    GifFileType* g = DGifOpenFileName(path.toLocal8Bit().constData(), &error);
    if (!g) return false;
    const bool ok = DGifSlurp(g) == GIF_OK;
    out.width = g->SWidth;
    out.height = g->SHeight;
    for (int f = 0; ok && f < g->ImageCount; ++f) {
        const SavedImage& im = g->SavedImages[f];
        const ColorMapObject* map = im.ImageDesc.ColorMap ? im.ImageDesc.ColorMap : g->SColorMap;
        std::array<Plane8, 3> rgb;
        for (Plane8& p : rgb) p = Plane8(out.width, out.height);
        for (size_t p = 0; p < rgb[0].data.size(); ++p) {
            const GifColorType c = map->Colors[im.RasterBits[p]];
            rgb[0].data[p] = c.Red;
            rgb[1].data[p] = c.Green;
            rgb[2].data[p] = c.Blue;
        }
        out.rgb.push_back(std::move(rgb));
    }
    DGifCloseFile(g, &error);
    return ok;
}

bool readWebp(const QString& path, Frames& out) {
    std::ifstream f(path.toStdString(), std::ios::binary);
    const std::string bytes((std::istreambuf_iterator<char>(f)), {});
    WebPData data{reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size()};
    WebPAnimDecoderOptions opt;
    WebPAnimDecoderOptionsInit(&opt);
    opt.color_mode = MODE_RGBA;
    WebPAnimDecoder* dec = WebPAnimDecoderNew(&data, &opt);
    if (!dec) return false;
    WebPAnimInfo info;
    WebPAnimDecoderGetInfo(dec, &info);
    out.width = int(info.canvas_width);
    out.height = int(info.canvas_height);
    uint8_t* buf = nullptr;
    int timestamp = 0;
    while (WebPAnimDecoderHasMoreFrames(dec) && WebPAnimDecoderGetNext(dec, &buf, &timestamp)) {
        std::array<Plane8, 3> rgb;
        for (int c = 0; c < 3; ++c) {
            rgb[size_t(c)] = Plane8(out.width, out.height);
            for (size_t p = 0; p < rgb[size_t(c)].data.size(); ++p) rgb[size_t(c)].data[p] = buf[p * 4 + size_t(c)];
        }
        out.rgb.push_back(std::move(rgb));
    }
    WebPAnimDecoderDelete(dec);
    return true;
}

/// APNG: the chunks read here (acTL, fcTL, IDAT, fdAT, PLTE), each frame's data inflated with zlib.
bool readApng(const QString& path, Frames& out, uint32_t& declared) {
    std::ifstream f(path.toStdString(), std::ios::binary);
    const std::string b((std::istreambuf_iterator<char>(f)), {});
    auto be32 = [&](size_t at) {
        return uint32_t(uint8_t(b[at])) << 24 | uint32_t(uint8_t(b[at + 1])) << 16 | uint32_t(uint8_t(b[at + 2])) << 8 |
               uint32_t(uint8_t(b[at + 3]));
    };
    std::string palette;
    std::vector<std::string> frames;
    for (size_t at = 8; at + 12 <= b.size();) {
        const uint32_t len = be32(at);
        const std::string type = b.substr(at + 4, 4);
        const std::string data = b.substr(at + 8, len);
        if (type == "IHDR") out.width = int(be32(at + 8)), out.height = int(be32(at + 12));
        if (type == "PLTE") palette = data;
        if (type == "acTL") declared = be32(at + 8);
        if (type == "fcTL") frames.emplace_back();
        if (type == "IDAT") frames.back() += data;
        if (type == "fdAT") frames.back() += data.substr(4);
        at += 12 + len;
    }
    for (const std::string& z : frames) {
        std::string raw(size_t(out.width + 1) * size_t(out.height), '\0');
        uLongf size = uLongf(raw.size());
        if (uncompress(reinterpret_cast<Bytef*>(raw.data()), &size, reinterpret_cast<const Bytef*>(z.data()),
                       uLong(z.size())) != Z_OK)
            return false;
        std::array<Plane8, 3> rgb;
        for (Plane8& p : rgb) p = Plane8(out.width, out.height);
        for (int y = 0; y < out.height; ++y)
            for (int x = 0; x < out.width; ++x) {
                const uint8_t idx = uint8_t(raw[size_t(y) * size_t(out.width + 1) + 1 + size_t(x)]);
                for (int c = 0; c < 3; ++c) rgb[size_t(c)].at(y, x) = uint8_t(palette[size_t(idx) * 3 + size_t(c)]);
            }
        out.rgb.push_back(std::move(rgb));
    }
    return true;
}

test::ProcessRun teach(const QStringList& args) {
    return test::runProcess(HALFTONE_CLI_PATH, QStringList{"teach"} + args);
}

}  // namespace

class TestCliTeach : public QObject {
    Q_OBJECT
private slots:
    void oneFramePerStep_data();
    void oneFramePerStep();
    void raceDiffers();
    void handoutPages();
    void mp4NeedsFfmpeg();
    void usageErrorsWriteNothing_data();
    void usageErrorsWriteNothing();
};

void TestCliTeach::oneFramePerStep_data() {
    test::columns<QString, QString, int, int, int>("schedule", "format", "w", "h", "steps");
    for (const char* f : {"png", "webp", "gif"}) {
        QTest::addRow("knight/%s/16x12", f) << "knight" << f << 16 << 12 << 16 + 2 * 11;
        QTest::addRow("raster/%s/5x4", f) << "raster" << f << 5 << 4 << 20;
    }
    QTest::newRow("knight/gif/1x1") << "knight"
                                    << "gif" << 1 << 1 << 1;
    QTest::newRow("knight/gif/7x1") << "knight"
                                    << "gif" << 7 << 1 << 7;
    QTest::newRow("knight/gif/1x5") << "knight"
                                    << "gif" << 1 << 5 << 9;
    QTest::newRow("dot-knuth/gif/9x9") << "dot-knuth"
                                       << "gif" << 9 << 9 << 64;
}

void TestCliTeach::oneFramePerStep() {
    QFETCH(QString, schedule);
    QFETCH(QString, format);
    QFETCH(int, w);
    QFETCH(int, h);
    QFETCH(int, steps);
    QTemporaryDir dir;
    const QString out = dir.filePath("lesson." + format);
    const test::ProcessRun r = teach({"--schedule", schedule, "--size", QString("%1x%2").arg(w).arg(h), out});
    QVERIFY2(r.exitCode == 0, qPrintable(r.err));
    QVERIFY(r.out.contains("proof: the final image equals the sequential one bit for bit"));
    QVERIFY(r.out.contains(QString("steps: %1,").arg(steps)));
    Frames frames;
    if (format == "gif") {
        QVERIFY(readGif(out, frames));
    } else if (format == "webp") {
        QVERIFY(readWebp(out, frames));
    } else {
        uint32_t declared = 0;
        QVERIFY(readApng(out, frames, declared));
        QCOMPARE(int(declared), steps);
        // the still image any PNG reader shows is the first frame
        Image still;
        QVERIFY(io::readImage(out.toStdString(), still).isOk());
        QCOMPARE(still.channels[0].data, frames.rgb.front()[0].data);
    }
    QCOMPARE(int(frames.rgb.size()), steps);
    // the engine, run here: the pixels of step 0 in the first frame, every pixel in the last
    const Plane8 src = lessonRamp(w, h);
    Plane8 expected;
    if (schedule.startsWith("dot-")) {
        DotParams dp;
        expected = referenceDotDiffusion(src, dp);
    } else {
        expected = referenceErrorDiffusion(src, EdParams{});
    }
    LessonTrace t;
    LessonOptions lo;
    lo.schedule = schedule.toStdString();
    QVERIFY(traceLesson(src, lo, t).isOk());
    const int cell = lessonCellSize(w, h);
    QCOMPARE(frames.width, w * cell + 1);
    QCOMPARE(frames.height, h * cell + 1);
    int shownFirst = 0;
    for (int i = 0; i < h; ++i)
        for (int j = 0; j < w; ++j) {
            const int y = i * cell + cell / 2, x = j * cell + cell / 2;
            const auto& first = frames.rgb.front();
            const auto& last = frames.rgb.back();
            for (int c = 0; c < 3; ++c) QCOMPARE(last[size_t(c)].at(y, x), expected.at(i, j));
            const bool gray = first[0].at(y, x) == first[2].at(y, x);
            if (t.schedule.pixelStep.at(i, j) == 0) {
                QCOMPARE(first[0].at(y, x), expected.at(i, j));
                QVERIFY(gray);
                ++shownFirst;
            } else {
                QVERIFY2(!gray, "a pixel of a later step is shown pending (tinted) in the first frame");
            }
        }
    QVERIFY(shownFirst >= 1);
}

void TestCliTeach::raceDiffers() {
    QTemporaryDir dir;
    const QString in = QString(HALFTONE_TEST_DATA_DIR) + "/moon.png";
    for (const auto& [schedule, kernel] : {std::pair{"rows", "floyd-steinberg"}, std::pair{"2-delay", "jarvis"}}) {
        const QString out = dir.filePath(QString("race-%1.gif").arg(schedule));
        const test::ProcessRun r =
            teach({"--schedule", schedule, "--kernel", kernel, "--race", "--size", "24x16", in, out});
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        QVERIFY2(r.out.contains("race: ") && !r.out.contains("race: 0 "), qPrintable(r.out));
        QVERIFY2(r.out.contains("differs: "), qPrintable(r.out));
        Frames frames;
        QVERIFY(readGif(out, frames));
        // the last frame marks differing pixels in orange (LessonInk::Differs)
        bool marked = false;
        const auto& last = frames.rgb.back();
        for (size_t p = 0; p < last[0].data.size() && !marked; ++p)
            marked = last[0].data[p] == 255 && last[1].data[p] == 150 && last[2].data[p] == 0;
        QVERIFY(marked);
    }
    // an exact schedule run as a race reads nothing early
    const test::ProcessRun r = teach({"--schedule", "knight", "--race", "--size", "24x16", in, dir.filePath("k.gif")});
    QCOMPARE(r.exitCode, 0);
    QVERIFY(r.out.contains("race: 0 read(s)"));
    QVERIFY(r.out.contains("proof:"));
}

void TestCliTeach::handoutPages() {
    QTemporaryDir dir;
    const QString out = dir.filePath("hand.png");
    test::ProcessRun r = teach({"--handout", "--steps", "0-29", "--size", "16x12", out});
    QVERIFY2(r.exitCode == 0, qPrintable(r.err));
    // 3 columns x 4 rows a page: 30 steps on 3 pages
    for (int p = 1; p <= 3; ++p) QVERIFY(QFile::exists(dir.filePath(QString("hand-%1.png").arg(p))));
    QVERIFY(!QFile::exists(dir.filePath("hand-4.png")));
    Image page;
    QVERIFY(io::readImage(dir.filePath("hand-1.png").toStdString(), page).isOk());
    QVERIFY(page.width() > page.height() / 2);
    r = teach({"--handout", "--steps", "5-100", "--size", "16x12", out});
    QCOMPARE(r.exitCode, 2);
}

void TestCliTeach::mp4NeedsFfmpeg() {
    QTemporaryDir dir;
    const QString out = dir.filePath("lesson.mp4");
    const bool ffmpeg = !QStandardPaths::findExecutable("ffmpeg").isEmpty();
    const test::ProcessRun r = teach({"--size", "6x4", out});
    if (ffmpeg) {
        QCOMPARE(r.exitCode, 0);
        QVERIFY(QFileInfo(out).size() > 0);
    } else {
        QCOMPARE(r.exitCode, 1);
        QVERIFY2(r.err.contains("ffmpeg"), qPrintable(r.err));
        QVERIFY(!QFile::exists(out));
    }
}

void TestCliTeach::usageErrorsWriteNothing_data() {
    test::columns<QStringList, int>("args", "code");
    QTest::newRow("too big") << QStringList{"--size", "33x4", "OUT.gif"} << 2;
    QTest::newRow("bad size") << QStringList{"--size", "8by4", "OUT.gif"} << 2;
    QTest::newRow("bad format") << QStringList{"OUT.jpg"} << 2;
    QTest::newRow("race not asked") << QStringList{"--schedule", "rows", "OUT.gif"} << 2;
    QTest::newRow("unknown schedule") << QStringList{"--schedule", "spiral", "OUT.gif"} << 2;
    QTest::newRow("unknown kernel") << QStringList{"--kernel", "nope", "OUT.gif"} << 2;
    QTest::newRow("delay too small") << QStringList{"--schedule", "k-delay", "--delay", "1", "OUT.gif"} << 2;
    QTest::newRow("bad steps") << QStringList{"--steps", "9-3", "OUT.gif"} << 2;
    QTest::newRow("no input file") << QStringList{"IN-missing.png", "OUT.gif"} << 1;
    QTest::newRow("no output") << QStringList{} << 2;
}

void TestCliTeach::usageErrorsWriteNothing() {
    QFETCH(QStringList, args);
    QFETCH(int, code);
    QTemporaryDir dir;
    for (QString& a : args)
        if (a.startsWith("OUT") || a.startsWith("IN")) a = dir.filePath(a);
    const test::ProcessRun r = teach(args);
    QCOMPARE(r.exitCode, code);
    QVERIFY(r.err.startsWith("halftone"));
    QCOMPARE(QDir(dir.path()).entryList(QDir::AllEntries | QDir::NoDotAndDotDot | QDir::Hidden).size(), 0);
}

QTEST_GUILESS_MAIN(TestCliTeach)
#include "test_cli_teach.moc"
