// The studio's image reading through Qt's image readers (the path a build without OpenImageIO takes for every file
// but binary PNM), forced here so that it runs in every build: PNG layouts give the planes the reference decodes in
// tests/data/unusual/expected/ hold; the EXIF orientation is applied; bad files, oversized headers and a stop give
// errors naming the file; the window opens a PNG in any build.
#include <QDir>
#include <QFile>
#include <QTemporaryDir>
#include <QtTest>

#include "core/job/registry.h"
#include "io/imagefile.h"
#include "tests/common/qtestutil.h"
#include "tests/common/testutil.h"
#include "tests/studio/studioutil.h"
#include "widgets/imageload.h"
#include "widgets/mainwindow.h"

using namespace halftone;

namespace {

QString data(const QString& name) { return QStringLiteral(HALFTONE_TEST_DATA_DIR "/") + name; }

/// A reference plane decoded once and kept as a binary PGM in tests/data/unusual/expected/.
Plane8 expectedPlane(const QString& name) {
    Image im;
    const Status s = io::readImage(data("unusual/expected/" + name).toStdString(), im);
    if (!s || im.channels.empty()) qFatal("cannot read the reference %s: %s", qPrintable(name), s.message().c_str());
    return im.channels[0];
}

/// The upright view of `p` for EXIF orientation 3 (180 degrees), 6 (90 clockwise) or 8 (90 counter-clockwise).
Plane8 rotated(const Plane8& p, int orientation) {
    const int w = p.width, h = p.height;
    Plane8 out = orientation == 3 ? Plane8(w, h) : Plane8(h, w);
    for (int y = 0; y < out.height; ++y)
        for (int x = 0; x < out.width; ++x)
            out.at(y, x) = orientation == 3   ? p.at(h - 1 - y, w - 1 - x)
                           : orientation == 6 ? p.at(h - 1 - x, y)
                                              : p.at(x, w - 1 - y);
    return out;
}

}  // namespace

class TestStudioImageLoad : public QObject {
    Q_OBJECT
private slots:
    void initTestCase();
    void pngLayouts_data();
    void pngLayouts();
    void exifOrientation_data();
    void exifOrientation();
    void badFilesNameTheFile_data();
    void badFilesNameTheFile();
    void hostileFilesRefused_data();
    void hostileFilesRefused();
    void sizeCheckedBeforeDecoding();
    void stopBeforeDecoding();
    void automaticKeepsBuiltInPnm();
    void windowOpensPng();
};

void TestStudioImageLoad::initTestCase() { test::startStudioTest("test_studio_imageload"); }

void TestStudioImageLoad::pngLayouts_data() {
    QTest::addColumn<QString>("file");  // in tests/data/unusual/
    QTest::addColumn<int>("channels");  // colour planes expected
    QTest::addColumn<bool>("alpha");
    QTest::newRow("gray 16 bit") << "gray16.png" << 1 << false;
    QTest::newRow("gray 2 bit") << "gray2bit.png" << 1 << false;
    QTest::newRow("gray + alpha") << "gray-alpha.png" << 1 << true;
    QTest::newRow("RGB 16 bit") << "rgb16.png" << 3 << false;
    QTest::newRow("RGBA") << "rgba.png" << 3 << true;
    QTest::newRow("RGBA 16 bit") << "rgba16.png" << 3 << true;
    QTest::newRow("palette with tRNS") << "palette-trns.png" << 3 << true;
    QTest::newRow("1 x 100000") << "tall-1x100000.png" << 1 << false;
    QTest::newRow("100000 x 1") << "wide-100000x1.png" << 1 << false;
}

void TestStudioImageLoad::pngLayouts() {
    QFETCH(QString, file);
    QFETCH(int, channels);
    QFETCH(bool, alpha);
    Image im;
    QString notes;
    const Status s = readImageFile(data("unusual/" + file), im, {}, &notes, ImageReaderChoice::Qt);
    QVERIFY2(s.isOk(), s.message().c_str());
    QCOMPARE(im.channelCount(), channels);
    QCOMPARE(im.hasAlpha, alpha);
    const QString stem = file.section(QLatin1Char('.'), 0, 0);
    for (int c = 0; c < channels; ++c)
        QVERIFY2(im.channels[size_t(c)] == expectedPlane(stem + QStringLiteral(".c%1.pgm").arg(c)),
                 qPrintable(QStringLiteral("plane %1").arg(c)));
    if (alpha) QVERIFY(im.alpha == expectedPlane(stem + ".a.pgm"));
    QVERIFY(notes.isEmpty());
}

void TestStudioImageLoad::exifOrientation_data() {
    QTest::addColumn<int>("orientation");
    QTest::newRow("3: 180 degrees") << 3;
    QTest::newRow("6: 90 clockwise") << 6;
    QTest::newRow("8: 90 counter-clockwise") << 8;
}

void TestStudioImageLoad::exifOrientation() {
    QFETCH(int, orientation);
    // exif-N.jpg are exif-1.jpg (no tag) plus an APP1 segment with the tag: the same stored pixels.
    Image upright, tagged;
    QVERIFY(readImageFile(data("unusual/exif-1.jpg"), upright, {}, nullptr, ImageReaderChoice::Qt).isOk());
    QCOMPARE(upright.width(), 48);
    QCOMPARE(upright.height(), 20);
    QVERIFY(readImageFile(data(QStringLiteral("unusual/exif-%1.jpg").arg(orientation)), tagged, {}, nullptr,
                          ImageReaderChoice::Qt)
                .isOk());
    QCOMPARE(tagged.channelCount(), 1);
    QVERIFY(tagged.channels[0] == rotated(upright.channels[0], orientation));
}

