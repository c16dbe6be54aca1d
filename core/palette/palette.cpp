#include "core/palette/palette.h"

#include "core/job/names.h"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <initializer_list>
#include <iterator>
#include <sstream>
#include <string>

namespace halftone {

Status checkPalette(const Palette& p) {
    if (p.size() < kMinPaletteColors || p.size() > kMaxPaletteColors)
        return Status::error("palette " + (p.name.empty() ? std::string() : "'" + p.name + "' ") + "has " +
                             std::to_string(p.size()) + " colours; a palette needs 2 to 256");
    return Status::ok();
}

bool parseColorText(const std::string& text, Rgb8& out) {
    static const std::pair<const char*, Rgb8> kNames[] = {
        {"black", {0, 0, 0}},    {"white", {255, 255, 255}}, {"gray", {128, 128, 128}}, {"grey", {128, 128, 128}},
        {"red", {255, 0, 0}},    {"green", {0, 255, 0}},     {"blue", {0, 0, 255}},     {"yellow", {255, 255, 0}},
        {"cyan", {0, 255, 255}}, {"magenta", {255, 0, 255}}, {"orange", {255, 128, 0}},
    };
    std::string t;
    for (char c : text) t += char(std::tolower(static_cast<unsigned char>(c)));
    for (const auto& [name, rgb] : kNames)
        if (t == name) {
            out = rgb;
            return true;
        }
    if (!t.empty() && t[0] == '#') t.erase(0, 1);
    if (t.size() == 3) t = {t[0], t[0], t[1], t[1], t[2], t[2]};
    if (t.size() != 6 || !std::all_of(t.begin(), t.end(), [](char c) { return std::isxdigit((unsigned char)c); }))
        return false;
    const unsigned long v = std::stoul(t, nullptr, 16);
    out = {uint8_t(v >> 16), uint8_t(v >> 8), uint8_t(v)};
    return true;
}

std::string colorText(const Rgb8& c) {
    char text[8];
    std::snprintf(text, sizeof text, "#%02x%02x%02x", c[0], c[1], c[2]);
    return text;
}

std::array<int32_t, 3> matchWeights(PaletteMatch m) {
    return m == PaletteMatch::Weighted ? std::array<int32_t, 3>{299, 587, 114} : std::array<int32_t, 3>{1, 1, 1};
}

const char* toString(PaletteMatch m) { return m == PaletteMatch::Weighted ? "weighted" : "euclidean"; }

const char* toString(PaletteSpace s) { return s == PaletteSpace::Gamma ? "gamma" : "linear"; }

namespace {

/// The value among `values` whose toString is `name`, in `out`; false when none is.
template <class E>
bool parseNamed(const std::string& name, std::initializer_list<E> values, E& out) {
    for (E v : values)
        if (name == toString(v)) {
            out = v;
            return true;
        }
    return false;
}

}  // namespace

bool parsePaletteMatch(const std::string& name, PaletteMatch& out) {
    return parseNamed(name, {PaletteMatch::Euclidean, PaletteMatch::Weighted}, out);
}

bool parsePaletteSpace(const std::string& name, PaletteSpace& out) {
    return parseNamed(name, {PaletteSpace::Linear, PaletteSpace::Gamma}, out);
}

namespace {

// ---------------------------------------------------------------------------------------------------------------
// Built-in palettes

Palette fromHex(const std::string& name, std::initializer_list<uint32_t> rgb) {
    Palette p;
    p.name = name;
    for (uint32_t v : rgb) p.colors.push_back({uint8_t(v >> 16), uint8_t(v >> 8), uint8_t(v)});
    return p;
}

BuiltinPalette builtin(std::string name, std::string group, std::string description,
                       std::initializer_list<uint32_t> rgb) {
    BuiltinPalette b;
    b.palette = fromHex(name, rgb);
    b.name = std::move(name);
    b.group = std::move(group);
    b.description = std::move(description);
    return b;
}

Palette webSafe() {
    Palette p;
    p.name = "websafe";
    for (int r = 0; r < 6; ++r)
        for (int g = 0; g < 6; ++g)
            for (int b = 0; b < 6; ++b) p.colors.push_back({uint8_t(51 * r), uint8_t(51 * g), uint8_t(51 * b)});
    return p;
}

std::vector<BuiltinPalette> makeBuiltins() {
    std::vector<BuiltinPalette> v;
    // e-paper panels. Nominal colours are the targets the vendors' own dithering code uses; the "-measured" forms
    // are Pimoroni's SATURATED_PALETTE values, closer to what the panel shows (docs/targets.md says where from).
    v.push_back(builtin("bw", "e-paper", "black and white", {0x000000, 0xFFFFFF}));
    v.push_back(
        builtin("bwr", "e-paper", "black, white and red (three-colour e-paper)", {0x000000, 0xFFFFFF, 0xFF0000}));
    v.push_back(
        builtin("bwy", "e-paper", "black, white and yellow (three-colour e-paper)", {0x000000, 0xFFFFFF, 0xFFFF00}));
    v.push_back(builtin("gray4", "e-paper", "4 grays, 0/85/170/255 (2-bit gray e-paper)",
                        {0x000000, 0x555555, 0xAAAAAA, 0xFFFFFF}));
    v.push_back(builtin("acep7", "e-paper",
                        "7-colour ACeP (Pimoroni Inky Impression, Waveshare 5.65/7.3 in F), nominal colours in the "
                        "panel's order: black, white, green, blue, red, yellow, orange",
                        {0x000000, 0xFFFFFF, 0x00FF00, 0x0000FF, 0xFF0000, 0xFFFF00, 0xFF8C00}));
    v.push_back(builtin("acep7-measured", "e-paper",
                        "7-colour ACeP of the 5.7 in panel as the inks look (Pimoroni's measured colours), same "
                        "order as acep7",
                        {0x393039, 0xFFFFFF, 0x3A5B46, 0x3D3B5E, 0x9C484B, 0xD0BE47, 0xB16A49}));
    v.push_back(builtin("spectra6", "e-paper",
                        "6-colour E Ink Spectra 6 (Inky Impression 7.3 in 2025, Waveshare 7.3 in E), nominal colours "
                        "in the panel's order: black, white, yellow, red, blue, green",
                        {0x000000, 0xFFFFFF, 0xFFFF00, 0xFF0000, 0x0000FF, 0x00FF00}));
    v.push_back(builtin("spectra6-measured", "e-paper",
                        "Spectra 6 as Pimoroni publishes it (inky_e673), same order as spectra6; index k is not the "
                        "driver's code k for blue and green: --target writes the codes",
                        {0x000000, 0xA1A4A5, 0xD0BE47, 0x9C484B, 0x3D3B5E, 0x3A5B46}));
    // Retro computers and consoles.
    v.push_back(builtin("cga", "retro", "IBM CGA 320x200 mode, palette 1, high intensity: black, cyan, magenta, white",
                        {0x000000, 0x55FFFF, 0xFF55FF, 0xFFFFFF}));
    v.push_back(builtin("cga0", "retro", "IBM CGA 320x200 mode, palette 0, high intensity: black, green, red, yellow",
                        {0x000000, 0x55FF55, 0xFF5555, 0xFFFF55}));
    v.push_back(builtin("ega", "retro",
                        "IBM EGA/VGA default 16 colours (the CGA text colours, brown included), in colour-number order",
                        {0x000000, 0x0000AA, 0x00AA00, 0x00AAAA, 0xAA0000, 0xAA00AA, 0xAA5500, 0xAAAAAA, 0x555555,
                         0x5555FF, 0x55FF55, 0x55FFFF, 0xFF5555, 0xFF55FF, 0xFFFF55, 0xFFFFFF}));
    v.push_back(builtin("gameboy", "retro", "Nintendo Game Boy (DMG) 4 greens, darkest first",
                        {0x0F380F, 0x306230, 0x8BAC0F, 0x9BBC0F}));
    v.push_back(builtin("c64", "retro",
                        "Commodore 64, Philip Timmermann's \"Pepto\" PAL palette (2001), in VIC-II colour order",
                        {0x000000, 0xFFFFFF, 0x68372B, 0x70A4B2, 0x6F3D86, 0x588D43, 0x352879, 0xB8C76F, 0x6F4F25,
                         0x433900, 0x9A6759, 0x444444, 0x6C6C6C, 0x9AD284, 0x6C5EB5, 0x959595}));
    v.push_back(builtin("pico8", "retro", "PICO-8 fantasy console, its 16 official colours in colour-number order",
                        {0x000000, 0x1D2B53, 0x7E2553, 0x008751, 0xAB5236, 0x5F574F, 0xC2C3C7, 0xFFF1E8, 0xFF004D,
                         0xFFA300, 0xFFEC27, 0x00E436, 0x29ADFF, 0x83769C, 0xFF77A8, 0xFFCCAA}));
    // Operating-system palettes.
    v.push_back(builtin("mac16", "system",
                        "classic Macintosh 16-colour system palette (QuickDraw's 4-bit colour table)",
                        {0xFFFFFF, 0xFBF305, 0xFF6403, 0xDD0907, 0xF20884, 0x4700A5, 0x0000D3, 0x02ABEA, 0x1FB714,
                         0x006412, 0x562C05, 0x90713A, 0xBFBFBF, 0x808080, 0x404040, 0x000000}));
    BuiltinPalette web;
    web.name = "websafe";
    web.group = "system";
    web.description = "web-safe 216 colours: every mix of 00, 33, 66, 99, CC, FF (red slowest, blue fastest)";
    web.palette = webSafe();
    v.push_back(std::move(web));
    // Print: the Neugebauer primaries, what overlapping cyan, magenta and yellow inks make on white paper.
    v.push_back(builtin("cmy8", "print",
                        "the 8 Neugebauer primaries of CMY printing: white, cyan, magenta, yellow, blue, green, red, "
                        "black",
                        {0xFFFFFF, 0x00FFFF, 0xFF00FF, 0xFFFF00, 0x0000FF, 0x00FF00, 0xFF0000, 0x000000}));
    return v;
}

// ---------------------------------------------------------------------------------------------------------------
// Palette files

std::string lowerExtension(const std::string& fileName) {
    const size_t slash = fileName.find_last_of('/');
    const size_t dot = fileName.find_last_of('.');
    if (dot == std::string::npos || (slash != std::string::npos && dot < slash)) return {};
    std::string ext = fileName.substr(dot);
    std::transform(ext.begin(), ext.end(), ext.begin(), [](unsigned char c) { return char(std::tolower(c)); });
    return ext;
}

const char* kSupported = ".hex (RRGGBB a line), .gpl (GIMP), .txt (Paint.NET), .act (Adobe), .pal (JASC)";

enum class Format { Unknown, Hex, Gpl, PaintNet, Act, Jasc };

/// One palette file being parsed: lines, errors naming the file and line, the colours so far.
class Parser {
public:
    Parser(const std::string& fileName, Palette& out) : file_(fileName), out_(out) {}

