// libFuzzer target for palette files (parsePaletteFile): the fuzzed bytes under each extension (.hex, .gpl, .txt,
// .act, .pal, and none: the content decides) give a palette of 1 to 256 colours or one error naming the file; an
// accepted palette written back in the same format reads back as the same colours.
#include <cstdlib>
#include <string>

#include "core/palette/palette.h"

using namespace halftone;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    const std::string bytes(reinterpret_cast<const char*>(data), size);
    for (const char* name : {"f.hex", "f.gpl", "f.txt", "f.act", "f.pal", "f"}) {
        Palette p;
        const Status s = parsePaletteFile(name, bytes, p);
        if (!s) {
            if (s.message().find(std::string("'") + name + "'") == std::string::npos) std::abort();
            continue;
        }
        if (p.size() < 1 || p.size() > 256) std::abort();
        std::string text;
        if (std::string(name) == "f") continue;  // no format to write back
        if (!formatPaletteFile(name, p, text)) continue;
        Palette back;
        if (!parsePaletteFile(name, text, back) || back.colors != p.colors) std::abort();
    }
    return 0;
}
