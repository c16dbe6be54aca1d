// Dot-gain compensation: piecewise-linear curves of printed against nominal tone, inverted into 8-bit tables.
#include "core/print/dotgain.h"

#include <algorithm>
#include <cmath>
#include <sstream>

namespace halftone {

namespace {

/// The curve with (0, 0) and (100, 100) added where missing, sorted by nominal tone.
DotGainCurve completed(DotGainCurve c) {
    c.push_back({0, 0});
    c.push_back({100, 100});
    std::sort(c.begin(), c.end());
    c.erase(std::unique(c.begin(), c.end(), [](const auto& a, const auto& b) { return a.first == b.first; }), c.end());
    return c;
}

/// Linear interpolation of y at x on points sorted by `key` (0: nominal, 1: printed).
double interpolate(const DotGainCurve& c, double x, bool inverse) {
    const auto key = [&](const std::pair<double, double>& p) { return inverse ? p.second : p.first; };
    const auto value = [&](const std::pair<double, double>& p) { return inverse ? p.first : p.second; };
    for (size_t i = 1; i < c.size(); ++i)
        if (x <= key(c[i])) {
            const double x0 = key(c[i - 1]), x1 = key(c[i]);
            const double f = x1 > x0 ? (x - x0) / (x1 - x0) : 0.0;
            return value(c[i - 1]) + f * (value(c[i]) - value(c[i - 1]));
        }
    return value(c.back());
}

std::array<uint8_t, 256> table(const DotGainCurve& curve, bool inverse) {
    std::array<uint8_t, 256> t{};
    const DotGainCurve c = completed(curve);
    for (int v = 0; v < 256; ++v)
        t[size_t(v)] =
            curve.empty() ? uint8_t(v)
                          : uint8_t(std::clamp(std::lround(interpolate(c, v * 100.0 / 255, inverse) * 2.55), 0L, 255L));
    return t;
}

Status checkCurve(const DotGainCurve& curve, const std::string& what) {
    const DotGainCurve c = completed(curve);
    for (size_t i = 0; i < c.size(); ++i) {
        if (c[i].first < 0 || c[i].first > 100 || c[i].second < 0 || c[i].second > 100)
            return Status::error(what + ": tones are percents from 0 to 100");
        if (i > 0 && !(c[i].second > c[i - 1].second))
            return Status::error(what + ": the printed tone must rise with the nominal one (at " +
                                 std::to_string(int(c[i].first)) + " %)");
    }
    return Status::ok();
}

}  // namespace

bool DotGain::empty() const {
    return std::all_of(inks.begin(), inks.end(), [](const DotGainCurve& c) { return c.empty(); });
}

DotGainCurve dotGainAtMiddle(double percent) {
    DotGainCurve c;
    if (percent == 0) return c;
    const double g = percent / 100;
    for (int n = 5; n < 100; n += 5) {
        const double t = n / 100.0;
        c.push_back({double(n), 100 * (t + 4 * g * t * (1 - t))});
    }
    return c;
}

Status parseDotGainPercents(const std::string& text, DotGain& out) {
    std::vector<double> v;
    std::stringstream in(text);
    bool bad = text.empty() || text.back() == ',';
    for (std::string item; !bad && std::getline(in, item, ',');) {
        size_t used = 0;
        try {
            v.push_back(std::stod(item, &used));
        } catch (...) {
            bad = true;
            break;
        }
        bad = used != item.size() || !std::isfinite(v.back()) || v.back() < 0 || v.back() >= 25;
    }
    if (bad || (v.size() != 1 && v.size() != 4))
        return Status::error("--dot-gain '" + text +
                             "' must be a percent of gain at 50 % (0 to under 25) for every ink, four of them for C, "
                             "M, Y and K (e.g. 15,17,14,18), or a curve file");
    for (size_t c = 0; c < 4; ++c) out.inks[c] = dotGainAtMiddle(v.size() == 1 ? v[0] : v[c]);
    return Status::ok();
}

Status parseDotGainCurve(const std::string& text, DotGain& out) {
    std::array<DotGainCurve, 4> inks;
    std::stringstream in(text);
    int line = 0, columns = 0;
    for (std::string row; std::getline(in, row);) {
        ++line;
        if (const size_t hash = row.find('#'); hash != std::string::npos) row.erase(hash);
        std::stringstream cells(row);
        std::vector<double> v;
        for (double x; cells >> x;) v.push_back(x);
        if (!cells.eof() || (v.size() != 0 && v.size() != 2 && v.size() != 5) ||
            (columns && !v.empty() && int(v.size()) != columns))
            return Status::error("line " + std::to_string(line) +
                                 ": a curve line is NOMINAL PRINTED or NOMINAL C M Y K, in percent");
        if (v.empty()) continue;
        columns = int(v.size());
        for (size_t c = 0; c < 4; ++c) inks[c].push_back({v[0], v[columns == 2 ? 1 : c + 1]});
    }
    if (!columns) return Status::error("the curve file holds no points");
    DotGain gain;
    gain.inks = inks;
    if (Status s = checkDotGain(gain); !s) return s;
    out = gain;
    return Status::ok();
}

Status checkDotGain(const DotGain& gain) {
    static const char* const names[4] = {"cyan", "magenta", "yellow", "black"};
    for (size_t c = 0; c < 4; ++c)
        if (Status s = checkCurve(gain.inks[c], names[c]); !s) return s;
    return Status::ok();
}

std::array<uint8_t, 256> dotGainCompensation(const DotGainCurve& curve) { return table(curve, true); }

void compensateDotGain(Image& cmyk, const DotGain& gain) {
    if (gain.empty() || cmyk.space != ColorSpace::CMYK) return;
    for (size_t c = 0; c < 4 && c < cmyk.channels.size(); ++c) {
        const std::array<uint8_t, 256> t = dotGainCompensation(gain.inks[c]);
        for (uint8_t& v : cmyk.channels[c].data) v = t[v];
    }
}

std::array<uint8_t, 256> dotGainPrinted(const DotGainCurve& curve) { return table(curve, false); }

}  // namespace halftone
