// libFuzzer target: what a collection reads from outside — its file section, filters and
// metadata records. The first input byte picks what the rest is:
//   0  the payload of the COLL section of a small collection file (behind valid checksums, so
//      the section decoder itself is reached); whatever loads must answer a query and write
//      itself back to the same bytes
//   1  a filter, run as a query's filter on a small collection
//   2  a record's metadata, upserted into a small collection (and then checked to be there)
// Anything must either work or throw quiver::Error, and a failed write must change nothing.
#include <cstdint>
#include <cstdlib>
#include <string>
#include <vector>

#include "container/format.hpp"
#include "quiver/quiver.hpp"

namespace {

constexpr size_t kDim = 4;

quiver::Collection small_collection() {
  quiver::CollectionOptions o;
  o.dim = kDim;
  o.index = "flat";
  o.metric = quiver::Metric::l2;
  o.fields = {{"lang", quiver::FieldType::string},
              {"year", quiver::FieldType::number},
              {"ok", quiver::FieldType::boolean},
              {"tags", quiver::FieldType::tags}};
  quiver::Collection c(o);
  std::vector<quiver::Record> records;
  for (uint64_t i = 0; i < 20; ++i) {
    std::vector<float> v(kDim);
    for (size_t j = 0; j < kDim; ++j) v[j] = float((i * 7 + j * 3) % 11) - 5.0f;
    const std::string meta = R"({"lang":")" + std::string(i % 3 ? "en" : "fr") + R"(","year":)" +
                             std::to_string(2000 + i) + R"(,"ok":)" + (i % 2 ? "true" : "false") + R"(,"tags":["t)" +
                             std::to_string(i % 4) + R"("]})";
    records.push_back(
        {i % 2 ? quiver::RecordId(i) : quiver::RecordId("d" + std::to_string(i)), v, meta, i % 5 ? "" : "ns"});
  }
  c.upsert(records);
  c.remove({quiver::RecordId(uint64_t(3))});  // a free row
  return c;
}

const std::vector<uint8_t>& collection_file() {
  static const std::vector<uint8_t> bytes = small_collection().serialize();
  return bytes;
}

std::vector<uint8_t> with_section(const std::vector<uint8_t>& file, const uint8_t* payload, size_t n) {
  const quiver::io::Reader r(file.data(), file.size());
  quiver::io::Writer w(r.header());
  for (const quiver::io::SectionEntry& s : r.sections()) {
    quiver::io::SectionWriter& out = w.add_section(s.tag, s.flags);
    if (s.tag == quiver::io::fourcc("COLL")) {
      out.bytes(payload, n);
    } else {
      out.bytes(file.data() + s.offset, size_t(s.size));
    }
  }
  return w.to_bytes();
}

void query(const quiver::Collection& c, const std::string& filter) {
  const std::vector<float> q(kDim, 0.25f);
  quiver::QueryOptions o;
  o.top_k = 5;
  o.filter = filter;
  o.return_metadata = true;
  const quiver::QueryResult r = c.query(q, o);
  if (r.matches.size() != std::min<size_t>(5, r.plan.matching)) std::abort();  // never short
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const uint8_t mode = data[0] % 3;
  const std::string text(reinterpret_cast<const char*>(data + 1), size - 1);
  try {
    if (mode == 0) {
      const std::vector<uint8_t> file = with_section(collection_file(), data + 1, size - 1);
      const quiver::Collection c = quiver::Collection::load(file.data(), file.size());
      query(c, "");
      query(c, R"({"lang":"en"})");
      const std::vector<uint8_t> again = c.serialize();
      const quiver::Collection back = quiver::Collection::load(again.data(), again.size());
      if (back.serialize() != again || back.size() != c.size()) std::abort();
    } else if (mode == 1) {
      query(small_collection(), text);
    } else {
      quiver::Collection c = small_collection();
      const size_t before = c.size();
      try {
        c.upsert({{quiver::RecordId(std::string("new")), std::vector<float>(kDim, 1.0f), text, ""}});
      } catch (const quiver::Error&) {
        if (c.size() != before || c.contains(quiver::RecordId(std::string("new")))) std::abort();
        throw;
      }
      if (c.get({quiver::RecordId(std::string("new"))})[0]->metadata.size() > quiver::kMaxMetadataBytes) std::abort();
      query(c, "");
    }
  } catch (const quiver::Error&) {
  }
  return 0;
}
