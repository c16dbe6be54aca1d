#include "core/ed/dotdiffusion.h"

#include <algorithm>
#include <atomic>
#include <map>

#include "core/ed/quantizer.h"
#include "core/job/registry.h"
#include "core/threads.h"
#include "core/workerpool.h"

namespace halftone {

namespace {

/// The eight neighbours with Knuth's weights: 2 for the orthogonal ones, 1 for the diagonal ones.
struct Neighbour {
    int di, dj, w;
};
constexpr Neighbour kNeighbours[8] = {{-1, -1, 1}, {-1, 0, 2}, {-1, 1, 1}, {0, -1, 2},
                                      {0, 1, 2},   {1, -1, 1}, {1, 0, 2},  {1, 1, 1}};

ClassMatrix makeMatrix(std::string name, std::string title, int n, std::vector<int32_t> cls) {
    ClassMatrix m;
    m.name = std::move(name);
    m.title = std::move(title);
    m.size = n;
    m.cls = std::move(cls);
    return m;
}

/// floor((w e + floor(W / 2)) / W) for W > 0, floor division also for negative numerators (docs/spec.md
/// section 7): the share of error e that a neighbour of weight w receives from a sender of weight sum W.
inline int32_t share(int32_t w, int32_t e, int32_t W) {
    const int32_t a = w * e + W / 2;
    // C++ division truncates: a negative remainder means a < 0 and a quotient one above the floor (no branch, as the
    // sign of the errors is as good as random).
    return a / W - int32_t(a % W < 0);
}

/// W(q): the summed weights of the neighbours of (i, j) inside the image whose class is higher.
int32_t weightSum(const ClassMatrix& m, int width, int height, int i, int j) {
    const int c = m.classAt(i, j);
    int32_t W = 0;
    for (const Neighbour& nb : kNeighbours) {
        const int r = i + nb.di, s = j + nb.dj;
        if (r < 0 || r >= height || s < 0 || s >= width) continue;
        if (m.classAt(r, s) > c) W += nb.w;
    }
    return W;
}

Status validate(const Plane8& src, const DotParams& p, const ClassMatrix*& matrix) {
    matrix = findClassMatrix(p.matrix);
    if (!matrix) {
        std::string all;
        for (const ClassMatrix& m : classMatrices()) all += (all.empty() ? "" : ", ") + m.name;
        return Status::error("unknown class matrix '" + p.matrix + "'; known matrices: " + all);
    }
    if (Status s = Quantizer::checkLevels(p.levels); !s) return s;
    if (Status s = checkImageSize(src.width, src.height, 1, ~0ull); !s) return s;
    if (src.data.size() != size_t(src.width) * size_t(src.height))
        return Status::error("the input plane holds " + std::to_string(src.data.size()) + " values, not " +
                             std::to_string(src.width) + " x " + std::to_string(src.height));
    return Status::ok();
}

/// Where each class sits in the matrix: row and column of class c.
std::vector<std::pair<int, int>> classPositions(const ClassMatrix& m) {
    std::vector<std::pair<int, int>> pos(size_t(m.classes()));
    for (int a = 0; a < m.size; ++a)
        for (int b = 0; b < m.size; ++b) pos[size_t(m.cls[size_t(a) * m.size + b])] = {a, b};
    return pos;
}

/// A lower-class neighbour of a matrix cell (the sender at offset di, dj from the receiver): the weight between
/// them and the sender's weight sum when no image border is near.
struct Source {
    int di, dj;
    int32_t w, W;
    int cls;     ///< the sender's class
    int dr, dk;  ///< where the sender sits in its class's error plane, relative to the receiver's row and column there
};

}  // namespace

const std::vector<ClassMatrix>& classMatrices() {
    // Knuth (1987), the class matrix of his figure, with two barons (62 and 63) and two near-barons.
    // Mese and Vaidyanathan (2000), the class matrices their optimisation found for 8 x 8 and 16 x 16 cells, as
    // transcribed in the pixkit library (docs/references.md).
    static const std::vector<ClassMatrix> all = {
        makeMatrix("knuth", "Knuth 8 x 8", 8,
                   {34, 48, 40, 32, 29, 15, 23, 31, 42, 58, 56, 53, 21, 5,  7,  10, 50, 62, 61, 45, 13, 1,
                    2,  18, 38, 46, 54, 37, 25, 17, 9,  26, 28, 14, 22, 30, 35, 49, 41, 33, 20, 4,  6,  11,
                    43, 59, 57, 52, 12, 0,  3,  19, 51, 63, 60, 44, 24, 16, 8,  27, 39, 47, 55, 36}),
        makeMatrix("mese-vaidyanathan-8", "Mese and Vaidyanathan 8 x 8", 8,
                   {47, 31, 51, 24, 27, 45, 5,  21, 37, 63, 53, 11, 22, 4,  1,  33, 61, 0,  57, 16, 26, 29,
                    46, 8,  20, 14, 9,  62, 18, 41, 38, 6,  17, 13, 25, 15, 55, 48, 52, 58, 3,  7,  2,  32,
                    30, 34, 56, 60, 28, 40, 36, 39, 49, 43, 35, 10, 54, 23, 50, 12, 42, 59, 44, 19}),
        makeMatrix("mese-vaidyanathan-16", "Mese and Vaidyanathan 16 x 16", 16,
                   {207, 0,   13,  17,  28,  55,  18,  102, 81,  97,  74,  144, 149, 169, 170, 172, 3,   6,   23,  36,
                    56,  50,  65,  87,  145, 130, 137, 158, 182, 184, 195, 221, 7,   14,  24,  37,  67,  69,  86,  5,
                    106, 152, 150, 165, 183, 192, 224, 1,   15,  26,  43,  53,  51,  101, 115, 131, 139, 136, 166, 119,
                    208, 223, 226, 4,   22,  39,  52,  71,  84,  103, 164, 135, 157, 173, 113, 190, 222, 225, 227, 16,
                    40,  85,  72,  83,  104, 117, 167, 133, 168, 180, 200, 219, 231, 228, 12,  21,  47,  120, 54,  105,
                    123, 132, 146, 176, 179, 202, 220, 230, 245, 2,   20,  41,  76,  73,  127, 109, 138, 134, 178, 181,
                    206, 196, 229, 244, 246, 19,  42,  49,  80,  99,  112, 147, 142, 171, 177, 203, 218, 232, 243, 248,
                    247, 33,  48,  68,  108, 107, 140, 143, 185, 163, 204, 217, 233, 242, 249, 255, 44,  45,  70,  79,
                    110, 141, 88,  75,  175, 205, 214, 234, 241, 250, 254, 38,  46,  77,  116, 100, 111, 148, 160, 174,
                    201, 215, 235, 240, 251, 252, 253, 61,  62,  93,  94,  125, 151, 159, 189, 199, 197, 216, 236, 239,
                    25,  31,  60,  82,  92,  95,  124, 114, 156, 188, 191, 209, 213, 237, 238, 29,  32,  59,  64,  91,
                    118, 78,  128, 155, 187, 194, 198, 212, 9,   10,  30,  35,  58,  63,  90,  96,  122, 129, 154, 161,
                    193, 210, 211, 8,   11,  27,  34,  57,  66,  89,  98,  121, 126, 153, 162, 186}),
    };
    return all;
}

const ClassMatrix* findClassMatrix(const std::string& name) {
    for (const ClassMatrix& m : classMatrices())
        if (m.name == name) return &m;
    return nullptr;
}

Status validateClassMatrix(const ClassMatrix& m) {
    if (m.size < 3)
        return Status::error("class matrix '" + m.name + "' is " + std::to_string(m.size) + " x " +
                             std::to_string(m.size) + "; it must be at least 3 x 3 so that neighbours differ in class");
    if (m.cls.size() != size_t(m.size) * size_t(m.size))
        return Status::error("class matrix '" + m.name + "' has " + std::to_string(m.cls.size()) + " entries, not " +
                             std::to_string(m.size * m.size));
    std::vector<char> seen(m.cls.size(), 0);
    for (int32_t c : m.cls) {
        if (c < 0 || c >= m.classes() || seen[size_t(c)])
            return Status::error("class matrix '" + m.name + "' is not a permutation of 0 .. " +
                                 std::to_string(m.classes() - 1) + " (class " + std::to_string(c) + ")");
        seen[size_t(c)] = 1;
    }
    return Status::ok();
}

Status dotDiffuse(const Plane8& src, Plane8& dst, const DotParams& params, const RunControl& control,
                  const DotVisit& visit) {
    const ClassMatrix* mp = nullptr;
    if (Status s = validate(src, params, mp); !s) return s;
    const ClassMatrix& m = *mp;
    const int w = src.width, h = src.height, n = m.size, C = m.classes();
    const Quantizer q(params.levels, params.linear);
    const std::vector<std::pair<int, int>> pos = classPositions(m);

    // Per matrix cell: its lower-class neighbours and their weight sums away from the image border.
    std::vector<std::vector<Source>> sources(size_t(n) * n);
    for (int a = 0; a < n; ++a)
        for (int b = 0; b < n; ++b) {
            const int c = m.cls[size_t(a) * n + b];
            for (const Neighbour& nb : kNeighbours) {
                const int r = a + nb.di + n, s = b + nb.dj + n;  // + n: classAt takes non-negative rows
                if (m.classAt(r, s) >= c) continue;
                // The sender's W in an image large enough that no border is within one pixel of it.
                const int a2 = a + nb.di, b2 = b + nb.dj;
                sources[size_t(a) * n + b].push_back({nb.di, nb.dj, nb.w, weightSum(m, 1 << 20, 1 << 20, r, s),
                                                      m.classAt(r, s), a2 < 0 ? -1 : (a2 >= n ? 1 : 0),
                                                      b2 < 0 ? -1 : (b2 >= n ? 1 : 0)});
            }
        }

    // Errors are stored class by class: the pixel (a + r n, b + k n) of class c at classErr[c][r * cols[c] + k]. A
    // class step then reads each sender class's errors as one sequential stream instead of striding over the whole
    // image.
    std::vector<std::vector<int32_t>> classErr(static_cast<size_t>(C));
    std::vector<int> rowsOf(static_cast<size_t>(C)), colsOf(static_cast<size_t>(C));
    for (int c = 0; c < C; ++c) {
        const auto [a, b] = pos[size_t(c)];
        rowsOf[size_t(c)] = a < h ? (h - a + n - 1) / n : 0;
        colsOf[size_t(c)] = b < w ? (w - b + n - 1) / n : 0;
        classErr[size_t(c)].assign(size_t(rowsOf[size_t(c)]) * size_t(colsOf[size_t(c)]), 0);
    }
    dst = Plane8(w, h);
    const int requested = params.threads > 0 ? params.threads : control.threads;
    const int threads = threadsOrAll(requested);
    std::atomic<bool> stop{false};

    const uint8_t* in = src.data.data();
    uint8_t* out = dst.data.data();
    const int32_t* input = q.inputTable().data();
    const uint8_t* values = q.values().data();
    const int32_t* targets = q.targets().data();
    // Row r of class c: the pixels (a + r n, b + k n); away from the border every sender's W is the cell's.
    auto row = [&](int c, int r, const std::vector<Source>& srcs) {
        const auto [a, b] = pos[size_t(c)];
        const int i = a + r * n;
        const bool innerRow = i >= 2 && i < h - 2;
        const int ns = int(srcs.size());
        const int32_t* plane[8];
        ptrdiff_t start[8];
        bool rowInside[8];
        for (int t = 0; t < ns; ++t) {
            const Source& s = srcs[size_t(t)];
            const int rr = r + s.dr;
            rowInside[t] = rr >= 0 && rr < rowsOf[size_t(s.cls)];
            plane[t] = classErr[size_t(s.cls)].data();
            start[t] = ptrdiff_t(rr) * colsOf[size_t(s.cls)] + s.dk;
        }
        int32_t* own = classErr[size_t(c)].data() + size_t(r) * size_t(colsOf[size_t(c)]);
        const int cols = colsOf[size_t(c)];
        for (int k = 0; k < cols; ++k) {
            const int j = b + k * n;
            int32_t acc = 0;
            if (innerRow && j >= 2 && j < w - 2) {
                for (int t = 0; t < ns; ++t) acc += share(srcs[size_t(t)].w, plane[t][start[t] + k], srcs[size_t(t)].W);
            } else {
                // Near the border a sender may have lost receivers: its W counts only those inside the image.
                for (int t = 0; t < ns; ++t) {
                    const Source& s = srcs[size_t(t)];
                    const int kk = k + s.dk;
                    if (!rowInside[t] || kk < 0 || kk >= colsOf[size_t(s.cls)]) continue;
                    acc += share(s.w, plane[t][start[t] + k], weightSum(m, w, h, i + s.di, j + s.dj));
                }
            }
            const size_t at = size_t(i) * size_t(w) + size_t(j);
            const int32_t S = input[in[at]] + acc;
            const int level = q.level(S);
            out[at] = values[level];
            own[k] = S - targets[level];
            if (visit) visit(i, j, c);
        }
    };

    for (int c = 0; c < C; ++c) {
        if (control.cancelled()) return Status::cancelled();
        const auto [a, b] = pos[size_t(c)];
        const int rows = rowsOf[size_t(c)];
        if (rows > 0 && colsOf[size_t(c)] > 0) {
            const std::vector<Source>& srcs = sources[size_t(a) * n + b];
            const int nt = std::max(1, std::min(threads, rows));
            WorkerPool::shared().run(nt, [&](int t) {
                const int first = int(int64_t(rows) * t / nt), last = int(int64_t(rows) * (t + 1) / nt);
                for (int r = first; r < last; ++r) {
                    if (stop.load(std::memory_order_relaxed)) return;
                    if (control.cancelled()) {
                        stop.store(true, std::memory_order_relaxed);
                        return;
                    }
                    row(c, r, srcs);
                }
            });
            if (stop.load()) return Status::cancelled();
        }
        control.report(double(c + 1) / C, "class " + std::to_string(c + 1) + " of " + std::to_string(C));
    }
    return Status::ok();
}

int32_t dotShare(int32_t w, int32_t e, int32_t W) { return share(w, e, W); }

int32_t dotWeightSum(const ClassMatrix& m, int width, int height, int i, int j) {
    return weightSum(m, width, height, i, j);
}

Plane8 referenceDotDiffusion(const Plane8& src, const DotParams& params, const DotVisit& visit) {
    const ClassMatrix* mp = nullptr;
    if (!validate(src, params, mp)) return {};
    const ClassMatrix& m = *mp;
    const int w = src.width, h = src.height;
    const Quantizer q(params.levels, params.linear);
    Plane8 out(w, h);
    PlaneT<int32_t> acc(w, h, 0);
    const std::vector<std::pair<int, int>> pos = classPositions(m);
    for (int c = 0; c < m.classes(); ++c)
        for (int i = pos[size_t(c)].first; i < h; i += m.size)  // the pixels of class c, in raster order
            for (int j = pos[size_t(c)].second; j < w; j += m.size) {
                const int32_t S = q.input(src.at(i, j)) + acc.at(i, j);
                const int k = q.level(S);
                out.at(i, j) = q.values()[size_t(k)];
                const int32_t E = S - q.targets()[size_t(k)];
                if (visit) visit(i, j, c);
                const int32_t W = weightSum(m, w, h, i, j);  // 0 for a baron: its error is dropped
                for (const Neighbour& nb : kNeighbours) {
                    const int r = i + nb.di, s = j + nb.dj;
                    if (r < 0 || r >= h || s < 0 || s >= w || m.classAt(r, s) <= c) continue;
                    acc.at(r, s) += share(nb.w, E, W);
                }
            }
    return out;
}

// ---------------------------------------------------------------------------------------------
// Registry

namespace {

DotParams dotParamsFrom(const std::string& matrix, const ParamValues& v) {
    DotParams p;
    p.matrix = matrix;
    p.levels = int(v.getInt("levels", 2));
    p.linear = v.getBool("linear", false);
    p.threads = int(v.getInt("threads", 0));
    return p;
}

}  // namespace

std::string dotSchedule(const std::string& matrix) { return "dot-" + matrix; }

void registerDotDiffusionMethods(Registry& r) {
    const std::map<std::string, std::string> descriptions = {
        {"knuth",
         "Dot diffusion (Knuth 1987) with Knuth's 8 x 8 class matrix: pixels are halftoned class by class, each "
         "sharing its error among its neighbours of higher class (2 for the orthogonal ones, 1 for the diagonal "
         "ones); every pixel of one class runs at once on all CPU cores."},
        {"mese-vaidyanathan-8",
         "Dot diffusion with the 8 x 8 class matrix Mese and Vaidyanathan (2000) optimised for a less visible "
         "texture than Knuth's; every pixel of one class runs at once on all CPU cores."},
        {"mese-vaidyanathan-16",
         "Dot diffusion with the 16 x 16 class matrix of Mese and Vaidyanathan (2000): 256 classes, one baron, the "
         "least periodic texture and the most faithful tone of the three; every pixel of one class runs at once on "
         "all CPU cores."},
    };
    for (const ClassMatrix& cm : classMatrices()) {
        const auto d = descriptions.find(cm.name);
        MethodInfo m = describeMethod(
            "dot", cm.name, "dot-diffusion",
            d != descriptions.end() ? d->second : "Dot diffusion with the " + cm.title + " class matrix.");
        m.params = {
            intParam("levels", "Output levels", 2, 256, 2, "number of output levels L (2 = binary)"),
            boolParam("linear", "Linear light", false,
                      "diffuse error in linear light (sRGB decoded) instead of gamma-encoded values"),
            intParam("threads", "Threads", 0, 1024, 0, "worker threads (0 = all hardware threads)"),
        };
        m.schedule = dotSchedule(cm.name);
        const std::string name = cm.name;
        m.cpu = [name](const Plane8& src, Plane8& dst, const ParamValues& v, const RunControl& rc) {
            return dotDiffuse(src, dst, dotParamsFrom(name, v), rc);
        };
        m.reference = [name](const Plane8& src, Plane8& dst, const ParamValues& v, const RunControl&) {
            dst = referenceDotDiffusion(src, dotParamsFrom(name, v));
            return dst.empty() ? Status::error("invalid dot diffusion parameters") : Status::ok();
        };
        r.add(std::move(m));
    }
    r.setDisplayName("dot", "Dot diffusion");
    r.setDefaultVariant("dot", "knuth");
}

}  // namespace halftone
