#include "cli/arguments.hpp"

#include <string>

namespace quiver::cli {

std::optional<uint64_t> parse_count(const std::string& text) {
  if (text.empty()) return std::nullopt;
  uint64_t value = 0;
  for (char c : text) {
    if (c < '0' || c > '9') return std::nullopt;
    const uint64_t digit = uint64_t(c - '0');
    if (value > (UINT64_MAX - digit) / 10) return std::nullopt;  // would overflow
    value = value * 10 + digit;
  }
  return value;
}

CLI::Validator count_in(uint64_t lo, uint64_t hi) {
  const std::string range =
      hi == UINT64_MAX ? ">= " + std::to_string(lo) : "in [" + std::to_string(lo) + ", " + std::to_string(hi) + "]";
  return CLI::Validator(
      [lo, hi, range](std::string& text) -> std::string {
        const std::optional<uint64_t> value = parse_count(text);
        if (!value || *value < lo || *value > hi) return "expected a whole number " + range + ", got '" + text + "'";
        return std::string();
      },
      "INT " + range);
}

CLI::Validator auto_or_count_in(uint64_t lo, uint64_t hi) {
  const std::string range = "[" + std::to_string(lo) + ", " + std::to_string(hi) + "]";
  return CLI::Validator(
      [lo, hi, range](std::string& text) -> std::string {
        if (text == "auto") return std::string();
        const std::optional<uint64_t> value = parse_count(text);
        if (!value || *value < lo || *value > hi) {
          return "expected auto or a whole number in " + range + ", got '" + text + "'";
        }
        return std::string();
      },
      "auto|INT in " + range);
}

CLI::Validator plain_file_name() {
  return CLI::Validator(
      [](std::string& text) -> std::string {
        const bool plain =
            !text.empty() && text != "." && text != ".." && text.find_first_of("/\\") == std::string::npos;
        if (plain) return std::string();
        return "expected a plain file name (not empty, no '/' or '\\', not '.' or '..'), got '" + text + "'";
      },
      "NAME");
}

void add_rerank_option(CLI::App& command, std::optional<size_t>& rerank) {
  command
      .add_option_function<size_t>(
          "--rerank", [&rerank](const size_t& depth) { rerank = depth; },
          "Exact re-scoring depth, any kind: re-score the best k x N candidates with the kept f32 vectors "
          "(0 = off; default: quantized 0, hnsw sq8 its whole final beam, i.e. every candidate it found)")
      ->check(non_negative());
  command.add_flag_callback(
      "--no-rerank", [&rerank] { rerank = 0; }, "The same as --rerank 0");
}

}  // namespace quiver::cli