void TestStudioImageLoad::badFilesNameTheFile_data() {
    QTest::addColumn<QString>("name");      // made in a temporary folder
    QTest::addColumn<QByteArray>("bytes");  // its content; "DIR" makes a folder, "NONE" nothing
    QTest::addColumn<QString>("problem");   // expected in the message
    QTest::newRow("text named .png") << "not-an-image.png" << QByteArray("this is not a PNG file\n")
                                     << "not an image file";
    QTest::newRow("empty") << "empty.png" << QByteArray() << "empty";
    QTest::newRow("missing") << "missing.png" << QByteArray("NONE") << "no such file";
    QTest::newRow("folder") << "folder.png" << QByteArray("DIR") << "directory";
    QFile png(data("moon.png"));
    QVERIFY(png.open(QIODevice::ReadOnly));
    QTest::newRow("truncated PNG") << "truncated.png" << png.read(200) << "";
}

void TestStudioImageLoad::badFilesNameTheFile() {
    QFETCH(QString, name);
    QFETCH(QByteArray, bytes);
    QFETCH(QString, problem);
    QTemporaryDir dir;
    const QString path = dir.filePath(name);
    if (bytes == "DIR") {
        QVERIFY(QDir().mkpath(path));
    } else if (bytes != "NONE") {
        QVERIFY(test::writeFile(path, bytes));
    }
    Image im;
    const Status s = readImageFile(path, im, {}, nullptr, ImageReaderChoice::Qt);
    QVERIFY(!s.isOk());
    const QString text = QString::fromStdString(s.message());
    QVERIFY2(text.contains(name), qPrintable(text));
    QVERIFY2(text.contains(problem), qPrintable(text));
    QVERIFY2(text.size() > path.size() + 20, qPrintable(text));  // names the problem too
}

void TestStudioImageLoad::hostileFilesRefused_data() {
    // tests/data/hostile/ holds files the loader must refuse; PNM files always go through the built-in codec.
    QTest::addColumn<QString>("path");
    const QDir hostile(QStringLiteral(HALFTONE_TEST_DATA_DIR "/hostile"));
    for (const QString& f : hostile.entryList(QDir::Files))
        if (!QStringList{"pgm", "ppm", "pbm", "pnm", "pam"}.contains(QFileInfo(f).suffix().toLower()))
            QTest::newRow(qPrintable(f)) << hostile.filePath(f);
}

void TestStudioImageLoad::hostileFilesRefused() {
    QFETCH(QString, path);
    Image im;
    const Status s = readImageFile(path, im, {}, nullptr, ImageReaderChoice::Qt);
    QVERIFY2(!s.isOk(), "a broken file was read");
    QVERIFY2(QString::fromStdString(s.message()).contains(QFileInfo(path).fileName()), s.message().c_str());
}

void TestStudioImageLoad::sizeCheckedBeforeDecoding() {
    io::ReadOptions small;
    small.maxPixels = 1000;  // moon.png is 512 x 512
    Image im;
    Status s = readImageFile(data("moon.png"), im, small, nullptr, ImageReaderChoice::Qt);
    QVERIFY(!s.isOk());
    QVERIFY2(QString::fromStdString(s.message()).contains("moon.png"), s.message().c_str());
    io::ReadOptions tight;
    tight.maxMemory = 100000;
    s = readImageFile(data("moon.png"), im, tight, nullptr, ImageReaderChoice::Qt);
    QVERIFY(!s.isOk());
    QVERIFY2(QString::fromStdString(s.message()).contains("memory limit"), s.message().c_str());
    QVERIFY(im.channels.empty());  // nothing was decoded into it
}

void TestStudioImageLoad::stopBeforeDecoding() {
    io::ReadOptions stopped;
    stopped.stop.requestStop();
    Image im;
    QVERIFY(readImageFile(data("moon.png"), im, stopped, nullptr, ImageReaderChoice::Qt).isCancelled());
}

void TestStudioImageLoad::automaticKeepsBuiltInPnm() {
    // A binary PGM goes through the built-in codec in every build (its maxval rule is the SPEC's).
    Image viaAuto, viaIo;
    const QString pgm = data("unusual/gray-maxval1000.pgm");
    QVERIFY(readImageFile(pgm, viaAuto).isOk());
    QVERIFY(io::readImage(pgm.toStdString(), viaIo).isOk());
    QVERIFY(viaAuto.channels[0] == viaIo.channels[0]);
    // A PNG: OpenImageIO where the build has it, Qt's reader otherwise; the planes agree.
    Image png, ref;
    QVERIFY(readImageFile(data("unusual/rgba.png"), png).isOk());
    QVERIFY(readImageFile(data("unusual/rgba.png"), ref, {}, nullptr, ImageReaderChoice::Qt).isOk());
    QCOMPARE(png.channelCount(), ref.channelCount());
    for (int c = 0; c < png.channelCount(); ++c) QVERIFY(png.channels[size_t(c)] == ref.channels[size_t(c)]);
    QVERIFY(png.alpha == ref.alpha);
}

void TestStudioImageLoad::windowOpensPng() {
    MainWindow w(Registry::instance());
    w.setAutoRun(false);
    QSignalSpy loaded(&w, &MainWindow::imageLoaded);
    QSignalSpy error(&w, &MainWindow::errorShown);
    w.openFile(data("moon.png"));
    QTRY_VERIFY_WITH_TIMEOUT(loaded.count() + error.count() > 0, 30000);
    QVERIFY2(error.isEmpty(), error.isEmpty() ? "" : qPrintable(error.at(0).at(0).toString()));
    QVERIFY(w.image());
    QCOMPARE(w.image()->width(), 512);
    QCOMPARE(w.image()->height(), 512);
}

QTEST_MAIN(TestStudioImageLoad)
#include "test_studio_imageload.moc"
