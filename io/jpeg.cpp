// JPEG through libjpeg-turbo: gray, YCbCr and CMYK/YCCK read row by row (CMYK as Adobe stores it, inverted, made RGB
// as OpenImageIO does), the EXIF orientation applied; gray and RGB written at quality 98.
#include <algorithm>
#include <cerrno>
#include <climits>
#include <csetjmp>
#include <cstdio>  // before jpeglib.h, which uses FILE and size_t
#include <cstring>
#include <vector>

#include <jpeglib.h>
#include <jerror.h>

#include "core/budget.h"
#include "io/codecs.h"
#include "io/pngwrite.h"

namespace halftone::io::detail {

namespace {

/// libjpeg's error manager with the jump back and the first message kept.
struct JpegErrors {
    jpeg_error_mgr mgr{};
    std::jmp_buf jump{};
    char message[JMSG_LENGTH_MAX] = {};
    char warning[JMSG_LENGTH_MAX] = {};
};

[[noreturn]] void jpegOnError(j_common_ptr cinfo) {
    auto* e = reinterpret_cast<JpegErrors*>(cinfo->err);
    cinfo->err->format_message(cinfo, e->message);
    std::longjmp(e->jump, 1);
}

/// Warnings (corrupt entropy data, a premature end) are kept: a file with one is refused after decoding, as its
/// pixels are not what was stored. Extraneous bytes between markers change no pixel and are dropped.
void jpegOnMessage(j_common_ptr cinfo, int level) {
    auto* e = reinterpret_cast<JpegErrors*>(cinfo->err);
    if (level >= 0 || e->warning[0] || cinfo->err->msg_code == JWRN_EXTRANEOUS_DATA) return;
    cinfo->err->format_message(cinfo, e->warning);
}

/// Everything a read keeps across libjpeg's longjmp.
struct JpegRead {
    std::FILE* file = nullptr;
    jpeg_decompress_struct cinfo{};
    JpegErrors errors;
    bool created = false;
    SampleLayout layout;
    Image out;
    std::vector<JSAMPLE> row;
    int orientation = 1;
    bool cmyk = false;
    ~JpegRead() {
        if (created) jpeg_destroy_decompress(&cinfo);
        if (file) std::fclose(file);
    }
};

void readHeader(JpegRead& r) {
    jpeg_create_decompress(&r.cinfo);
    r.created = true;
    jpeg_stdio_src(&r.cinfo, r.file);
    jpeg_save_markers(&r.cinfo, JPEG_APP0 + 1, 0xFFFF);
    jpeg_read_header(&r.cinfo, TRUE);
    for (jpeg_saved_marker_ptr m = r.cinfo.marker_list; m; m = m->next)
        if (m->marker == JPEG_APP0 + 1 && m->data_length > 6 && std::memcmp(m->data, "Exif\0\0", 6) == 0) {
            r.orientation = exifOrientation(m->data + 6, m->data_length - 6);
            break;
        }
    const J_COLOR_SPACE cs = r.cinfo.jpeg_color_space;
    r.cmyk = cs == JCS_CMYK || cs == JCS_YCCK;
    r.cinfo.out_color_space = r.cmyk ? JCS_CMYK : cs == JCS_GRAYSCALE ? JCS_GRAYSCALE : JCS_RGB;
}

/// Decodes the rows into the planes, allocated once the first pixels decode; false when the read was stopped. No C++
/// object with a destructor lives in this frame (libjpeg may longjmp out of it).
bool readRows(JpegRead& r, const StopToken& stop) {
    jpeg_start_decompress(&r.cinfo);
    const int w = int(r.cinfo.output_width);
    while (r.cinfo.output_scanline < r.cinfo.output_height) {
        const int y = int(r.cinfo.output_scanline);
        if ((y & 255) == 0 && stop.stopRequested()) return false;
        JSAMPROW rows[1] = {r.row.data()};
        jpeg_read_scanlines(&r.cinfo, rows, 1);
        if (y == 0) allocatePlanes(r.out, w, int(r.cinfo.output_height), r.layout);  // once pixels decode
        if (r.cmyk) {  // Adobe stores CMYK inverted: R = C K, G = M K, B = Y K (each 0..1)
            uint8_t* d[3] = {r.out.channels[0].row(y), r.out.channels[1].row(y), r.out.channels[2].row(y)};
            const JSAMPLE* s = r.row.data();
            for (int x = 0; x < w; ++x, s += 4) {
                const unsigned k = s[3];
                for (int c = 0; c < 3; ++c) d[c][x] = uint8_t((unsigned(s[c]) * k + 127) / 255);
            }
        } else {
            storeRow(r.out, r.layout, r.row.data(), 8, y, 0, w);
        }
    }
    jpeg_finish_decompress(&r.cinfo);
    return true;
}

}  // namespace

Status readJpeg(const std::string& path, const HeaderFacts& facts, Image& image, const ReadOptions& options,
                ReadInfo* info) {
    JpegRead r;
    r.file = std::fopen(path.c_str(), "rb");
    if (!r.file) return Status::error(std::strerror(errno));
    r.cinfo.err = jpeg_std_error(&r.errors.mgr);
    r.errors.mgr.error_exit = jpegOnError;
    r.errors.mgr.emit_message = jpegOnMessage;
    if (setjmp(r.errors.jump)) return Status::error(std::string("corrupt JPEG: ") + r.errors.message);
    readHeader(r);
    const int w = int(r.cinfo.image_width), h = int(r.cinfo.image_height), comps = r.cinfo.num_components;
    if (Status s = checkImageSize(w, h, comps, options.maxPixels); !s) return s;
    r.layout = plainLayout(r.cinfo.out_color_space == JCS_GRAYSCALE ? 1 : 3);
    r.layout.samples = r.cmyk ? 4 : int(r.layout.order.size());
    // The budget before jpeg_start_decompress allocates: the planes, one row, and the decoder's buffers (a
    // progressive file's coefficients for the whole image, counted by the header check).
    const uint64_t rowBytes = mulBytes(uint64_t(w), uint64_t(r.layout.samples));
    if (Status s = checkReadMemory(w, h, r.layout, addBytes(rowBytes, facts.decoderBytes), r.orientation, options); !s)
        return s;
    // libjpeg's own limit: it refuses (it has no backing store) rather than allocate more than the budget.
    r.cinfo.mem->max_memory_to_use = long(std::min<uint64_t>(options.maxMemory, uint64_t(LONG_MAX)));
    if (options.stop.stopRequested()) return Status::cancelled();
    r.row.resize(size_t(rowBytes));
    if (setjmp(r.errors.jump)) return Status::error(std::string("corrupt JPEG: ") + r.errors.message);
    if (!readRows(r, options.stop)) return Status::cancelled();
    if (r.errors.warning[0]) return Status::error(std::string("corrupt JPEG: ") + r.errors.warning);
    if (info && r.cinfo.saw_JFIF_marker && r.cinfo.X_density > 0 &&
        (r.cinfo.density_unit == 1 || r.cinfo.density_unit == 2))
        info->dpi = r.cinfo.density_unit == 1 ? r.cinfo.X_density : r.cinfo.X_density * 2.54;  // per inch or per cm
    finishRead(r.out, r.orientation, "jpeg", r.cmyk ? 3 : comps, "uint8", {}, info, image);
    return Status::ok();
}

namespace {

/// Everything a write keeps across libjpeg's longjmp.
struct JpegWrite {
    std::FILE* file = nullptr;
    jpeg_compress_struct cinfo{};
    JpegErrors errors;
    bool created = false;
    std::vector<JSAMPLE> row;
    ~JpegWrite() {
        if (created) jpeg_destroy_compress(&cinfo);
        if (file) std::fclose(file);
    }
};

/// Compresses the image row by row; no C++ object with a destructor lives in this frame (libjpeg may longjmp out).
void compress(JpegWrite& wr, const Image& image) {
    const int colors = image.channelCount(), w = image.width();
    jpeg_create_compress(&wr.cinfo);
    wr.created = true;
    jpeg_stdio_dest(&wr.cinfo, wr.file);
    wr.cinfo.image_width = JDIMENSION(w);
    wr.cinfo.image_height = JDIMENSION(image.height());
    wr.cinfo.input_components = colors;
    wr.cinfo.in_color_space = colors == 1 ? JCS_GRAYSCALE : JCS_RGB;
    jpeg_set_defaults(&wr.cinfo);
    jpeg_set_quality(&wr.cinfo, 98, TRUE);
    jpeg_start_compress(&wr.cinfo, TRUE);
    while (wr.cinfo.next_scanline < wr.cinfo.image_height) {
        const int y = int(wr.cinfo.next_scanline);
        for (int c = 0; c < colors; ++c) {
            const uint8_t* s = image.channels[size_t(c)].row(y);
            for (int x = 0; x < w; ++x) wr.row[size_t(x) * size_t(colors) + size_t(c)] = s[x];
        }
        JSAMPROW rows[1] = {wr.row.data()};
        jpeg_write_scanlines(&wr.cinfo, rows, 1);
    }
    jpeg_finish_compress(&wr.cinfo);  // flushes, and fails on a write error
}

}  // namespace

Status writeJpeg(const std::string& path, const Image& image) {
    JpegWrite wr;
    wr.file = std::fopen(path.c_str(), "wb");
    if (!wr.file) return Status::error(std::strerror(errno));
    wr.row.resize(size_t(image.width()) * size_t(image.channelCount()));
    wr.cinfo.err = jpeg_std_error(&wr.errors.mgr);
    wr.errors.mgr.error_exit = jpegOnError;
    wr.errors.mgr.emit_message = jpegOnMessage;
    if (setjmp(wr.errors.jump)) return Status::error(std::string("write failed: ") + wr.errors.message);
    compress(wr, image);
    jpeg_destroy_compress(&wr.cinfo);
    wr.created = false;
    std::FILE* f = wr.file;
    wr.file = nullptr;
    return closeWrittenFile(f);
}

}  // namespace halftone::io::detail
