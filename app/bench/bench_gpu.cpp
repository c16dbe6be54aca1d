// GPU section of halftone-bench: Table V (2)-(5) of Kasagi, Nakano and Ito on this GPU for 1K..16K, the wavefront
// kernel against the published GPU methods (Kasagi, Nakano and Ito; Deshpande, Misra and Narayanan):
// device-resident time (CUDA events, median of warm runs), H2D/D2H transfer times and end to end (host 8-bit in ->
// host out, pinned), each result checked bit for bit.
#include "app/bench/bench_gpu.h"

#include <iostream>

#include "app/bench/bench.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <ctime>
#include <fstream>
#include <map>
#include <random>
#include <sstream>

#include "core/ed/errordiffusion.h"
#include "core/palette/paletteed.h"
#include "gpu/gpu.h"

namespace halftone::bench {

namespace {

/// Benchmark input: smooth gradients plus noise (reproducible), so both levels occur everywhere.
Plane8 benchImage(int n) {
    Plane8 noise(n, n);
    std::mt19937 rng(12345u + unsigned(n));
    for (int y = 0; y < n; ++y)
        for (int x = 0; x < n; ++x) noise.at(y, x) = uint8_t(rng() % 64);
    return noisyGradient(noise);
}

/// Colour benchmark input: three differently seeded gradient + noise planes.
Image benchRgb(int n) {
    Image im;
    im.space = ColorSpace::RGB;
    for (int c = 0; c < 3; ++c) {
        Plane8 noise(n, n);
        std::mt19937 rng(777u * unsigned(c + 1) + unsigned(n));
        for (int y = 0; y < n; ++y)
            for (int x = 0; x < n; ++x) noise.at(y, x) = uint8_t(rng() % 64);
        Plane8 p = noisyGradient(noise);
        if (c == 1) std::reverse(p.data.begin(), p.data.end());  // the channels do not move together
        if (c == 2)
            for (int y = 0; y < n; ++y)
                std::reverse(p.data.begin() + ptrdiff_t(y) * n, p.data.begin() + ptrdiff_t(y + 1) * n);
        im.channels.push_back(std::move(p));
    }
    return im;
}

/// A reproducible palette of `colors` colours.
Palette benchPalette(int colors) {
    Palette p;
    p.name = "bench:" + std::to_string(colors);
    std::mt19937 rng(4242u + unsigned(colors));
    for (int i = 0; i < colors; ++i) p.colors.push_back({uint8_t(rng()), uint8_t(rng()), uint8_t(rng())});
    return p;
}

int runsFor(const gpu::MethodSpec& m, int n, int forced) {
    if (forced > 0) return forced;
    const bool perStep = m.schedule == "k-delay" || m.schedule == "knight";  // one launch per step: slow
    if (perStep) return n >= 8192 ? 2 : 5;
    if (m.schedule == "gpu-wavefront") return n >= 8192 ? 21 : 51;
    return n >= 8192 ? 5 : 11;
}

std::string fmtMs(double v) {
    char b[32];
    std::snprintf(b, sizeof b, v >= 100 ? "%.1f" : (v >= 1 ? "%.3f" : "%.4f"), v);
    return b;
}

struct Row {
    int n;
    std::string name;
    gpu::Timing t;
    bool exact = false;
    bool ok = false;
    std::string error;
};

}  // namespace

int runGpuBench(const GpuBenchOptions& o, std::ostream& out) {
    const GpuAvailability avail = gpu::probe();
    if (!avail.usable) {
        out << "GPU section skipped: no usable GPU: " << avail.reason << "\n";
        return 77;
    }
    if (o.diagnose) {
        // The wavefront kernel on W = 16384 and growing heights: the slope over strips is the hand-off cost per
        // strip, a single strip gives the per-step time (C + K (rows - 1) steps).
        const EdParams fs;
        for (const std::string& form : gpu::wavefrontForms())
            for (int h : o.diagnoseHeights) {
                if (!o.formFilter.empty() &&
                    std::find(o.formFilter.begin(), o.formFilter.end(), form) == o.formFilter.end())
                    continue;
                const Plane8 src = benchImage(16384);
                Plane8 part(16384, h);
                std::copy(src.data.begin(), src.data.begin() + ptrdiff_t(part.size()), part.data.begin());
                gpu::Timing t;
                Plane8 res;
                const Status s = gpu::timePlane("wavefront", part, fs, 5, t, &res, form);
                out << "diag " << form << " 16384x" << h << ": " << (s ? fmtMs(t.deviceMs) + " ms" : s.message())
                    << (s ? (res == referenceErrorDiffusion(part, fs) ? " exact" : " NOT EXACT") : "") << "\n"
                    << std::flush;
            }
        return 0;
    }
    const std::time_t now = std::time(nullptr);
    char date[64];
    std::strftime(date, sizeof date, "%Y-%m-%d %H:%M UTC", std::gmtime(&now));
    std::ostringstream md;
    md << "GPU: " << avail.deviceName << ", " << date << "\n\n";
    md << "| size | method | device ms | H2D ms | D2H ms | end-to-end ms | overlapped e2e ms | runs | exact | vs "
          "bwec-rc |\n";
    md << "| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | --- | ---: |\n";
    out << md.str();
    std::vector<Row> rows;
    int rc = 0;
    const EdParams fs;
    for (int n : o.sizes) {
        const Plane8 src = benchImage(n);
        struct Job {
            std::string variant, form;               // wavefront form: "" = the default for the kernel
            std::string kernel = "floyd-steinberg";  // binary, gamma
        };
        std::vector<Job> todo;
        auto wanted = [&](const std::string& v) {
            return o.methods.empty() || std::find(o.methods.begin(), o.methods.end(), v) != o.methods.end();
        };
        for (const gpu::MethodSpec& m : gpu::methods())
            if (wanted(m.variant)) todo.push_back({m.variant, "", fs.kernel});
        if (o.forms && wanted("wavefront"))
            for (const std::string& f : gpu::wavefrontForms())
                if (o.formFilter.empty() ||
                    std::find(o.formFilter.begin(), o.formFilter.end(), f) != o.formFilter.end())
                    todo.push_back({"wavefront", f, fs.kernel});
        if (wanted("wavefront"))
            for (const std::string& k : o.kernels) todo.push_back({"wavefront", "", k});
        Plane8 ref;
        double cpuMs = 0;
        if (o.verify && !todo.empty()) {
            const auto t0 = std::chrono::steady_clock::now();
            ref = referenceErrorDiffusion(src, fs);
            cpuMs = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
        }
        double bwecMs = 0;
        std::vector<Row> sizeRows;
        for (const Job& job : todo) {
            const std::string& variant = job.variant;
            const std::string& form = job.form;
            const gpu::MethodSpec* spec = nullptr;
            for (const gpu::MethodSpec& m : gpu::methods())
                if (m.variant == variant) spec = &m;
            Row r;
            r.n = n;
            r.name = form.empty() ? variant : variant + "[" + form + "]";
            EdParams params = fs;
            params.kernel = job.kernel;
            if (job.kernel != fs.kernel) r.name += " " + job.kernel;
            Plane8 result;
            const Status s = gpu::timePlane(variant, src, params, runsFor(*spec, n, o.runs), r.t,
                                            o.verify ? &result : nullptr, form);
            r.ok = s.isOk();
            if (!r.ok) {
                r.error = s.message();
                rc = 1;
            } else {
                r.exact = !o.verify || result == (job.kernel == fs.kernel ? ref : referenceErrorDiffusion(src, params));
                if (!r.exact) rc = 1;
            }
            if (variant == "bwec-rc" && r.ok) bwecMs = r.t.deviceMs;
            sizeRows.push_back(r);
        }
        for (Row& r : sizeRows) {
            std::ostringstream line;
            line << "| " << n << " | " << r.name << " | ";
            if (!r.ok) {
                line << "error: " << r.error << " | | | | | | | |\n";
            } else {
                line << fmtMs(r.t.deviceMs) << (r.t.cpuAssisted ? " (CPU+GPU)" : "") << " | " << fmtMs(r.t.h2dMs)
                     << " | " << fmtMs(r.t.d2hMs) << " | " << fmtMs(r.t.endToEndMs) << " | "
                     << (r.t.overlappedMs > 0 ? fmtMs(r.t.overlappedMs) : std::string("-")) << " | " << r.t.runs
                     << " | " << (o.verify ? (r.exact ? "yes" : "NO") : "not checked") << " | "
                     << (bwecMs > 0 && r.t.deviceMs > 0 ? fmtMs(bwecMs / r.t.deviceMs) + "x" : "") << " |\n";
            }
            md << line.str();
            out << line.str() << std::flush;
            rows.push_back(r);
        }
        if (o.verify && !todo.empty()) {
            std::ostringstream line;
            line << "| " << n << " | CPU reference (sequential reference, 1 thread) | " << fmtMs(cpuMs)
                 << " | | | | | 1 | | |\n";
            md << line.str();
            out << line.str();
        }  // error diffusion to a palette: the palette wavefront against the sequential reference of section 4
        if (o.methods.empty() || wanted("palette")) {
            const Image rgb = o.paletteColors.empty() ? Image() : benchRgb(n);
            for (int colors : o.paletteColors) {
                const Palette pal = benchPalette(colors);
                Row r;
                r.n = n;
                r.name = "palette wavefront, " + std::to_string(colors) + " colours";
                Plane8 result, pref;
                double pcpuMs = 0;
                if (o.verify) {
                    const auto t0 = std::chrono::steady_clock::now();
                    pref = referencePaletteErrorDiffusion(rgb, pal, fs);
                    pcpuMs = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
                }
                const int runs = o.runs > 0 ? o.runs : (n >= 8192 ? 5 : 11);
                const Status s = gpu::timePalette(rgb, pal, fs, runs, r.t, o.verify ? &result : nullptr);
                r.ok = s.isOk();
                if (!r.ok) {
                    r.error = s.message();
                    rc = 1;
                } else {
                    r.exact = !o.verify || result == pref;
                    if (!r.exact) rc = 1;
                }
                std::ostringstream line;
                line << "| " << n << " | " << r.name << " | ";
                if (!r.ok)
                    line << "error: " << r.error << " | | | | | | | |\n";
                else
                    line << fmtMs(r.t.deviceMs) << " | " << fmtMs(r.t.h2dMs) << " | " << fmtMs(r.t.d2hMs) << " | "
                         << fmtMs(r.t.endToEndMs) << " | - | " << r.t.runs << " | "
                         << (o.verify ? (r.exact ? "yes" : "NO") : "not checked") << " | |\n";
                if (o.verify)
                    line << "| " << n << " | CPU reference to " << colors
                         << " colours (sequential reference, 1 thread) | " << fmtMs(pcpuMs) << " | | | | | 1 | | |\n";
                md << line.str();
                out << line.str() << std::flush;
                rows.push_back(r);
            }
        }
    }
    if (!o.markdownPath.empty()) {
        std::ofstream f(o.markdownPath);
        f << md.str();
    }
    // short summary last: the largest size, the wavefront kernel against the best published methods
    const int big = o.sizes.empty() ? 0 : o.sizes.back();
    out << "\nSummary (" << big << " x " << big << ", binary, Floyd-Steinberg unless named, " << avail.deviceName
        << "):\n";
    for (const Row& r : rows)
        if (r.n == big && (r.name.rfind("wavefront", 0) == 0 || r.name.rfind("palette", 0) == 0 ||
                           r.name == "bwec-rc" || r.name == "bwed-rc" || r.name == "knight"))
            out << "  " << r.name << ": device " << (r.ok ? fmtMs(r.t.deviceMs) : "error") << " ms, end-to-end "
                << (r.ok ? fmtMs(r.t.endToEndMs) : "-") << " ms"
                << (r.t.overlappedMs > 0 ? ", overlapped " + fmtMs(r.t.overlappedMs) + " ms" : std::string())
                << (r.t.packedEndToEndMs > 0 ? ", 1-bit packed end-to-end " + fmtMs(r.t.packedEndToEndMs) +
                                                   " ms (D2H " + fmtMs(r.t.packedD2hMs) + " ms)"
                                             : std::string())
                << ", exact " << (r.exact ? "yes" : "NO") << "\n";
    // the other kernels on the wavefront against Floyd-Steinberg's default form and general form, same run
    auto deviceMsOf = [&](const std::string& name) {
        for (const Row& r : rows)
            if (r.n == big && r.name == name && r.ok) return r.t.deviceMs;
        return 0.0;
    };
    const double fsDefault = deviceMsOf("wavefront"), fsGeneral = deviceMsOf("wavefront[general]");
    for (const std::string& k : o.kernels)
        if (const double ms = deviceMsOf("wavefront " + k); ms > 0 && fsDefault > 0) {
            char b[160];
            std::snprintf(b, sizeof b, "  %s / Floyd-Steinberg on the device: %.2fx its default form", k.c_str(),
                          ms / fsDefault);
            out << b;
            if (fsGeneral > 0) {
                std::snprintf(b, sizeof b, ", %.2fx its general form", ms / fsGeneral);
                out << b;
            }
            out << "\n";
        }
    return rc;
}

}  // namespace halftone::bench
