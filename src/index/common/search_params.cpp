#include "index/common/search_params.hpp"

#include <string>

#include "quiver/error.hpp"

namespace quiver::index {

void check_search_params(const SearchParams& p) {
  if (p.allow == nullptr && p.allow_count > 0) {
    throw Error(ErrorCode::InvalidArgument, "allow is null but allow_count is not zero");
  }
}

size_t rerank_depth(const SearchParams& p, size_t kind_default, Rescoring rescoring, const char* missing) {
  if (!p.rerank) return rescoring == Rescoring::impossible ? 0 : kind_default;
  if (*p.rerank > 0 && rescoring == Rescoring::impossible) {
    throw Error(ErrorCode::InvalidArgument, std::string("rerank needs ") + missing);
  }
  return *p.rerank;
}

}  // namespace quiver::index
