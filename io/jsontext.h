// The shared parts of the JSON files halftone reads (presets, target files): reading a small file whole, values as
// messages show them, and the last line of defence around a parse. Private to halftone_io (nlohmann-json is).
#pragma once

#include <nlohmann/json.hpp>

#include <cstdint>
#include <exception>
#include <string>

#include "core/status.h"

namespace halftone::io::detail {

/// \brief Reads the small file `path` whole (text, or the bytes of a binary file such as an ICC profile); `what` names
/// the kind of file in errors ("preset", "target file", "ICC profile"): an error when it is not a regular file,
/// cannot be read or is larger than `limit` bytes (whole MiB).
Status readSmallText(const std::string& path, const std::string& what, std::string& text, uint64_t limit = 1u << 20);

/// \brief A JSON value as a message shows it: at most 60 characters (a file may hold a megabyte in one value).
std::string shownJson(const nlohmann::json& v);

/// \brief The part of a parse error's text from "syntax error" on (without the library's exception prefix).
std::string syntaxMessage(const nlohmann::json::exception& e);

/// \brief Runs `parse` (which checks every value before use); an exception the JSON library still throws becomes an
/// error with the context `ctx` ("preset 'a.json'").
template <class Parse>
Status guardedParse(const std::string& ctx, Parse&& parse) {
    try {
        return parse();
    } catch (const std::exception& e) {
        return Status::error(ctx + ": " + e.what());
    }
}

}  // namespace halftone::io::detail
