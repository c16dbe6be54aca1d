#pragma once
// \brief A new file that appears under its name only when complete: unnamed while written
// (Linux O_TMPFILE), linked into place by commit(); a hidden temporary file where O_TMPFILE is missing.
#include <string>

#include "core/status.h"

namespace halftone::io {

/// \brief Writes a file so that no reader, and no interruption (signal, SIGKILL, crash), ever sees a
/// partial one: the data goes to an unnamed file in the target's directory (`O_TMPFILE`) that
/// commit() links into place, replacing an existing file atomically. Where the file system has no
/// `O_TMPFILE`, a hidden `.NAME.halftone-tmp-XXXXXX.EXT` beside the target is used instead, removed
/// by discard(), the destructor and abandonWritesForSignal().
///
/// New files get the mode `0666 & ~umask` (and the directory's default ACL); a replaced regular
/// file keeps its permission bits. A target that exists and is not a regular file (device, FIFO,
/// socket, directory), or a symbolic link that leads to one or to nothing, is refused; a symbolic
/// link to a regular file is followed, so the link stays and its target gets the new contents.
class AtomicFile {
public:
    AtomicFile() = default;
    ~AtomicFile();
    AtomicFile(const AtomicFile&) = delete;
    AtomicFile& operator=(const AtomicFile&) = delete;

    /// \brief Creates the unnamed (or hidden) file for `path`; the message names the problem, not the file.
    /// `named` asks for the hidden temporary even where O_TMPFILE works, for writers that look at
    /// the extension of the name they open.
    Status open(const std::string& path, bool named = false);
    /// \brief The open descriptor (read-write), -1 when not open.
    int fd() const { return fd_; }
    /// \brief A name under which the file can be opened again by writers that take a path (for
    /// example `/proc/self/fd/N` for an unnamed file); it has no extension.
    const std::string& writePath() const { return writePath_; }
    /// \brief True when the file is unnamed until commit (O_TMPFILE), false for the hidden-name fallback.
    bool unnamed() const { return unnamed_; }
    /// \brief Flushes to disk, sets the final mode and puts the file in place under the target's
    /// name. Refused, leaving nothing behind, once abandonWritesForSignal() has run.
    Status commit();
    /// \brief Drops the file (removes the hidden temporary, if any). Called by the destructor.
    void discard();

private:
    int fd_ = -1;
    int slot_ = -1;
    bool unnamed_ = false;
    unsigned mode_ = 0;
    std::string target_;   ///< the final path (symbolic links resolved)
    std::string dir_;      ///< its directory
    std::string tmpName_;  ///< hidden temporary name (fallback only)
    std::string writePath_;
};

/// \brief Writes `bytes` as the whole content of `path` through an AtomicFile (complete or not at all). The message
/// names the problem, not the file.
Status writeFileAtomically(const std::string& path, const std::string& bytes);

/// \brief For signal handlers (async-signal-safe): removes the hidden temporaries of writes in
/// progress and makes every later commit() fail. Returns true when a commit was already under way,
/// so its file may be in place (the caller may then report that the output was written).
bool abandonWritesForSignal();

/// \brief Checks that `path` may be the target of an AtomicFile before any work is done: not a
/// directory, device, FIFO or socket (itself or through symbolic links), its directory exists and is
/// writable. The message names the problem, not the file.
Status checkWritableTarget(const std::string& path);

}  // namespace halftone::io
