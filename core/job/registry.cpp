#include "core/job/registry.h"

#include "core/budget.h"
#include "core/job/names.h"
#include "core/palette/paletteed.h"
#include "core/planepool.h"
#include "core/ed/riemersma.h"
#include "core/threads.h"

#include <algorithm>
#include <cstdio>
#include <chrono>
#include <cmath>
#include <sstream>
#include <type_traits>

namespace halftone {

const char* toString(Device d) { return d == Device::Gpu ? "gpu" : "cpu"; }

const char* channelName(ColorSpace space, int index) {
    static const char* const rgb[] = {"r", "g", "b"};
    static const char* const cmyk[] = {"c", "m", "y", "k"};
    if (space == ColorSpace::RGB && index >= 0 && index < 3) return rgb[index];
    if (space == ColorSpace::CMYK && index >= 0 && index < 4) return cmyk[index];
    return "gray";
}

int64_t ParamValues::getInt(const std::string& key, int64_t def) const {
    auto it = values_.find(key);
    if (it == values_.end()) return def;
    if (auto p = std::get_if<int64_t>(&it->second)) return *p;
    if (auto p = std::get_if<double>(&it->second)) return int64_t(std::llround(*p));
    if (auto p = std::get_if<bool>(&it->second)) return *p ? 1 : 0;
    return def;
}
double ParamValues::getReal(const std::string& key, double def) const {
    auto it = values_.find(key);
    if (it == values_.end()) return def;
    if (auto p = std::get_if<double>(&it->second)) return *p;
    if (auto p = std::get_if<int64_t>(&it->second)) return double(*p);
    return def;
}
bool ParamValues::getBool(const std::string& key, bool def) const {
    auto it = values_.find(key);
    if (it == values_.end()) return def;
    if (auto p = std::get_if<bool>(&it->second)) return *p;
    if (auto p = std::get_if<int64_t>(&it->second)) return *p != 0;
    return def;
}
std::string ParamValues::getText(const std::string& key, const std::string& def) const {
    auto it = values_.find(key);
    if (it == values_.end()) return def;
    if (auto p = std::get_if<std::string>(&it->second)) return *p;
    return def;
}
std::string ParamValues::canonical() const {
    std::ostringstream s;
    for (const auto& [k, v] : values_) {
        s << k << '=';
        std::visit([&](const auto& x) { s << x; }, v);
        s << ';';
    }
    return s.str();
}

std::string paramText(const ParamValue& v) {
    if (auto p = std::get_if<int64_t>(&v)) return std::to_string(*p);
    if (auto p = std::get_if<bool>(&v)) return *p ? "true" : "false";
    if (auto p = std::get_if<std::string>(&v)) return *p;
    std::ostringstream s;
    s.precision(17);
    s << std::get<double>(v);
    return s.str();
}

ParamValue ParamSpec::defaultValue() const {
    switch (kind) {
        case Kind::Int:
            return int64_t(std::llround(def));
        case Kind::Real:
            return def;
        case Kind::Bool:
            return def != 0;
        case Kind::Choice:
            return choices.empty() ? std::string() : choices[size_t(def)];
        case Kind::Text:
            return textDefault;
    }
    return int64_t(0);
}

std::string ParamSpec::defaultText() const { return paramText(defaultValue()); }

Status ParamSpec::parse(const std::string& text, ParamValue& out) const {
    ParamValue v = defaultValue();
    const bool read = std::visit(
        [&](auto& x) {
            using T = std::decay_t<decltype(x)>;
            size_t used = 0;
            try {
                if constexpr (std::is_same_v<T, int64_t>)
                    x = int64_t(std::stoll(text, &used));
                else if constexpr (std::is_same_v<T, double>)
                    x = std::stod(text, &used);
                else if constexpr (std::is_same_v<T, bool>) {
                    const bool on = text == "true" || text == "1" || text == "yes" || text == "on";
                    const bool off = text == "false" || text == "0" || text == "no" || text == "off";
                    x = on;
                    return on || off;
                } else {
                    x = text;
                    return true;
                }
            } catch (...) {
                return false;
            }
            return used == text.size();
        },
        v);
    if (!read) return Status::error("parameter " + key + " cannot take the value '" + text + "'");
    out = std::move(v);
    return Status::ok();
}

std::string ParamSpec::choiceLabel(const std::string& value) const {
    for (const auto& [v, label] : choiceLabels)
        if (v == value) return label;
    return value;
}

int ParamSpec::partOf(const std::string& channel) const {
    for (const auto& [name, part] : partOfChannel)
        if (name == channel) return part;
    return -1;
}

bool ParamSpec::sameMeaning(const ParamSpec& o) const {
    return key == o.key && label == o.label && kind == o.kind && min == o.min && max == o.max && choices == o.choices &&
           presets == o.presets && acceptsFile == o.acceptsFile && parts == o.parts && partOfChannel == o.partOfChannel;
}

bool MethodInfo::paramApplies(const ParamSpec& p, const ParamValues& values) const {
    if (p.visibleWhen.empty()) return true;
    const size_t eq = p.visibleWhen.find('=');
    if (eq == std::string::npos) return true;
    const std::string key = p.visibleWhen.substr(0, eq);
    const ParamSpec* on = param(key);
    if (!on) return true;
    const auto it = values.all().find(key);
    std::string current = it != values.all().end() ? paramText(it->second) : on->defaultText();
    if (on->kind == ParamSpec::Kind::Bool && it != values.all().end())
        current = paramText(values.getBool(key, on->def != 0));
    std::stringstream alternatives(p.visibleWhen.substr(eq + 1));
    for (std::string v; std::getline(alternatives, v, '|');)
        if (v == current) return true;
    return false;
}

std::vector<Device> MethodInfo::devices() const {
    std::vector<Device> d;
    if (runsOnCpu()) d.push_back(Device::Cpu);
    if (gpu || (fixedPalette && paletteGpu)) d.push_back(Device::Gpu);
    return d;
}
std::string MethodInfo::devicesString() const {
    std::string s;
    for (Device d : devices()) {
        if (!s.empty()) s += ',';
        s += toString(d);
    }
    return s;
}
const ParamSpec* MethodInfo::param(const std::string& key) const {
    for (const ParamSpec& p : params)
        if (p.key == key) return &p;
    return nullptr;
}

Registry::Registry() {
    registerErrorDiffusionMethods(*this);
    registerOrderedMethods(*this);
    registerDbsMethods(*this);
    registerParallelMethods(*this);
    registerAmScreenMethods(*this);
    registerMbvqMethods(*this);
    registerRiemersmaMethods(*this);
    registerDotDiffusionMethods(*this);
}

Registry& Registry::instance() {
    static Registry r;
    return r;
}

void Registry::add(MethodInfo info) {
    if (MethodInfo* m = findMutable(info.method, info.variant)) {
        *m = std::move(info);
        return;
    }
    methods_.push_back(std::move(info));
}

void Registry::attachGpu(const std::string& method, const std::string& variant, PlaneFunction fn,
                         const std::string& schedule) {
    if (MethodInfo* m = findMutable(method, variant)) {
        m->gpu = std::move(fn);
        m->gpuSchedule = schedule;
        return;
    }
    MethodInfo info;
    info.method = method;
    info.variant = variant;
    info.gpu = std::move(fn);
    info.schedule = schedule;
    methods_.push_back(std::move(info));
}

const MethodInfo* Registry::find(const std::string& method, const std::string& variant) const {
    for (const MethodInfo& m : methods_)
        if (m.method == method && m.variant == variant) return &m;
    return nullptr;
}
MethodInfo* Registry::findMutable(const std::string& method, const std::string& variant) {
    for (MethodInfo& m : methods_)
        if (m.method == method && m.variant == variant) return &m;
    return nullptr;
}

std::vector<std::string> Registry::methodNames() const {
    std::vector<std::string> names;
    for (const MethodInfo& m : methods_)
        if (std::find(names.begin(), names.end(), m.method) == names.end()) names.push_back(m.method);
    return names;
}
std::vector<std::string> Registry::variants(const std::string& method) const {
    std::vector<std::string> v;
    for (const MethodInfo& m : methods_)
        if (m.method == method) v.push_back(m.variant);
    return v;
}

void Registry::setGpuAvailability(GpuAvailability a) {
    std::lock_guard<std::mutex> lock(gpuMutex_);
    gpuProbe_ = nullptr;
    gpu_ = std::move(a);
}

void Registry::setGpuProbe(std::function<GpuAvailability()> probe) {
    std::lock_guard<std::mutex> lock(gpuMutex_);
    gpuProbe_ = std::move(probe);
}

const GpuAvailability& Registry::gpuAvailability() const {
    std::lock_guard<std::mutex> lock(gpuMutex_);
    if (gpuProbe_) {
        gpu_ = gpuProbe_();
        gpuProbe_ = nullptr;
    }
    return gpu_;
}

std::string Registry::defaultVariant(const std::string& method) const {
    if (auto it = defaultVariants_.find(method); it != defaultVariants_.end() && find(method, it->second))
        return it->second;
    for (const MethodInfo& m : methods_)
        if (m.method == method) return m.variant;
    return {};
}

std::string Registry::displayName(const std::string& method) const {
    auto it = displayNames_.find(method);
    return it != displayNames_.end() ? it->second : method;
}

Status Registry::resolveParams(const MethodInfo& m, ParamValues& values) const {
    for (const auto& [key, value] : values.all())
        if (!m.param(key)) return Status::error("method " + m.id() + " has no parameter '" + key + "'");
    for (const ParamSpec& p : m.params) {
        const bool given = values.has(p.key);
        switch (p.kind) {
            case ParamSpec::Kind::Int: {
                const int64_t v = values.getInt(p.key, int64_t(p.def));
                if (v < p.min || v > p.max) {
                    std::ostringstream s;
                    s << p.key << " must be between " << p.min << " and " << p.max << ", got " << v;
                    return Status::error(s.str());
                }
                values.set(p.key, v);
                break;
            }
            case ParamSpec::Kind::Real: {
                const double v = values.getReal(p.key, p.def);
                if (!(v >= p.min && v <= p.max)) {
                    std::ostringstream s;
                    s << p.key << " must be between " << p.min << " and " << p.max << ", got " << v;
                    return Status::error(s.str());
                }
                values.set(p.key, v);
                break;
            }
            case ParamSpec::Kind::Bool:
                values.set(p.key, values.getBool(p.key, p.def != 0));
                break;
            case ParamSpec::Kind::Choice: {
                const std::string def = p.choices.empty() ? std::string() : p.choices[size_t(p.def)];
                const std::string v = values.getText(p.key, def);
                const std::string match = matchName(p.key, v, p.choices);
                if (match.empty()) {
                    std::string all;
                    for (const auto& c : p.choices) all += (all.empty() ? "" : ", ") + c;
                    return Status::error("unknown " + p.key + " '" + v + "'" + didYouMean(v, p.choices) +
                                         "; choose one of: " + all);
                }
                values.set(p.key, match);
                break;
            }
            case ParamSpec::Kind::Text:
                if (!given) values.set(p.key, p.textDefault);
                if (given && p.check)
                    if (Status s = p.check(values.getText(p.key, p.textDefault)); !s) return s;
                break;
        }
    }
    return m.checkParams ? m.checkParams(values) : Status::ok();
}

namespace {

/// The methods that have a palette form, for messages ("ed/plain, ed/rc, ...").
std::string paletteMethodList() {
    std::string list;
    for (const MethodInfo& m : Registry::instance().methods())
        if (m.hasPaletteForm()) list += (list.empty() ? "" : ", ") + m.id();
    return list.empty() ? std::string("none in this build") : list;
}

}  // namespace

Device chooseDevice(const MethodInfo& m, double pixels, const ParamValues& params, const RunRequest& request,
                    const RunControl& control, std::string& why) {
    if (m.cost.cpuNs <= 0 || m.cost.gpuNs <= 0) {
        why = "auto: the GPU (no measured costs for " + m.id() + ")";
        return Device::Gpu;
    }
    const int threads =
        m.cost.cpuParallel ? threadsOrAll(int(params.getInt("threads", control.threads > 0 ? control.threads : 0))) : 1;
    const double cpu = pixels * m.cost.cpuNs * 1e-9 / threads;
    const double start = Registry::instance().gpuAvailability().startRemaining
                             ? Registry::instance().gpuAvailability().startRemaining()
                             : 0.0;
    const int shared = std::max(1, request.concurrentRuns);
    const double gpu = start + pixels * m.cost.gpuNs * 1e-9 * shared;
    const Device pick = gpu < cpu ? Device::Gpu : Device::Cpu;
    char text[256];
    std::snprintf(text, sizeof text,
                  "auto: the %s (estimates: GPU %.1f ms = start-up %.1f ms + %.0f pixels%s; CPU %.1f ms on %d "
                  "thread%s)",
                  pick == Device::Gpu ? "GPU" : "CPU", gpu * 1e3, start * 1e3, pixels,
                  shared > 1 ? (" x " + std::to_string(shared) + " runs sharing the device").c_str() : "", cpu * 1e3,
                  threads, threads == 1 ? "" : "s");
    why = text;
    return pick;
}

namespace {

/// The note of a run the GPU handed to the CPU: a request the GPU does not offer (a kernel it lacks) says so in one
/// line when the GPU was asked for and nothing under the automatic choice; a failure always says what failed.
std::string fallbackNote(const Status& s, bool deviceAsked) {
    if (s.isNotOffered()) return deviceAsked ? s.message() : std::string();
    return "GPU failed (" + s.message() + "), ran on the CPU";
}

/// runImage's body; `consumable` is &input when the caller gives its input up (planes may be halftoned in place).
Status runImageImpl(const Image& input, Image* consumable, const RunRequest& request, RunResult& result,
                    const RunControl& control) {
    if (!request.method) return Status::error("no method chosen");
    const MethodInfo& m = *request.method;
    ParamValues params = request.params;
    if (Status s = Registry::instance().resolveParams(m, params); !s) return s;
    if (input.channels.empty()) return Status::error("image has no channels");

    // Asked only where the answer matters: a CPU run never probes the GPU.
    auto gpu = [] { return Registry::instance().gpuAvailability(); };
    const std::optional<Palette>& palette = request.palette ? request.palette : m.fixedPalette;
    const bool toPalette = palette.has_value();
    if (toPalette) {
        if (!m.hasPaletteForm())
            return Status::error("method " + m.id() +
                                 " cannot halftone to a palette; methods that can: " + paletteMethodList());
        if (Status s = checkPalette(*palette); !s) return s;
    }
    const bool hasCpu = toPalette ? bool(m.paletteCpu) : bool(m.cpu);
    const bool hasGpu = toPalette ? bool(m.paletteGpu) : bool(m.gpu);
    const std::string form = toPalette ? " to a palette" : "";
    Device device;
    std::string note;
    if (request.device) {
        device = *request.device;
        if (device == Device::Gpu && !hasGpu)
            return Status::error("method " + m.id() + form + " has no GPU implementation");
        if (device == Device::Cpu && !hasCpu) return Status::error("method " + m.id() + form + " runs only on the GPU");
        if (device == Device::Gpu && !gpu().usable) {
            if (!hasCpu) return Status::unavailable("no usable GPU: " + gpu().reason);
            note = "GPU not usable (" + gpu().reason + "), ran on the CPU";
            device = Device::Cpu;
        }
    } else {
        device = (hasGpu && gpu().usable) || !hasCpu ? Device::Gpu : Device::Cpu;
        if (device == Device::Gpu && !gpu().usable) return Status::unavailable("no usable GPU: " + gpu().reason);
        if (device == Device::Gpu && hasCpu && !toPalette)
            device = chooseDevice(m, double(input.width()) * input.height() * std::max(1, input.channelCount()), params,
                                  request, control, result.choice);
    }

    if (request.maxMemory > 0) {
        // The converted planes, the output planes and the method's working memory for one plane (the planes
        // run one after another), before any of it is allocated. A palette run holds three input planes, the
        // indices and three output planes.
        const uint64_t pixels = mulBytes(uint64_t(input.width()), uint64_t(input.height()));
        const uint64_t channels = toPalette                          ? 3
                                  : request.color == ColorMode::Gray ? 1
                                  : request.color == ColorMode::RGB  ? 3
                                                                     : 4;
        uint64_t bytes = mulBytes(pixels, toPalette ? 7 : 2 * channels);
        bytes = addBytes(bytes, mulBytes(pixels, input.hasAlpha ? 2 : 0));
        if (device == Device::Cpu && m.workingBytes)
            bytes = addBytes(bytes, m.workingBytes(input.width(), input.height(), params));
        if (Status s =
                checkMemory(bytes, request.maxMemory,
                            m.id() + " on " + std::to_string(input.width()) + " x " + std::to_string(input.height()));
            !s)
            return s;
    }
    if (toPalette) {
        params.set("linear", request.paletteSpace == PaletteSpace::Linear);
        params.set(kPaletteMatchKey, std::string(toString(request.paletteMatch)));
        Image converted;
        const bool same = isColorIdentity(input, ColorMode::RGB, SeparationParams{});
        if (!same) converted = convertColor(input, ColorMode::RGB);
        if (request.tone != ToneMap::None || request.gamut != GamutMap::None) {
            if (same) converted = input;
            if (Status s = mapToPalette(converted, *palette, request.tone, request.gamut, control); !s) return s;
        }
        const bool mapped = request.tone != ToneMap::None || request.gamut != GamutMap::None;
        const Image& rgb = same && !mapped ? input : converted;
        const auto t0 = std::chrono::steady_clock::now();
        Plane8 indices;
        Status s = (device == Device::Gpu ? m.paletteGpu : m.paletteCpu)(rgb, *palette, indices, params, control);
        if (!s && s.isUnavailable() && device == Device::Gpu && m.paletteCpu) {
            note = fallbackNote(s, request.device.has_value());
            device = Device::Cpu;
            s = m.paletteCpu(rgb, *palette, indices, params, control);
        }
        if (!s) return s;
        result.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        if (!request.paletteCodes.empty()) {
            // The device's codes: colour k of the palette is written as index paletteCodes[k] of writtenPalette.
            if (request.paletteCodes.size() != size_t(palette->size()) ||
                *std::max_element(request.paletteCodes.begin(), request.paletteCodes.end()) >=
                    request.writtenPalette.size())
                return Status::error("the palette's codes do not match its " + std::to_string(palette->size()) +
                                     " colours");
            for (uint8_t& v : indices.data) v = request.paletteCodes[v];
        }
        Image out = expandIndexed(indices, request.paletteCodes.empty() ? *palette : request.writtenPalette);
        if (request.keepAlpha && rgb.hasAlpha) {
            out.hasAlpha = true;
            out.alpha = rgb.alpha;
        }
        result.image = std::move(out);
        result.device = device;
        result.note = note;
        control.report(1.0);
        return Status::ok();
    }
    if (Status s = checkSeparation(request.separation); !s) return s;
    // The input's own planes when no conversion is needed: a copy would add a whole image to the peak memory.
    Image converted;
    const bool same = isColorIdentity(input, request.color, request.separation);
    if (!same) converted = convertColor(input, request.color, request.separation);
    const Image& planes = same ? input : converted;
    Image out;
    out.space = planes.space;
    if (request.keepAlpha && planes.hasAlpha) {
        out.hasAlpha = true;
        out.alpha = planes.alpha;
    }
    const auto t0 = std::chrono::steady_clock::now();
    const int n = planes.channelCount();
    for (int c = 0; c < n; ++c) {
        const std::string stage = n > 1 ? "channel " + std::to_string(c + 1) + "/" + std::to_string(n) : std::string();
        const RunControl sub = control.scaled(double(c) / n, double(c + 1) / n, stage);
        Plane8 dst;
        ParamValues planeParams = params;
        planeParams.set(kChannelKey, std::string(channelName(planes.space, c)));
        if (consumable && same && device == Device::Cpu && m.cpuInPlace && m.cpuInPlace(planeParams)) {
            // The input's plane becomes the output: no output plane to allocate and first touch.
            Plane8& plane = consumable->channels[size_t(c)];
            if (Status s = m.cpu(plane, plane, planeParams, sub); !s) return s;
            out.channels.push_back(std::move(plane));
            continue;
        }
        const Plane8& src = planes.channels[size_t(c)];
        // A GPU plane function overwrites every pixel of a dst of the src's size (MethodInfo::gpu), so the output
        // plane may be a released one: no new plane to first touch. CPU functions get an empty dst.
        if (device == Device::Gpu) dst = PlanePool::instance().take(src.width, src.height);
        Status s = (device == Device::Gpu ? m.gpu : m.cpu)(src, dst, planeParams, sub);
        if (!s && s.isUnavailable() && device == Device::Gpu && m.cpu) {
            note = fallbackNote(s, request.device.has_value());
            device = Device::Cpu;
            PlanePool::instance().release(std::move(dst));
            dst = Plane8();
            s = m.cpu(src, dst, planeParams, sub);
        }
        if (!s) {
            PlanePool::instance().release(std::move(dst));
            for (Plane8& done : out.channels) PlanePool::instance().release(std::move(done));
            return s;
        }
        out.channels.push_back(std::move(dst));
    }
    result.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    result.image = std::move(out);
    result.device = device;
    result.note = note;
    control.report(1.0);
    return Status::ok();
}

}  // namespace

Status runImage(const Image& input, const RunRequest& request, RunResult& result, const RunControl& control) {
    return runImageImpl(input, nullptr, request, result, control);
}

Status runImage(Image&& input, const RunRequest& request, RunResult& result, const RunControl& control) {
    return runImageImpl(input, &input, request, result, control);
}

}  // namespace halftone
