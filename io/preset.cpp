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
#include <type_traits>
#include <variant>

#include "core/number.h"
#include "io/atomicwrite.h"
#include "io/jsontext.h"

namespace halftone::io {

using nlohmann::json;

namespace {

using detail::shownJson;

/// A JSON number through the rule of its setting (core/number.h); the message starts with what is wrong.
template <class T>
Status storeJsonNumber(const json& v, const NumberRule& rule, T& out) {
    if (!v.is_number())
        return Status::error(std::string("must be ") + (rule.whole ? "a whole number" : "a number") + ", got " +
                             shownJson(v));
    return storeNumber(rule, NumberText{v.get<double>(), v.dump()}, out);
}

/// One prepare setting: its key, how to write it when it differs from the default, how to read it.
struct PrepareKey {
    const char* key;
    std::function<bool(const PrepareSettings&)> differs;
    std::function<json(const PrepareSettings&)> get;
    std::function<Status(const json&, PrepareSettings&)> set;  ///< the message says what is wrong with the value
};

template <class T>
PrepareKey number(const char* key, T PrepareSettings::*field) {
    return {
        key, [field](const PrepareSettings& s) { return s.*field != PrepareSettings{}.*field; },
        [field](const PrepareSettings& s) { return json(s.*field); },
        [key, field](const json& v, PrepareSettings& s) { return storeJsonNumber(v, *jobNumberRule(key), s.*field); }};
}

/// A setting with a fixed set of values (false: not one of them).
Status choice(const json& v, const char* allowed, const std::function<bool(const std::string&)>& set) {
    if (!v.is_string() || !set(v.get<std::string>()))
        return Status::error(std::string("must be ") + allowed + ", got " + shownJson(v));
    return Status::ok();
}

const std::vector<PrepareKey>& prepareKeys() {
    static const std::vector<PrepareKey> keys = {
        number("width", &PrepareSettings::width),
        number("height", &PrepareSettings::height),
        number("scale", &PrepareSettings::scale),
        {"fit", [](const PrepareSettings& s) { return s.fit != ResizeFit::Inside; },
         [](const PrepareSettings& s) { return json(toString(s.fit)); },
         [](const json& v, PrepareSettings& s) {
             return choice(v, "inside, stretch, cover or contain",
                           [&](const std::string& t) { return parseResizeFit(t, s.fit); });
         }},
        {"gravity", [](const PrepareSettings& s) { return s.gravity != Gravity::Center; },
         [](const PrepareSettings& s) { return json(toString(s.gravity)); },
         [](const json& v, PrepareSettings& s) {
             return choice(v, "center, north, south, east, west, northeast, northwest, southeast or southwest",
                           [&](const std::string& t) { return parseGravity(t, s.gravity); });
         }},
        {"rotate", [](const PrepareSettings& s) { return s.rotate != 0; },
         [](const PrepareSettings& s) { return json(s.rotate); },
         [](const json& v, PrepareSettings& s) {
             if (!v.is_number_integer() || (v != 0 && v != 90 && v != 180 && v != 270))
                 return Status::error("must be 0, 90, 180 or 270, got " + shownJson(v));
             s.rotate = v.get<int>();
             return Status::ok();
         }},
        {"background", [](const PrepareSettings& s) { return s.background.has_value(); },
         [](const PrepareSettings& s) { return json(colorText(*s.background)); },
         [](const json& v, PrepareSettings& s) {
             return choice(v, "a colour such as \"#ffffff\" or \"white\"", [&](const std::string& t) {
                 Rgb8 c{};
                 if (!parseColorText(t, c)) return false;
                 s.background = c;
                 return true;
             });
         }},
        {"filter", [](const PrepareSettings& s) { return s.filter != ResizeFilter::Lanczos3; },
         [](const PrepareSettings& s) { return json(toString(s.filter)); },
         [](const json& v, PrepareSettings& s) {
             return choice(v, "lanczos, bicubic, box or nearest",
                           [&](const std::string& t) { return parseResizeFilter(t, s.filter); });
         }},
        {"linear-resize", [](const PrepareSettings& s) { return !s.linearResize; },
         [](const PrepareSettings& s) { return json(s.linearResize); },
         [](const json& v, PrepareSettings& s) {
             if (!v.is_boolean()) return Status::error("must be true or false, got " + shownJson(v));
             s.linearResize = v.get<bool>();
             return Status::ok();
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
    if (job.separation.gcr != defaults.gcr || job.separation.inkLimit != defaults.inkLimit || !job.icc.empty()) {
        json sep = {{"gcr", job.separation.gcr}, {"ink-limit", job.separation.inkLimit}};
        if (!job.icc.input.empty()) sep["icc-in"] = job.icc.input;
        if (!job.icc.output.empty()) sep["icc-out"] = job.icc.output;
        if (!job.icc.empty()) sep["intent"] = toString(job.icc.intent);
        j["separation"] = sep;
    }
    if (!job.dotGain.empty()) {  // each ink's curve as [nominal, printed] points in percent
        json inks = json::array();
        for (const DotGainCurve& curve : job.dotGain.inks) {
            json points = json::array();
            for (const auto& [nominal, printed] : curve) points.push_back({nominal, printed});
            inks.push_back(points);
        }
        j["dot-gain"] = inks;
    }
    if (!job.palette.empty()) j["palette"] = job.palette;
    if (!job.target.empty()) j["target"] = job.target;
    if (job.tone != ToneMap::None) j["tone"] = toString(job.tone);
    if (job.gamut != GamutMap::None) j["gamut"] = toString(job.gamut);
    const JobSettings plain;
    const bool colours = !job.palette.empty() || !job.target.empty();
    if (colours || job.paletteSpace != plain.paletteSpace) j["space"] = toString(job.paletteSpace);
    if (colours || job.paletteMatch != plain.paletteMatch) j["match"] = toString(job.paletteMatch);
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

namespace {

/// Thrown by the parser's callback when the nesting passes kMaxPresetDepth.
struct TooDeep {};

Status parsePresetJson(const std::string& ctx, const std::string& text, JobSettings& job) {
    json j;
    // The key being read, for messages about its value ("prepare.gamma"), and the nesting depth: a preset is two
    // levels deep, and the JSON library's writer (dump, used in messages) recurses once per level.
    std::vector<std::string> path;
    auto where = [&] {
        std::string p;
        for (const std::string& k : path) p += (p.empty() ? "" : ".") + k;
        return p;
    };
    const json::parser_callback_t watch = [&](int depth, json::parse_event_t event, json& parsed) {
        if ((event == json::parse_event_t::object_start || event == json::parse_event_t::array_start) &&
            depth >= kMaxPresetDepth)
            throw TooDeep{};
        if (event == json::parse_event_t::key) {
            path.resize(size_t(std::max(depth - 1, 0)));
            path.push_back(parsed.is_string() ? parsed.get<std::string>() : std::string("?"));
        }
        return true;
    };
    try {
        j = json::parse(text, watch);
    } catch (const TooDeep&) {
        const std::string key = where();
        return Status::error(ctx + ": " + (key.empty() ? std::string("the value") : key) + " is nested deeper than " +
                             std::to_string(kMaxPresetDepth) + " levels (a preset holds objects two levels deep)");
    } catch (const json::out_of_range& e) {
        // A number beyond double (1e400): the library refuses it; the message names the key it belongs to.
        const std::string key = where();
        std::string what = e.what();
        if (const size_t p = what.find("number overflow"); p != std::string::npos) what = what.substr(p);
        return Status::error(ctx + ": " + (key.empty() ? std::string("a value") : key) +
                             " is not a number this program can hold (" + what + ")");
    } catch (const json::parse_error& e) {
        // e.byte is the position of the error; give the line as people count them.
        size_t line = 1;
        for (size_t i = 0; i < std::min(text.size(), size_t(e.byte > 0 ? e.byte - 1 : 0)); ++i) line += text[i] == '\n';
        return Status::error(ctx + ", line " + std::to_string(line) + ": not valid JSON (" + detail::syntaxMessage(e) +
                             ")");
    }
    if (!j.is_object()) return Status::error(ctx + ": not a preset (the file must hold one JSON object)");
    if (!j.contains("halftone-preset"))
        return Status::error(ctx + ": not a preset (no \"halftone-preset\" version key)");
    if (!j["halftone-preset"].is_number_integer() || j["halftone-preset"].get<int64_t>() != kPresetVersion)
        return Status::error(ctx + ": preset version " + shownJson(j["halftone-preset"]) + " is not supported (this " +
                             "version reads " + std::to_string(kPresetVersion) + ")");

    JobSettings out;
    auto bad = [&](const std::string& key, const std::string& why) {
        return Status::error(ctx + ": " + key + " " + why);
    };
    auto text_ = [&](const json& v, const std::string& key, std::string& dst) {
        if (!v.is_string()) return bad(key, "must be a string, got " + shownJson(v));
        dst = v.get<std::string>();
        return Status::ok();
    };
    const std::vector<std::string> known = {"halftone-preset", "method",  "variant",    "params", "color",
                                            "palette",         "space",   "match",      "device", "threads",
                                            "keep-alpha",      "prepare", "print-size", "dpi",    "format",
                                            "separation",      "target",  "tone",       "gamut",  "dot-gain"};
    for (const auto& [key, v] : j.items()) {
        if (std::find(known.begin(), known.end(), key) == known.end())
            return Status::error(ctx + ": unknown key '" + key + "' (known keys: " + keyList(known) + ")");
        Status s;
        if (key == "method") s = text_(v, key, out.method);
        if (key == "variant") s = text_(v, key, out.variant);
        if (key == "palette") s = text_(v, key, out.palette);
        if (key == "target") s = text_(v, key, out.target);
        if (key == "tone") {
            std::string c;
            s = text_(v, key, c);
            if (s && !parseToneMap(c, out.tone)) s = bad(key, "must be none, auto or s-curve, got \"" + c + "\"");
        }
        if (key == "gamut") {
            std::string c;
            s = text_(v, key, c);
            if (s && !parseGamutMap(c, out.gamut)) s = bad(key, "must be none, clip or compress, got \"" + c + "\"");
        }
        if (key == "device") s = text_(v, key, out.device);
        if (key == "print-size") s = text_(v, key, out.printSize);
        if (key == "format") s = text_(v, key, out.format);
        if (key == "space") {
            std::string c;
            s = text_(v, key, c);
            if (s && !parsePaletteSpace(c, out.paletteSpace))
                s = bad(key, "must be linear or gamma, got \"" + c + "\"");
        }
        if (key == "match") {
            std::string c;
            s = text_(v, key, c);
            if (s && !parsePaletteMatch(c, out.paletteMatch))
                s = bad(key, "must be euclidean or weighted, got \"" + c + "\"");
        }
        if (key == "color") {
            std::string c;
            s = text_(v, key, c);
            if (s && !parseColorMode(c, out.color)) s = bad(key, "must be gray, rgb or cmyk, got \"" + c + "\"");
        }
        if (key == "threads")
            if (Status n = storeJsonNumber(v, *jobNumberRule(key), out.threads); !n) s = bad(key, n.message());
        if (key == "dpi")
            if (Status n = storeJsonNumber(v, *jobNumberRule(key), out.dpi); !n) s = bad(key, n.message());
        if (key == "keep-alpha") {
            if (!v.is_boolean())
                s = bad(key, "must be true or false, got " + shownJson(v));
            else
                out.keepAlpha = v.get<bool>();
        }
        if (key == "separation") {
            if (!v.is_object()) s = bad(key, "must be an object with gcr and ink-limit");
            for (auto it = v.begin(); s && v.is_object() && it != v.end(); ++it) {
                const std::string sub = "separation." + it.key();
                if (it.key() == "icc-in") {
                    s = text_(it.value(), sub, out.icc.input);
                } else if (it.key() == "icc-out") {
                    s = text_(it.value(), sub, out.icc.output);
                } else if (it.key() == "intent") {
                    std::string c;
                    s = text_(it.value(), sub, c);
                    if (s && !parseRenderingIntent(c, out.icc.intent))
                        s = bad(sub, "must be perceptual, relative, saturation or absolute, got \"" + c + "\"");
                } else if (it.key() != "gcr" && it.key() != "ink-limit")
                    s = Status::error(ctx + ": unknown key '" + sub +
                                      "' (known: gcr, ink-limit, icc-in, icc-out, intent)");
                else if (Status n = storeJsonNumber(it.value(), *jobNumberRule(it.key()),
                                                    it.key() == "gcr" ? out.separation.gcr : out.separation.inkLimit);
                         !n)
                    s = bad("separation." + it.key(), n.message());
            }
        }
        if (key == "dot-gain") {
            // Four arrays (C, M, Y, K) of [nominal, printed] points in percent.
            DotGain gain;
            bool shape = v.is_array() && v.size() == 4;
            for (size_t c = 0; shape && c < 4; ++c) {
                shape = v[c].is_array();
                for (size_t i = 0; shape && i < v[c].size(); ++i) {
                    const json& pt = v[c][i];
                    shape = pt.is_array() && pt.size() == 2 && pt[0].is_number() && pt[1].is_number();
                    if (shape) gain.inks[c].push_back({pt[0].get<double>(), pt[1].get<double>()});
                }
            }
            if (!shape)
                s = bad(key, "must be four arrays (C, M, Y, K) of [nominal, printed] points in percent");
            else if (Status g = checkDotGain(gain); !g)
                s = bad(key, g.message());
            else
                out.dotGain = gain;
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
                else if (Status n = pk->set(it.value(), out.prepare); !n)
                    s = bad("prepare." + it.key(), n.message());
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
            // The JSON value is read as the type of the parameter's default (ParamSpec::defaultValue).
            ParamValue value = spec->defaultValue();
            Status read = std::visit(
                [&](auto& x) -> Status {
                    using T = std::decay_t<decltype(x)>;
                    if constexpr (std::is_same_v<T, bool>) {
                        if (!v.is_boolean()) return Status::error("must be true or false, got " + shownJson(v));
                        x = v.get<bool>();
                        return Status::ok();
                    } else if constexpr (std::is_same_v<T, std::string>) {
                        if (!v.is_string()) return Status::error("must be a string, got " + shownJson(v));
                        x = v.get<std::string>();
                        return Status::ok();
                    } else {
                        return storeJsonNumber(v, NumberRule{spec->min, spec->max, std::is_integral_v<T>}, x);
                    }
                },
                value);
            if (!read) return bad(key, read.message());
            out.params.set(it.key(), std::move(value));
        }
    }
    if (Status s = validateJob(out); !s) return Status::error(ctx + ": " + s.message());
    job = std::move(out);
    return Status::ok();
}

}  // namespace

Status parsePreset(const std::string& fileName, const std::string& text, JobSettings& job) {
    const std::string ctx = "preset '" + fileName + "'";
    return detail::guardedParse(ctx, [&] { return parsePresetJson(ctx, text, job); });
}

Status loadPreset(const std::string& path, JobSettings& job) {
    std::string text;
    if (Status s = detail::readSmallText(path, "preset", text); !s) return s;
    return parsePreset(path, text, job);
}

Status savePreset(const std::string& path, const JobSettings& job) {
    if (Status s = validateJob(job); !s) return Status::error("cannot save preset '" + path + "': " + s.message());
    if (Status s = writeFileAtomically(path, presetJson(job)); !s)
        return Status::error("cannot save preset '" + path + "': " + s.message());
    return Status::ok();
}

}  // namespace halftone::io
