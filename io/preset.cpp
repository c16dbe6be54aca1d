#include "io/preset.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <sstream>

#include "io/atomicwrite.h"

namespace halftone::io {

using nlohmann::json;

namespace {

const char* fitName(ResizeFit f) { return f == ResizeFit::Stretch ? "stretch" : "inside"; }

/// One prepare setting: its key, how to write it when it differs from the default, how to read it.
struct PrepareKey {
    const char* key;
    std::function<bool(const PrepareSettings&)> differs;
    std::function<json(const PrepareSettings&)> get;
    std::function<bool(const json&, PrepareSettings&)> set;  ///< false: wrong type or value
};

template <class T>
PrepareKey number(const char* key, T PrepareSettings::*field) {
    return {key, [field](const PrepareSettings& s) { return s.*field != PrepareSettings{}.*field; },
            [field](const PrepareSettings& s) { return json(s.*field); },
            [field](const json& v, PrepareSettings& s) {
                if constexpr (std::is_integral_v<T>) {
                    if (!v.is_number_integer()) return false;
                    s.*field = v.get<T>();
                } else {
                    if (!v.is_number()) return false;
                    s.*field = v.get<T>();
                }
                return true;
            }};
}

const std::vector<PrepareKey>& prepareKeys() {
    static const std::vector<PrepareKey> keys = {
        number("width", &PrepareSettings::width),
        number("height", &PrepareSettings::height),
        number("scale", &PrepareSettings::scale),
        {"fit", [](const PrepareSettings& s) { return s.fit != ResizeFit::Inside; },
         [](const PrepareSettings& s) { return json(fitName(s.fit)); },
         [](const json& v, PrepareSettings& s) {
             if (!v.is_string()) return false;
             const std::string t = v.get<std::string>();
             if (t != "inside" && t != "stretch") return false;
             s.fit = t == "stretch" ? ResizeFit::Stretch : ResizeFit::Inside;
             return true;
         }},
        {"filter", [](const PrepareSettings& s) { return s.filter != ResizeFilter::Lanczos3; },
         [](const PrepareSettings& s) { return json(toString(s.filter)); },
         [](const json& v, PrepareSettings& s) {
             return v.is_string() && parseResizeFilter(v.get<std::string>(), s.filter);
         }},
        {"linear-resize", [](const PrepareSettings& s) { return !s.linearResize; },
         [](const PrepareSettings& s) { return json(s.linearResize); },
         [](const json& v, PrepareSettings& s) {
             if (!v.is_boolean()) return false;
             s.linearResize = v.get<bool>();
             return true;
         }},
        number("pixel-size", &PrepareSettings::pixelSize),
        number("black-point", &PrepareSettings::blackPoint),
        number("white-point", &PrepareSettings::whitePoint),
        number("brightness", &PrepareSettings::brightness),
        number("contrast", &PrepareSettings::contrast),
        number("gamma", &PrepareSettings::gamma),
        number("saturation", &PrepareSettings::saturation),
        number("sharpen-amount", &PrepareSettings::sharpenAmount),
        number("sharpen-radius", &PrepareSettings::sharpenRadius),
    };
    return keys;
}

std::string keyList(const std::vector<std::string>& keys) {
    std::string s;
    for (const auto& k : keys) s += (s.empty() ? "" : ", ") + k;
    return s;
}

json paramJson(const ParamValue& v) {
    if (auto p = std::get_if<int64_t>(&v)) return *p;
    if (auto p = std::get_if<double>(&v)) return *p;
    if (auto p = std::get_if<bool>(&v)) return *p;
    return std::get<std::string>(v);
}

}  // namespace

std::string presetJson(const JobSettings& job) {
    json j = json::object();
    j["halftone-preset"] = kPresetVersion;
    const MethodInfo* m = nullptr;
    if (jobMethod(job, m)) {
        j["method"] = m->method;
        j["variant"] = m->variant;
    } else {
        j["method"] = job.method;
        if (!job.variant.empty()) j["variant"] = job.variant;
    }
    if (!job.params.all().empty()) {
        json p = json::object();
        for (const auto& [key, value] : job.params.all()) p[key] = paramJson(value);
        j["params"] = p;
    }
    j["color"] = toString(job.color);
    const SeparationParams defaults;
    if (job.separation.gcr != defaults.gcr || job.separation.inkLimit != defaults.inkLimit)
        j["separation"] = {{"gcr", job.separation.gcr}, {"ink-limit", job.separation.inkLimit}};
    if (!job.palette.empty()) j["palette"] = job.palette;
    if (job.device != "auto") j["device"] = job.device;
    if (job.threads != 0) j["threads"] = job.threads;
    if (job.keepAlpha) j["keep-alpha"] = true;
    json prep = json::object();
    for (const PrepareKey& k : prepareKeys())
        if (k.differs(job.prepare)) prep[k.key] = k.get(job.prepare);
    if (!prep.empty()) j["prepare"] = prep;
    if (!job.printSize.empty()) j["print-size"] = job.printSize;
    if (job.dpi != 0) j["dpi"] = job.dpi;
    if (!job.format.empty()) j["format"] = job.format;
    return j.dump(2) + "\n";
}

Status parsePreset(const std::string& fileName, const std::string& text, JobSettings& job) {
    const std::string ctx = "preset '" + fileName + "'";
    json j;
    try {
        j = json::parse(text);
    } catch (const json::parse_error& e) {
        // e.byte is the position of the error; give the line as people count them.
        size_t line = 1;
        for (size_t i = 0; i < std::min(text.size(), size_t(e.byte > 0 ? e.byte - 1 : 0)); ++i) line += text[i] == '\n';
        std::string what = e.what();
        if (const size_t p = what.find("syntax error"); p != std::string::npos) what = what.substr(p);
        return Status::error(ctx + ", line " + std::to_string(line) + ": not valid JSON (" + what + ")");
    }
    if (!j.is_object()) return Status::error(ctx + ": not a preset (the file must hold one JSON object)");
    if (!j.contains("halftone-preset"))
        return Status::error(ctx + ": not a preset (no \"halftone-preset\" version key)");
    if (!j["halftone-preset"].is_number_integer() || j["halftone-preset"].get<int64_t>() != kPresetVersion)
        return Status::error(ctx + ": preset version " + j["halftone-preset"].dump() + " is not supported (this " +
                             "version reads " + std::to_string(kPresetVersion) + ")");

    JobSettings out;
    auto bad = [&](const std::string& key, const std::string& why) {
        return Status::error(ctx + ": " + key + " " + why);
    };
    auto text_ = [&](const json& v, const std::string& key, std::string& dst) {
        if (!v.is_string()) return bad(key, "must be a string, got " + v.dump());
        dst = v.get<std::string>();
        return Status::ok();
    };
    const std::vector<std::string> known = {"halftone-preset", "method", "variant", "params",     "color",
                                            "palette",         "device", "threads", "keep-alpha", "prepare",
                                            "print-size",      "dpi",    "format",  "separation"};
    for (const auto& [key, v] : j.items()) {
        if (std::find(known.begin(), known.end(), key) == known.end())
            return Status::error(ctx + ": unknown key '" + key + "' (known keys: " + keyList(known) + ")");
        Status s;
        if (key == "method") s = text_(v, key, out.method);
        if (key == "variant") s = text_(v, key, out.variant);
        if (key == "palette") s = text_(v, key, out.palette);
        if (key == "device") s = text_(v, key, out.device);
        if (key == "print-size") s = text_(v, key, out.printSize);
        if (key == "format") s = text_(v, key, out.format);
        if (key == "color") {
            std::string c;
            s = text_(v, key, c);
            if (s && !parseColorMode(c, out.color)) s = bad(key, "must be gray, rgb or cmyk, got \"" + c + "\"");
        }
        if (key == "threads") {
            if (!v.is_number_integer())
                s = bad(key, "must be a whole number, got " + v.dump());
            else
                out.threads = v.get<int>();
        }
        if (key == "dpi") {
            if (!v.is_number())
                s = bad(key, "must be a number, got " + v.dump());
            else
                out.dpi = v.get<double>();
        }
        if (key == "keep-alpha") {
            if (!v.is_boolean())
                s = bad(key, "must be true or false, got " + v.dump());
            else
                out.keepAlpha = v.get<bool>();
        }
        if (key == "separation") {
            if (!v.is_object()) s = bad(key, "must be an object with gcr and ink-limit");
            for (auto it = v.begin(); s && v.is_object() && it != v.end(); ++it) {
                if (it.key() != "gcr" && it.key() != "ink-limit")
                    s = Status::error(ctx + ": unknown key 'separation." + it.key() + "' (known: gcr, ink-limit)");
                else if (!it.value().is_number_integer())
                    s = bad("separation." + it.key(), "must be a whole number, got " + it.value().dump());
                else
                    (it.key() == "gcr" ? out.separation.gcr : out.separation.inkLimit) =
                        int(std::clamp<int64_t>(it.value().get<int64_t>(), -1, 401));
            }
        }
        if (key == "prepare") {
            if (!v.is_object()) s = bad(key, "must be an object of prepare settings");
            for (auto it = v.begin(); s && v.is_object() && it != v.end(); ++it) {
                const PrepareKey* pk = nullptr;
                std::vector<std::string> names;
                for (const PrepareKey& k : prepareKeys()) {
                    names.push_back(k.key);
                    if (it.key() == k.key) pk = &k;
                }
                if (!pk)
                    s = Status::error(ctx + ": unknown key 'prepare." + it.key() + "' (known: " + keyList(names) + ")");
                else if (!pk->set(it.value(), out.prepare))
                    s = bad("prepare." + it.key(), "has a value of the wrong kind: " + it.value().dump());
            }
        }
        if (!s) return s;
    }
    // Parameters need the method: read them once it is known.
    if (j.contains("params")) {
        const json& p = j["params"];
        if (!p.is_object()) return bad("params", "must be an object of method parameters");
        const MethodInfo* m = nullptr;
        if (Status s = jobMethod(out, m); !s) return Status::error(ctx + ": " + s.message());
        for (auto it = p.begin(); it != p.end(); ++it) {
            const ParamSpec* spec = m->param(it.key());
            const std::string key = "params." + it.key();
            if (!spec) {
                std::vector<std::string> names;
                for (const ParamSpec& ps : m->params) names.push_back(ps.key);
                return Status::error(ctx + ": method " + m->id() + " has no parameter '" + it.key() +
                                     "' (its parameters: " + keyList(names) + ")");
            }
            const json& v = it.value();
            switch (spec->kind) {
                case ParamSpec::Kind::Int:
                    if (!v.is_number_integer()) return bad(key, "must be a whole number, got " + v.dump());
                    out.params.set(it.key(), v.get<int64_t>());
                    break;
                case ParamSpec::Kind::Real:
                    if (!v.is_number()) return bad(key, "must be a number, got " + v.dump());
                    out.params.set(it.key(), v.get<double>());
                    break;
                case ParamSpec::Kind::Bool:
                    if (!v.is_boolean()) return bad(key, "must be true or false, got " + v.dump());
                    out.params.set(it.key(), v.get<bool>());
                    break;
                case ParamSpec::Kind::Choice:
                case ParamSpec::Kind::Text:
                    if (!v.is_string()) return bad(key, "must be a string, got " + v.dump());
                    out.params.set(it.key(), v.get<std::string>());
                    break;
            }
        }
    }
    if (Status s = validateJob(out); !s) return Status::error(ctx + ": " + s.message());
    job = std::move(out);
    return Status::ok();
}

Status loadPreset(const std::string& path, JobSettings& job) {
    std::error_code ec;
    if (std::filesystem::exists(path, ec) && !std::filesystem::is_regular_file(path, ec))
        return Status::error("cannot read preset '" + path + "': not a regular file");
    std::ifstream in(path, std::ios::binary);
    if (!in) return Status::error("cannot read preset '" + path + "': " + std::strerror(errno));
    std::string text;
    char buf[65536];
    while (in.read(buf, sizeof buf) || in.gcount() > 0) {
        text.append(buf, size_t(in.gcount()));
        if (text.size() > (1u << 20)) return Status::error("preset '" + path + "' is larger than 1 MiB: not a preset");
    }
    if (in.bad()) return Status::error("cannot read preset '" + path + "': read failed");
    return parsePreset(path, text, job);
}

Status savePreset(const std::string& path, const JobSettings& job) {
    if (Status s = validateJob(job); !s) return Status::error("cannot save preset '" + path + "': " + s.message());
    if (Status s = writeFileAtomically(path, presetJson(job)); !s)
        return Status::error("cannot save preset '" + path + "': " + s.message());
    return Status::ok();
}

}  // namespace halftone::io
