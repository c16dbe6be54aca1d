#pragma once
// \brief One file through a whole job: check the output, read, prepare, halftone, enlarge the pixels, write complete
// or not at all. The CLI's `halftone IN OUT`, `halftone batch` and the studio's batch run the same steps, so a file
// gets the same output from each.
#include <cstdint>
#include <functional>
#include <memory>
#include <string>

#include "core/image.h"
#include "core/job/job.h"
#include "core/job/registry.h"
#include "core/runcontrol.h"
#include "core/status.h"
#include "io/imagefile.h"

namespace halftone::io {

/// \brief Seconds one file's run spent in each stage (the CLI's --time). No stage holds the loading of the
/// OpenImageIO module on first need: that is start-up, and `load` says how long this run waited for it.
struct FileJobTimes {
    double read = 0, prepare = 0, method = 0, write = 0;
    double load = 0;  ///< loading the OpenImageIO module during this run (0 when it was loaded before, or not needed)
};

/// \brief Limits and hooks of one file's run; the defaults suit a program without a terminal.
struct FileJobOptions {
    uint64_t maxPixels = kDefaultMaxPixels;  ///< refuse larger inputs before decoding them
    uint64_t maxMemory = 0;                  ///< refuse inputs whose reading or halftoning needs more; 0 = half the RAM
    bool force = false;                      ///< write a lossy output format anyway (with a note)
    int concurrentRuns = 1;                  ///< runs sharing the device at once (RunRequest::concurrentRuns)
    bool announceWrite = false;              ///< note "writing 'OUTPUT'" before the write
    std::string savePalette;                 ///< also write the palette used to this file (.hex, .gpl, ...)
    int compressLevel = kCompressFast;       ///< zlib level of PNG and TIFF outputs (io::parseCompression)
    /// A binary CMYK result goes out as one 1-bit TIFF per ink (platePath) instead of one file of four inks.
    bool plates = false;
    std::string proof;  ///< also write the RGB picture of a CMYK result as printed (simulatePrint) to this file
    /// \brief Notes (fallbacks, conversions, lossy output), one line each, without the program's name.
    std::function<void(const std::string&)> onNote;
    /// \brief Called once the method has run (the CLI's --time prints its wall time).
    std::function<void(const MethodInfo&, const RunResult&)> onRun;
    /// \brief Held while the decoder and the encoder run; the CLI silences codecs that print their own errors.
    std::function<std::shared_ptr<void>()> quiet;
    /// \brief Called right after the output's write returns, with whether it was written.
    std::function<void(const std::string& output, bool written)> afterWrite;
    /// \brief Filled with the stage times when set.
    FileJobTimes* times = nullptr;
    /// \brief Writes the palette file complete or not at all; unset: io::writeFileAtomically.
    std::function<Status(const std::string& path, const std::string& text)> writeText;
};

/// \brief How one file's run ended.
struct FileJobOutcome {
    enum class Kind {
        Written,    ///< the output is complete
        Failed,     ///< the message says why; no output was written
        Usage,      ///< the job cannot apply to this output (format, palette file, CMYK to non-TIFF); nothing written
        Cancelled,  ///< stopped; no output written
    };
    Kind kind = Kind::Written;
    std::string message;
    bool written() const { return kind == Kind::Written; }
};

/// \brief The problems of writing `job`'s result in the format `output` names, found from the job and the name alone:
/// CMYK to a format other than TIFF, colour to PGM or PBM, gray levels to PBM, gray to GIF. Every file written so
/// would fail the same, so these are usage errors: runFileJob returns them as Kind::Usage, and a batch checks its
/// outputs' format once before it reads any file. Messages start with "cannot write 'OUTPUT': ".
Status checkJobOutput(const JobSettings& job, const std::string& output);

/// \brief The file of one ink's plate: OUTPUT's name with the ink's name before the extension, in lower case
/// ("plates.tif", "Cyan": "plates-cyan.tif").
std::string platePath(const std::string& output, const std::string& ink);

/// \brief Writes a binary CMYK halftone as four 1-bit TIFF plates at platePath(output, ink), each a separation of one
/// named ink with `options`' resolution; each file complete or not at all, and the plates written before a failing
/// one removed again.
Status writePlates(const std::string& output, const Image& cmyk, const WriteOptions& options);

/// \brief Runs `job` on `input` and writes `output`. Everything about the output is checked before the input is read,
/// the input is never overwritten, and the output appears only when complete.
FileJobOutcome runFileJob(const JobSettings& job, const std::string& input, const std::string& output,
                          const FileJobOptions& options, const RunControl& control = {});

}  // namespace halftone::io
