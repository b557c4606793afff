// Collection: ids, metadata, namespaces and filtered queries over every index kind. Filtered
// results are checked against an exact filtered search written here: equal for the flat kind,
// a recall floor for the approximate ones, and never fewer than min(k, matching).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <map>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "quiver/collection.hpp"
#include "quiver/error.hpp"
#include "test_support.hpp"

namespace quiver {
namespace test_collection {

using test::code_of;

constexpr size_t kDim = 16;

struct Doc {
  RecordId id;
  std::vector<float> v;
  int group;  // 0..9
  bool odd;
  std::string ns;
};

std::vector<float> random_vector(std::mt19937_64& rng) {
  std::normal_distribution<float> g;
  std::vector<float> v(kDim);
  for (float& x : v) x = g(rng);
  return v;
}

Record record_of(const Doc& d) {
  return {d.id, d.v,
          "{\"group\":" + std::to_string(d.group) + ",\"odd\":" + (d.odd ? "true" : "false") + ",\"kind\":\"" +
              (d.group < 5 ? "low" : "high") + "\",\"tags\":[\"g" + std::to_string(d.group) + "\"]}",
          d.ns};
}

CollectionOptions options_for(const std::string& kind) {
  CollectionOptions o;
  o.dim = kDim;
  o.metric = Metric::l2;
  o.index = kind;
  o.fields = {{"group", FieldType::number},
              {"odd", FieldType::boolean},
              {"kind", FieldType::string},
              {"tags", FieldType::tags}};
  if (kind == "quantized-lists") {
    o.index = "quantized";
    o.knobs = {{"bits", "4"}, {"lists", "16"}, {"keep_vectors", "true"}};
  } else if (kind == "quantized") {
    o.knobs = {{"bits", "4"}, {"keep_vectors", "true"}};
  }
  return o;
}

float l2(const std::vector<float>& a, const float* b) {
  float s = 0;
  for (size_t i = 0; i < kDim; ++i) s += (a[i] - b[i]) * (a[i] - b[i]);
  return s;
}

// The exact filtered top k, as id keys.
std::vector<RecordId> exact(const std::vector<Doc>& docs, const std::vector<float>& q, size_t k,
                            const std::function<bool(const Doc&)>& pass) {
  std::vector<std::pair<float, size_t>> d;
  for (size_t i = 0; i < docs.size(); ++i)
    if (pass(docs[i])) d.push_back({l2(q, docs[i].v.data()), i});
  std::sort(d.begin(), d.end());
  std::vector<RecordId> out;
  for (size_t i = 0; i < std::min(k, d.size()); ++i) out.push_back(docs[d[i].second].id);
  return out;
}

class CollectionKinds : public ::testing::TestWithParam<std::string> {};

TEST_P(CollectionKinds, FilteredQueriesAreTheTopKOfTheMatchingSet) {
  std::mt19937_64 rng(5);
  Collection c(options_for(GetParam()));
  std::vector<Doc> docs;
  for (size_t i = 0; i < 3000; ++i) {
    Doc d{i % 2 ? RecordId("doc-" + std::to_string(i)) : RecordId(uint64_t(i * 7)), random_vector(rng), int(rng() % 10),
          i % 2 == 1, i % 3 == 0 ? "tenant-a" : ""};
    // Selectivity 0.1 %: three docs in group 42.
    if (i % 1000 == 17) d.group = 42;
    docs.push_back(d);
  }
  std::vector<Record> records;
  for (const Doc& d : docs) records.push_back(record_of(d));
  for (size_t i = 0; i < records.size(); i += 500)
    c.upsert(std::vector<Record>(records.begin() + long(i), records.begin() + long(std::min(i + 500, records.size()))));
  ASSERT_EQ(c.size(), docs.size());

  struct F {
    std::string json;
    std::function<bool(const Doc&)> pass;
  };
  const std::vector<F> filters = {
      {"", [](const Doc&) { return true; }},
      {R"({"group":42})", [](const Doc& d) { return d.group == 42; }},
      {R"({"group":3})", [](const Doc& d) { return d.group == 3; }},
      {R"({"odd":true})", [](const Doc& d) { return d.odd; }},
      {R"({"kind":"low","group":{"$ne":2}})", [](const Doc& d) { return d.group < 5 && d.group != 2; }},
      {R"({"$or":[{"tags":"g1"},{"group":{"$gte":8}}]})", [](const Doc& d) { return d.group == 1 || d.group >= 8; }},
      {R"({"$not":{"group":{"$in":[0,1,2,3,4,5,6,7,8]}}})", [](const Doc& d) { return d.group >= 9; }},
  };
  const bool exact_kind = GetParam() == "flat";
  for (const F& f : filters) {
    double hits = 0, wanted = 0;
    for (int t = 0; t < 20; ++t) {
      const std::vector<float> q = random_vector(rng);
      QueryOptions o;
      o.top_k = 10;
      o.filter = f.json;
      o.return_metadata = true;
      // 4-bit codes of 16 dimensions rank coarsely (recall@10 about 0.86 unfiltered): the
      // quantised kinds re-score with their kept vectors, so the floor measures the filter.
      if (GetParam() != "flat" && GetParam() != "hnsw") o.search.rerank = 4;
      const QueryResult r = c.query(q, o);
      const std::vector<RecordId> want = exact(docs, q, 10, f.pass);
      ASSERT_EQ(r.matches.size(), want.size()) << f.json;  // never short
      // HNSW walks its graph with the row bitmap when more than 1/16 of the vectors match.
      const bool walks = GetParam() == "hnsw" && r.plan.matching * 16 > docs.size();
      if (f.json.empty()) {
        EXPECT_EQ(r.plan.strategy, "unfiltered");
      } else if (walks) {
        EXPECT_TRUE(r.plan.strategy == "filtered-walk" || r.plan.strategy == "filtered-walk+allow-list")
            << r.plan.strategy;
      } else {
        EXPECT_EQ(r.plan.strategy, "prefilter") << f.json;
      }
      EXPECT_EQ(r.plan.total, docs.size());
      std::set<RecordId> got;
      for (const Match& m : r.matches) {
        got.insert(m.id);
        EXPECT_FALSE(m.metadata.empty());
      }
      for (const RecordId& id : want) hits += got.count(id);
      wanted += double(want.size());
      if (exact_kind) {
        std::vector<RecordId> ids;
        for (const Match& m : r.matches) ids.push_back(m.id);
        EXPECT_EQ(ids, want) << f.json;
      }
    }
    // Every returned id passes the filter, and recall against the exact filtered answer.
    EXPECT_GE(hits / wanted, exact_kind ? 1.0 : 0.9) << GetParam() << " " << f.json;
  }

  {
    // A filter every vector passes is no filter for the index.
    QueryOptions o;
    o.filter = R"({"group":{"$gte":0}})";
    const QueryResult r = c.query(random_vector(rng), o);
    EXPECT_EQ(r.plan.strategy, "unfiltered");
    EXPECT_EQ(r.plan.matching, docs.size());
  }
  // Namespaces: only that namespace's rows; "" is the rows without one.
  for (const std::string ns : {"tenant-a", "", "nobody"}) {
    QueryOptions o;
    o.top_k = 5000;
    o.ns = ns;
    const QueryResult r = c.query(random_vector(rng), o);
    const size_t expected = ns == "tenant-a" ? 1000 : ns.empty() ? 2000 : 0;
    EXPECT_EQ(r.plan.matching, expected) << ns;
    EXPECT_EQ(r.matches.size(), expected) << ns;
    for (const Match& m : r.matches) EXPECT_EQ(m.ns, ns);
  }
}

TEST_P(CollectionKinds, ReturnsTheStoredVectors) {
  std::mt19937_64 rng(8);
  Collection c(options_for(GetParam()));
  std::vector<Record> records;
  for (uint64_t i = 0; i < 100; ++i) records.push_back({i, random_vector(rng), "", ""});
  c.upsert(records);
  const auto got = c.get({uint64_t(3), uint64_t(99)}, true);
  EXPECT_EQ(got[0]->values, records[3].values);  // l2: stored as given
  EXPECT_EQ(got[1]->values, records[99].values);
  QueryOptions o;
  o.top_k = 1;
  o.return_values = true;
  const QueryResult r = c.query(records[42].values, o);
  ASSERT_EQ(r.matches.size(), 1u);
  EXPECT_EQ(r.matches[0].id, RecordId(uint64_t(42)));
  EXPECT_EQ(r.matches[0].values, records[42].values);
}

INSTANTIATE_TEST_SUITE_P(Kinds, CollectionKinds, ::testing::Values("flat", "quantized", "quantized-lists", "hnsw"));

// A walk that comes back short is filled by the allow list: never fewer than min(k, matching),
// and the plan says so. A graph that is mostly tombstones (removed, not compacted) makes the
// bounded beam run dry before it meets every match.
TEST(Collection, AShortFilteredWalkIsFilledByTheAllowList) {
  std::mt19937_64 rng(21);
  CollectionOptions o = options_for("hnsw");
  o.knobs = {{"M", "4"}, {"ef_construction", "16"}};
  Collection c(o);
  std::vector<Record> records;
  std::vector<RecordId> removed;
  for (uint64_t i = 0; i < 8000; ++i) {
    const bool keep = i % 20 == 0;  // 400 stay
    records.push_back({i, random_vector(rng), keep && i % 13 == 0 ? R"({"group":1})" : R"({"group":0})", ""});
    if (!keep) removed.push_back(i);
  }
  c.upsert(records);
  c.remove(removed);
  size_t filled = 0, matching = 0;
  for (int t = 0; t < 50; ++t) {
    QueryOptions q;
    q.top_k = 100;
    q.filter = R"({"group":1})";
    const QueryResult r = c.query(random_vector(rng), q);
    matching = r.plan.matching;
    ASSERT_GT(matching * 16, c.size());  // more than 1/16 match: HNSW walks
    ASSERT_EQ(r.matches.size(), matching);
    filled += r.plan.strategy == "filtered-walk+allow-list";
    ASSERT_TRUE(r.plan.strategy == "filtered-walk" || r.plan.strategy == "filtered-walk+allow-list");
  }
  EXPECT_GT(filled, 0u);
}

TEST(Collection, UpsertReplacesInsertRefusesAndRemoveForgets) {
  std::mt19937_64 rng(1);
  Collection c(options_for("flat"));
  const std::vector<float> a = random_vector(rng), b = random_vector(rng);
  c.insert({{std::string("x"), a, R"({"group":1})", ""}, {uint64_t(1), a, "", "n1"}});
  EXPECT_EQ(c.size(), 2u);
  EXPECT_TRUE(c.contains(std::string("x")));
  EXPECT_FALSE(c.contains(std::string("1")));  // 1 and "1" are different ids
  EXPECT_TRUE(c.contains(uint64_t(1)));
  EXPECT_EQ(code_of([&] { c.insert({{std::string("x"), b, "", ""}}); }), ErrorCode::DuplicateId);

  c.upsert({{std::string("x"), b, R"({"group":2})", "n2"}});
  EXPECT_EQ(c.size(), 2u);
  const auto got = c.get({std::string("x"), uint64_t(1), std::string("missing")}, true);
  ASSERT_TRUE(got[0] && got[1]);
  EXPECT_FALSE(got[2]);
  EXPECT_EQ(got[0]->values, b);
  EXPECT_EQ(got[0]->metadata, R"({"group":2})");
  EXPECT_EQ(got[0]->ns, "n2");
  EXPECT_EQ(got[1]->ns, "n1");
  QueryOptions o;
  o.filter = R"({"group":1})";
  EXPECT_EQ(c.query(a, o).matches.size(), 0u);  // the old metadata is gone
  o.filter = R"({"group":2})";
  o.return_values = true;
  const QueryResult r = c.query(a, o);
  ASSERT_EQ(r.matches.size(), 1u);
  EXPECT_EQ(r.matches[0].values, b);

  EXPECT_EQ(code_of([&] { c.remove({std::string("x"), std::string("nope")}); }), ErrorCode::UnknownId);
  EXPECT_EQ(code_of([&] { c.remove({std::string("x"), std::string("x")}); }), ErrorCode::DuplicateId);
  EXPECT_EQ(c.size(), 2u);
  c.remove({std::string("x")});
  EXPECT_EQ(c.size(), 1u);
  EXPECT_FALSE(c.contains(std::string("x")));
  // Its row is reused by the next record, which must not inherit anything.
  c.upsert({{std::string("y"), a, "", ""}});
  o = {};
  o.filter = R"({"group":{"$ne":5}})";
  o.return_metadata = true;
  const QueryResult all = c.query(a, o);
  ASSERT_EQ(all.matches.size(), 2u);
  for (const Match& m : all.matches)
    if (m.id == RecordId(std::string("y"))) EXPECT_EQ(m.metadata, "");
}

TEST(Collection, BadInputChangesNothing) {
  std::mt19937_64 rng(2);
  Collection c(options_for("hnsw"));
  std::vector<Record> ok;
  for (uint64_t i = 0; i < 50; ++i) ok.push_back({i, random_vector(rng), R"({"group":1,"kind":"low"})", ""});
  c.upsert(ok);
  const CollectionStats before = c.describe();

  std::vector<float> nan = random_vector(rng);
  nan[3] = NAN;
  const std::vector<float> v = random_vector(rng);
  const std::vector<std::pair<std::vector<Record>, ErrorCode>> bad = {
      {{{uint64_t(100), v, "", ""}, {uint64_t(101), nan, "", ""}}, ErrorCode::NonFinite},
      {{{uint64_t(100), v, "", ""}, {uint64_t(101), std::vector<float>(3), "", ""}}, ErrorCode::DimensionMismatch},
      {{{uint64_t(100), v, "", ""}, {uint64_t(100), v, "", ""}}, ErrorCode::DuplicateId},
      {{{uint64_t(100), v, "", ""}, {uint64_t(1) << 53, v, "", ""}}, ErrorCode::InvalidArgument},
      {{{uint64_t(100), v, "", ""}, {std::string(""), v, "", ""}}, ErrorCode::InvalidArgument},
      {{{uint64_t(100), v, "", ""}, {uint64_t(101), v, R"({"group":"one"})", ""}}, ErrorCode::InvalidArgument},
      {{{uint64_t(100), v, "", ""}, {uint64_t(101), v, R"({"group":1,})", ""}}, ErrorCode::InvalidArgument},
      {{{uint64_t(1), v, R"({"group":7})", ""}, {uint64_t(101), v, "", std::string(kMaxNamespaceBytes + 1, 'n')}},
       ErrorCode::InvalidArgument},
      {{{uint64_t(1), v, R"({"group":7})", ""}, {uint64_t(101), nan, "", ""}}, ErrorCode::NonFinite},
  };
  for (const auto& entry : bad) {
    const auto& records = entry.first;  // not a structured binding: C++17 lambdas cannot capture one
    EXPECT_EQ(code_of([&] { c.upsert(records); }), entry.second);
    EXPECT_EQ(c.size(), 50u);
    EXPECT_FALSE(c.contains(uint64_t(100)));
  }
  // Record 1 kept its metadata through the failed replacements.
  EXPECT_EQ(c.get({uint64_t(1)})[0]->metadata, R"({"group":1,"kind":"low"})");
  QueryOptions o;
  o.filter = R"({"group":7})";
  EXPECT_EQ(c.query(v, o).matches.size(), 0u);

  // Queries: bad options are coded errors.
  QueryOptions q;
  q.top_k = 0;
  EXPECT_EQ(code_of([&] { c.query(v, q); }), ErrorCode::InvalidK);
  q = {};
  EXPECT_EQ(code_of([&] { c.query(std::vector<float>(3), q); }), ErrorCode::DimensionMismatch);
  EXPECT_EQ(code_of([&] { c.query(nan, q); }), ErrorCode::NonFinite);
  q.return_values = true;  // hnsw f32 returns its vectors...
  EXPECT_EQ(c.query(v, q).matches.at(0).values.size(), kDim);
  {
    // ...a quantised index without kept vectors cannot.
    CollectionOptions o = options_for("quantized");
    o.knobs["keep_vectors"] = "false";
    Collection codes_only(o);
    codes_only.upsert(ok);
    EXPECT_EQ(code_of([&] { codes_only.query(v, q); }), ErrorCode::InvalidArgument);
    EXPECT_EQ(code_of([&] { codes_only.get({uint64_t(1)}, true); }), ErrorCode::InvalidArgument);
    EXPECT_TRUE(codes_only.get({uint64_t(1)}, false)[0].has_value());
  }
  q = {};
  q.filter = R"({"colour":"red"})";
  EXPECT_EQ(code_of([&] { c.query(v, q); }), ErrorCode::InvalidArgument);
  q = {};
  const uint64_t allow = 1;
  q.search.allow = &allow;
  q.search.allow_count = 1;
  EXPECT_EQ(code_of([&] { c.query(v, q); }), ErrorCode::InvalidArgument);

  const CollectionStats after = c.describe();
  EXPECT_EQ(after.size, before.size);
  EXPECT_EQ(after.index_bytes, before.index_bytes);
}

TEST(Collection, OptionsAreChecked) {
  CollectionOptions o = options_for("flat");
  o.dim = 0;
  EXPECT_EQ(code_of([&] { Collection c(o); }), ErrorCode::InvalidArgument);
  o = options_for("flat");
  o.index = "flta";
  EXPECT_EQ(code_of([&] { Collection c(o); }), ErrorCode::InvalidArgument);
  o = options_for("hnsw");
  o.knobs = {{"ef_serch", "10"}};
  EXPECT_EQ(code_of([&] { Collection c(o); }), ErrorCode::InvalidArgument);
  o = options_for("flat");
  o.fields.push_back({"group", FieldType::string});
  EXPECT_EQ(code_of([&] { Collection c(o); }), ErrorCode::InvalidArgument);
  EXPECT_EQ(code_of([] { parse_field_type("text"); }), ErrorCode::InvalidArgument);
}

TEST(Collection, EmptyCollectionAnswersNothingAndReportsMemoryByPart) {
  Collection c(options_for("hnsw"));
  std::mt19937_64 rng(3);
  QueryOptions o;
  EXPECT_EQ(c.query(random_vector(rng), o).matches.size(), 0u);
  o.filter = R"({"group":1})";
  EXPECT_EQ(c.query(random_vector(rng), o).plan.strategy, "empty");
  std::vector<Record> records;
  for (uint64_t i = 0; i < 1000; ++i)
    records.push_back({"document-number-" + std::to_string(i), random_vector(rng),
                       R"({"group":)" + std::to_string(i % 10) + R"(,"kind":"k)" + std::to_string(i % 3) + R"("})",
                       ""});
  c.upsert(records);
  const CollectionStats s = c.describe();
  EXPECT_EQ(s.size, 1000u);
  EXPECT_EQ(s.index, "hnsw");
  EXPECT_GT(s.index_bytes, 1000u * kDim * 4);
  EXPECT_GT(s.id_bytes, 1000u * 20);
  EXPECT_GT(s.metadata_bytes, 1000u * 20);
  // Two declared fields with values (a number, a string code) and the namespace code.
  EXPECT_GE(s.column_bytes, 1000u * (8 + 4 + 4));
  EXPECT_LE(s.column_bytes, 1000u * (8 + 4 + 4 + 4 + 2 + 1) * 2 + 16384);
  EXPECT_EQ(s.memory_bytes, s.index_bytes + s.id_bytes + s.metadata_bytes + s.column_bytes);
}

}  // namespace test_collection
}  // namespace quiver

