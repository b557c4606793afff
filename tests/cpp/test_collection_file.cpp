// A collection's file: round trips for every kind, the index reader's view of it, and damaged
// collection sections (edited behind valid checksums) refused with the right code.
#include <gtest/gtest.h>

#include <cstdio>
#include <functional>
#include <random>
#include <string>
#include <vector>

#include "container/format.hpp"
#include "quiver/collection.hpp"
#include "quiver/error.hpp"
#include "test_support.hpp"

namespace quiver {
namespace test_collection_file {

using test::code_of;

constexpr size_t kDim = 8;

std::vector<float> random_vector(std::mt19937_64& rng) {
  std::normal_distribution<float> g;
  std::vector<float> v(kDim);
  for (float& x : v) x = g(rng);
  return v;
}

Collection make(const std::string& kind, size_t n, std::mt19937_64& rng) {
  CollectionOptions o;
  o.dim = kDim;
  o.index = kind;
  o.fields = {{"lang", FieldType::string}, {"year", FieldType::number}, {"tags", FieldType::tags}};
  Collection c(o);
  std::vector<Record> records;
  for (size_t i = 0; i < n; ++i) {
    const RecordId id = i % 2 ? RecordId(uint64_t(i)) : RecordId("doc-" + std::to_string(i));
    std::string meta = i % 5 == 0 ? ""
                                  : R"({"lang":")" + std::string(i % 3 ? "en" : "fr") + R"(","year":)" +
                                        std::to_string(2000 + i % 25) + R"(,"tags":["t)" + std::to_string(i % 4) +
                                        R"("],"title":"Doc \u00e9 )" + std::to_string(i) + "\"}";
    records.push_back({id, random_vector(rng), meta, i % 4 == 0 ? "ns-" + std::to_string(i % 3) : ""});
  }
  c.upsert(records);
  // Removals and a replacement leave free rows and a reused one in the file.
  c.remove({RecordId(uint64_t(1)), RecordId(uint64_t(3)), RecordId(std::string("doc-4"))});
  c.upsert({{RecordId(uint64_t(5)), random_vector(rng), R"({"lang":"de"})", "ns-9"}});
  return c;
}

std::vector<std::string> answer(const Collection& c, const std::vector<float>& q, const std::string& filter) {
  QueryOptions o;
  o.top_k = 7;
  o.filter = filter;
  o.return_metadata = true;
  std::vector<std::string> out;
  for (const Match& m : c.query(q, o).matches)
    out.push_back(record_id_text(m.id) + "|" + m.ns + "|" + m.metadata + "|" + std::to_string(m.distance));
  return out;
}

class CollectionFileKinds : public ::testing::TestWithParam<std::string> {};

TEST_P(CollectionFileKinds, RoundTripsAndAnswersTheSame) {
  std::mt19937_64 rng(9);
  const Collection c = make(GetParam(), 300, rng);
  const std::vector<uint8_t> bytes = c.serialize();
  const Collection back = Collection::load(bytes.data(), bytes.size());
  EXPECT_EQ(back.size(), c.size());
  EXPECT_EQ(back.describe().fields.size(), 3u);
  EXPECT_EQ(back.describe().namespaces, c.describe().namespaces);
  for (const char* filter : {"", R"({"lang":"en"})", R"({"year":{"$gte":2010},"tags":"t2"})", R"({"lang":"de"})"}) {
    for (int t = 0; t < 5; ++t) {
      const std::vector<float> q = random_vector(rng);
      EXPECT_EQ(answer(back, q, filter), answer(c, q, filter)) << filter;
    }
  }
  for (const RecordId& id : {RecordId(uint64_t(5)), RecordId(std::string("doc-2")), RecordId(uint64_t(1))}) {
    const auto a = c.get({id})[0], b = back.get({id})[0];
    ASSERT_EQ(a.has_value(), b.has_value());
    if (a) EXPECT_EQ(a->metadata + a->ns, b->metadata + b->ns);
  }
  // The same bytes again (deterministic), and the loaded collection takes writes.
  EXPECT_EQ(back.serialize(), bytes);
  Collection w = Collection::load(bytes.data(), bytes.size());
  w.upsert({{RecordId(std::string("new")), random_vector(rng), R"({"lang":"en"})", ""}});
  EXPECT_EQ(w.size(), c.size() + 1);
  // Any reader of the kind loads it as a plain index (the collection section is optional).
  const std::unique_ptr<AnyIndex> plain = load_any_index(bytes.data(), bytes.size());
  EXPECT_EQ(plain->size(), c.size());
}

INSTANTIATE_TEST_SUITE_P(Kinds, CollectionFileKinds, ::testing::Values("flat", "quantized", "hnsw"));

TEST(CollectionFile, SavesAtomicallyAndLoadsFromAFile) {
  std::mt19937_64 rng(4);
  const Collection c = make("flat", 50, rng);
  const std::string path = ::testing::TempDir() + "quiver_collection_test.qvr";
  c.save(path);
  const Collection back = Collection::load_file(path);
  EXPECT_EQ(back.size(), c.size());
  std::remove(path.c_str());
  EXPECT_EQ(code_of([&] { Collection::load_file(path); }), ErrorCode::IoError);
}

// The file with its collection section replaced by `payload` (valid checksums throughout).
std::vector<uint8_t> with_section(const std::vector<uint8_t>& file, const std::vector<uint8_t>& payload) {
  const io::Reader r(file.data(), file.size());
  io::Writer w(r.header());
  for (const io::SectionEntry& s : r.sections()) {
    io::SectionWriter& out = w.add_section(s.tag, s.flags);
    if (s.tag == io::fourcc("COLL")) {
      out.bytes(payload.data(), payload.size());
    } else {
      out.bytes(file.data() + s.offset, size_t(s.size));
    }
  }
  return w.to_bytes();
}

