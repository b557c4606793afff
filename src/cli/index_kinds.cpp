// The index kinds behind `quiver build`, `search`, `info` and `compare`: making an empty index
// of the kind asked for, loading any file, and the one build knob that is not an index option
// (HNSW's build threads). Everything else goes through quiver::AnyIndex.
#include <string>

#include "cli/common.hpp"
#include "parallel/thread_pool.hpp"
#include "quiver/any_index.hpp"
#include "quiver/error.hpp"

namespace quiver::cli {
namespace {

Isa choose_isa(const std::string& isa) { return isa.empty() ? active_isa() : parse_isa(isa); }

}  // namespace

std::unique_ptr<AnyIndex> make_index(const BuildParams& p) {
  // dim 0 means "not read yet": validate the other options with a placeholder dimension.
  const size_t dim = p.dim ? p.dim : 1;
  switch (p.kind) {
    case IndexKind::flat:
      return make_any_index(FlatIndex({dim, p.metric}, choose_isa(p.isa)));
    case IndexKind::quantized: {
      if (p.bits < 0) throw Error(ErrorCode::InvalidArgument, "bits must be 2 or 4, got " + std::to_string(p.bits));
      QuantizedIndexOptions o{dim, p.metric, unsigned(p.bits), p.seed, p.keep_vectors};
      o.refine_bits = p.refine_bits;
      o.lists = p.lists;
      return make_any_index(QuantizedIndex(o, choose_isa(p.isa)));
    }
    case IndexKind::hnsw: {
      // Enough pool workers for --threads (the pool is created on first use, after this).
      if (p.threads > parallel::thread_count()) parallel::set_thread_count(p.threads);
      HnswIndexOptions o;
      o.dim = dim;
      o.metric = p.metric;
      o.M = p.M;
      o.ef_construction = p.ef_construction;
      o.ef_search = p.ef_search;
      o.seed = p.seed;
      o.storage = parse_hnsw_storage(p.storage);
      o.keep_vectors = p.keep_vectors;
      o.neighbor_codes = p.neighbor_codes;
      return make_any_index(HnswIndex(o, choose_isa(p.isa)));
    }
  }
  throw Error(ErrorCode::UnknownIndexKind, std::string("the ") + index_kind_name(p.kind) +
                                               " index is not available yet in this build of quiver");
}

std::unique_ptr<AnyIndex> load_index_file(const std::string& path, const std::string& isa) {
  return load_any_index_file(path, choose_isa(isa));
}

void add_vectors(AnyIndex& index, const uint64_t* ids, const float* vectors, size_t n, size_t threads) {
  if (index.kind() == IndexKind::hnsw) {
    const parallel::WorkerLimit limit(threads);
    index.add(ids, vectors, n);
  } else {
    index.add(ids, vectors, n);
  }
}

}  // namespace quiver::cli
