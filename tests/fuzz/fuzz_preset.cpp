// libFuzzer target for the preset reader (io::parsePreset): any text gives a job or one error naming the file, never
// a crash, a hang or a stack overflow (nesting is limited while parsing); an accepted job is valid and survives the
// round trip through presetJson unchanged.
#include <cstdlib>
#include <string>

#include "core/job.h"
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
    JobSettings back;
    if (!io::parsePreset("fuzz.json", io::presetJson(job), back) || !(back == job)) std::abort();
    return 0;
}