    Status fileError(const std::string& what) const { return Status::error("palette file '" + file_ + "': " + what); }
    Status lineError(int line, const std::string& what) const {
        return Status::error("palette file '" + file_ + "', line " + std::to_string(line) + ": " + what);
    }
    /// Adds a colour read on `line`; refuses the 257th.
    Status add(int line, Rgb8 c) {
        if (out_.size() >= kMaxPaletteColors)
            return lineError(
                line, "more than " + std::to_string(kMaxPaletteColors) + " colours; a palette holds at most 256");
        out_.colors.push_back(c);
        return Status::ok();
    }
    /// The checks after the last line: at least two colours.
    Status finish() const {
        if (out_.colors.empty()) return fileError("holds no colours");
        if (out_.size() < kMinPaletteColors)
            return fileError("holds only 1 colour; a palette needs at least 2 (up to 256)");
        return Status::ok();
    }

private:
    std::string file_;
    Palette& out_;
};

/// Splits text into lines (LF, CRLF or CR), dropping a UTF-8 byte-order mark.
std::vector<std::string> splitLines(const std::string& bytes) {
    std::vector<std::string> lines;
    size_t i = bytes.compare(0, 3, "\xEF\xBB\xBF") == 0 ? 3 : 0;
    std::string cur;
    for (; i < bytes.size(); ++i) {
        const char c = bytes[i];
        if (c == '\n' || c == '\r') {
            lines.push_back(cur);
            cur.clear();
            if (c == '\r' && i + 1 < bytes.size() && bytes[i + 1] == '\n') ++i;
        } else {
            cur += c;
        }
    }
    if (!cur.empty()) lines.push_back(cur);
    return lines;
}

std::string trim(const std::string& s) {
    size_t a = 0, b = s.size();
    while (a < b && std::isspace((unsigned char)s[a])) ++a;
    while (b > a && std::isspace((unsigned char)s[b - 1])) --b;
    return s.substr(a, b - a);
}

bool allDigits(const std::string& s) {
    return std::all_of(s.begin(), s.end(), [](char c) { return std::isdigit((unsigned char)c) != 0; });
}

bool isHex(char c) { return std::isxdigit((unsigned char)c) != 0; }

bool allHex(const std::string& s, size_t from, size_t n) {
    if (s.size() < from + n) return false;
    for (size_t i = from; i < from + n; ++i)
        if (!isHex(s[i])) return false;
    return true;
}

uint8_t hexByte(const std::string& s, size_t at) { return uint8_t(std::stoul(s.substr(at, 2), nullptr, 16)); }

/// A line quoted for a message: at most 40 characters, control bytes shown as '?'.
std::string shown(const std::string& s) {
    std::string q;
    for (char c : s.substr(0, 40)) q += (unsigned char)c < 32 || (unsigned char)c == 127 ? '?' : c;
    return "'" + q + (s.size() > 40 ? "...'" : "'");
}

/// The end of a colour token on a text line: nothing, or a comment after white space.
bool restIsComment(const std::string& line, size_t from) {
    const std::string rest = trim(line.substr(from));
    return rest.empty() || rest[0] == '#' || rest[0] == ';' || rest.compare(0, 2, "//") == 0 ||
           (from < line.size() && std::isspace((unsigned char)line[from]));
}

/// `.hex`: one RRGGBB (or #RRGGBB, or 0xRRGGBB) a line; blank lines and lines starting with ';', '//' or a '#'
/// that does not begin a colour are comments; a colour may be followed by white space and a name or comment.
Status parseHex(Parser& p, const std::string& bytes) {
    const std::vector<std::string> lines = splitLines(bytes);
    for (size_t i = 0; i < lines.size(); ++i) {
        const int line = int(i + 1);
        const std::string s = trim(lines[i]);
        if (s.empty() || s[0] == ';' || s.compare(0, 2, "//") == 0) continue;
        size_t at = 0;
        if (s[0] == '#') {
            // "#RRGGBB" is a colour; any other line starting with '#' is a comment.
            if (allHex(s, 1, 8) && (s.size() == 9 || std::isspace((unsigned char)s[9])))
                return p.lineError(line, "expected a colour as RRGGBB, got " + shown(s) +
                                             " (eight digits: colours with alpha are not taken)");
            if (!(allHex(s, 1, 6) && (s.size() == 7 || std::isspace((unsigned char)s[7])))) continue;
            at = 1;
        } else if (s.size() > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
            at = 2;
        }
        if (!allHex(s, at, 6) || (s.size() > at + 6 && isHex(s[at + 6])))
            return p.lineError(line, "expected a colour as RRGGBB (six hex digits), got " + shown(s));
        if (!restIsComment(s, at + 6))
            return p.lineError(line, "unexpected text after the colour: " + shown(s.substr(at + 6)));
        if (Status st = p.add(line, {hexByte(s, at), hexByte(s, at + 2), hexByte(s, at + 4)}); !st) return st;
    }
    return p.finish();
}

/// Reads three integers 0..255 from `s`; `rest` gets what follows them.
bool threeBytes(const std::string& s, Rgb8& c, std::string& rest, std::string& why) {
    std::istringstream in(s);
    for (int k = 0; k < 3; ++k) {
        std::string tok;
        if (!(in >> tok)) {
            why = "expected three numbers R G B (0 to 255), found " + std::to_string(k);
            return false;
        }
        if (tok.empty() || tok.size() > 3 ||
            !std::all_of(tok.begin(), tok.end(), [](char ch) { return std::isdigit((unsigned char)ch); })) {
            why = "expected a number 0 to 255, got " + shown(tok);
            return false;
        }
        const int v = std::stoi(tok);
        if (v > 255) {
            why = "value " + tok + " is over 255";
            return false;
        }
        c[size_t(k)] = uint8_t(v);
    }
    std::getline(in, rest);
    rest = trim(rest);
    return true;
}

/// GIMP `.gpl`: "GIMP Palette" on the first line, then optional "Name:" and "Columns:" lines, '#' comments, and
/// one "R G B [name]" row per colour.
Status parseGpl(Parser& p, const std::string& bytes) {
    const std::vector<std::string> lines = splitLines(bytes);
    if (lines.empty() || trim(lines[0]) != "GIMP Palette")
        return p.lineError(1, "a GIMP palette starts with the line 'GIMP Palette', got " +
                                  shown(lines.empty() ? std::string() : trim(lines[0])));
    for (size_t i = 1; i < lines.size(); ++i) {
        const int line = int(i + 1);
        const std::string s = trim(lines[i]);
        if (s.empty() || s[0] == '#') continue;
        if (s.compare(0, 5, "Name:") == 0) continue;
        if (s.compare(0, 8, "Columns:") == 0) {
            const std::string n = trim(s.substr(8));
            if (n.empty() || n.size() > 4 || !allDigits(n))
                return p.lineError(line, "'Columns:' needs a number, got " + shown(n));
            continue;
        }
        Rgb8 c{};
        std::string rest, why;
        if (!threeBytes(s, c, rest, why)) return p.lineError(line, why + " in " + shown(s));
        if (Status st = p.add(line, c); !st) return st;
    }
    return p.finish();
}

/// Paint.NET `.txt`: ';' comments and one AARRGGBB a line (alpha ignored); RRGGBB is taken too.
Status parsePaintNet(Parser& p, const std::string& bytes) {
    const std::vector<std::string> lines = splitLines(bytes);
    for (size_t i = 0; i < lines.size(); ++i) {
        const int line = int(i + 1);
        const std::string s = trim(lines[i]);
        if (s.empty() || s[0] == ';') continue;
        size_t digits = 0;
        while (digits < s.size() && isHex(s[digits])) ++digits;
        if ((digits != 8 && digits != 6) || !restIsComment(s, digits))
            return p.lineError(line, "expected a colour as AARRGGBB (eight hex digits), got " + shown(s));
        const size_t at = digits == 8 ? 2 : 0;
        if (Status st = p.add(line, {hexByte(s, at), hexByte(s, at + 2), hexByte(s, at + 4)}); !st) return st;
    }
    return p.finish();
}

/// JASC `.pal` (Paint Shop Pro, Lospec): "JASC-PAL", "0100", the colour count, then "R G B" lines.
Status parseJasc(Parser& p, const std::string& bytes) {
    const std::vector<std::string> lines = splitLines(bytes);
    if (lines.empty() || trim(lines[0]) != "JASC-PAL") {
        if (bytes.compare(0, 4, "RIFF") == 0)
            return p.fileError(
                "is a Microsoft RIFF palette, which is not supported; export it as .hex, .gpl or JASC .pal");
        return p.lineError(1, "a JASC palette starts with the line 'JASC-PAL'");
    }
    if (lines.size() < 2 || trim(lines[1]) != "0100") return p.lineError(2, "expected the version line '0100'");
    if (lines.size() < 3) return p.lineError(3, "expected the number of colours");
    const std::string n = trim(lines[2]);
    if (n.empty() || n.size() > 4 || !allDigits(n))
        return p.lineError(3, "expected the number of colours, got " + shown(n));
    const int count = std::stoi(n);
    int read = 0;
    for (size_t i = 3; i < lines.size(); ++i) {
        const int line = int(i + 1);
        const std::string s = trim(lines[i]);
        if (s.empty()) continue;
        Rgb8 c{};
        std::string rest, why;
        if (!threeBytes(s, c, rest, why)) return p.lineError(line, why + " in " + shown(s));
        if (!rest.empty() && !allDigits(rest))  // an optional alpha column
            return p.lineError(line, "unexpected text after R G B: " + shown(rest));
        if (Status st = p.add(line, c); !st) return st;
        ++read;
    }
    if (read != count)
        return p.fileError("line 3 announces " + std::to_string(count) + " colours but " + std::to_string(read) +
                           (read == 1 ? " follows" : " follow"));
    return p.finish();
}

/// Adobe `.act`: 256 RGB triples (768 bytes), optionally followed by a big-endian 16-bit count of the colours used
/// and a 16-bit transparent index (772 bytes; the transparent index is not used).
Status parseAct(Parser& p, const std::string& bytes) {
    if (bytes.size() != 768 && bytes.size() != 772)
        return p.fileError("an Adobe colour table is 768 or 772 bytes long, this one is " +
                           std::to_string(bytes.size()));
    int count = 256;
    if (bytes.size() == 772) {
        count = (uint8_t(bytes[768]) << 8) | uint8_t(bytes[769]);
        if (count < 1 || count > 256)
            return p.fileError("the colour count at byte 768 is " + std::to_string(count) + "; it must be 1 to 256");
    }
    for (int k = 0; k < count; ++k)
        if (Status st = p.add(0, {uint8_t(bytes[size_t(3 * k)]), uint8_t(bytes[size_t(3 * k + 1)]),
                                  uint8_t(bytes[size_t(3 * k + 2)])});
            !st)
            return st;
    return p.finish();
}

/// Guesses the format of a file whose extension names none: headers first, then the size of an Adobe table,
/// then the first colour line of the text formats.
Format sniff(const std::string& bytes) {
    const std::string head = bytes.compare(0, 3, "\xEF\xBB\xBF") == 0 ? bytes.substr(3, 64) : bytes.substr(0, 64);
    if (head.compare(0, 12, "GIMP Palette") == 0) return Format::Gpl;
    if (head.compare(0, 8, "JASC-PAL") == 0) return Format::Jasc;
    const bool text = std::all_of(bytes.begin(), bytes.end(), [](char c) {
        const auto u = (unsigned char)c;
        return u >= 32 || u == '\n' || u == '\r' || u == '\t';
    });
    if (!text) return bytes.size() == 768 || bytes.size() == 772 ? Format::Act : Format::Unknown;
    for (const std::string& raw : splitLines(bytes)) {
        const std::string s = trim(raw);
        if (s.empty() || s[0] == ';' || (s[0] == '#' && !allHex(s, 1, 6))) continue;
        size_t at = s[0] == '#' ? 1 : 0, n = 0;
        while (at + n < s.size() && isHex(s[at + n])) ++n;
        if (n == 6) return Format::Hex;
        if (n == 8 && at == 0) return Format::PaintNet;
        return Format::Unknown;
    }
    return Format::Unknown;
}

}  // namespace

const std::vector<BuiltinPalette>& builtinPalettes() {
    static const std::vector<BuiltinPalette> all = makeBuiltins();
    return all;
}

const BuiltinPalette* findBuiltinPalette(const std::string& name) {
    return findNamed("palette", name, builtinPalettes());
}

Status parsePaletteFile(const std::string& fileName, const std::string& bytes, Palette& out) {
    out = Palette{};
    const size_t slash = fileName.find_last_of('/');
    out.name = slash == std::string::npos ? fileName : fileName.substr(slash + 1);
    Parser p(fileName, out);
    const std::string ext = lowerExtension(fileName);
    Format f = ext == ".hex"   ? Format::Hex
               : ext == ".gpl" ? Format::Gpl
               : ext == ".txt" ? Format::PaintNet
               : ext == ".act" ? Format::Act
               : ext == ".pal" ? Format::Jasc
                               : Format::Unknown;
    if (bytes.empty()) return p.fileError("is empty (it holds no colours)");
    if (f == Format::Unknown) f = sniff(bytes);
    // the readers in the order of Format after Unknown
    constexpr Status (*kReaders[])(Parser&, const std::string&) = {parseHex, parseGpl, parsePaintNet, parseAct,
                                                                   parseJasc};
    const Status s = f == Format::Unknown ? p.fileError("not a palette file this program reads" +
                                                        (ext.empty() ? std::string() : " (extension '" + ext + "')") +
                                                        "; supported: " + kSupported)
                                          : kReaders[size_t(f) - 1](p, bytes);
    if (!s) out.colors.clear();
    return s;
}

Status loadPaletteFile(const std::string& path, Palette& out) {
    std::error_code ec;
    if (std::filesystem::exists(path, ec) && !std::filesystem::is_regular_file(path, ec))
        return Status::error("palette file '" + path + "': cannot be read: " +
                             (std::filesystem::is_directory(path, ec) ? "it is a directory" : "not a regular file"));
    std::ifstream in(path, std::ios::binary);
    if (!in) return Status::error("palette file '" + path + "': cannot be read: " + std::strerror(errno));
    in.seekg(0, std::ios::end);
    const std::streamoff size = in.tellg();
    if (size < 0) return Status::error("palette file '" + path + "': cannot be read (not a regular file?)");
    // No palette format is larger than a few tens of kilobytes (256 named colours); refuse anything absurd.
    if (size > (1 << 20))
        return Status::error("palette file '" + path + "': " + std::to_string(size) +
                             " bytes is too large for a palette (at most 256 colours)");
    in.seekg(0);
    std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    if (in.bad()) return Status::error("palette file '" + path + "': read error");
    return parsePaletteFile(path, bytes, out);
}

Status formatPaletteFile(const std::string& fileName, const Palette& p, std::string& bytes) {
    if (Status s = checkPalette(p); !s) return s;
    const std::string ext = lowerExtension(fileName);
    auto hex = [](const Rgb8& c) {
        char buf[8];
        std::snprintf(buf, sizeof buf, "%02x%02x%02x", c[0], c[1], c[2]);
        return std::string(buf);
    };
    bytes.clear();
    if (ext == ".hex") {
        for (const Rgb8& c : p.colors) bytes += hex(c) + "\n";
    } else if (ext == ".gpl") {
        bytes = "GIMP Palette\nName: " + (p.name.empty() ? std::string("palette") : p.name) +
                "\nColumns: " + std::to_string(std::min(p.size(), 16)) + "\n#\n";
        for (const Rgb8& c : p.colors) {
            char buf[32];
            std::snprintf(buf, sizeof buf, "%3d %3d %3d\t#", c[0], c[1], c[2]);
            bytes += buf + hex(c) + "\n";
        }
    } else if (ext == ".txt") {
        bytes = ";paint.net Palette File\n;Colors: " + std::to_string(p.size()) + "\n";
        for (const Rgb8& c : p.colors) {
            std::string line = "FF" + hex(c);
            std::transform(line.begin(), line.end(), line.begin(),
                           [](unsigned char ch) { return char(std::toupper(ch)); });
            bytes += line + "\n";
        }
    } else if (ext == ".pal") {
        bytes = "JASC-PAL\n0100\n" + std::to_string(p.size()) + "\n";
        for (const Rgb8& c : p.colors)
            bytes += std::to_string(c[0]) + " " + std::to_string(c[1]) + " " + std::to_string(c[2]) + "\n";
    } else if (ext == ".act") {
        bytes.assign(772, '\0');
        for (int k = 0; k < p.size(); ++k)
            for (int c = 0; c < 3; ++c) bytes[size_t(3 * k + c)] = char(p.colors[size_t(k)][size_t(c)]);
        bytes[768] = char(p.size() >> 8);
        bytes[769] = char(p.size() & 0xFF);
        bytes[770] = bytes[771] = char(0xFF);  // no transparent colour
    } else {
        return Status::error("cannot write palette '" + fileName + "': unknown extension '" + ext +
                             "'; use .hex, .gpl, .txt (Paint.NET), .act or .pal (JASC)");
    }
    return Status::ok();
}

Status savePaletteFile(const std::string& path, const Palette& p) {
    std::string bytes;
    if (Status s = formatPaletteFile(path, p, bytes); !s) return s;
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    if (!out) return Status::error("cannot write palette '" + path + "': " + std::strerror(errno));
    out.write(bytes.data(), std::streamsize(bytes.size()));
    out.close();
    if (!out) return Status::error("cannot write palette '" + path + "': write failed");
    return Status::ok();
}

Status parseAutoPaletteSpec(const std::string& spec, int& n) {
    n = 0;
    if (spec.compare(0, 5, "auto:") != 0) return Status::ok();
    const std::string num = spec.substr(5);
    if (num.empty() || num.size() > 4 || !allDigits(num) || std::stoi(num) < 2 || std::stoi(num) > kMaxPaletteColors)
        return Status::error("palette '" + spec + "': auto:N needs a number of colours N from 2 to 256");
    n = std::stoi(num);
    return Status::ok();
}

std::string paletteFile(const std::string& spec) {
    int n = 0;
    if (spec.empty() || findBuiltinPalette(spec) || (parseAutoPaletteSpec(spec, n) && n > 0)) return {};
    return spec;
}

Status resolvePalette(const std::string& spec, const Image* image, Palette& out) {
    if (spec.empty())
        return Status::error("empty palette name; give a built-in name (--list-palettes), auto:N or a file");
    if (const BuiltinPalette* b = findBuiltinPalette(spec)) {
        out = b->palette;
        return Status::ok();
    }
    int n = 0;
    if (Status s = parseAutoPaletteSpec(spec, n); !s) return s;
    if (n > 0) {
        if (!image) return Status::error("palette '" + spec + "' is made from the image, and there is none");
        return autoPalette(*image, n, out);
    }
    // A name with no path and no extension that names no file is a mistyped built-in name. (Only looked up, not
    // opened: opening a FIFO would wait for a writer.)
    std::error_code ec;
    const bool exists = std::filesystem::symlink_status(spec, ec).type() != std::filesystem::file_type::not_found;
    if (!exists && spec.find('/') == std::string::npos && lowerExtension(spec).empty()) {
        std::string names;
        std::vector<std::string> list;
        for (const BuiltinPalette& b : builtinPalettes()) {
            names += (names.empty() ? "" : ", ") + b.name;
            list.push_back(b.name);
        }
        return Status::error("unknown palette '" + spec + "'" + didYouMean(spec, list) + ": not a built-in palette (" +
                             names + "), auto:N, or an existing palette file");
    }
    return loadPaletteFile(spec, out);
}

}  // namespace halftone
