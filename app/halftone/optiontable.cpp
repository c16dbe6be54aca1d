#include "app/halftone/optiontable.h"

#include <algorithm>
#include <filesystem>
#include <map>
#include <set>
#include <sstream>

#include "app/halftone/commands.h"
#include "app/halftone/jobcli.h"
#include "core/ed/kernel.h"
#include "core/job/names.h"
#include "core/palette/palette.h"
#include "core/palette/target.h"
#include "core/job/registry.h"

namespace halftone::cli {

namespace {

constexpr size_t kNameColumn = 30;

/// The groups of `app`'s options in the order the help shows them.
std::vector<std::string> orderedGroups(const CLI::App* app) {
    const std::vector<std::string> order = {group::kInput, group::kPrepare, group::kMethod,     group::kColour,
                                            group::kPrint, group::kOutput,  group::kPerformance};
    std::vector<std::string> present;
    for (const CLI::Option* opt : app->get_options())
        if (opt->nonpositional() && !opt->get_group().empty() &&
            std::find(present.begin(), present.end(), opt->get_group()) == present.end())
            present.push_back(opt->get_group());
    auto rank = [&](const std::string& g) {
        const auto it = std::find(order.begin(), order.end(), g);
        if (it != order.end()) return 2 * int(it - order.begin());
        if (g.rfind("Method options", 0) == 0) return 2 * 2 + 1;  // the methods' own options, after Method
        if (g == group::kInformation) return 2 * int(order.size());
        return 2 * int(order.size()) + 1;
    };
    std::stable_sort(present.begin(), present.end(),
                     [&](const std::string& a, const std::string& b) { return rank(a) < rank(b); });
    return present;
}

/// The first sentence of a description, for completions (shell menus are one line).
std::string summary(const std::string& text, size_t most = 70) {
    std::string s = text.substr(0, text.find_first_of("\n"));
    if (const size_t semi = s.find("; "); semi != std::string::npos) s = s.substr(0, semi);
    if (s.size() > most) {
        s = s.substr(0, most);
        if (const size_t space = s.find_last_of(' '); space != std::string::npos && space > most / 2)
            s = s.substr(0, space);
        s += "...";
    }
    return s;
}

/// The subcommands of `app`, named ones only.
std::vector<const CLI::App*> subcommands(const CLI::App& app) {
    return app.get_subcommands([](const CLI::App* s) { return !s->get_name().empty(); });
}

/// The options of `app` that a user types (no positionals).
std::vector<const CLI::Option*> typedOptions(const CLI::App& app) {
    return app.get_options([](const CLI::Option* o) { return o->nonpositional(); });
}

/// A flag (--serpentine, --help) takes no value: CLI11 gives it an expected count of 0.
bool takesValue(const CLI::Option& o) { return o.get_type_size() != 0 && o.get_expected_max() != 0; }
bool takesFile(const CLI::Option& o) {
    const std::string t = o.get_type_name();
    return t == "FILE" || t == "DIR" || t == "NAME|FILE" || t == "NAME|FILE|auto:N" ||
           o.get_lnames() == std::vector<std::string>{"screen"} || o.get_lnames() == std::vector<std::string>{"csv"} ||
           o.get_lnames() == std::vector<std::string>{"tone-csv"};
}
bool takesDir(const CLI::Option& o) { return o.get_type_name() == "DIR"; }

std::string joinedWords(const std::vector<std::string>& words) {
    std::string s;
    for (const std::string& w : words) s += (s.empty() ? "" : " ") + w;
    return s;
}

/// Every spelling of an option: "--method", "-o", "--output".
std::vector<std::string> spellings(const CLI::Option& o) {
    std::vector<std::string> v;
    for (const std::string& s : o.get_snames()) v.push_back("-" + s);
    for (const std::string& l : o.get_lnames()) v.push_back("--" + l);
    return v;
}

// --- bash ---

std::string bashScript(const CLI::App& app) {
    std::ostringstream out;
    std::vector<std::string> subs;
    for (const CLI::App* s : subcommands(app)) subs.push_back(s->get_name());
    out << "# bash completion for halftone (made by `halftone --completion bash`)\n"
        << "_halftone() {\n"
        << "    local cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD-1]} sub= w\n"
        << "    for w in \"${COMP_WORDS[@]:1:COMP_CWORD-1}\"; do\n"
        << "        case $w in " <<
        [&] {
            std::string s;
            for (const std::string& n : subs) s += (s.empty() ? "" : "|") + n;
            return s;
        }()
        << ") sub=$w; break ;; esac\n"
        << "    done\n";
    // Values of the option before the cursor.
    out << "    case \"$prev\" in\n";
    std::set<std::string> done;
    auto valueCases = [&](const CLI::App& a) {
        for (const CLI::Option* o : typedOptions(a)) {
            if (!takesValue(*o)) continue;
            const std::string names = [&] {
                std::string s;
                for (const std::string& n : spellings(*o)) s += (s.empty() ? "" : "|") + n;
                return s;
            }();
            if (!done.insert(names).second) continue;
            const std::vector<std::string> values = optionValues(*o);
            if (!values.empty())
                out << "        " << names << ") COMPREPLY=($(compgen -W \"" << joinedWords(values)
                    << "\" -- \"$cur\"))" << (takesFile(*o) ? "; COMPREPLY+=($(compgen -f -- \"$cur\"))" : "")
                    << "; return ;;\n";
            else if (takesDir(*o))
                out << "        " << names << ") COMPREPLY=($(compgen -d -- \"$cur\")); return ;;\n";
            else if (takesFile(*o))
                out << "        " << names << ") COMPREPLY=($(compgen -f -- \"$cur\")); return ;;\n";
            else
                out << "        " << names << ") return ;;\n";
        }
    };
    valueCases(app);
    for (const CLI::App* s : subcommands(app)) valueCases(*s);
    out << "    esac\n";
    auto optionWords = [&](const CLI::App& a) {
        std::vector<std::string> v;
        for (const CLI::Option* o : typedOptions(a))
            for (const std::string& n : spellings(*o)) v.push_back(n);
        return joinedWords(v);
    };
    out << "    if [[ $cur == -* ]]; then\n        case $sub in\n";
    for (const CLI::App* s : subcommands(app))
        out << "            " << s->get_name() << ") COMPREPLY=($(compgen -W \"" << optionWords(*s)
            << "\" -- \"$cur\")) ;;\n";
    out << "            *) COMPREPLY=($(compgen -W \"" << optionWords(app) << "\" -- \"$cur\")) ;;\n"
        << "        esac\n        return\n    fi\n";
    std::vector<std::string> methods = Registry::instance().methodNames();
    out << "    if [[ $sub == help ]]; then COMPREPLY=($(compgen -W \"" << joinedWords(methods) << " "
        << joinedWords(subs) << "\" -- \"$cur\")); return; fi\n"
        << "    COMPREPLY=($(compgen -f -- \"$cur\"))\n"
        << "    [[ -z $sub ]] && COMPREPLY+=($(compgen -W \"" << joinedWords(subs) << "\" -- \"$cur\"))\n"
        << "}\n"
        << "complete -o filenames -F _halftone halftone\n";
    return out.str();
}

// --- zsh ---

std::string zshQuote(const std::string& text) {
    std::string s;
    for (const char c : text) {
        if (c == '\'') {
            s += "'\\''";
        } else if (c == '[' || c == ']') {
            s += c == '[' ? '(' : ')';
        } else if (c == ':') {
            s += "\\:";
        } else {
            s += c;
        }
    }
    return s;
}

void zshArguments(std::ostringstream& out, const CLI::App& a, const std::string& indent) {
    out << indent << "_arguments -s \\\n";
    for (const CLI::Option* o : typedOptions(a)) {
        const std::vector<std::string> names = spellings(*o);
        std::string spec;
        if (names.size() > 1) {
            spec = "'(" + joinedWords(names) + ")'{";
            for (size_t i = 0; i < names.size(); ++i) spec += (i ? "," : "") + names[i];
            spec += "}'";
        } else {
            spec = "'" + names.front();
        }
        spec += "[" + zshQuote(summary(o->get_description())) + "]";
        if (takesValue(*o)) {
            const std::vector<std::string> values = optionValues(*o);
            const std::string label = zshQuote(o->get_type_name().empty() ? "VALUE" : o->get_type_name());
            if (!values.empty())
                spec += ":" + label + ":(" + joinedWords(values) + ")";
            else if (takesDir(*o))
                spec += ":" + label + ":_files -/";
            else if (takesFile(*o))
                spec += ":" + label + ":_files";
            else
                spec += ":" + label + ": ";
        }
        out << indent << "    " << spec << "' \\\n";
    }
    out << indent << "    '*:file:_files'\n";
}

std::string zshScript(const CLI::App& app) {
    std::ostringstream out;
    std::vector<std::string> subs;
    for (const CLI::App* s : subcommands(app)) subs.push_back(s->get_name());
    out << "#compdef halftone\n# zsh completion for halftone (made by `halftone --completion zsh`)\n"
        << "_halftone() {\n"
        << "    local sub=${words[(r)(" <<
        [&] {
            std::string s;
            for (const std::string& n : subs) s += (s.empty() ? "" : "|") + n;
            return s;
        }()
        << ")]}\n"
        << "    case $sub in\n";
    for (const CLI::App* s : subcommands(app)) {
        out << "    " << s->get_name() << ")\n";
        if (s->get_name() == "help")
            out << "        _values 'method or command' " << joinedWords(Registry::instance().methodNames()) << " "
                << joinedWords(subs) << "\n";
        else
            zshArguments(out, *s, "        ");
        out << "        ;;\n";
    }
    out << "    *)\n";
    zshArguments(out, app, "        ");
    out << "        (( CURRENT == 2 )) && _values 'command' " << joinedWords(subs) << "\n"
        << "        ;;\n    esac\n}\n_halftone \"$@\"\n";
    return out.str();
}

// --- fish ---

std::string fishQuote(const std::string& text) {
    std::string s = "'";
    for (const char c : text) {
        if (c == '\'' || c == '\\') s += '\\';
        s += c;
    }
    return s + "'";
}

std::string fishScript(const CLI::App& app) {
    std::ostringstream out;
    std::vector<std::string> subs;
    for (const CLI::App* s : subcommands(app)) subs.push_back(s->get_name());
    const std::string all = joinedWords(subs);
    out << "# fish completion for halftone (made by `halftone --completion fish`)\n"
        << "complete -c halftone -n '__fish_use_subcommand' -f -a '" << all << "'\n";
    for (const CLI::App* s : subcommands(app))
        out << "complete -c halftone -n '__fish_use_subcommand' -f -a " << s->get_name() << " -d "
            << fishQuote(summary(s->get_description())) << "\n";
    out << "complete -c halftone -n '__fish_seen_subcommand_from help' -f -a '"
        << joinedWords(Registry::instance().methodNames()) << " " << all << "'\n";
    auto options = [&](const CLI::App& a, const std::string& condition) {
        for (const CLI::Option* o : typedOptions(a)) {
            out << "complete -c halftone -n " << fishQuote(condition);
            for (const std::string& s : o->get_snames()) out << " -s " << s;
            for (const std::string& l : o->get_lnames()) out << " -l " << l;
            if (takesValue(*o)) {
                out << " -r";
                const std::vector<std::string> values = optionValues(*o);
                if (!values.empty())
                    out << (takesFile(*o) ? "" : " -f") << " -a " << fishQuote(joinedWords(values));
                else if (!takesFile(*o))
                    out << " -f";
            }
            out << " -d " << fishQuote(summary(o->get_description())) << "\n";
        }
    };
    options(app, "not __fish_seen_subcommand_from " + all);
    for (const CLI::App* s : subcommands(app)) options(*s, "__fish_seen_subcommand_from " + s->get_name());
    return out.str();
}

// --- man ---

std::string roff(const std::string& text) {
    std::string s;
    for (const char c : text) {
        if (c == '\\')
            s += "\\e";
        else if (c == '-')
            s += "\\-";
        else
            s += c;
    }
    if (!s.empty() && (s[0] == '.' || s[0] == '\'')) s = "\\&" + s;
    return s;
}

void manOptions(std::ostringstream& out, const CLI::App& a) {
    for (const std::string& g : orderedGroups(&a)) {
        out << ".SS " << roff(g) << "\n";
        for (const CLI::Option* o : typedOptions(a)) {
            if (o->get_group() != g) continue;
            out << ".TP\n";
            const std::vector<std::string> names = spellings(*o);
            std::string line;
            for (size_t i = 0; i < names.size(); ++i)
                line += (i ? ", " : "") + std::string("\\fB") + roff(names[i]) + "\\fR";
            if (takesValue(*o) && !o->get_type_name().empty()) line += " \\fI" + roff(o->get_type_name()) + "\\fR";
            out << line << "\n" << roff(o->get_description()) << "\n";
        }
    }
}

}  // namespace

std::string wrapText(const std::string& text, size_t width, size_t indent) {
    std::string out;
    size_t column = indent;
    bool firstParagraph = true;
    std::istringstream paragraphs(text);
    for (std::string paragraph; std::getline(paragraphs, paragraph);) {
        if (!firstParagraph) {
            out += "\n" + std::string(indent, ' ');
            column = indent;
        }
        firstParagraph = false;
        // Leading spaces of a paragraph are kept (the examples are indented).
        const size_t lead = std::min(paragraph.find_first_not_of(' '), paragraph.size());
        out += std::string(lead, ' ');
        column += lead;
        bool lineEmpty = true;
        std::istringstream words(paragraph);
        for (std::string word; words >> word;) {
            if (!lineEmpty && column + 1 + word.size() > width) {
                out += "\n" + std::string(indent, ' ');
                column = indent;
                lineEmpty = true;
            }
            if (!lineEmpty) {
                out += ' ';
                ++column;
            }
            out += word;
            column += word.size();
            lineEmpty = false;
        }
    }
    return out;
}

HelpFormatter::HelpFormatter() { column_width(kNameColumn); }

std::string HelpFormatter::make_help(const CLI::App* app, std::string name, CLI::AppFormatMode mode) const {
    if (mode == CLI::AppFormatMode::Sub) return make_expanded(app);
    std::ostringstream out;
    out << make_description(app) << make_usage(app, name) << make_positionals(app);
    for (const std::string& g : orderedGroups(app)) {
        const std::vector<const CLI::Option*> opts =
            app->get_options([&](const CLI::Option* o) { return o->nonpositional() && o->get_group() == g; });
        if (!opts.empty()) out << make_group(g, false, opts);
    }
    out << make_subcommands(app, mode) << make_footer(app);
    return out.str();
}

std::string HelpFormatter::make_option(const CLI::Option* opt, bool isPositional) const {
    const std::string name = "  " + make_option_name(opt, isPositional) + make_option_opts(opt);
    const std::string desc = wrapText(make_option_desc(opt), kHelpWidth, kNameColumn);
    if (name.size() + 1 > kNameColumn) return name + "\n" + std::string(kNameColumn, ' ') + desc + "\n";
    return name + std::string(kNameColumn - name.size(), ' ') + desc + "\n";
}

std::string HelpFormatter::make_subcommand(const CLI::App* sub) const {
    const std::string name = "  " + sub->get_display_name();
    return name + std::string(kNameColumn > name.size() ? kNameColumn - name.size() : 1, ' ') +
           wrapText(sub->get_description(), kHelpWidth, kNameColumn) + "\n";
}

std::string HelpFormatter::make_description(const CLI::App* app) const {
    const std::string d = app->get_description();
    return d.empty() ? std::string() : wrapText(d, kHelpWidth) + "\n";
}

std::string HelpFormatter::make_footer(const CLI::App* app) const {
    const std::string f = app->get_footer();
    return f.empty() ? std::string() : "\n" + wrapText(f, kHelpWidth) + "\n";
}

const std::vector<std::pair<std::string, std::string>>& examples() {
    static const std::vector<std::pair<std::string, std::string>> all = {
        {"halftone photo.png photo-fs.png", "exact Floyd-Steinberg error diffusion, binary"},
        {"halftone --kernel jjn --levels 4 in.png out.png", "Jarvis, Judice and Ninke's kernel, four gray levels"},
        {"halftone --method dbs --width 800 in.jpg out.png", "direct binary search at 800 pixels wide"},
        {"halftone --color cmyk --print-size 6x4in --dpi 600 in.jpg plates.tif", "CMYK plates for a 6 x 4 in print"},
        {"halftone --palette acep7 --width 800 --height 480 in.jpg frame.png", "a 7-colour e-paper frame"},
        {"curl -s URL | halftone --format pbm - - > out.pbm", "standard input to standard output"},
        {"halftone batch --jobs 2 --width 600 --out-dir out photos/", "a folder, two files at a time"},
        {"halftone help dbs", "one method's variants and options"},
    };
    return all;
}

std::vector<std::string> optionValues(const CLI::Option& option) {
    const std::vector<std::string>& names = option.get_lnames();
    const std::string name = names.empty() ? std::string() : names.front();
    const Registry& registry = Registry::instance();
    if (name == "method") return registry.methodNames();
    if (name == "variant") {
        std::vector<std::string> v;
        for (const MethodInfo& m : registry.methods())
            if (std::find(v.begin(), v.end(), m.variant) == v.end()) v.push_back(m.variant);
        return v;
    }
    if (name == "palette" || name == "show-palette") {
        std::vector<std::string> v;
        for (const BuiltinPalette& b : builtinPalettes()) v.push_back(b.name);
        return v;
    }
    if (name == "target") {
        std::vector<std::string> v;
        for (const Target& t : builtinTargets()) v.push_back(t.name);
        return v;
    }
    if (name == "tone") return {"none", "auto", "s-curve"};
    if (name == "gamut") return {"none", "clip", "compress"};
    if (name == "color") return {"gray", "rgb", "cmyk"};
    if (name == "intent") return {"perceptual", "relative", "saturation", "absolute"};
    if (name == "device") return {"cpu", "gpu", "auto"};
    if (name == "fit") return {"inside", "stretch", "cover", "contain"};
    if (name == "gravity")
        return {"center", "north", "south", "east", "west", "northeast", "northwest", "southeast", "southwest"};
    if (name == "rotate") return {"auto", "90", "180", "270"};
    if (name == "background") return {"white", "black"};
    if (name == "resize-filter") return {"lanczos", "bicubic", "box", "nearest"};
    if (name == "resize-space" || name == "space") return {"linear", "gamma"};
    if (name == "match") return {"euclidean", "weighted"};
    if (name == "format") return {"png", "tif", "pbm", "pgm", "ppm", "gif", "bmp", "webp"};
    if (name == "completion") return {"bash", "zsh", "fish"};
    if (name == "hvs") return {"gaussian", "nasanen"};
    if (name == "screen") {
        std::vector<std::string> v;
        for (const MethodInfo& m : registry.methods())
            if (const ParamSpec* p = m.param("screen"))
                for (const auto& [value, label] : p->presets)
                    if (std::find(v.begin(), v.end(), value) == v.end()) v.push_back(value);
        return v;
    }
    for (const MethodInfo& m : registry.methods())
        if (const ParamSpec* p = m.param(name); p && p->kind == ParamSpec::Kind::Choice) return p->choices;
    return {};
}

std::string optionList(const CLI::App& app, const std::function<bool(const std::string&)>& kept, bool json) {
    // One entry per option name, in the order the program, then each command, first has it.
    struct Entry {
        const CLI::Option* option;
        std::vector<std::string> commands;
    };
    std::vector<Entry> entries;
    std::vector<const CLI::App*> everyCommand = {&app};
    for (const CLI::App* s : subcommands(app)) everyCommand.push_back(s);
    for (const CLI::App* a : everyCommand)
        for (const CLI::Option* o : typedOptions(*a)) {
            const std::string command = a == &app ? "halftone" : a->get_name();
            auto same = [&](const Entry& e) { return spellings(*e.option) == spellings(*o); };
            if (const auto it = std::find_if(entries.begin(), entries.end(), same); it != entries.end())
                it->commands.push_back(command);
            else
                entries.push_back({o, {command}});
        }
    std::string out = json ? "[" : "";
    for (const Entry& e : entries) {
        const CLI::Option& o = *e.option;
        const std::string name = o.get_lnames().empty() ? o.get_name() : "--" + o.get_lnames().front();
        const bool preset = !o.get_lnames().empty() && kept(o.get_lnames().front());
        const std::string value = takesValue(o) ? o.get_type_name() : std::string();
        if (!json) {
            out += name + "\t" + value + "\t" + joinedWords(e.commands) + "\t" + (preset ? "preset" : "-") + "\t" +
                   o.get_group() + "\n";
            continue;
        }
        std::string item = "{\"name\":" + jsonString(name);
        if (!o.get_snames().empty()) item += ",\"short\":" + jsonString("-" + o.get_snames().front());
        item += ",\"value\":" + (takesValue(o) ? jsonString(value) : std::string("null")) + ",\"values\":[";
        const std::vector<std::string> values = optionValues(o);
        for (size_t i = 0; i < values.size(); ++i) item += (i ? "," : "") + jsonString(values[i]);
        item += "],\"commands\":[";
        for (size_t i = 0; i < e.commands.size(); ++i) item += (i ? "," : "") + jsonString(e.commands[i]);
        item += "],\"group\":" + jsonString(o.get_group()) + ",\"preset\":" + (preset ? "true" : "false") +
                ",\"description\":" + jsonString(o.get_description()) + "}";
        out += (out.size() > 1 ? ",\n " : "") + item;
    }
    return json ? out + "]\n" : out;
}

std::string completionScript(const CLI::App& app, const std::string& shell) {
    if (shell == "bash") return bashScript(app);
    if (shell == "zsh") return zshScript(app);
    if (shell == "fish") return fishScript(app);
    return {};
}

std::string manPage(const CLI::App& app, const std::string& version) {
    std::ostringstream out;
    out << ".TH HALFTONE 1 \"\" \"halftone " << version << "\" \"User Commands\"\n"
        << ".SH NAME\nhalftone \\- halftone images: exact error diffusion and every other registered method\n"
        << ".SH SYNOPSIS\n.B halftone\n[\\fIOPTIONS\\fR] \\fIINPUT\\fR \\fIOUTPUT\\fR\n.br\n"
        << ".B halftone\n[\\fIOPTIONS\\fR] \\fIINPUT\\fR \\fB\\-o\\fR \\fIOUTPUT\\fR\n";
    for (const CLI::App* s : subcommands(app)) {
        std::string positionals;
        for (const CLI::Option* o : s->get_options([](const CLI::Option* x) { return x->get_positional(); }))
            positionals += " \\fI" + roff(o->get_name()) + "\\fR" + (o->get_items_expected_max() > 1 ? "..." : "");
        out << ".br\n.B halftone " << s->get_name() << "\n[\\fIOPTIONS\\fR]" << positionals << "\n";
    }
    out << ".SH DESCRIPTION\n" << roff(app.get_description()) << "\n";
    out << ".PP\nA file name of \\fB\\-\\fR reads standard input (the format from the content, or \\fB\\-\\-format\\fR)"
        << " or writes standard output (in the format of \\fB\\-\\-format\\fR). Method, variant, kernel, palette and"
        << " choice names are matched without regard to case, and common aliases are understood (fs, floyd, jjn).\n";
    out << ".SH OPTIONS\n";
    manOptions(out, app);
    out << ".SH COMMANDS\n";
    for (const CLI::App* s : subcommands(app)) {
        out << ".SS halftone " << s->get_name() << "\n" << roff(s->get_description()) << "\n";
        manOptions(out, *s);
    }
    out << ".SH EXAMPLES\n";
    for (const auto& [command, what] : examples()) out << ".TP\n.B " << roff(command) << "\n" << roff(what) << "\n";
    out << ".SH EXIT STATUS\n.TP\n.B 0\nsuccess\n.TP\n.B 1\nan error: input, output or method\n.TP\n.B 2\n"
        << "a usage error (found before any file is read)\n.TP\n.B 128+N\nended by signal N (130 SIGINT, 143 "
        << "SIGTERM); no output or temporary file is left\n"
        << ".SH SEE ALSO\n\\fBhalftone help\\fR \\fIMETHOD\\fR for one method's variants and options;"
        << " \\fBhalftone\\-studio\\fR, the graphical studio; docs/cli.md of the sources, the reference with every"
        << " message.\n";
    return out.str();
}

std::string suggestForArguments(const CLI::App& app, const std::vector<std::string>& args) {
    auto spellingsOf = [](const CLI::App& a) {
        std::vector<std::string> names;
        for (const CLI::Option* o : typedOptions(a))
            for (const std::string& n : spellings(*o)) names.push_back(n);
        return names;
    };
    const std::vector<const CLI::App*> commands = subcommands(app);
    std::vector<std::string> subs;
    for (const CLI::App* s : commands) subs.push_back(s->get_name());
    // The command the arguments run: the first word that names one, else the program itself.
    const CLI::App* chosen = &app;
    std::string commandName = "halftone";
    for (const std::string& a : args) {
        if (a == "--") break;
        const auto it = std::find(subs.begin(), subs.end(), a);
        if (it != subs.end()) {
            chosen = commands[size_t(it - subs.begin())];
            commandName += " " + a;
            break;
        }
    }
    // A first word that names no file but nearly a command (`halftone scren --size 8 ...`), before the options:
    // they are the options of the command meant.
    for (const std::string& a : args) {
        if (chosen != &app) break;
        if (a.empty() || a[0] == '-') continue;
        std::error_code ec;
        if (std::find(subs.begin(), subs.end(), a) != subs.end() || std::filesystem::exists(a, ec)) break;
        const std::string near = nearestName(a, subs);
        if (!near.empty()) return "unknown command '" + a + "' (did you mean '" + near + "'?)";
        break;
    }
    const std::vector<std::string> known = spellingsOf(*chosen);
    for (const std::string& a : args) {
        if (a == "--") break;
        if (a.size() < 2 || a[0] != '-' || a == "-") continue;
        if (a[1] != '-' && std::isdigit(static_cast<unsigned char>(a[1]))) continue;  // a negative number
        const std::string name = a.substr(0, a.find('='));
        if (std::find(known.begin(), known.end(), name) != known.end()) continue;
        // An option of another command: `halftone --out-dir ...` for `halftone batch --out-dir ...`.
        std::vector<const CLI::App*> everyCommand = {&app};
        everyCommand.insert(everyCommand.end(), commands.begin(), commands.end());
        for (const CLI::App* other : everyCommand)
            if (other != chosen) {
                const std::vector<std::string> theirs = spellingsOf(*other);
                if (std::find(theirs.begin(), theirs.end(), name) != theirs.end())
                    return "option " + name + " belongs to halftone" +
                           (other == &app ? std::string() : " " + other->get_name()) + ", not to " + commandName;
            }
        return "unknown option " + name + (chosen == &app ? std::string() : " of " + commandName) +
               didYouMean(name, known, false);
    }
    return {};
}

}  // namespace halftone::cli
