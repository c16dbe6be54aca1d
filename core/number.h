#pragma once
// \brief One validated number type for every numeric setting a person types: preset values and command-line options
// are checked by the same rule (finite, in range, whole where the setting counts something) before they are stored,
// so nothing wraps, truncates or turns NaN into a setting.
#include <cmath>
#include <string>
#include <string_view>
#include <type_traits>

#include "core/status.h"

namespace halftone {

/// \brief The rule of one numeric setting: its range and whether it is a whole number.
struct NumberRule {
    double lo = 0, hi = 0;
    bool whole = false;
};

/// \brief A number as a person gave it: its value and its text (for the message: "4294967297", "nan", "1e400").
struct NumberText {
    double value = 0;
    std::string text;
};

/// \brief Checks `n` against `rule`; the message (without the setting's name, which the caller puts in front) says
/// what is allowed and what was given: "must be a whole number from 1 to 1024, got 4294967297".
Status checkNumber(const NumberRule& rule, const NumberText& n);

/// \brief checkNumber, then stores the value in `out` (an integer or floating-point field). Nothing is stored when the
/// number is refused.
template <class T>
Status storeNumber(const NumberRule& rule, const NumberText& n, T& out) {
    static_assert(std::is_arithmetic_v<T>);
    if (Status s = checkNumber(rule, n); !s) return s;
    if constexpr (std::is_integral_v<T>)
        out = static_cast<T>(std::llround(n.value));
    else
        out = static_cast<T>(n.value);
    return Status::ok();
}

/// \brief Parses text as a number: the whole text, decimal ("12", "-0.5", "1e3"); "nan", "inf", hexadecimal and
/// trailing characters are refused. The value is checked with checkNumber.
Status parseNumber(const NumberRule& rule, const std::string& text, NumberText& out);

/// \brief The rule of a numeric job setting by its preset key (the option of the same name on the command line):
/// width, height, scale, pixel-size, black-point, white-point, brightness, contrast, gamma, saturation,
/// sharpen-amount, sharpen-radius, dpi, threads, gcr, ink-limit. Null for any other key.
const NumberRule* jobNumberRule(std::string_view key);

/// \brief A number as text for messages: whole numbers without a fraction, others with up to 17 digits.
std::string numberText(double v);

}  // namespace halftone
