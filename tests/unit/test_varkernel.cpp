// The kernels whose weights depend on the input level (Ostromoukhov; Zhou and Fang; Li and Allebach's TDED;
// docs/spec.md section 1): their tables against the published numbers (TDED's against its bounds), the noise hash
// against the SPEC's values, and every CPU variant against referenceErrorDiffusion bit for bit (sequential ED and EC
// with and without register caching, trapezoid blocks, the wavefront on every SIMD path) on awkward sizes and the real
// images, raster and serpentine, 2, 3 and 256 levels, gamma and linear light.
#include <QtTest>

#include <cmath>
#include <functional>

#include "core/ed/errordiffusion.h"
#include "core/ed/kernel.h"
#include "core/palette/mbvq.h"
#include "core/palette/palette.h"
#include "core/palette/paletteed.h"
#include "core/ed/parallel.h"
#include "core/ed/varkerneltable.h"
#include "io/imagefile.h"
#include "tests/common/qtestutil.h"
#include "tests/common/testutil.h"

using namespace halftone;

namespace {

namespace vt = varkerneltable;

/// One CPU variant: a name and how it runs.
struct Variant {
    std::string name;
    std::function<Status(const Plane8&, Plane8&, const EdParams&)> run;
};

std::vector<Variant> variants() {
    std::vector<Variant> v;
    const std::pair<const char*, EdVariant> seq[] = {{"ed/plain", EdVariant::Diffusion},
                                                     {"ec/plain", EdVariant::Collection},
                                                     {"ed/rc", EdVariant::DiffusionRegisters},
                                                     {"ec/rc", EdVariant::CollectionRegisters}};
    for (const auto& [name, which] : seq)
        v.push_back(
            {name, [which](const Plane8& s, Plane8& d, const EdParams& p) { return errorDiffuse(s, d, p, which); }});
    // Deshpande, Misra and Narayanan's trapezoid blocks, small blocks so that even small images have many
    v.push_back({"ec/trapezoid", [](const Plane8& s, Plane8& d, const EdParams& p) {
                     ParallelOptions o;
                     o.threads = 3;
                     o.blockWidth = 9;
                     o.blockHeight = 5;
                     return trapezoidErrorDiffusion(s, d, p, o);
                 }});
    // the wavefront bands on every instruction-set path this processor has
    for (SimdPath path : supportedSimdPaths())
        v.push_back(
            {std::string("ec/wavefront/") + toString(path), [path](const Plane8& s, Plane8& d, const EdParams& p) {
                 ParallelOptions o;
                 o.threads = 2;
                 o.simd = path;
                 return wavefrontErrorDiffusion(s, d, p, o);
             }});
    return v;
}

/// W = c D / sum rounded half up (the SPEC's rule), for checking derived weights against published rows.
int rounded(int64_t c, int64_t sum) { return int((2 * c * vt::kDivisor + sum) / (2 * sum)); }

}  // namespace

class TestVarKernel : public QObject {
    Q_OBJECT
private slots:
    void listedAsKernels();
    void ostromoukhovTable();
    void zhouFangTable();
    void zhouFangStrength();
    void tdedTable();
    void tdedThresholdMovesDots();
    void noiseHashValues();
    void variantsMatchReference_data();
    void variantsMatchReference();
    void realImages_data();
    void realImages();
    void seedChangesOnlyZhouFang();
    void flatGrayKeepsItsTone();
    void paletteMethodsRefuse();
};

