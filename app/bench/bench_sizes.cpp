// Section "sizes": every picked method (by default every registered method except DBS, which has its own section)
// on square synthetic images of each --sizes side, median of --runs, ns per pixel, each exact result checked against
// the sequential reference; the reference tools (netpbm's `pamditherbw -fs`, ImageMagick's `convert`) on the same
// image in the same run. With the sequential methods only, this is Kasagi, Nakano and Ito's Table V (1) on this CPU.
#include <cstdio>

#include "app/bench/bench.h"

namespace halftone::bench {

namespace {

struct Row {
    std::string name;
    std::map<int, double> seconds;  // by side; negative = failed
    bool baseline = false;
};

}  // namespace

int benchSizes(const BenchContext& c) {
    const std::vector<const MethodInfo*> methods =
        methodsFor(c, DeviceChoice::Cpu, [](const MethodInfo& m) { return m.family != "dbs"; });
    std::printf("\n== sizes: %zu method(s) on square synthetic images, median of %d runs (%s) ==\n", methods.size(),
                c.runs, utcNow().c_str());
    std::vector<ReferenceTool> tools;
    for (const ReferenceTool& t : referenceTools(c)) {
        if (t.path.empty())
            std::printf("(%s not installed or disabled)\n", t.name.c_str());
        else
            tools.push_back(t);
    }
    std::vector<Row> rows;
    std::vector<Row> toolRows(tools.size());
    for (size_t i = 0; i < tools.size(); ++i) toolRows[i].name = tools[i].name + ", file to file";
    int rc = 0;
    auto rowFor = [&](const std::string& name) -> Row& {
        for (Row& r : rows)
            if (r.name == name) return r;
        rows.push_back({name, {}, false});
        return rows.back();
    };
    for (int side : c.sizes) {
        const Plane8 src = syntheticPlane(side, side);
        const double n = double(side) * side;
        for (const MethodInfo* m : methods) {
            ParamValues params;
            if (Status s = paramsFor(c, *m, params); !s) {
                if (side == c.sizes.front()) std::printf("(%s skipped: %s)\n", m->id().c_str(), s.message().c_str());
                continue;
            }
            for (Device d : devicesFor(c, *m, DeviceChoice::Cpu)) {
                const Timed t = timeMethod(*m, d, src, params, c.runs, true, c.threads);
                Row& row = rowFor(rowName(*m, d));
                row.baseline = m->id() == c.baseline && d == Device::Cpu;
                row.seconds[side] = t.seconds;
                if (t.seconds < 0) {
                    std::printf("%6d x %-6d  %-40s failed: %s\n", side, side, row.name.c_str(), t.error.c_str());
                    rc = 1;
                    continue;
                }
                const std::string exact = exactness(*m, src, params, t.out);
                if (exact == "NO") rc = 1;
                std::printf("%6d x %-6d  %-40s %10.2f ms  %8.3f ns/px  exact %s\n", side, side, row.name.c_str(),
                            t.seconds * 1e3, t.seconds / n * 1e9, exact.c_str());
                std::fflush(stdout);
            }
        }
        const std::string in = c.workDir + "/halftone-bench-in.pgm", out = c.workDir + "/halftone-bench-out.pbm";
        bool written = false;
        for (size_t i = 0; i < tools.size(); ++i) {
            if (!written && !(written = writePgmRaw(in, src))) {
                std::fprintf(stderr, "halftone-bench: cannot write %s\n", in.c_str());
                return 1;
            }
            const double t = timeTool(tools[i], in, out, c.runs >= 3 ? 3 : c.runs);
            toolRows[i].seconds[side] = t;
            std::printf("%6d x %-6d  %-40s %10s ms  %8s ns/px\n", side, side, tools[i].name.c_str(),
                        t > 0 ? fmt(t * 1e3).c_str() : "failed", t > 0 ? fmt(t / n * 1e9, 3).c_str() : "-");
        }
        std::remove(in.c_str());
        std::remove(out.c_str());
    }
    if (c.sizes.empty() || rows.empty()) return rc;

    // ns per pixel per size; ratios at the largest size, all from this run
    const int big = c.sizes.back();
    double base = -1;
    for (const Row& r : rows)
        if (r.baseline && r.seconds.count(big)) base = r.seconds.at(big);
    std::printf("\nns per pixel (lower is better); ratios at %d x %d, from this run (tools: file to file)\n| method |",
                big, big);
    for (int s : c.sizes) std::printf(" %d |", s);
    std::printf(" vs %s |", c.baseline.c_str());
    for (const ReferenceTool& t : tools) std::printf(" vs %s |", t.name.c_str());
    std::printf("\n| --- |");
    for (size_t i = 0; i < c.sizes.size() + 1 + tools.size(); ++i) std::printf(" ---: |");
    std::printf("\n");
    std::vector<Row> all = rows;
    all.insert(all.end(), toolRows.begin(), toolRows.end());
    for (const Row& r : all) {
        std::printf("| %s |", r.name.c_str());
        for (int s : c.sizes) {
            const auto it = r.seconds.find(s);
            std::printf(" %s |", it != r.seconds.end() && it->second > 0
                                     ? fmt(it->second / (double(s) * s) * 1e9).c_str()
                                     : "-");
        }
        const double t = r.seconds.count(big) ? r.seconds.at(big) : -1;
        std::printf(" %s |", ratioText(base, t).c_str());
        for (const Row& tr : toolRows)
            std::printf(" %s |", ratioText(tr.seconds.count(big) ? tr.seconds.at(big) : -1, t).c_str());
        std::printf("\n");
    }
    return rc;
}

}  // namespace halftone::bench
