#pragma once
// \brief Everything made from the CLI's one option table (the CLI11 App with its groups and subcommands): `--help`
// wrapped to 100 columns and grouped, the man page, the bash, zsh and fish completions, and suggestions for
// mistyped options and commands. docs/cli.md holds the help blocks (scripts/update-cli-doc.py; test_cli checks them).
#include <CLI/CLI.hpp>

#include <functional>
#include <string>
#include <vector>

namespace halftone::cli {

/// \brief The widest line of any help text.
inline constexpr size_t kHelpWidth = 100;

/// \brief `text` wrapped at word boundaries to `width` columns for output that starts at column `indent` (the caller
/// has written the first line's prefix): later lines are indented by `indent` spaces. Newlines in `text` start new
/// lines; a line's leading spaces are kept.
std::string wrapText(const std::string& text, size_t width, size_t indent = 0);

/// \brief The help formatter of every command: lines of at most kHelpWidth columns, the option groups in the order
/// of group::kInput ... group::kInformation, then the methods' options, then the rest.
class HelpFormatter : public CLI::Formatter {
public:
    HelpFormatter();
    std::string make_help(const CLI::App* app, std::string name, CLI::AppFormatMode mode) const override;
    std::string make_option(const CLI::Option* opt, bool isPositional) const override;
    std::string make_subcommand(const CLI::App* sub) const override;
    std::string make_description(const CLI::App* app) const override;
    std::string make_footer(const CLI::App* app) const override;
};

/// \brief The completion script of `shell` (bash, zsh or fish) for every command and option of `app`, with the
/// values of options that take names (methods, kernels, palettes, choices) and files where a file is expected;
/// empty for another shell.
std::string completionScript(const CLI::App& app, const std::string& shell);

/// \brief The man page (roff, section 1) of `app` and its subcommands, with the examples and exit codes.
std::string manPage(const CLI::App& app, const std::string& version);

/// \brief A usage message for arguments CLI11 rejected: an unknown option with the nearest known one ("unknown option
/// --metod (did you mean --method?)"), or a mistyped command name; empty when it finds none.
std::string suggestForArguments(const CLI::App& app, const std::vector<std::string>& args);

/// \brief `halftone --list-options`: every option of the program and its commands, one line each
/// (name<TAB>value<TAB>commands<TAB>preset or -<TAB>group), or a JSON array (`json`) that also gives the short name,
/// the values taken by name and the description. `kept(name)` says whether a preset keeps the option (name without
/// dashes).
std::string optionList(const CLI::App& app, const std::function<bool(const std::string&)>& kept, bool json);

/// \brief The values an option takes by name (methods, variants, kernels, palettes, choices), for completions.
std::vector<std::string> optionValues(const CLI::Option& option);

/// \brief The examples of `halftone --help` and the man page: command, what it does.
const std::vector<std::pair<std::string, std::string>>& examples();

}  // namespace halftone::cli
