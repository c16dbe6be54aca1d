// Shared by the built-in codecs and the OpenImageIO module's own readers (io/rgba.h).
#include "io/rgba.h"

#include <algorithm>
#include <fstream>

#include "core/budget.h"

namespace halftone::io::detail {

Status readWholeFile(const std::string& path, const ReadOptions& options, std::vector<unsigned char>& data) {
    std::ifstream f(path, std::ios::binary | std::ios::ate);
    if (!f) return Status::error("cannot open the file");
    const std::streamoff size = f.tellg();
    if (size < 0) return Status::error("cannot determine the file's size");
    if (Status s = checkMemory(uint64_t(size), options.maxMemory, "holding this file in memory"); !s) return s;
    data.resize(size_t(size));
    f.seekg(0);
    if (size > 0 && !f.read(reinterpret_cast<char*>(data.data()), size)) return Status::error("read error");
    return Status::ok();
}

Image fromRgba(const unsigned char* rgba, int w, int h, size_t stride) {
    bool gray = true, opaque = true;
    for (int y = 0; y < h && (gray || opaque); ++y) {
        const unsigned char* r = rgba + size_t(y) * stride;
        for (int x = 0; x < w; ++x) {
            const unsigned char* p = r + size_t(x) * 4;
            gray = gray && p[0] == p[1] && p[1] == p[2];
            opaque = opaque && p[3] == 255;
        }
    }
    Image out;
    out.space = gray ? ColorSpace::Gray : ColorSpace::RGB;
    out.channels.assign(gray ? 1 : 3, Plane8());  // then each plane allocated in place, not copied
    for (Plane8& plane : out.channels) plane = Plane8(w, h);
    out.hasAlpha = !opaque;
    if (!opaque) out.alpha = Plane8(w, h);
    for (int y = 0; y < h; ++y) {
        const unsigned char* r = rgba + size_t(y) * stride;
        for (size_t c = 0; c < out.channels.size(); ++c) {
            uint8_t* d = out.channels[c].row(y);
            for (int x = 0; x < w; ++x) d[x] = r[size_t(x) * 4 + c];
        }
        if (!opaque) {
            uint8_t* d = out.alpha.row(y);
            for (int x = 0; x < w; ++x) d[x] = r[size_t(x) * 4 + 3];
        }
    }
    return out;
}

Status separatedInks(int samples, const HeaderFacts& facts, bool cmykSet, InkLayout& L) {
    const int nch = samples;
    const int extra = std::max(0, facts.tiffExtraSamples);
    if (extra >= nch)
        return Status::error("separated TIFF with " + std::to_string(extra) + " extra samples of " +
                             std::to_string(nch) + " channels: no inks");
    std::vector<int> plane(size_t(nch), -2);  // per channel: CMYK plane 0..3, -1 alpha, -2 unknown
    const auto& names = facts.tiffInkNames;
    auto kind = [](std::string n) {
        std::transform(n.begin(), n.end(), n.begin(), [](unsigned char c) { return char(std::tolower(c)); });
        if (n == "c" || n == "cyan") return 0;
        if (n == "m" || n == "magenta") return 1;
        if (n == "y" || n == "yellow") return 2;
        if (n == "k" || n == "black" || n == "key") return 3;
        if (n == "a" || n == "alpha") return -1;
        return -2;
    };
    if (!names.empty() && int(names.size()) >= nch - extra) {
        for (int c = 0; c < nch; ++c) plane[size_t(c)] = c < int(names.size()) ? kind(names[size_t(c)]) : -1;
    } else {
        const int inks = nch - extra;
        if (facts.tiffInkSet == 1 || facts.tiffInkSet < 0 ? inks == 4 : false)
            for (int c = 0; c < 4; ++c) plane[size_t(c)] = c;
        else if (inks == 1)
            plane[0] = 3;  // one ink, no name: printed as black
        for (int c = inks; c < nch; ++c) plane[size_t(c)] = -1;
        if (facts.tiffExtraSamples < 0 && inks == 5 && cmykSet)
            for (int c = 0; c < 5; ++c) plane[size_t(c)] = c < 4 ? c : -1;
    }
    std::string unknown;
    int alphaCh = -1, inkCount = 0;
    std::vector<int> order(4, -1);
    for (int c = 0; c < nch; ++c) {
        const int p = plane[size_t(c)];
        if (p == -1) {
            if (alphaCh < 0 && (facts.tiffExtraSamples <= 0 || facts.tiffFirstExtra == 1 || facts.tiffFirstExtra == 2))
                alphaCh = c;
            continue;
        }
        if (p == -2 || order[size_t(p)] >= 0) {
            unknown += (unknown.empty() ? "" : ", ") +
                       (c < int(names.size()) ? "'" + names[size_t(c)] + "'" : "ink " + std::to_string(c + 1));
            continue;
        }
        order[size_t(p)] = c;
        ++inkCount;
    }
    if (!unknown.empty() || inkCount == 0)
        return Status::error(
            "separated TIFF with " + std::to_string(nch - extra) + " inks (" +
            (unknown.empty() ? "none named" : unknown) +
            "): only cyan, magenta, yellow and black inks have a known colour; convert it to CMYK, RGB or gray");
    L.alpha = alphaCh;
    if (inkCount == 1 && order[3] >= 0) {  // black alone: gray, no ink = white
        L.space = ColorSpace::Gray;
        L.order = {order[3]};
        L.invert = true;
        return Status::ok();
    }
    L.space = ColorSpace::CMYK;
    L.order = order;  // -1: this ink is absent (no ink)
    return Status::ok();
}

}  // namespace halftone::io::detail
