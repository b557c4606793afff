// The per-call parameter checks and the rerank contract (quiver/search_params.hpp), written
// once for every index kind.
#pragma once

#include <cstddef>
#include <cstdint>

#include "quiver/search_params.hpp"

namespace quiver::index {

// Whether a kind can re-score candidates exactly.
enum class Rescoring {
  exact_already,  // its distances are exact (flat, HNSW f32): a depth is accepted, changes nothing
  kept_vectors,   // approximate distances and something to re-score with (kept f32 vectors;
                  // the quantised refine plane): a depth re-scores
  impossible,     // approximate distances, no f32 vectors: a depth r >= 1 is rejected
};

// allow == nullptr with allow_count > 0, allow_bits == nullptr with allow_bits_size > 0, and
// both an allow list and an allow bitmap are Error(InvalidArgument). Every kind calls this.
void check_search_params(const SearchParams& p);

// Whether a search is limited to a set of ids it can count: an allow list or an allow bitmap
// (a predicate cannot be counted).
inline bool has_allow_set(const SearchParams& p) noexcept { return p.allow != nullptr || p.allow_bits != nullptr; }

// The allow bitmap's test: false past its end (so for kNoId, a dead slot's id, too).
inline bool bits_admit(const SearchParams& p, uint64_t id) noexcept {
  return id < p.allow_bits_size && ((p.allow_bits[id >> 6] >> (id & 63)) & 1u) != 0;
}

// The allow bitmap's set bits below allow_bits_size: at least the ids it admits that an index
// holds (more when it names ids the index does not have).
size_t allow_bits_count(const SearchParams& p) noexcept;

// The rerank depth a search runs with: p.rerank, or `kind_default` when unset (0 = off,
// kRerankAll = every candidate). Throws Error(InvalidArgument) "rerank needs <missing>" in
// every kind for a depth r >= 1 that `rescoring` is impossible for — only when it was asked
// for: an unset rerank never throws (an impossible default is 0).
inline constexpr const char* kNeedsKeptVectors =
    "the f32 vectors, but this index was created with keep_vectors = false";
size_t rerank_depth(const SearchParams& p, size_t kind_default, Rescoring rescoring,
                    const char* missing = kNeedsKeptVectors);

// k * depth candidates, saturating at SIZE_MAX (kRerankAll, or a huge depth, never wraps).
inline size_t rerank_candidates(size_t k, size_t depth) noexcept {
  return depth != 0 && k > SIZE_MAX / depth ? SIZE_MAX : k * depth;
}

}  // namespace quiver::index
