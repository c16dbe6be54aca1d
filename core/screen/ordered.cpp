// Ordered dither (Koge, Ito and Nakano's threshold rule, section 2.1) and its registry entry.
#include "core/screen/ordered.h"

#include <algorithm>
#include <array>

#include "core/palette/paletteordered.h"
#include "core/job/registry.h"

namespace halftone {

Status orderedDither(const Plane8& src, Plane8& dst, const ThresholdArray& screen, const RunControl& control,
                     int levels) {
    if (screen.empty()) return Status::error("ordered dither: the threshold array is empty");
    if (levels < 2 || levels > 256)
        return Status::error("ordered dither: levels must be between 2 and 256, got " + std::to_string(levels));
    if (Status s = checkImageSize(src.width, src.height, 1); !s) return s;
    // Per gray a: the two output values around it and the count c(a) of thresholds t with 255 (a - v_k) > t d, so
    // that a pixel takes the upper value where t < c(a).
    std::array<uint8_t, 256> lower{}, upper{};
    std::array<int, 256> count{};
    const auto value = [&](int k) { return (510 * k + levels - 1) / (2 * (levels - 1)); };
    for (int a = 0, k = 0; a < 256; ++a) {
        while (k < levels - 2 && value(k + 1) <= a) ++k;
        const int lo = value(k), hi = value(k + 1), num = 255 * (a - lo);
        lower[size_t(a)] = uint8_t(lo);
        upper[size_t(a)] = uint8_t(hi);
        count[size_t(a)] = num > 0 ? (num - 1) / (hi - lo) + 1 : 0;
    }
    Plane8 out(src.width, src.height);
    const int sw = screen.width, sh = screen.height;
    for (int y = 0; y < src.height; ++y) {
        if ((y & 255) == 0) {
            if (control.cancelled()) return Status::cancelled();
            control.report(double(y) / src.height, "ordered dither");
        }
        const uint8_t* a = src.row(y);
        const uint8_t* t = screen.row(y % sh);
        uint8_t* o = out.row(y);
        for (int x0 = 0; x0 < src.width; x0 += sw) {
            const int n = std::min(sw, src.width - x0);
            if (levels == 2) {
                // The same rule (c(a) = a, values 0 and 255) without the tables, so that the compiler vectorises it.
                for (int x = 0; x < n; ++x) o[x0 + x] = a[x0 + x] > t[x] ? 255 : 0;
            } else {
                for (int x = 0; x < n; ++x) {
                    const uint8_t g = a[x0 + x];
                    o[x0 + x] = t[x] < count[g] ? upper[g] : lower[g];
                }
            }
        }
    }
    dst = std::move(out);
    control.report(1.0, "ordered dither");
    return Status::ok();
}

ParamSpec screenParamSpec(std::string label, std::string defaultSpec, std::string help) {
    ParamSpec s;
    s.key = "screen";
    s.label = std::move(label);
    s.kind = ParamSpec::Kind::Text;
    s.textDefault = std::move(defaultSpec);
    s.help = std::move(help);
    s.presets = {
        {"bayer:2", "Bayer 2 x 2"},
        {"bayer:4", "Bayer 4 x 4"},
        {"bayer:8", "Bayer 8 x 8"},
        {"bayer:16", "Bayer 16 x 16"},
        {"cluster:cell=8,angle=45", "Clustered dot, 8 px cell, 45 degrees"},
        {"cluster:cell=8,angle=0", "Clustered dot, 8 px cell, 0 degrees"},
        {"cluster:cell=8,angle=45,dot=elliptic", "Elliptic dot, 8 px cell, 45 degrees"},
        {"blue-noise", "Blue noise (void and cluster, 64 x 64)"},
        {"dbs", "DBS screen (512 x 512, shipped)"},
    };
    s.acceptsFile = true;
    s.check = checkScreenSpec;
    return s;
}

void registerOrderedMethods(Registry& r) {
    MethodInfo m = describeMethod(
        "ordered", "screen", "ordered",
        "Compares each pixel with a tiled threshold array (screen): fast, no error spreading, regular "
        "patterns. Choose a Bayer, clustered-dot, blue-noise or DBS screen, or load one from an image file. With a "
        "palette, each colour becomes a mix of palette colours (a mixing plan) and the screen picks among them.");
    m.exact = false;
    ParamSpec screen = screenParamSpec(
        "Screen", "bayer:8",
        "threshold array: bayer:N (N = 2..256, power of two), cluster:cell=C,angle=A,dot=round|elliptic, "
        "blue-noise[:N] or blue-noise:size=N,seed=S,frames=T,frame=K (void and cluster, N = 8..1024; frame K of T "
        "for a sequence), dbs (the shipped 512 x 512 DBS screen) or an image file of thresholds");
    // The larger blue-noise arrays are offered for ordered dither only: the quality benchmark runs clip-free DBS once
    // per entry of the shared list, and DBS is slow.
    const auto blue = std::find_if(screen.presets.begin(), screen.presets.end(),
                                   [](const auto& preset) { return preset.first == "blue-noise"; });
    screen.presets.insert(blue + 1, {{"blue-noise:128", "Blue noise (void and cluster, 128 x 128)"},
                                     {"blue-noise:256", "Blue noise (void and cluster, 256 x 256)"}});
    m.params.push_back(std::move(screen));
    m.params.push_back(intParam("levels", "Output levels", 2, 256, 2,
                                "number of output levels L (2 = binary); the screen picks between the two levels "
                                "around each gray"));
    m.cpu = [](const Plane8& src, Plane8& dst, const ParamValues& v, const RunControl& rc) {
        ThresholdArray screen;
        if (Status st = screenFromSpec(v.getText("screen", "bayer:8"), screen, rc.scaled(0, 0.5)); !st) return st;
        return orderedDither(src, dst, screen, rc.scaled(0.5, 1.0), int(v.getInt("levels", 2)));
    };
    m.params.push_back(intParam("plan", "Mixing plan size", kMinMixingPlan, kMaxMixingPlan, kDefaultMixingPlan,
                                "palette output only: palette colours mixed per input colour (Yliluoma's plan, in "
                                "linear light); the screen picks one of them, so N steps of tone between colours"));
    m.paletteCpu = [](const Image& rgb, const Palette& palette, Plane8& indices, const ParamValues& v,
                      const RunControl& rc) {
        ThresholdArray screen;
        if (Status st = screenFromSpec(v.getText("screen", "bayer:8"), screen, rc.scaled(0, 0.2)); !st) return st;
        // The plan's steps take the luma-weighted match whatever the run's match: in linear light it mixes more
        // accurately than the euclidean one (docs/quality.md, "Palettes: the working space and the match").
        return orderedPaletteDither(rgb, palette, screen, int(v.getInt("plan", kDefaultMixingPlan)),
                                    PaletteMatch::Weighted, indices, rc.scaled(0.2, 1.0));
    };
    r.add(std::move(m));
    r.setDisplayName("ordered", "Ordered dither");
}

}  // namespace halftone
