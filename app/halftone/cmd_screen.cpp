// `halftone screen`: makes threshold arrays (void-and-cluster blue noise, a DBS screen built level by level,
// Bayer, clustered dot) and writes them as 8-bit gray images. Also lets `--screen FILE` read any image format.
#include <string>

#include "app/halftone/commands.h"
#include "core/screen/screen.h"
#include "io/imagefile.h"
#include "io/screenfile.h"

namespace halftone::cli {

void addScreenCommand(Commands& commands) {
    io::installScreenFileLoader();
    struct Options {
        std::string method = "dbs";
        int size = 0;
        uint64_t seed = 1;
        double sigma = 1.2;
        int radius = 4;
        int passes = 50;
        std::string spec;
        std::string output;
        bool quiet = false;
        bool force = false;
    };
    auto o = std::make_shared<Options>();
    CLI::App* sub =
        commands.add("screen", "make a threshold array (screen) for ordered dither and clip-free DBS", [o]() {
            if (o->output.empty()) return fail("screen: no OUTPUT file given", kExitUsage);
            // The output is checked before the (possibly long) generation: format, path, lossy formats.
            if (io::isLossyFormat(o->output) && !o->force)
                return fail("cannot write '" + o->output +
                            "': a lossy format would change the thresholds; write .png, .tif "
                            "or .pgm, or add --force to write it anyway");
            if (Status s = io::checkOutputPath(o->output); !s) return fail(s.message());
            RunControl rc;
            if (!o->quiet) rc.onProgress = stderrProgress();
            ThresholdArray t;
            Status s;
            if (o->method == "dbs") {
                DbsScreenParams p;
                p.size = o->size ? o->size : 512;
                p.seed = o->seed;
                p.sigma = o->sigma;
                p.radius = o->radius;
                p.maxPasses = o->passes;
                s = dbsScreen(p, t, rc);
            } else if (o->method == "void-and-cluster") {
                s = voidAndClusterScreen(o->size ? o->size : 64, o->seed, t, rc);
            } else if (o->method == "bayer") {
                s = bayerScreen(o->size ? o->size : 8, t);
            } else {
                s = screenFromSpec(o->spec.empty() ? "cluster" : "cluster:" + o->spec, t, rc);
            }
            if (s.isCancelled()) return fail("screen: interrupted", kExitCancelled);
            if (!s) return fail("screen: " + s.message());
            io::WriteOptions wo;
            const Status w = io::writeImage(o->output, Image::gray(t), wo);
            if (const int sig = takeDeferredSignal()) exitForDeferredSignal(sig, o->output, bool(w));
            if (!w) return fail(w.message());
            return int(kExitOk);
        });
    sub->add_option(
           "--method", o->method,
           "generator: dbs (direct binary search, level by level), void-and-cluster (Ulichney), bayer, cluster")
        ->check(CLI::IsMember({"dbs", "void-and-cluster", "bayer", "cluster"}))
        ->capture_default_str();
    sub->add_option("--size", o->size, "array side (default: dbs 512, void-and-cluster 64, bayer 8)")
        ->check(CLI::Range(2, 4096));
    sub->add_option("--seed", o->seed, "random seed (void-and-cluster start, DBS tie breaking)")->capture_default_str();
    sub->add_option("--sigma", o->sigma, "dbs: Gaussian HVS deviation in pixels")
        ->check(CLI::Range(0.3, 10.0))
        ->capture_default_str();
    sub->add_option("--radius", o->radius, "dbs: HVS filter truncation w")
        ->check(CLI::Range(1, 16))
        ->capture_default_str();
    sub->add_option("--passes", o->passes, "dbs: swap passes per level at most")
        ->check(CLI::Range(0, 1000))
        ->capture_default_str();
    sub->add_option("--cluster", o->spec, "cluster: cell=C,angle=A,dot=round|elliptic");
    sub->add_flag("--quiet", o->quiet, "no progress on stderr");
    sub->add_flag("--force", o->force, "write a lossy output format (JPEG, WebP, HEIF/AVIF) anyway");
    sub->add_option("OUTPUT", o->output, "output image (.pgm, .png, .tif, ...): thresholds as 8-bit gray")->required();
}

}  // namespace halftone::cli
