// Palettes: every file format parsed (from text here and from tests/data/palettes), every broken file refused
// with its name and line, the built-in palettes against their published colours, and palettes made from images.
#include <QtTest>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <random>
#include <set>

#include <sys/stat.h>

#include "core/palette/palette.h"
#include "core/palette/paletteed.h"
#include "core/quality/metrics.h"
#include "io/imagefile.h"
#include "tests/common/qtestutil.h"
#include "tests/common/testutil.h"

using namespace halftone;
namespace fs = std::filesystem;

namespace {

const std::string kData = std::string(HALFTONE_TEST_DATA_DIR) + "/palettes/";

QString q(const std::string& s) { return QString::fromStdString(s); }

Rgb8 rgb(uint32_t v) { return {uint8_t(v >> 16), uint8_t(v >> 8), uint8_t(v)}; }

std::vector<Rgb8> rgbs(std::initializer_list<uint32_t> v) {
    std::vector<Rgb8> out;
    for (uint32_t x : v) out.push_back(rgb(x));
    return out;
}

const std::vector<Rgb8> kGameBoy = rgbs({0x0F380F, 0x306230, 0x8BAC0F, 0x9BBC0F});
const std::vector<Rgb8> kPico8 = rgbs({0x000000, 0x1D2B53, 0x7E2553, 0x008751, 0xAB5236, 0x5F574F, 0xC2C3C7, 0xFFF1E8,
                                       0xFF004D, 0xFFA300, 0xFFEC27, 0x00E436, 0x29ADFF, 0x83769C, 0xFF77A8, 0xFFCCAA});

std::string hexList(const std::vector<Rgb8>& v) {
    std::string s;
    for (const Rgb8& c : v) s += QString::asprintf("%02x%02x%02x ", c[0], c[1], c[2]).toStdString();
    return s;
}

/// An RGB image of w x h with colours drawn from a fixed function of the position.
Image testImage(int w, int h) {
    Image im;
    im.space = ColorSpace::RGB;
    im.channels.assign(3, Plane8(w, h));
    for (int y = 0; y < h; ++y)
        for (int x = 0; x < w; ++x) {
            im.channels[0].at(y, x) = uint8_t(x * 255 / std::max(1, w - 1));
            im.channels[1].at(y, x) = uint8_t(y * 255 / std::max(1, h - 1));
            im.channels[2].at(y, x) = uint8_t((x * 7 + y * 13) % 256);
        }
    return im;
}

}  // namespace

class TestPalette : public QObject {
    Q_OBJECT

private slots:
    // ---- formats, from text
    void parseFromText_data() {
        test::columns<QString, QByteArray, QString>("name", "bytes", "expected");
        auto row = [](const char* tag, const char* name, QByteArray bytes, const char* expected) {
            QTest::newRow(tag) << QString(name) << bytes << QString(expected);
        };
        row("hex plain", "p.hex", "000000\nffffff\n", "000000 ffffff ");
        row("hex #, comments, CRLF, names, BOM", "p.hex",
            "\xEF\xBB\xBF# Lospec palette\r\n#FF0000 red\r\n\r\n; another comment\r\n00ff00 # green\r\n0x0000FF\r\n",
            "ff0000 00ff00 0000ff ");
        row("hex no final newline", "P.HEX", "123456\nabcdef", "123456 abcdef ");
        row("gpl", "p.gpl", "GIMP Palette\nName: two\nColumns: 2\n#\n  0   0   0\tBlack\n255 255 255 White\n",
            "000000 ffffff ");
        row("gpl tabs no names", "p.gpl", "GIMP Palette\n1\t2\t3\n4 5 6\n", "010203 040506 ");
        row("paint.net", "p.txt", ";paint.net Palette File\n;Colors: 2\nFF102030\nFFa0b0c0\n", "102030 a0b0c0 ");
        row("paint.net alpha ignored", "p.txt", "80FF0000\n0000FF00\n", "ff0000 00ff00 ");
        row("jasc", "p.pal", "JASC-PAL\n0100\n3\n255 0 0\n0 255 0\n0 0 255\n", "ff0000 00ff00 0000ff ");
        row("unknown extension, gpl content", "palette.colors", "GIMP Palette\n0 0 0\n9 9 9\n", "000000 090909 ");
        row("unknown extension, hex content", "palette", "#000000\n#ffffff\n", "000000 ffffff ");
        row("unknown extension, paint.net content", "p.dat", "; x\nFF000000\nFFFFFFFF\n", "000000 ffffff ");
        QByteArray act(772, '\0');
        act[3] = act[4] = act[5] = char(0xFF);
        act[769] = 2;
        act[770] = act[771] = char(0xFF);
        row("act with count", "p.act", act, "000000 ffffff ");
        QByteArray act3(772, '\0');
        for (int i = 0; i < 9; ++i) act3[i] = char(i * 20);
        act3[769] = 3;
        row("act, unknown extension", "p.bin", act3, "001428 3c5064 788ca0 ");
    }
    void parseFromText() {
        QFETCH(QString, name);
        QFETCH(QByteArray, bytes);
        QFETCH(QString, expected);
        Palette p;
        const Status s = parsePaletteFile(name.toStdString(), bytes.toStdString(), p);
        QVERIFY2(s.isOk(), s.message().c_str());
        QCOMPARE(QString::fromStdString(hexList(p.colors)), expected);
        QVERIFY(checkPalette(p).isOk());
    }

