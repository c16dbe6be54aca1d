// Section "parallel" (issue 3): on one image, in one run: sequential EC+RC, seed 002's trapezoid
// blocks, our wavefront bands (every SIMD path this CPU has), and `pamditherbw -fs`; then the file
// in / file out measurement as a user runs it (PGM in, PBM out through the project's io library);
// then 16K / 32K runs with peak memory. Ratios are from the same run.
#include <cstdio>
#include <thread>

#include "app/bench/bench.h"
#include "core/errordiffusion.h"
#include "core/parallel.h"
#include "core/threads.h"
#include "io/imagefile.h"

namespace halftone::bench {

namespace {

struct Result {
    std::string name;
    double seconds;  // median
    bool identical;  // same bits as sequential EC+RC
};

}  // namespace

int benchParallel(const BenchContext& c) {
    const int side = c.parallelSize;
    const int threads = threadsOrAll(c.threads);
    EdParams p;
    p.kernel = c.kernel;
    std::printf("\n== parallel: %d x %d, kernel %s, binary, %d thread(s), median of %d runs ==\n", side, side,
                p.kernel.c_str(), threads, c.runs);
    const Plane8 src = syntheticPlane(side, side);
    Plane8 ref;
    if (Status s = errorDiffuse(src, ref, p, EdVariant::CollectionRegisters); !s) {
        std::fprintf(stderr, "halftone-bench: %s\n", s.message().c_str());
        return 1;
    }
    std::vector<Result> mem;
    Plane8 out;
    mem.push_back({"sequential EC+RC", medianSeconds(c.runs, [&] { errorDiffuse(src, out, p, EdVariant::CollectionRegisters); }), true});
    ParallelOptions po;
    po.threads = threads;
    {
        const double t = medianSeconds(c.runs, [&] { trapezoidErrorDiffusion(src, out, p, po); });
        mem.push_back({"seed 002 trapezoid blocks", t, out.data == ref.data});
    }
    for (SimdPath path : supportedSimdPaths()) {
        ParallelOptions o = po;
        o.simd = path;
        const double t = medianSeconds(c.runs, [&] { wavefrontErrorDiffusion(src, out, p, o); });
        mem.push_back({std::string("wavefront ") + toString(path), t, out.data == ref.data});
    }
    {
        ParallelOptions o = po;
        o.threads = 1;
        const double t = medianSeconds(c.runs, [&] { wavefrontErrorDiffusion(src, out, p, o); });
        mem.push_back({"wavefront auto, 1 thread", t, out.data == ref.data});
    }
    const double n = double(side) * side;
    for (const Result& r : mem)
        std::printf("  in memory  %-28s %9.2f ms  %6.3f ns/px  identical=%s\n", r.name.c_str(), r.seconds * 1e3,
                    r.seconds / n * 1e9, r.identical ? "yes" : "NO");

    // File in, file out, as a user runs it.
    const std::string in = c.workDir + "/halftone-bench-" + std::to_string(side) + ".pgm";
    const std::string outOurs = c.workDir + "/halftone-bench-ours.pbm";
    const std::string outPam = c.workDir + "/halftone-bench-pam.pbm";
    if (!writePgmRaw(in, src)) {
        std::fprintf(stderr, "halftone-bench: cannot write %s\n", in.c_str());
        return 1;
    }
    auto fileRun = [&](bool parallel, double* readS, double* ditherS, double* writeS) {
        const auto t0 = std::chrono::steady_clock::now();
        Image img;
        Status s = io::readImage(in, img);
        const auto t1 = std::chrono::steady_clock::now();
        Plane8 dst;
        if (s) s = parallel ? wavefrontErrorDiffusion(img.channels.front(), dst, p, po)
                            : errorDiffuse(img.channels.front(), dst, p, EdVariant::CollectionRegisters);
        const auto t2 = std::chrono::steady_clock::now();
        if (s) {
            io::WriteOptions wo;
            wo.levels = 2;
            s = io::writeImage(outOurs, Image::gray(std::move(dst)), wo);
        }
        const auto t3 = std::chrono::steady_clock::now();
        if (!s) std::fprintf(stderr, "halftone-bench: %s\n", s.message().c_str());
        if (readS) *readS = std::chrono::duration<double>(t1 - t0).count();
        if (ditherS) *ditherS = std::chrono::duration<double>(t2 - t1).count();
        if (writeS) *writeS = std::chrono::duration<double>(t3 - t2).count();
    };
    std::vector<double> rd, di, wr;
    const double fileOurs = medianSeconds(c.runs, [&] {
        double a, b, w;
        fileRun(true, &a, &b, &w);
        rd.push_back(a);
        di.push_back(b);
        wr.push_back(w);
    });
    const double fileSeq = medianSeconds(c.runs, [&] { fileRun(false, nullptr, nullptr, nullptr); });
    auto med = [](std::vector<double> v) {
        std::sort(v.begin(), v.end());
        return v.empty() ? 0.0 : v[v.size() / 2];
    };
    std::printf("  file in/out wavefront (PGM -> PBM via io)  %9.2f ms  (read %.2f, dither %.2f, write %.2f ms)\n",
                fileOurs * 1e3, med(rd) * 1e3, med(di) * 1e3, med(wr) * 1e3);
    std::printf("  file in/out sequential EC+RC               %9.2f ms\n", fileSeq * 1e3);
    // the PBM we wrote must hold the reference bits
    {
        Image back;
        if (io::readImage(outOurs, back)) {
            bool same = back.channels.front().data.size() == ref.data.size();
            for (size_t i = 0; same && i < ref.data.size(); ++i) same = (back.channels.front().data[i] != 0) == (ref.data[i] != 0);
            std::printf("  PBM written by the file run equals the reference: %s\n", same ? "yes" : "NO");
        }
    }
    double pam = -1;
    const std::string tool = c.usePamditherbw ? findPamditherbw() : std::string();
    if (!tool.empty()) {
        pam = timePamditherbw(tool, in, outPam, c.runs >= 3 ? 3 : c.runs);
        std::printf("  file in/out pamditherbw -fs                %9.2f ms\n", pam * 1e3);
    } else {
        std::printf("  pamditherbw not found or disabled\n");
    }
    std::remove(in.c_str());
    std::remove(outOurs.c_str());
    std::remove(outPam.c_str());

    // Big images: memory stays near input + output.
    struct Big {
        int side;
        double seq, trap, wave, rssMiB;
        bool identical;
    };
    std::vector<Big> bigs;
    for (int b : c.bigSizes) {
        Plane8 big = syntheticPlane(b, b);
        Plane8 o1, o2;
        const int r = c.runs >= 3 ? 3 : c.runs;
        Big row{b, 0, 0, 0, 0, false};
        row.wave = medianSeconds(r, [&] { wavefrontErrorDiffusion(big, o1, p, po); }, false);
        const double rssWave = peakRssMiB();
        row.seq = medianSeconds(1, [&] { errorDiffuse(big, o2, p, EdVariant::CollectionRegisters); }, false);
        row.identical = o1.data == o2.data;
        o2 = Plane8();
        row.trap = medianSeconds(1, [&] { trapezoidErrorDiffusion(big, o2, p, po); }, false);
        row.rssMiB = rssWave;
        std::printf("  %5d x %-5d  wavefront %9.2f ms  sequential EC+RC %9.2f ms  trapezoid %9.2f ms  identical=%s  "
                    "peak RSS after wavefront %.0f MiB (input + output = %.0f MiB)\n",
                    b, b, row.wave * 1e3, row.seq * 1e3, row.trap * 1e3, row.identical ? "yes" : "NO", rssWave,
                    2.0 * b * double(b) / (1 << 20));
        bigs.push_back(row);
    }

    std::printf("\nExact %s, %d x %d, %d thread(s): medians from this run\n", p.kernel.c_str(), side, side, threads);
    std::printf("| method | ms | ns/pixel | vs sequential EC+RC | vs pamditherbw -fs |\n| --- | --- | --- | --- | --- |\n");
    const double seq = mem.front().seconds;
    auto line = [&](const std::string& name, double t, double base) {
        std::printf("| %s | %s | %s | %sx | %s |\n", name.c_str(), fmt(t * 1e3).c_str(), fmt(t / n * 1e9, 3).c_str(),
                    fmt(base / t).c_str(), pam > 0 ? (fmt(pam / t, 1) + "x").c_str() : "-");
    };
    for (const Result& r : mem) line("in memory: " + r.name, r.seconds, seq);
    line("file in/out: sequential EC+RC", fileSeq, fileSeq);
    line("file in/out: wavefront", fileOurs, fileSeq);
    if (pam > 0) line("file in/out: pamditherbw -fs", pam, fileSeq);
    for (const Big& b : bigs)
        std::printf("| %d x %d wavefront / EC+RC / trapezoid | %s / %s / %s | %s | %sx | peak RSS %.0f MiB |\n", b.side,
                    b.side, fmt(b.wave * 1e3).c_str(), fmt(b.seq * 1e3).c_str(), fmt(b.trap * 1e3).c_str(),
                    fmt(b.wave / (double(b.side) * b.side) * 1e9, 3).c_str(), fmt(b.seq / b.wave).c_str(), b.rssMiB);
    return 0;
}

}  // namespace halftone::bench
