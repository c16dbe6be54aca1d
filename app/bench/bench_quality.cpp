// Section "quality": every registered CPU method on the shipped images, a ramp and constant patches, with the
// quality measures of docs/spec.md section 3 and the one-thread time, printed as Markdown (scripts/quality-table.sh
// turns it into docs/quality.md). The settings come from the registry: each method runs once per value of each of its
// Choice parameters (the error-diffusion kernels, dot shapes, ...), per scan order where it has "serpentine", and per
// preset of its "screen", so a method or kernel registered later gets its rows with no change here. Entries whose
// halftones are identical on every input (the exact error-diffusion variants) share one row; the row's time is the
// fastest of them on one thread, and a second table times each of them.
#include <time.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <set>
#include <string>
#include <vector>

#include "app/bench/bench.h"
#include "core/dbs/dbs.h"
#include "core/quality/metrics.h"
#include "io/imagefile.h"

namespace halftone::bench {

namespace {

/// Choice parameters that are not varied: they pick an implementation (same bits) or a variant's own set-up, which
/// the registry's variants already cover (DBS's eye model and start).
const std::set<std::string> kNotVaried = {"simd", "hvs", "start"};

/// The ramp: 16 columns per level, 512 rows (docs/spec.md section 3).
constexpr int kRampColumns = 16, kRampRows = 512;
/// The constant patches: levels about 1/16, 1/8, 1/4 and 1/2 of white, 4 x 4 tiles of 128 x 128 inside a 32-pixel
/// border (the start-up rows and edges of error diffusion are not part of the texture).
constexpr int kPatchLevels[] = {16, 32, 64, 128};
constexpr int kTile = 128, kTilesPerSide = 4, kMargin = 32;

struct Input {
    std::string name;
    Plane8 plane;
};

/// One setting of a method: the varied parameters' values and how a person reads them.
struct Setting {
    std::map<std::string, std::string> values;
    std::string label;
};

/// Every combination of the varied parameters of `m` (those not fixed by --param), in registry order; a parameter
/// that does not apply to a combination (its visibleWhen fails, e.g. DBS's clip-free screen without clip-free) is
/// not varied there.
std::vector<Setting> settingsOf(const BenchContext& c, const MethodInfo& m) {
    std::vector<Setting> out(1);
    for (const ParamSpec& p : m.params) {
        if (c.params.count(p.key)) continue;
        std::vector<std::pair<std::string, std::string>> values;  // (value, label)
        if (p.kind == ParamSpec::Kind::Choice && !kNotVaried.count(p.key)) {
            for (const std::string& v : p.choices) values.emplace_back(v, p.choiceLabel(v));
        } else if (p.kind == ParamSpec::Kind::Bool && p.key == "serpentine") {
            values = {{"false", "raster"}, {"true", "serpentine"}};
        } else if (p.kind == ParamSpec::Kind::Text && p.key == "screen" && !p.presets.empty()) {
            values = p.presets;
        }
        if (values.empty()) continue;
        std::vector<Setting> next;
        for (const Setting& s : out) {
            std::map<std::string, std::string> given = c.params;
            for (const auto& [k, v] : s.values) given[k] = v;
            ParamValues v;
            for (const auto& [k, text] : given)
                if (const ParamSpec* spec = m.param(k))
                    if (ParamValue pv; spec->parse(text, pv)) v.set(k, pv);
            if (!m.paramApplies(p, v)) {
                next.push_back(s);
                continue;
            }
            for (const auto& [value, label] : values) {
                Setting t = s;
                t.values[p.key] = value;
                t.label += (t.label.empty() ? "" : ", ") + label;
                next.push_back(std::move(t));
            }
        }
        out = std::move(next);
    }
    return out;
}

/// The results of one (method, setting) on every input.
struct Run {
    const MethodInfo* method = nullptr;
    Setting setting;
    std::string error;
    uint64_t hash = 0;               ///< of every output: equal hashes are the same halftones
    std::vector<double> hvs, psnr;   ///< per image
    std::vector<double> ssim;        ///< per image
    std::vector<double> seconds;     ///< per image, median of the timed runs on one thread
    ToneCurve tone;                  ///< on the ramp
    std::vector<double> anisotropy;  ///< per patch level, mean over rings (dB)
    std::vector<bool> flat;          ///< per patch level: the halftone is one value (no texture to measure)
    double totalSeconds = 0;
};

double mean(const std::vector<double>& v) {
    double s = 0;
    int n = 0;
    for (double x : v)
        if (std::isfinite(x)) {
            s += x;
            ++n;
        }
    return n ? s / n : std::numeric_limits<double>::quiet_NaN();
}

/// CPU time of the whole process (all its threads): on a shared machine it counts the method's own work, where wall
/// time would also count the time other programs held the cores.
double processCpuSeconds() {
    timespec ts{};
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return double(ts.tv_sec) + 1e-9 * double(ts.tv_nsec);
}

/// Runs the method once untimed (its result is `out`), then `runs` times; the median process CPU time in seconds, or
/// a negative value with `error` set when it failed.
double cpuTimed(const MethodInfo& m, const Plane8& src, const ParamValues& params, int runs, Plane8& out,
                std::string& error) {
    RunControl rc;
    rc.threads = 1;
    if (Status s = m.cpu(src, out, params, rc); !s) {
        error = s.message();
        return -1;
    }
    std::vector<double> t;
    Plane8 again;
    for (int i = 0; i < runs; ++i) {
        const double t0 = processCpuSeconds();
        if (Status s = m.cpu(src, again, params, rc); !s) {
            error = s.message();
            return -1;
        }
        t.push_back(processCpuSeconds() - t0);
    }
    std::sort(t.begin(), t.end());
    return t.empty() ? 0.0 : t[t.size() / 2];
}

std::string num(double v, int digits) { return std::isfinite(v) ? fmt(v, digits) : std::string("-"); }

/// The row of one group of identical halftones: its members and the measures (the members' are the same).
struct Row {
    std::vector<const Run*> members;
    const Run* fastest = nullptr;
    std::string label;
    double hvs = 0, psnr = 0, toneMean = 0, toneMax = 0, aniso = 0, nsPerPixel = 0;
};

std::string groupLabel(const std::vector<const Run*>& members) {
    if (members.size() == 1) return members.front()->method->id();
    std::vector<std::string> methods;
    for (const Run* r : members)
        if (std::find(methods.begin(), methods.end(), r->method->method) == methods.end())
            methods.push_back(r->method->method);
    std::string s;
    for (const std::string& m : methods) s += (s.empty() ? "" : ", ") + m;
    const bool exact = std::all_of(members.begin(), members.end(), [](const Run* r) { return r->method->exact; });
    return s + " (" + std::to_string(members.size()) + (exact ? " exact variants)" : " variants, one image)");
}

}  // namespace

int benchQuality(const BenchContext& c) {
    // Inputs: the images (as gray), the ramp, the patches.
    std::vector<Input> images;
    std::vector<std::string> files = c.qualityImages;
    if (files.empty())
        for (const char* f : {"moon.png", "chelsea.png", "page.png"})
            files.push_back(std::string(HALFTONE_SOURCE_DIR) + "/tests/data/" + f);
    for (const std::string& f : files) {
        Image img;
        if (Status s = io::readImage(f, img); !s) {
            std::fprintf(stderr, "halftone-bench: quality: %s: %s\n", f.c_str(), s.message().c_str());
            return 1;
        }
        const Image gray = convertColor(img, ColorMode::Gray);
        const size_t slash = f.find_last_of('/');
        images.push_back({slash == std::string::npos ? f : f.substr(slash + 1), gray.channels.front()});
    }
    const Plane8 ramp = grayStaircase(kRampColumns, kRampRows);
    const int patchSide = kTile * kTilesPerSide + 2 * kMargin;
    std::vector<Plane8> patches;
    for (int g : kPatchLevels) patches.emplace_back(patchSide, patchSide, uint8_t(g));
    int64_t imagePixels = 0;
    for (const Input& in : images) imagePixels += int64_t(in.plane.size());

    const std::vector<const MethodInfo*> methods =
        methodsFor(c, DeviceChoice::Cpu, [](const MethodInfo& m) { return !m.fixedPalette && m.cpu != nullptr; });
    std::vector<Run> runs;
    for (const MethodInfo* m : methods) {
        if (!m->cpu || m->fixedPalette) {
            std::printf("(%s skipped: it has no one-plane CPU form)\n", m->id().c_str());
            continue;
        }
        for (const Setting& s : settingsOf(c, *m)) {
            Run r;
            r.method = m;
            r.setting = s;
            std::map<std::string, std::string> extra = s.values;
            extra["threads"] = "1";
            ParamValues params;
            if (Status st = paramsFor(c, *m, params, extra); !st) {
                r.error = st.message();
                runs.push_back(std::move(r));
                continue;
            }
            std::fprintf(stderr, "quality: %s %s\n", m->id().c_str(), s.label.c_str());
            uint64_t h = 1469598103934665603ull;
            auto fold = [&](const Plane8& p) { h = (h ^ planeHash(p)) * 1099511628211ull; };
            auto once = [&](const Plane8& src, Plane8& out) {
                const Timed t = timeMethod(*m, Device::Cpu, src, params, 1, false, 1);
                if (t.seconds < 0 && r.error.empty()) r.error = t.error;
                out = t.out;
                return t.seconds >= 0;
            };
            for (const Input& in : images) {
                Plane8 out;
                const double seconds = cpuTimed(*m, in.plane, params, c.runs, out, r.error);
                if (seconds < 0) break;
                fold(out);
                r.seconds.push_back(seconds);
                r.totalSeconds += seconds;
                r.hvs.push_back(hvsWeightedError(in.plane, out));
                r.psnr.push_back(filteredPsnr(in.plane, out));
                r.ssim.push_back(ssim(in.plane, out));
            }
            Plane8 out;
            if (r.error.empty() && once(ramp, out)) {
                fold(out);
                r.tone = toneCurve(ramp, out);
            }
            for (const Plane8& patch : patches) {
                if (!r.error.empty() || !once(patch, out)) break;
                fold(out);
                RadialSpectrum spectrum;
                const bool measured = radialSpectrum(tilesOf(out, kTile, kMargin), spectrum).isOk();
                r.anisotropy.push_back(measured ? meanAnisotropy(spectrum) : std::numeric_limits<double>::quiet_NaN());
                r.flat.push_back(measured && spectrum.variance == 0);  // every tile one value
            }
            r.hash = h;
            runs.push_back(std::move(r));
        }
    }

    // Group identical halftones (same setting, same outputs everywhere) into rows.
    std::vector<Row> rows;
    for (const Run& r : runs) {
        if (!r.error.empty()) continue;
        Row* into = nullptr;
        for (Row& row : rows)
            if (row.members.front()->hash == r.hash && row.members.front()->setting.label == r.setting.label &&
                row.members.front()->method->family == r.method->family)
                into = &row;
        if (!into) {
            rows.emplace_back();
            into = &rows.back();
        }
        into->members.push_back(&r);
    }
    for (Row& row : rows) {
        const Run& r = *row.members.front();
        row.fastest = *std::min_element(row.members.begin(), row.members.end(),
                                        [](const Run* a, const Run* b) { return a->totalSeconds < b->totalSeconds; });
        row.label = groupLabel(row.members);
        row.hvs = mean(r.hvs) * 1e3;
        row.psnr = mean(r.psnr);
        row.toneMean = r.tone.meanDeviation;
        row.toneMax = r.tone.maxDeviation;
        row.aniso = mean(r.anisotropy);
        row.nsPerPixel = row.fastest->totalSeconds * 1e9 / double(std::max<int64_t>(1, imagePixels));
    }

    // Best value of each column, printed in bold.
    auto best = [&](auto value, bool lower) {
        double b = lower ? std::numeric_limits<double>::infinity() : -std::numeric_limits<double>::infinity();
        for (const Row& row : rows) {
            const double v = value(row);
            if (std::isfinite(v) && (lower ? v < b : v > b)) b = v;
        }
        return b;
    };
    const double bHvs = best([](const Row& r) { return r.hvs; }, true);
    const double bPsnr = best([](const Row& r) { return r.psnr; }, false);
    const double bToneMean = best([](const Row& r) { return r.toneMean; }, true);
    const double bToneMax = best([](const Row& r) { return r.toneMax; }, true);
    const double bAniso = best([](const Row& r) { return r.aniso; }, true);
    const double bTime = best([](const Row& r) { return r.nsPerPixel; }, true);
    auto cell = [](double v, double b, int digits) {
        const std::string s = num(v, digits);
        return std::isfinite(v) && num(v, digits) == num(b, digits) ? "**" + s + "**" : s;
    };

    std::string imageList;
    for (const Input& in : images)
        imageList += (imageList.empty() ? "" : ", ") + in.name + " (" + std::to_string(in.plane.width) + " x " +
                     std::to_string(in.plane.height) + ")";
    std::printf("\n## Quality and speed of every method\n\n");
    std::printf("Images: %s, as gray. Ramp: %d x %d, levels 0..255 in steps of %d columns. Patches: levels",
                imageList.c_str(), ramp.width, ramp.height, kRampColumns);
    for (int g : kPatchLevels) std::printf(" %d", g);
    std::string fixed;
    for (const auto& [k, v] : c.params) fixed += (fixed.empty() ? "" : ", ") + k + "=" + v;
    std::printf(
        ", each %d x %d, %d tiles of %d x %d inside a %d-pixel border. %s%severy other parameter at its "
        "registry default. Time: process CPU time on one thread (threads=1), median of %d runs after an "
        "untimed one, summed over the images and divided by their pixels. Best value of each column in "
        "bold.\n\n",
        patchSide, patchSide, kTilesPerSide * kTilesPerSide, kTile, kTile, kMargin,
        c.params.count("levels") ? "" : "Binary output (2 levels); ",
        fixed.empty() ? "" : ("set for every method that has them: " + fixed + "; ").c_str(), c.runs);
    std::printf(
        "| method | settings | HVS error (x 1e-3) | filtered PSNR (dB) | tone error mean | tone error max "
        "(level) | anisotropy (dB) | CPU ns / pixel, 1 thread | fastest variant |\n");
    std::printf("|---|---|---:|---:|---:|---:|---:|---:|---|\n");
    for (const Row& row : rows) {
        const Run& r = *row.members.front();
        std::printf("| %s | %s | %s | %s | %s | %s (%d) | %s | %s | %s |\n", row.label.c_str(),
                    r.setting.label.empty() ? "defaults" : r.setting.label.c_str(), cell(row.hvs, bHvs, 3).c_str(),
                    cell(row.psnr, bPsnr, 2).c_str(), cell(row.toneMean, bToneMean, 2).c_str(),
                    cell(row.toneMax, bToneMax, 1).c_str(), r.tone.worstLevel, cell(row.aniso, bAniso, 1).c_str(),
                    cell(row.nsPerPixel, bTime, 2).c_str(), row.fastest->method->id().c_str());
    }
    // A setting a method refuses (a kernel one variant does not implement) is listed, not measured; it does not fail
    // the section, so that the table is written whatever the registry offers.
    bool refusedHeader = false;
    for (const Run& r : runs)
        if (!r.error.empty()) {
            if (!refusedHeader) std::printf("\nSettings not measured (the method refused them):\n\n");
            refusedHeader = true;
            std::printf("- %s, %s: %s\n", r.method->id().c_str(),
                        r.setting.label.empty() ? "defaults" : r.setting.label.c_str(), r.error.c_str());
        }

    std::printf(
        "\n### Per image\n\nHVS error (x 1e-3) / filtered PSNR (dB) / SSIM on each image. The HVS error and the "
        "filtered PSNR use the Gaussian of sigma 1.2 px (radius 4); SSIM is Wang, Bovik, Sheikh and Simoncelli's "
        "(2004) between the original and the halftone as they are (11 x 11 Gaussian window, sigma 1.5).\n\n| method | "
        "settings |");
    for (const Input& in : images) std::printf(" %s |", in.name.c_str());
    std::printf("\n|---|---|");
    for (size_t i = 0; i < images.size(); ++i) std::printf("---:|");
    std::printf("\n");
    for (const Row& row : rows) {
        const Run& r = *row.members.front();
        std::printf("| %s | %s |", row.label.c_str(), r.setting.label.empty() ? "defaults" : r.setting.label.c_str());
        for (size_t i = 0; i < images.size(); ++i)
            std::printf(" %s / %s / %s |", num(r.hvs[i] * 1e3, 3).c_str(), num(r.psnr[i], 2).c_str(),
                        num(r.ssim[i], 4).c_str());
        std::printf("\n");
    }

    // The level-dependent kernels beside Floyd-Steinberg and DBS: where each stands on the way from one to the other.
    auto kernelOf = [](const Run& r) {
        const auto k = r.setting.values.find("kernel");
        return k == r.setting.values.end() ? std::string() : k->second;
    };
    auto scanOf = [](const Run& r) {
        const auto k = r.setting.values.find("serpentine");
        return k != r.setting.values.end() && k->second == "true";
    };
    const Run* dbs = nullptr;
    for (const Row& row : rows)
        if (row.members.front()->method->id() == "dbs/sequential") dbs = row.members.front();
    if (dbs) {
        std::printf(
            "\n### Level-dependent error diffusion beside Floyd-Steinberg and DBS\n\nPer image: HVS error (x 1e-3) / "
            "filtered PSNR (dB) / SSIM as above, and the share of the gap from Floyd-Steinberg (same scan order) to "
            "dbs/sequential that the row closes in HVS error (100 %% = DBS's error, 0 = Floyd-Steinberg's, < 0 "
            "worse than Floyd-Steinberg).\n\n| kernel | scan |");
        for (const Input& in : images) std::printf(" %s | gap closed |", in.name.c_str());
        std::printf("\n|---|---|");
        for (size_t i = 0; i < images.size(); ++i) std::printf("---:|---:|");
        std::printf("\n");
        for (bool serpentine : {false, true}) {
            const Run* fs = nullptr;
            for (const Row& row : rows)
                if (kernelOf(*row.members.front()) == "floyd-steinberg" && scanOf(*row.members.front()) == serpentine)
                    fs = row.members.front();
            for (const char* k : {"floyd-steinberg", "ostromoukhov", "zhou-fang", "tded"})
                for (const Row& row : rows) {
                    const Run& r = *row.members.front();
                    if (kernelOf(r) != k || scanOf(r) != serpentine || !fs) continue;
                    std::printf("| %s | %s |", r.setting.values.at("kernel").c_str(),
                                serpentine ? "serpentine" : "raster");
                    for (size_t i = 0; i < images.size(); ++i)
                        std::printf(" %s / %s / %s | %s %% |", num(r.hvs[i] * 1e3, 3).c_str(),
                                    num(r.psnr[i], 2).c_str(), num(r.ssim[i], 4).c_str(),
                                    num(100 * (fs->hvs[i] - r.hvs[i]) / (fs->hvs[i] - dbs->hvs[i]), 0).c_str());
                    std::printf("\n");
                }
        }
        std::printf("| dbs/sequential | - |");
        for (size_t i = 0; i < images.size(); ++i)
            std::printf(" %s / %s / %s | 100 %% |", num(dbs->hvs[i] * 1e3, 3).c_str(), num(dbs->psnr[i], 2).c_str(),
                        num(dbs->ssim[i], 4).c_str());
        std::printf("\n");
    }

    std::printf(
        "\n### Anisotropy per level\n\nMean anisotropy (dB) of each constant patch; %d averaged periodograms "
        "put an isotropic random pattern at about %.1f dB. \"flat\": the halftone of the patch is one value (no "
        "dots at all); \"-\": all its power lies in rings of one sample (the corner frequency of a checkerboard), "
        "where anisotropy is undefined. Both are left out of the row's mean.\n\n| method | settings |",
        kTilesPerSide * kTilesPerSide, -10 * std::log10(double(kTilesPerSide * kTilesPerSide)));
    for (int g : kPatchLevels) std::printf(" %d |", g);
    std::printf("\n|---|---|");
    for (size_t i = 0; i < std::size(kPatchLevels); ++i) std::printf("---:|");
    std::printf("\n");
    for (const Row& row : rows) {
        const Run& r = *row.members.front();
        std::printf("| %s | %s |", row.label.c_str(), r.setting.label.empty() ? "defaults" : r.setting.label.c_str());
        for (size_t i = 0; i < std::size(kPatchLevels); ++i)
            std::printf(" %s |", i >= r.anisotropy.size() ? "-" : r.flat[i] ? "flat" : num(r.anisotropy[i], 1).c_str());
        std::printf("\n");
    }

    // The speed of each member of the groups of identical halftones, for the first setting of each group and scan.
    bool header = false;
    std::set<std::string> shown;
    for (const Row& row : rows) {
        const auto serp = row.members.front()->setting.values.find("serpentine");
        const std::string scan = serp == row.members.front()->setting.values.end() ? "" : serp->second;
        if (row.members.size() < 2 || !shown.insert(row.label + "/" + scan).second) continue;
        if (!header) {
            std::printf(
                "\n### Variants that give the same image\n\nCPU ns / pixel on one thread over the images, for the "
                "first setting of each group and scan order.\n\n| settings | variant | CPU ns / pixel | devices "
                "|\n|---|---|---:|---|"
                "\n");
            header = true;
        }
        for (const Run* r : row.members)
            std::printf("| %s | %s | %s | %s |\n", r->setting.label.c_str(), r->method->id().c_str(),
                        num(r->totalSeconds * 1e9 / double(std::max<int64_t>(1, imagePixels)), 2).c_str(),
                        r->method->devicesString().c_str());
    }

    // Where each row wins: the best of each column, and the best HVS error of each family.
    auto name = [](const Row& r) {
        const std::string& s = r.members.front()->setting.label;
        return r.label + (s.empty() ? "" : " (" + s + ")");
    };
    auto argBest = [&](auto value, bool lower) {
        const Row* b = nullptr;
        for (const Row& row : rows) {
            const double v = value(row);
            if (std::isfinite(v) && (!b || (lower ? v < value(*b) : v > value(*b)))) b = &row;
        }
        return b;
    };
    std::printf("\n### Best of each measure\n\n");
    const struct {
        const char* what;
        double (*value)(const Row&);
        bool lower;
        int digits;
    } measures[] = {
        {"lowest HVS error", [](const Row& r) { return r.hvs; }, true, 3},
        {"highest filtered PSNR", [](const Row& r) { return r.psnr; }, false, 2},
        {"lowest mean tone error", [](const Row& r) { return r.toneMean; }, true, 2},
        {"lowest max tone error", [](const Row& r) { return r.toneMax; }, true, 1},
        {"lowest anisotropy", [](const Row& r) { return r.aniso; }, true, 1},
        {"fastest on one thread", [](const Row& r) { return r.nsPerPixel; }, true, 2},
    };
    for (const auto& ms : measures)
        if (const Row* b = argBest(ms.value, ms.lower))
            std::printf("- %s: %s, %s\n", ms.what, name(*b).c_str(), num(ms.value(*b), ms.digits).c_str());
    std::vector<std::string> families;
    for (const Row& row : rows)
        if (std::find(families.begin(), families.end(), row.members.front()->method->family) == families.end())
            families.push_back(row.members.front()->method->family);
    for (const std::string& f : families) {
        const Row* b = argBest(
            [&](const Row& r) {
                return r.members.front()->method->family == f ? r.hvs : std::numeric_limits<double>::quiet_NaN();
            },
            true);
        if (b)
            std::printf("- best HVS error of the %s family: %s, %s\n", f.c_str(), name(*b).c_str(),
                        num(b->hvs, 3).c_str());
    }
    return 0;
}

}  // namespace halftone::bench
