// `halftone teach`: error diffusion on a tiny image step by step under a schedule (core/schedule/lesson.h), written as
// an animation with one frame per step (APNG, WebP, GIF, or MP4 through ffmpeg) or as handout pages, with the
// schedule's parallelism, critical path and the proof on stdout (docs/teaching.md).
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <memory>
#include <spawn.h>

#include "app/halftone/commands.h"
#include "core/schedule/lesson.h"
#include "io/animation.h"
#include "io/atomicwrite.h"
#include "io/imagefile.h"

extern char** environ;

namespace halftone::cli {

namespace {

struct TeachOptions {
    std::string schedule = "knight";
    std::string size = "16x12";
    std::string kernel = "floyd-steinberg";
    std::string steps;
    int levels = 2;
    int delay = 0;
    int frameMs = 400;
    int pageColumns = 3;
    bool race = false;
    bool handout = false;
    bool quiet = false;
    std::array<std::string, 2> files;  ///< IN OUT, or OUT alone (in the place of IN) for a ramp
};

bool parsePair(const std::string& text, char sep, int& a, int& b) {
    const size_t x = text.find(sep);
    if (x == std::string::npos || x == 0 || x + 1 == text.size()) return false;
    char* end = nullptr;
    const long l = std::strtol(text.c_str(), &end, 10);
    if (end != text.c_str() + x) return false;
    const long r = std::strtol(text.c_str() + x + 1, &end, 10);
    if (*end != '\0') return false;
    a = int(l);
    b = int(r);
    return true;
}

std::string findOnPath(const std::string& program) {
    const char* path = std::getenv("PATH");
    std::string dirs = path ? path : "";
    size_t start = 0;
    while (start <= dirs.size()) {
        const size_t end = std::min(dirs.find(':', start), dirs.size());
        const std::string candidate = dirs.substr(start, end - start) + "/" + program;
        if (end > start && ::access(candidate.c_str(), X_OK) == 0) return candidate;
        start = end + 1;
    }
    return {};
}

/// MP4 through ffmpeg: the frames as PNG files in a temporary folder, encoded to a hidden file beside the output that
/// is renamed into place when ffmpeg succeeds.
Status writeMp4(const std::string& path, const std::vector<Image>& frames, int frameMs) {
    const std::string ffmpeg = findOnPath("ffmpeg");
    if (ffmpeg.empty())
        return Status::unavailable(path +
                                   ": MP4 needs ffmpeg, which is not installed; write .png (APNG), .webp or "
                                   ".gif, which need nothing else");
    namespace fs = std::filesystem;
    std::string tmpl = (fs::temp_directory_path() / "halftone-teach-XXXXXX").string();
    if (!::mkdtemp(tmpl.data())) return Status::error("cannot make a temporary folder for the MP4 frames");
    const fs::path dir(tmpl);
    struct Cleanup {
        fs::path dir;
        ~Cleanup() {
            std::error_code ec;
            fs::remove_all(dir, ec);
        }
    } cleanup{dir};
    for (size_t f = 0; f < frames.size(); ++f) {
        char name[32];
        std::snprintf(name, sizeof name, "frame%05zu.png", f);
        if (Status s = io::writeImage((dir / name).string(), frames[f]); !s) return s;
    }
    const fs::path target(path);
    const std::string hidden =
        (target.parent_path() / ("." + target.filename().string() + ".halftone-tmp.mp4")).string();
    const std::string rate = std::to_string(1000.0 / frameMs);
    const std::string pattern = (dir / "frame%05d.png").string();
    std::vector<std::string> args = {
        ffmpeg,     "-y",      "-loglevel", "error", "-framerate",
        rate,       "-i",      pattern,     "-vf",   "scale=trunc(iw/2)*2:trunc(ih/2)*2:flags=neighbor",
        "-pix_fmt", "yuv420p", hidden};
    std::vector<char*> argv;
    for (std::string& a : args) argv.push_back(a.data());
    argv.push_back(nullptr);
    pid_t pid = 0;
    int status = 0;
    if (posix_spawn(&pid, ffmpeg.c_str(), nullptr, nullptr, argv.data(), environ) != 0 ||
        ::waitpid(pid, &status, 0) != pid || !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
        std::error_code ec;
        fs::remove(hidden, ec);
        return Status::error(path + ": ffmpeg could not encode the frames");
    }
    std::error_code ec;
    fs::rename(hidden, target, ec);
    if (ec) {
        fs::remove(hidden, ec);
        return Status::error(path + ": " + ec.message());
    }
    return Status::ok();
}

std::string lower(std::string s) {
    for (char& c : s) c = char(std::tolower(static_cast<unsigned char>(c)));
    return s;
}

bool endsWith(const std::string& s, const std::string& tail) {
    return s.size() >= tail.size() && s.compare(s.size() - tail.size(), tail.size(), tail) == 0;
}

int runTeach(const TeachOptions& o) {
    setQuiet(o.quiet);
    // usage first: nothing is read or written before the command line is known to be whole
    const bool ramp = o.files[1].empty();
    if (o.files[0].empty())
        return fail("teach: give IN OUT, or OUT alone for a ramp; see halftone teach --help", kExitUsage);
    const std::string& output = ramp ? o.files[0] : o.files[1];
    int w = 0, h = 0;
    if (!parsePair(lower(o.size), 'x', w, h) || w < 1 || h < 1 || w > kLessonMaxSide || h > kLessonMaxSide)
        return fail("teach: --size '" + o.size + "' is not WxH with sides 1 to " + std::to_string(kLessonMaxSide),
                    kExitUsage);
    const std::string ext = lower(output);
    const bool mp4 = endsWith(ext, ".mp4");
    if (o.handout ? !endsWith(ext, ".png") : !(mp4 || io::isAnimationFormat(output)))
        return fail("teach: cannot write '" + output + "': " +
                        (o.handout ? std::string("handout pages are .png files")
                                   : std::string("the animation is .png (APNG), .webp, .gif or .mp4")),
                    kExitUsage);
    if (!ramp && output == o.files[0]) return fail("teach: OUT is IN; refusing to overwrite the input", kExitUsage);
    if (Status s = io::checkWritableTarget(output); !s) return fail("cannot write '" + output + "': " + s.message());

    Plane8 src;
    if (ramp) {
        src = lessonRamp(w, h);
    } else {
        Image im;
        if (Status s = io::readImage(o.files[0], im); !s) return fail(s.message());
        if (im.channels.empty()) return fail(o.files[0] + ": the image has no channels");
        src = lessonCrop(convertColor(im, ColorMode::Gray).channels.front(), w, h);
    }
    LessonOptions lo;
    lo.schedule = o.schedule;
    lo.kernel = o.kernel;
    lo.levels = o.levels;
    lo.race = o.race;
    lo.scheduleOptions.delay = o.delay;
    LessonTrace t;
    if (Status s = traceLesson(src, lo, t); !s) return fail("teach: " + s.message(), kExitUsage);

    int first = 0, last = t.steps() - 1;
    if (!o.steps.empty() && (!parsePair(o.steps, '-', first, last) || first < 0 || last < first || last >= t.steps()))
        return fail("teach: --steps '" + o.steps + "' is not FIRST-LAST within 0-" + std::to_string(t.steps() - 1),
                    kExitUsage);
    const int cell = lessonCellSize(src.width, src.height);
    Status written;
    int files = 0;
    if (o.handout) {
        const int perPage = o.pageColumns * (o.pageColumns + 1);
        const std::string stem = output.substr(0, output.size() - 4);
        for (int p = first; p <= last && written; p += perPage, ++files) {
            const Image page = renderLessonPage(t, p, std::min(last, p + perPage - 1), o.pageColumns, cell / 2 + 2);
            written = io::writeImage(stem + "-" + std::to_string(files + 1) + ".png", page);
        }
    } else {
        std::vector<Image> frames;
        for (int s = first; s <= last; ++s) frames.push_back(renderLessonFrame(t, s, cell));
        written = mp4 ? writeMp4(output, frames, o.frameMs) : io::writeAnimation(output, frames, o.frameMs);
        files = int(frames.size());
    }
    if (const int sig = takeDeferredSignal()) exitForDeferredSignal(sig, output, bool(written));
    if (!written) return fail(written.message());

    const LessonStats& st = t.stats;
    std::printf("schedule %s: %s\n", t.schedule.name.c_str(), t.schedule.description.c_str());
    std::printf("arithmetic: %s, %d levels, %d x %d pixels\n", t.arithmetic.c_str(), t.levels, src.width, src.height);
    std::printf("steps: %d, at most %lld unit(s) at once; critical path %lld pixel times (dependency chain %lld)\n",
                st.steps, (long long)st.maxParallelism, (long long)st.criticalPath, (long long)st.dependencyChain);
    if (t.race || t.earlyReads)
        std::printf("race: %lld read(s) of an error before it was written\n", (long long)t.earlyReads);
    if (t.proved())
        std::printf("proof: the final image equals the sequential one bit for bit\n");
    else
        std::printf("differs: %lld of %lld pixels differ from the sequential result\n", (long long)t.differing,
                    (long long)src.size());
    if (o.handout)
        note("wrote " + std::to_string(files) + " handout page(s) of steps " + std::to_string(first) + "-" +
             std::to_string(last));
    else
        note("wrote " + std::to_string(files) + " frame(s), one per step, to " + output);
    return int(kExitOk);
}

}  // namespace

void addTeachCommand(Commands& commands) {
    auto o = std::make_shared<TeachOptions>();
    CLI::App* sub = commands.add("teach",
                                 "step through error diffusion under a parallel schedule: an animation with "
                                 "one frame per step, or handout pages",
                                 [o]() { return runTeach(*o); });
    std::string names;
    for (const std::string& n : lessonScheduleNames()) names += (names.empty() ? "" : ", ") + n;
    sub->add_option("--schedule", o->schedule, "the schedule: " + names + " (rows and 2-delay need --race)")
        ->capture_default_str();
    sub->add_option("--size", o->size, "the lesson image, WxH, at most 32x32 (a crop of the middle of IN)")
        ->capture_default_str();
    sub->add_option("--kernel", o->kernel, "error diffusion kernel (see halftone --list-kernels)")
        ->capture_default_str();
    sub->add_option("--levels", o->levels, "output levels")->check(CLI::Range(2, 16))->capture_default_str();
    sub->add_option("--delay", o->delay, "k of the k-delay and parallelogram schedules (0: the kernel's smallest)")
        ->check(CLI::Range(0, 64));
    sub->add_flag("--race", o->race,
                  "run the steps as parallel hardware would: every pixel of a step reads the errors written before "
                  "it, so a naive order (rows, 2-delay) reads errors before they are written");
    sub->add_option("--frame-ms", o->frameMs, "milliseconds a frame is shown")
        ->check(CLI::Range(10, 60000))
        ->capture_default_str();
    sub->add_option("--steps", o->steps, "only steps FIRST-LAST (counted from 0)");
    sub->add_flag("--handout", o->handout, "write handout pages OUT-1.png, OUT-2.png, ... instead of an animation");
    sub->add_option("--page-columns", o->pageColumns, "handout: frames across a page")
        ->check(CLI::Range(1, 8))
        ->capture_default_str();
    sub->add_flag("--quiet", o->quiet, "no note on stderr");
    sub->add_option("IN", o->files[0], "input image, whose middle is cropped; leave out for a ramp");
    sub->add_option("OUT", o->files[1],
                    "output: .png (APNG), .webp, .gif, or .mp4 with ffmpeg; with --handout "
                    "the pages' name");
}

}  // namespace halftone::cli
