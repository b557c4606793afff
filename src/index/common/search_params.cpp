#include "index/common/search_params.hpp"

#include <string>

#include "quiver/error.hpp"

namespace quiver::index {

void check_search_params(const SearchParams& p) {
  if (p.allow == nullptr && p.allow_count > 0) {
    throw Error(ErrorCode::InvalidArgument, "allow is null but allow_count is not zero");
  }
  if (p.allow_bits == nullptr && p.allow_bits_size > 0) {
    throw Error(ErrorCode::InvalidArgument, "allow_bits is null but allow_bits_size is not zero");
  }
  if (p.allow != nullptr && p.allow_bits != nullptr) {
    throw Error(ErrorCode::InvalidArgument, "allow and allow_bits are both set (give the ids one way)");
  }
}

size_t allow_bits_count(const SearchParams& p) noexcept {
  if (p.allow_bits == nullptr) return 0;
  const size_t full = p.allow_bits_size / 64, rest = p.allow_bits_size % 64;
  size_t count = 0;
  for (size_t w = 0; w < full; ++w) count += size_t(__builtin_popcountll(p.allow_bits[w]));
  if (rest != 0) count += size_t(__builtin_popcountll(p.allow_bits[full] & ((uint64_t(1) << rest) - 1)));
  return count;
}

size_t rerank_depth(const SearchParams& p, size_t kind_default, Rescoring rescoring, const char* missing) {
  if (!p.rerank) return rescoring == Rescoring::impossible ? 0 : kind_default;
  if (*p.rerank > 0 && rescoring == Rescoring::impossible) {
    throw Error(ErrorCode::InvalidArgument, std::string("rerank needs ") + missing);
  }
  return *p.rerank;
}

}  // namespace quiver::index
