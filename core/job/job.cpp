#include "core/job/job.h"

#include <algorithm>

#include "core/job/names.h"
#include "core/palette/palette.h"

namespace halftone {

namespace {

std::string joined(const std::vector<std::string>& v) {
    std::string s;
    for (const auto& x : v) s += (s.empty() ? "" : ", ") + x;
    return s;
}

/// The ICC profiles' rules that need no file: an output profile to separate into, CMYK output, and no GCR beside it.
Status checkIccJob(const JobSettings& job) {
    const IccProfiles& icc = job.icc;
    if (icc.empty()) {
        if (!icc.input.empty())
            return Status::error("--icc-in '" + icc.input + "' needs --icc-out, the CMYK profile to separate into");
        if (icc.intent != IccProfiles{}.intent)
            return Status::error("--intent needs --icc-out, the CMYK profile to separate into");
        return Status::ok();
    }
    if (job.color != ColorMode::CMYK || !job.palette.empty())
        return Status::error("--icc-out '" + icc.output + "' separates into inks: it needs --color cmyk");
    if (job.separation.gcr != SeparationParams{}.gcr)
        return Status::error("--gcr does not apply with --icc-out '" + icc.output +
                             "': the profile sets the black generation; leave out --gcr");
    return Status::ok();
}

}  // namespace

bool operator==(const JobSettings& a, const JobSettings& b) {
    return a.method == b.method && a.variant == b.variant && a.params.canonical() == b.params.canonical() &&
           a.color == b.color && a.palette == b.palette && a.target == b.target && a.tone == b.tone &&
           a.gamut == b.gamut && a.paletteSpace == b.paletteSpace && a.paletteMatch == b.paletteMatch &&
           a.device == b.device && a.threads == b.threads && a.keepAlpha == b.keepAlpha && a.prepare == b.prepare &&
           a.printSize == b.printSize && a.dpi == b.dpi && a.format == b.format &&
           a.separation.gcr == b.separation.gcr && a.separation.inkLimit == b.separation.inkLimit &&
           a.dotGain == b.dotGain && a.icc == b.icc;
}

Status applyTarget(const JobSettings& job, JobSettings& out, Target* target) {
    out = job;
    if (job.target.empty()) return Status::ok();
    Target t;
    if (Status s = resolveTarget(job.target, t); !s) return s;
    if (!job.palette.empty())
        return Status::error("target " + t.name + " brings its colours: leave out the palette '" + job.palette + "'");
    out.target.clear();
    PrepareSettings& p = out.prepare;
    if (p.width == 0 && p.height == 0 && p.scale == 0 && job.printSize.empty()) {
        p.width = t.width;
        p.height = t.height;
        if (t.height > 0 && p.fit == ResizeFit::Inside) p.fit = ResizeFit::Cover;
    }
    if (out.dpi == 0) out.dpi = t.dpi;
    if (t.inks.empty()) out.color = ColorMode::Gray;
    if (target) *target = std::move(t);
    return Status::ok();
}

void applyJobDpi(const MethodInfo& method, double dpi, ParamValues& params) {
    if (dpi > 0 && method.param(kDpiParam)) params.set(kDpiParam, dpi);
}

double jobDpi(const JobSettings& job, const MethodInfo& method) {
    if (job.dpi > 0) return job.dpi;
    const ParamSpec* p = method.param(kDpiParam);
    return p ? job.params.getReal(kDpiParam, p->def) : 0.0;
}

bool jobToPalette(const JobSettings& job) {
    if (!job.palette.empty()) return true;
    Target t;
    return !job.target.empty() && resolveTarget(job.target, t) && !t.inks.empty();
}

bool jobUsesGpu(const JobSettings& job) {
    const MethodInfo* m = nullptr;
    if (!jobMethod(job, m)) return false;
    const bool gpuForm = jobToPalette(job) ? bool(m->paletteGpu) : bool(m->gpu);
    return gpuForm && Registry::instance().gpuAvailability().usable && job.device != "cpu";
}

Status jobMethod(const JobSettings& job, const MethodInfo*& method) {
    const Registry& registry = Registry::instance();
    const std::string spelled = job.method.empty() ? std::string("ed") : job.method;
    const std::vector<std::string> methods = registry.methodNames();
    // A method by its id, any spelling of it, an alias or its display name ("Error diffusion").
    std::string name = matchName("method", spelled, methods);
    for (const std::string& m : methods)
        if (name.empty() && nameKey(registry.displayName(m)) == nameKey(spelled)) name = m;
    if (name.empty()) {
        std::vector<std::string> spellings = methods;
        for (const std::string& m : methods) spellings.push_back(registry.displayName(m));
        std::string near = nearestName(spelled, spellings);
        for (const std::string& m : methods)
            if (near == registry.displayName(m)) near = m;
        return Status::error("unknown method '" + spelled + "'" +
                             (near.empty() ? std::string() : " (did you mean '" + near + "'?)") +
                             "; choose one of: " + joined(methods));
    }
    const std::vector<std::string> variants = registry.variants(name);
    const std::string variant =
        job.variant.empty() ? registry.defaultVariant(name) : matchName("variant", job.variant, variants);
    method = variant.empty() ? nullptr : registry.find(name, variant);
    if (!method)
        return Status::error("method " + name + " has no variant '" + job.variant + "'" +
                             didYouMean(job.variant, variants) + "; choose one of: " + joined(variants));
    return Status::ok();
}

Status validateJob(const JobSettings& job) {
    const MethodInfo* m = nullptr;
    if (Status s = jobMethod(job, m); !s) return s;
    if (!job.target.empty()) {
        JobSettings applied;
        Target t;
        if (Status s = applyTarget(job, applied, &t); !s) return s;
        if (!t.inks.empty() && !m->hasPaletteForm())
            return Status::error("method " + m->id() + " cannot halftone to target " + t.name + "'s colours");
        if (t.inks.empty() && (job.tone != ToneMap::None || job.gamut != GamutMap::None))
            return Status::error("target " + t.name + " is a 1-bit device: tone and gamut mapping need its colours");
        applied.tone = ToneMap::None;
        applied.gamut = GamutMap::None;
        return validateJob(applied);
    }
    ParamValues resolved = job.params;
    if (Status s = Registry::instance().resolveParams(*m, resolved); !s) return s;
    if (job.device != "auto" && job.device != "cpu" && job.device != "gpu")
        return Status::error("unknown device '" + job.device + "'; choose cpu, gpu or auto");
    if (job.threads < 0) return Status::error("threads must be 0 (all) or more, got " + std::to_string(job.threads));
    if (Status s = job.prepare.validate(); !s) return s;
    if (Status s = checkSeparation(job.separation); !s) return s;
    if (Status s = checkIccJob(job); !s) return s;
    if (!job.printSize.empty()) {
        PrepareSettings p = job.prepare;
        if (Status s = applyPrintSize(p, job.printSize, job.dpi); !s) return s;
    } else if (job.dpi < 0 || job.dpi > 100000) {
        return Status::error("dpi must be between 1 and 100000");
    }
    if ((job.tone != ToneMap::None || job.gamut != GamutMap::None) && job.palette.empty() && !m->fixedPalette)
        return Status::error(
            "tone and gamut mapping map the image into a palette's colours: give a palette or a "
            "target");
    if (!job.palette.empty() && !m->hasPaletteForm())
        return Status::error("method " + m->id() + " cannot halftone to a palette");
    if (!job.palette.empty() && job.palette.rfind("auto:", 0) != 0) {
        Palette p;
        if (Status s = resolvePalette(job.palette, nullptr, p); !s) return s;
    }
    return Status::ok();
}

Status resolveJob(const JobSettings& job, const Image* image, RunRequest& request, PrepareSettings& prepare) {
    if (!job.target.empty()) {
        JobSettings applied;
        Target t;
        if (Status s = validateJob(job); !s) return s;
        if (Status s = applyTarget(job, applied, &t); !s) return s;
        applied.tone = ToneMap::None;
        applied.gamut = GamutMap::None;
        if (Status s = resolveJob(applied, image, request, prepare); !s) return s;
        request.tone = job.tone;
        request.gamut = job.gamut;
        if (!t.inks.empty()) {
            request.palette = t.shownPalette();
            request.paletteCodes = t.codes();
            request.writtenPalette = t.writtenPalette();
        }
        request.target = std::move(t);
        return Status::ok();
    }
    if (Status s = validateJob(job); !s) return s;
    const MethodInfo* m = nullptr;
    if (Status s = jobMethod(job, m); !s) return s;
    request = RunRequest{};
    request.method = m;
    request.params = job.params;
    if (job.threads > 0 && m->param("threads") && !job.params.has("threads"))
        request.params.set("threads", int64_t(job.threads));
    request.color = job.color;
    request.keepAlpha = job.keepAlpha;
    request.paletteSpace = job.paletteSpace;
    request.paletteMatch = job.paletteMatch;
    request.tone = job.tone;
    request.gamut = job.gamut;
    if (job.device == "cpu") request.device = Device::Cpu;
    if (job.device == "gpu") request.device = Device::Gpu;
    if (!job.palette.empty() && (image || job.palette.rfind("auto:", 0) != 0)) {
        Palette p;
        if (Status s = resolvePalette(job.palette, image, p); !s) return s;
        request.palette = std::move(p);
    }
    request.separation = job.separation;
    prepare = job.prepare;
    if (!job.printSize.empty())
        if (Status s = applyPrintSize(prepare, job.printSize, job.dpi); !s) return s;
    return Status::ok();
}

}  // namespace halftone
