// Threshold arrays: Bayer, clustered dot and the DBS screen generator (Koge, Ito and Nakano, section 2.2); blue noise
// is in bluenoise.cpp.
#include "core/screen/screen.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <numbers>
#include <numeric>
#include <random>
#include <sstream>

#include "core/dbs/dbs.h"
#include "core/screen/bluenoise.h"
#include "core/job/names.h"
#include "core/pnm.h"

namespace halftone {

ThresholdArray thresholdsFromRanks(const PlaneT<int32_t>& rank) {
    ThresholdArray t(rank.width, rank.height);
    const int64_t n = int64_t(rank.size());
    for (size_t i = 0; i < rank.size(); ++i)
        t.data[i] = uint8_t(std::min<int64_t>(254, 255 * int64_t(rank.data[i]) / n));
    return t;
}

Status bayerScreen(int n, ThresholdArray& out) {
    if (n < 2 || n > 256 || (n & (n - 1)) != 0)
        return Status::error("Bayer array side must be a power of two from 2 to 256, got " + std::to_string(n));
    PlaneT<int32_t> m(1, 1, 0);
    while (m.width < n) {
        const int s = m.width;
        PlaneT<int32_t> next(2 * s, 2 * s);
        for (int y = 0; y < s; ++y)
            for (int x = 0; x < s; ++x) {
                const int v = 4 * m.at(y, x);
                next.at(y, x) = v;
                next.at(y, x + s) = v + 2;
                next.at(y + s, x) = v + 3;
                next.at(y + s, x + s) = v + 1;
            }
        m = std::move(next);
    }
    out = thresholdsFromRanks(m);
    return Status::ok();
}

Status clusteredDotScreen(const ClusterParams& p, ThresholdArray& out) {
    if (!(p.cell >= 2 && p.cell <= 64)) return Status::error("cluster cell size must be between 2 and 64 pixels");
    if (!std::isfinite(p.angle)) return Status::error("cluster angle must be a number of degrees");
    const double th = p.angle * std::numbers::pi / 180.0;
    int a = int(std::lround(p.cell * std::cos(th))), b = int(std::lround(p.cell * std::sin(th)));
    if (a == 0 && b == 0) a = 2;
    const int g = std::gcd(std::abs(a), std::abs(b));
    const int n2 = a * a + b * b;
    const int side = n2 / g;
    if (side > 1024)
        return Status::error("cluster screen would be " + std::to_string(side) +
                             " pixels wide; choose a simpler angle");
    // Lattice coordinates (u, v) in cell units; the spot function is small at the cell centre, where the
    // black dot sits longest (highest thresholds), and grows towards the cell corners.
    std::vector<std::pair<double, int32_t>> spot;
    spot.reserve(size_t(side) * side);
    for (int y = 0; y < side; ++y)
        for (int x = 0; x < side; ++x) {
            const double cx = x + 0.5, cy = y + 0.5;
            const double u = (cx * a + cy * b) / n2, v = (-cx * b + cy * a) / n2;
            const double fu = u - std::floor(u) - 0.5, fv = v - std::floor(v) - 0.5;
            const double s = p.dot == ClusterParams::Dot::Round ? fu * fu + fv * fv : fu * fu + 2.0 * fv * fv;
            spot.push_back({-s, y * side + x});
        }
    std::stable_sort(spot.begin(), spot.end(), [](const auto& l, const auto& r) { return l.first < r.first; });
    PlaneT<int32_t> rank(side, side);
    for (size_t i = 0; i < spot.size(); ++i) rank.data[size_t(spot[i].second)] = int32_t(i);
    out = thresholdsFromRanks(rank);
    return Status::ok();
}

Status dbsScreen(const DbsScreenParams& sp, ThresholdArray& out, const RunControl& control) {
    HvsParams hp;
    hp.sigma = sp.sigma;
    hp.radius = sp.radius;
    HvsFilter f;
    if (Status s = makeHvsFilter(hp, f); !s) return s.withContext("DBS screen");
    const int R = f.cppRadius, m = 2 * R + 1;
    const int n = sp.size;
    if (n < m || n > 4096)
        return Status::error("DBS screen size must be between " + std::to_string(m) +
                             " (the c_pp support) and 4096, got " + std::to_string(n));
    const int N = n * n;
    std::vector<uint8_t> b(size_t(N), 0);
    std::vector<uint8_t> isNew(size_t(N), 0);
    std::vector<float> cpb(size_t(N), 0.f);  // c_pp (*) b, periodic
    std::vector<int> wrap(size_t(n + 2 * m));
    for (int i = 0; i < n + 2 * m; ++i) wrap[size_t(i)] = ((i - m) % n + n) % n;
    auto addDot = [&](int idx, float s) {
        const int y = idx / n, x = idx % n;
        for (int dy = -R; dy <= R; ++dy) {
            float* row = cpb.data() + size_t(wrap[size_t(y + dy + m)]) * n;
            const float* k = f.cpp.data() + size_t(dy + R) * m;
            if (x - R >= 0 && x + R < n) {
                for (int dx = -R; dx <= R; ++dx) row[x + dx] += s * k[dx + R];
            } else {
                for (int dx = -R; dx <= R; ++dx) row[wrap[size_t(x + dx + m)]] += s * k[dx + R];
            }
        }
    };
    const float cpp0 = f.cpp0();
    float cppNb[8];
    static constexpr int nb[8][2] = {{-1, -1}, {-1, 0}, {-1, 1}, {0, -1}, {0, 1}, {1, -1}, {1, 0}, {1, 1}};
    for (int k = 0; k < 8; ++k) cppNb[k] = f.cppAt(nb[k][0], nb[k][1]);
    // A tiny seeded jitter breaks ties between equally empty positions (all of them at level 1).
    std::mt19937_64 rng(sp.seed);
    std::vector<float> jitter(static_cast<size_t>(N), 0.f);
    for (float& j : jitter) j = float(rng() >> 40) * (1e-6f * cpp0 / float(1 << 24));
    ThresholdArray t(n, n, 254);
    std::vector<int> added;
    std::vector<std::pair<float, int>> heap;
    int64_t prevCount = 0;
    for (int g = 1; g <= 255; ++g) {
        if (control.cancelled()) return Status::cancelled();
        control.report(double(g - 1) / 255.0, "level " + std::to_string(g));
        const int64_t count = (int64_t(g) * N * 2 + 255) / 510;  // round(g N / 255)
        const int k = int(count - prevCount);
        prevCount = count;
        added.clear();
        // Greedy void filling with a lazy min-heap: values only grow as dots are added (c_pp >= 0).
        heap.clear();
        for (int i = 0; i < N; ++i)
            if (!b[size_t(i)]) heap.push_back({cpb[size_t(i)] + jitter[size_t(i)], i});
        auto cmp = [](const auto& l, const auto& r) { return l.first > r.first; };
        std::make_heap(heap.begin(), heap.end(), cmp);
        while (int(added.size()) < k && !heap.empty()) {
            std::pop_heap(heap.begin(), heap.end(), cmp);
            auto [v, i] = heap.back();
            heap.pop_back();
            if (b[size_t(i)]) continue;
            const float cur = cpb[size_t(i)] + jitter[size_t(i)];
            if (cur > v) {
                heap.push_back({cur, i});
                std::push_heap(heap.begin(), heap.end(), cmp);
                continue;
            }
            b[size_t(i)] = 1;
            isNew[size_t(i)] = 1;
            addDot(i, 1.f);
            added.push_back(i);
        }
        // DBS swaps of the new dots with neighbouring empty positions (Koge, Ito and Nakano: "move each to a neighbour
        // element if the uniformity increases", here with the HVS error: dE of eq. 14 at constant gray).
        for (int pass = 0; pass < sp.maxPasses; ++pass) {
            int moved = 0;
            for (int& i : added) {
                const int y = i / n, x = i % n;
                float best = -1e-5f * cpp0;
                int bj = -1;
                for (int q = 0; q < 8; ++q) {
                    const int j = wrap[size_t(y + nb[q][0] + m)] * n + wrap[size_t(x + nb[q][1] + m)];
                    if (b[size_t(j)]) continue;
                    const float d = 2 * cpp0 - 2 * cpb[size_t(i)] + 2 * cpb[size_t(j)] - 2 * cppNb[q];
                    if (d < best) {
                        best = d;
                        bj = j;
                    }
                }
                if (bj < 0) continue;
                b[size_t(i)] = 0;
                isNew[size_t(i)] = 0;
                addDot(i, -1.f);
                b[size_t(bj)] = 1;
                isNew[size_t(bj)] = 1;
                addDot(bj, 1.f);
                i = bj;
                ++moved;
            }
            if (moved == 0) break;
        }
        for (int i : added) {
            t.data[size_t(i)] = uint8_t(g - 1);
            isNew[size_t(i)] = 0;
        }
    }
    control.report(1.0, "done");
    out = std::move(t);
    return Status::ok();
}

Status parsePgm(const uint8_t* data, size_t size, ThresholdArray& out) {
    if (size < 2 || data[0] != 'P' || data[1] != '5') return Status::error("not a binary PGM (P5) file");
    pnm::MemorySource in(data, size);
    pnm::Header h;
    if (Status s = pnm::readHeader(in, h); !s)
        return Status::error("PGM header is truncated or malformed (" + s.message() + ")");
    if (h.maxval != 255) return Status::error("PGM must be 8-bit (maxval 255), got maxval " + std::to_string(h.maxval));
    if (Status s = checkImageSize(h.width, h.height, 1, 1ull << 26); !s) return s;
    const uint64_t need = uint64_t(h.width) * uint64_t(h.height);
    if (uint64_t(in.remaining()) < need)
        return Status::error("PGM data is truncated: " + std::to_string(in.remaining()) + " of " +
                             std::to_string(need) + " bytes");
    Image image;
    if (Status s = pnm::readPixels(in, h, image); !s) return s;
    out = std::move(image.channels[0]);
    return Status::ok();
}

namespace {

Status builtinPgmLoader(const std::string& path, ThresholdArray& out) {
    std::ifstream f(path, std::ios::binary);
    if (!f) return Status::error("cannot open threshold array file").withContext(path);
    std::vector<uint8_t> bytes((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
    return parsePgm(bytes.data(), bytes.size(), out).withContext(path);
}

std::mutex& loaderMutex() {
    static std::mutex m;
    return m;
}
ScreenFileLoader& loader() {
    static ScreenFileLoader l = builtinPgmLoader;
    return l;
}

}  // namespace

void setScreenFileLoader(ScreenFileLoader l) {
    std::lock_guard lock(loaderMutex());
    loader() = l ? std::move(l) : ScreenFileLoader(builtinPgmLoader);
}

// Embedded default screen bytes (core/screen/screen_default.cpp); size 0 when the build has none.
extern const uint8_t* defaultScreenBytes(size_t& size);

const ThresholdArray& defaultDbsScreen() {
    static const ThresholdArray screen = [] {
        ThresholdArray a;
        size_t size = 0;
        const uint8_t* bytes = defaultScreenBytes(size);
        if (bytes && size && parsePgm(bytes, size, a)) return a;
        DbsScreenParams p;
        p.size = 128;
        (void)dbsScreen(p, a);
        return a;
    }();
    return screen;
}

const ThresholdArray& defaultBlueNoiseScreen() {
    static const ThresholdArray screen = [] {
        ThresholdArray a;
        (void)blueNoiseScreen(BlueNoiseParams{}, a);
        return a;
    }();
    return screen;
}

namespace {

/// screenFromSpec's body; with `out` null it only checks the spec (checkScreenSpec): sizes and options are parsed,
/// a file is looked up but not read, and no large array is made.
Status fromSpec(const std::string& spec, ThresholdArray* out, const RunControl& control) {
    auto number = [](const std::string& s, double& v) {
        char* end = nullptr;
        v = std::strtod(s.c_str(), &end);
        return !s.empty() && end && *end == '\0' && std::isfinite(v);
    };
    const size_t colon = spec.find(':');
    const std::string head = spec.substr(0, colon);
    const std::string rest = colon == std::string::npos ? std::string() : spec.substr(colon + 1);
    if (head == "bayer") {
        double n = 8;
        if (!rest.empty() && !number(rest, n))
            return Status::error("screen 'bayer:N' needs a number N, got '" + rest + "'");
        ThresholdArray small;
        return bayerScreen(int(std::clamp(n, -1.0, 1e6)), out ? *out : small);
    }
    if (head == "cluster") {
        ClusterParams p;
        std::stringstream ss(rest);
        std::string item;
        while (std::getline(ss, item, ',')) {
            if (item.empty()) continue;
            const size_t eq = item.find('=');
            const std::string k = item.substr(0, eq), v = eq == std::string::npos ? std::string() : item.substr(eq + 1);
            double d = 0;
            if (k == "cell" && number(v, d))
                p.cell = d;
            else if (k == "angle" && number(v, d))
                p.angle = d;
            else if (k == "dot" && (v == "round" || v == "elliptic"))
                p.dot = v == "round" ? ClusterParams::Dot::Round : ClusterParams::Dot::Elliptic;
            else
                return Status::error("bad cluster screen option '" + item +
                                     "'; use cluster:cell=C,angle=A,dot=round|elliptic");
        }
        ThresholdArray cell;
        return clusteredDotScreen(p, out ? *out : cell);
    }
    if (head == "blue-noise") {
        if (rest.empty()) {
            if (out) *out = defaultBlueNoiseScreen();
            return Status::ok();
        }
        BlueNoiseParams p;
        if (Status s = parseBlueNoiseSpec(rest, p); !s) return s;
        return out ? blueNoiseScreen(p, *out, control) : Status::ok();
    }
    if (spec == "dbs") {
        if (out) *out = defaultDbsScreen();
        return Status::ok();
    }
    if (spec.empty()) return Status::error("no screen given; use bayer:N, cluster:..., blue-noise, dbs or a file");
    if (!out) {
        // Only looked up, not opened: opening a FIFO would wait for a writer.
        std::error_code ec;
        const auto type = std::filesystem::status(spec, ec).type();
        if (type == std::filesystem::file_type::not_found) {
            const std::vector<std::string> kinds = {"bayer", "cluster", "blue-noise", "dbs"};
            return Status::error("screen '" + spec + "' is neither bayer:N, cluster:..., blue-noise[:options], dbs" +
                                 " nor an existing file" + didYouMean(head, kinds));
        }
        if (type == std::filesystem::file_type::directory)
            return Status::error("screen '" + spec + "' is a folder, not an image file of thresholds");
        return Status::ok();
    }
    ScreenFileLoader l;
    {
        std::lock_guard lock(loaderMutex());
        l = loader();
    }
    if (Status s = l(spec, *out); !s) return s;
    // A threshold of 255 never turns white (no 8-bit gray exceeds it), so a file that uses it is a full-range texture
    // (0..255, as published blue-noise textures are, or 16-bit samples rounded to 8 bits): it is rescaled to 0..254.
    if (std::find(out->data.begin(), out->data.end(), uint8_t(255)) != out->data.end())
        for (uint8_t& t : out->data) t = uint8_t(255 * t / 256);
    return Status::ok();
}

}  // namespace

Status screenFromSpec(const std::string& spec, ThresholdArray& out, const RunControl& control) {
    return fromSpec(spec, &out, control);
}

Status checkScreenSpec(const std::string& spec) { return fromSpec(spec, nullptr, {}); }

}  // namespace halftone
