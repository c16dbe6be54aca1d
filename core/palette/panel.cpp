#include "core/palette/panel.h"

#include <array>
#include <cmath>
#include <map>

#include "core/palette/palette.h"
#include "core/quality/metrics.h"

namespace halftone {

double PanelViewing::filterSigma() const { return physical() ? eyeSigmaPixels({dpi, distanceInches}) : sigma; }

int PanelViewing::filterRadius() const { return physical() ? int(std::ceil(3 * filterSigma())) : 4; }

namespace {

uint32_t key(uint8_t r, uint8_t g, uint8_t b) { return uint32_t(r) << 16 | uint32_t(g) << 8 | b; }

}  // namespace

Status panelInks(const Target& target, const Image& result, Plane8& inks) {
    const std::string who = "target " + target.name;
    if (result.channels.empty()) return Status::error("the halftone is empty");
    const int W = result.width(), H = result.height();
    // runImage's own result: the driver codes as indices, with the written palette.
    if (!target.inks.empty() && result.indices.width == W && result.indices.height == H &&
        result.palette == target.writtenPalette().colors) {
        std::array<int, 256> ink;
        ink.fill(-1);
        for (size_t k = 0; k < target.inks.size(); ++k) ink[size_t(target.inks[k].code)] = int(k);
        inks = Plane8(W, H);
        for (size_t i = 0; i < inks.size(); ++i) {
            const int k = ink[result.indices.data[i]];
            if (k < 0)
                return Status::error("pixel (" + std::to_string(i % size_t(W)) + ", " + std::to_string(i / size_t(W)) +
                                     ") has the code " + std::to_string(result.indices.data[i]) +
                                     ", which no colour of " + who + " uses");
            inks.data[i] = uint8_t(k);
        }
        return Status::ok();
    }
    // Colours, as a file holds them: each must be one ink's nominal colour (black and white for a 1-bit device).
    std::map<uint32_t, int> byColor;
    if (target.inks.empty()) {
        byColor[key(0, 0, 0)] = 0;
        byColor[key(255, 255, 255)] = 1;
    }
    for (size_t k = 0; k < target.inks.size(); ++k) {
        const Rgb8& c = target.inks[k].nominal;
        if (!byColor.emplace(key(c[0], c[1], c[2]), int(k)).second)
            return Status::error(who + " gives '" + target.inks[size_t(byColor[key(c[0], c[1], c[2])])].name +
                                 "' and '" + target.inks[k].name + "' the same nominal colour " + colorText(c) +
                                 ", so its files cannot tell them apart");
    }
    const Image rgb = convertColor(result, ColorMode::RGB);
    inks = Plane8(W, H);
    for (size_t i = 0; i < inks.size(); ++i) {
        const uint8_t r = rgb.channels[0].data[i], g = rgb.channels[1].data[i], b = rgb.channels[2].data[i];
        const auto it = byColor.find(key(r, g, b));
        if (it == byColor.end())
            return Status::error("pixel (" + std::to_string(i % size_t(W)) + ", " + std::to_string(i / size_t(W)) +
                                 ") is " + colorText(Rgb8{r, g, b}) + ", none of the colours " + who +
                                 (target.inks.empty()
                                      ? " prints (black and white)"
                                      : " writes; was it halftoned with --target " + target.name + "?"));
        inks.data[i] = uint8_t(it->second);
    }
    return Status::ok();
}

Status simulatePanel(const Target& target, const Image& result, Image& shown) {
    Plane8 inks;
    if (Status s = panelInks(target, result, inks); !s) return s;
    std::vector<Rgb8> colors;
    for (const TargetInk& k : target.inks) colors.push_back(k.shown);
    if (colors.empty()) colors = {Rgb8{0, 0, 0}, Rgb8{255, 255, 255}};
    Image out;
    out.space = ColorSpace::RGB;
    out.channels.assign(3, Plane8(inks.width, inks.height));
    for (size_t i = 0; i < inks.size(); ++i)
        for (size_t c = 0; c < 3; ++c) out.channels[c].data[i] = colors[inks.data[i]][c];
    shown = std::move(out);
    return Status::ok();
}

Status panelDeltaE2000(const Target& target, const Image& original, const Image& result, double& deltaE,
                       const PanelViewing& viewing) {
    if (original.width() != result.width() || original.height() != result.height())
        return Status::error("the original is " + std::to_string(original.width()) + " x " +
                             std::to_string(original.height()) + " but the halftone is " +
                             std::to_string(result.width()) + " x " + std::to_string(result.height()));
    Image shown;
    if (Status s = simulatePanel(target, result, shown); !s) return s;
    deltaE = filteredDeltaE2000(original, shown, viewing.filterSigma(), viewing.filterRadius());
    return Status::ok();
}

}  // namespace halftone
