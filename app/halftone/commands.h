#pragma once
// \brief The `halftone` CLI's command table and the helpers every command shares.
//
// A subcommand lives in its own file as `void addXCommand(Commands&)`, declared below, and is
// switched on by one line in main.cpp.
#include <CLI/CLI.hpp>

#include <functional>
#include <string>
#include <vector>

#include "core/runcontrol.h"

namespace halftone::cli {

/// \brief Process exit codes of every command.
enum ExitCode : int { kExitOk = 0, kExitError = 1, kExitUsage = 2, kExitCancelled = 130 };

/// \brief The subcommands of the `halftone` program and their bodies.
class Commands {
public:
    explicit Commands(CLI::App& app) : app_(app) {}
    CLI::App& app() { return app_; }
    /// \brief Adds a subcommand; `run` is its body and returns the exit code.
    CLI::App* add(const std::string& name, const std::string& description, std::function<int()> run);
    /// \brief Runs the subcommand given on the command line; false when none was.
    bool runChosen(int& exitCode) const;

private:
    CLI::App& app_;
    std::vector<std::pair<CLI::App*, std::function<int()>>> commands_;
};

/// \brief Prints "halftone: <message>" as one line on stderr and returns `code`.
int fail(const std::string& message, int code = kExitError);
/// \brief Prints "halftone: note: <message>" on stderr.
void note(const std::string& message);

/// \brief Sends stderr to /dev/null while alive: some codecs behind OpenImageIO (libpng) print their
/// own errors, which the CLI already reports as one line.
class QuietStderr {
public:
    QuietStderr();
    ~QuietStderr();
    QuietStderr(const QuietStderr&) = delete;
    QuietStderr& operator=(const QuietStderr&) = delete;

private:
    int saved_ = -1;
};

/// \brief Installs SIGINT/SIGTERM handlers that request a stop on `token` (a second signal kills).
void installInterruptHandler(const StopToken& token);
/// \brief Progress callback that prints whole percents on stderr.
std::function<void(const Progress&)> stderrProgress();

/// \brief The default command: `halftone [options] INPUT OUTPUT`, `--list`, `--list-kernels`.
std::function<int()> addHalftoneOptions(CLI::App& app);

// Subcommands, each defined in its own file (one line per command in main.cpp):
void addScreenCommand(Commands& commands);   ///< cmd_screen.cpp: `halftone screen`
void addAnalyzeCommand(Commands& commands);  ///< cmd_analyze.cpp: `halftone analyze`

}  // namespace halftone::cli
