// Separation through ICC profiles with LittleCMS 2: each profile read whole within a size limit and opened from
// memory (a FIFO or /dev/zero never blocks or floods the reader), checked for its colour space and class, then one
// 8-bit RGB -> CMYK transform, which LittleCMS optimises into a precalculated table.
#include "io/icc.h"

#include <algorithm>
#include <filesystem>
#include <mutex>

#include "io/jsontext.h"

#ifdef HALFTONE_HAVE_LCMS2
#include <lcms2.h>
#endif

namespace halftone::io {

#ifdef HALFTONE_HAVE_LCMS2

namespace {

/// LittleCMS's messages while a separator is made: collected by the context's error handler and added to the error
/// that names the file.
struct CmsLog {
    std::mutex mutex;
    std::string text;
};

void logCmsError(cmsContext context, cmsUInt32Number, const char* text) {
    auto* log = static_cast<CmsLog*>(cmsGetContextUserData(context));
    if (!log || !text) return;
    const std::lock_guard<std::mutex> lock(log->mutex);
    if (log->text.size() < 400) log->text += (log->text.empty() ? "" : "; ") + std::string(text);
}

CmsLog& logOf(cmsContext context) { return *static_cast<CmsLog*>(cmsGetContextUserData(context)); }

std::string takeLog(cmsContext context) {
    CmsLog& log = logOf(context);
    const std::lock_guard<std::mutex> lock(log.mutex);
    std::string t = std::move(log.text);
    log.text.clear();
    return t.empty() ? t : " (LittleCMS: " + t + ")";
}

std::string colourSpaceName(cmsColorSpaceSignature s) {
    switch (s) {
        case cmsSigRgbData:
            return "an RGB";
        case cmsSigCmykData:
            return "a CMYK";
        case cmsSigGrayData:
            return "a gray";
        case cmsSigLabData:
            return "a Lab";
        case cmsSigXYZData:
            return "an XYZ";
        default:
            return "a " + std::to_string(cmsChannelsOf(s)) + "-channel";
    }
}

std::string className(cmsProfileClassSignature c) {
    switch (c) {
        case cmsSigInputClass:
            return "an input (scanner or camera) profile";
        case cmsSigDisplayClass:
            return "a display profile";
        case cmsSigOutputClass:
            return "an output (printer) profile";
        case cmsSigLinkClass:
            return "a device link";
        case cmsSigAbstractClass:
            return "an abstract profile";
        case cmsSigColorSpaceClass:
            return "a colour space profile";
        case cmsSigNamedColorClass:
            return "a named colour profile";
        default:
            return "a profile of an unknown class";
    }
}

/// Closes a profile handle when it goes out of scope.
struct Profile {
    cmsHPROFILE h = nullptr;
    Profile() = default;
    explicit Profile(cmsHPROFILE p) : h(p) {}
    Profile(const Profile&) = delete;
    Profile& operator=(const Profile&) = delete;
    ~Profile() {
        if (h) cmsCloseProfile(h);
    }
};

/// The profile file `path` given as `option`, read whole (io/jsontext.h's small-file reader) and opened; errors start
/// with the option and name the file.
Status openProfile(cmsContext context, const std::string& option, const std::string& path, Profile& out) {
    if (path.empty()) return Status::error(option + " needs a profile file, got an empty name");
    std::string bytes;
    if (Status s = detail::readSmallText(path, "ICC profile", bytes, kMaxIccProfileBytes); !s)
        return Status::error(option + ": " + s.message());
    const std::string what = option + ": '" + path + "'";
    if (bytes.size() < 132)  // the 128-byte header and the tag count
        return Status::error(what + " is not an ICC profile: " + std::to_string(bytes.size()) + " bytes, too short");
    const uint32_t declared = uint32_t(uint8_t(bytes[0])) << 24 | uint32_t(uint8_t(bytes[1])) << 16 |
                              uint32_t(uint8_t(bytes[2])) << 8 | uint32_t(uint8_t(bytes[3]));
    if (bytes.compare(36, 4, "acsp") == 0 && declared > bytes.size())
        return Status::error(what + " is not an ICC profile, or a damaged one: truncated (its header says " +
                             std::to_string(declared) + " bytes, the file has " + std::to_string(bytes.size()) + ")");
    out.h = cmsOpenProfileFromMemTHR(context, bytes.data(), cmsUInt32Number(bytes.size()));
    if (!out.h) return Status::error(what + " is not an ICC profile, or a damaged one" + takeLog(context));
    takeLog(context);
    return Status::ok();
}

std::string description(cmsHPROFILE h, const std::string& fallback) {
    char text[256] = {};
    if (cmsGetProfileInfoASCII(h, cmsInfoDescription, "en", "US", text, sizeof text) > 1 && text[0]) return text;
    return fallback;
}

cmsUInt32Number cmsIntent(RenderingIntent intent) {
    switch (intent) {
        case RenderingIntent::Perceptual:
            return INTENT_PERCEPTUAL;
        case RenderingIntent::Saturation:
            return INTENT_SATURATION;
        case RenderingIntent::Absolute:
            return INTENT_ABSOLUTE_COLORIMETRIC;
        default:
            return INTENT_RELATIVE_COLORIMETRIC;
    }
}

}  // namespace

IccSeparator::~IccSeparator() {
    if (transform_) cmsDeleteTransform(static_cast<cmsHTRANSFORM>(transform_));
    if (context_) {
        delete &logOf(static_cast<cmsContext>(context_));
        cmsDeleteContext(static_cast<cmsContext>(context_));
    }
}

Status IccSeparator::load(const IccProfiles& profiles, std::shared_ptr<const IccSeparator>& out) {
    // The files' identity for the cache: name, size and time of each; any error leaves the cache out, and make()
    // reports it.
    std::string key = profiles.input + '\n' + profiles.output + '\n' + toString(profiles.intent);
    bool cacheable = true;
    for (const std::string* path : {&profiles.input, &profiles.output}) {
        if (path->empty()) continue;
        std::error_code e1, e2;
        const auto size = std::filesystem::file_size(*path, e1);
        const auto time = std::filesystem::last_write_time(*path, e2);
        cacheable = cacheable && !e1 && !e2;
        if (cacheable) key += '\n' + std::to_string(size) + ' ' + std::to_string(time.time_since_epoch().count());
    }
    static std::mutex mutex;
    static std::string lastKey;
    static std::shared_ptr<const IccSeparator> last;
    if (cacheable) {
        const std::lock_guard<std::mutex> lock(mutex);
        if (last && key == lastKey) {
            out = last;
            return Status::ok();
        }
    }
    if (Status s = make(profiles, out); !s) return s;
    if (cacheable) {
        const std::lock_guard<std::mutex> lock(mutex);
        lastKey = key;
        last = out;
    }
    return Status::ok();
}

Status IccSeparator::make(const IccProfiles& profiles, std::shared_ptr<const IccSeparator>& out) {
    std::shared_ptr<IccSeparator> sep(new IccSeparator);
    auto* log = new CmsLog;
    const cmsContext context = cmsCreateContext(nullptr, log);
    if (!context) {
        delete log;
        return Status::error("LittleCMS could not start");
    }
    sep->context_ = context;
    cmsSetLogErrorHandlerTHR(context, logCmsError);

    Profile output;
    if (Status s = openProfile(context, "--icc-out", profiles.output, output); !s) return s;
    const std::string outName = "--icc-out: '" + profiles.output + "'";
    if (cmsGetColorSpace(output.h) != cmsSigCmykData)
        return Status::error(outName + " is " + colourSpaceName(cmsGetColorSpace(output.h)) +
                             " profile; separating into inks needs a CMYK output profile");
    if (cmsGetDeviceClass(output.h) != cmsSigOutputClass)
        return Status::error(outName + " is " + className(cmsGetDeviceClass(output.h)) +
                             "; separating into inks needs a CMYK output (printer) profile");

    Profile input;
    if (profiles.input.empty()) {
        input.h = cmsCreate_sRGBProfileTHR(context);
        if (!input.h) return Status::error("LittleCMS could not make the sRGB profile" + takeLog(context));
    } else {
        if (Status s = openProfile(context, "--icc-in", profiles.input, input); !s) return s;
        const std::string inName = "--icc-in: '" + profiles.input + "'";
        const cmsProfileClassSignature c = cmsGetDeviceClass(input.h);
        if (cmsGetColorSpace(input.h) != cmsSigRgbData)
            return Status::error(inName + " is " + colourSpaceName(cmsGetColorSpace(input.h)) +
                                 " profile; the source profile of a separation must be an RGB one");
        if (c == cmsSigLinkClass || c == cmsSigAbstractClass || c == cmsSigNamedColorClass)
            return Status::error(inName + " is " + className(c) +
                                 "; the source profile of a separation must describe RGB colours (an input, "
                                 "display or colour space profile)");
    }

    const cmsUInt32Number intent = cmsIntent(profiles.intent);
    const cmsUInt32Number flags =
        profiles.intent == RenderingIntent::Relative ? cmsUInt32Number(cmsFLAGS_BLACKPOINTCOMPENSATION) : 0u;
    cmsHTRANSFORM t = cmsCreateTransformTHR(context, input.h, TYPE_RGB_8, output.h, TYPE_CMYK_8, intent, flags);
    if (!t)
        return Status::error(outName + ": no " + std::string(toString(profiles.intent)) + " transform from " +
                             (profiles.input.empty() ? std::string("sRGB") : "'" + profiles.input + "'") +
                             takeLog(context));
    sep->transform_ = t;
    sep->tac_ = cmsDetectTAC(output.h);
    sep->outputName_ = description(output.h, std::filesystem::path(profiles.output).filename().string());

    // The proof's inks: paper and each solid ink through the output profile's own tables to sRGB.
    Profile srgb(cmsCreate_sRGBProfileTHR(context));
    if (srgb.h) {
        if (cmsHTRANSFORM back = cmsCreateTransformTHR(context, output.h, TYPE_CMYK_8, srgb.h, TYPE_RGB_8,
                                                       INTENT_RELATIVE_COLORIMETRIC, 0)) {
            const uint8_t patches[5][4] = {
                {0, 0, 0, 0}, {255, 0, 0, 0}, {0, 255, 0, 0}, {0, 0, 255, 0}, {0, 0, 0, 255}};
            uint8_t rgb[5][3] = {};
            cmsDoTransform(back, patches, rgb, 5);
            cmsDeleteTransform(back);
            std::array<uint8_t, 3>* inks[5] = {&sep->inks_.paper, &sep->inks_.cyan, &sep->inks_.magenta,
                                               &sep->inks_.yellow, &sep->inks_.black};
            for (int i = 0; i < 5; ++i) *inks[i] = {rgb[i][0], rgb[i][1], rgb[i][2]};
        }
    }
    takeLog(context);
    out = std::move(sep);
    return Status::ok();
}

void IccSeparator::separate(const uint8_t* rgb, uint8_t* cmyk, size_t n) const {
    constexpr size_t kMost = size_t(1) << 30;  // cmsDoTransform counts pixels in 32 bits
    for (size_t done = 0; done < n; done += kMost) {
        const size_t m = std::min(kMost, n - done);
        cmsDoTransform(static_cast<cmsHTRANSFORM>(transform_), rgb + done * 3, cmyk + done * 4, cmsUInt32Number(m));
    }
}

bool iccAvailable() { return true; }

#else

IccSeparator::~IccSeparator() = default;

Status IccSeparator::load(const IccProfiles& profiles, std::shared_ptr<const IccSeparator>&) {
    return Status::error("--icc-out: cannot use '" + profiles.output +
                         "': this build separates with the built-in formula only (it was built without LittleCMS 2)");
}

void IccSeparator::separate(const uint8_t*, uint8_t*, size_t) const {}

bool iccAvailable() { return false; }

#endif

}  // namespace halftone::io
