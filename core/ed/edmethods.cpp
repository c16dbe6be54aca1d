// Registers the sequential error diffusion and error collection variants (Kasagi, Nakano and Ito's Table V (1)).
#include "core/ed/errordiffusion.h"
#include "core/palette/paletteed.h"
#include "core/job/registry.h"

namespace halftone {

std::vector<ParamSpec> edParamSpecs(bool withSerpentine) {
    std::vector<std::string> names;
    for (const Kernel& k : kernels()) names.push_back(k.name);
    ParamSpec kernel =
        choiceParam("kernel", "Kernel", names, 0,
                    "how the quantisation error is shared among neighbours (Floyd-Steinberg, Jarvis, "
                    "Stucki, ...; Ostromoukhov, Zhou-Fang and TDED change the weights with the input level)");
    kernel.choiceLabels = {{"floyd-steinberg", "Floyd-Steinberg"},
                           {"jarvis", "Jarvis, Judice and Ninke"},
                           {"stucki", "Stucki"},
                           {"burkes", "Burkes"},
                           {"sierra", "Sierra"},
                           {"sierra2", "Sierra two-row"},
                           {"sierra-lite", "Sierra Lite"},
                           {"atkinson", "Atkinson"},
                           {"fan", "Fan"},
                           {"shiau-fan", "Shiau-Fan"},
                           {"shiau-fan2", "Shiau-Fan (five cells)"},
                           {"stevenson-arce", "Stevenson-Arce"},
                           {"hocevar-niger", "Hocevar-Niger"},
                           {"ostromoukhov", "Ostromoukhov (variable coefficients)"},
                           {"zhou-fang", "Zhou-Fang (variable coefficients, threshold modulation)"},
                           {"tded", "TDED (Li-Allebach, tone-dependent weights and threshold)"}};
    std::vector<ParamSpec> specs = {
        kernel,
        intParam("levels", "Output levels", 2, 256, 2, "number of output levels L (2 = binary)"),
        boolParam("linear", "Linear light", false,
                  "diffuse error in linear light (sRGB decoded) instead of gamma-encoded values; a run to a palette "
                  "takes its space from the palette settings (linear light by default)"),
    };
    if (withSerpentine)
        specs.push_back(boolParam("serpentine", "Serpentine scan", false,
                                  "odd rows right to left with mirrored taps (no wavefront parallelism)"));
    ParamSpec seed = intParam("seed", "Noise seed", 0, 2147483647, 1,
                              "seed of the threshold modulation's position noise (Zhou-Fang): the same seed gives the "
                              "same image on every method and thread count");
    seed.visibleWhen = "kernel=zhou-fang";
    specs.push_back(seed);
    return specs;
}

EdParams edParamsFrom(const ParamValues& v) {
    EdParams p;
    p.kernel = v.getText("kernel", p.kernel);
    p.levels = int(v.getInt("levels", p.levels));
    p.linear = v.getBool("linear", false);
    p.serpentine = v.getBool("serpentine", false);
    parsePaletteMatch(v.getText(kPaletteMatchKey, toString(p.match)), p.match);
    p.seed = uint32_t(v.getInt("seed", p.seed));
    return p;
}

namespace {

MethodInfo sequential(const char* method, const char* variant, EdVariant which, const char* description) {
    MethodInfo m = describeMethod(method, variant, "error-diffusion", description);
    m.params = edParamSpecs();
    m.schedule = "raster";
    m.cpuInPlace = edRunsInPlace;
    m.cpu = [which](const Plane8& src, Plane8& dst, const ParamValues& v, const RunControl& rc) {
        return errorDiffuse(src, dst, edParamsFrom(v), which, rc);
    };
    m.paletteCpu = [which](const Image& rgb, const Palette& palette, Plane8& indices, const ParamValues& v,
                           const RunControl& rc) {
        return paletteErrorDiffuse(rgb, palette, indices, edParamsFrom(v), which, rc);
    };
    return m;
}

}  // namespace

bool edRunsInPlace(const ParamValues& values) {
    // Every CPU error-diffusion path reads a pixel's input once, when the pixel is visited, and keeps errors in
    // buffers of its own: the output may overwrite the input. A level-dependent kernel also reads the input levels
    // of the pixels that sent their errors (docs/spec.md section 1), which the output would have overwritten.
    const Kernel* k = findKernel(values.getText("kernel", "floyd-steinberg"));
    return k && !k->levelDependent();
}

void registerErrorDiffusionMethods(Registry& r) {
    r.add(sequential("ed", "plain", EdVariant::Diffusion,
                     "Error diffusion in raster order on one CPU thread: each pixel's rounding error is pushed to "
                     "its unprocessed neighbours. The textbook form, with an error buffer as large as the image."));
    r.add(sequential("ed", "rc", EdVariant::DiffusionRegisters,
                     "Error diffusion in raster order on one CPU thread, keeping only the errors of the rows in "
                     "reach (register caching): less memory and faster than plain."));
    r.add(sequential("ec", "plain", EdVariant::Collection,
                     "Error collection in raster order on one CPU thread: each pixel gathers the errors of its "
                     "processed neighbours (the same image as error diffusion). Error buffer as large as the image."));
    r.add(sequential("ec", "rc", EdVariant::CollectionRegisters,
                     "Error collection in raster order on one CPU thread, keeping only the errors of the rows in "
                     "reach (register caching): less memory and faster than plain."));
    r.setDisplayName("ed", "Error diffusion");
    r.setDisplayName("ec", "Error collection");
    // Exact variants all give the same image; the default is the fastest one-thread form, which every build has.
    r.setDefaultVariant("ed", "rc");
    r.setDefaultVariant("ec", "rc");
}

}  // namespace halftone
