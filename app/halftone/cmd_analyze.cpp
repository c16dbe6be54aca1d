// `halftone analyze ORIGINAL HALFTONE`: the quality measures of docs/spec.md section 3 (core/quality/metrics.h), and
// with --target the colour difference of the simulated panel (core/palette/panel.h).
#include <cmath>
#include <cstdio>
#include <sstream>
#include <string>

#include "app/halftone/commands.h"
#include "app/halftone/stdstreams.h"
#include "core/job/job.h"
#include "core/palette/panel.h"
#include "core/prepare/prepare.h"
#include "core/quality/metrics.h"
#include "io/atomicwrite.h"
#include "io/imagefile.h"

namespace halftone::cli {

void addAnalyzeCommand(Commands& commands) {
    struct Options {
        std::string original, halftone, csv, toneCsv, target;
        std::vector<int> patch;  // x y w h
        std::string hvs = "gaussian";
        double sigma = 1.2;
        double viewDpi = 0, viewDistance = 0;  // the viewing of the PSNR as printed and of the panel's measure
        bool json = false;
    };
    auto o = std::make_shared<Options>();
    CLI::App* sub = commands.add(
        "analyze",
        "quality measures of a halftone against its original: HVS error, filtered PSNR, colour Delta E 2000, tone, "
        "spectrum",
        [o]() {
            for (const std::string& csv : {o->csv, o->toneCsv})
                if (!csv.empty())
                    if (Status s = io::checkWritableTarget(csv); !s)
                        return fail("analyze: cannot write '" + csv + "': " + s.message());
            // One of the two may be standard input (`halftone - - < in.png | halftone analyze in.png -`).
            if (o->original == "-" && o->halftone == "-")
                return fail("analyze: only one of ORIGINAL and HALFTONE can be standard input (-)", kExitUsage);
            if ((o->viewDpi > 0) != (o->viewDistance > 0))
                return fail("analyze: --view-dpi and --view-distance go together", kExitUsage);
            Target target;
            if (!o->target.empty())
                if (Status s = resolveTarget(o->target, target); !s) return fail("analyze: " + s.message(), kExitUsage);
            StdStreams streams;
            std::string original = o->original, halftone = o->halftone;
            for (std::string* path : {&original, &halftone})
                if (*path == "-")
                    if (Status s = streams.readStdin({}, *path); !s) return fail("analyze: " + s.message());
            auto read = [&](const std::string& path, Image& image) {
                Status s = io::readImage(path, image);
                std::string message = s.message();
                if (path != o->original && path != o->halftone)
                    for (size_t at; (at = message.find(path)) != std::string::npos;)
                        message.replace(at, path.size(), "standard input");
                return s ? Status::ok() : Status::error(message);
            };
            Image a, b;
            if (Status s = read(original, a); !s) return fail(s.message());
            if (Status s = read(halftone, b); !s) return fail(s.message());
            if (!o->target.empty() && (a.width() != b.width() || a.height() != b.height())) {
                // The original as the job prepared it: the target's frame, as `halftone --target` fills it by default.
                JobSettings job, applied;
                job.target = o->target;
                if (Status s = applyTarget(job, applied); !s) return fail("analyze: " + s.message(), kExitUsage);
                Image prepared;
                if (Status s = prepareImage(a, applied.prepare, prepared); !s) return fail("analyze: " + s.message());
                if (prepared.width() != b.width() || prepared.height() != b.height())
                    return fail("analyze: " + o->original + " is " + std::to_string(a.width()) + " x " +
                                std::to_string(a.height()) + " (" + std::to_string(prepared.width()) + " x " +
                                std::to_string(prepared.height()) + " in the frame of target " + target.name +
                                ") but " + o->halftone + " is " + std::to_string(b.width()) + " x " +
                                std::to_string(b.height()) +
                                ": give the original at the halftone's size (as the job prepared it)");
                a = std::move(prepared);
            }
            const Plane8 f = convertColor(a, ColorMode::Gray).channels.front();
            const Plane8 g = convertColor(b, ColorMode::Gray).channels.front();
            if (!f.sameSize(g))
                return fail("analyze: " + o->original + " is " + std::to_string(f.width) + " x " +
                            std::to_string(f.height) + " but " + o->halftone + " is " + std::to_string(g.width) +
                            " x " + std::to_string(g.height));
            HvsParams hp;
            hp.model = o->hvs == "nasanen" ? HvsModel::Nasanen : HvsModel::Gaussian;
            hp.sigma = o->sigma;
            // Text lines for a person, or one JSON object with the same figures (--json).
            std::string text, json;
            auto line = [&](const char* format, auto... values) {
                char buffer[256];
                std::snprintf(buffer, sizeof buffer, format, values...);
                text += buffer;
            };
            auto field = [&](const std::string& key, const std::string& value) {
                json += (json.empty() ? "{" : ",") + jsonString(key) + ":" + value;
            };
            const double hvsError = hvsWeightedError(f, g, hp), psnr = filteredPsnr(f, g, o->sigma);
            line("size                     %d x %d\n", f.width, f.height);
            line("HVS-weighted error E/N   %.8f (%s)\n", hvsError, o->hvs.c_str());
            line("PSNR, filtered halftone  %.3f dB (Gaussian sigma %.2f)\n", psnr, o->sigma);
            field("width", std::to_string(f.width));
            field("height", std::to_string(f.height));
            field("hvs_model", jsonString(o->hvs));
            field("sigma", jsonNumber(o->sigma));
            field("hvs_error", jsonNumber(hvsError));
            field("psnr_db", jsonNumber(psnr));
            if (o->viewDpi > 0) {
                // As printed (docs/quality.md, "Measured as printed"): the eye's Gaussian at this size and distance.
                const ViewingConditions seen{o->viewDpi, o->viewDistance};
                const double printed = seenPsnr(f, g, seen);
                line("PSNR, as printed         %.3f dB (%g dpi seen from %g in, Gaussian sigma %.2f)\n", printed,
                     o->viewDpi, o->viewDistance, eyeSigmaPixels(seen));
                field("view_dpi", jsonNumber(o->viewDpi));
                field("view_distance_in", jsonNumber(o->viewDistance));
                field("psnr_printed_db", jsonNumber(printed));
            }
            // Colour: the mean CIEDE2000 of the two HVS-filtered images (linear light per channel, then CIELAB).
            if (a.space != ColorSpace::Gray || b.space != ColorSpace::Gray) {
                const double de = filteredDeltaE2000(a, b, o->sigma);
                line("Delta E 2000, filtered   %.3f (mean CIEDE2000, Gaussian sigma %.2f, linear light)\n", de,
                     o->sigma);
                field("delta_e_2000", jsonNumber(de));
            }
            // The simulated panel: the halftone in the colours the target shows, against the original.
            if (!o->target.empty()) {
                PanelViewing viewing;
                viewing.sigma = o->sigma;
                viewing.dpi = o->viewDpi;
                viewing.distanceInches = o->viewDistance;
                double de = 0;
                if (Status s = panelDeltaE2000(target, a, b, de, viewing); !s)
                    return fail("analyze: " + o->halftone + ": " + s.message());
                if (viewing.physical())
                    line(
                        "Delta E 2000, panel      %.3f (%s as it shows, %g dpi seen from %g in: sigma %.2f, linear "
                        "light)\n",
                        de, target.name.c_str(), viewing.dpi, viewing.distanceInches, viewing.filterSigma());
                else
                    line("Delta E 2000, panel      %.3f (%s as it shows, Gaussian sigma %.2f, linear light)\n", de,
                         target.name.c_str(), viewing.filterSigma());
                field("target", jsonString(target.name));
                field("panel_sigma", jsonNumber(viewing.filterSigma()));
                field("panel_delta_e_2000", jsonNumber(de));
            }
            const ToneCurve tc = toneCurve(f, g);
            double mf = 0, mg = 0;
            for (size_t i = 0; i < f.size(); ++i) {
                mf += f.data[i];
                mg += g.data[i];
            }
            line("mean gray in / out       %.3f / %.3f\n", mf / double(f.size()), mg / double(g.size()));
            line("tone curve max |out-in|  %.3f (over the gray levels present)\n", tc.maxDeviation);
            field("mean_gray_in", jsonNumber(mf / double(f.size())));
            field("mean_gray_out", jsonNumber(mg / double(g.size())));
            field("tone_max_deviation", jsonNumber(tc.maxDeviation));
            if (!o->toneCsv.empty()) {
                std::ostringstream t;
                t << "input,mean_output,count\n";
                for (int v = 0; v < 256; ++v)
                    if (tc.count[size_t(v)])
                        t << v << ',' << tc.meanOut[size_t(v)] << ',' << tc.count[size_t(v)] << '\n';
                if (Status s = writeTextFile(o->toneCsv, t.str()); !s) return fail("analyze: " + s.message());
            }
            // Spectrum of a patch of the halftone (default: the centred square of at most 256 x 256).
            int px, py, pw, ph;
            if (o->patch.size() == 4) {
                px = o->patch[0], py = o->patch[1], pw = o->patch[2], ph = o->patch[3];
            } else {
                pw = ph = std::min({256, f.width, f.height});
                px = (f.width - pw) / 2;
                py = (f.height - ph) / 2;
            }
            if (px < 0 || py < 0 || pw < 4 || ph < 4 || px + pw > f.width || py + ph > f.height)
                return fail("analyze: --patch must lie inside the image and be at least 4 x 4", kExitUsage);
            Plane8 patch(pw, ph);
            int lo = 255, hi = 0;
            for (int y = 0; y < ph; ++y)
                for (int x = 0; x < pw; ++x) {
                    patch.at(y, x) = g.at(py + y, px + x);
                    lo = std::min(lo, int(f.at(py + y, px + x)));
                    hi = std::max(hi, int(f.at(py + y, px + x)));
                }
            RadialSpectrum sp;
            if (Status s = radialSpectrum(patch, sp); !s) return fail("analyze: " + s.message());
            line("spectrum patch           %d,%d %dx%d, original gray %d..%d%s (%s)\n", px, py, pw, ph, lo, hi,
                 lo == hi ? " (constant)" : " (not constant: the spectrum mixes tones)", sp.backend.c_str());
            const double lowPower = lowFrequencyRatio(sp, 0.1);
            line("low-frequency power      %.4f of the variance below 0.1 cycles/pixel\n", lowPower);
            field("patch", "[" + std::to_string(px) + "," + std::to_string(py) + "," + std::to_string(pw) + "," +
                               std::to_string(ph) + "]");
            field("patch_gray_min", std::to_string(lo));
            field("patch_gray_max", std::to_string(hi));
            field("low_frequency_power", jsonNumber(lowPower));
            double anis = 0;
            int na = 0;
            for (size_t i = 0; i < sp.anisotropy.size(); ++i)
                if (sp.frequency[i] >= 0.1 && std::isfinite(sp.anisotropy[i])) {
                    anis += sp.anisotropy[i];
                    ++na;
                }
            line("mean anisotropy          %.2f dB (rings above 0.1 cycles/pixel)\n", na ? anis / na : 0.0);
            field("mean_anisotropy_db", jsonNumber(na ? anis / na : 0.0));
            if (!o->csv.empty()) {
                std::ostringstream c;
                c << "frequency,power,anisotropy_db,samples\n";
                for (size_t i = 0; i < sp.frequency.size(); ++i)
                    c << sp.frequency[i] << ',' << sp.power[i] << ',' << sp.anisotropy[i] << ',' << sp.samples[i]
                      << '\n';
                if (Status s = writeTextFile(o->csv, c.str()); !s) return fail("analyze: " + s.message());
            }
            const std::string shown = o->json ? json + "}\n" : text;
            std::fwrite(shown.data(), 1, shown.size(), stdout);
            return int(kExitOk);
        });
    sub->add_option("ORIGINAL", o->original, "the continuous-tone original; - reads standard input")->required();
    sub->add_option("HALFTONE", o->halftone, "its halftone (same size); - reads standard input")->required();
    sub->add_option("--csv", o->csv, "write the radially averaged power spectrum and anisotropy as CSV");
    sub->add_option("--tone-csv", o->toneCsv, "write the tone curve (mean output per input gray) as CSV");
    sub->add_option("--patch", o->patch, "spectrum patch X Y W H (default: centred square up to 256)")->expected(4);
    sub->add_flag("--json", o->json, "print the measures as one JSON object");
    sub->add_option("--hvs", o->hvs, "HVS model of the error")
        ->check(CLI::IsMember({"gaussian", "nasanen"}))
        ->capture_default_str();
    sub->add_option("--target", o->target,
                    "the device HALFTONE was made for (a built-in name or a target file): also measure the simulated "
                    "panel, HALFTONE in the colours it shows, against ORIGINAL (prepared to the target's frame when "
                    "the sizes differ)");
    sub->add_option("--view-dpi", o->viewDpi,
                    "the halftone's pixels per inch (on paper or on the panel), for --view-distance")
        ->check(CLI::Range(1.0, 100000.0));
    sub->add_option("--view-distance", o->viewDistance,
                    "the viewing distance in inches: also the PSNR as printed, seen at --view-dpi from there, and with "
                    "--target the panel's measure through the eye's Gaussian at that resolution and distance")
        ->check(CLI::Range(0.1, 10000.0));
    sub->add_option("--sigma", o->sigma, "Gaussian deviation for the error and the PSNR filter")
        ->check(CLI::Range(0.3, 10.0))
        ->capture_default_str();
}

}  // namespace halftone::cli
