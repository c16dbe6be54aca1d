// `halftone help [METHOD|COMMAND]`: one method's variants, devices and options with an example, or a command's help.
#include <algorithm>
#include <cstdio>
#include <string>
#include <vector>

#include "app/halftone/commands.h"
#include "app/halftone/optiontable.h"
#include "core/job/names.h"
#include "core/job/registry.h"

namespace halftone::cli {

namespace {

/// The help of one method: what it is, its variants (the default marked), the devices, each parameter with its kind,
/// range or choices and default, and an example.
std::string methodHelp(const std::string& method) {
    const Registry& registry = Registry::instance();
    const std::string def = registry.defaultVariant(method);
    std::string out = method + " (" + registry.displayName(method) + "): halftone --method " + method +
                      " [--variant V] [options] IN OUT\n\nVariants (--variant):\n";
    for (const std::string& v : registry.variants(method)) {
        const MethodInfo* m = registry.find(method, v);
        std::string name = "  " + v + (v == def ? " (default)" : "");
        name += name.size() < 30 ? std::string(30 - name.size(), ' ') : "\n" + std::string(30, ' ');
        out +=
            name +
            wrapText("[" + m->devicesString() + (m->exact ? ", exact" : "") + "] " + m->description, kHelpWidth, 30) +
            "\n";
    }
    out += "\nOptions:\n";
    std::vector<std::string> keys;
    for (const std::string& v : registry.variants(method))
        for (const ParamSpec& p : registry.find(method, v)->params) {
            if (std::find(keys.begin(), keys.end(), p.key) != keys.end()) continue;
            keys.push_back(p.key);
            std::string name = "  --" + p.key;
            std::string detail = p.help.empty() ? p.label : p.help;
            switch (p.kind) {
                case ParamSpec::Kind::Int:
                case ParamSpec::Kind::Real:
                    name += " N";
                    // the shortest text of each bound (0.3, not 0.29999999999999999)
                    detail +=
                        " (" + jsonNumber(p.min) + ".." + jsonNumber(p.max) + ", default " + p.defaultText() + ")";
                    break;
                case ParamSpec::Kind::Bool:
                    detail += " (a flag; default " + p.defaultText() + ")";
                    break;
                case ParamSpec::Kind::Choice: {
                    name += " NAME";
                    std::string choices;
                    for (const std::string& c : p.choices) choices += (choices.empty() ? "" : ", ") + c;
                    detail += " (" + choices + "; default " + p.defaultText() + ")";
                    break;
                }
                case ParamSpec::Kind::Text:
                    name += " TEXT";
                    detail += " (default " + p.defaultText() + ")";
                    break;
            }
            std::vector<std::string> in;
            for (const std::string& v : registry.variants(method))
                if (!registry.find(method, v)->param(p.key)) {
                    for (const std::string& w : registry.variants(method))
                        if (registry.find(method, w)->param(p.key)) in.push_back(w);
                    break;
                }
            if (!in.empty()) {
                std::string list;
                for (const std::string& w : in) list += (list.empty() ? "" : ", ") + w;
                detail += "; variants " + list;
            }
            name += std::string(name.size() + 1 < 30 ? 30 - name.size() : 1, ' ');
            if (name.size() > 30) name = name.substr(0, name.size() - 1) + "\n" + std::string(30, ' ');
            out += name + wrapText(detail, kHelpWidth, 30) + "\n";
        }
    if (keys.empty()) out += "  (none)\n";
    out += "\nExample:\n  halftone --method " + method + " in.png out.png\n";
    return out;
}

}  // namespace

int runHelp(CLI::App& app, const std::vector<std::string>& words) {
    if (words.size() > 1) return fail("help: give one method or command, e.g. halftone help dbs", kExitUsage);
    if (words.empty() || words.front() == "-h" || words.front() == "--help") {
        std::fputs(app.get_formatter()->make_help(&app, "halftone", CLI::AppFormatMode::Normal).c_str(), stdout);
        return kExitOk;
    }
    const std::string& topic = words.front();
    const auto commands = app.get_subcommands([](const CLI::App* s) { return !s->get_name().empty(); });
    for (const CLI::App* s : commands)
        if (s->get_name() == topic) {
            std::fputs(s->get_formatter()->make_help(s, "halftone " + topic, CLI::AppFormatMode::Normal).c_str(),
                       stdout);
            return kExitOk;
        }
    const Registry& registry = Registry::instance();
    std::vector<std::string> names = registry.methodNames();
    std::string method = matchName("method", topic, names);
    for (const std::string& m : names)
        if (method.empty() && nameKey(registry.displayName(m)) == nameKey(topic)) method = m;
    if (method.empty()) {
        for (const CLI::App* s : commands) names.push_back(s->get_name());
        std::string list;
        for (const std::string& n : names) list += (list.empty() ? "" : ", ") + n;
        return fail(
            "help: no method or command '" + topic + "'" + didYouMean(topic, names) + "; choose one of: " + list,
            kExitUsage);
    }
    std::fputs(methodHelp(method).c_str(), stdout);
    return kExitOk;
}

void addHelpCommand(Commands& commands) {
    // Listed for the help and the completions; main() runs `halftone help ...` through runHelp before CLI11 parses
    // (CLI11 would take `help batch` for the batch command).
    auto topic = std::make_shared<std::string>();
    CLI::App& app = commands.app();
    CLI::App* sub = commands.add(
        "help", "show the help of a method (its variants and options) or of a command: halftone help dbs",
        [topic, &app]() {
            return runHelp(app, topic->empty() ? std::vector<std::string>{} : std::vector<std::string>{*topic});
        });
    sub->add_option("TOPIC", *topic, "a method (halftone --list) or a command (batch, screen, analyze)");
}

}  // namespace halftone::cli
