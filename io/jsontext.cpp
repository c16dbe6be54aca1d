#include "io/jsontext.h"

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>

namespace halftone::io::detail {

Status readSmallText(const std::string& path, const std::string& what, std::string& text, uint64_t limit) {
    const std::string named = what + " '" + path + "'";
    std::error_code ec;
    if (std::filesystem::exists(path, ec) && !std::filesystem::is_regular_file(path, ec))
        return Status::error("cannot read " + named + ": not a regular file");
    std::ifstream in(path, std::ios::binary);
    if (!in) return Status::error("cannot read " + named + ": " + std::strerror(errno));
    text.clear();
    char buf[65536];
    while (in.read(buf, sizeof buf) || in.gcount() > 0) {
        text.append(buf, size_t(in.gcount()));
        if (text.size() > limit)
            return Status::error(named + " is larger than " + std::to_string(limit >> 20) + " MiB: not " +
                                 (std::string("AEIOUaeiou").find(what[0]) == std::string::npos ? "a " : "an ") + what);
    }
    if (in.bad()) return Status::error("cannot read " + named + ": read failed");
    return Status::ok();
}

std::string shownJson(const nlohmann::json& v) {
    std::string t = v.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
    if (t.size() > 60) t = t.substr(0, 57) + "...";
    return t;
}

std::string syntaxMessage(const nlohmann::json::exception& e) {
    std::string what = e.what();
    if (const size_t p = what.find("syntax error"); p != std::string::npos) what = what.substr(p);
    return what;
}

}  // namespace halftone::io::detail
