// The entry point of the OpenImageIO module (halftone-io-oiio.so): the table of its functions.
#include "io/formats.h"
#include "io/oiio.h"
#include "io/oiiomodule.h"

extern "C" __attribute__((visibility("default"))) const halftone::io::detail::OiioModuleApi* halftone_io_oiio_module() {
    using namespace halftone::io::detail;
    static const OiioModuleApi api = [] {
        OiioModuleApi a;
        a.version = kOiioModuleVersion;
        a.imageSize = sizeof(halftone::Image);
        a.readOiioAs = &readOiioAs;
        a.readBmp = &readBmp;
        a.readIco = &readIco;
        a.isPsdCmyk = &isPsdCmyk;
        a.readPsdCmyk = &readPsdCmyk;
        a.canWrite = &oiioCanWrite;
        a.writeOiio = &writeOiio;
        a.verifyWritten = &verifyWrittenOiio;
        return a;
    }();
    return &api;
}
