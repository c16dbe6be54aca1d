#include "core/job/batch.h"

#include <algorithm>
#include <atomic>
#include <cctype>
#include <chrono>
#include <filesystem>
#include <map>
#include <mutex>
#include <set>

#include "core/threads.h"
#include "core/workerpool.h"

namespace halftone {

namespace fs = std::filesystem;

namespace {

std::string lower(std::string s) {
    std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return char(std::tolower(c)); });
    return s;
}

/// The path as the file system resolves it (for "is this output one of the inputs"), or as given.
std::string resolved(const fs::path& p) {
    std::error_code ec;
    const fs::path r = fs::weakly_canonical(p, ec);
    return ec ? p.lexically_normal().string() : r.string();
}

}  // namespace

bool isImageFileName(const std::string& name) {
    static const std::set<std::string> exts = {".png",  ".jpg",  ".jpeg", ".jpe", ".jfif", ".tif", ".tiff", ".pgm",
                                               ".ppm",  ".pbm",  ".pnm",  ".pam", ".gif",  ".bmp", ".webp", ".heic",
                                               ".heif", ".avif", ".exr",  ".hdr", ".tga",  ".psd", ".jp2",  ".j2k",
                                               ".dpx",  ".sgi",  ".rgb",  ".ico", ".dds",  ".cin", ".fits", ".iff"};
    const std::string base = fs::path(name).filename().string();
    if (base.empty() || base[0] == '.') return false;  // hidden files, including unfinished writes of other tools
    return exts.count(lower(fs::path(name).extension().string())) != 0;
}

Status planBatch(const std::vector<std::string>& inputs, const BatchLayout& layout, std::vector<BatchItem>& items,
                 std::vector<std::string>* ownOutputs) {
    items.clear();
    if (ownOutputs) ownOutputs->clear();
    if (inputs.empty()) return Status::error("no INPUT files or folders given");
    if (layout.outDir.empty()) return Status::error("no output folder given (--out-dir)");
    if (layout.format.empty() || layout.format.find_first_of("/\\.") != std::string::npos)
        return Status::error("output format '" + layout.format + "' is not an extension such as png, tif or pbm");
    if (layout.suffix.find('/') != std::string::npos)
        return Status::error("suffix '" + layout.suffix + "' must not contain '/'");
    const fs::path outDir(layout.outDir);
    std::error_code ec;
    if (fs::exists(outDir, ec) && !fs::is_directory(outDir, ec))
        return Status::error("output folder '" + layout.outDir + "' exists and is not a folder");

    auto outputName = [&](const fs::path& input) {
        return input.stem().string() + layout.suffix + "." + layout.format;
    };
    std::map<std::string, std::vector<std::string>> byKey;  // key -> the inputs written there
    std::set<std::string> inputPaths;
    const std::string ownEnding = lower(layout.suffix + "." + layout.format);
    auto add = [&](const fs::path& input, const fs::path& relativeDir) {
        // A file named like this batch's outputs (NAME + suffix + "." + format) where this batch writes it is an
        // output of an earlier run into the input folder, not an input: a re-run leaves it alone.
        const std::string name = lower(input.filename().string());
        if (!layout.suffix.empty() && name.size() > ownEnding.size() &&
            name.compare(name.size() - ownEnding.size(), ownEnding.size(), ownEnding) == 0 &&
            resolved(input.parent_path()) == resolved(outDir / relativeDir)) {
            if (ownOutputs) ownOutputs->push_back(input.string());
            return;
        }
        const std::string key = (relativeDir / outputName(input)).lexically_normal().string();
        std::vector<std::string>& writers = byKey[key];
        writers.push_back(input.string());
        if (writers.size() > 1) return;
        inputPaths.insert(resolved(input));
        items.push_back({input.string(), (outDir / key).string(), key});
    };
    std::vector<BatchItem> unreadable;
    for (const std::string& in : inputs) {
        const fs::path p(in);
        if (!fs::exists(p, ec)) return Status::error(in + ": no such file or folder");
        if (fs::is_directory(p, ec)) {
            std::vector<fs::path> files;
            fs::recursive_directory_iterator it(p, fs::directory_options::skip_permission_denied, ec), end;
            if (ec) return Status::error(in + ": cannot read the folder: " + ec.message());
            for (; it != end; it.increment(ec)) {
                if (ec) return Status::error(in + ": cannot read the folder: " + ec.message());
                const fs::path& f = it->path();
                if (it->is_directory(ec) && resolved(f) == resolved(outDir)) {
                    it.disable_recursion_pending();  // earlier outputs inside the input folder are not inputs
                    continue;
                }
                if (it->is_directory(ec)) {
                    std::error_code open;
                    fs::directory_iterator probe(f, open);
                    if (open) {
                        it.disable_recursion_pending();
                        const fs::path rel = f.lexically_relative(p);
                        unreadable.push_back(
                            {f.string(), std::string(), (rel / "").lexically_normal().string(),
                             "cannot read the folder: " + open.message() + "; its files are not halftoned"});
                        continue;
                    }
                }
                if (it->is_regular_file(ec) && isImageFileName(f.filename().string())) files.push_back(f);
            }
            std::sort(files.begin(), files.end());
            for (const fs::path& f : files) add(f, f.parent_path().lexically_relative(p));
        } else {
            add(p, fs::path());
        }
    }
    // Every clash at once: a list to fix in one go, not one per run.
    std::string clashes;
    size_t clashCount = 0;
    for (const auto& [key, writers] : byKey) {
        if (writers.size() < 2) continue;
        std::string names;
        for (size_t i = 0; i < writers.size(); ++i)
            names += (i == 0 ? "'" : i + 1 == writers.size() ? "' and '" : "', '") + writers[i];
        clashes +=
            (clashes.empty() ? "" : "; ") + names + "' would all be written to '" + (outDir / key).string() + "'";
        ++clashCount;
    }
    if (clashCount > 0) {
        items.clear();
        if (ownOutputs) ownOutputs->clear();
        return Status::error(std::to_string(clashCount) +
                             (clashCount == 1 ? " output name clashes: " : " output names clash: ") + clashes +
                             "; rename them, or use --suffix or separate runs");
    }
    // Every output that is an input, at once as well.
    std::string overwrites;
    size_t overwriteCount = 0;
    for (const BatchItem& item : items)
        if (inputPaths.count(resolved(item.output))) {
            overwrites += std::string(overwrites.empty() ? "" : "; ") + "'" + item.input + "' would be written to '" +
                          item.output + "'";
            ++overwriteCount;
        }
    if (overwriteCount > 0) {
        items.clear();
        if (ownOutputs) ownOutputs->clear();
        return Status::error((overwriteCount == 1
                                  ? overwrites + ", which is one of the inputs"
                                  : std::to_string(overwriteCount) + " outputs are inputs: " + overwrites) +
                             "; choose another --out-dir, --format or --suffix");
    }
    items.insert(items.end(), unreadable.begin(), unreadable.end());
    return Status::ok();
}

