// The index kinds behind `quiver build`, `search`, `info` and `compare`. Each kind is one
// CliIndex implementation.
#include <string>

#include "cli/common.hpp"
#include "io/file.hpp"
#include "io/flat_format.hpp"
#include "io/hnsw_format.hpp"
#include "io/quantized_format.hpp"
#include "quiver/error.hpp"
#include "parallel/thread_pool.hpp"
#include "quiver/flat_index.hpp"
#include "quiver/hnsw_index.hpp"
#include "quiver/quantized_index.hpp"

namespace quiver::cli {
namespace {

class FlatCliIndex final : public CliIndex {
 public:
  explicit FlatCliIndex(FlatIndex index) : index_(std::move(index)) {}
  IndexKind kind() const override { return IndexKind::flat; }
  size_t dim() const override { return index_.dim(); }
  size_t size() const override { return index_.size(); }
  Metric metric() const override { return index_.metric(); }
  Isa isa() const override { return index_.isa(); }
  size_t memory_bytes() const override { return index_.memory_bytes(); }
  std::string params() const override { return "exact"; }
  void reserve(size_t n) override { index_.reserve(n); }
  void add(const uint64_t* ids, const float* vectors, size_t n) override { index_.add(ids, vectors, n); }
  size_t search(const float* query, const SearchParams& p, Neighbor* out) const override {
    return index_.search(query, p.k, out);
  }
  void save(const std::string& path) const override { index_.save(path); }

 private:
  FlatIndex index_;
};

class QuantizedCliIndex final : public CliIndex {
 public:
  explicit QuantizedCliIndex(QuantizedIndex index) : index_(std::move(index)) {}
  IndexKind kind() const override { return IndexKind::quantized; }
  size_t dim() const override { return index_.dim(); }
  size_t size() const override { return index_.size(); }
  Metric metric() const override { return index_.metric(); }
  Isa isa() const override { return index_.isa(); }
  size_t memory_bytes() const override { return index_.memory_bytes(); }
  std::string params() const override {
    return std::to_string(index_.bits()) + " bits, seed " + std::to_string(index_.seed()) +
           (index_.keeps_vectors() ? ", f32 vectors kept for rerank" : ", codes only (no rerank)");
  }
  void reserve(size_t) override {}
  void add(const uint64_t* ids, const float* vectors, size_t n) override { index_.add(ids, vectors, n); }
  size_t search(const float* query, const SearchParams& p, Neighbor* out) const override {
    QuantizedSearchParams qp;
    qp.rerank = p.rerank;
    return index_.search(query, p.k, out, qp);
  }
  void save(const std::string& path) const override { index_.save(path); }

 private:
  QuantizedIndex index_;
};

class HnswCliIndex final : public CliIndex {
 public:
  // threads: pool workers that add() may use (0 = all). One worker links the nodes in batch
  // order, so the graph depends only on the seed and the data (quiver/hnsw_index.hpp).
  HnswCliIndex(HnswIndex index, size_t threads) : index_(std::move(index)), threads_(threads) {}
  IndexKind kind() const override { return IndexKind::hnsw; }
  size_t dim() const override { return index_.dim(); }
  size_t size() const override { return index_.size(); }
  Metric metric() const override { return index_.metric(); }
  Isa isa() const override { return index_.isa(); }
  size_t memory_bytes() const override { return index_.memory_bytes(); }
  std::string params() const override {
    return "M " + std::to_string(index_.M()) + ", efConstruction " + std::to_string(index_.ef_construction()) +
           ", efSearch " + std::to_string(index_.ef_search()) + ", seed " + std::to_string(index_.seed()) +
           ", storage " + hnsw_storage_name(index_.storage()) +
           (index_.storage() == HnswStorage::f32 ? "" : index_.keeps_vectors() ? " + f32 vectors for rerank" : " only") +
           ", top level " + std::to_string(index_.max_level()) + ", " + std::to_string(index_.bytes_per_vector()) +
           " bytes per vector";
  }
  void reserve(size_t n) override { index_.reserve(n); }
  void add(const uint64_t* ids, const float* vectors, size_t n) override {
    const parallel::WorkerLimit limit(threads_);
    index_.add(ids, vectors, n);
  }
  size_t search(const float* query, const SearchParams& p, Neighbor* out) const override {
    HnswSearchParams hp;
    hp.ef = p.ef;
    hp.rerank = p.rerank;
    return index_.search(query, p.k, out, hp);
  }
  void save(const std::string& path) const override { index_.save(path); }

 private:
  HnswIndex index_;
  size_t threads_;
};

[[noreturn]] void not_available(IndexKind kind) {
  throw Error(ErrorCode::UnknownIndexKind, std::string("the ") + index_kind_name(kind) +
                                               " index is not available yet in this build of quiver");
}

Isa choose_isa(const std::string& isa) { return isa.empty() ? active_isa() : parse_isa(isa); }

}  // namespace

std::unique_ptr<CliIndex> make_index(const BuildParams& p) {
  switch (p.kind) {
    case IndexKind::flat:
      return std::make_unique<FlatCliIndex>(FlatIndex({p.dim, p.metric}, choose_isa(p.isa)));
    case IndexKind::quantized: {
      if (p.bits < 0) throw Error(ErrorCode::InvalidArgument, "bits must be 2 or 4, got " + std::to_string(p.bits));
      // dim 0 means "not read yet": validate the other options with a placeholder dimension.
      const QuantizedIndexOptions o{p.dim ? p.dim : 1, p.metric, unsigned(p.bits), p.seed, p.keep_vectors};
      return std::make_unique<QuantizedCliIndex>(QuantizedIndex(o, choose_isa(p.isa)));
    }
    case IndexKind::hnsw: {
      // Enough pool workers for --threads (the pool is created on first use, after this).
      if (p.threads > parallel::thread_count()) parallel::set_thread_count(p.threads);
      HnswIndexOptions o;
      o.dim = p.dim ? p.dim : 1;  // 0: not read yet, validate the rest with a placeholder
      o.metric = p.metric;
      o.M = p.M;
      o.ef_construction = p.ef_construction;
      o.ef_search = p.ef_search;
      o.seed = p.seed;
      o.storage = parse_hnsw_storage(p.storage);
      o.keep_vectors = p.keep_vectors;
      return std::make_unique<HnswCliIndex>(HnswIndex(o, choose_isa(p.isa)), p.threads);
    }
  }
  not_available(p.kind);
}

std::unique_ptr<CliIndex> load_index_file(const std::string& path, const std::string& isa) {
  io::MappedFile file(path);
  try {
    const io::Reader reader(file.data(), file.size());
    switch (reader.header().kind) {
      case IndexKind::flat:
        return std::make_unique<FlatCliIndex>(io::load_flat(reader, choose_isa(isa)));
      case IndexKind::quantized:
        return std::make_unique<QuantizedCliIndex>(io::load_quantized(reader, choose_isa(isa)));
      case IndexKind::hnsw:
        return std::make_unique<HnswCliIndex>(io::load_hnsw(reader, choose_isa(isa)), 1);
    }
    not_available(reader.header().kind);
  } catch (const Error& e) {
    throw Error(e.code(), path + ": " + e.what());
  }
}

}  // namespace quiver::cli