void TestVarKernel::listedAsKernels() {
    for (const char* name : {"ostromoukhov", "zhou-fang", "tded"}) {
        const Kernel* k = findKernel(name);
        QVERIFY2(k, name);
        QVERIFY(k->levelDependent());
        QCOMPARE(k->divisor, 16384);
        QCOMPARE(int(k->taps.size()), 3);
        QCOMPARE(k->minimalDelay(), 2);  // the taps of Floyd-Steinberg less (1, 1)
        QVERIFY(kernelNames().find(name) != std::string::npos);
    }
    QVERIFY(!findKernel("ostromoukhov")->modulated());
    QVERIFY(findKernel("zhou-fang")->modulated());
    QVERIFY(findKernel("tded")->modulated());  // by its thresholds, without noise
    QVERIFY(!findKernel("tded")->levelTable->noise);
    QVERIFY(!findKernel("floyd-steinberg")->levelDependent());
    QCOMPARE(findKernel("floyd-steinberg")->weight(0, 77), 7);
    // the fixed kernels keep their places (the GPU indexes kernels() by position)
    QCOMPARE(kernels().front().name, std::string("floyd-steinberg"));
    QCOMPARE(kernels()[kernels().size() - 3].name, std::string("ostromoukhov"));
    QCOMPARE(kernels()[kernels().size() - 2].name, std::string("zhou-fang"));
    QCOMPARE(kernels().back().name, std::string("tded"));
}

void TestVarKernel::ostromoukhovTable() {
    // Rows as printed in Ostromoukhov (2001)'s program: right, down-left, down, sum.
    struct Row {
        int level, r, dl, d, sum;
    };
    const Row published[] = {{0, 13, 0, 5, 18},         {1, 13, 0, 5, 18},  {5, 47, 3, 28, 78},
                             {10, 7, 3, 3, 13},         {22, 3, 2, 1, 6},   {44, 36, 26, 15, 77},
                             {55, 299, 263, 54, 616},   {64, 1, 1, 0, 2},   {73, 172, 181, 37, 390},
                             {85, 4, 1, 1, 6},          {100, 5, 3, 2, 10}, {108, 305, 176, 119, 600},
                             {126, 395, 104, 101, 600}, {127, 4, 1, 1, 6}};
    const Kernel& k = *findKernel("ostromoukhov");
    for (const Row& row : published) {
        const vt::CoefRow& c = vt::kOstromoukhov[row.level];
        QCOMPARE(int(c.right), row.r);
        QCOMPARE(int(c.downLeft), row.dl);
        QCOMPARE(int(c.down), row.d);
        QCOMPARE(int(c.sum), row.sum);
        for (int a : {row.level, 255 - row.level}) {  // mirrored above 127
            const int wr = rounded(row.r, row.sum), wdl = rounded(row.dl, row.sum);
            QCOMPARE(k.weight(0, uint8_t(a)), wr);
            QCOMPARE(k.weight(1, uint8_t(a)), wdl);
            QCOMPARE(k.weight(2, uint8_t(a)), 16384 - wr - wdl);
        }
    }
    QCOMPARE(k.weight(0, 0), 11833);  // 13 / 18 of 16384
    QCOMPARE(k.weight(2, 0), 4551);
    QCOMPARE(k.weight(2, 64), 0);  // level 64 sends nothing down
    for (int a = 0; a < 256; ++a) {
        QCOMPARE(k.weight(0, uint8_t(a)) + k.weight(1, uint8_t(a)) + k.weight(2, uint8_t(a)), 16384);
        QCOMPARE(k.strength(uint8_t(a)), 0);
    }
}

