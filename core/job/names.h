#pragma once
// \brief How names typed by a person are matched: methods, variants, kernels, palettes and choices are found without
// regard to case, '-', '_' or spaces ("FloydSteinberg", "floyd_steinberg"), through one table of common aliases
// ("fs", "jjn"), and a name that matches nothing gets the nearest one as a suggestion (edit distance). The CLI,
// presets and the studio all look names up through here.
#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace halftone {

/// \brief The form names are compared in: lower case, without '-', '_', '.' and spaces.
std::string nameKey(std::string_view name);

/// \brief Edit distance between two strings: insertions, deletions, substitutions and swaps of neighbours, each 1
/// (optimal string alignment).
size_t editDistance(std::string_view a, std::string_view b);

/// \brief The name `alias` stands for among `kind`'s aliases ("kernel": "fs" -> "floyd-steinberg"; "method",
/// "palette"), compared by nameKey; empty when it is none.
std::string aliasTarget(std::string_view kind, std::string_view alias);

/// \brief The candidate `name` means: the one with the same nameKey, or the target of an alias of `kind`; empty when
/// none.
std::string matchName(std::string_view kind, std::string_view name, const std::vector<std::string>& candidates);

/// \brief The candidate nearest to `name` (edit distance of the nameKeys, at most a third of the name's length and
/// at least 1; or `name` a prefix of a candidate); empty when none is that near.
std::string nearestName(std::string_view name, const std::vector<std::string>& candidates);

/// \brief " (did you mean 'X'?)" for the nearest candidate, or "" when none is near; `quote` = false writes X bare
/// (options: "did you mean --method?").
std::string didYouMean(std::string_view name, const std::vector<std::string>& candidates, bool quote = true);

/// \brief The item of `items` that `name` means (matchName among their names, with `kind`'s aliases); null when none.
/// `items` is the one list of its type (a process-wide table: kernels(), builtinPalettes()).
template <class Items>
const typename Items::value_type* findNamed(std::string_view kind, std::string_view name, const Items& items) {
    static const std::vector<std::string> names = [&] {
        std::vector<std::string> v;
        for (const auto& t : items) v.push_back(t.name);
        return v;
    }();
    const std::string match = matchName(kind, name, names);
    for (const auto& t : items)
        if (!match.empty() && t.name == match) return &t;
    return nullptr;
}

/// \brief One spelling of an enumeration's value in a table of names: a value's first entry is its name, later
/// entries are aliases it is also parsed from.
template <class E>
struct EnumName {
    E value;
    const char* name;
};

/// \brief The name of `value` in `table`: its first entry (the table's first name when it has none).
template <class E, size_t N>
constexpr const char* enumName(const EnumName<E> (&table)[N], E value) {
    for (const EnumName<E>& e : table)
        if (e.value == value) return e.name;
    return table[0].name;
}

/// \brief The value spelled `text` (one of its names exactly) into `out`; false when none.
template <class E, size_t N>
bool parseEnumName(const EnumName<E> (&table)[N], std::string_view text, E& out) {
    for (const EnumName<E>& e : table)
        if (text == e.name) {
            out = e.value;
            return true;
        }
    return false;
}

}  // namespace halftone
