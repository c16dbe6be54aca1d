// Registers the sequential ED/EC variants of seed 000, Table V (1).
#include "core/errordiffusion.h"
#include "core/registry.h"

namespace halftone {

std::vector<ParamSpec> edParamSpecs(bool withSerpentine) {
    std::vector<std::string> names;
    for (const Kernel& k : kernels()) names.push_back(k.name);
    std::vector<ParamSpec> specs = {
        choiceParam("kernel", "Kernel", names, 0, "error diffusion kernel (docs/spec.md section 1)"),
        intParam("levels", "Output levels", 2, 256, 2, "number of output levels L (2 = binary)"),
        boolParam("linear", "Linear light", false,
                  "diffuse error in linear light (sRGB decoded) instead of gamma-encoded values"),
    };
    if (withSerpentine)
        specs.push_back(boolParam("serpentine", "Serpentine scan", false,
                                  "odd rows right to left with mirrored taps (no wavefront parallelism)"));
    return specs;
}

EdParams edParamsFrom(const ParamValues& v) {
    EdParams p;
    p.kernel = v.getText("kernel", p.kernel);
    p.levels = int(v.getInt("levels", p.levels));
    p.linear = v.getBool("linear", false);
    p.serpentine = v.getBool("serpentine", false);
    return p;
}

namespace {

MethodInfo sequential(const char* method, const char* variant, EdVariant which, const char* description) {
    MethodInfo m;
    m.method = method;
    m.variant = variant;
    m.family = "error-diffusion";
    m.description = description;
    m.params = edParamSpecs();
    m.schedule = "raster";
    m.cpu = [which](const Plane8& src, Plane8& dst, const ParamValues& v, const RunControl& rc) {
        return errorDiffuse(src, dst, edParamsFrom(v), which, rc);
    };
    return m;
}

}  // namespace

void registerErrorDiffusionMethods(Registry& r) {
    r.add(sequential("ed", "plain", EdVariant::Diffusion,
                     "error diffusion, sequential raster scan, full-plane error accumulators (seed 000 ED)"));
    r.add(sequential("ed", "rc", EdVariant::DiffusionRegisters,
                     "error diffusion with register caching, O(width) row buffers (seed 000 ED with RC)"));
    r.add(sequential("ec", "plain", EdVariant::Collection,
                     "error collection, sequential raster scan, full-plane error buffer (seed 000 EC)"));
    r.add(sequential("ec", "rc", EdVariant::CollectionRegisters,
                     "error collection with register caching, O(width) row buffers (seed 000 EC with RC)"));
}

}  // namespace halftone
