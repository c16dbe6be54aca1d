// WebP through libwebp: still and animated (the first frame composed on its canvas, as libwebp's animation decoder
// composes it) read; gray, RGB and RGBA written lossy at quality 100 (WebP holds no gray: gray goes out as RGB).
#include <webp/decode.h>
#include <webp/demux.h>
#include <webp/encode.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <memory>
#include <vector>

#include "core/budget.h"
#include "io/codecs.h"
#include "io/pngwrite.h"
#include "io/rgba.h"

namespace halftone::io::detail {

namespace {

struct DemuxDeleter {
    void operator()(WebPDemuxer* d) const { WebPDemuxDelete(d); }
};
struct AnimDeleter {
    void operator()(WebPAnimDecoder* d) const { WebPAnimDecoderDelete(d); }
};
struct WebpFree {
    void operator()(uint8_t* p) const { WebPFree(p); }
};

}  // namespace

Status readWebp(const std::string& path, Image& image, const ReadOptions& options, ReadInfo* info) {
    std::vector<unsigned char> bytes;
    if (Status s = readWholeFile(path, options, bytes); !s) return s;
    WebPData data{bytes.data(), bytes.size()};
    std::unique_ptr<WebPDemuxer, DemuxDeleter> demux(WebPDemux(&data));
    if (!demux) return Status::error("corrupt or truncated WebP file");
    const uint32_t cw = WebPDemuxGetI(demux.get(), WEBP_FF_CANVAS_WIDTH),
                   ch = WebPDemuxGetI(demux.get(), WEBP_FF_CANVAS_HEIGHT);
    const uint32_t frames = WebPDemuxGetI(demux.get(), WEBP_FF_FRAME_COUNT);
    const bool animated = (WebPDemuxGetI(demux.get(), WEBP_FF_FORMAT_FLAGS) & ANIMATION_FLAG) != 0;
    if (Status s = checkImageSize(cw, ch, 4, options.maxPixels); !s) return s;
    if (frames == 0) return Status::error("WebP file with no frames");
    const uint64_t canvas = uint64_t(cw) * ch * 4;
    // Planes (at most RGB + alpha), the decoded RGBA canvas (two more for an animation: the previous
    // canvas and the frame), and the file itself.
    const uint64_t need = addBytes(addBytes(uint64_t(cw) * ch * 4, canvas * (animated ? 3 : 1)), bytes.size());
    if (Status s = checkMemory(need, options.maxMemory,
                               "reading this " + std::to_string(cw) + " x " + std::to_string(ch) + " WebP image");
        !s)
        return s;
    if (options.stop.stopRequested()) return Status::cancelled();

    Image out;
    if (animated) {
        WebPAnimDecoderOptions opt;
        if (!WebPAnimDecoderOptionsInit(&opt)) return Status::error("the WebP library is incompatible");
        opt.color_mode = MODE_RGBA;  // unassociated alpha
        opt.use_threads = 0;
        std::unique_ptr<WebPAnimDecoder, AnimDeleter> dec(WebPAnimDecoderNew(&data, &opt));
        if (!dec) return Status::error("corrupt animated WebP file");
        uint8_t* rgba = nullptr;
        int timestamp = 0;
        if (!WebPAnimDecoderGetNext(dec.get(), &rgba, &timestamp) || !rgba)
            return Status::error("corrupt animated WebP file: the first frame cannot be decoded");
        out = fromRgba(rgba, int(cw), int(ch), size_t(cw) * 4);
    } else {
        int w = 0, h = 0;
        std::unique_ptr<uint8_t, WebpFree> rgba(WebPDecodeRGBA(bytes.data(), bytes.size(), &w, &h));
        if (!rgba) return Status::error("corrupt or truncated WebP image data");
        if (w != int(cw) || h != int(ch)) return Status::error("corrupt WebP file: the image and canvas sizes differ");
        out = fromRgba(rgba.get(), w, h, size_t(w) * 4);
    }
    if (info) {
        info->format = "webp";
        info->sourceChannels = out.hasAlpha ? 4 : 3;
        info->sourceType = "uint8";
        if (frames > 1)
            info->notes = "animated WebP with " + std::to_string(frames) + " frames: only the first frame was read";
    }
    image = std::move(out);
    return Status::ok();
}

Status writeWebp(const std::string& path, const Image& image) {
    const int w = image.width(), h = image.height(), colors = image.channelCount();
    const int samples = image.hasAlpha ? 4 : 3;
    std::vector<uint8_t> pixels(size_t(w) * size_t(h) * size_t(samples));
    for (int y = 0; y < h; ++y) {
        uint8_t* d = pixels.data() + size_t(y) * size_t(w) * size_t(samples);
        for (int c = 0; c < samples; ++c) {
            const uint8_t* s = c == 3 ? image.alpha.row(y) : image.channels[size_t(std::min(c, colors - 1))].row(y);
            for (int x = 0; x < w; ++x) d[size_t(x) * size_t(samples) + size_t(c)] = s[x];
        }
    }
    WebPConfig config;
    WebPPicture picture;
    if (!WebPConfigInit(&config) || !WebPPictureInit(&picture))
        return Status::error("the WebP library is incompatible");
    config.quality = 100;
    picture.use_argb = 1;
    picture.width = w;
    picture.height = h;
    WebPMemoryWriter writer;
    WebPMemoryWriterInit(&writer);
    picture.writer = WebPMemoryWrite;
    picture.custom_ptr = &writer;
    const bool imported = samples == 4 ? WebPPictureImportRGBA(&picture, pixels.data(), w * 4) != 0
                                       : WebPPictureImportRGB(&picture, pixels.data(), w * 3) != 0;
    const bool encoded = imported && WebPEncode(&config, &picture) != 0;
    const int error = picture.error_code;
    WebPPictureFree(&picture);
    Status s = Status::ok();
    if (!encoded) {
        s = Status::error("the WebP encoder failed (error " + std::to_string(error) + ")");
    } else if (std::FILE* f = std::fopen(path.c_str(), "wb"); !f) {
        s = Status::error(std::strerror(errno));
    } else {
        if (std::fwrite(writer.mem, 1, writer.size, f) != writer.size) {
            s = Status::error(std::string("write failed: ") + std::strerror(errno));
            std::fclose(f);
        } else {
            s = closeWrittenFile(f);
        }
    }
    WebPMemoryWriterClear(&writer);
    return s;
}

}  // namespace halftone::io::detail
