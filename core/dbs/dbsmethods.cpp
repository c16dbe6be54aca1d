// Registry entries of DBS: `dbs/sequential` (raster order from an error-diffusion start with the warm start: the
// default), `dbs/blocks` (four block groups from random dither, warm start; CPU and GPU), `dbs/reference` (the SPEC
// reference: raster order, random start, no warm start) and `dbs/blocks-koge` (block side 32, the anchor of the
// GPU comparison).
#include "core/budget.h"
#include "core/dbs/dbs.h"
#include "core/screen/ordered.h"
#include "core/job/registry.h"
#include "core/screen/screen.h"

namespace halftone {

std::vector<ParamSpec> dbsParamSpecs() {
    auto labelled = [](ParamSpec p, std::vector<std::pair<std::string, std::string>> labels) {
        p.choiceLabels = std::move(labels);
        return p;
    };
    auto when = [](ParamSpec p, const char* condition) {
        p.visibleWhen = condition;
        return p;
    };
    return {
        boolParam("clip-free", "Clipping-free", false,
                  "keep shadows and highlights free of clipping: their sparse dots are placed by the screen and DBS "
                  "arranges the rest (Koge, Ito and Nakano)"),
        when(realParam("margin", "Clip-free margin (gray levels)", 0, 127, 9,
                       "gray levels this close to black or white are screened (9 = 9/255)"),
             "clip-free=true"),
        when(screenParamSpec("Clip-free screen", "dbs",
                             "threshold array for the clip-free shadows and highlights: dbs (default), blue-noise, "
                             "bayer:N, cluster:... or an image file of thresholds"),
             "clip-free=true"),
        labelled(choiceParam("hvs", "Eye model", {"gaussian", "nasanen"}, 0,
                             "model of the human eye that weights the error: a Gaussian blur or Nasanen's contrast "
                             "sensitivity"),
                 {{"gaussian", "Gaussian blur"}, {"nasanen", "Nasanen (viewing distance, resolution)"}}),
        when(realParam("sigma", "Gaussian sigma (px)", 0.3, 10, 1.2, "width of the Gaussian eye model in pixels"),
             "hvs=gaussian"),
        intParam("radius", "Filter radius (px)", 1, 16, 4, "the eye model is cut off this many pixels from its centre"),
        when(realParam("distance", "Viewing distance (in)", 1, 200, 9.5, "viewing distance in inches"), "hvs=nasanen"),
        when(realParam("dpi", "Print resolution (dpi)", 10, 10000, 300, "printer resolution in dots per inch"),
             "hvs=nasanen"),
        when(realParam("luminance", "Luminance (cd/m^2)", 1.01, 10000, 11, "average luminance of the print"),
             "hvs=nasanen"),
        intParam("max-iter", "Max iterations", 1, 100000, 100,
                 "stop after this many passes even if moves are still found"),
        intParam("seed", "Random seed", 0, 2147483647, 1, "seed of the random start"),
        boolParam("swaps", "Swaps", true, "try swapping a pixel with each of its 8 neighbours besides toggling it"),
        realParam("warm-start", "Warm-start factor", 0, 1, 0,
                  "first converge with the eye model narrowed by this factor (sigma or viewing distance), then with "
                  "the real one; 0 = off"),
    };
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
    p.start = v.getText("start", "random") == "error-diffusion" ? DbsStart::ErrorDiffusion : DbsStart::Random;
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
        RunControl control = rc;
        if (const int64_t t = v.getInt("threads", 0); t > 0) control.threads = int(t);
        return dbsHalftone(src, dst, p, control);
    };
}

}  // namespace

