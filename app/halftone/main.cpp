// The `halftone` command-line tool: halftones one image with any registered method.
#include <CLI/CLI.hpp>

#include <cstdio>
#include <cstdlib>
#include <exception>
#include <memory>
#include <new>
#include <string>

#include "app/halftone/commands.h"
#include "app/halftone/jobcli.h"
#include "app/halftone/optiontable.h"
#include "core/job/registry.h"
#include "gpu/gpu.h"
#include "io/targetfile.h"

int main(int argc, char** argv) {
    using namespace halftone;
    cli::installSignalHandlers();
    gpu::registerMethods(Registry::instance());
    io::installTargetFileReader();

    CLI::App app{
        "Halftone Studio command line: exact error diffusion and every other registered method.\n"
        "halftone IN OUT halftones IN with exact Floyd-Steinberg error diffusion; halftone --list shows every "
        "method, halftone help METHOD one method's options. A file name of - reads standard input or writes "
        "standard output.\n"
        "Exit codes: 0 ok, 1 error (input, output, method), 2 usage (found before any file is read), 128+N ended "
        "by signal N (130 SIGINT, 143 SIGTERM, 129 SIGHUP, 131 SIGQUIT; no output or temporary file is left).",
        "halftone"};
    // Set before the subcommands are added: they inherit it.
    app.formatter(std::make_shared<cli::HelpFormatter>());
    app.set_help_flag("-h,--help", "print this help and exit")->group(cli::group::kInformation);
    app.set_version_flag("--version", std::string("halftone (Halftone Studio) ") + HALFTONE_VERSION,
                         "print the version and exit")
        ->group(cli::group::kInformation);
    std::string completion;
    bool man = false;
    app.add_option("--completion", completion, "print the bash, zsh or fish completion script and exit")
        ->group(cli::group::kInformation)
        ->type_name("SHELL")
        ->check(CLI::IsMember({"bash", "zsh", "fish"}));
    app.add_flag("--man", man, "print the man page (roff) and exit")->group(cli::group::kInformation);
    std::string footer = "Examples:";
    for (const auto& [command, what] : cli::examples()) footer += "\n  " + command + "\n      " + what;
    app.footer(footer);

    cli::Commands commands(app);
    const auto runDefault = cli::addHalftoneOptions(app);
    // Subcommands: one line each, defined in their own files (see commands.h).
    cli::addScreenCommand(commands);
    cli::addAnalyzeCommand(commands);
    cli::addBatchCommand(commands);
    cli::addHelpCommand(commands);
    cli::addTeachCommand(commands);

    if (argc >= 2 && std::string(argv[1]) == "help") return cli::runHelp(app, {argv + 2, argv + argc});
    try {
        app.parse(argc, argv);
    } catch (const CLI::Success& e) {
        return app.exit(e);  // --help, --version
    } catch (const CLI::ParseError& e) {
        // An unknown option or command is named with the nearest known one; other problems as CLI11 words them.
        std::string message = cli::suggestForArguments(app, std::vector<std::string>(argv + 1, argv + argc));
        if (message.empty()) message = e.what();
        return cli::fail(message + " (see halftone --help)", cli::kExitUsage);
    }
    if (!completion.empty()) {
        std::fputs(cli::completionScript(app, completion).c_str(), stdout);
        return cli::kExitOk;
    }
    if (man) {
        std::fputs(cli::manPage(app, HALFTONE_VERSION).c_str(), stdout);
        return cli::kExitOk;
    }
    // The last line of defence: a library that throws must still end in a message and exit 1.
    try {
        int code = cli::kExitOk;
        if (!commands.runChosen(code)) code = runDefault();
        if (gpu::startedInBackground()) {
            // Every output is complete and in place: the driver frees the device with the process, faster than the
            // CUDA runtime tears its context, device buffers and pinned memory down one by one at exit.
            std::fflush(nullptr);
            std::_Exit(code);
        }
        return code;
    } catch (const std::bad_alloc&) {
        return cli::fail("out of memory (the input needs more memory than this machine could give)");
    } catch (const std::exception& e) {
        return cli::fail(std::string("unexpected error: ") + e.what());
    }
}
