// `halftone batch [job options] --out-dir DIR [--format F] [--suffix S] [--jobs N] [--skip-existing]
// [--shard K/N] INPUT...`: the job of `halftone IN OUT` on many files and folders, several files at a time. Each
// output is the one `halftone IN OUT` would write for that file.
#include <algorithm>
#include <atomic>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <mutex>

#include "app/halftone/commands.h"
#include "app/halftone/jobcli.h"
#include "core/batch.h"
#include "core/threads.h"

namespace halftone::cli {

namespace {

struct BatchCli {
    JobOptions job;
    FileOptions file;
    std::string outDir, format, suffix, shard;
    int64_t jobs = 0;
    bool skipExisting = false;
    std::vector<std::string> inputs;
    CLI::Option* formatOption = nullptr;
};

/// True when the job will run on the GPU (device gpu, or auto with a usable GPU and a GPU form of the method).
bool usesGpu(const JobSettings& job) {
    const MethodInfo* m = nullptr;
    if (!jobMethod(job, m)) return false;
    const bool gpuForm = job.palette.empty() ? bool(m->gpu) : bool(m->paletteGpu);
    const bool usable = Registry::instance().gpuAvailability().usable;
    return gpuForm && usable && job.device != "cpu";
}

int runBatchCommand(BatchCli& o) {
    if (o.job.given("save-palette"))
        return fail(
            "batch: --save-palette writes one palette; run `halftone --palette auto:N --save-palette FILE IN "
            "OUT` on one file",
            kExitUsage);
    JobSettings job;
    if (const int code = buildJob(o.job, job); code != kExitOk) return code;
    uint64_t maxMemory = 0;
    if (const int code = checkFileOptions(o.file, maxMemory); code != kExitOk) return code;
    if (o.inputs.empty()) return fail("batch: no INPUT files or folders given", kExitUsage);
    if (o.jobs < 0) return fail("--jobs must be 0 (as many as cores) or more", kExitUsage);

    BatchLayout layout;
    layout.outDir = o.outDir;
    if (o.formatOption->count() > 0) job.format = o.format;  // the job's format: --save-preset keeps it
    std::transform(job.format.begin(), job.format.end(), job.format.begin(),
                   [](unsigned char c) { return char(std::tolower(c)); });
    layout.format = job.format.empty() ? std::string("png") : job.format;
    layout.suffix = o.suffix;
    std::vector<BatchItem> items;
    if (Status s = planBatch(o.inputs, layout, items); !s) return fail("batch: " + s.message(), kExitUsage);
    std::vector<io::JobFile> inputs, outputs;
    for (const BatchItem& item : items) {
        inputs.push_back({"INPUT", item.input});
        outputs.push_back({"the output of '" + item.input + "'", item.output});
    }
    if (const int code = saveJobPreset(o.job, job, inputs, outputs); code != kExitOk) return code;
    if (!o.shard.empty()) {
        int k = 0, n = 0;
        if (Status s = parseShard(o.shard, k, n); !s) return fail(s.message(), kExitUsage);
        items = shardOf(items, k, n);
    }
    if (items.empty()) {
        note("batch: no image files to halftone");
        return kExitOk;
    }

    // Files at once x threads per file within the cores; GPU runs one file at a time on the device.
    const int cores = hardwareThreads();
    const bool gpu = usesGpu(job);
    int jobs = int(std::min<int64_t>(o.jobs > 0 ? o.jobs : cores, int64_t(items.size())));
    if (gpu && o.jobs == 0) jobs = std::min(jobs, 2);  // one on the device, one reading and writing beside it
    int threads = job.threads > 0 ? job.threads : std::max(1, cores / jobs);
    if (jobs * threads > cores && job.threads > 0) {
        threads = std::max(1, cores / jobs);
        note("batch: " + std::to_string(jobs) + " files at once with " + std::to_string(job.threads) +
             " threads each would exceed the " + std::to_string(cores) + " cores; each file gets " +
             std::to_string(threads));
    }
    job.threads = threads;
    if (const MethodInfo* m = nullptr; jobMethod(job, m) && m->param("threads"))
        job.params.set("threads", int64_t(threads));

    std::mutex gpuQueue, print;
    std::atomic<bool> usageError{false};  // a file refused for the job's settings: exit 2, as `halftone IN OUT` does
    size_t finished = 0;
    BatchOptions bo;
    bo.jobs = jobs;
    bo.skipExisting = o.skipExisting;
    RunControl control;
    control.threads = threads;
    const BatchSummary sum = runBatch(
        items, bo,
        [&](const BatchItem& item, const RunControl& rc) -> Status {
            std::error_code ec;
            std::filesystem::create_directories(std::filesystem::path(item.output).parent_path(), ec);
            if (ec) return Status::error("cannot create the folder of '" + item.output + "': " + ec.message());
            auto noteFor = [&](const std::string& text) {
                std::lock_guard<std::mutex> lock(print);
                note(item.input + ": " + text);
            };
            std::unique_lock<std::mutex> device(gpuQueue, std::defer_lock);
            if (gpu) device.lock();
            const FileOutcome r = runFile(job, o.file, maxMemory, item.input, item.output, {}, rc, noteFor);
            if (r.code == kExitCancelled) return Status::cancelled();
            if (r.code == kExitUsage) usageError = true;
            if (r.code != kExitOk) return Status::error(r.message);
            return Status::ok();
        },
        [&](size_t, const BatchItem& item, const BatchOutcome& outcome) {
            std::lock_guard<std::mutex> lock(print);
            ++finished;
            switch (outcome.kind) {
                case BatchOutcome::Kind::Failed: {
                    // "FILE: message", naming the input once; through printLine, which reaches the real stderr
                    // while another file's read has fd 2 silenced (QuietStderr)
                    const std::string& m = outcome.message;
                    printLine(m.rfind(item.input, 0) == 0 ? m : item.input + ": " + m);
                    break;
                }
                case BatchOutcome::Kind::Skipped:
                    if (o.file.progress)
                        printLine("halftone: [" + std::to_string(finished) + "/" + std::to_string(items.size()) + "] " +
                                  item.output + " exists, skipped");
                    break;
                case BatchOutcome::Kind::Written:
                    printLine("halftone: [" + std::to_string(finished) + "/" + std::to_string(items.size()) + "] " +
                              item.output);
                    break;
                case BatchOutcome::Kind::Cancelled:
                    break;
            }
        },
        control);
    char took[64];
    std::snprintf(took, sizeof took, "%.2f s", sum.seconds);
    printLine("halftone: batch: " + std::to_string(sum.written) + " written, " + std::to_string(sum.skipped) +
              " skipped, " + std::to_string(sum.failed) + " failed" +
              (sum.cancelled ? ", " + std::to_string(sum.cancelled) + " not run" : std::string()) + " (" +
              std::to_string(items.size()) + " files, " + std::to_string(jobs) + " at once, " + took + ")");
    if (sum.cancelled > 0) return kExitCancelled;
    return sum.failed > 0 ? (usageError ? kExitUsage : kExitError) : kExitOk;
}

}  // namespace

void addBatchCommand(Commands& commands) {
    auto o = std::make_shared<BatchCli>();
    CLI::App* sub = commands.add(
        "batch",
        "halftone many files and folders with one job: the options of `halftone IN OUT`, several files at once; "
        "folders are walked recursively and mirrored under --out-dir",
        [o] { return runBatchCommand(*o); });
    sub->add_option("--out-dir", o->outDir, "the folder the outputs go to (created as needed)")->required();
    o->formatOption =
        sub->add_option("--format", o->format, "output format by extension: png (default), tif, pbm, pgm, gif, ...")
            ->check(nonEmpty());
    sub->add_option("--suffix", o->suffix, "added to every output's name before the extension, e.g. -ht");
    sub->add_option("--jobs", o->jobs, "files at once (default 0: as many as cores; a GPU job runs one at a time)");
    sub->add_flag("--skip-existing", o->skipExisting, "leave files whose output already exists alone");
    sub->add_option("--shard", o->shard,
                    "run only part K of N of the files (K/N, e.g. 3/8): for spreading a collection over machines; "
                    "the parts are disjoint and together complete")
        ->check(nonEmpty());
    addFileOptions(*sub, o->file);
    addJobOptions(*sub, o->job);
    sub->add_option("INPUT", o->inputs, "input image files and folders")->required();
}

}  // namespace halftone::cli
