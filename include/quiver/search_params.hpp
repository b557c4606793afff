// The per-call search parameters every index kind shares. Each kind's own struct
// (FlatSearchParams, QuantizedSearchParams, HnswSearchParams) extends this one with its knobs;
// a field here means the same thing in every kind, and in the JS package and the CLI.
//
// Parameters are per call and never index state (nothing here is stored in index files), so
// concurrent searches with different parameters do not interfere.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>

namespace quiver {

// A rerank depth with no limit: every candidate the approximate stage keeps is re-scored
// (HNSW: the whole final beam; quantised: every vector, i.e. an exact search).
inline constexpr size_t kRerankAll = SIZE_MAX;

struct SearchParams {
  // If non-null, only these ids can be returned (ids not in the index, and repeats, are
  // ignored). A non-null empty list admits nothing; allow == nullptr with allow_count > 0 is
  // Error(InvalidArgument).
  const uint64_t* allow = nullptr;
  size_t allow_count = 0;

  // If non-null, an allow bitmap over ids instead: only ids whose bit is set (bit id % 64 of
  // allow_bits[id / 64]) can be returned, and no id at or past allow_bits_size. The same
  // answers as an allow list of those ids, for filters that admit many: an allow list costs a
  // lookup per listed id before the search starts, the bitmap nothing — each kind tests the
  // bit of a vector when it reaches it. Its set bits count as the allowed ids where a kind
  // counts them (the partitioned index's stop rule, HNSW's exact scoring of a few), so bits of
  // ids the index does not hold make a search slower, never wrong. Setting both allow and
  // allow_bits, or allow_bits == nullptr with allow_bits_size > 0, is Error(InvalidArgument).
  const uint64_t* allow_bits = nullptr;
  size_t allow_bits_size = 0;

  // If non-null, only ids for which predicate(predicate_ctx, id) is true can be returned
  // (combined with `allow` or `allow_bits`: both must admit an id). A C++ filter with no per-call setup, called
  // only for ids about to enter the results (at most once per id per search). It may run on
  // several threads at once (search_batch, concurrent searches), must not throw and must not
  // call this index's add / remove / compact. An approximate index still traverses rejected
  // ids and cannot know how many ids a predicate admits, so a selective predicate gets worse
  // recall than the same ids as `allow` (which the partitioned index searches until it has
  // scored as many allowed vectors as an unfiltered search scores, and HNSW scores exactly
  // when few); an HNSW predicate that admits few can leave fewer than k results.
  bool (*predicate)(const void* ctx, uint64_t id) = nullptr;
  const void* predicate_ctx = nullptr;

  // Exact re-scoring depth, one meaning in every kind:
  //   0       off: rank by the index's own (approximate) distances.
  //   r >= 1  take the best k * r candidates by the approximate distance, re-score them exactly
  //           with the kept f32 vectors and return the best k (with exact distances; a
  //           quantised index without kept vectors re-scores from its refine plane instead).
  //   kRerankAll  every candidate (see above).
  //   unset   the kind's default: quantised 0; HNSW sq8 with kept vectors kRerankAll (its
  //           final beam, as before the depth existed), otherwise 0; flat has nothing to do.
  // An index whose approximate distances are not exact and that keeps no f32 vectors
  // (quantised or HNSW sq8 with keep_vectors = false) rejects r >= 1 with
  // Error(InvalidArgument). Where the distances are already exact (flat, HNSW f32) re-scoring
  // changes nothing; HNSW still widens its beam to k * r (see HnswSearchParams::ef).
  std::optional<size_t> rerank;
};

}  // namespace quiver
