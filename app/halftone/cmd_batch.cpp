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
#include "core/job/batch.h"
#include "core/threads.h"
#include "io/filejob.h"
#include "io/imagefile.h"

namespace halftone::cli {

namespace {

struct BatchCli {
    JobOptions job;
    FileOptions file;
    std::string outDir, suffix, shard;
    int64_t jobs = 0;
    bool skipExisting = false;
    std::vector<std::string> inputs;
};

int runBatchCommand(BatchCli& o) {
    setQuiet(o.file.quiet);
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
    layout.format = job.format.empty() ? std::string("png") : job.format;
    layout.suffix = o.suffix;
    // Every option is checked before the folders are walked and any file is read.
    int shardK = 0, shardN = 0;
    if (!o.shard.empty())
        if (Status s = parseShard(o.shard, shardK, shardN); !s) return fail(s.message(), kExitUsage);
    if (io::isLossyFormat("x." + layout.format) && !o.file.force)
        return fail("batch: --format " + layout.format +
                        " is a lossy format and would blur the halftones' dots into gray; give png, tif or pbm, or "
                        "add --force to write it anyway",
                    kExitUsage);
    std::vector<BatchItem> items;
    std::vector<std::string> ownOutputs;
    if (Status s = planBatch(o.inputs, layout, items, &ownOutputs); !s)
        return fail("batch: " + s.message(), kExitUsage);
    // The job against the outputs' format (colour to PBM, CMYK to PNG): every file would fail the same.
    if (!items.empty())
        if (Status s = io::checkJobOutput(job, items.front().output); !s)
            return fail("batch: " + s.message(), kExitUsage);
    if (!ownOutputs.empty())
        note("batch: " + std::to_string(ownOutputs.size()) + " file" + (ownOutputs.size() == 1 ? "" : "s") +
             " named *" + layout.suffix + "." + layout.format +
             " in the output folder left out: outputs of an earlier run, not inputs");
    std::vector<io::JobFile> inputs, outputs;
    for (const BatchItem& item : items) {
        inputs.push_back({"INPUT", item.input});
        outputs.push_back({"the output of '" + item.input + "'", item.output});
    }
    if (const int code = saveJobPreset(o.job, job, inputs, outputs); code != kExitOk) return code;
    if (shardN > 0) items = shardOf(items, shardK, shardN);
    if (items.empty()) {
        note("batch: no image files to halftone");
        return kExitOk;
    }

    // Files at once x threads per file within the cores. On the GPU the device runs one file's method at a time
    // (gpu/ holds it per run) while the other files are read and written beside it.
    const int cores = hardwareThreads();
    const bool gpu = jobUsesGpu(job);
    int jobs = int(std::min<int64_t>(o.jobs > 0 ? o.jobs : cores, int64_t(items.size())));
    if (gpu && o.jobs == 0) jobs = std::min(jobs, 4);
    if (gpu) startDeviceFor(job);  // the device starts while the first files are read
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

    std::mutex print;
    FileOptions fileOptions = o.file;
    fileOptions.concurrentRuns = jobs;
    size_t finished = 0;
    BatchOptions bo;
    bo.jobs = jobs;
    bo.skipExisting = o.skipExisting;
    RunControl control;
    control.threads = threads;
    std::string usageError;
    fileOptions.batchStartup = secondsSinceStart();
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
            const FileOutcome r =
                runFile(job, fileOptions, maxMemory, item.input, item.output, {}, rc, noteFor, item.input);
            if (r.code == kExitCancelled) return Status::cancelled();
            if (r.code == kExitUsage) {
                // The job cannot apply to the outputs (their format, CMYK to a format other than TIFF): found
                // before this file was read, and every file would fail the same; the batch stops with one error.
                std::lock_guard<std::mutex> lock(print);
                if (usageError.empty()) usageError = r.message;
                control.stop.requestStop();
                return Status::cancelled();
            }
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
                    if (o.file.progress && !quiet())
                        printLine("halftone: [" + std::to_string(finished) + "/" + std::to_string(items.size()) + "] " +
                                  item.output + " exists, skipped");
                    break;
                case BatchOutcome::Kind::Written:
                    if (!quiet())
                        printLine("halftone: [" + std::to_string(finished) + "/" + std::to_string(items.size()) + "] " +
                                  item.output);
                    break;
                case BatchOutcome::Kind::Cancelled:
                    break;
            }
        },
        control);
    if (!usageError.empty()) return fail("batch: " + usageError, kExitUsage);
    char took[64];
    std::snprintf(took, sizeof took, "%.2f s", sum.seconds);
    if (!quiet() || sum.failed > 0)
        printLine("halftone: batch: " + std::to_string(sum.written) + " written, " + std::to_string(sum.skipped) +
                  " skipped, " + std::to_string(sum.failed) + " failed" +
                  (sum.cancelled ? ", " + std::to_string(sum.cancelled) + " not run" : std::string()) + " (" +
                  std::to_string(items.size()) + " files, " + std::to_string(jobs) + " at once, " + took + ")");
    if (sum.cancelled > 0) return kExitCancelled;
    return sum.failed > 0 ? kExitError : kExitOk;
}

}  // namespace

void addBatchCommand(Commands& commands) {
    auto o = std::make_shared<BatchCli>();
    CLI::App* sub = commands.add(
        "batch",
        "halftone many files and folders with one job: the options of `halftone IN OUT`, several files at once; "
        "folders are walked recursively and mirrored under --out-dir",
        [o] { return runBatchCommand(*o); });
    sub->footer(
        "Examples:\n"
        "  halftone batch --jobs 2 --width 600 --out-dir out photos/\n"
        "      a folder, two files at a time, mirrored under out/\n"
        "  halftone batch --format pbm --suffix -ht --out-dir photos photos/\n"
        "      into the input folder as NAME-ht.pbm; a second run leaves those files out\n"
        "  halftone batch --preset newsprint.json --skip-existing --shard 2/4 --out-dir out photos/\n"
        "      a preset's job, part 2 of 4, files already written left alone");
    sub->add_option("INPUT", o->inputs, "input image files and folders")->required();
    // An option of the batch with its group and the name of its value in the help.
    auto option = [sub](const std::string& name, auto& value, const std::string& help, const std::string& group,
                        const std::string& type) {
        return sub->add_option(name, value, help)->group(group)->type_name(type);
    };
    option("--out-dir", o->outDir, "the folder the outputs go to (created as needed)", group::kOutput, "DIR")
        ->required();
    option("--suffix", o->suffix,
           "added to every output's name before the extension, e.g. -ht; files so named in the output folder are "
           "taken for an earlier run's outputs and left out",
           group::kOutput, "TEXT");
    sub->add_flag("--skip-existing", o->skipExisting, "leave files whose output already exists alone")
        ->group(group::kOutput);
    option("--jobs", o->jobs,
           "files at once (default 0: one per processor this process may use, from the CPU affinity mask and the "
           "cgroup's quota; at most 4 for a GPU job, whose files take the device one after another)",
           group::kPerformance, "N");
    option("--shard", o->shard,
           "run only part K of N of the files (K/N, e.g. 3/8): for spreading a collection over machines; the parts "
           "are disjoint and together complete",
           group::kPerformance, "K/N")
        ->check(nonEmpty());
    addFileOptions(*sub, o->file);
    addJobOptions(*sub, o->job);
}

}  // namespace halftone::cli
