// libFuzzer target for the preset reader (io::parsePreset): any text gives a job or one error naming the file, never
// a crash, a hang or a stack overflow (nesting is limited while parsing); an accepted job is valid and survives the
// round trip through presetJson unchanged (the text it writes reads back to a job that writes the same text).
// Each input is read twice: as the whole preset, and as the value of one key inside a valid preset (the first byte
// picks the key), so that every value's checks are reached without the fuzzer first having to build a valid preset.
#include <cstdlib>
#include <string>

#include "core/job/job.h"
#include "io/preset.h"

using namespace halftone;

namespace {

/// A key whose value the fuzzer writes: the preset's other keys (always valid), and the key path ("prepare.gamma" is
/// the key gamma of the object prepare).
struct Slot {
    const char* around;  ///< keys before the fuzzed one, ending in a comma
    const char* key;
};

constexpr const char* kEd = R"("method": "ed", )";
constexpr const char* kAm = R"("method": "am", "color": "cmyk", )";
constexpr const char* kDbs = R"("method": "dbs", )";
const Slot kSlots[] = {
    {"", "method"},
    {R"("method": "ed", )", "variant"},
    {kEd, "params"},
    {kDbs, "params"},
    {kAm, "params"},
    {R"("method": "ordered", )", "params"},
    {kEd, "params.kernel"},
    {kEd, "params.levels"},
    {kEd, "params.serpentine"},
    {kEd, "params.seed"},
    {kDbs, "params.max-iter"},
    {kAm, "params.dot"},
    {kEd, "color"},
    {kEd, "palette"},
    {kEd, "target"},
    {R"("method": "ed", "palette": "pico8", )", "space"},
    {R"("method": "ed", "palette": "pico8", )", "match"},
    {R"("method": "ed", "palette": "pico8", )", "tone"},
    {R"("method": "ed", "palette": "pico8", )", "gamut"},
    {kEd, "device"},
    {kEd, "threads"},
    {kEd, "keep-alpha"},
    {kEd, "print-size"},
    {kEd, "dpi"},
    {kEd, "format"},
    {kAm, "separation"},
    {kAm, "separation.gcr"},
    {kAm, "separation.ink-limit"},
    {kAm, "dot-gain"},
    {kEd, "prepare"},
    {kEd, "prepare.width"},
    {kEd, "prepare.height"},
    {kEd, "prepare.scale"},
    {kEd, "prepare.fit"},
    {kEd, "prepare.gravity"},
    {kEd, "prepare.rotate"},
    {kEd, "prepare.background"},
    {kEd, "prepare.filter"},
    {kEd, "prepare.linear-resize"},
    {kEd, "prepare.pixel-size"},
    {kEd, "prepare.black-point"},
    {kEd, "prepare.white-point"},
    {kEd, "prepare.brightness"},
    {kEd, "prepare.contrast"},
    {kEd, "prepare.gamma"},
    {kEd, "prepare.saturation"},
    {kEd, "prepare.sharpen-amount"},
    {kEd, "prepare.sharpen-radius"},
};

/// The reader's promises for one text.
void check(const std::string& text) {
    JobSettings job;
    const Status s = io::parsePreset("fuzz.json", text, job);
    if (!s) {
        if (s.message().rfind("preset 'fuzz.json'", 0) != 0) std::abort();
        return;
    }
    if (!validateJob(job)) std::abort();
    // The written form reads back and writes the same text (it names the method and variant the defaults chose).
    const std::string written = io::presetJson(job);
    JobSettings back;
    if (!io::parsePreset("fuzz.json", written, back) || io::presetJson(back) != written) std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    const std::string text(reinterpret_cast<const char*>(data), size);
    check(text);
    if (size == 0) return 0;
    const Slot& slot = kSlots[data[0] % (sizeof kSlots / sizeof kSlots[0])];
    const std::string key = slot.key, value = text.substr(1);
    const size_t dot = key.find('.');
    std::string preset = std::string(R"({"halftone-preset": 1, )") + slot.around;
    if (dot == std::string::npos)
        preset += "\"" + key + "\": " + value + "}";
    else
        preset += "\"" + key.substr(0, dot) + "\": {\"" + key.substr(dot + 1) + "\": " + value + "}}";
    check(preset);
    return 0;
}