void TestVarKernel::zhouFangTable() {
    // Zhou and Fang (2003), Table 1, at key levels: right, down-left, down.
    struct Key {
        int level;
        int64_t r, dl, d;
    };
    const Key published[] = {{0, 13, 0, 5},
                             {1, 1300249, 0, 499250},
                             {10, 704075, 297466, 303694},
                             {44, 43024, 42131, 14826},
                             {72, 38477, 53843, 7678},
                             {85, 35865, 34108, 30026},
                             {107, 16477, 18810, 14712},
                             {127, 35269, 36066, 28664}};
    const Kernel& k = *findKernel("zhou-fang");
    for (const Key& key : published) {
        const int64_t sum = key.r + key.dl + key.d;
        for (int a : {key.level, 255 - key.level}) {
            QCOMPARE(k.weight(0, uint8_t(a)), rounded(key.r, sum));
            QCOMPARE(k.weight(1, uint8_t(a)), rounded(key.dl, sum));
        }
    }
    // Between keys: the normalised coefficients of the authors' interpolated table (right, down-left), to within the
    // rounding of the integer weights.
    struct Mid {
        int level;
        double r, dl;
    };
    const Mid mids[] = {{5, 0.606570, 0.037983},  {22, 0.466135, 0.319173}, {65, 0.366696, 0.445475},
                        {50, 0.410459, 0.424631}, {90, 0.349914, 0.355039}, {120, 0.343785, 0.369475},
                        {80, 0.387644, 0.450085}};
    for (const Mid& m : mids) {
        QVERIFY2(std::abs(k.weight(0, uint8_t(m.level)) - m.r * 16384) <= 1.0, qPrintable(QString::number(m.level)));
        QVERIFY2(std::abs(k.weight(1, uint8_t(m.level)) - m.dl * 16384) <= 1.0, qPrintable(QString::number(m.level)));
    }
    for (int a = 0; a < 256; ++a)
        QCOMPARE(k.weight(0, uint8_t(a)) + k.weight(1, uint8_t(a)) + k.weight(2, uint8_t(a)), 16384);
}

void TestVarKernel::zhouFangStrength() {
    const Kernel& k = *findKernel("zhou-fang");
    // Zhou and Fang (2003), Table 2, in percent, at the key levels and mirrored
    const std::pair<int, int> keys[] = {{0, 0},    {44, 34},  {64, 50},  {85, 100}, {95, 17},
                                        {102, 50}, {107, 70}, {112, 79}, {127, 100}};
    for (auto [level, percent] : keys) {
        QCOMPARE(k.strength(uint8_t(level)), percent);
        QCOMPARE(k.strength(uint8_t(255 - level)), percent);
    }
    // interpolated, rounded down
    QCOMPARE(k.strength(22), 17);
    QCOMPARE(k.strength(90), 58);
    QCOMPARE(k.strength(120), 90);
    QCOMPARE(k.strength(2), 1);
    // the per-level scale Z(a) of the SPEC: two levels, full strength: P = 16 u
    QCOMPARE(vt::modulationScale(100, 2), 262144);
    QCOMPARE(vt::perturbation(127, 262144), 2032);
    QCOMPARE(vt::modulationScale(100, 256), 1028);  // floor(100 2^18 / 25500)
    QCOMPARE(vt::modulationScale(0, 2), 0);
}

void TestVarKernel::tdedTable() {
    const Kernel& k = *findKernel("tded");
    for (int a = 0; a < 256; ++a) {
        const uint8_t b = uint8_t(a), mirror = uint8_t(255 - a);
        const vt::TdedRow& row = vt::kTded[a < 128 ? a : 255 - a];
        QCOMPARE(k.weight(0, b), row.right);
        QCOMPARE(k.weight(1, b), row.downLeft);
        QCOMPARE(k.weight(2, b), row.down);
        QCOMPARE(k.weight(0, b) + k.weight(1, b) + k.weight(2, b), 16384);
        QVERIFY(k.weight(0, b) >= 0 && k.weight(1, b) >= 0 && k.weight(2, b) >= 0);
        QCOMPARE(k.weight(0, b), k.weight(0, mirror));  // the weights mirror, the threshold offset changes sign
        QCOMPARE(k.threshold(b), -k.threshold(mirror));
        QCOMPARE(k.strength(b), 0);
        QVERIFY(std::abs(k.threshold(b)) <= 2032);  // |P| <= 2032 keeps |E| <= 4072 (docs/spec.md section 1)
        // the modulation word carries T_L(a) = floor(T(a) / (L - 1)) and no noise scale; P is T_L(a) for any u
        for (int levels : {2, 3, 256}) {
            const int32_t word = k.modulationWord(b, levels);
            const int t = k.threshold(b);
            const int expected = int(std::floor(double(t) / double(levels - 1)));
            QCOMPARE(vt::perturbation(0, word), expected);
            QCOMPARE(vt::perturbation(127, word), expected);
        }
    }
    // the word packs a noise scale and a negative offset without either disturbing the other
    vt::VarKernelDef d = *k.levelTable;
    d.strength[7] = 100;
    d.threshold[7] = -30;
    QCOMPARE(vt::perturbation(127, vt::modulationWord(d, 7, 2)), 2032 - 30);
    QCOMPARE(vt::perturbation(0, vt::modulationWord(d, 7, 3)), -15);
    QCOMPARE(vt::perturbation(1, vt::modulationWord(d, 7, 2)), 16 - 30);
}

