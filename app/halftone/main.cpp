// The `halftone` command-line tool: halftones one image with any registered method.
#include <CLI/CLI.hpp>

#include <cstdio>
#include <cstdlib>
#include <exception>
#include <new>
#include <string>

#include "app/halftone/commands.h"
#include "core/registry.h"
#include "gpu/gpu.h"

int main(int argc, char** argv) {
    using namespace halftone;
    cli::installSignalHandlers();
    gpu::registerMethods(Registry::instance());

    CLI::App app{
        "Halftone Studio command line: exact error diffusion and every other registered method.\n"
        "Usage in short: halftone IN OUT (exact Floyd-Steinberg error diffusion); halftone --list shows every method.\n"
        "Exit codes: 0 ok, 1 error (input, output, method), 2 usage, 128+N ended by signal N\n"
        "(130 SIGINT, 143 SIGTERM, 129 SIGHUP, 131 SIGQUIT; no output or temporary file is left).",
        "halftone"};
    app.set_version_flag("--version", std::string("halftone (Halftone Studio) ") + HALFTONE_VERSION,
                         "print the version and exit");
    cli::Commands commands(app);
    const auto runDefault = cli::addHalftoneOptions(app);
    // Subcommands: one line each, defined in their own files (see commands.h).
    cli::addScreenCommand(commands);
    cli::addAnalyzeCommand(commands);
    cli::addBatchCommand(commands);

    try {
        app.parse(argc, argv);
    } catch (const CLI::Success& e) {
        return app.exit(e);  // --help
    } catch (const CLI::ParseError& e) {
        return cli::fail(std::string(e.what()) + " (see halftone --help)", cli::kExitUsage);
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
