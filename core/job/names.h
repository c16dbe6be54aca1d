#pragma once
// \brief How names typed by a person are matched: methods, variants, kernels, palettes and choices are found without
// regard to case, '-', '_' or spaces ("FloydSteinberg", "floyd_steinberg"), through one table of common aliases
// ("fs", "jjn"), and a name that matches nothing gets the nearest one as a suggestion (edit distance). The CLI,
// presets and the studio all look names up through here.
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

}  // namespace halftone
