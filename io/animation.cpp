#include "io/animation.h"

#ifdef HALFTONE_HAVE_OIIO  // the built-in codecs' libraries come with HALFTONE_IO (io/CMakeLists.txt)
#include <gif_lib.h>
#include <webp/encode.h>
#include <webp/mux.h>
#include <zlib.h>
#endif

#include <algorithm>
#include <cctype>
#include <cstring>
#include <memory>

#include "io/atomicwrite.h"

namespace halftone::io {

namespace {

std::string lowerExtension(const std::string& path) {
    const size_t dot = path.find_last_of('.');
    if (dot == std::string::npos || path.find('/', dot) != std::string::npos) return {};
    std::string e = path.substr(dot + 1);
    std::transform(e.begin(), e.end(), e.begin(), [](unsigned char c) { return char(std::tolower(c)); });
    return e;
}

#ifdef HALFTONE_HAVE_OIIO
void put32(std::string& out, uint32_t v) {
    for (int s = 24; s >= 0; s -= 8) out.push_back(char(uint8_t(v >> s)));
}

void putChunk(std::string& out, const char* type, const std::string& data) {
    put32(out, uint32_t(data.size()));
    const size_t start = out.size();
    out.append(type, 4);
    out += data;
    const uLong crc = crc32(0, reinterpret_cast<const Bytef*>(out.data() + start), uInt(out.size() - start));
    put32(out, uint32_t(crc));
}

/// Animated PNG (the APNG specification of Mozilla, adopted in PNG third edition): IHDR and PLTE, acTL, then per
/// frame an fcTL and its image data (IDAT for the first frame, which is also the still image, fdAT after it).
Status apngBytes(const std::vector<Image>& frames, int frameMs, std::string& out) {
    const int w = frames[0].width(), h = frames[0].height();
    out.assign("\x89PNG\r\n\x1a\n", 8);
    std::string d;
    put32(d, uint32_t(w));
    put32(d, uint32_t(h));
    d += std::string("\x08\x03\x00\x00\x00", 5);  // 8 bits, colour type 3 (palette), deflate, filter 0, no interlace
    putChunk(out, "IHDR", d);
    d.clear();
    for (const auto& c : frames[0].palette) d.append(reinterpret_cast<const char*>(c.data()), 3);
    putChunk(out, "PLTE", d);
    d.clear();
    put32(d, uint32_t(frames.size()));
    put32(d, 0);  // loop forever
    putChunk(out, "acTL", d);
    uint32_t sequence = 0;
    for (size_t f = 0; f < frames.size(); ++f) {
        d.clear();
        put32(d, sequence++);
        put32(d, uint32_t(w));
        put32(d, uint32_t(h));
        put32(d, 0);
        put32(d, 0);
        d.push_back(char(uint8_t(frameMs >> 8)));
        d.push_back(char(uint8_t(frameMs)));
        d.push_back(char(uint8_t(1000 >> 8)));
        d.push_back(char(uint8_t(1000 & 255)));
        d.push_back(0);  // dispose: none
        d.push_back(0);  // blend: source
        putChunk(out, "fcTL", d);
        std::string raw;
        raw.reserve(size_t(w + 1) * size_t(h));
        for (int y = 0; y < h; ++y) {
            raw.push_back(0);  // filter: none
            raw.append(reinterpret_cast<const char*>(frames[f].indices.row(y)), size_t(w));
        }
        uLongf size = compressBound(uLong(raw.size()));
        std::string z(size, '\0');
        if (compress2(reinterpret_cast<Bytef*>(z.data()), &size, reinterpret_cast<const Bytef*>(raw.data()),
                      uLong(raw.size()), 9) != Z_OK)
            return Status::error("zlib could not compress a frame");
        z.resize(size);
        if (f == 0) {
            putChunk(out, "IDAT", z);
        } else {
            d.clear();
            put32(d, sequence++);
            putChunk(out, "fdAT", d + z);
        }
    }
    putChunk(out, "IEND", {});
    return Status::ok();
}

Status webpBytes(const std::vector<Image>& frames, int frameMs, std::string& out) {
    const int w = frames[0].width(), h = frames[0].height();
    WebPAnimEncoderOptions options;
    WebPConfig config;
    if (!WebPAnimEncoderOptionsInit(&options) || !WebPConfigInit(&config))
        return Status::error("the WebP library is incompatible");
    config.lossless = 1;
    config.quality = 100;
    std::unique_ptr<WebPAnimEncoder, void (*)(WebPAnimEncoder*)> enc(WebPAnimEncoderNew(w, h, &options),
                                                                     WebPAnimEncoderDelete);
    if (!enc) return Status::error("the WebP encoder could not start");
    std::vector<uint8_t> rgb(size_t(w) * size_t(h) * 3);
    int timestamp = 0;
    for (const Image& f : frames) {
        for (size_t p = 0; p < f.indices.data.size(); ++p)
            std::memcpy(&rgb[p * 3], f.palette[f.indices.data[p]].data(), 3);
        WebPPicture picture;
        if (!WebPPictureInit(&picture)) return Status::error("the WebP library is incompatible");
        picture.use_argb = 1;
        picture.width = w;
        picture.height = h;
        const bool added = WebPPictureImportRGB(&picture, rgb.data(), w * 3) &&
                           WebPAnimEncoderAdd(enc.get(), &picture, timestamp, &config);
        WebPPictureFree(&picture);
        if (!added) return Status::error(std::string("the WebP encoder failed: ") + WebPAnimEncoderGetError(enc.get()));
        timestamp += frameMs;
    }
    WebPData data;
    WebPDataInit(&data);
    if (!WebPAnimEncoderAdd(enc.get(), nullptr, timestamp, nullptr) || !WebPAnimEncoderAssemble(enc.get(), &data))
        return Status::error(std::string("the WebP encoder failed: ") + WebPAnimEncoderGetError(enc.get()));
    out.assign(reinterpret_cast<const char*>(data.bytes), data.size);
    WebPDataClear(&data);
    return Status::ok();
}

int appendGifBytes(GifFileType* g, const GifByteType* bytes, int n) {
    static_cast<std::string*>(g->UserData)->append(reinterpret_cast<const char*>(bytes), size_t(n));
    return n;
}

Status gifBytes(const std::vector<Image>& frames, int frameMs, std::string& out) {
    const int w = frames[0].width(), h = frames[0].height();
    if (w > 65535 || h > 65535) return Status::error("GIF holds at most 65535 x 65535 pixels");
    int error = 0;
    GifFileType* g = EGifOpen(&out, appendGifBytes, &error);
    if (!g) return Status::error(std::string("giflib: ") + GifErrorString(error));
    auto fail = [&](const char* what) {
        const std::string message = std::string("giflib could not write ") + what + ": " + GifErrorString(g->Error);
        EGifCloseFile(g, &error);
        return Status::error(message);
    };
    int colours = 2;
    while (colours < int(frames[0].palette.size())) colours *= 2;
    std::vector<GifColorType> table(size_t(colours), GifColorType{0, 0, 0});
    for (size_t k = 0; k < frames[0].palette.size(); ++k)
        table[k] = {frames[0].palette[k][0], frames[0].palette[k][1], frames[0].palette[k][2]};
    ColorMapObject* map = GifMakeMapObject(colours, table.data());
    EGifSetGifVersion(g, true);
    const bool screen = EGifPutScreenDesc(g, w, h, 8, 0, map) != GIF_ERROR;
    GifFreeMapObject(map);
    if (!screen) return fail("the screen");
    // the Netscape application extension: loop forever
    const GifByteType loop[3] = {1, 0, 0};
    if (EGifPutExtensionLeader(g, APPLICATION_EXT_FUNC_CODE) == GIF_ERROR ||
        EGifPutExtensionBlock(g, 11, "NETSCAPE2.0") == GIF_ERROR || EGifPutExtensionBlock(g, 3, loop) == GIF_ERROR ||
        EGifPutExtensionTrailer(g) == GIF_ERROR)
        return fail("the loop extension");
    for (const Image& f : frames) {
        GraphicsControlBlock gcb{DISPOSAL_UNSPECIFIED, false, std::max(1, frameMs / 10), NO_TRANSPARENT_COLOR};
        GifByteType ext[4];
        EGifGCBToExtension(&gcb, ext);
        if (EGifPutExtension(g, GRAPHICS_EXT_FUNC_CODE, 4, ext) == GIF_ERROR) return fail("a frame delay");
        if (EGifPutImageDesc(g, 0, 0, w, h, false, nullptr) == GIF_ERROR) return fail("a frame");
        for (int y = 0; y < h; ++y)
            if (EGifPutLine(g, const_cast<GifPixelType*>(f.indices.row(y)), w) == GIF_ERROR) return fail("a frame");
    }
    if (EGifCloseFile(g, &error) == GIF_ERROR) return Status::error(std::string("giflib: ") + GifErrorString(error));
    return Status::ok();
}

#endif

}  // namespace

bool isAnimationFormat(const std::string& path) {
    const std::string e = lowerExtension(path);
    return e == "png" || e == "webp" || e == "gif";
}

Status writeAnimation(const std::string& path, const std::vector<Image>& frames, int frameMs) {
    if (frames.empty()) return Status::error(path + ": an animation needs at least one frame");
    const Image& first = frames[0];
    if (first.palette.empty() || first.palette.size() > 256)
        return Status::error(path + ": animation frames need a palette of 1 to 256 colours");
    for (const Image& f : frames)
        if (f.indices.width != first.width() || f.indices.height != first.height() || f.palette != first.palette)
            return Status::error(path + ": animation frames differ in size or palette");
    frameMs = std::clamp(frameMs, 10, 65535);
    const std::string e = lowerExtension(path);
    if (!isAnimationFormat(path))
        return Status::error(path + ": an animation is written as .png (APNG), .webp or .gif");
#ifdef HALFTONE_HAVE_OIIO
    std::string bytes;
    Status s = e == "png"    ? apngBytes(frames, frameMs, bytes)
               : e == "webp" ? webpBytes(frames, frameMs, bytes)
                             : gifBytes(frames, frameMs, bytes);
    if (s) s = writeFileAtomically(path, bytes);
    return s.withContext(path);
#else
    return Status::error(path + ": this build writes no animations (built without HALFTONE_IO: PNM files only)");
#endif
}

}  // namespace halftone::io
