#pragma once
// \brief The options that describe a halftoning job on the command line, shared by `halftone IN OUT` and
// `halftone batch`, and the run of one file: check the output, read, prepare, halftone, write.
#include <CLI/CLI.hpp>

#include <cstdint>
#include <deque>
#include <functional>
#include <string>

#include "core/job/job.h"
#include "core/job/registry.h"
#include "core/runcontrol.h"
#include "io/imagefile.h"

namespace halftone::cli {

/// \brief One `--key` option generated from a method parameter and where CLI11 stores its value.
struct MethodOption {
    std::string key;
    ParamValue stored;  ///< of the type of the parameter's default (ParamSpec::defaultValue); CLI11 writes into it
    CLI::Option* option = nullptr;

    ParamValue value() const { return stored; }
};

/// \brief Every option that describes the job; values stay at their defaults unless the command line gives them.
struct JobOptions {
    std::string preset, savePreset;
    std::string method, variant, color = "gray", palette, savePalette, device = "auto", target;
    std::string space, match;  ///< --space linear|gamma, --match euclidean|weighted
    int64_t gcr = 100, inkLimit = 400, threads = 0;
    bool keepAlpha = false;
    int64_t width = 0, height = 0, pixelSize = 1, blackPoint = 0, whitePoint = 255;
    double scale = 0, brightness = 0, contrast = 0, gamma = 1, saturation = 100, sharpen = 0, sharpenRadius = 1;
    std::string fit = "inside", resizeFilter = "lanczos", resizeSpace = "linear", printSize;
    std::string gravity = "center", rotate = "auto", background;
    std::string tone = "none", gamut = "none";
    std::string format;   ///< output format by extension (batch outputs, standard output); kept in presets
    std::string dotGain;  ///< --dot-gain: percents at 50 % or a curve file
    std::string iccIn, iccOut, intent = "relative";  ///< --icc-in, --icc-out, --intent: separation by ICC profiles
    double dpi = 0;
    std::map<std::string, CLI::Option*> options;  ///< by name without dashes: tells what the command line set
    std::deque<MethodOption> methodOptions;

    bool given(const std::string& name) const;
    /// \brief Whether a preset keeps option `name` (without dashes): every job option and method option but those
    /// that name the files of one run (--preset, --save-preset, --save-palette).
    bool keptInPresets(const std::string& name) const;
};

/// \brief Options about files rather than the job: limits, lossy formats, progress and timing.
struct FileOptions {
    int64_t maxPixels = 0;
    std::string maxMemory;  ///< empty: half the physical memory
    bool force = false;
    std::string compress = "fast";  ///< --compress: fast, default, best or a zlib level (io::parseCompression)
    bool progress = false;
    bool time = false;
    int concurrentRuns = 1;  ///< files run at once (a batch's jobs): they share the GPU, which the device choice counts
    bool quiet = false;
    bool json = false;  ///< --time (and the --list commands) as JSON
    /// Seconds from the process's start to a batch's first file, which --time gives as every file's start-up (with
    /// the library loading the file itself waited for); negative for a single file, whose start-up is all the time
    /// outside its stages.
    double batchStartup = -1;
    bool plates = false;  ///< --plates: a CMYK result as one 1-bit TIFF per ink
    std::string proof;    ///< --proof FILE: the RGB picture of a CMYK result as printed
};

/// \brief Seconds since the process started, the dynamic loader's work included.
double secondsSinceStart();

/// \brief Registers the job options (and one option per method parameter key) on `app`.
void addJobOptions(CLI::App& app, JobOptions& o);
/// \brief Registers the file options on `app`.
void addFileOptions(CLI::App& app, FileOptions& o);

/// \brief The job the options describe: the preset file's job (--preset), then every option the command line gives.
/// Returns kExitOk, or prints the problem and returns its exit code.
int buildJob(const JobOptions& o, JobSettings& job);

/// \brief Saves the job to --save-preset when it is given, after checking that path against every file the run reads
/// (`inputs`, and the --palette file) and writes (`outputs`). Returns kExitOk, or prints the problem and its exit code.
int saveJobPreset(const JobOptions& o, const JobSettings& job, std::vector<io::JobFile> inputs,
                  std::vector<io::JobFile> outputs);

/// \brief Refuses an empty value (an unset shell variable): for options that name a file, a palette or a part.
const CLI::Validator& nonEmpty();

/// \brief Checks the file options once (--max-pixels, --max-memory, --compress) and applies --quiet; prints and returns
/// the exit code.
int checkFileOptions(const FileOptions& o, uint64_t& maxMemory);

/// \brief The option groups of `halftone --help`, in the order they are shown.
namespace group {
inline constexpr const char* kInput = "Input";
inline constexpr const char* kPrepare =
    "Prepare (before halftoning: rotate, frame, resize, levels, tone, saturation, sharpen)";
inline constexpr const char* kMethod = "Method";
inline constexpr const char* kColour = "Colour and palette";
inline constexpr const char* kPrint = "Print";
inline constexpr const char* kOutput = "Output";
inline constexpr const char* kPerformance = "Performance";
inline constexpr const char* kInformation = "Information";
}  // namespace group

/// \brief What one file's run ended with: kExitOk, or an exit code and the message (not yet printed).
struct FileOutcome {
    int code = 0;
    std::string message;
};

/// \brief Runs the job on one file, from reading INPUT to OUTPUT written complete (or not at all), and writes the
/// palette used to `savePalette` when given. Notes (fallbacks, conversions) go to `onNote`.
/// \brief Starts the GPU in the background (gpu::startInBackground) when `job` may run on it: device gpu or auto and
/// a method with a GPU form; returns whether it did. A CPU job never creates a CUDA context.
bool startDeviceFor(const JobSettings& job);

/// `label` names the file in --time's lines (batch runs: the input), empty for a single file; `shownInput` and
/// `shownOutput` are the names --time's JSON gives ("-" for standard input or output).
FileOutcome runFile(const JobSettings& job, const FileOptions& fo, uint64_t maxMemory, const std::string& input,
                    const std::string& output, const std::string& savePalette, const RunControl& control,
                    const std::function<void(const std::string&)>& onNote, const std::string& label = {},
                    const std::string& shownInput = {}, const std::string& shownOutput = {});

}  // namespace halftone::cli
