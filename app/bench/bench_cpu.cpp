// Section "table5": seed 000, Table V (1) on this CPU: the four sequential variants (ED, EC, ED with
// register caching, EC with register caching) per image size, median of runs, ns per pixel, with
// `pamditherbw -fs` on the same image in the same run when netpbm is installed.
#include <cstdio>

#include "app/bench/bench.h"
#include "core/errordiffusion.h"

namespace halftone::bench {

int benchTable5(const BenchContext& c) {
    const std::string pam = c.usePamditherbw ? findPamditherbw() : std::string();
    std::printf("\n== table5: seed 000 Table V (1), sequential CPU, Floyd-Steinberg, binary; median of %d runs ==\n", c.runs);
    if (pam.empty()) std::printf("(pamditherbw not found or disabled: netpbm column skipped)\n");
    struct Row {
        int side;
        double t[4];
        double pam;
    };
    std::vector<Row> rows;
    const EdVariant variants[4] = {EdVariant::Diffusion, EdVariant::Collection, EdVariant::DiffusionRegisters,
                                   EdVariant::CollectionRegisters};
    for (int side : c.sizes) {
        const Plane8 src = syntheticPlane(side, side);
        Row r{side, {}, -1};
        Plane8 ref, out;
        EdParams p;
        for (int v = 0; v < 4; ++v) {
            r.t[v] = medianSeconds(c.runs, [&] { errorDiffuse(src, out, p, variants[v]); });
            if (v == 0) ref = out;
            else if (out.data != ref.data) std::printf("WARNING: variant %d differs from ED at %d\n", v, side);
        }
        if (!pam.empty()) {
            const std::string in = c.workDir + "/halftone-bench-in.pgm", o = c.workDir + "/halftone-bench-out.pbm";
            if (writePgmRaw(in, src)) r.pam = timePamditherbw(pam, in, o, c.runs >= 3 ? 3 : c.runs);
            std::remove(in.c_str());
            std::remove(o.c_str());
        }
        const double n = double(side) * side;
        std::printf("%6d x %-6d  ED %8.2f ms  EC %8.2f ms  ED+RC %8.2f ms  EC+RC %8.2f ms  pamditherbw %s\n", side,
                    side, r.t[0] * 1e3, r.t[1] * 1e3, r.t[2] * 1e3, r.t[3] * 1e3,
                    r.pam > 0 ? (fmt(r.pam * 1e3) + " ms").c_str() : "-");
        (void)n;
        rows.push_back(r);
    }
    std::printf("\nTable V (1) on this CPU, ns per pixel (lower is better)\n");
    std::printf("| size | ED | EC | ED+RC | EC+RC | pamditherbw -fs |\n| --- | --- | --- | --- | --- | --- |\n");
    for (const Row& r : rows) {
        const double n = double(r.side) * r.side;
        std::printf("| %d x %d | %s | %s | %s | %s | %s |\n", r.side, r.side, fmt(r.t[0] / n * 1e9).c_str(),
                    fmt(r.t[1] / n * 1e9).c_str(), fmt(r.t[2] / n * 1e9).c_str(), fmt(r.t[3] / n * 1e9).c_str(),
                    r.pam > 0 ? fmt(r.pam / n * 1e9).c_str() : "-");
    }
    return 0;
}

}  // namespace halftone::bench
