#include "io/targetfile.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>

#include "core/number.h"
#include "io/jsontext.h"

namespace halftone::io {

using nlohmann::json;

namespace {

using detail::shownJson;

Status parseJson(const std::string& ctx, const std::string& text, Target& out) {
    json j;
    try {
        j = json::parse(text, nullptr, true, false);
    } catch (const json::exception& e) {
        return Status::error(ctx + ": not valid JSON (" + detail::syntaxMessage(e) + ")");
    }
    if (!j.is_object() || !j.contains("halftone-target"))
        return Status::error(ctx + ": not a target (no \"halftone-target\" version key)");
    if (!j["halftone-target"].is_number_integer() || j["halftone-target"].get<int64_t>() != kTargetVersion)
        return Status::error(ctx + ": target version " + shownJson(j["halftone-target"]) +
                             " is not supported (this version " + "reads " + std::to_string(kTargetVersion) + ")");
    Target t;
    auto bad = [&](const std::string& key, const std::string& why) {
        return Status::error(ctx + ": " + key + " " + why);
    };
    auto text_ = [&](const json& v, const std::string& key, std::string& dst) {
        if (!v.is_string()) return bad(key, "must be a string, got " + shownJson(v));
        dst = v.get<std::string>();
        return Status::ok();
    };
    auto number = [&](const json& v, const std::string& key, const NumberRule& rule, auto& dst) {
        if (!v.is_number()) return bad(key, "must be a number, got " + shownJson(v));
        if (Status s = storeNumber(rule, NumberText{v.get<double>(), v.dump()}, dst); !s) return bad(key, s.message());
        return Status::ok();
    };
    auto colour = [&](const json& v, const std::string& key, Rgb8& dst) {
        if (!v.is_string() || !parseColorText(v.get<std::string>(), dst))
            return bad(key, "must be a colour such as \"#1a2b3c\", got " + shownJson(v));
        return Status::ok();
    };
    const std::vector<std::string> known = {"halftone-target", "name",   "group", "description", "source",
                                            "width",           "height", "dpi",   "inks"};
    for (const auto& [key, v] : j.items()) {
        if (std::find(known.begin(), known.end(), key) == known.end()) {
            std::string list;
            for (const std::string& k : known) list += (list.empty() ? "" : ", ") + k;
            return Status::error(ctx + ": unknown key '" + key + "' (known keys: " + list + ")");
        }
        Status s;
        if (key == "name") s = text_(v, key, t.name);
        if (key == "group") s = text_(v, key, t.group);
        if (key == "description") s = text_(v, key, t.description);
        if (key == "source") s = text_(v, key, t.source);
        if (key == "width") s = number(v, key, NumberRule{0, 1 << 20, true}, t.width);
        if (key == "height") s = number(v, key, NumberRule{0, 1 << 20, true}, t.height);
        if (key == "dpi") s = number(v, key, NumberRule{0, 100000, false}, t.dpi);
        if (key == "inks") {
            if (!v.is_array()) s = bad(key, "must be an array of colours");
            for (size_t i = 0; s && v.is_array() && i < v.size(); ++i) {
                const json& e = v[i];
                const std::string where = "inks[" + std::to_string(i) + "]";
                if (!e.is_object()) {
                    s = bad(where, "must be an object with name, code, nominal and shown");
                    break;
                }
                TargetInk k;
                k.code = int(i);
                bool haveNominal = false, haveShown = false;
                for (auto it = e.begin(); s && it != e.end(); ++it) {
                    const std::string ik = where + "." + it.key();
                    if (it.key() == "name")
                        s = text_(it.value(), ik, k.name);
                    else if (it.key() == "code")
                        s = number(it.value(), ik, NumberRule{0, 255, true}, k.code);
                    else if (it.key() == "nominal" || it.key() == "shown") {
                        const bool isShown = it.key() == "shown";
                        s = colour(it.value(), ik, isShown ? k.shown : k.nominal);
                        (isShown ? haveShown : haveNominal) = true;
                    } else
                        s = Status::error(ctx + ": unknown key '" + ik + "' (known: name, code, nominal, shown)");
                }
                if (s && !haveNominal && !haveShown) s = bad(where, "needs a colour: shown (measured) or nominal");
                if (!haveShown) k.shown = k.nominal;
                if (!haveNominal) k.nominal = k.shown;
                t.inks.push_back(k);
            }
        }
        if (!s) return s;
    }
    if (t.group.empty()) t.group = "file";
    if (Status s = t.validate(); !s) return Status::error(ctx + ": " + s.message());
    out = std::move(t);
    return Status::ok();
}

}  // namespace

Status parseTargetFile(const std::string& fileName, const std::string& text, Target& out) {
    const std::string ctx = "target file '" + fileName + "'";
    return detail::guardedParse(ctx, [&] { return parseJson(ctx, text, out); });
}

Status loadTargetFile(const std::string& path, Target& out) {
    std::string text;
    if (Status s = detail::readSmallText(path, "target file", text); !s) return s;
    return parseTargetFile(path, text, out);
}

std::string targetJson(const Target& t) {
    json j = {{"halftone-target", kTargetVersion},
              {"name", t.name},
              {"group", t.group},
              {"description", t.description},
              {"source", t.source},
              {"width", t.width},
              {"height", t.height},
              {"dpi", t.dpi}};
    json inks = json::array();
    for (const TargetInk& k : t.inks)
        inks.push_back(
            {{"name", k.name}, {"code", k.code}, {"nominal", colorText(k.nominal)}, {"shown", colorText(k.shown)}});
    j["inks"] = inks;
    return j.dump(2) + "\n";
}

void installTargetFileReader() { setTargetFileReader(loadTargetFile); }

}  // namespace halftone::io
