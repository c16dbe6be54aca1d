// Complete-or-nothing file creation: O_TMPFILE + linkat, a hidden temporary file where that is missing,
// and a signal-safe table of the writes in progress.
#include "io/atomicwrite.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cctype>
#include <cerrno>
#include <climits>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <random>

namespace halftone::io {

namespace fs = std::filesystem;

namespace {

/// One write in progress, as a signal handler sees it.
struct Slot {
    enum : int { Free = 0, Writing = 1, Committing = 2, Abandoned = 3, Claiming = 4 };
    std::atomic<int> state{Free};
    char tmp[PATH_MAX] = {};  ///< hidden temporary name (fallback only), "" for an unnamed file
};
static_assert(std::atomic<int>::is_always_lock_free, "signal handlers need lock-free atomics");

constexpr int kSlots = 16;
Slot g_slots[kSlots];
std::atomic<bool> g_abandoned{false};

int claimSlot() {
    for (int i = 0; i < kSlots; ++i) {
        int expect = Slot::Free;
        if (g_slots[i].state.compare_exchange_strong(expect, Slot::Claiming)) {
            g_slots[i].tmp[0] = '\0';
            g_slots[i].state.store(Slot::Writing);
            return i;
        }
    }
    return -1;  // more than kSlots writes at once: this one is not cleaned up by a signal handler
}

void releaseSlot(int slot) {
    if (slot < 0) return;
    g_slots[slot].tmp[0] = '\0';
    g_slots[slot].state.store(Slot::Free);
}

std::string errnoText(int err) { return std::strerror(err); }

std::string randomSuffix() {
    static thread_local std::mt19937_64 rng(std::random_device{}() ^ uint64_t(::getpid()) << 32);
    static const char alphabet[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
    std::string s(6, 'x');
    for (char& c : s) c = alphabet[rng() % (sizeof alphabet - 1)];
    return s;
}

std::string kindOf(mode_t m) {
    if (S_ISDIR(m)) return "a directory";
    if (S_ISCHR(m)) return "a character device";
    if (S_ISBLK(m)) return "a block device";
    if (S_ISFIFO(m)) return "a FIFO (named pipe)";
    if (S_ISSOCK(m)) return "a socket";
    return "not a regular file";
}

/// The file the path names after symbolic links, and whether it exists; refuses non-regular targets.
Status resolveTarget(const std::string& path, std::string& target, bool& exists, mode_t& mode) {
    struct stat lst {};
    exists = false;
    target = path;
    if (::lstat(path.c_str(), &lst) != 0) {
        if (errno == ENOENT || errno == ENOTDIR) return Status::ok();  // the directory check says why
        return Status::error(errnoText(errno));
    }
    if (S_ISLNK(lst.st_mode)) {
        struct stat st {};
        if (::stat(path.c_str(), &st) != 0)
            return Status::error("is a symbolic link to a missing file or one that cannot be reached (" +
                                 errnoText(errno) + ")");
        if (!S_ISREG(st.st_mode))
            return Status::error("is a symbolic link to " + kindOf(st.st_mode) + ", not to a regular file");
        std::error_code ec;
        const fs::path canon = fs::canonical(path, ec);
        if (ec) return Status::error("cannot follow the symbolic link: " + ec.message());
        target = canon.string();
        exists = true;
        mode = st.st_mode;
        return Status::ok();
    }
    if (!S_ISREG(lst.st_mode)) return Status::error("is " + kindOf(lst.st_mode) + ", not a regular file");
    exists = true;
    mode = lst.st_mode;
    return Status::ok();
}

std::string directoryOf(const std::string& path) {
    fs::path dir = fs::path(path).parent_path();
    return dir.empty() ? std::string(".") : dir.string();
}

}  // namespace

Status checkWritableTarget(const std::string& path) {
    std::string target;
    bool exists = false;
    mode_t mode = 0;
    if (Status s = resolveTarget(path, target, exists, mode); !s) return s;
    const std::string dir = directoryOf(target);
    struct stat st {};
    if (::stat(dir.c_str(), &st) != 0) {
        if (errno == ENOENT || errno == ENOTDIR) return Status::error("the directory '" + dir + "' does not exist");
        return Status::error("the directory '" + dir + "': " + errnoText(errno));
    }
    if (!S_ISDIR(st.st_mode)) return Status::error("'" + dir + "' is not a directory");
    if (::access(dir.c_str(), W_OK | X_OK) != 0)
        return Status::error("the directory '" + dir + "' is not writable (" + errnoText(errno) + ")");
    return Status::ok();
}

AtomicFile::~AtomicFile() { discard(); }

Status AtomicFile::open(const std::string& path, bool named) {
    discard();
    bool exists = false;
    mode_t oldMode = 0;
    if (Status s = resolveTarget(path, target_, exists, oldMode); !s) return s;
    dir_ = directoryOf(target_);
    slot_ = claimSlot();
    if (g_abandoned.load()) {
        discard();
        return Status::cancelled();
    }

    // Unnamed first: nothing can be left behind, whatever kills the process.
    fd_ = named ? -1 : ::open(dir_.c_str(), O_TMPFILE | O_RDWR | O_CLOEXEC, 0666);
    if (fd_ >= 0) {
        writePath_ = "/proc/self/fd/" + std::to_string(fd_);
        if (::access(writePath_.c_str(), W_OK) == 0) {
            unnamed_ = true;
        } else {  // no /proc: writers that take a name, and linkat, cannot reach the file
            ::close(fd_);
            fd_ = -1;
        }
    } else if (!named && errno != EOPNOTSUPP && errno != EISDIR && errno != EINVAL && errno != ENOENT) {
        const int err = errno;
        discard();
        return Status::error(errnoText(err));
    }

    if (fd_ < 0) {  // hidden temporary beside the target, keeping the extension
        const fs::path t(target_);
        const std::string stem = t.stem().string().substr(0, 120);
        // The extension in lower case: writers that look at it compare it so.
        std::string ext = t.extension().string().substr(0, 16);
        std::transform(ext.begin(), ext.end(), ext.begin(), [](unsigned char c) { return char(std::tolower(c)); });
        for (int attempt = 0; attempt < 100 && fd_ < 0; ++attempt) {
            tmpName_ = (fs::path(dir_) / ("." + stem + ".halftone-tmp-" + randomSuffix() + ext)).string();
            if (slot_ >= 0) {
                if (tmpName_.size() >= sizeof g_slots[slot_].tmp) {
                    discard();
                    return Status::error("the path is too long");
                }
                std::memcpy(g_slots[slot_].tmp, tmpName_.c_str(), tmpName_.size() + 1);
            }
            fd_ = ::open(tmpName_.c_str(), O_CREAT | O_EXCL | O_RDWR | O_CLOEXEC, 0666);
            if (fd_ < 0 && errno != EEXIST) {
                const int err = errno;
                tmpName_.clear();
                discard();
                return Status::error(errnoText(err));
            }
        }
        if (fd_ < 0) {
            tmpName_.clear();
            discard();
            return Status::error("cannot create a temporary file beside it");
        }
        writePath_ = tmpName_;
    }

    struct stat st {};
    if (::fstat(fd_, &st) != 0) {
        const int err = errno;
        discard();
        return Status::error(errnoText(err));
    }
    // The kernel applied the umask (and any default ACL) to 0666; a replaced file keeps its bits.
    mode_ = exists ? unsigned(oldMode & 0777) : unsigned(st.st_mode & 0777);
    // Writers that open writePath() again need the owner's read and write bits meanwhile.
    if ((st.st_mode & 0600) != 0600) ::fchmod(fd_, (st.st_mode & 0777) | 0600);
    return Status::ok();
}

Status AtomicFile::commit() {
    if (fd_ < 0) return Status::error("the file is not open");
    if (::fsync(fd_) != 0) {
        const int err = errno;
        discard();
        return Status::error("write failed: " + errnoText(err));
    }
    if (::fchmod(fd_, mode_t(mode_)) != 0) {
        const int err = errno;
        discard();
        return Status::error("cannot set the file's mode: " + errnoText(err));
    }
    if (slot_ >= 0) {
        int expect = Slot::Writing;
        if (!g_slots[slot_].state.compare_exchange_strong(expect, Slot::Committing)) {
            discard();
            return Status::cancelled();
        }
    }
    if (g_abandoned.load()) {
        discard();
        return Status::cancelled();
    }

    Status result = Status::ok();
    if (unnamed_) {
        // Straight to the name when it is free (no moment with a second name); else through a hidden
        // name and rename, which replaces the old file atomically.
        if (::linkat(AT_FDCWD, writePath_.c_str(), AT_FDCWD, target_.c_str(), AT_SYMLINK_FOLLOW) != 0) {
            if (errno != EEXIST) {
                result = Status::error(errnoText(errno));
            } else {
                const fs::path t(target_);
                std::string hidden;
                int rc = -1;
                for (int attempt = 0; attempt < 100 && rc != 0; ++attempt) {
                    hidden = (fs::path(dir_) / ('.' + t.stem().string().substr(0, 120) + ".halftone-tmp-" +
                                                randomSuffix() + t.extension().string().substr(0, 16)))
                                 .string();
                    rc = ::linkat(AT_FDCWD, writePath_.c_str(), AT_FDCWD, hidden.c_str(), AT_SYMLINK_FOLLOW);
                    if (rc != 0 && errno != EEXIST) break;
                }
                if (rc != 0) {
                    result = Status::error(errnoText(errno));
                } else if (::rename(hidden.c_str(), target_.c_str()) != 0) {
                    result = Status::error(errnoText(errno));
                    ::unlink(hidden.c_str());
                }
            }
        }
    } else if (::rename(tmpName_.c_str(), target_.c_str()) != 0) {
        result = Status::error(errnoText(errno));
    } else {
        tmpName_.clear();
    }
    if (result) {
        // Make the new name durable too.
        const int dfd = ::open(dir_.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (dfd >= 0) {
            ::fsync(dfd);
            ::close(dfd);
        }
        ::close(fd_);
        fd_ = -1;
        releaseSlot(slot_);
        slot_ = -1;
        return result;
    }
    discard();
    return result;
}

void AtomicFile::discard() {
    if (fd_ >= 0) {
        ::close(fd_);
        fd_ = -1;
    }
    if (!tmpName_.empty()) {
        ::unlink(tmpName_.c_str());
        tmpName_.clear();
    }
    releaseSlot(slot_);
    slot_ = -1;
    unnamed_ = false;
    writePath_.clear();
}

bool abandonWritesForSignal() {
    g_abandoned.store(true);
    bool committing = false;
    for (Slot& s : g_slots) {
        int expect = Slot::Writing;
        if (s.state.compare_exchange_strong(expect, Slot::Abandoned)) {
            if (s.tmp[0]) ::unlink(s.tmp);
        } else if (expect == Slot::Committing) {
            committing = true;
        }
    }
    return committing;
}

Status writeFileAtomically(const std::string& path, const std::string& bytes) {
    AtomicFile file;
    if (Status s = file.open(path); !s) return s;
    size_t done = 0;
    while (done < bytes.size()) {
        const ssize_t n = ::write(file.fd(), bytes.data() + done, bytes.size() - done);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) {
            const int err = n < 0 ? errno : EIO;
            file.discard();
            return Status::error(std::string("write failed: ") + std::strerror(err));
        }
        done += size_t(n);
    }
    return file.commit();
}

}  // namespace halftone::io
