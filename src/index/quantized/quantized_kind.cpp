// The quantised kind for the generic parts of quiver: its registry entry (file loading, the
// streaming decoder, an empty index from generic options) and its AnyIndex overloads.
#include "index/quantized/quantized_kind.hpp"

#include "index/quantized/quantized_format.hpp"
#include "quiver/error.hpp"

namespace quiver {

QuantizedSearchParams kind_params(const QuantizedIndex&, const AnySearchParams& p) {
  QuantizedSearchParams out;
  static_cast<SearchParams&>(out) = p;
  out.float_tables = p.float_tables;
  out.probes = p.probes;
  return out;
}

std::string describe(const QuantizedIndex& index) {
  std::string lists;  // partitions: "N lists (option), adaptive probes (filtered: P)"
  if (index.lists_option() != 0) {
    lists = ", " + std::to_string(index.lists()) + " lists (" +
            (index.lists_option() == QuantizedIndexOptions::kAutoLists ? std::string("auto")
                                                                       : std::to_string(index.lists_option())) +
            "), adaptive probes (filtered: " + std::to_string(index.default_probes()) + ")";
  }
  return std::to_string(index.bits()) + " bits, seed " + std::to_string(index.seed()) +
         (index.keeps_vectors() ? ", f32 vectors kept for rerank" : ", codes only (no rerank)") +
         (index.refine_bits() > 0 ? ", refine plane " + std::to_string(index.refine_bits()) + " bits" : "") + lists;
}

namespace {

class QuantizedSectionDecoder final : public SectionDecoder {
 public:
  explicit QuantizedSectionDecoder(std::unique_ptr<io::QuantizedDecoder> decoder) : decoder_(std::move(decoder)) {}
  void feed(uint32_t tag, const uint8_t* data, size_t n) override { decoder_->feed(tag, data, n); }
  std::unique_ptr<AnyIndex> finish() override { return make_any_index(decoder_->finish()); }

 private:
  std::unique_ptr<io::QuantizedDecoder> decoder_;
};

std::unique_ptr<AnyIndex> load(const io::Reader& reader, Isa isa) {
  return make_any_index(io::load_quantized(reader, isa));
}

// Null for the files QuantizedDecoder does not take (quantized_format.hpp): the stream loader
// gathers those and calls load().
std::unique_ptr<SectionDecoder> open(const io::Head& head, Isa isa, const StreamHints& hints) {
  std::unique_ptr<io::QuantizedDecoder> decoder = io::QuantizedDecoder::open(head, isa, hints.length_known);
  if (decoder == nullptr) return nullptr;
  return std::make_unique<QuantizedSectionDecoder>(std::move(decoder));
}

constexpr const char* kKnobs[] = {"bits", "seed", "keep_vectors", "refine_bits", "lists", nullptr};

std::unique_ptr<AnyIndex> create(const KindOptions& o) {
  check_knobs(quantized_kind, o);
  QuantizedIndexOptions q;
  q.dim = o.dim;
  q.metric = o.metric;
  const uint64_t bits = knob_uint(o, "bits", q.bits);
  const uint64_t refine_bits = knob_uint(o, "refine_bits", q.refine_bits);
  // Out-of-range widths keep their value for the index's own message (narrowed, 255 at most).
  q.bits = unsigned(bits > 255 ? 255 : bits);
  q.refine_bits = unsigned(refine_bits > 255 ? 255 : refine_bits);
  q.seed = knob_uint(o, "seed", q.seed);
  q.keep_vectors = knob_bool(o, "keep_vectors", q.keep_vectors);
  const std::string lists = knob_text(o, "lists", "0");
  q.lists = lists == "auto" ? QuantizedIndexOptions::kAutoLists : size_t(knob_uint(o, "lists", 0));
  return make_any_index(QuantizedIndex(q, o.isa));
}

}  // namespace

const IndexKindEntry quantized_kind = {IndexKind::quantized, "quantized", kKnobs, load, open, create};

}  // namespace quiver
