#include "core/job/names.h"

#include <algorithm>
#include <cctype>

namespace halftone {

namespace {

struct Alias {
    const char* kind;
    const char* alias;
    const char* name;
};

/// Every alias of the program: the common short names of kernels and methods (Floyd and Steinberg; Jarvis, Judice
/// and Ninke; Frankie Sierra's three kernels) and the palettes' customary names. Spellings that differ only in case,
/// '-', '_' or spaces need no row (nameKey matches them), nor do the methods' display names ("Error diffusion"), which
/// jobMethod matches.
constexpr Alias kAliases[] = {
    {"kernel", "fs", "floyd-steinberg"},
    {"kernel", "floyd", "floyd-steinberg"},
    {"kernel", "jjn", "jarvis"},
    {"kernel", "jarvis-judice-ninke", "jarvis"},
    {"kernel", "sierra3", "sierra"},
    {"kernel", "two-row-sierra", "sierra2"},
    {"kernel", "filter-lite", "sierra-lite"},
    {"kernel", "sierra-2-4a", "sierra-lite"},
    {"kernel", "shiau-fan-1", "shiau-fan"},
    {"method", "floyd-steinberg", "ed"},
    {"method", "fs", "ed"},
    {"method", "floyd", "ed"},
    {"method", "dither", "ordered"},
    {"method", "hilbert", "riemersma"},
    {"palette", "acep", "acep7"},
    {"palette", "spectra", "spectra6"},
    {"palette", "monochrome", "bw"},
    {"palette", "grey4", "gray4"},
    {"palette", "dmg", "gameboy"},
    {"palette", "commodore64", "c64"},
    {"palette", "macintosh", "mac16"},
    {"palette", "web", "websafe"},
};

}  // namespace

std::string nameKey(std::string_view name) {
    std::string k;
    k.reserve(name.size());
    for (const char c : name)
        if (c != '-' && c != '_' && c != '.' && c != ' ') k += char(std::tolower(static_cast<unsigned char>(c)));
    return k;
}

size_t editDistance(std::string_view a, std::string_view b) {
    // Optimal string alignment: Levenshtein plus the swap of two neighbours ("dsb" -> "dbs"), each costing 1.
    const size_t w = b.size() + 1;
    std::vector<size_t> d((a.size() + 1) * w);
    for (size_t i = 0; i <= a.size(); ++i) d[i * w] = i;
    for (size_t j = 0; j <= b.size(); ++j) d[j] = j;
    for (size_t i = 1; i <= a.size(); ++i)
        for (size_t j = 1; j <= b.size(); ++j) {
            size_t v = std::min({d[(i - 1) * w + j] + 1, d[i * w + j - 1] + 1,
                                 d[(i - 1) * w + j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1)});
            if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1])
                v = std::min(v, d[(i - 2) * w + j - 2] + 1);
            d[i * w + j] = v;
        }
    return d[a.size() * w + b.size()];
}

std::string aliasTarget(std::string_view kind, std::string_view alias) {
    const std::string key = nameKey(alias);
    for (const Alias& a : kAliases)
        if (kind == a.kind && key == nameKey(a.alias)) return a.name;
    return {};
}

std::string matchName(std::string_view kind, std::string_view name, const std::vector<std::string>& candidates) {
    for (const std::string& c : candidates)
        if (c == name) return c;
    const std::string key = nameKey(name);
    if (key.empty()) return {};
    for (const std::string& c : candidates)
        if (nameKey(c) == key) return c;
    const std::string target = aliasTarget(kind, name);
    if (!target.empty() && std::find(candidates.begin(), candidates.end(), target) != candidates.end()) return target;
    return {};
}

std::string nearestName(std::string_view name, const std::vector<std::string>& candidates) {
    const std::string key = nameKey(name);
    if (key.empty()) return {};
    const size_t limit = std::max<size_t>(1, key.size() / 3);
    std::string best;
    size_t bestDistance = limit + 1;
    for (const std::string& c : candidates) {
        const std::string ck = nameKey(c);
        size_t d = editDistance(key, ck);
        if (d > limit && key.size() >= 3 && ck.compare(0, key.size(), key) == 0) d = limit;  // a prefix of it
        if (d < bestDistance) {
            bestDistance = d;
            best = c;
        }
    }
    return best;
}

std::string didYouMean(std::string_view name, const std::vector<std::string>& candidates, bool quote) {
    const std::string n = nearestName(name, candidates);
    if (n.empty()) return {};
    return quote ? " (did you mean '" + n + "'?)" : " (did you mean " + n + "?)";
}

}  // namespace halftone
