// The toy kind (toy_index.hpp): the index, its file section and its registry entry.
#include <algorithm>
#include <cstring>
#include <memory>

#include "container/format.hpp"
#include "index/common/kind_registry.hpp"
#include "quiver/error.hpp"
#include "toy_index.hpp"

namespace toy {

using quiver::Error;
using quiver::ErrorCode;

constexpr uint32_t kRowsTag = quiver::io::fourcc("TOYV");

bool ToyIndex::contains(uint64_t id) const noexcept { return std::find(ids_.begin(), ids_.end(), id) != ids_.end(); }

void ToyIndex::add(const uint64_t* ids, const float* vectors, size_t n) {
  for (size_t i = 0; i < n; ++i) {
    if (contains(ids[i])) throw Error(ErrorCode::DuplicateId, "id " + std::to_string(ids[i]) + " is already stored");
  }
  ids_.insert(ids_.end(), ids, ids + n);
  rows_.insert(rows_.end(), vectors, vectors + n * dim_);
}

void ToyIndex::remove(const uint64_t* ids, size_t n) {
  for (size_t i = 0; i < n; ++i) {
    const auto it = std::find(ids_.begin(), ids_.end(), ids[i]);
    if (it == ids_.end()) throw Error(ErrorCode::UnknownId, "id " + std::to_string(ids[i]) + " is not stored");
    const size_t slot = size_t(it - ids_.begin());
    ids_.erase(it);
    rows_.erase(rows_.begin() + slot * dim_, rows_.begin() + (slot + 1) * dim_);
  }
}

size_t ToyIndex::search(const float* query, size_t k, quiver::Neighbor* out, const quiver::SearchParams&) const {
  if (k == 0) throw Error(ErrorCode::InvalidK, "k must be at least 1");
  std::vector<quiver::Neighbor> all;
  for (size_t s = 0; s < ids_.size(); ++s) {
    float d = 0;
    for (size_t i = 0; i < dim_; ++i) d += (query[i] - rows_[s * dim_ + i]) * (query[i] - rows_[s * dim_ + i]);
    all.push_back({ids_[s], d});
  }
  std::sort(all.begin(), all.end(), quiver::neighbor_before);
  const size_t n = std::min(k, all.size());
  std::copy(all.begin(), all.begin() + n, out);
  return n;
}

size_t ToyIndex::search_batch(const float* queries, size_t nq, size_t k, quiver::Neighbor* out,
                              const quiver::SearchParams& params) const {
  size_t found = 0;
  for (size_t q = 0; q < nq; ++q) found = search(queries + q * dim_, k, out + q * k, params);
  return found;
}

namespace {

quiver::io::Writer toy_writer(size_t dim, const std::string& label, const std::vector<uint64_t>& ids,
                              const std::vector<float>& rows) {
  quiver::io::Header h;
  h.kind = kToyKind;
  h.dim = dim;
  h.count = ids.size();
  quiver::io::Writer w(h);
  quiver::io::SectionWriter& s = w.add_section(kRowsTag);
  s.u32(uint32_t(label.size()));
  s.bytes(label.data(), label.size());
  for (size_t r = 0; r < ids.size(); ++r) {
    s.u64(ids[r]);
    s.f32s(rows.data() + r * dim, dim);
  }
  return w;
}

}  // namespace

std::vector<uint8_t> ToyIndex::serialize() const { return toy_writer(dim_, label_, ids_, rows_).to_bytes(); }

void ToyIndex::save(const std::string& path) const { toy_writer(dim_, label_, ids_, rows_).write_file(path); }

ToyIndex ToyIndex::decode(size_t dim, size_t count, const uint8_t* data, size_t n) {
  quiver::io::SectionCursor c(kRowsTag, data, n);
  const uint32_t label_bytes = c.u32();
  const uint8_t* label = c.bytes(label_bytes);
  ToyIndex index(dim, std::string(reinterpret_cast<const char*>(label), label_bytes));
  c.expect_size(uint64_t(count) * (8 + dim * 4), "toy rows");
  for (size_t r = 0; r < count; ++r) {
    const uint64_t id = c.u64();
    std::vector<float> row(dim);
    c.f32s(row.data(), dim);
    index.add(&id, row.data(), 1);
  }
  return index;
}

namespace {

std::unique_ptr<quiver::AnyIndex> load(const quiver::io::Reader& reader, quiver::Isa) {
  reader.require_known_sections({kRowsTag});
  const quiver::io::SectionEntry* s = reader.find(kRowsTag);
  if (s == nullptr) throw Error(ErrorCode::Corrupt, "the toy file has no TOYV section");
  quiver::io::SectionCursor c = reader.section(kRowsTag);
  const uint8_t* bytes = c.bytes(c.remaining());
  return quiver::make_any_index(ToyIndex::decode(reader.header().dim, reader.header().count, bytes, s->size));
}

// Keeps the one section until finish(): a toy needs no piecewise placement.
class ToyDecoder final : public quiver::SectionDecoder {
 public:
  explicit ToyDecoder(const quiver::io::Head& head) : dim_(head.header.dim), count_(head.header.count) {}
  void feed(uint32_t tag, const uint8_t* data, size_t n) override {
    if (tag == kRowsTag) rows_.insert(rows_.end(), data, data + n);
  }
  std::unique_ptr<quiver::AnyIndex> finish() override {
    return quiver::make_any_index(ToyIndex::decode(dim_, count_, rows_.data(), rows_.size()));
  }

 private:
  size_t dim_, count_;
  std::vector<uint8_t> rows_;
};

std::unique_ptr<quiver::SectionDecoder> open(const quiver::io::Head& head, quiver::Isa, const quiver::StreamHints&) {
  quiver::io::require_known_sections(head, {kRowsTag});
  return std::make_unique<ToyDecoder>(head);
}

constexpr const char* kKnobs[] = {"label", nullptr};

std::unique_ptr<quiver::AnyIndex> create(const quiver::KindOptions& o);

}  // namespace

const quiver::IndexKindEntry toy_kind = {kToyKind, "toy", kKnobs, load, open, create};

namespace {

std::unique_ptr<quiver::AnyIndex> create(const quiver::KindOptions& o) {
  quiver::check_knobs(toy_kind, o);
  return quiver::make_any_index(ToyIndex(o.dim, quiver::knob_text(o, "label", "none")));
}

}  // namespace

// The one line that adds the kind to this program.
QUIVER_REGISTER_INDEX_KIND(toy_kind);

}  // namespace toy
