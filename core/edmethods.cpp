// Registers the sequential ED/EC variants of seed 000, Table V (1).
#include "core/errordiffusion.h"
#include "core/registry.h"

namespace halftone {

std::vector<ParamSpec> edParamSpecs(bool withSerpentine) {
    std::vector<ParamSpec> specs;
    ParamSpec kernel;
    kernel.key = "kernel";
    kernel.label = "Kernel";
    kernel.kind = ParamSpec::Kind::Choice;
    for (const Kernel& k : kernels()) kernel.choices.push_back(k.name);
    kernel.def = 0;
    kernel.help = "error diffusion kernel (SPEC section 1)";
    specs.push_back(kernel);

    ParamSpec levels;
    levels.key = "levels";
    levels.label = "Output levels";
    levels.kind = ParamSpec::Kind::Int;
    levels.min = 2;
    levels.max = 256;
    levels.def = 2;
    levels.help = "number of output levels L (2 = binary)";
    specs.push_back(levels);

    ParamSpec linear;
    linear.key = "linear";
    linear.label = "Linear light";
    linear.kind = ParamSpec::Kind::Bool;
    linear.def = 0;
    linear.help = "diffuse error in linear light (sRGB decoded) instead of gamma-encoded values";
    specs.push_back(linear);

    if (withSerpentine) {
        ParamSpec serp;
        serp.key = "serpentine";
        serp.label = "Serpentine scan";
        serp.kind = ParamSpec::Kind::Bool;
        serp.def = 0;
        serp.help = "odd rows right to left with mirrored taps (no wavefront parallelism)";
        specs.push_back(serp);
    }
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