    // ---- formats, from files
    void parseFiles_data() {
        test::columns<QString, int, int, uint>("file", "count", "index", "color");
        QTest::newRow("pico8.hex") << "pico8.hex" << 16 << 8 << 0xFF004Du;
        QTest::newRow("ega.gpl (CRLF, names)") << "ega.gpl" << 16 << 6 << 0xAA5500u;
        QTest::newRow("gameboy.txt (Paint.NET)") << "gameboy.txt" << 4 << 2 << 0x8BAC0Fu;
        QTest::newRow("c64.act (772 bytes)") << "c64.act" << 16 << 14 << 0x6C5EB5u;
        QTest::newRow("gray256.act (768 bytes)") << "gray256.act" << 256 << 200 << 0xC8C8C8u;
        QTest::newRow("gameboy.pal (JASC)") << "gameboy.pal" << 4 << 3 << 0x9BBC0Fu;
    }
    void parseFiles() {
        QFETCH(QString, file);
        QFETCH(int, count);
        QFETCH(int, index);
        QFETCH(uint, color);
        Palette p;
        const Status s = loadPaletteFile(kData + file.toStdString(), p);
        QVERIFY2(s.isOk(), s.message().c_str());
        QCOMPARE(p.size(), count);
        QCOMPARE(p.colors[size_t(index)], rgb(color));
        QCOMPARE(p.name, file.toStdString());
    }
    void filesMatchBuiltins() {
        Palette p;
        QVERIFY(loadPaletteFile(kData + "pico8.hex", p).isOk());
        QCOMPARE(p.colors, findBuiltinPalette("pico8")->palette.colors);
        QVERIFY(loadPaletteFile(kData + "c64.act", p).isOk());
        QCOMPARE(p.colors, findBuiltinPalette("c64")->palette.colors);
        QVERIFY(loadPaletteFile(kData + "ega.gpl", p).isOk());
        QCOMPARE(p.colors, findBuiltinPalette("ega")->palette.colors);
        QVERIFY(loadPaletteFile(kData + "gameboy.txt", p).isOk());
        QCOMPARE(p.colors, kGameBoy);
        QVERIFY(loadPaletteFile(kData + "gameboy.pal", p).isOk());
        QCOMPARE(p.colors, kGameBoy);
    }

