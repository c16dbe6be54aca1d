#pragma once
// \brief Dot-gain compensation: the printed tone of each ink as a curve of its nominal tone, and the 8-bit tables that
// give the nominal tone to ask for so that the print shows the wanted one (docs/print.md, "Dot gain").
#include <array>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "core/image.h"
#include "core/status.h"

namespace halftone {

/// \brief One ink's printed tone as a function of its nominal tone: points (nominal, printed) in percent from (0, 0)
/// to (100, 100), both rising; empty = the ink prints as asked.
using DotGainCurve = std::vector<std::pair<double, double>>;

/// \brief The dot gain of the four process inks, in plane order (C, M, Y, K).
struct DotGain {
    std::array<DotGainCurve, 4> inks;
    bool empty() const;
    friend bool operator==(const DotGain&, const DotGain&) = default;
};

/// \brief The usual one-number curve: a gain of `percent` at 50 % nominal, printed = t + 4 g t (1 - t) for t and g in
/// fractions (zero at paper and solid, largest at the middle), tabulated at every 5 %.
DotGainCurve dotGainAtMiddle(double percent);

/// \brief Parses "15" (every ink 15 % at 50 %) or "15,17,12,20" (C, M, Y, K).
Status parseDotGainPercents(const std::string& text, DotGain& out);

/// \brief Parses a curve file's text: lines "NOMINAL PRINTED" in percent, or "NOMINAL C M Y K" for one curve per
/// ink; '#' starts a comment. The curve is completed with (0, 0) and (100, 100) and must rise in both columns.
Status parseDotGainCurve(const std::string& text, DotGain& out);

/// \brief Checks every ink's curve: percents from 0 to 100, the printed tone rising with the nominal one.
Status checkDotGain(const DotGain& gain);

/// \brief For one ink: the nominal 8-bit amount that prints as each wanted amount (255 = solid), by inverting the
/// piecewise-linear curve; identity for an empty curve.
std::array<uint8_t, 256> dotGainCompensation(const DotGainCurve& curve);

/// \brief Compensates the four inks of a CMYK image in place, each by its table (dotGainCompensation).
void compensateDotGain(Image& cmyk, const DotGain& gain);

/// \brief The printed 8-bit amount of a nominal one, by the curve (the print preview's dot gain).
std::array<uint8_t, 256> dotGainPrinted(const DotGainCurve& curve);

}  // namespace halftone
