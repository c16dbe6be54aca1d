// libFuzzer target for Photoshop files: the fuzzed bytes, with the "8BPS" signature put first, read through
// io::readImage as a .psd (the header and section checks, the built-in CMYK reader with raw and PackBits data, and
// OpenImageIO's reader for the other colour modes), with the loader's promises of tests/fuzz/loadcheck.h.
#include <cstring>
#include <vector>

#include "tests/fuzz/loadcheck.h"

#ifdef HALFTONE_FUZZ_HAVE_OIIO
#include <OpenImageIO/imageio.h>
#endif

using namespace halftone;

extern "C" int LLVMFuzzerInitialize(int*, char***) {
#ifdef HALFTONE_FUZZ_HAVE_OIIO
    OIIO::attribute("threads", 1);
#endif
    return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    static const std::string base = fuzz::tempDir() + "/halftone-fuzz-psd-" + std::to_string(::getpid());
    std::vector<uint8_t> file(data, data + size);
    if (file.size() < 4) file.resize(4);
    std::memcpy(file.data(), "8BPS", 4);  // every input is a Photoshop file to the sniffer
    fuzz::load(base, ".psd", file.data(), file.size());
    return 0;
}
