#include "io/screenfile.h"

#include "io/imagefile.h"

namespace halftone::io {

Status readScreenFile(const std::string& path, ThresholdArray& out) {
    Image im;
    if (Status s = readImage(path, im); !s) return s;
    if (im.channels.empty()) return Status::error(path + ": image has no channels");
    const Image gray = convertColor(im, ColorMode::Gray);
    out = gray.channels.front();
    return Status::ok();
}

void installScreenFileLoader() { setScreenFileLoader(readScreenFile); }

}  // namespace halftone::io
