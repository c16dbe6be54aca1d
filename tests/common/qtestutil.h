#pragma once
// \brief Qt Test helpers shared by the Qt Test programs: data-table columns in one statement, tables of image sizes.
#include <QtTest>

#include <array>
#include <cstddef>
#include <initializer_list>
#include <string>
#include <vector>
#include <utility>

#include "core/ed/errordiffusion.h"
#include "io/imagefile.h"
#include "tests/common/testutil.h"

namespace halftone::test {

/// \brief Adds the columns of a data table at once: `columns<QString, int>("kernel", "levels")`.
template <typename... T, typename... Name>
void columns(const Name&... names) {
    static_assert(sizeof...(T) == sizeof...(Name), "one name per column type");
    (QTest::addColumn<T>(names), ...);
}

/// \brief A data table of N string columns named `names`: one row per {row name, value, ...}.
template <std::size_t N>
void stringRows(const std::array<const char*, N>& names, std::initializer_list<std::array<const char*, N + 1>> rows) {
    for (const char* name : names) QTest::addColumn<QString>(name);
    for (const auto& r : rows) {
        QTestData& row = QTest::newRow(r[0]);
        for (std::size_t i = 1; i <= N; ++i) row << QString(r[i]);
    }
}

/// \brief One row of an intRows table: its name and its values.
template <std::size_t N>
struct IntRow {
    const char* name;
    std::array<int, N> values;
};

/// \brief A data table of N int columns named `names`: one row per {row name, {value, ...}}.
template <std::size_t N>
void intRows(const std::array<const char*, N>& names, std::initializer_list<IntRow<N>> rows) {
    for (const char* name : names) QTest::addColumn<int>(name);
    for (const IntRow<N>& r : rows) {
        QTestData& row = QTest::newRow(r.name);
        for (int v : r.values) row << v;
    }
}

/// \brief A data table of image sizes: int columns "w" and "h", one row "WxH" per size.
inline void sizeRows(std::initializer_list<std::pair<int, int>> sizes) {
    columns<int, int>("w", "h");
    for (const auto& [w, h] : sizes) QTest::addRow("%dx%d", w, h) << w << h;
}

/// \brief A data table of error-diffusion modes: columns kernel, levels, linear, serpentine; one row per kernel, level
/// count, gamma or linear light and raster or serpentine order, named "KERNEL Ln gamma|linear raster|serpentine".
inline void edModeRows(const std::vector<std::string>& kernels, std::initializer_list<int> levelCounts) {
    columns<QString, int, bool, bool>("kernel", "levels", "linear", "serpentine");
    for (const std::string& k : kernels)
        for (int levels : levelCounts)
            for (bool linear : {false, true})
                for (bool serp : {false, true})
                    QTest::addRow("%s L%d %s %s", k.c_str(), levels, linear ? "linear" : "gamma",
                                  serp ? "serpentine" : "raster")
                        << QString::fromStdString(k) << levels << linear << serp;
}

/// \brief A data table over the real images of tests/data: columns file, kernel, levels; rows "FILE/KERNEL/Ln".
inline void realImageRows(std::initializer_list<const char*> kernels, std::initializer_list<int> levelCounts) {
    columns<QString, QString, int>("file", "kernel", "levels");
    for (const char* f : {"moon.png", "page.png", "chelsea.png"})
        for (const char* k : kernels)
            for (int L : levelCounts) QTest::addRow("%s/%s/L%d", f, k, L) << f << k << L;
}

/// \brief The current row of a realImageRows table: its image as one gray plane (status: why it could not be read)
/// and error-diffusion parameters of its kernel and level count. Only for tests that link the io library.
struct RealImageRow {
    Status status;
    Plane8 gray;
    EdParams params;
};
inline RealImageRow realImageRow() {
    QFETCH(QString, file);
    QFETCH(QString, kernel);
    QFETCH(int, levels);
    RealImageRow row;
    Image img;
    row.status = io::readImage(dataPath(file.toStdString()), img);
    if (row.status) row.gray = convertColor(img, ColorMode::Gray).channels.front();
    row.params.kernel = kernel.toStdString();
    row.params.levels = levels;
    return row;
}

/// \brief The EdParams of the current row: its kernel, linear and serpentine columns, and its levels column when
/// `withLevels` (tables of edModeRows have all four).
inline EdParams edParamsFromRow(bool withLevels = true) {
    QFETCH(QString, kernel);
    QFETCH(bool, linear);
    QFETCH(bool, serpentine);
    EdParams p;
    p.kernel = kernel.toStdString();
    p.linear = linear;
    p.serpentine = serpentine;
    if (withLevels) {
        QFETCH(int, levels);
        p.levels = levels;
    }
    return p;
}

/// \brief Writes `bytes` to the file `path`, replacing it; false when that fails.
inline bool writeFile(const QString& path, const QByteArray& bytes) {
    QFile f(path);
    return f.open(QIODevice::WriteOnly) && f.write(bytes) == bytes.size();
}

/// \brief test::firstDifference for a Qt Test message.
inline QString firstDifferenceText(const Plane8& got, const Plane8& want) {
    return QString::fromStdString(firstDifference(got, want));
}

}  // namespace halftone::test

/// \brief Skips the test function, naming the package, when the profile file (a path from
/// test::ghostscriptProfile) is missing.
#define HALFTONE_SKIP_WITHOUT_PROFILE(path)                                                                          \
    do {                                                                                                             \
        const QString missing_ = QString::fromStdString(path);                                                       \
        if (!QFile::exists(missing_))                                                                                \
            QSKIP(qPrintable(missing_ + " is missing: install Debian's libgs-common (Ghostscript's ICC profiles)")); \
    } while (false)
