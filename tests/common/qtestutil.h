#pragma once
// \brief Qt Test helpers shared by the Qt Test programs: data-table columns in one statement, tables of image sizes.
#include <QtTest>

#include <initializer_list>
#include <utility>

namespace halftone::test {

/// \brief Adds the columns of a data table at once: `columns<QString, int>("kernel", "levels")`.
template <typename... T, typename... Name>
void columns(const Name&... names) {
    static_assert(sizeof...(T) == sizeof...(Name), "one name per column type");
    (QTest::addColumn<T>(names), ...);
}

/// \brief A data table of image sizes: int columns "w" and "h", one row "WxH" per size.
inline void sizeRows(std::initializer_list<std::pair<int, int>> sizes) {
    columns<int, int>("w", "h");
    for (const auto& [w, h] : sizes) QTest::addRow("%dx%d", w, h) << w << h;
}

}  // namespace halftone::test