    // ---- broken palettes: refused with the file, the line where there is one, and what is wrong
    void refused_data() {
        test::columns<QString, QByteArray, QString>("name", "bytes", "message");
        auto row = [](const char* tag, const char* name, QByteArray bytes, const char* message) {
            QTest::newRow(tag) << QString(name) << bytes << QString(message);
        };
        row("empty file", "e.hex", "", "palette file 'e.hex': is empty");
        row("only comments", "c.hex", "# a\n; b\n\n", "palette file 'c.hex': holds no colours");
        row("one colour hex", "one.hex", "ff0000\n", "palette file 'one.hex': holds only 1 colour");
        row("bad hex digit", "b.hex", "000000\nffffff\nff00g0\n",
            "palette file 'b.hex', line 3: expected a colour as RRGGBB");
        row("short hex", "s.hex", "000000\nfff\n", "palette file 's.hex', line 2: expected a colour as RRGGBB");
        row("seven hex digits", "l.hex", "0000000\n", "palette file 'l.hex', line 1: expected a colour as RRGGBB");
        row("hex with alpha", "a.hex", "000000\n#ff000080\n",
            "palette file 'a.hex', line 2: expected a colour as RRGGBB, got '#ff000080' (eight digits");
        row("text after hex", "t.hex", "000000x\nffffff\n", "palette file 't.hex', line 1:");
        row("gpl without header", "n.gpl", "0 0 0\n255 255 255\n",
            "palette file 'n.gpl', line 1: a GIMP palette starts");
        row("gpl value over 255", "o.gpl", "GIMP Palette\n0 0 0\n255 256 0\n",
            "palette file 'o.gpl', line 3: value 256 is over 255");
        row("gpl two numbers", "t.gpl", "GIMP Palette\n0 0 0\n10 20\n",
            "palette file 't.gpl', line 3: expected three numbers");
        row("gpl word", "w.gpl", "GIMP Palette\nName: x\nred 0 0\n",
            "palette file 'w.gpl', line 3: expected a number 0 to 255");
        row("gpl negative", "m.gpl", "GIMP Palette\n0 0 0\n0 -1 0\n", "palette file 'm.gpl', line 3:");
        row("gpl bad columns", "c.gpl", "GIMP Palette\nColumns: many\n0 0 0\n1 1 1\n",
            "palette file 'c.gpl', line 2: 'Columns:'");
        row("gpl one colour", "one.gpl", "GIMP Palette\n255 0 0 red\n", "palette file 'one.gpl': holds only 1 colour");
        row("paint.net bad", "p.txt", ";x\nFF000000\nFF00000\n",
            "palette file 'p.txt', line 3: expected a colour as AARRGGBB");
        row("jasc bad version", "j.pal", "JASC-PAL\n0200\n2\n0 0 0\n1 1 1\n", "palette file 'j.pal', line 2:");
        row("jasc wrong count", "j.pal", "JASC-PAL\n0100\n3\n0 0 0\n1 1 1\n",
            "palette file 'j.pal': line 3 announces 3 colours but 2 follow");
        row("jasc riff", "r.pal", QByteArray("RIFF\x10\0\0\0PAL data", 16),
            "palette file 'r.pal': is a Microsoft RIFF palette");
        row("act wrong size", "a.act", QByteArray(300, '\0'),
            "palette file 'a.act': an Adobe colour table is 768 or 772 bytes long, this one is 300");
        QByteArray act(772, '\0');
        act[768] = 1;  // count 256 + 1 = 257
        act[769] = 1;
        row("act count over 256", "a.act", act, "palette file 'a.act': the colour count at byte 768 is 257");
        QByteArray act0(772, '\0');
        row("act count 0", "z.act", act0, "palette file 'z.act': the colour count at byte 768 is 0");
        row("unknown format", "x.xyz", "this is not a palette\n",
            "palette file 'x.xyz': not a palette file this program reads (extension '.xyz'); supported:");
        row("binary junk", "junk", QByteArray("\x01\x02\x03\x04", 4), "palette file 'junk': not a palette file");
        QByteArray many;
        for (int i = 0; i < 257; ++i) many += QByteArray::number(0x100000 + i, 16) + "\n";
        row("257 colours", "many.hex", many, "palette file 'many.hex', line 257: more than 256 colours");
    }
    void refused() {
        QFETCH(QString, name);
        QFETCH(QByteArray, bytes);
        QFETCH(QString, message);
        Palette p;
        const Status s = parsePaletteFile(name.toStdString(), bytes.toStdString(), p);
        QVERIFY(!s.isOk());
        QVERIFY2(QString::fromStdString(s.message()).startsWith(message), s.message().c_str());
        QVERIFY(p.colors.empty());
    }
    void refusedFiles_data() {
        test::stringRows<2>(
            {"file", "message"},
            {{"bad digit", "bad/bad-digit.hex", "line 4: expected a colour as RRGGBB (six hex digits), got 'ff00g0'"},
             {"one colour", "bad/one-colour.gpl", ": holds only 1 colour"},
             {"no header", "bad/no-header.gpl", "line 1: a GIMP palette starts with the line 'GIMP Palette'"},
             {"over 255", "bad/over-255.gpl", "line 3: value 256 is over 255"},
             {"truncated act", "bad/truncated.act", ": an Adobe colour table is 768 or 772 bytes long"},
             {"257 colours", "bad/too-many.hex", "line 257: more than 256 colours"},
             {"empty", "bad/empty.hex", ": holds no colours"},
             {"unknown", "bad/unknown.xyz", ": not a palette file this program reads"},
             {"missing", "bad/does-not-exist.hex", ": cannot be read: No such file or directory"},
             {"directory", "bad", ": cannot be read"}});
    }
    void refusedFiles() {
        QFETCH(QString, file);
        QFETCH(QString, message);
        const std::string path = kData + file.toStdString();
        Palette p;
        const Status s = loadPaletteFile(path, p);
        QVERIFY(!s.isOk());
        const QString m = QString::fromStdString(s.message());
        QVERIFY2(m.startsWith(QString::fromStdString("palette file '" + path + "'")), s.message().c_str());
        QVERIFY2(m.contains(message), s.message().c_str());
    }

