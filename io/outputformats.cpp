#include "io/outputformats.h"

#include <algorithm>
#include <cctype>
#include <filesystem>

namespace halftone::io {

namespace {

std::string extensionOf(const std::string& path) {
    std::string ext = std::filesystem::path(path).extension().string();
    if (!ext.empty()) ext.erase(0, 1);
    std::transform(ext.begin(), ext.end(), ext.begin(), [](unsigned char c) { return char(std::tolower(c)); });
    return ext;
}

const OutputFormat kPng{"PNG", {"png"}, {}, false};
const OutputFormat kTiff{"TIFF", {"tif", "tiff"}, {}, false};

OutputFormat with(OutputFormat f, std::string detail, bool convertsToRgb = false) {
    f.detail = std::move(detail);
    f.convertsToRgb = convertsToRgb;
    return f;
}

}  // namespace

ResultShape resultShape(const Image& image) {
    ResultShape s;
    s.space = image.space;
    s.channels = image.channelCount();
    if ((image.space == ColorSpace::Gray && image.channels.size() == 1) || image.space == ColorSpace::CMYK)
        s.binary = std::all_of(image.channels.begin(), image.channels.end(), [](const Plane8& p) {
            return std::all_of(p.data.begin(), p.data.end(), [](uint8_t v) { return v == 0 || v == 255; });
        });
    if (!image.palette.empty() && !image.indices.empty() && !image.hasAlpha)
        s.paletteColors = int(image.palette.size());
    return s;
}

std::string OutputFormat::filter() const {
    std::string patterns;
    for (const std::string& e : extensions) patterns += (patterns.empty() ? "*." : " *.") + e;
    return name + (detail.empty() ? "" : ", " + detail) + " (" + patterns + ")";
}

std::vector<OutputFormat> outputFormats(const ResultShape& shape) {
    if (shape.space == ColorSpace::CMYK && shape.binary) {
        OutputFormat plates = with(kTiff, "1-bit plates, one file per ink");
        plates.plates = true;
        return {with(kTiff, "CMYK, 1-bit separations"), plates, with(kPng, "converted to RGB for viewing", true)};
    }
    if (shape.space == ColorSpace::CMYK) return {with(kTiff, "CMYK"), with(kPng, "converted to RGB for viewing", true)};
    if (shape.paletteColors > 0) {
        // A palette result is written as an indexed file: the palette and each pixel's index, as the method chose.
        const std::string indexed = "indexed, " + std::to_string(shape.paletteColors) + " colours";
        return {with(kPng, indexed), with(kTiff, indexed), {"GIF", {"gif"}, indexed, false}, {"PPM", {"ppm"}, "RGB"}};
    }
    const std::string bits = shape.binary ? "1-bit" : "";
    std::vector<OutputFormat> f = {with(kPng, bits), with(kTiff, bits)};
    if (shape.space != ColorSpace::Gray) {
        f.push_back({"PPM", {"ppm"}, {}});
        return f;
    }
    if (shape.binary) f.push_back({"PBM", {"pbm"}, "1-bit"});
    f.push_back({"PGM", {"pgm"}, {}});
    return f;
}

const OutputFormat* findOutputFormat(const std::vector<OutputFormat>& formats, const std::string& path) {
    const std::string ext = extensionOf(path);
    for (const OutputFormat& f : formats)
        if (std::find(f.extensions.begin(), f.extensions.end(), ext) != f.extensions.end()) return &f;
    return nullptr;
}

std::string shapeName(const ResultShape& shape) {
    return shape.space == ColorSpace::CMYK  ? "CMYK"
           : shape.space == ColorSpace::RGB ? "RGB"
           : shape.binary                   ? "black and white"
                                            : "gray";
}

std::string outputAdvice(const ResultShape& shape) {
    if (shape.space == ColorSpace::CMYK) return "TIFF (keeps CMYK) or PNG (converted to RGB)";
    if (shape.paletteColors > 0) return "PNG, TIFF or GIF (indexed), or PPM";
    if (shape.space == ColorSpace::RGB) return "PNG, TIFF or PPM";
    return shape.binary ? "PNG, TIFF, PBM or PGM" : "PNG, TIFF or PGM";
}

Status checkOutputFormat(const std::string& path, const ResultShape& shape) {
    const std::string ext = extensionOf(path);
    if (ext == "pbm" && !shape.binary)
        return Status::error(shape.channels > 1 ? "A PBM file holds one black-and-white channel, and this result has " +
                                                      std::to_string(shape.channels) + " channels."
                                                : "A PBM file holds only black and white, and this result has gray "
                                                  "levels.");
    if (ext == "pgm" && shape.space != ColorSpace::Gray) return Status::error("A PGM file holds one gray channel.");
    if (ext == "ppm" && shape.space == ColorSpace::CMYK) return Status::error("A PPM file holds RGB, not CMYK.");
    return Status::ok();
}

}  // namespace halftone::io
