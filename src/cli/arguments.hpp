// Checks for the CLI's numeric options, run by CLI11 on the text before it is converted, so a
// bad value is a usage error (exit 2) like any other CLI11 parse error.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>

#include <CLI/CLI.hpp>

namespace quiver::cli {

// A whole number written in decimal digits, in [lo, hi]. CLI11 2.1 converts "-1" into a size_t
// as 2^64 - 1 (and `search -k -1` then tried to allocate that many results): digits only.
// hi = UINT64_MAX: no upper bound (the message says ">= lo").
CLI::Validator count_in(uint64_t lo, uint64_t hi);

// The same digits-only parse (nullopt: empty, not digits, or beyond 2^64 - 1).
std::optional<uint64_t> parse_count(const std::string& text);

// "auto" or a whole number in [lo, hi] (build --lists).
CLI::Validator auto_or_count_in(uint64_t lo, uint64_t hi);

// A file name without a directory part: not empty, no '/' or '\', not "." or ".." (gen
// --name, which is joined to -o and must not write outside it).
CLI::Validator plain_file_name();

// Neighbours per query: at least 1 and below 2^32, the same bounds as the library's k.
inline CLI::Validator k_range() { return count_in(1, 4294967295u); }

// Any non-negative count (sizes, seeds, beam widths: the library checks their own limits).
inline CLI::Validator non_negative() { return count_in(0, UINT64_MAX); }

// A count that must be at least 1 (gen --rows: 0 would otherwise mean "the default").
inline CLI::Validator positive() { return count_in(1, UINT64_MAX); }

// Threads the CLI starts itself: 0 (the default choice) .. 1024.
inline CLI::Validator thread_count() { return count_in(0, 1024); }

// --rerank N (an exact re-scoring depth, the same meaning for every kind; unset = the kind's
// default) and --no-rerank (= --rerank 0, kept for scripts written when HNSW's rerank was a switch).
void add_rerank_option(CLI::App& command, std::optional<size_t>& rerank);

}  // namespace quiver::cli
