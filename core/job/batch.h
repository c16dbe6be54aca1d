#pragma once
// \brief Batch runs: which outputs a list of input files and folders maps to, a stable share of them for one machine
// of many, and running them in parallel with progress, cancel and a summary. The per-file work (read, prepare,
// halftone, write) is the caller's: the CLI and the studio pass the same function they use for one file.
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "core/runcontrol.h"
#include "core/status.h"

namespace halftone {

/// \brief One file of a batch: where it is read from and where its halftone goes.
struct BatchItem {
    std::string input;
    std::string output;
    std::string key;           ///< the output's path relative to the output folder: names the item and picks its shard
    std::string problem = {};  ///< set when the item cannot be run (a folder that cannot be read): it fails with this
};

/// \brief How inputs map to outputs.
struct BatchLayout {
    std::string outDir;          ///< the output folder (created as needed)
    std::string format = "png";  ///< the output's extension, without the dot
    std::string suffix;          ///< added to each output's name before the extension ("-ht")
};

/// \brief True for the extensions of image files a folder walk picks up (png, jpg, tif, pgm, webp, ...).
bool isImageFileName(const std::string& name);

/// \brief Maps inputs to outputs: a file goes to OUTDIR/NAME[SUFFIX].FORMAT; a folder is walked recursively (image
/// files only, in name order) and its structure mirrored under OUTDIR. Refuses, before any work, inputs that do not
/// exist, inputs that would write one output (every such clash listed in one message, each input named), and outputs
/// that are inputs (all of them listed in one message). With a suffix, a file whose name ends in SUFFIX.FORMAT and that
/// lies where this batch would write it is an earlier run's output, not an input: it is left out (and listed in
/// `ownOutputs`), so a batch written into its input folder can be run again. A sub-folder that cannot be read becomes
/// an item with a `problem` (it fails in the run, named), never a silent gap.
Status planBatch(const std::vector<std::string>& inputs, const BatchLayout& layout, std::vector<BatchItem>& items,
                 std::vector<std::string>* ownOutputs = nullptr);

/// \brief Parses "K/N" (1 <= K <= N).
Status parseShard(const std::string& text, int& k, int& n);

/// \brief The items of shard K of N: those whose key hashes (FNV-1a, 64 bits) to K - 1 modulo N. Shards are disjoint,
/// together complete, and an item stays in its shard when other files are added or removed.
std::vector<BatchItem> shardOf(const std::vector<BatchItem>& items, int k, int n);

/// \brief What happened to one item.
struct BatchOutcome {
    enum class Kind { Written, Skipped, Failed, Cancelled };
    Kind kind = Kind::Written;
    std::string message;  ///< the failure's message
};

/// \brief Totals of a batch run.
struct BatchSummary {
    int written = 0, skipped = 0, failed = 0, cancelled = 0;
    double seconds = 0;
};

/// \brief How a batch runs.
struct BatchOptions {
    int jobs = 0;               ///< files at once; 0 = as many as cores (at most the number of files)
    bool skipExisting = false;  ///< leave items whose output exists alone
};

/// \brief Runs `work(item, control)` for every item, `jobs` at a time on the shared workers; each call gets a
/// RunControl with the batch's stop token. `done(index, item, outcome)` is called once per item as it finishes
/// (from worker threads, one at a time). Cancel stops starting new items; running ones see the stop token.
BatchSummary runBatch(const std::vector<BatchItem>& items, const BatchOptions& options,
                      const std::function<Status(const BatchItem&, const RunControl&)>& work,
                      const std::function<void(size_t, const BatchItem&, const BatchOutcome&)>& done,
                      const RunControl& control = {});

}  // namespace halftone
