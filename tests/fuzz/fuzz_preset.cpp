// libFuzzer target for the preset reader (io::parsePreset): any text gives a job or one error naming the file, never
// a crash, a hang or a stack overflow (nesting is limited while parsing); an accepted job is valid and survives the
// round trip through presetJson unchanged (the text it writes reads back to a job that writes the same text).
#include <cstdlib>
#include <string>

#include "core/job/job.h"
#include "io/preset.h"

using namespace halftone;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    const std::string text(reinterpret_cast<const char*>(data), size);
    JobSettings job;
    const Status s = io::parsePreset("fuzz.json", text, job);
    if (!s) {
        if (s.message().rfind("preset 'fuzz.json'", 0) != 0) std::abort();
        return 0;
    }
    if (!validateJob(job)) std::abort();
    // The written form reads back and writes the same text (it names the method and variant the defaults chose).
    const std::string written = io::presetJson(job);
    JobSettings back;
    if (!io::parsePreset("fuzz.json", written, back) || io::presetJson(back) != written) std::abort();
    return 0;
}