    void refusedSpecialFiles() {
        // A FIFO would block a reader forever and a device never ends: both are refused unopened.
        QTemporaryDir dir;
        const std::string fifo = dir.path().toStdString() + "/fifo.hex";
        QCOMPARE(::mkfifo(fifo.c_str(), 0600), 0);
        Palette p;
        Status s = resolvePalette(fifo, nullptr, p);
        QVERIFY2(QString::fromStdString(s.message())
                     .startsWith(q("palette file '" + fifo + "': cannot be read: not a regular file")),
                 s.message().c_str());
        s = loadPaletteFile("/dev/zero", p);
        QVERIFY2(!s.isOk() && QString::fromStdString(s.message()).contains("not a regular file"), s.message().c_str());
        // Larger than any palette.
        const std::string big = dir.path().toStdString() + "/big.hex";
        {
            std::ofstream out(big);
            for (int i = 0; i < 200000; ++i) out << "000000\n";
        }
        s = loadPaletteFile(big, p);
        QVERIFY2(QString::fromStdString(s.message()).contains("is too large for a palette"), s.message().c_str());
    }

    void mutatedFiles() {
        // Valid files with random bytes changed, inserted or cut, and pure noise, under every extension: each is
        // either a palette of 2..256 colours or refused with a message naming the file; nothing else happens.
        std::mt19937_64 rng(test::freshSeed("palette mutations"));
        std::vector<std::string> seeds;
        for (const char* f : {"pico8.hex", "ega.gpl", "gameboy.txt", "c64.act", "gameboy.pal"}) {
            std::ifstream in(kData + f, std::ios::binary);
            seeds.emplace_back((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
        }
        const char* names[] = {"m.hex", "m.gpl", "m.txt", "m.act", "m.pal", "m.unknown", "m"};
        int parsed = 0;
        for (int round = 0; round < 20000; ++round) {
            std::string bytes = seeds[rng() % seeds.size()];
            const int edits = 1 + int(rng() % 4);
            for (int e = 0; e < edits && !bytes.empty(); ++e) {
                const size_t at = rng() % bytes.size();
                switch (rng() % 4) {
                    case 0:
                        bytes[at] = char(rng());
                        break;
                    case 1: {
                        static constexpr char kChars[] = "0123456789abcdefABCDEF #;\n\r\t-x";
                        bytes.insert(at, 1, kChars[rng() % (sizeof kChars - 1)]);
                    } break;
                    case 2:
                        bytes.erase(at, 1 + rng() % 8);
                        break;
                    default:
                        bytes.resize(at);
                }
            }
            if (round % 10 == 0) {
                bytes.resize(rng() % 800);
                for (char& c : bytes) c = char(rng());
            }
            const std::string name = names[rng() % std::size(names)];
            Palette p;
            const Status st = parsePaletteFile(name, bytes, p);
            if (st.isOk()) {
                QVERIFY(p.size() >= 2 && p.size() <= 256);
                ++parsed;
            } else {
                QVERIFY2(st.message().rfind("palette file '" + name + "'", 0) == 0, st.message().c_str());
                QVERIFY(st.message().find('\n') == std::string::npos);
                QVERIFY(p.colors.empty());
            }
        }
        QVERIFY(parsed > 0);
    }

    // ---- writing palette files: every format reads back the same colours
    void saveRoundTrip_data() {
        QTest::addColumn<QString>("ext");
        for (const char* e : {".hex", ".gpl", ".txt", ".act", ".pal"}) QTest::newRow(e) << QString(e);
    }
    void saveRoundTrip() {
        QFETCH(QString, ext);
        QTemporaryDir dir;
        for (const char* name : {"pico8", "websafe", "bw"}) {
            const Palette& src = findBuiltinPalette(name)->palette;
            const std::string path = dir.path().toStdString() + "/" + name + ext.toStdString();
            QVERIFY(savePaletteFile(path, src).isOk());
            Palette back;
            const Status s = loadPaletteFile(path, back);
            QVERIFY2(s.isOk(), s.message().c_str());
            QCOMPARE(back.colors, src.colors);
        }
        std::string bytes;
        QVERIFY(!formatPaletteFile("x.png", findBuiltinPalette("bw")->palette, bytes).isOk());
    }

    // ---- built-in palettes against published values
    void builtins_data() {
        test::columns<QString, int, int, uint>("name", "count", "index", "color");
        auto row = [](const char* name, int count, int index, uint color) {
            QTest::addRow("%s[%d]", name, index) << QString(name) << count << index << color;
        };
        row("bw", 2, 1, 0xFFFFFF);
        row("bwr", 3, 2, 0xFF0000);
        row("bwy", 3, 2, 0xFFFF00);
        row("gray4", 4, 1, 0x555555);
        row("gray4", 4, 2, 0xAAAAAA);
        row("acep7", 7, 6, 0xFF8C00);           // Pimoroni inky: orange (255, 140, 0)
        row("acep7-measured", 7, 0, 0x393039);  // Pimoroni SATURATED_PALETTE black (57, 48, 57)
        row("acep7-measured", 7, 5, 0xD0BE47);  // yellow (208, 190, 71)
        row("spectra6", 6, 2, 0xFFFF00);        // panel order black, white, yellow, red, blue, green
        row("spectra6", 6, 5, 0x00FF00);
        row("spectra6-measured", 6, 1, 0xA1A4A5);  // (161, 164, 165)
        row("cga", 4, 1, 0x55FFFF);
        row("cga0", 4, 2, 0xFF5555);
        row("ega", 16, 6, 0xAA5500);  // brown, not dark yellow
        row("ega", 16, 9, 0x5555FF);
        row("gameboy", 4, 0, 0x0F380F);
        row("gameboy", 4, 3, 0x9BBC0F);
        row("c64", 16, 2, 0x68372B);   // Pepto: red
        row("c64", 16, 14, 0x6C5EB5);  // light blue
        row("pico8", 16, 8, 0xFF004D);
        row("pico8", 16, 15, 0xFFCCAA);
        row("mac16", 16, 1, 0xFBF305);  // QuickDraw (64512, 62333, 1327) / 257
        row("mac16", 16, 7, 0x02ABEA);
        row("mac16", 16, 15, 0x000000);
        row("websafe", 216, 0, 0x000000);
        row("websafe", 216, 1, 0x000033);
        row("websafe", 216, 6, 0x003300);
        row("websafe", 216, 215, 0xFFFFFF);
        row("cmy8", 8, 1, 0x00FFFF);
    }
    void builtins() {
        QFETCH(QString, name);
        QFETCH(int, count);
        QFETCH(int, index);
        QFETCH(uint, color);
        const BuiltinPalette* b = findBuiltinPalette(name.toStdString());
        QVERIFY(b);
        QCOMPARE(b->palette.size(), count);
        QCOMPARE(b->palette.colors[size_t(index)], rgb(color));
    }
    void builtinsComplete() {
        std::set<std::string> names, groups;
        for (const BuiltinPalette& b : builtinPalettes()) {
            QVERIFY2(names.insert(b.name).second, b.name.c_str());
            groups.insert(b.group);
            QVERIFY(!b.description.empty());
            QVERIFY(checkPalette(b.palette).isOk());
            QCOMPARE(b.palette.name, b.name);
            const std::set<Rgb8> distinct(b.palette.colors.begin(), b.palette.colors.end());
            QCOMPARE(int(distinct.size()), b.palette.size());  // no built-in repeats a colour
            QVERIFY(b.name.find('.') == std::string::npos && b.name.find('/') == std::string::npos);
        }
        QCOMPARE(groups, (std::set<std::string>{"e-paper", "retro", "system", "print"}));
        QCOMPARE(findBuiltinPalette("pico8")->palette.colors, kPico8);
        QCOMPARE(findBuiltinPalette("gameboy")->palette.colors, kGameBoy);
        // names are matched without regard to case and punctuation (core/job/names.h), as in the CLI and presets
        QVERIFY(findBuiltinPalette("PICO8") && findBuiltinPalette("PICO8")->name == "pico8");
        QVERIFY(findBuiltinPalette("Game Boy") && findBuiltinPalette("Game Boy")->name == "gameboy");
        QVERIFY(!findBuiltinPalette("nope"));
        const Palette& web = findBuiltinPalette("websafe")->palette;
        for (const Rgb8& c : web.colors)
            for (uint8_t v : c) QVERIFY(v % 51 == 0);
    }

    // ---- palettes made from images
    void autoPaletteDeterministic() {
        Image im;
        const Status r = io::readImage(std::string(HALFTONE_TEST_DATA_DIR) + "/chelsea.png", im);
        QVERIFY2(r.isOk(), r.message().c_str());
        for (int n : {2, 8, 16, 64}) {
            Palette a, b;
            QVERIFY(autoPalette(im, n, a).isOk());
            QVERIFY(autoPalette(im, n, b).isOk());
            QCOMPARE(a.colors, b.colors);
            QCOMPARE(a.size(), n);
            QCOMPARE(a.name, "auto:" + std::to_string(n));
            const std::set<Rgb8> distinct(a.colors.begin(), a.colors.end());
            QCOMPARE(int(distinct.size()), n);
            // Darkest first.
            for (size_t i = 1; i < a.colors.size(); ++i) {
                auto luma = [](const Rgb8& c) { return 0.2126 * c[0] + 0.7152 * c[1] + 0.0722 * c[2]; };
                QVERIFY2(luma(a.colors[i - 1]) <= luma(a.colors[i]) + 8, hexList(a.colors).c_str());
            }
        }
    }
    void autoPaletteFindsTheColours() {
        // An image of 4 flat colours plus slight noise: auto:4 finds each colour within a small distance.
        const std::vector<Rgb8> truth = rgbs({0x102030, 0xE0C040, 0x30A050, 0xC02060});
        Image im;
        im.space = ColorSpace::RGB;
        im.channels.assign(3, Plane8(64, 64));
        for (int y = 0; y < 64; ++y)
            for (int x = 0; x < 64; ++x) {
                const Rgb8& c = truth[size_t((y / 32) * 2 + x / 32)];
                const int noise = ((x * 31 + y * 17) % 5) - 2;
                for (int k = 0; k < 3; ++k)
                    im.channels[size_t(k)].at(y, x) = uint8_t(std::clamp(c[size_t(k)] + noise, 0, 255));
            }
        Palette p;
        QVERIFY(autoPalette(im, 4, p).isOk());
        QCOMPARE(p.size(), 4);
        for (const Rgb8& t : truth) {
            int best = 1 << 30;
            for (const Rgb8& c : p.colors) {
                int d = 0;
                for (int k = 0; k < 3; ++k) d += (c[size_t(k)] - t[size_t(k)]) * (c[size_t(k)] - t[size_t(k)]);
                best = std::min(best, d);
            }
            QVERIFY2(best <= 3 * 2 * 2, hexList(p.colors).c_str());
        }
    }
    void autoPaletteFewColours() {
        // Fewer distinct colours than asked: exactly the image's colours, darkest first.
        Image im;
        im.space = ColorSpace::RGB;
        im.channels.assign(3, Plane8(5, 3, 0));
        im.channels[0].at(0, 0) = 255;
        im.channels[1].at(1, 1) = 128;
        Palette p;
        QVERIFY(autoPalette(im, 16, p).isOk());
        QCOMPARE(hexList(p.colors), std::string("000000 008000 ff0000 "));  // L* 0, 46, 53
        // One colour: black or white is added so that the palette has two.
        Image flat = Image::gray(Plane8(4, 4, 200));
        QVERIFY(autoPalette(flat, 8, p).isOk());
        QCOMPARE(hexList(p.colors), std::string("000000 c8c8c8 "));
        Image dark = Image::gray(Plane8(4, 4, 10));
        QVERIFY(autoPalette(dark, 2, p).isOk());
        QCOMPARE(hexList(p.colors), std::string("0a0a0a ffffff "));
    }
    void autoPaletteLargeAndGray() {
        const Image big = testImage(1500, 900);  // subsampled
        Palette a, b;
        QVERIFY(autoPalette(big, 32, a).isOk());
        QVERIFY(autoPalette(big, 32, b).isOk());
        QCOMPARE(a.colors, b.colors);
        QCOMPARE(a.size(), 32);
        Plane8 ramp(256, 4);
        for (int y = 0; y < 4; ++y)
            for (int x = 0; x < 256; ++x) ramp.at(y, x) = uint8_t(x);
        Palette g;
        QVERIFY(autoPalette(Image::gray(ramp), 4, g).isOk());
        QCOMPARE(g.size(), 4);
        for (const Rgb8& c : g.colors) QVERIFY(std::abs(c[0] - c[1]) <= 1 && std::abs(c[1] - c[2]) <= 1);
        QVERIFY(g.colors.front()[0] < 64 && g.colors.back()[0] > 192);
    }
    void autoPaletteChoosesTheBestCandidate() {
        // A smooth colour field (red, yellow, blue and white at the corners, bilinear between them): the palette that
        // k-means in CIELAB alone makes cannot reach the field's saturated edges, so error diffusion to it is worse
        // than to a candidate made in sRGB code values; autoPalette keeps the candidate whose halftone is closest.
        Image ramp;
        ramp.space = ColorSpace::RGB;
        ramp.channels.assign(3, Plane8(193, 97));
        const double corners[4][3] = {{255, 0, 0}, {255, 255, 0}, {0, 0, 255}, {255, 255, 255}};
        for (int y = 0; y < 97; ++y)
            for (int x = 0; x < 193; ++x) {
                const double u = x / 192.0, v = y / 96.0;
                for (int k = 0; k < 3; ++k) {
                    const double c = (1 - u) * (1 - v) * corners[0][k] + u * (1 - v) * corners[1][k] +
                                     (1 - u) * v * corners[2][k] + u * v * corners[3][k];
                    ramp.channels[size_t(k)].at(y, x) = uint8_t(std::lround(c));
                }
            }
        for (int n : {16, 64}) {
            std::vector<AutoPaletteCandidate> cands;
            QVERIFY(autoPaletteCandidates(ramp, n, cands).isOk());
            QCOMPARE(int(cands.size()), 4);
            size_t best = 0;
            for (size_t i = 0; i < cands.size(); ++i) {
                QVERIFY2(cands[i].palette.size() >= 2 && cands[i].palette.size() <= n, cands[i].method.c_str());
                QVERIFY2(std::isfinite(cands[i].error) && cands[i].error > 0, cands[i].method.c_str());
                if (cands[i].error < cands[best].error) best = i;
            }
            Palette chosen;
            QVERIFY(autoPalette(ramp, n, chosen).isOk());
            QCOMPARE(chosen.colors, cands[best].palette.colors);
            // The measure the choice uses, on the whole image: the chosen palette dithers the field closer than
            // the CIELAB k-means alone.
            EdParams params;
            params.linear = true;
            auto dithered = [&](const Palette& p) {
                return filteredDeltaE2000(ramp, expandIndexed(referencePaletteErrorDiffusion(ramp, p, params), p));
            };
            const double chosenError = dithered(chosen), labOnly = dithered(cands[0].palette);
            QVERIFY2(chosenError < labOnly, qPrintable(QString("auto:%1: %2 (%3) against %4")
                                                           .arg(n)
                                                           .arg(chosenError)
                                                           .arg(QString::fromStdString(cands[best].method))
                                                           .arg(labOnly)));
        }
        // An image of few colours has one candidate: its own colours.
        std::vector<AutoPaletteCandidate> few;
        QVERIFY(autoPaletteCandidates(Image::gray(Plane8(3, 3, 40)), 4, few).isOk());
        QCOMPARE(int(few.size()), 1);
        QCOMPARE(hexList(few[0].palette.colors), std::string("282828 ffffff "));
    }
    void autoPaletteBadN() {
        const Image im = testImage(8, 8);
        Palette p;
        for (int n : {-1, 0, 1, 257}) {
            const Status s = autoPalette(im, n, p);
            QVERIFY(!s.isOk());
            QVERIFY2(QString::fromStdString(s.message()).contains("2 to 256"), s.message().c_str());
        }
        QVERIFY(!autoPalette(Image{}, 4, p).isOk());
    }

    // ---- what a user types
    void resolve() {
        const Image im = testImage(40, 30);
        Palette p;
        QVERIFY(resolvePalette("gameboy", nullptr, p).isOk());
        QCOMPARE(p.colors, kGameBoy);
        QVERIFY(resolvePalette(kData + "pico8.hex", nullptr, p).isOk());
        QCOMPARE(p.colors, kPico8);
        QVERIFY(resolvePalette("auto:6", &im, p).isOk());
        QCOMPARE(p.size(), 6);
        int n = -1;
        QVERIFY(parseAutoPaletteSpec("auto:256", n).isOk());
        QCOMPARE(n, 256);
        QVERIFY(parseAutoPaletteSpec("gameboy", n).isOk());
        QCOMPARE(n, 0);
        for (const char* bad : {"auto:", "auto:1", "auto:257", "auto:x", "auto:-3", "auto:99999", "auto:4 "}) {
            const Status s = resolvePalette(bad, &im, p);
            QVERIFY2(!s.isOk(), bad);
            QVERIFY2(QString::fromStdString(s.message()).contains("from 2 to 256"), s.message().c_str());
        }
        Status s = resolvePalette("auto:4", nullptr, p);
        QVERIFY(!s.isOk());
        s = resolvePalette("no-such-palette", nullptr, p);
        QVERIFY(!s.isOk());
        QVERIFY2(QString::fromStdString(s.message()).startsWith("unknown palette 'no-such-palette'"),
                 s.message().c_str());
        QVERIFY(QString::fromStdString(s.message()).contains("pico8"));
        s = resolvePalette(kData + "missing.gpl", nullptr, p);
        QVERIFY2(QString::fromStdString(s.message()).contains("cannot be read"), s.message().c_str());
        QVERIFY(!resolvePalette("", nullptr, p).isOk());
    }
};

QTEST_GUILESS_MAIN(TestPalette)
#include "test_palette.moc"
