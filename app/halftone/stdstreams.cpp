#include "app/halftone/stdstreams.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "app/halftone/commands.h"

namespace halftone::cli {

namespace {

enum Slot { kSlotInput = 0, kSlotOutput = 1, kSlotFolder = 2 };

Status writeAllTo(int fd, const char* data, size_t size, const std::string& what) {
    for (size_t done = 0; done < size;) {
        const ssize_t w = ::write(fd, data + done, size - done);
        if (w < 0 && errno == EINTR) continue;
        if (w <= 0) return Status::error("cannot write " + what + ": " + std::strerror(errno));
        done += size_t(w);
    }
    return Status::ok();
}

}  // namespace

StdStreams::~StdStreams() {
    if (!input_.empty()) ::unlink(input_.c_str());
    if (!output_.empty()) ::unlink(output_.c_str());
    if (!dir_.empty()) ::rmdir(dir_.c_str());
    removeOnExit(kSlotInput, {});
    removeOnExit(kSlotOutput, {});
    removeOnExit(kSlotFolder, {});
}

Status StdStreams::makeDir() {
    if (!dir_.empty()) return Status::ok();
    const char* tmp = std::getenv("TMPDIR");
    std::string pattern = std::string(tmp && *tmp ? tmp : "/tmp") + "/halftone-XXXXXX";
    std::vector<char> buffer(pattern.begin(), pattern.end());
    buffer.push_back('\0');
    if (!::mkdtemp(buffer.data()))
        return Status::error("cannot make a temporary folder in '" + pattern.substr(0, pattern.size() - 16) +
                             "' for standard input or output: " + std::strerror(errno) + " (set TMPDIR)");
    dir_ = buffer.data();
    // Removed on a signal as well: the files first, the folder last (slots are emptied in order).
    removeOnExit(kSlotFolder, dir_);
    return Status::ok();
}

Status StdStreams::readStdin(const std::string& format, std::string& path) {
    if (::isatty(0))
        return Status::error("standard input is a terminal; pipe an image into `halftone -` or give a file");
    if (Status s = makeDir(); !s) return s;
    input_ = dir_ + "/stdin" + (format.empty() ? std::string() : "." + format);
    removeOnExit(kSlotInput, input_);
    const int fd = ::open(input_.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
    if (fd < 0) return Status::error("cannot keep standard input in '" + input_ + "': " + std::strerror(errno));
    std::vector<char> buffer(size_t(1) << 20);
    Status s;
    size_t total = 0;
    for (;;) {
        const ssize_t n = ::read(0, buffer.data(), buffer.size());
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) {
            s = Status::error(std::string("cannot read standard input: ") + std::strerror(errno));
            break;
        }
        if (n == 0) break;
        total += size_t(n);
        if (s = writeAllTo(fd, buffer.data(), size_t(n), "'" + input_ + "' (standard input)"); !s) break;
    }
    ::close(fd);
    if (s && total == 0) s = Status::error("standard input is empty: no image to read");
    if (!s) return s;
    path = input_;
    return Status::ok();
}

Status StdStreams::stdoutPath(const std::string& format, std::string& path) {
    if (Status s = makeDir(); !s) return s;
    output_ = dir_ + "/stdout." + format;
    removeOnExit(kSlotOutput, output_);
    path = output_;
    return Status::ok();
}

Status StdStreams::copyToStdout(const std::string& path) {
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) return Status::error("cannot read the output back from '" + path + "': " + std::strerror(errno));
    std::vector<char> buffer(size_t(1) << 20);
    Status s;
    for (;;) {
        const ssize_t n = ::read(fd, buffer.data(), buffer.size());
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) {
            s = Status::error("cannot read the output back from '" + path + "': " + std::strerror(errno));
            break;
        }
        if (n == 0) break;
        if (s = writeAllTo(1, buffer.data(), size_t(n), "standard output"); !s) break;
    }
    ::close(fd);
    return s;
}

}  // namespace halftone::cli
