#include "core/number.h"

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <utility>

namespace halftone {

std::string numberText(double v) {
    if (std::isnan(v)) return "nan";
    if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
    char buf[64];
    if (v == std::trunc(v) && std::fabs(v) < 1e15) {
        std::snprintf(buf, sizeof buf, "%.0f", v);
        return buf;
    }
    // The shortest of 15, 16 and 17 digits that reads back as the same double: 0.1, not 0.10000000000000001.
    for (const int digits : {15, 16, 17}) {
        std::snprintf(buf, sizeof buf, "%.*g", digits, v);
        if (std::strtod(buf, nullptr) == v) break;
    }
    return buf;
}

Status checkNumber(const NumberRule& rule, const NumberText& n) {
    const std::string got = ", got " + (n.text.empty() ? numberText(n.value) : n.text);
    const std::string range = "from " + numberText(rule.lo) + " to " + numberText(rule.hi);
    if (!std::isfinite(n.value) || n.value < rule.lo || n.value > rule.hi)
        return Status::error(std::string("must be ") + (rule.whole ? "a whole number " : "a number ") + range + got);
    if (rule.whole && n.value != std::trunc(n.value)) return Status::error("must be a whole number " + range + got);
    return Status::ok();
}

Status parseNumber(const NumberRule& rule, const std::string& text, NumberText& out) {
    NumberText n{0, text};
    // Decimal only: digits, sign, point and exponent (strtod alone would take "nan", "inf" and "0x1p3").
    bool digit = false;
    for (const char c : text) {
        digit = digit || (c >= '0' && c <= '9');
        if (!((c >= '0' && c <= '9') || c == '-' || c == '+' || c == '.' || c == 'e' || c == 'E'))
            return Status::error("must be a number, got '" + text + "'");
    }
    if (!digit) return Status::error("must be a number, got '" + text + "'");
    errno = 0;
    char* end = nullptr;
    n.value = std::strtod(text.c_str(), &end);
    if (end != text.c_str() + text.size()) return Status::error("must be a number, got '" + text + "'");
    if (errno == ERANGE && std::isinf(n.value))
        return Status::error("must be a " + std::string(rule.whole ? "whole number" : "number") + " from " +
                             numberText(rule.lo) + " to " + numberText(rule.hi) + ", got " + text);
    if (Status s = checkNumber(rule, n); !s) return s;
    out = std::move(n);
    return Status::ok();
}

const NumberRule* jobNumberRule(std::string_view key) {
    static const std::pair<std::string_view, NumberRule> rules[] = {
        {"width", {0, 1 << 20, true}},      {"height", {0, 1 << 20, true}},      {"scale", {0, 64, false}},
        {"pixel-size", {1, 1024, true}},    {"black-point", {0, 254, true}},     {"white-point", {1, 255, true}},
        {"brightness", {-100, 100, false}}, {"contrast", {-100, 100, false}},    {"gamma", {0.1, 10, false}},
        {"saturation", {0, 400, false}},    {"sharpen-amount", {0, 500, false}}, {"sharpen-radius", {0.3, 50, false}},
        {"dpi", {0, 100000, false}},        {"threads", {0, 1 << 16, true}},     {"gcr", {0, 100, true}},
        {"ink-limit", {0, 400, true}},
    };
    for (const auto& [name, rule] : rules)
        if (name == key) return &rule;
    return nullptr;
}

}  // namespace halftone
