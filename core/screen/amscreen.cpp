// AM screening: clustered dots on a rotated screen, every pixel placed in the screen's cell by an exact rotation
// (irrational screening), with a tone-equalised spot function per dot shape.
#include "core/screen/amscreen.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <mutex>
#include <numbers>
#include <numeric>
#include <sstream>
#include <vector>

#include "core/job/registry.h"
#include "core/threads.h"
#include "core/workerpool.h"

namespace halftone {

bool parseAmDot(const std::string& s, AmDot& out) {
    if (s == "round")
        out = AmDot::Round;
    else if (s == "elliptic")
        out = AmDot::Elliptic;
    else if (s == "square")
        out = AmDot::Square;
    else if (s == "line")
        out = AmDot::Line;
    else
        return false;
    return true;
}

namespace {

/// The spot function of a dot shape at cell coordinates (X, Y) in [-1, 1) (the cell centre at 0): the lower the
/// value, the earlier the point is inked as the tone grows.
double spot(AmDot dot, double X, double Y) {
    const double ax = std::abs(X), ay = std::abs(Y);
    switch (dot) {
        case AmDot::Round:
            // Euclidean dot: a circle around the centre inside the diamond |X| + |Y| <= 1 (half the cell), then
            // the white circles around the corners shrink.
            if (ax + ay <= 1.0) return ax * ax + ay * ay;
            return 3.0 - ((1.0 - ax) * (1.0 - ax) + (1.0 - ay) * (1.0 - ay));
        case AmDot::Elliptic:
            return -(0.6 * std::cos(std::numbers::pi * X) + std::cos(std::numbers::pi * Y));
        case AmDot::Square:
            // The same two phases with square shapes: square dots, octagons clipped to the diamond, a
            // checkerboard at 50 %, then square holes around the corners.
            if (ax + ay <= 1.0) return std::max(ax, ay);
            return 3.0 - std::max(1.0 - ax, 1.0 - ay);
        case AmDot::Line:
            return ay;
    }
    return 0.0;
}

/// The fraction of the cell area whose spot value is below s, tabulated over the spot's range: a dense sampling
/// of the cell (1024 x 1024 points) binned into 65536 bins, read with linear interpolation.
class ToneTable {
public:
    explicit ToneTable(AmDot dot) : dot_(dot) {
        constexpr int n = 1024;
        std::vector<double> values;
        values.reserve(size_t(n) * n);
        lo_ = 1e300;
        double hi = -1e300;
        for (int j = 0; j < n; ++j)
            for (int i = 0; i < n; ++i) {
                const double s = spot(dot, (2.0 * i + 1.0) / n - 1.0, (2.0 * j + 1.0) / n - 1.0);
                values.push_back(s);
                lo_ = std::min(lo_, s);
                hi = std::max(hi, s);
            }
        width_ = (hi - lo_) / kBins;
        if (!(width_ > 0)) width_ = 1.0;
        std::vector<int64_t> count(kBins, 0);
        for (double s : values) ++count[size_t(std::clamp(int((s - lo_) / width_), 0, kBins - 1))];
        cdf_.assign(kBins + 1, 0.0);
        int64_t below = 0;
        for (int b = 0; b < kBins; ++b) {
            below += count[size_t(b)];
            cdf_[size_t(b) + 1] = double(below) / double(values.size());
        }
    }
    double operator()(double X, double Y) const {
        const double t = std::clamp((spot(dot_, X, Y) - lo_) / width_, 0.0, double(kBins));
        const int b = std::min(int(t), kBins - 1);
        const double f = cdf_[size_t(b)] + (t - b) * (cdf_[size_t(b) + 1] - cdf_[size_t(b)]);
        return std::min(f, kBelowOne);
    }

private:
    static constexpr int kBins = 1 << 16;
    static constexpr double kBelowOne = 1.0 - 1e-9;
    AmDot dot_;
    double lo_ = 0, width_ = 1;
    std::vector<double> cdf_;
};

const ToneTable& toneTable(AmDot dot) {
    static std::once_flag once[4];
    static const ToneTable* tables[4] = {};
    const int i = int(dot);
    std::call_once(once[i], [&] { tables[i] = new ToneTable(dot); });
    return *tables[i];
}

/// A rational-tangent screen: when the cell's sides are whole pixel vectors (a, b) and (-b, a) (a = P cos angle,
/// b = P sin angle integers), every cell holds the same N = a^2 + b^2 pixel positions, and the screen repeats on a
/// square tile of side N / gcd(a, b). The positions are ranked by their spot threshold (ties by position), so a
/// tone of t inks round(t N / 255) of them in every cell: exact tone, where point samples of the spot function
/// would fall on a few symmetric positions and move the tone in steps of several pixels.
struct RationalTile {
    int side = 0;
    int64_t classes = 0;        ///< N, the positions per cell
    std::vector<int32_t> rank;  ///< side x side, the rank of each pixel's position in its cell
};

bool rationalTile(const AmScreenParams& p, const ToneTable& tone, RationalTile& tile) {
    const double period = amPeriod(p);
    const double th = std::fmod(p.angle, 360.0) * std::numbers::pi / 180.0;
    const double ar = period * std::cos(th), br = period * std::sin(th);
    const int64_t a = std::llround(ar), b = std::llround(br);
    if (std::abs(ar - double(a)) > 1e-6 || std::abs(br - double(b)) > 1e-6 || (a == 0 && b == 0)) return false;
    const int64_t n = a * a + b * b;
    const int64_t side = n / std::gcd(std::abs(a), std::abs(b));
    if (side * side > (int64_t(1) << 22)) return false;  // large cells: point samples are fine enough
    // Twice the cell coordinates times N are integers at pixel centres: 2 N u = (2x + 1) a - (2y + 1) b and
    // 2 N v = -(2y + 1) a - (2x + 1) b (see amScreen for the axes).
    const auto wrap = [n](int64_t t) { return ((t % (2 * n)) + 2 * n) % (2 * n); };
    struct Position {
        double threshold;
        int64_t key;
    };
    std::vector<Position> positions;
    std::vector<int64_t> keys(size_t(side * side));
    for (int64_t y = 0; y < side; ++y)
        for (int64_t x = 0; x < side; ++x) {
            const int64_t iu = wrap((2 * x + 1) * a - (2 * y + 1) * b), iv = wrap(-(2 * y + 1) * a - (2 * x + 1) * b);
            const int64_t key = iu * 2 * n + iv;
            keys[size_t(y * side + x)] = key;
            positions.push_back({tone(double(iu) / double(n) - 1.0, double(iv) / double(n) - 1.0), key});
        }
    // One entry per position (pixels of different cells in the tile share it), ranked by threshold, then key.
    const auto byKey = [](const Position& l, const Position& r) { return l.key < r.key; };
    std::sort(positions.begin(), positions.end(), byKey);
    positions.erase(std::unique(positions.begin(), positions.end(),
                                [](const Position& l, const Position& r) { return l.key == r.key; }),
                    positions.end());
    std::vector<Position> ranked = positions;
    std::sort(ranked.begin(), ranked.end(), [](const Position& l, const Position& r) {
        return l.threshold != r.threshold ? l.threshold < r.threshold : l.key < r.key;
    });
    std::vector<std::pair<int64_t, int32_t>> rankOf;  // (key, rank), sorted by key
    rankOf.reserve(ranked.size());
    for (size_t i = 0; i < ranked.size(); ++i) rankOf.push_back({ranked[i].key, int32_t(i)});
    std::sort(rankOf.begin(), rankOf.end());
    tile.side = int(side);
    tile.classes = int64_t(rankOf.size());
    tile.rank.resize(keys.size());
    for (size_t i = 0; i < keys.size(); ++i)
        tile.rank[i] = std::lower_bound(rankOf.begin(), rankOf.end(), std::pair<int64_t, int32_t>{keys[i], 0})->second;
    return true;
}

}  // namespace

double amThreshold(AmDot dot, double X, double Y) { return toneTable(dot)(X, Y); }

Status checkAmScreen(const AmScreenParams& p) {
    if (!std::isfinite(p.lpi) || !std::isfinite(p.dpi) || p.lpi <= 0 || p.dpi <= 0)
        return Status::error("screen ruling and resolution must be positive numbers");
    if (!std::isfinite(p.angle)) return Status::error("screen angle must be a number of degrees");
    const double period = amPeriod(p);
    if (period < 2.0) {
        std::ostringstream s;
        s << "a screen of " << p.lpi << " lpi on a " << p.dpi << " dpi device has cells of " << period
          << " pixels; they must be at least 2 pixels wide (lower --lpi or raise --dpi)";
        return Status::error(s.str());
    }
    if (period > 2048) {
        std::ostringstream s;
        s << "a screen of " << p.lpi << " lpi on a " << p.dpi << " dpi device has cells of " << period
          << " pixels, over the limit of 2048 (raise --lpi or lower --dpi)";
        return Status::error(s.str());
    }
    return Status::ok();
}

Status amScreen(const Plane8& src, Plane8& dst, const AmScreenParams& p, const RunControl& control) {
    if (Status s = checkAmScreen(p); !s) return s;
    if (Status s = checkImageSize(src.width, src.height, 1); !s) return s;
    const ToneTable& tone = toneTable(p.dot);
    const double period = amPeriod(p);
    // The screen's axes: u along the angle, v at the angle plus 90 degrees, counter-clockwise on the page (rows
    // run downwards, so the page's upward axis is -y). Cell coordinates are in periods.
    const double th = std::fmod(p.angle, 360.0) * std::numbers::pi / 180.0;
    const double c = std::cos(th) / period, s = std::sin(th) / period;
    const bool ink = p.inkPlane;
    RationalTile tile;
    const bool rational = rationalTile(p, tone, tile);
    Plane8 out(src.width, src.height);

    constexpr int kBlock = 32;
    const bool finished = parallelChunks(
        src.height, kBlock, threadsOrAll(control.threads), control, "AM screen", [&](int64_t y0, int64_t y1, int) {
            for (int y = int(y0); y < int(y1); ++y) {
                const double py = -(y + 0.5);
                const uint8_t* a = src.row(y);
                uint8_t* o = out.row(y);
                if (rational) {
                    // Inked when the position's rank r is below the tone: 255 (2r + 1) < 2 amount N.
                    const int32_t* r = tile.rank.data() + size_t(y % tile.side) * size_t(tile.side);
                    for (int x = 0, tx = 0; x < src.width; ++x, tx = tx + 1 == tile.side ? 0 : tx + 1) {
                        const int64_t amount = ink ? a[x] : 255 - a[x];
                        const bool inked = 255 * (2 * int64_t(r[tx]) + 1) < 2 * amount * tile.classes;
                        o[x] = uint8_t(inked == ink ? 255 : 0);
                    }
                    continue;
                }
                for (int x = 0; x < src.width; ++x) {
                    const double px = x + 0.5;
                    const double u = px * c + py * s, v = py * c - px * s;
                    const double X = 2.0 * (u - std::floor(u)) - 1.0, Y = 2.0 * (v - std::floor(v)) - 1.0;
                    const int amount = ink ? a[x] : 255 - a[x];
                    const bool inked = 255.0 * tone(X, Y) < double(amount);
                    o[x] = uint8_t(inked == ink ? 255 : 0);
                }
            }
        });
    if (!finished) return Status::cancelled();
    dst = std::move(out);
    control.report(1.0, "AM screen");
    return Status::ok();
}

Status parseAmAngles(const std::string& text, std::array<double, 4>& cmyk) {
    std::vector<double> v;
    std::stringstream in(text);
    bool bad = text.empty();
    for (std::string item; !bad && std::getline(in, item, ',');) {
        size_t used = 0;
        double a = 0;
        try {
            a = std::stod(item, &used);
        } catch (...) {
            bad = true;
            break;
        }
        while (used < item.size() && std::isspace(static_cast<unsigned char>(item[used]))) ++used;
        if (used != item.size() || !std::isfinite(a)) bad = true;
        v.push_back(a);
    }
    if (!text.empty() && text.back() == ',') bad = true;
    if (bad || (v.size() != 1 && v.size() != 4))
        return Status::error("--angles '" + text +
                             "' must be four angles in degrees for cyan, magenta, yellow and black (e.g. 15,75,0,45), "
                             "or one angle for every ink");
    for (size_t i = 0; i < 4; ++i) cmyk[i] = v.size() == 1 ? v[0] : v[i];
    return Status::ok();
}

namespace {

/// Which ink's angle each channel takes: its own, a light channel its complement's, gray black's.
const std::vector<std::pair<std::string, int>> kAngleOfChannel = {{"c", 0}, {"m", 1}, {"y", 2}, {"k", 3},  //
                                                                  {"r", 0}, {"g", 1}, {"b", 2}, {"gray", 3}};

}  // namespace

double amAngleFor(const std::array<double, 4>& cmyk, const std::string& channel) {
    for (const auto& [name, ink] : kAngleOfChannel)
        if (name == channel) return cmyk[size_t(ink)];
    return cmyk[3];
}

void registerAmScreenMethods(Registry& r) {
    MethodInfo m = describeMethod(
        "am", "clustered", "ordered",
        "AM screen: clustered dots at a screen ruling (lpi) on a device resolution (dpi), each ink at its own "
        "angle (cyan 15, magenta 75, yellow 0, black 45 degrees by default), with round, elliptic, square or "
        "line dots. The image's pixels are the device's dots.");
    m.exact = false;
    m.params.push_back(realParam("lpi", "Screen ruling (lpi)", 1, 5000, 60,
                                 "screen ruling in lines (cells) per inch; the cell is dpi / lpi pixels wide"));
    m.params.push_back(
        realParam("dpi", "Print resolution (dpi)", 10, 10000, 600, "printer resolution in dots per inch"));
    ParamSpec angles;
    angles.key = "angles";
    angles.label = "Screen angles (C,M,Y,K)";
    angles.kind = ParamSpec::Kind::Text;
    angles.textDefault = "15,75,0,45";
    angles.check = [](const std::string& text) {
        std::array<double, 4> cmyk{};
        return parseAmAngles(text, cmyk);
    };
    angles.help =
        "screen angles in degrees, counter-clockwise from the horizontal: C,M,Y,K (gray uses the black angle; "
        "R, G, B those of C, M, Y), or one angle for every ink";
    angles.parts = {"C", "M", "Y", "K"};
    angles.partOfChannel = kAngleOfChannel;
    angles.min = 0;  // the studio's fields: every screen has an angle in [0, 180) (a line repeats every 180 degrees)
    angles.max = 180;
    angles.presets = {{"15,75,0,45", "C 15, M 75, Y 0, K 45 (classic)"},
                      {"105,75,90,45", "C 105, M 75, Y 90, K 45"},
                      {"45", "45 degrees for every ink"},
                      {"0", "0 degrees for every ink"}};
    m.params.push_back(angles);
    m.params.push_back(choiceParam("dot", "Dot shape", {"round", "elliptic", "square", "line"}, 0,
                                   "dot shape: round (Euclidean), elliptic (chain), square or line"));
    m.params.back().choiceLabels = {
        {"round", "Round"}, {"elliptic", "Elliptic"}, {"square", "Square"}, {"line", "Line"}};
    const auto screenOf = [](const ParamValues& v) {
        AmScreenParams p;
        p.lpi = v.getReal("lpi", 60);
        p.dpi = v.getReal("dpi", 600);
        return p;
    };
    m.checkParams = [screenOf](const ParamValues& v) { return checkAmScreen(screenOf(v)); };
    m.cpu = [screenOf](const Plane8& src, Plane8& dst, const ParamValues& v, const RunControl& rc) {
        AmScreenParams p = screenOf(v);
        std::array<double, 4> angles{};
        if (Status s = parseAmAngles(v.getText("angles", "15,75,0,45"), angles); !s) return s;
        const std::string channel = v.getText(kChannelKey, "gray");
        p.angle = amAngleFor(angles, channel);
        p.inkPlane = channel == "c" || channel == "m" || channel == "y" || channel == "k";
        if (!parseAmDot(v.getText("dot", "round"), p.dot)) return Status::error("unknown dot shape");
        return amScreen(src, dst, p, rc);
    };
    r.add(std::move(m));
    r.setDisplayName("am", "AM screen");
}

}  // namespace halftone
