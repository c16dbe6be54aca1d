// Shared pieces of the CLI: command table, one-line errors, signal handling, progress.
#include "app/halftone/commands.h"

#include <fcntl.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <mutex>

#include "io/atomicwrite.h"

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

namespace {
/// Where the signal handler writes: the real stderr, also while QuietStderr points fd 2 at /dev/null.
std::atomic<int> g_stderrFd{2};
/// QuietStderr is counted: the first one sends fd 2 to /dev/null, the last one brings it back, so that files
/// read and written by several threads at once (batch runs) never leave stderr silenced.
std::mutex g_quietMutex;
int g_quietCount = 0;
}  // namespace

void printLine(const std::string& text) { printLines({text}); }

void printLines(const std::vector<std::string>& lines) {
    std::string text;
    for (const std::string& l : lines) {
        std::string line = l;
        for (char& c : line)
            if (c == '\n' || c == '\r') c = ' ';
        text += line + '\n';
    }
    std::lock_guard<std::mutex> lock(g_quietMutex);
    std::fflush(stderr);
    const int fd = g_stderrFd.load();
    for (size_t done = 0; done < text.size();) {
        const ssize_t n = ::write(fd, text.data() + done, text.size() - done);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) break;
        done += size_t(n);
    }
}

int fail(const std::string& message, int code) {
    printLine("halftone: " + message);
    return code;
}

namespace {
std::atomic<bool> g_quiet{false};

/// Temporary files the signal handler removes (fixed buffers: unlink is async-signal-safe, std::string is not).
constexpr int kTempSlots = 3;
char g_tempPaths[kTempSlots][4096];
std::atomic<bool> g_tempSet[kTempSlots];

void removeTempFiles() {
    for (int i = 0; i < kTempSlots; ++i)
        if (g_tempSet[i].exchange(false) && ::unlink(g_tempPaths[i]) != 0) ::rmdir(g_tempPaths[i]);
}
}  // namespace

void note(const std::string& message) {
    if (!g_quiet.load()) printLine("halftone: note: " + message);
}

void setQuiet(bool quiet) { g_quiet.store(quiet); }
bool quiet() { return g_quiet.load(); }

std::string jsonString(const std::string& text) {
    std::string out = "\"";
    for (const char c : text) {
        switch (c) {
            case '"':
                out += "\\\"";
                break;
            case '\\':
                out += "\\\\";
                break;
            case '\n':
                out += "\\n";
                break;
            case '\t':
                out += "\\t";
                break;
            case '\r':
                out += "\\r";
                break;
            default:
                if (static_cast<unsigned char>(c) < 0x20) {
                    char u[8];
                    std::snprintf(u, sizeof u, "\\u%04x", unsigned(static_cast<unsigned char>(c)));
                    out += u;
                } else {
                    out += c;
                }
        }
    }
    return out + "\"";
}

std::string jsonNumber(double value) {
    if (!std::isfinite(value)) return "null";
    char text[32];
    if (value == std::floor(value) && std::fabs(value) < 1e15) {  // whole: 10, not 1e+01
        std::snprintf(text, sizeof text, "%.0f", value);
        return text;
    }
    std::snprintf(text, sizeof text, "%.17g", value);
    // the shortest text that reads back as the same double
    for (int digits = 1; digits < 17; ++digits) {
        char shorter[32];
        std::snprintf(shorter, sizeof shorter, "%.*g", digits, value);
        if (std::strtod(shorter, nullptr) == value) return shorter;
    }
    return text;
}

void removeOnExit(int slot, const std::string& path) {
    if (slot < 0 || slot >= kTempSlots) return;
    g_tempSet[slot].store(false);
    if (path.empty() || path.size() >= sizeof g_tempPaths[slot]) return;
    std::memcpy(g_tempPaths[slot], path.c_str(), path.size() + 1);
    g_tempSet[slot].store(true);
    static const bool registered = [] { return std::atexit(removeTempFiles) == 0; }();
    (void)registered;
}