void TestVarKernel::tdedThresholdMovesDots() {
    // The trained thresholds are part of the kernel: without them the same weights place other dots on a ramp.
    const Kernel& k = *findKernel("tded");
    int nonzero = 0;
    for (int a = 0; a < 256; ++a) nonzero += k.threshold(uint8_t(a)) != 0;
    QVERIFY2(nonzero > 0, "the shipped table has threshold offsets");
    vt::VarKernelDef flat = *k.levelTable;
    for (int& t : flat.threshold) t = 0;
    Kernel unthresholded = k;
    unthresholded.levelTable = &flat;
    Plane8 ramp(256, 32);
    for (int i = 0; i < ramp.height; ++i)
        for (int j = 0; j < ramp.width; ++j) ramp.at(i, j) = uint8_t(j);
    EdParams p;
    p.kernel = "tded";
    QVERIFY(referenceErrorDiffusion(ramp, p).data != referenceErrorDiffusion(ramp, p, unthresholded).data);
    QCOMPARE(referenceErrorDiffusion(ramp, p, k).data, referenceErrorDiffusion(ramp, p).data);
}

void TestVarKernel::noiseHashValues() {
    // the values docs/spec.md prints, so another implementation (the GPU) can check itself
    QCOMPARE(vt::noiseU(0, 0, 1), 54);
    QCOMPARE(vt::noiseU(3, 5, 1), 25);
    QCOMPARE(vt::noiseHash(1, 2, 3), 1224614154u);
    // roughly uniform over 0..127
    std::vector<int> count(128, 0);
    for (uint32_t i = 0; i < 256; ++i)
        for (uint32_t j = 0; j < 256; ++j) ++count[size_t(vt::noiseU(i, j, 7))];
    for (int c : count) QVERIFY2(c > 350 && c < 680, qPrintable(QString::number(c)));  // 512 expected
}

void TestVarKernel::variantsMatchReference_data() {
    test::edModeRows({"ostromoukhov", "zhou-fang", "tded"}, {2, 3, 256});
}

void TestVarKernel::variantsMatchReference() {
    EdParams p = test::edParamsFromRow();
    p.seed = uint32_t(test::freshSeed("varkernel seed"));
    const std::pair<int, int> sizes[] = {{1, 1}, {1, 97}, {97, 1}, {2, 3}, {7, 13}, {31, 33}, {61, 67}, {257, 129}};
    for (auto [w, h] : sizes) {
        const Plane8 src = test::randomPlane(w, h, test::freshSeed("varkernel"));
        const Plane8 ref = referenceErrorDiffusion(src, p);
        for (const Variant& v : variants()) {
            Plane8 out;
            const Status st = v.run(src, out, p);
            QVERIFY2(st.isOk(), qPrintable(QString::fromStdString(v.name + ": " + st.message())));
            QVERIFY2(out.data == ref.data, qPrintable(QString("%1 %2x%3: %4")
                                                          .arg(QString::fromStdString(v.name))
                                                          .arg(w)
                                                          .arg(h)
                                                          .arg(test::firstDifferenceText(out, ref))));
        }
    }
}

void TestVarKernel::realImages_data() { test::realImageRows({"ostromoukhov", "zhou-fang", "tded"}, {2, 3}); }

