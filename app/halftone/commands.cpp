// Shared pieces of the CLI: command table, one-line errors, interrupt handling, progress.
#include "app/halftone/commands.h"

#include <fcntl.h>
#include <unistd.h>

#include <csignal>
#include <cstdio>
#include <mutex>

namespace halftone::cli {

CLI::App* Commands::add(const std::string& name, const std::string& description, std::function<int()> run) {
    CLI::App* sub = app_.add_subcommand(name, description);
    commands_.emplace_back(sub, std::move(run));
    return sub;
}

bool Commands::runChosen(int& exitCode) const {
    for (const auto& [sub, run] : commands_)
        if (sub->parsed()) {
            exitCode = run();
            return true;
        }
    return false;
}

int fail(const std::string& message, int code) {
    std::string line = message;
    for (char& c : line)
        if (c == '\n' || c == '\r') c = ' ';
    std::fprintf(stderr, "halftone: %s\n", line.c_str());
    return code;
}

void note(const std::string& message) { std::fprintf(stderr, "halftone: note: %s\n", message.c_str()); }

QuietStderr::QuietStderr() {
    std::fflush(stderr);
    const int null = ::open("/dev/null", O_WRONLY | O_CLOEXEC);
    if (null < 0) return;
    saved_ = ::dup(2);
    if (saved_ >= 0) ::dup2(null, 2);
    ::close(null);
}

QuietStderr::~QuietStderr() {
    if (saved_ < 0) return;
    std::fflush(stderr);
    ::dup2(saved_, 2);
    ::close(saved_);
}

namespace {
StopToken* g_interruptToken = nullptr;

extern "C" void onInterrupt(int sig) {
    if (g_interruptToken) g_interruptToken->requestStop();
    std::signal(sig, SIG_DFL);
}
}  // namespace

void installInterruptHandler(const StopToken& token) {
    static StopToken held;
    held = token;
    g_interruptToken = &held;
    std::signal(SIGINT, onInterrupt);
    std::signal(SIGTERM, onInterrupt);
}

std::function<void(const Progress&)> stderrProgress() {
    struct State {
        std::mutex mutex;
        int last = -1;
    };
    auto state = std::make_shared<State>();
    const char end = ::isatty(2) ? '\r' : '\n';
    return [state, end](const Progress& p) {
        const int pct = int(p.fraction * 100.0);
        std::lock_guard<std::mutex> lock(state->mutex);
        if (pct <= state->last) return;
        state->last = pct;
        std::fprintf(stderr, "progress %3d%%%s%s%c", pct, p.stage.empty() ? "" : " ", p.stage.c_str(), end);
        if (pct >= 100 && end == '\r') std::fputc('\n', stderr);
        std::fflush(stderr);
    };
}

}  // namespace halftone::cli