std::vector<uint8_t> section_of(const std::vector<uint8_t>& file) {
  const io::Reader r(file.data(), file.size());
  const io::SectionEntry* s = r.find(io::fourcc("COLL"));
  return std::vector<uint8_t>(file.begin() + long(s->offset), file.begin() + long(s->offset + s->size));
}

TEST(CollectionFile, DamagedFilesAreRefusedWithTheirCode) {
  std::mt19937_64 rng(6);
  CollectionOptions o;
  o.dim = kDim;
  o.index = "flat";
  o.fields = {{"lang", FieldType::string}};
  Collection c(o);
  c.upsert({{RecordId(std::string("a")), random_vector(rng), R"({"lang":"en"})", ""},
            {RecordId(uint64_t(2)), random_vector(rng), "", "n"}});
  const std::vector<uint8_t> file = c.serialize();
  const std::vector<uint8_t> good = section_of(file);
  // Layout: version(4) fields(4) [type(1) len(1) "lang"(4)] rows(8)
  //   row 0: keylen(2)=2 key "\1a" nslen(1)=0 metalen(4)=13 {"lang":"en"}
  //   row 1: keylen(2)=9 key 0x00+u64 nslen(1)=1 "n" metalen(4)=0
  ASSERT_NO_THROW(Collection::load(with_section(file, good).data(), with_section(file, good).size()));
  const auto load_edited = [&](const std::function<void(std::vector<uint8_t>&)>& edit) {
    std::vector<uint8_t> s = good;
    edit(s);
    const std::vector<uint8_t> f = with_section(file, s);
    return code_of([&] { Collection::load(f.data(), f.size()); });
  };
  EXPECT_EQ(load_edited([](auto& s) { s[0] = 2; }), ErrorCode::UnsupportedVersion);
  EXPECT_EQ(load_edited([](auto& s) { s[8] = 9; }), ErrorCode::Corrupt);      // field type
  EXPECT_EQ(load_edited([](auto& s) { s[10] = '$'; }), ErrorCode::Corrupt);   // field name
  EXPECT_EQ(load_edited([](auto& s) { s[14] = 3; }), ErrorCode::Corrupt);     // 3 rows, 2 held
  EXPECT_EQ(load_edited([](auto& s) { s[14] = 1; }), ErrorCode::Corrupt);     // 1 row: text left over
  EXPECT_EQ(load_edited([](auto& s) { s[24] = 7; }), ErrorCode::Corrupt);     // key type
  EXPECT_EQ(load_edited([](auto& s) { s[25] = 0xff; }), ErrorCode::Corrupt);  // key text not UTF-8
  EXPECT_EQ(load_edited([](auto& s) { s[23] = 0x7f; }), ErrorCode::Corrupt);  // key longer than the section
  EXPECT_EQ(load_edited([](auto& s) { s[30] = 0x7f; }), ErrorCode::Corrupt);  // metadata longer than the section
  const auto metadata = [](const char* json) {
    return [json](std::vector<uint8_t>& s) { std::copy(json, json + 13, s.begin() + 31); };
  };
  {
    std::vector<uint8_t> s = good;
    metadata(R"({"xang":"en"})")(s);  // an undeclared field: a valid record
    const std::vector<uint8_t> f = with_section(file, s);
    EXPECT_NO_THROW(Collection::load(f.data(), f.size()));
  }
  EXPECT_EQ(load_edited(metadata(R"(x"lang":"en"})")), ErrorCode::Corrupt);  // not JSON
  EXPECT_EQ(load_edited(metadata(R"({"lang": "e"})")), ErrorCode::Corrupt);  // not compact
  EXPECT_EQ(load_edited(metadata(R"({"lang":1234})")), ErrorCode::Corrupt);  // declared string
  EXPECT_EQ(load_edited(metadata(R"({"lang":null})")), ErrorCode::Corrupt);  // not a metadata value
  EXPECT_EQ(load_edited([](auto& s) { s.resize(s.size() - 3); }), ErrorCode::Corrupt);
  EXPECT_EQ(load_edited([](auto& s) { s.push_back(0); }), ErrorCode::Corrupt);
  // Both rows with the same id.
  EXPECT_EQ(load_edited([](auto& s) {
              // row 1's key becomes the string "a" padded: keylen 2, "\1a", then its remaining bytes
              const size_t row1 = 16 + 2 + 2 + 1 + 4 + 13;
              s[row1] = 2;
              s[row1 + 2] = 1;
              s[row1 + 3] = 'a';
              s.erase(s.begin() + long(row1 + 4), s.begin() + long(row1 + 11));
            }),
            ErrorCode::Corrupt);
  // A plain index file is not a collection.
  const std::vector<uint8_t> plain = load_any_index(file.data(), file.size())->serialize();
  EXPECT_EQ(code_of([&] { Collection::load(plain.data(), plain.size()); }), ErrorCode::InvalidArgument);
  // Flipped and cut bytes: the container's codes.
  std::vector<uint8_t> flipped = file;
  flipped[flipped.size() - 3] ^= 1;
  EXPECT_EQ(code_of([&] { Collection::load(flipped.data(), flipped.size()); }), ErrorCode::ChecksumMismatch);
  EXPECT_EQ(code_of([&] { Collection::load(file.data(), file.size() - 1); }), ErrorCode::Truncated);
}

}  // namespace test_collection_file
}  // namespace quiver
