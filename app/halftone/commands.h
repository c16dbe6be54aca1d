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
#include "core/status.h"

namespace halftone::cli {

/// \brief Process exit codes of every command; a signal ends the program with 128 + its number
/// (SIGHUP 129, SIGINT 130, SIGQUIT 131, SIGTERM 143).
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

/// \brief Writes one line to the real stderr (also while a QuietStderr is alive in another thread).
void printLine(const std::string& text);
/// \brief Writes lines to the real stderr in one write: lines of one file never interleave with another's.
void printLines(const std::vector<std::string>& lines);
/// \brief Prints "halftone: <message>" as one line on stderr and returns `code`.
int fail(const std::string& message, int code = kExitError);
/// \brief Prints "halftone: note: <message>" on stderr, unless --quiet.
void note(const std::string& message);
/// \brief --quiet: notes and progress lines are left out; errors are still printed.
void setQuiet(bool quiet);
bool quiet();

/// \brief `text` as a JSON string literal, quotes included.
std::string jsonString(const std::string& text);
/// \brief A finite number as JSON (shortest round-trip form); NaN and infinities as null.
std::string jsonNumber(double value);

/// \brief Removes `path` at exit and when a signal ends the program (a temporary file of standard input or output);
/// at most a few at a time. An empty path clears the slot's registration.
void removeOnExit(int slot, const std::string& path);

/// \brief Sends stderr to /dev/null while alive: some codecs behind OpenImageIO (libpng) print their
/// own errors, which the CLI already reports as one line. Counted across threads: stderr comes back when the last
/// one ends; printLine, fail and note still reach the terminal meanwhile.
class QuietStderr {
public:
    QuietStderr();
    ~QuietStderr();
    QuietStderr(const QuietStderr&) = delete;
    QuietStderr& operator=(const QuietStderr&) = delete;
};

/// \brief Makes SIGINT, SIGTERM, SIGHUP and SIGQUIT end the program at once, whatever it is doing
/// (reading, computing, writing): the file being written is dropped (it has no name until complete),
/// one line goes to stderr and the exit code is 128 + the signal's number. A signal that arrives
/// while a finished output is being linked into place waits for that step; see takeDeferredSignal().
void installSignalHandlers();
/// \brief The signal that arrived while an output was being put in place, or 0; clears it.
int takeDeferredSignal();
/// \brief Ends the program for a signal taken by takeDeferredSignal(), saying whether `output` was
/// written complete (`written`) or not at all.
[[noreturn]] void exitForDeferredSignal(int sig, const std::string& output, bool written);
/// \brief Writes `text` to `path` complete or not at all (io::AtomicFile); the message names the file.
Status writeTextFile(const std::string& path, const std::string& text);
/// \brief Progress callback that prints whole percents on stderr.
std::function<void(const Progress&)> stderrProgress();

/// \brief The method `halftone IN OUT` runs without --method: exact error diffusion ("ed"), in the
/// registry's default variant (Registry::defaultVariant, the studio's default too).
std::string defaultMethod();

/// \brief The default command: `halftone [options] INPUT OUTPUT`, `--list`, `--list-kernels`.
std::function<int()> addHalftoneOptions(CLI::App& app);

// Subcommands, each defined in its own file (one line per command in main.cpp):
void addScreenCommand(Commands& commands);   ///< cmd_screen.cpp: `halftone screen`
void addAnalyzeCommand(Commands& commands);  ///< cmd_analyze.cpp: `halftone analyze`
void addBatchCommand(Commands& commands);    ///< cmd_batch.cpp: `halftone batch`
void addHelpCommand(Commands& commands);     ///< cmd_help.cpp: `halftone help METHOD`
void addTeachCommand(Commands& commands);    ///< cmd_teach.cpp: `halftone teach`
/// \brief `halftone help [TOPIC]`: the program's help, a command's, or one method's; returns the exit code.
int runHelp(CLI::App& app, const std::vector<std::string>& words);

}  // namespace halftone::cli
