// The HNSW kind for the generic parts of quiver: its registry entry (file loading, the
// streaming decoder, an empty index from generic options) and its AnyIndex overloads.
#include "index/hnsw/hnsw_kind.hpp"

#include "index/hnsw/hnsw_format.hpp"

namespace quiver {

HnswSearchParams kind_params(const HnswIndex&, const AnySearchParams& p) {
  HnswSearchParams out;
  static_cast<SearchParams&>(out) = p;
  out.ef = p.ef;
  return out;
}

std::string describe(const HnswIndex& index) {
  const char* kept = index.storage() == HnswStorage::f32 ? ""
                     : index.keeps_vectors()             ? " + f32 vectors for rerank"
                                                         : " only";
  return "M " + std::to_string(index.M()) + ", efConstruction " + std::to_string(index.ef_construction()) +
         ", efSearch " + std::to_string(index.ef_search()) + ", seed " + std::to_string(index.seed()) + ", storage " +
         hnsw_storage_name(index.storage()) + kept + (index.neighbor_codes() ? ", neighbour codes" : "") +
         ", top level " + std::to_string(index.max_level()) + ", " + std::to_string(index.bytes_per_vector()) +
         " bytes per vector";
}

namespace {

class HnswSectionDecoder final : public SectionDecoder {
 public:
  HnswSectionDecoder(const io::Head& head, Isa isa) : decoder_(head, isa) {}
  void feed(uint32_t tag, const uint8_t* data, size_t n) override { decoder_.feed(tag, data, n); }
  std::unique_ptr<AnyIndex> finish() override { return make_any_index(decoder_.finish()); }

 private:
  io::HnswDecoder decoder_;
};

std::unique_ptr<AnyIndex> load(const io::Reader& reader, Isa isa) { return make_any_index(io::load_hnsw(reader, isa)); }

// The node storage grows with the rows that arrive, whatever the stream's length.
std::unique_ptr<SectionDecoder> open(const io::Head& head, Isa isa, const StreamHints&) {
  return std::make_unique<HnswSectionDecoder>(head, isa);
}

constexpr const char* kKnobs[] = {"M",       "ef_construction", "ef_search",      "seed",
                                  "storage", "keep_vectors",    "neighbor_codes", nullptr};

std::unique_ptr<AnyIndex> create(const KindOptions& o) {
  check_knobs(hnsw_kind, o);
  HnswIndexOptions h;
  h.dim = o.dim;
  h.metric = o.metric;
  h.M = size_t(knob_uint(o, "M", h.M));
  h.ef_construction = size_t(knob_uint(o, "ef_construction", h.ef_construction));
  h.ef_search = size_t(knob_uint(o, "ef_search", h.ef_search));
  h.seed = knob_uint(o, "seed", h.seed);
  h.storage = parse_hnsw_storage(knob_text(o, "storage", hnsw_storage_name(h.storage)));
  h.keep_vectors = knob_bool(o, "keep_vectors", h.keep_vectors);
  h.neighbor_codes = knob_bool(o, "neighbor_codes", h.neighbor_codes);
  return make_any_index(HnswIndex(h, o.isa));
}

}  // namespace

const IndexKindEntry hnsw_kind = {IndexKind::hnsw, "hnsw", kKnobs, load, open, create};

}  // namespace quiver