Status parseShard(const std::string& text, int& k, int& n) {
    const size_t slash = text.find('/');
    auto number = [](const std::string& s, int& v) {
        if (s.empty() || s.size() > 9 ||
            !std::all_of(s.begin(), s.end(), [](unsigned char c) { return std::isdigit(c); }))
            return false;
        v = std::stoi(s);
        return true;
    };
    if (slash == std::string::npos || !number(text.substr(0, slash), k) || !number(text.substr(slash + 1), n) ||
        n < 1 || k < 1 || k > n)
        return Status::error("--shard '" + text + "' must be K/N with 1 <= K <= N, e.g. 3/8");
    return Status::ok();
}

std::vector<BatchItem> shardOf(const std::vector<BatchItem>& items, int k, int n) {
    std::vector<BatchItem> out;
    for (const BatchItem& item : items) {
        uint64_t h = 1469598103934665603ull;  // FNV-1a
        for (unsigned char c : item.key) {
            h ^= c;
            h *= 1099511628211ull;
        }
        if (int(h % uint64_t(n)) == k - 1) out.push_back(item);
    }
    return out;
}

BatchSummary runBatch(const std::vector<BatchItem>& items, const BatchOptions& options,
                      const std::function<Status(const BatchItem&, const RunControl&)>& work,
                      const std::function<void(size_t, const BatchItem&, const BatchOutcome&)>& done,
                      const RunControl& control) {
    BatchSummary sum;
    const auto t0 = std::chrono::steady_clock::now();
    if (items.empty()) return sum;
    const int jobs = std::max(1, std::min<int>(options.jobs > 0 ? options.jobs : hardwareThreads(), int(items.size())));
    std::atomic<size_t> next{0};
    std::atomic<size_t> finished{0};
    std::mutex m;
    RunControl perItem;  // the batch's stop token; progress is per batch, not per file
    perItem.stop = control.stop;
    perItem.threads = control.threads;
    WorkerPool::shared().run(jobs, [&](int) {
        for (;;) {
            const size_t i = next.fetch_add(1);
            if (i >= items.size()) return;
            const BatchItem& item = items[i];
            BatchOutcome outcome;
            std::error_code ec;
            if (control.cancelled()) {
                outcome.kind = BatchOutcome::Kind::Cancelled;
            } else if (!item.problem.empty()) {
                outcome.kind = BatchOutcome::Kind::Failed;
                outcome.message = item.input + ": " + item.problem;
            } else if (options.skipExisting && std::filesystem::exists(item.output, ec)) {
                outcome.kind = BatchOutcome::Kind::Skipped;
            } else {
                Status s;
                try {
                    s = work(item, perItem);
                } catch (const std::exception& e) {
                    s = Status::error(std::string("failed: ") + e.what());
                }
                if (s.isCancelled() || (!s && control.cancelled()))
                    outcome.kind = BatchOutcome::Kind::Cancelled;
                else if (!s) {
                    outcome.kind = BatchOutcome::Kind::Failed;
                    outcome.message = s.message();
                }
            }
            std::lock_guard<std::mutex> lock(m);
            // the counters in the order of BatchOutcome::Kind
            constexpr int BatchSummary::*kCounters[] = {&BatchSummary::written, &BatchSummary::skipped,
                                                        &BatchSummary::failed, &BatchSummary::cancelled};
            ++(sum.*kCounters[size_t(outcome.kind)]);
            const size_t d = ++finished;
            if (done) done(i, item, outcome);
            control.report(double(d) / double(items.size()), item.key);
        }
    });
    sum.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    return sum;
}

}  // namespace halftone
