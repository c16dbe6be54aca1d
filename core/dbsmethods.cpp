// Registry entries of DBS: `dbs/sequential` (the SPEC reference order), `dbs/blocks` (four block groups) and
// `dbs/blocks-seed003` (the same with seed 003's block side 32, the anchor of the GPU comparison).
#include "core/dbs.h"
#include "core/registry.h"
#include "core/screen.h"

namespace halftone {

namespace {
/// A Real parameter (registry.h has builders for Int, Bool and Choice only).
ParamSpec realParam(std::string key, std::string label, double min, double max, double def, std::string help) {
    ParamSpec p = intParam(std::move(key), std::move(label), min, max, def, std::move(help));
    p.kind = ParamSpec::Kind::Real;
    return p;
}
}  // namespace

std::vector<ParamSpec> dbsParamSpecs() {
    std::vector<ParamSpec> s = {
        boolParam("clip-free", "Clipping-free", false,
                  "seed 003: screen shadows/highlights with the DBS screen and keep their minority dots"),
        realParam("margin", "Margin Dm (gray levels)", 0, 127, 9, "clip-free margin Dm in 8-bit gray levels (9 = 9/255)"),
        choiceParam("hvs", "HVS model", {"gaussian", "nasanen"}, 0, "human visual system model weighting the error"),
        realParam("sigma", "Gaussian sigma (px)", 0.3, 10, 1.2, "deviation of the Gaussian HVS filter"),
        intParam("radius", "Filter radius w", 1, 16, 4, "HVS filter truncated to (2w+1)^2"),
        realParam("distance", "Viewing distance (in)", 1, 200, 9.5, "Nasanen: viewing distance in inches"),
        realParam("dpi", "Resolution (dpi)", 10, 10000, 300, "Nasanen: printer resolution"),
        realParam("luminance", "Luminance (cd/m^2)", 1.01, 10000, 11, "Nasanen: average luminance"),
        intParam("max-iter", "Max iterations", 1, 100000, 100, "stop after this many iterations"),
        intParam("seed", "Random seed", 0, 2147483647, 1, "seed of the random-dither start"),
        boolParam("swaps", "Swaps", true, "try swaps with the 8 neighbours besides toggles"),
        intParam("block", "Block side", 8, 1024, 128, "block side of the block-parallel schedule (>= 4w+1)"),
        realParam("warm-start", "Warm-start factor", 0, 1, 0,
                  "first converge with the HVS filter narrowed by this factor (sigma or viewing distance), then with the "
                  "real one; 0 = off (the SPEC reference); the block variants default to 0.75"),
    };
    ParamSpec screen = intParam("screen", "Clip-free screen", 0, 0, 0,
                                "threshold array for clip-free DBS: dbs (default), blue-noise, bayer:N or a file");
    screen.kind = ParamSpec::Kind::Text;
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
    p.warmStart = v.getReal("warm-start", 0.0);
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
    m.description = "block-parallel DBS: four block groups / quad-interleaved blocks (seeds 003, 004), warm start with a "
                    "narrower filter first; CPU threads, GPU (ours: a CTA per block, warp-wide speculative scan)";
    m.cpu = cpuFunction(DbsSchedule::Blocks);
    // Plain block DBS lands +-1-2% from sequential DBS per seed; with the warm start it stays below it (docs/performance.md).
    for (ParamSpec& ps : m.params)
        if (ps.key == "warm-start") ps.def = kDbsWarmStart;
    r.add(m);
    // The anchor of the GPU comparison: seed 003's block side k = 32 (its GPU layout is attached by the GPU module).
    m.variant = "blocks-seed003";
    m.description = "block-parallel DBS with seed 003's block side k = 32; on the GPU seed 003's layout (one warp per "
                    "block, lanes over the moves of one pixel)";
    for (ParamSpec& ps : m.params)
        if (ps.key == "block") ps.def = 32;
    r.add(m);
}

}  // namespace halftone
