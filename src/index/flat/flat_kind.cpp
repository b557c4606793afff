// The flat kind for the generic parts of quiver: its registry entry (file loading, the
// streaming decoder, an empty index from generic options) and its AnyIndex overloads.
#include "index/flat/flat_kind.hpp"

#include "index/flat/flat_format.hpp"

namespace quiver {

FlatSearchParams kind_params(const FlatIndex&, const AnySearchParams& p) {
  FlatSearchParams out;
  static_cast<SearchParams&>(out) = p;
  return out;
}

std::string describe(const FlatIndex&) { return "exact"; }

namespace {

class FlatSectionDecoder final : public SectionDecoder {
 public:
  FlatSectionDecoder(const io::Head& head, Isa isa, bool reserve_all) : decoder_(head, isa, reserve_all) {}
  void feed(uint32_t tag, const uint8_t* data, size_t n) override { decoder_.feed(tag, data, n); }
  std::unique_ptr<AnyIndex> finish() override { return make_any_index(decoder_.finish()); }

 private:
  io::FlatDecoder decoder_;
};

std::unique_ptr<AnyIndex> load(const io::Reader& reader, Isa isa) { return make_any_index(io::load_flat(reader, isa)); }

// With the length known for sure the head's sizes are real: allocate once. Otherwise the rows
// are allocated chunk by chunk as they arrive.
std::unique_ptr<SectionDecoder> open(const io::Head& head, Isa isa, const StreamHints& hints) {
  return std::make_unique<FlatSectionDecoder>(head, isa, hints.exact_size);
}

constexpr const char* kKnobs[] = {nullptr};

std::unique_ptr<AnyIndex> create(const KindOptions& o) {
  check_knobs(flat_kind, o);
  return make_any_index(FlatIndex({o.dim, o.metric}, o.isa));
}

}  // namespace

const IndexKindEntry flat_kind = {IndexKind::flat, "flat", kKnobs, load, open, create};

}  // namespace quiver
