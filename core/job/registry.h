#pragma once
// \brief The one method registry that the CLI, the benchmark, the studio and the tests list and run from.
#include <cstdint>
#include <functional>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "core/image.h"
#include "core/palette/gamut.h"
#include "core/palette/palette.h"
#include "core/palette/target.h"
#include "core/runcontrol.h"
#include "core/status.h"

namespace halftone {

enum class Device { Cpu, Gpu };
const char* toString(Device d);

/// \brief Describes one parameter of a method: key, kind, range, default, help.
struct ParamSpec {
    enum class Kind { Int, Real, Bool, Choice, Text };
    std::string key;    ///< CLI-style key, e.g. "levels"
    std::string label;  ///< human label, e.g. "Output levels"
    Kind kind = Kind::Int;
    double min = 0, max = 0, def = 0;  ///< Int/Real range and default; Bool default in def (0/1)
    std::vector<std::string> choices;  ///< Choice: allowed values; default = choices[def]
    std::string textDefault;           ///< Text default
    std::string help;
    /// Applicability, as data: "key=value" or "key=v1|v2" (values in paramText form: "true"/"false" for a
    /// Bool); empty = always applies. A parameter that does not apply is hidden in the studio and ignored
    /// by the method.
    std::string visibleWhen;
    /// Text: named values a user picks from (value, label) instead of typing; a value outside the list is
    /// still valid where the method accepts it (e.g. a file path for a screen).
    std::vector<std::pair<std::string, std::string>> presets;
    /// Text: the value may be a file path (the studio offers "From file...").
    bool acceptsFile = false;
    /// Text: a comma-separated list of numbers, one per part named here (the AM screen's ink angles: "C", "M", "Y",
    /// "K"), or one number for every part; the studio shows one number field per part, each holding [min, max] with
    /// two decimals. The method's `check` still decides what the text may be.
    std::vector<std::string> parts;
    /// Text with parts: the part each channel of a run takes (kChannelKey values "c", "m", "y", "k", "r", "g", "b",
    /// "gray"), so the studio enables only the parts the colour mode uses; empty: every channel uses every part.
    std::vector<std::pair<std::string, int>> partOfChannel;
    /// \brief The part `channel` takes (partOfChannel), or -1 when the table does not name it.
    int partOf(const std::string& channel) const;
    /// Choice: what a person reads for a value (value, label), e.g. ("nasanen", "Nasanen"); values without one show as
    /// is.
    std::vector<std::pair<std::string, std::string>> choiceLabels;

    /// Text: checks a value before any image is read (a screen's spec, the ink angles), so a mistyped value is a
    /// usage error found once, not one failure per file; empty = every text is accepted here.
    std::function<Status(const std::string& value)> check;

    /// \brief The label of a Choice value (the value itself when it has none).
    std::string choiceLabel(const std::string& value) const;

