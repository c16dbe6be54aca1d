// Section "dbs": every picked DBS method (by default every registered one) to convergence on one synthetic plane
// (4096 x 3072 unless --dbs-size), clipping-free, random seed 1, on the CPU and, where the method has one and a GPU is
// usable, on the GPU, each with its registry defaults (--param changes them). CPU rows: one run; GPU rows: a warm-up
// run, then the median of up to 3 runs, host image in to host image out. Prints time, iterations, final E/N and its
// ratio to the first row's.
#include <cstdio>
#include <string>

#include "app/bench/bench.h"
#include "core/dbs/dbs.h"

namespace halftone::bench {

int benchDbs(const BenchContext& c) {
    const int W = c.dbsWidth, H = c.dbsHeight;
    const Plane8 src = syntheticPlane(W, H);
    const std::vector<const MethodInfo*> methods =
        methodsFor(c, DeviceChoice::All, [](const MethodInfo& m) { return m.family == "dbs"; });
    std::printf("\n== dbs: DBS to convergence, %d x %d synthetic plane, clipping-free, seed 1 (%s) ==\n", W, H,
                utcNow().c_str());
    std::printf("| %-44s | %10s | %5s | %10s | %8s | settings\n", "method", "time ms", "iter", "E/N", "vs first");
    std::printf("|%s|%s|%s|%s|%s|---\n", std::string(46, '-').c_str(), std::string(12, '-').c_str(),
                std::string(7, '-').c_str(), std::string(12, '-').c_str(), std::string(10, '-').c_str());
    int rc = 0;
    double firstError = -1;
    const std::map<std::string, std::string> sectionDefaults = {{"clip-free", "true"}, {"seed", "1"}};
    for (const MethodInfo* m : methods) {
        ParamValues params;
        if (Status s = paramsFor(c, *m, params, sectionDefaults, false); !s) {
            std::printf("| %-44s | skipped: %s\n", m->id().c_str(), s.message().c_str());
            continue;
        }
        HvsFilter filter;
        const bool haveFilter = m->family == "dbs" && makeHvsFilter(dbsParamsFrom(params).hvs, filter).isOk();
        std::string settings;
        for (const char* key : {"block", "warm-start", "start", "threads"})
            if (params.has(key) && m->param(key)) {
                const ParamSpec& spec = *m->param(key);
                settings += std::string(settings.empty() ? "" : ", ") + key + " " +
                            (spec.kind == ParamSpec::Kind::Real  ? fmt(params.getReal(key, 0))
                             : spec.kind == ParamSpec::Kind::Int ? std::to_string(params.getInt(key, 0))
                                                                 : params.getText(key, ""));
            }
        for (Device d : devicesFor(c, *m, DeviceChoice::All)) {
            const bool gpu = d == Device::Gpu;
            const Timed t = timeMethod(*m, d, src, params, gpu ? std::max(1, std::min(c.runs, 3)) : 1, gpu, c.threads);
            const std::string name = rowName(*m, d);
            if (t.seconds < 0) {
                std::printf("| %-44s | %10s | %5s | %10s | %8s | %s\n", name.c_str(), "-", "-", "-", "-",
                            t.error.c_str());
                rc = 1;
                continue;
            }
            const double e = haveFilter ? dbsError(src, t.out, filter) : -1;
            if (firstError < 0) firstError = e;
            std::printf("| %-44s | %10.1f | %5s | %10.7f | %8.4f | %s\n", name.c_str(), t.seconds * 1e3,
                        t.last.iteration >= 0 ? std::to_string(t.last.iteration).c_str() : "-", e,
                        firstError > 0 ? e / firstError : 0.0, settings.c_str());
            std::fflush(stdout);
        }
    }
    return rc;
}

}  // namespace halftone::bench
