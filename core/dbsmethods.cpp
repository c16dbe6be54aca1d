// Registry entries of DBS: `dbs/sequential` (the SPEC reference order) and `dbs/blocks` (four block groups).
#include "core/dbs.h"
#include "core/registry.h"
#include "core/screen.h"

namespace halftone {

namespace {
ParamSpec spec(const char* key, const char* label, ParamSpec::Kind kind, double min, double max, double def, const char* help) {
    ParamSpec p;
    p.key = key;
    p.label = label;
    p.kind = kind;
    p.min = min;
    p.max = max;
    p.def = def;
    p.help = help;
    return p;
}
}  // namespace

std::vector<ParamSpec> dbsParamSpecs() {
    using K = ParamSpec::Kind;
    std::vector<ParamSpec> s;
    s.push_back(spec("clip-free", "Clipping-free", K::Bool, 0, 1, 0,
                     "seed 003: screen shadows/highlights with the DBS screen and keep their minority dots"));
    s.push_back(spec("margin", "Margin Dm (gray levels)", K::Real, 0, 127, 9,
                     "clip-free margin Dm in 8-bit gray levels (9 = 9/255)"));
    ParamSpec hvs = spec("hvs", "HVS model", K::Choice, 0, 0, 0, "human visual system model weighting the error");
    hvs.choices = {"gaussian", "nasanen"};
    s.push_back(hvs);
    s.push_back(spec("sigma", "Gaussian sigma (px)", K::Real, 0.3, 10, 1.2, "deviation of the Gaussian HVS filter"));
    s.push_back(spec("radius", "Filter radius w", K::Int, 1, 16, 4, "HVS filter truncated to (2w+1)^2"));
    s.push_back(spec("distance", "Viewing distance (in)", K::Real, 1, 200, 9.5, "Nasanen: viewing distance in inches"));
    s.push_back(spec("dpi", "Resolution (dpi)", K::Real, 10, 10000, 300, "Nasanen: printer resolution"));
    s.push_back(spec("luminance", "Luminance (cd/m^2)", K::Real, 1.01, 10000, 11, "Nasanen: average luminance"));
    s.push_back(spec("max-iter", "Max iterations", K::Int, 1, 100000, 100, "stop after this many iterations"));
    s.push_back(spec("seed", "Random seed", K::Int, 0, 2147483647, 1, "seed of the random-dither start"));
    s.push_back(spec("swaps", "Swaps", K::Bool, 0, 1, 1, "try swaps with the 8 neighbours besides toggles"));
    s.push_back(spec("block", "Block side", K::Int, 8, 1024, 128, "block side of the block-parallel schedule (>= 4w+1)"));
    ParamSpec screen = spec("screen", "Clip-free screen", K::Text, 0, 0, 0,
                            "threshold array for clip-free DBS: dbs (default), blue-noise, bayer:N or a file");
    screen.textDefault = "dbs";
    s.push_back(screen);
    return s;
}

DbsParams dbsParamsFrom(const ParamValues& v) {
    DbsParams p;
    p.clipFree = v.getBool("clip-free", false);
    p.margin = v.getReal("margin", 9.0) / 255.0;
    p.hvs.model = v.getText("hvs", "gaussian") == "nasanen" ? HvsModel::Nasanen : HvsModel::Gaussian;
    p.hvs.sigma = v.getReal("sigma", 1.2);
    p.hvs.radius = int(v.getInt("radius", 4));
    p.hvs.distance = v.getReal("distance", 9.5);
    p.hvs.dpi = v.getReal("dpi", 300);
    p.hvs.luminance = v.getReal("luminance", 11);
    p.maxIterations = int(v.getInt("max-iter", 100));
    p.seed = uint64_t(v.getInt("seed", 1));
    p.swaps = v.getBool("swaps", true);
    p.blockSize = int(v.getInt("block", 128));
    return p;
}

namespace {

PlaneFunction cpuFunction(DbsSchedule schedule) {
    return [schedule](const Plane8& src, Plane8& dst, const ParamValues& v, const RunControl& rc) {
        DbsParams p = dbsParamsFrom(v);
        p.schedule = schedule;
        ThresholdArray screen;
        const std::string spec = v.getText("screen", "dbs");
        if (p.clipFree && spec != "dbs") {
            if (Status s = screenFromSpec(spec, screen, rc); !s) return s;
            p.screen = &screen;
        }
        return dbsHalftone(src, dst, p, rc);
    };
}

}  // namespace

void registerDbsMethods(Registry& r) {
    MethodInfo m;
    m.method = "dbs";
    m.family = "dbs";
    m.exact = false;
    m.params = dbsParamSpecs();
    m.variant = "sequential";
    m.description = "direct binary search, toggles and swaps in raster order with c_pp/c_pe bookkeeping (seed 004), "
                    "update map and clipping-free option (seed 003)";
    m.cpu = cpuFunction(DbsSchedule::Sequential);
    r.add(m);
    m.variant = "blocks";
    m.description = "block-parallel DBS: four block groups / quad-interleaved blocks (seeds 003, 004), CPU threads";
    m.cpu = cpuFunction(DbsSchedule::Blocks);
    r.add(m);
}

}  // namespace halftone