    /// \brief The default as a value of the kind's type (Int: int64_t, Real: double, Bool: bool, Choice and Text:
    /// std::string); front ends adapt their own types to this one.
    std::variant<int64_t, double, bool, std::string> defaultValue() const;
    /// \brief The default as text (paramText form).
    std::string defaultText() const;
    /// \brief Reads `text` as a value of this parameter's kind: Int and Real whole text as a number, Bool
    /// true/false/1/0/yes/no/on/off, Choice and Text as is (ranges and choices are checked by
    /// Registry::resolveParams); an error naming the parameter and the text otherwise.
    Status parse(const std::string& text, std::variant<int64_t, double, bool, std::string>& out) const;
    /// \brief True when a value set for `other` means the same here: same key, label, kind, range, choices and
    /// presets (ordered dither's "Screen" and clip-free DBS's "Clip-free screen" share a key, not a meaning).
    bool sameMeaning(const ParamSpec& other) const;
};

/// \brief An Int parameter with range and default.
inline ParamSpec intParam(std::string key, std::string label, double min, double max, double def, std::string help) {
    ParamSpec p;
    p.key = std::move(key);
    p.label = std::move(label);
    p.kind = ParamSpec::Kind::Int;
    p.min = min;
    p.max = max;
    p.def = def;
    p.help = std::move(help);
    return p;
}
/// \brief A Real parameter with range and default.
inline ParamSpec realParam(std::string key, std::string label, double min, double max, double def, std::string help) {
    ParamSpec p = intParam(std::move(key), std::move(label), min, max, def, std::move(help));
    p.kind = ParamSpec::Kind::Real;
    return p;
}
/// \brief A Bool parameter (a flag in the CLI, a check box in the studio).
inline ParamSpec boolParam(std::string key, std::string label, bool def, std::string help) {
    ParamSpec p = intParam(std::move(key), std::move(label), 0, 1, def ? 1 : 0, std::move(help));
    p.kind = ParamSpec::Kind::Bool;
    return p;
}
/// \brief A Choice parameter; the default is choices[defIndex].
inline ParamSpec choiceParam(std::string key, std::string label, std::vector<std::string> choices, int defIndex,
                             std::string help) {
    ParamSpec p = intParam(std::move(key), std::move(label), 0, 0, defIndex, std::move(help));
    p.kind = ParamSpec::Kind::Choice;
    p.choices = std::move(choices);
    return p;
}

using ParamValue = std::variant<int64_t, double, bool, std::string>;

/// \brief A value as text: integers in decimal, reals shortest round-trip, bools "true"/"false", text as is.
std::string paramText(const ParamValue& v);

/// \brief Parameter values by key; missing keys take the spec's default.
class ParamValues {
public:
    void set(const std::string& key, ParamValue v) { values_[key] = std::move(v); }
    bool has(const std::string& key) const { return values_.count(key) != 0; }
    int64_t getInt(const std::string& key, int64_t def) const;
    double getReal(const std::string& key, double def) const;
    bool getBool(const std::string& key, bool def) const;
    std::string getText(const std::string& key, const std::string& def) const;
    const std::map<std::string, ParamValue>& all() const { return values_; }
    /// \brief Stable text form "k=v;k=v" (sorted keys), used as a cache key.
    std::string canonical() const;

private:
    std::map<std::string, ParamValue> values_;
};

/// \brief The parameter key runImage sets on each plane's ParamValues (not a ParamSpec: it is never resolved or
/// shown) to say which channel the plane is: "gray", "r", "g", "b" (light: 255 = white paper) or "c", "m", "y",
/// "k" (ink: 255 = solid ink). A method called on a lone plane sees no key and treats it as "gray".
inline constexpr const char* kChannelKey = "channel";
/// \brief The kChannelKey value of channel `index` of an image in `space`.
const char* channelName(ColorSpace space, int index);

/// \brief Runs a method on one 8-bit plane; dst gets the halftone (values 0..255) of the same size.
using PlaneFunction = std::function<Status(const Plane8& src, Plane8& dst, const ParamValues&, const RunControl&)>;

/// \brief Runs a method to a colour palette (docs/spec.md section 4): `rgb` holds three planes R, G, B (gray input
/// as the same plane three times); `indices` gets each pixel's palette index, same size.
using PaletteFunction = std::function<Status(const Image& rgb, const Palette& palette, Plane8& indices,
                                             const ParamValues&, const RunControl&)>;

/// \brief Runs a binary method on one 8-bit plane straight to 1-bit rows (PBM P4 layout: (W + 7) / 8 bytes a row,
/// leftmost pixel in the most significant bit, 1 = black); Status::unavailable when it does not apply to these
/// parameters or no device is usable (the caller then runs the plane form).
using PackedFunction =
    std::function<Status(const Plane8& src, std::vector<uint8_t>& rows, const ParamValues&, const RunControl&)>;

/// \brief One selectable (method, variant) pair.
struct MethodInfo {
    std::string method;       ///< "ed", "ec", "ordered", "dbs", ...
    std::string variant;      ///< "plain", "rc", ...
    std::string description;  ///< one line, for --list and tooltips
    std::string family;       ///< "error-diffusion", "ordered", "dbs": groups methods in the UI
    std::vector<ParamSpec> params;
    PlaneFunction cpu;  ///< may be empty for GPU-only methods
    /// Empty when no GPU implementation exists. Called with dst empty or of the src's size holding an old result's
    /// pixels (runImage takes it from the PlanePool): it overwrites every pixel of it or replaces it.
    PlaneFunction gpu;
    PackedFunction gpuPacked;    ///< the GPU form with 1-bit output made on the device (PBM output); may be empty
    std::string schedule;        ///< name in the schedule model, empty if none
    std::string gpuSchedule;     ///< the GPU path's name in the schedule model when it differs from `schedule`
    PaletteFunction paletteCpu;  ///< halftoning to a palette on the CPU; empty when the method has no palette form
    PaletteFunction paletteGpu;  ///< the same on the GPU; empty when none
    bool hasPaletteForm() const { return paletteCpu || paletteGpu; }
    /// Set: the method always halftones to a palette; runImage uses this one when the request names none (MBVQ's
    /// eight RGB-cube corners).
    std::optional<Palette> fixedPalette;
    /// \brief Whether a plain run (no palette requested) can run on the CPU: a plane form, or a fixed palette's form.
    bool runsOnCpu() const { return cpu || (fixedPalette && paletteCpu); }
    /// \brief Bytes the CPU implementation allocates for one plane of width x height beyond its input and
    /// output (DBS's double-precision error planes); empty when that is small. runImage checks it first.
    std::function<uint64_t(int width, int height, const ParamValues&)> workingBytes;
    /// \brief Checks across parameters on the values resolveParams made (an AM screen's cell of dpi / lpi pixels);
    /// empty when each parameter's own range and check say all. Its refusal is the job's, found before any file is
    /// read.
    std::function<Status(const ParamValues& resolved)> checkParams;
    bool exact = true;  ///< bit-identical to the sequential SPEC reference
    /// \brief Set and true for these parameters: `cpu` may be called with `dst` the very plane `src` (each pixel's
    /// input is read before its output is written and never after), so a caller that gives up its input needs no
    /// second plane. Checked for every method and parameter set that claims it by test_registry_exact.
    std::function<bool(const ParamValues&)> cpuInPlace;
    /// The sequential reference an exact method outside section 1's error diffusion must equal bit for bit (dot
    /// diffusion's, docs/spec.md section 7); empty for error diffusion, whose reference is referenceErrorDiffusion.
    PlaneFunction reference;
    /// \brief What one pixel costs on each device, from the benchmark's measurements (docs/performance.md); the
    /// automatic device choice compares them. Zero: not measured (the automatic choice then takes the GPU when usable).
    struct Cost {
        double cpuNs = 0;          ///< ns a pixel on one CPU thread
        bool cpuParallel = false;  ///< the CPU form divides its work among its threads
        double gpuNs = 0;          ///< ns a pixel on a started GPU, host memory to host memory, transfers included
    } cost;

