// GIF through giflib: the first image composed on the logical screen (uncovered screen and the transparent colour
// transparent), as RGB + alpha like OpenImageIO's reader; decoded row by row, later images only counted.
#include <gif_lib.h>

#include <memory>
#include <string>

#include "core/budget.h"
#include "io/codecs.h"

namespace halftone::io::detail {

namespace {

struct GifCloser {
    void operator()(GifFileType* g) const {
        int error = 0;
        DGifCloseFile(g, &error);
    }
};

std::string gifError(int code) {
    const char* e = GifErrorString(code);
    return std::string("corrupt GIF: ") + (e ? e : "decoder error " + std::to_string(code));
}

}  // namespace

Status readGif(const std::string& path, const HeaderFacts& facts, Image& image, const ReadOptions& options,
               ReadInfo* info) {
    int error = 0;
    std::unique_ptr<GifFileType, GifCloser> gif(DGifOpenFileName(path.c_str(), &error));
    if (!gif) return Status::error(gifError(error));
    const int w = gif->SWidth, h = gif->SHeight;
    if (Status s = checkImageSize(w, h, 4, options.maxPixels); !s) return s;
    const SampleLayout layout = plainLayout(4);
    if (Status s = checkReadMemory(w, h, layout, addBytes(facts.decoderBytes, uint64_t(w) * 4), 1, options); !s)
        return s;
    if (options.stop.stopRequested()) return Status::cancelled();

    Image out;
    int transparent = -1;
    bool haveImage = false, more = false;
    GifRecordType record = UNDEFINED_RECORD_TYPE;
    while (!more) {
        if (DGifGetRecordType(gif.get(), &record) == GIF_ERROR) {
            if (haveImage) break;  // trailing damage after the image read: as OpenImageIO, the image stands
            return Status::error(gifError(gif->Error));
        }
        if (record == TERMINATE_RECORD_TYPE) break;
        if (record == EXTENSION_RECORD_TYPE) {
            int code = 0;
            GifByteType* ext = nullptr;
            if (DGifGetExtension(gif.get(), &code, &ext) == GIF_ERROR) {
                if (haveImage) break;
                return Status::error(gifError(gif->Error));
            }
            if (code == GRAPHICS_EXT_FUNC_CODE && ext && !haveImage) {
                GraphicsControlBlock gcb;
                if (DGifExtensionToGCB(ext[0], ext + 1, &gcb) == GIF_OK) transparent = gcb.TransparentColor;
            }
            while (ext) {
                if (DGifGetExtensionNext(gif.get(), &ext) == GIF_ERROR) {
                    if (haveImage) break;
                    return Status::error(gifError(gif->Error));
                }
            }
            continue;
        }
        if (record != IMAGE_DESC_RECORD_TYPE) continue;
        if (haveImage) {
            more = true;
            break;
        }
        if (DGifGetImageDesc(gif.get()) == GIF_ERROR) return Status::error(gifError(gif->Error));
        const GifImageDesc& d = gif->Image;
        const ColorMapObject* map = d.ColorMap ? d.ColorMap : gif->SColorMap;
        if (!map) return Status::error("corrupt GIF: the first image has no colour table");
        if (d.Width <= 0 || d.Height <= 0) return Status::error("corrupt GIF: the first image is empty");
        std::vector<GifPixelType> line(size_t(d.Width));
        // Rows of an interlaced image come in four passes: every 8th from 0, every 8th from 4, every 4th from 2,
        // every 2nd from 1.
        static const int start[4] = {0, 4, 2, 1}, step[4] = {8, 8, 4, 2};
        int pass = 0, row = 0;
        for (int i = 0; i < d.Height; ++i) {
            if ((i & 255) == 0 && options.stop.stopRequested()) return Status::cancelled();
            if (DGifGetLine(gif.get(), line.data(), d.Width) == GIF_ERROR) return Status::error(gifError(gif->Error));
            // Once pixels decode (a file with no image data costs no planes): transparent black where no image
            // covers the screen.
            if (out.channels.empty()) allocatePlanes(out, w, h, layout);
            int fy = i;
            if (d.Interlace) {
                while (row >= d.Height && pass < 3) row = start[++pass];
                fy = row;
                row += step[pass];
            }
            const int y = d.Top + fy;
            if (y < 0 || y >= h) continue;
            for (int fx = 0; fx < d.Width; ++fx) {
                const int x = d.Left + fx, v = line[size_t(fx)];
                if (x >= w || v == transparent) continue;
                const GifColorType c = v < map->ColorCount ? map->Colors[v] : GifColorType{0, 0, 0};
                out.channels[0].row(y)[x] = c.Red;
                out.channels[1].row(y)[x] = c.Green;
                out.channels[2].row(y)[x] = c.Blue;
                out.alpha.row(y)[x] = 255;
            }
        }
        haveImage = true;
    }
    if (!haveImage) return Status::error("corrupt GIF: no image");
    finishRead(out, 1, "gif", 4, "uint8", more ? "multi-image file: only the first image was read" : "", info, image);
    return Status::ok();
}

}  // namespace halftone::io::detail
