#include "core/ed/kernel.h"

#include "core/job/names.h"

#include "core/ed/kerneltable.h"
#include "core/ed/varkerneltable.h"

#include <algorithm>

namespace halftone {

int Kernel::maxDi() const {
    int m = 0;
    for (const Tap& t : taps) m = std::max(m, t.di);
    return m;
}
int Kernel::maxDjLeft() const {
    int m = 0;
    for (const Tap& t : taps) m = std::max(m, -t.dj);
    return m;
}
int Kernel::maxDjRight() const {
    int m = 0;
    for (const Tap& t : taps) m = std::max(m, t.dj);
    return m;
}

int Kernel::minimalDelay() const {
    // Pixel (i, j) runs at step j + k*i. Source (i - di, j - dj) runs at j - dj + k*(i - di).
    // Need j - dj + k*(i - di) < j + k*i, i.e. k*di + dj > 0 for every tap.
    for (int k = 1;; ++k) {
        bool ok = true;
        for (const Tap& t : taps)
            if (k * t.di + t.dj <= 0) ok = false;
        if (ok) return k;
    }
}

bool Kernel::modulated() const { return levelTable && levelTable->modulated; }

int Kernel::weight(size_t t, uint8_t a) const {
    if (!levelTable) return taps[t].w;
    const varkerneltable::LevelWeights& w = levelTable->w[a];
    return t == 0 ? w.right : (t == 1 ? w.downLeft : w.down);
}

int Kernel::strength(uint8_t a) const { return levelTable ? levelTable->strength[a] : 0; }

int Kernel::threshold(uint8_t a) const { return levelTable ? levelTable->threshold[a] : 0; }

int32_t Kernel::modulationWord(uint8_t a, int levels) const {
    return modulated() ? varkerneltable::modulationWord(*levelTable, a, levels) : 0;
}

std::span<const Kernel> kernels() {
    static const std::vector<Kernel> all = [] {
        std::vector<Kernel> v;
        for (const kerneltable::KernelDef& d : kerneltable::kKernels) {
            Kernel k;
            k.name = d.name;
            for (int i = 0; i < d.count; ++i) k.taps.push_back({d.taps[i].di, d.taps[i].dj, d.taps[i].w});
            k.divisor = d.divisor;
            v.push_back(std::move(k));
        }
        for (const varkerneltable::VarKernelDef& d : varkerneltable::kVarKernels) {
            Kernel k;
            k.name = d.name;
            for (int t = 0; t < varkerneltable::kTaps; ++t)
                k.taps.push_back({varkerneltable::kTapDi[t], varkerneltable::kTapDj[t], 0});
            k.divisor = varkerneltable::kDivisor;
            k.levelTable = &d;
            v.push_back(std::move(k));
        }
        return v;
    }();
    return all;
}

const Kernel* findKernel(std::string_view name) {
    for (const Kernel& k : kernels())
        if (k.name == name) return &k;
    return findNamed("kernel", name, kernels());
}

std::string kernelNames() {
    std::string s;
    for (const Kernel& k : kernels()) {
        if (!s.empty()) s += ", ";
        s += k.name;
    }
    return s;
}

}  // namespace halftone
