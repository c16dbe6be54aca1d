#pragma once
// \brief `-` as a file name: standard input read into a temporary file, standard output written from one. The
// readers and writers of io/ then run unchanged, so `halftone - - < in > out` writes the very bytes `halftone in out`
// does; the temporary files are removed at exit and when a signal ends the program.
#include <string>

#include "core/status.h"

namespace halftone::cli {

/// \brief The temporary folder of one run's standard input and output; removed with everything in it.
class StdStreams {
public:
    StdStreams() = default;
    ~StdStreams();
    StdStreams(const StdStreams&) = delete;
    StdStreams& operator=(const StdStreams&) = delete;

    /// \brief Reads all of standard input into a temporary file and sets `path` to it. The reader tells the format
    /// from the content; `format` (an extension, may be empty) names it for formats without a signature.
    Status readStdin(const std::string& format, std::string& path);
    /// \brief A temporary path for an output of `format` (an extension such as png or pbm) bound for standard output.
    Status stdoutPath(const std::string& format, std::string& path);
    /// \brief Copies the finished output at `path` to standard output.
    Status copyToStdout(const std::string& path);

private:
    Status makeDir();
    std::string dir_, input_, output_;
};

}  // namespace halftone::cli