void registerDbsMethods(Registry& r) {
    const std::vector<ParamSpec> common = dbsParamSpecs();
    const ParamSpec block = intParam("block", "Block side (px)", 8, 1024, 128,
                                     "side of the blocks searched in parallel; at least 4 x radius + 1");
    const ParamSpec threads = intParam("threads", "Threads", 0, 1024, 0, "worker threads (0 = all hardware threads)");
    auto start = [](int defIndex) {
        ParamSpec p = choiceParam("start", "Start from", {"random", "error-diffusion"}, defIndex,
                                  "the halftone DBS improves: random dither, or Floyd-Steinberg error diffusion "
                                  "(DBS then only lowers its error)");
        p.choiceLabels = {{"random", "Random dither"}, {"error-diffusion", "Floyd-Steinberg error diffusion"}};
        return p;
    };
    // In raster order the seed only matters for the random start.
    auto seedOnlyForRandom = [](std::vector<ParamSpec> params) {
        for (ParamSpec& ps : params)
            if (ps.key == "seed") ps.visibleWhen = "start=random";
        return params;
    };
    auto withDefault = [](std::vector<ParamSpec> params, const char* key, double def) {
        for (ParamSpec& ps : params)
            if (ps.key == key) ps.def = def;
        return params;
    };
    MethodInfo m;
    m.method = "dbs";
    m.family = "dbs";
    m.exact = false;
    // Peak while c_pe is computed: the error plane, c_pe and the separable filter's intermediate (doubles), plus
    // the binary, free-mask and output planes.
    m.workingBytes = [](int width, int height, const ParamValues&) {
        return mulBytes(mulBytes(uint64_t(width), uint64_t(height)), 3 * sizeof(double) + 3);
    };

    auto add = [&](const char* variant, const char* description, std::vector<ParamSpec> params, DbsSchedule schedule) {
        m.variant = variant;
        m.description = description;
        m.params = std::move(params);
        m.cpu = cpuFunction(schedule);
        r.add(m);
    };
    // raster order on one thread, from random dither (start 0) or error diffusion (start 1)
    auto raster = [&](std::vector<ParamSpec> params, int startIndex) {
        params = seedOnlyForRandom(std::move(params));
        params.push_back(start(startIndex));
        return params;
    };
    // blocks of `side` pixels searched in parallel, with the warm start
    auto blocks = [&](double side) {
        std::vector<ParamSpec> params = withDefault(common, "warm-start", kDbsWarmStart);
        params.push_back(block);
        params.back().def = side;
        params.push_back(threads);
        return params;
    };

    // The best halftone by E/N on every shipped image, and the fastest on the CPU (docs/dbs.md): raster order from
    // Floyd-Steinberg error diffusion, with the warm start.
    add("sequential",
        "Direct binary search: improves a halftone pixel by pixel, toggling or swapping pixels while that "
        "lowers the error seen through a model of the eye. This variant starts from Floyd-Steinberg error "
        "diffusion, first searches with a narrower eye model (warm start), and visits pixels in raster "
        "order on one CPU thread: the lowest error of all methods here. Slow; the best quality.",
        raster(withDefault(common, "warm-start", kDbsWarmStart), 1), DbsSchedule::Sequential);
    add("blocks",
        "Direct binary search from random dither, blocks of the image searched in parallel (CPU threads or "
        "GPU), with the warm start. Faster on many cores or a GPU; its error is higher than the "
        "sequential variant's, which starts from error diffusion.",
        blocks(block.def), DbsSchedule::Blocks);
    add("reference",
        "Direct binary search as the specification defines it: raster order from random dither, no warm "
        "start. For comparison; it stops in a worse local minimum than the other variants.",
        raster(common, 0), DbsSchedule::Sequential);
    // Block side 32, the GPU layout of Koge, Ito and Nakano (one warp per block, attached by the GPU module).
    add("blocks-koge",
        "Direct binary search as \"blocks\", with 32-pixel blocks; on the GPU, Koge, Ito and Nakano's "
        "layout (one warp per block).",
        blocks(32), DbsSchedule::Blocks);

    r.setDefaultVariant("dbs", "sequential");
    r.setDisplayName("dbs", "Direct binary search");
}

}  // namespace halftone
