// Property test: a collection driven by random upserts, inserts, removes and filtered queries,
// against a plain reference (a map of id -> vector, metadata, namespace, and brute force). The
// flat kind must equal the reference's exact filtered top k; every kind must return exactly
// min(k, matching) matches that pass the filter, with the metadata and namespace last written;
// a failed write must change nothing. The collection is saved and loaded on the way.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "quiver/collection.hpp"
#include "quiver/error.hpp"

namespace quiver {
namespace test_collection_property {

constexpr size_t kDim = 6;

struct Ref {
  std::vector<float> v;
  int color;  // -1: missing
  double size;
  std::vector<std::string> tags;
  std::string ns;
  std::string metadata;
};

std::string metadata_of(int color, double size, const std::vector<std::string>& tags) {
  std::string s = "{";
  if (color >= 0) s += "\"color\":\"c" + std::to_string(color) + "\",";
  s += "\"size\":" + std::to_string(int(size));
  if (!tags.empty()) {
    s += ",\"tags\":[";
    for (size_t i = 0; i < tags.size(); ++i) s += (i ? ",\"" : "\"") + tags[i] + "\"";
    s += "]";
  }
  return s + "}";
}

class CollectionProperty : public ::testing::TestWithParam<std::string> {};

TEST_P(CollectionProperty, MatchesAPlainReference) {
  std::mt19937_64 rng(GetParam().size() * 31 + 5);
  CollectionOptions o;
  o.dim = kDim;
  o.metric = Metric::l2;
  o.index = GetParam();
  if (GetParam() == "quantized") o.knobs = {{"bits", "4"}, {"keep_vectors", "true"}};
  o.fields = {{"color", FieldType::string}, {"size", FieldType::number}, {"tags", FieldType::tags}};
  Collection c(o);
  std::map<RecordId, Ref> ref;
  std::normal_distribution<float> g;
  const auto random_id = [&]() -> RecordId {
    const uint64_t n = rng() % 300;
    return n % 2 ? RecordId(n) : RecordId("k" + std::to_string(n));
  };
  const bool exact = GetParam() == "flat";
  size_t checked = 0;
  for (int step = 0; step < 600; ++step) {
    const int action = int(rng() % 10);
    if (action < 5) {  // upsert or insert a batch (sometimes with a bad record)
      std::vector<Record> batch;
      std::map<RecordId, Ref> pending;
      const size_t n = 1 + rng() % 8;
      for (size_t i = 0; i < n; ++i) {
        RecordId id = random_id();
        if (pending.count(id)) continue;
        Ref r;
        r.v.resize(kDim);
        for (float& x : r.v) x = g(rng);
        r.color = int(rng() % 5) - 1;
        r.size = double(rng() % 50);
        for (const char* t : {"a", "b", "c"})
          if (rng() % 3 == 0) r.tags.push_back(t);
        r.ns = rng() % 4 == 0 ? "n" + std::to_string(rng() % 2) : "";
        r.metadata = metadata_of(r.color, r.size, r.tags);
        batch.push_back({id, r.v, r.metadata, r.ns});
        pending[id] = r;
      }
      const bool insert = action == 4;
      const bool poison = rng() % 6 == 0;
      if (poison) batch.push_back({RecordId(std::string("bad")), std::vector<float>(kDim), R"({"size":"x"})", ""});
      bool refused = poison;
      if (insert)
        for (const auto& [id, r] : pending) refused = refused || ref.count(id);
      try {
        if (insert) {
          c.insert(batch);
        } else {
          c.upsert(batch);
        }
        ASSERT_FALSE(refused);
        for (auto& [id, r] : pending) ref[id] = r;
      } catch (const Error& e) {
        ASSERT_TRUE(refused) << e.what();
      }
    } else if (action < 7) {  // remove a few present ids (sometimes with a missing one)
      std::vector<RecordId> ids;
      for (int i = 0; i < 3 && !ref.empty(); ++i) {
        auto it = ref.begin();
        std::advance(it, long(rng() % ref.size()));
        if (std::find(ids.begin(), ids.end(), it->first) == ids.end()) ids.push_back(it->first);
      }
      const bool poison = rng() % 5 == 0;
      if (poison) ids.push_back(RecordId(std::string("never")));
      try {
        c.remove(ids);
        ASSERT_FALSE(poison);
        for (const RecordId& id : ids) ref.erase(id);
      } catch (const Error& e) {
        ASSERT_TRUE(poison) << e.what();
      }
    } else if (action == 7 && step % 50 == 7) {  // save and load
      const std::vector<uint8_t> bytes = c.serialize();
      c = Collection::load(bytes.data(), bytes.size());
    } else {  // a filtered query
      std::vector<float> q(kDim);
      for (float& x : q) x = g(rng);
      const int color = int(rng() % 4);
      const double size = double(rng() % 50);
      std::string filter;
      std::function<bool(const Ref&)> pass;
      switch (rng() % 4) {
        case 0:
          filter = "{\"color\":\"c" + std::to_string(color) + "\"}";
          pass = [=](const Ref& r) { return r.color == color; };
          break;
        case 1:
          filter = "{\"size\":{\"$lt\":" + std::to_string(int(size)) + "},\"tags\":\"b\"}";
          pass = [=](const Ref& r) {
            return r.size < size && std::find(r.tags.begin(), r.tags.end(), "b") != r.tags.end();
          };
          break;
        case 2:
          filter = "{\"$or\":[{\"color\":{\"$ne\":\"c" + std::to_string(color) + "\"}},{\"size\":{\"$gte\":40}}]}";
          pass = [=](const Ref& r) { return r.color != color || r.size >= 40; };
          break;
        default: filter = ""; pass = [](const Ref&) { return true; };
      }
      QueryOptions qo;
      qo.top_k = 1 + rng() % 12;
      qo.filter = filter;
      qo.return_metadata = true;
      const bool with_ns = rng() % 4 == 0;
      if (with_ns) qo.ns = "n1";
      std::vector<std::pair<float, RecordId>> want;
      for (const auto& [id, r] : ref) {
        if (!pass(r) || (with_ns && r.ns != "n1")) continue;
        float d = 0;
        for (size_t i = 0; i < kDim; ++i) d += (r.v[i] - q[i]) * (r.v[i] - q[i]);
        want.push_back({d, id});
      }
      std::sort(want.begin(), want.end());
      const QueryResult res = c.query(q, qo);
      ASSERT_EQ(res.plan.matching, want.size()) << filter;
      ASSERT_EQ(res.matches.size(), std::min(qo.top_k, want.size())) << filter;
      for (const Match& m : res.matches) {
        ASSERT_TRUE(ref.count(m.id));
        const Ref& r = ref.at(m.id);
        ASSERT_TRUE(pass(r)) << filter;
        ASSERT_EQ(m.metadata, r.metadata);
        ASSERT_EQ(m.ns, r.ns);
      }
      if (exact) {
        for (size_t i = 0; i < res.matches.size(); ++i) {
          ASSERT_NEAR(res.matches[i].distance, want[i].first, 1e-4);
        }
      }
      ++checked;
    }
    ASSERT_EQ(c.size(), ref.size());
  }
  EXPECT_GT(checked, 100u);
  for (const auto& [id, r] : ref) {
    const auto got = c.get({id}, GetParam() != "quantized-nokeep")[0];
    ASSERT_TRUE(got.has_value());
    EXPECT_EQ(got->metadata, r.metadata);
    EXPECT_EQ(got->ns, r.ns);
  }
}

INSTANTIATE_TEST_SUITE_P(Kinds, CollectionProperty, ::testing::Values("flat", "hnsw", "quantized"));

}  // namespace test_collection_property
}  // namespace quiver