    std::vector<Device> devices() const;
    std::string devicesString() const;  ///< "cpu", "gpu" or "cpu,gpu"
    std::string id() const { return method + "/" + variant; }
    /// \brief The schedule that runs on `device`: gpuSchedule on the GPU when set, else schedule.
    const std::string& scheduleOn(Device device) const {
        return device == Device::Gpu && !gpuSchedule.empty() ? gpuSchedule : schedule;
    }
    const ParamSpec* param(const std::string& key) const;
    /// \brief Whether parameter `p` applies given the other values (its visibleWhen condition); values
    /// missing from `values` count as their defaults.
    bool paramApplies(const ParamSpec& p, const ParamValues& values) const;
};

/// \brief A method's entry with its names, family and description; the caller adds its parameters and forms.
inline MethodInfo describeMethod(std::string method, std::string variant, std::string family, std::string description) {
    MethodInfo m;
    m.method = std::move(method);
    m.variant = std::move(variant);
    m.family = std::move(family);
    m.description = std::move(description);
    return m;
}

/// \brief Tells whether a GPU is usable and why not; set by the GPU module, defaults to "not built".
struct GpuAvailability {
    bool usable = false;
    std::string reason = "this build has no GPU support";
    std::string deviceName;
    /// Seconds until the device is started (its context made and kernels loaded: 0 once it is), for the automatic
    /// device choice; empty: taken as 0.
    std::function<double()> startRemaining;
};

/// \brief The method registry: every algorithm registers here once.
class Registry {
public:
    /// \brief The process-wide registry with all core methods (and GPU ones once gpu::registerMethods ran).
    static Registry& instance();

    void add(MethodInfo info);
    /// \brief Adds a GPU implementation to an existing entry (or creates a GPU-only one if absent); `schedule` names
    /// the GPU path's schedule in the schedule model (MethodInfo::gpuSchedule).
    void attachGpu(const std::string& method, const std::string& variant, PlaneFunction fn,
                   const std::string& schedule = {});
    const MethodInfo* find(const std::string& method, const std::string& variant) const;
    MethodInfo* findMutable(const std::string& method, const std::string& variant);
    const std::vector<MethodInfo>& methods() const { return methods_; }
    std::vector<std::string> methodNames() const;                        ///< distinct methods in order
    std::vector<std::string> variants(const std::string& method) const;  ///< variants of one method
    /// \brief The variant run when only the method is named (studio and CLI alike): the one set by
    /// setDefaultVariant, else the first registered.
    std::string defaultVariant(const std::string& method) const;
    void setDefaultVariant(const std::string& method, const std::string& variant) {
        defaultVariants_[method] = variant;
    }
    /// \brief The full name of a method for menus and lists ("Error diffusion"); the method id when none is set.
    std::string displayName(const std::string& method) const;
    void setDisplayName(const std::string& method, const std::string& name) { displayNames_[method] = name; }