namespace quiver {
namespace test_collection {

// AnyIndex::get, which the collection's returnValues reads: every kind that keeps f32 vectors
// returns them as stored (normalised under cosine); the others say why not.
TEST(AnyIndexGet, EveryKindReturnsItsKeptVectorsOrSaysWhyNot) {
  std::mt19937_64 rng(12);
  const std::vector<float> v = random_vector(rng);
  double norm = 0;
  for (float x : v) norm += double(x) * x;
  std::vector<float> unit(kDim);
  for (size_t i = 0; i < kDim; ++i) unit[i] = float(v[i] / std::sqrt(norm));
  HnswIndexOptions sq8;
  sq8.dim = kDim;
  sq8.metric = Metric::cosine;
  sq8.storage = HnswStorage::sq8;
  HnswIndexOptions sq8_bare = sq8;
  sq8_bare.keep_vectors = false;
  QuantizedIndexOptions q;
  q.dim = kDim;
  q.metric = Metric::cosine;
  QuantizedIndexOptions q_bare = q;
  q_bare.keep_vectors = false;
  std::vector<std::unique_ptr<AnyIndex>> kinds;
  kinds.push_back(make_any_index(FlatIndex({kDim, Metric::cosine})));
  kinds.push_back(make_any_index(HnswIndex({kDim, Metric::cosine})));
  kinds.push_back(make_any_index(HnswIndex(sq8)));
  kinds.push_back(make_any_index(QuantizedIndex(q)));
  kinds.push_back(make_any_index(HnswIndex(sq8_bare)));
  kinds.push_back(make_any_index(QuantizedIndex(q_bare)));
  for (size_t k = 0; k < kinds.size(); ++k) {
    AnyIndex& index = *kinds[k];
    const uint64_t id = 5;
    index.add(&id, v.data(), 1);
    std::vector<float> out(kDim, -1.0f);
    EXPECT_EQ(code_of([&] { index.get(6, out.data()); }), ErrorCode::UnknownId) << k;
    if (k < 4) {
      EXPECT_TRUE(index.has_vectors()) << k;
      index.get(id, out.data());
      for (size_t i = 0; i < kDim; ++i) EXPECT_NEAR(out[i], unit[i], 1e-6) << k;
    } else {
      EXPECT_FALSE(index.has_vectors()) << k;
      EXPECT_EQ(code_of([&] { index.get(id, out.data()); }), ErrorCode::InvalidArgument) << k;
      EXPECT_EQ(out[0], -1.0f);  // nothing written
    }
  }
}

}  // namespace test_collection
}  // namespace quiver