void TestVarKernel::realImages() {
    const test::RealImageRow row = test::realImageRow();
    QVERIFY2(row.status.isOk(), row.status.message().c_str());
    const Plane8& src = row.gray;
    for (bool serpentine : {false, true}) {
        EdParams p = row.params;
        p.serpentine = serpentine;
        const Plane8 ref = referenceErrorDiffusion(src, p);
        for (const Variant& v : variants()) {
            Plane8 out;
            QVERIFY(v.run(src, out, p).isOk());
            QVERIFY2(out.data == ref.data,
                     qPrintable(QString::fromStdString(v.name) + (serpentine ? " serpentine: " : ": ") +
                                test::firstDifferenceText(out, ref)));
        }
    }
}

void TestVarKernel::seedChangesOnlyZhouFang() {
    Plane8 src(64, 48);
    for (int i = 0; i < src.height; ++i)
        for (int j = 0; j < src.width; ++j) src.at(i, j) = uint8_t(96 + (i + j) % 64);  // mid-tones: strong modulation
    EdParams p;
    p.kernel = "zhou-fang";
    p.seed = 1;
    const Plane8 a = referenceErrorDiffusion(src, p);
    QCOMPARE(referenceErrorDiffusion(src, p).data, a.data);  // same seed, same bits
    p.seed = 2;
    const Plane8 b = referenceErrorDiffusion(src, p);
    int differ = 0;
    for (size_t n = 0; n < a.data.size(); ++n) differ += a.data[n] != b.data[n];
    QVERIFY2(differ > int(a.data.size()) / 10, qPrintable(QString::number(differ)));
    Plane8 out;
    QVERIFY(errorDiffuse(src, out, p, EdVariant::CollectionRegisters).isOk());
    QCOMPARE(out.data, b.data);
    // Ostromoukhov and TDED have no noise: the seed changes nothing
    for (const char* k : {"ostromoukhov", "tded"}) {
        p.kernel = k;
        p.seed = 1;
        const Plane8 c = referenceErrorDiffusion(src, p);
        p.seed = 2;
        QCOMPARE(referenceErrorDiffusion(src, p).data, c.data);
    }
}

void TestVarKernel::flatGrayKeepsItsTone() {
    // The error of the unperturbed S is diffused, so the modulation moves dots but keeps the mean tone.
    for (const char* k : {"ostromoukhov", "zhou-fang", "tded"})
        for (int gray : {20, 64, 85, 128, 170, 230}) {
            Plane8 src(128, 128);
            std::fill(src.data.begin(), src.data.end(), uint8_t(gray));
            EdParams p;
            p.kernel = k;
            const Plane8 out = referenceErrorDiffusion(src, p);
            double sum = 0;
            for (uint8_t x : out.data) sum += x;
            const double mean = sum / double(out.data.size());
            QVERIFY2(std::abs(mean - gray) < 1.5, qPrintable(QString("%1 at %2: mean %3").arg(k).arg(gray).arg(mean)));
        }
}

void TestVarKernel::paletteMethodsRefuse() {
    // Palette and MBVQ error diffusion diffuse colour vectors, which have no one gray level to pick weights by.
    const Image rgb = Image::gray(test::randomPlane(9, 7, test::freshSeed("palette refuse")));
    Palette bw;
    QVERIFY(resolvePalette("bw", nullptr, bw).isOk());
    for (const char* k : {"ostromoukhov", "zhou-fang", "tded"}) {
        EdParams p;
        p.kernel = k;
        Plane8 idx;
        const Status s = paletteErrorDiffuse(rgb, bw, idx, p, EdVariant::CollectionRegisters);
        QVERIFY(!s.isOk());
        QVERIFY2(s.message().find("fixed kernels") != std::string::npos, s.message().c_str());
        const Status m = mbvqErrorDiffusion(rgb, mbvqPalette(), p, idx);
        QVERIFY(!m.isOk());
        QVERIFY2(m.message().find("fixed kernels") != std::string::npos, m.message().c_str());
    }
}

QTEST_GUILESS_MAIN(TestVarKernel)
#include "test_varkernel.moc"