namespace {
std::atomic<int> g_deferredSignal{0};
std::atomic<bool> g_signalReported{false};  // lock-free, so the handler may use it
bool g_stderrIsTty = false;                 // a progress line ending in '\r' may be open: start a new line

const char* signalName(int sig) {
    switch (sig) {
        case SIGINT:
            return "SIGINT";
        case SIGTERM:
            return "SIGTERM";
        case SIGHUP:
            return "SIGHUP";
        case SIGQUIT:
            return "SIGQUIT";
        default:
            return "a signal";
    }
}

void writeAll(int fd, const char* s) {
    size_t n = std::strlen(s);
    while (n > 0) {
        const ssize_t w = ::write(fd, s, n);
        if (w <= 0) {
            if (w < 0 && errno == EINTR) continue;
            return;
        }
        s += w;
        n -= size_t(w);
    }
}

extern "C" void onSignal(int sig) {
    const int savedErrno = errno;
    if (io::abandonWritesForSignal()) {
        // A finished output is being linked into place (microseconds): let that step end, then exit.
        int expect = 0;
        g_deferredSignal.compare_exchange_strong(expect, sig);
        errno = savedErrno;
        return;
    }
    // A second signal (to another thread, or a second kill) finds the first one reporting: it waits for the exit,
    // so the message comes out once and whole.
    if (g_signalReported.exchange(true)) {
        for (;;) ::pause();
    }
    removeTempFiles();
    char message[128] = {};
    size_t n = 0;
    const auto append = [&](const char* part) {
        while (*part && n + 1 < sizeof message) message[n++] = *part++;
    };
    if (g_stderrIsTty) append("\n");
    append("halftone: interrupted by ");
    append(signalName(sig));
    append("; no output written\n");
    writeAll(g_stderrFd.load(), message);  // one write: nothing else on stderr can land inside the line
    ::_exit(128 + sig);
}
}  // namespace

QuietStderr::QuietStderr() {
    std::lock_guard<std::mutex> lock(g_quietMutex);
    if (g_quietCount++ > 0) return;
    std::fflush(stderr);
    const int null = ::open("/dev/null", O_WRONLY | O_CLOEXEC);
    if (null < 0) return;
    const int saved = ::fcntl(2, F_DUPFD_CLOEXEC, 3);
    if (saved >= 0) {
        g_stderrFd.store(saved);
        ::dup2(null, 2);
    }
    ::close(null);
}

QuietStderr::~QuietStderr() {
    std::lock_guard<std::mutex> lock(g_quietMutex);
    if (--g_quietCount > 0) return;
    const int saved = g_stderrFd.load();
    if (saved == 2) return;
    std::fflush(stderr);
    ::dup2(saved, 2);
    g_stderrFd.store(2);
    ::close(saved);
}

void installSignalHandlers() {
    g_stderrIsTty = ::isatty(2);
    struct sigaction sa {};
    sa.sa_handler = onSignal;
    sigfillset(&sa.sa_mask);  // one handler at a time
    sa.sa_flags = SA_RESTART;
    for (int sig : {SIGINT, SIGTERM, SIGHUP, SIGQUIT}) ::sigaction(sig, &sa, nullptr);
    // A reader that goes away (`halftone - - | head -c 10`) makes the write fail with a message; the temporary
    // files of standard input and output are still removed.
    ::signal(SIGPIPE, SIG_IGN);
}

int takeDeferredSignal() { return g_deferredSignal.exchange(0); }

void exitForDeferredSignal(int sig, const std::string& output, bool written) {
    removeTempFiles();
    std::fflush(stdout);
    if (written)
        std::fprintf(stderr, "halftone: interrupted by %s after '%s' was written complete\n", signalName(sig),
                     output.c_str());
    else
        std::fprintf(stderr, "halftone: interrupted by %s; no output written\n", signalName(sig));
    std::fflush(stderr);
    ::_exit(128 + sig);
}

Status writeTextFile(const std::string& path, const std::string& text) {
    const std::string ctx = "cannot write '" + path + "'";
    io::AtomicFile file;
    if (Status s = file.open(path); !s) return s.isCancelled() ? s : s.withContext(ctx);
    for (size_t done = 0; done < text.size();) {
        const ssize_t w = ::write(file.fd(), text.data() + done, text.size() - done);
        if (w < 0 && errno == EINTR) continue;
        if (w <= 0) return Status::error(ctx + ": write failed: " + std::strerror(errno));
        done += size_t(w);
    }
    const Status committed = file.commit();
    if (const int sig = takeDeferredSignal()) exitForDeferredSignal(sig, path, bool(committed));
    if (!committed) return committed.isCancelled() ? committed : committed.withContext(ctx);
    return Status::ok();
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
