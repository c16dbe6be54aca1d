#include "core/palette/target.h"

#include <algorithm>
#include <filesystem>
#include <mutex>
#include <set>

#include "core/job/names.h"

namespace halftone {

Palette Target::shownPalette() const {
    Palette p;
    p.name = name;
    for (const TargetInk& k : inks) p.colors.push_back(k.shown);
    return p;
}

Palette Target::writtenPalette() const {
    Palette p;
    p.name = name;
    int top = -1;
    for (const TargetInk& k : inks) top = std::max(top, k.code);
    if (top < 0) return p;
    p.colors.assign(size_t(top + 1), inks.front().nominal);
    for (const TargetInk& k : inks) p.colors[size_t(k.code)] = k.nominal;
    return p;
}

std::vector<uint8_t> Target::codes() const {
    std::vector<uint8_t> c;
    for (const TargetInk& k : inks) c.push_back(uint8_t(k.code));
    return c;
}

Status Target::validate() const {
    const std::string who = "target '" + name + "'";
    if (name.empty()) return Status::error("a target needs a name");
    if (width < 0 || height < 0 || width > (1 << 20) || height > (1 << 20))
        return Status::error(who + ": width and height must be 0 to 1048576 pixels");
    if (height > 0 && width == 0) return Status::error(who + ": a height needs a width");
    if (!(dpi >= 0 && dpi <= 100000)) return Status::error(who + ": dpi must be 0 to 100000");
    if (inks.size() == 1 || int(inks.size()) > kMaxPaletteColors)
        return Status::error(who + " has " + std::to_string(inks.size()) +
                             " colours; a target needs 2 to 256 (or none for a 1-bit device)");
    std::set<int> seen;
    for (const TargetInk& k : inks) {
        if (k.code < 0 || k.code > 255)
            return Status::error(who + ": the code of '" + k.name + "' must be 0 to 255, got " +
                                 std::to_string(k.code));
        if (!seen.insert(k.code).second)
            return Status::error(who + ": two colours have the code " + std::to_string(k.code));
    }
    return Status::ok();
}

namespace {

TargetInk ink(const char* name, int code, uint32_t nominal, uint32_t shown) {
    auto rgb = [](uint32_t v) { return Rgb8{uint8_t(v >> 16), uint8_t(v >> 8), uint8_t(v)}; };
    return {name, code, rgb(nominal), rgb(shown)};
}

/// A device whose shown colours are its nominal ones (no published measurement).
std::vector<TargetInk> nominal(std::initializer_list<std::pair<const char*, uint32_t>> colors,
                               std::initializer_list<int> codes) {
    std::vector<TargetInk> v;
    auto code = codes.begin();
    for (const auto& [name, rgb] : colors) v.push_back(ink(name, *code++, rgb, rgb));
    return v;
}

Target row(std::string name, std::string group, std::string description, std::string source, int w, int h, double dpi,
           std::vector<TargetInk> inks) {
    return {std::move(name), std::move(group), std::move(description), std::move(source), w, h, dpi, std::move(inks)};
}

/// 7-colour ACeP in the UC8159 and AC073TC1A drivers' order: codes 0..6.
std::vector<TargetInk> acep(std::initializer_list<uint32_t> shown, uint32_t orange) {
    const char* names[] = {"black", "white", "green", "blue", "red", "yellow", "orange"};
    const uint32_t nominalColors[] = {0x000000, 0xFFFFFF, 0x00FF00, 0x0000FF, 0xFF0000, 0xFFFF00, orange};
    std::vector<TargetInk> v;
    auto s = shown.begin();
    for (int k = 0; k < 7; ++k) v.push_back(ink(names[k], k, nominalColors[k], shown.size() ? *s++ : nominalColors[k]));
    return v;
}

/// Spectra 6: black, white, yellow, red, blue, green with the drivers' codes 0, 1, 2, 3, 5, 6 (4 is unused).
std::vector<TargetInk> spectra6(std::initializer_list<uint32_t> shown) {
    const char* names[] = {"black", "white", "yellow", "red", "blue", "green"};
    const uint32_t nominalColors[] = {0x000000, 0xFFFFFF, 0xFFFF00, 0xFF0000, 0x0000FF, 0x00FF00};
    const int codes[] = {0, 1, 2, 3, 5, 6};
    std::vector<TargetInk> v;
    auto s = shown.begin();
    for (int k = 0; k < 6; ++k)
        v.push_back(ink(names[k], codes[k], nominalColors[k], shown.size() ? *s++ : nominalColors[k]));
    return v;
}

std::vector<TargetInk> grays(int n) {
    std::vector<TargetInk> v;
    for (int k = 0; k < n; ++k) {
        const uint32_t g = uint32_t(k * 255 / (n - 1));
        const std::string name = "gray " + std::to_string(k);
        v.push_back(ink("", k, g * 0x010101u, g * 0x010101u));
        v.back().name = name;
    }
    return v;
}

std::vector<Target> makeTargets() {
    const char* inky = "Pimoroni inky library";
    const char* ws = "Waveshare e-Paper library (nominal colours)";
    const std::vector<TargetInk> acep57 =
        acep({0x393039, 0xFFFFFF, 0x3A5B46, 0x3D3B5E, 0x9C484B, 0xD0BE47, 0xB16A49}, 0xFF8C00);
    const std::vector<TargetInk> spectraInky = spectra6({0x000000, 0xA1A4A5, 0xD0BE47, 0x9C484B, 0x3D3B5E, 0x3A5B46});
    std::vector<Target> v;
    v.push_back(row("inky-impression-5.7", "e-paper", "Pimoroni Inky Impression 5.7 in, 7-colour ACeP, 600 x 448",
                    std::string(inky) + ", inky_uc8159.py SATURATED_PALETTE", 600, 448, 0, acep57));
    v.push_back(row("inky-impression-4", "e-paper",
                    "Pimoroni Inky Impression 4 in, 7-colour ACeP, 640 x 400 (the 5.7 in driver's colours)",
                    std::string(inky) + ", inky_uc8159.py SATURATED_PALETTE (one table for 4 and 5.7 in)", 640, 400, 0,
                    acep57));
    v.push_back(row("inky-impression-7.3", "e-paper", "Pimoroni Inky Impression 7.3 in, 7-colour ACeP, 800 x 480",
                    std::string(inky) + ", inky_ac073tc1a.py SATURATED_PALETTE", 800, 480, 0,
                    acep({0x000000, 0xD9F2FF, 0x037C4C, 0x1B2EC6, 0xF55022, 0xFFFF44, 0xEF792C}, 0xFF8C00)));
    v.push_back(row("inky-impression-7.3-spectra6", "e-paper",
                    "Pimoroni Inky Impression 7.3 in (2025), E Ink Spectra 6, 800 x 480",
                    std::string(inky) + ", inky_e673.py SATURATED_PALETTE", 800, 480, 0, spectraInky));
    v.push_back(row("inky-impression-13.3", "e-paper", "Pimoroni Inky Impression 13.3 in, E Ink Spectra 6, 1600 x 1200",
                    std::string(inky) + ", inky_el133uf1.py SATURATED_PALETTE", 1600, 1200, 0, spectraInky));
    v.push_back(row("waveshare-5.65f", "e-paper", "Waveshare 5.65 in e-Paper (F), 7-colour ACeP, 600 x 448", ws, 600,
                    448, 0, acep({}, 0xFF8000)));
    v.push_back(row("waveshare-7.3f", "e-paper", "Waveshare 7.3 in e-Paper (F), 7-colour ACeP, 800 x 480", ws, 800, 480,
                    0, acep({}, 0xFF8000)));
    v.push_back(row("waveshare-4e", "e-paper", "Waveshare 4 in e-Paper (E), E Ink Spectra 6, 400 x 600", ws, 400, 600,
                    0, spectra6({})));
    v.push_back(row("waveshare-7.3e", "e-paper", "Waveshare 7.3 in e-Paper (E), E Ink Spectra 6, 800 x 480", ws, 800,
                    480, 0, spectra6({})));
    v.push_back(row("inky-what-red", "e-paper", "Pimoroni Inky wHAT, black, white and red, 400 x 300",
                    std::string(inky) + ", inky.py (nominal colours)", 400, 300, 0,
                    nominal({{"black", 0x000000}, {"white", 0xFFFFFF}, {"red", 0xFF0000}}, {1, 0, 2})));
    v.push_back(row("inky-phat-red", "e-paper", "Pimoroni Inky pHAT, black, white and red, 250 x 122",
                    std::string(inky) + ", inky.py (nominal colours)", 250, 122, 0,
                    nominal({{"black", 0x000000}, {"white", 0xFFFFFF}, {"red", 0xFF0000}}, {1, 0, 2})));
    const auto bwry = [] {
        return nominal({{"black", 0x000000}, {"white", 0xFFFFFF}, {"yellow", 0xFFFF00}, {"red", 0xFF0000}},
                       {0, 1, 2, 3});
    };
    v.push_back(row("inky-what-4colour", "e-paper", "Pimoroni Inky wHAT, black, white, yellow and red, 400 x 300",
                    std::string(inky) + ", inky_jd79668.py (nominal colours)", 400, 300, 0, bwry()));
    v.push_back(row("waveshare-7.3g", "e-paper",
                    "Waveshare 7.3 in e-Paper (G), black, white, yellow and red, 800 x 480", ws, 800, 480, 0, bwry()));
    v.push_back(
        row("waveshare-4.2-gray4", "gray", "Waveshare 4.2 in e-Paper in 4-gray mode, 400 x 300",
            std::string(ws) + ", epd4in2.py GRAY1..GRAY4", 400, 300, 0,
            nominal({{"black", 0x000000}, {"dark gray", 0x808080}, {"light gray", 0xC0C0C0}, {"white", 0xFFFFFF}},
                    {0, 1, 2, 3})));
    v.push_back(row("it8951-10.3-gray16", "gray",
                    "16-gray e-paper on an IT8951 controller (Waveshare 10.3 in HAT), 1872 x 1404, 4 bits a pixel",
                    "IT8951 4 bpp: 0 = black, 15 = white (nominal levels)", 1872, 1404, 0, grays(16)));
    v.push_back(row("thermal-58mm-203", "printer", "58 mm thermal receipt printer, 203 dpi: 384 dots a line",
                    "48 mm printable at 8 dots/mm", 384, 0, 203, {}));
    v.push_back(row("thermal-80mm-203", "printer", "80 mm thermal receipt printer, 203 dpi: 576 dots a line",
                    "72 mm printable at 8 dots/mm", 576, 0, 203, {}));
    v.push_back(row("label-62mm-300", "printer", "62 mm thermal label tape (Brother QL), 300 dpi: 696 dots a line",
                    "brother_ql labels.py: 62 mm endless, 696 printable dots", 696, 0, 300, {}));
    v.push_back(row("laser-engraver", "engraver",
                    "laser engraver, 1 bit at 254 dpi (0.1 mm lines; --dpi up to 600), size from --print-size",
                    "line interval 0.1 mm", 0, 0, 254, {}));
    return v;
}

std::mutex& readerMutex() {
    static std::mutex m;
    return m;
}

TargetFileReader& reader() {
    static TargetFileReader r;
    return r;
}

}  // namespace

const std::vector<Target>& builtinTargets() {
    static const std::vector<Target> all = makeTargets();
    return all;
}

const Target* findBuiltinTarget(const std::string& name) { return findNamed("target", name, builtinTargets()); }

std::string targetFile(const std::string& spec) {
    return spec.empty() || findBuiltinTarget(spec) ? std::string() : spec;
}

void setTargetFileReader(TargetFileReader r) {
    const std::lock_guard<std::mutex> lock(readerMutex());
    reader() = std::move(r);
}

Status resolveTarget(const std::string& spec, Target& out) {
    if (const Target* t = findBuiltinTarget(spec)) {
        out = *t;
        return Status::ok();
    }
    std::error_code ec;
    const bool file = spec.size() > 5 && spec.compare(spec.size() - 5, 5, ".json") == 0;
    if (file || std::filesystem::is_regular_file(spec, ec)) {
        TargetFileReader r;
        {
            const std::lock_guard<std::mutex> lock(readerMutex());
            r = reader();
        }
        if (!r) return Status::error("target file '" + spec + "': this program reads no target files");
        Target t;
        if (Status s = r(spec, t); !s) return s;
        if (Status s = t.validate(); !s) return Status::error("target file '" + spec + "': " + s.message());
        out = std::move(t);
        return Status::ok();
    }
    std::vector<std::string> names;
    for (const Target& t : builtinTargets()) names.push_back(t.name);
    return Status::error("unknown target '" + spec + "'" + didYouMean(spec, names) +
                         " (halftone --list-targets names them; a target file ends in .json)");
}

}  // namespace halftone