    /// \brief Sets the GPU state now (replaces any probe not yet run).
    void setGpuAvailability(GpuAvailability a);
    /// \brief Sets how the GPU state is found; it runs on the first call of gpuAvailability(), so a program that
    /// never asks (a PNM-to-PBM run on the CPU, --list-kernels) never pays for creating a CUDA context.
    void setGpuProbe(std::function<GpuAvailability()> probe);
    /// \brief The GPU state, probed on first use when a probe is set (thread-safe).
    const GpuAvailability& gpuAvailability() const;

    /// \brief Fills missing values with defaults and checks ranges and choices against the specs.
    Status resolveParams(const MethodInfo& m, ParamValues& values) const;

private:
    Registry();
    std::vector<MethodInfo> methods_;
    std::map<std::string, std::string> defaultVariants_, displayNames_;
    mutable std::mutex gpuMutex_;
    mutable std::function<GpuAvailability()> gpuProbe_;
    mutable GpuAvailability gpu_;
};

/// \brief How to run a method on a whole image.
struct RunRequest {
    const MethodInfo* method = nullptr;
    ParamValues params;
    std::optional<Device> device;  ///< unset = auto (chooseDevice)
    ColorMode color = ColorMode::Gray;
    SeparationParams separation;  ///< GCR and ink limit of ColorMode::CMYK (docs/spec.md "Separation into inks")
    /// Set: halftone to these colours with the method's palette form (`color` is then ignored); the result is RGB
    /// with Image::palette and Image::indices filled.
    std::optional<Palette> palette;
    /// The working space and the nearest-colour match of a run to a palette (a named one or the method's fixed one;
    /// docs/spec.md section 4): runImage gives them to the palette form as its "linear" and kPaletteMatchKey values,
    /// in place of the method's own "linear", which keeps its meaning for gray and per-channel runs.
    PaletteSpace paletteSpace = PaletteSpace::Linear;
    PaletteMatch paletteMatch = PaletteMatch::Euclidean;
    /// With a palette: the index written for each of its colours (a device driver's codes, docs/targets.md) and the
    /// palette the result carries at those indices; empty: colour k is written as index k of `palette`.
    std::vector<uint8_t> paletteCodes;
    Palette writtenPalette;
    /// The device the job is for (resolveJob sets it from JobSettings::target): the simulated panel shows the result in
    /// its shown colours and measures it (core/palette/panel.h). runImage does not read it.
    std::optional<Target> target;
    /// With a palette: the image's tone and gamut mapped into the palette's colours before the method (mapToPalette).
    ToneMap tone = ToneMap::None;
    GamutMap gamut = GamutMap::None;
    bool keepAlpha = true;
    uint64_t maxMemory = 0;  ///< bytes the run may allocate (planes + working memory), checked first; 0 = no limit
    /// Runs that share the device at once (a batch's files): the automatic device choice counts a GPU run that many
    /// times, since the device takes them one after another.
    int concurrentRuns = 1;
};

/// \brief Result of runImage: the halftone and what actually ran.
struct RunResult {
    Image image;
    Device device = Device::Cpu;
    std::string note;      ///< e.g. "GPU unusable (...), ran on the CPU"
    std::string choice;    ///< under the automatic device choice: which device and why (for --time)
    double seconds = 0.0;  ///< wall time of the method itself (no I/O)
};

/// \brief Converts colour, runs the method per channel (progress scaled over channels), picks the device,
/// and falls back to the CPU with a note when the GPU path fails as unavailable.
Status runImage(const Image& input, const RunRequest& request, RunResult& result, const RunControl& control = {});
/// \brief The same, for a caller that gives up its input: where the method can halftone a plane in place
/// (MethodInfo::cpuInPlace) and no colour conversion is needed, the input's planes become the output's, so the run
/// allocates no output planes. `input` is left in an unspecified state (whether the run succeeded or not).
Status runImage(Image&& input, const RunRequest& request, RunResult& result, const RunControl& control = {});

/// \brief The automatic choice between a usable GPU and the CPU for a run of `pixels` (width x height x channels):
/// the device with the smaller estimate from the method's measured costs (MethodInfo::Cost), the GPU's remaining
/// start-up and the runs sharing it (RunRequest::concurrentRuns); `why` says what was compared. Without measured
/// costs the GPU is taken.
Device chooseDevice(const MethodInfo& m, double pixels, const ParamValues& params, const RunRequest& request,
                    const RunControl& control, std::string& why);

// Registration hooks of the core modules; each lives beside its algorithm.
void registerErrorDiffusionMethods(Registry& r);
void registerOrderedMethods(Registry& r);
void registerDbsMethods(Registry& r);
void registerParallelMethods(Registry& r);
void registerAmScreenMethods(Registry& r);  ///< core/screen/amscreen.cpp
void registerMbvqMethods(Registry& r);
void registerDotDiffusionMethods(Registry& r);  ///< core/ed/dotdiffusion.cpp

}  // namespace halftone
