#include "cli/arguments.hpp"

#include <string>

namespace quiver::cli {

CLI::Validator count_in(uint64_t lo, uint64_t hi) {
  const std::string range = "[" + std::to_string(lo) + ", " + std::to_string(hi) + "]";
  return CLI::Validator(
      [lo, hi, range](std::string& text) -> std::string {
        const std::string expected = "expected a whole number in " + range + ", got '" + text + "'";
        if (text.empty()) return expected;
        uint64_t value = 0;
        for (char c : text) {
          if (c < '0' || c > '9') return expected;
          const uint64_t digit = uint64_t(c - '0');
          if (value > (UINT64_MAX - digit) / 10) return expected;  // would overflow
          value = value * 10 + digit;
        }
        if (value < lo || value > hi) return expected;
        return std::string();
      },
      "INT in " + range);
}

void add_rerank_option(CLI::App& command, std::optional<size_t>& rerank) {
  command
      .add_option_function<size_t>(
          "--rerank", [&rerank](const size_t& depth) { rerank = depth; },
          "Exact re-scoring depth, any kind: re-score the best k x N candidates with the kept f32 vectors "
          "(0 = off; default: quantized 0, hnsw sq8 its whole final beam, i.e. every candidate it found)")
      ->check(non_negative());
  command.add_flag_callback("--no-rerank", [&rerank] { rerank = 0; }, "The same as --rerank 0");
}

}  // namespace quiver::cli
