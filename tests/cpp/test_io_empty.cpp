// Every kind, with every option that changes what its file holds, serialises an empty index
// (never filled, or emptied by remove) to a file its own loader reads back: same options, no
// vectors, the same bytes again, and still usable.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "quiver/quiver.hpp"

namespace quiver {
namespace test_io_empty {

const Metric kMetrics[] = {Metric::l2, Metric::ip, Metric::cosine};
const std::vector<float> kRow = {0.5f, -1.0f, 2.0f, 0.25f, 1.5f};
constexpr size_t kDim = 5;

// Loads `bytes`, checks the round trip, then adds one vector and finds it.
template <typename Index, typename Same>
void check_round_trip(const std::vector<uint8_t>& bytes, Same&& same_options, const std::string& what) {
  SCOPED_TRACE(what);
  Index loaded = [&] {
    try {
      return Index::load(bytes);
    } catch (const Error& e) {
      ADD_FAILURE() << e.code_name() << ": " << e.what();
      throw;
    }
  }();
  EXPECT_EQ(loaded.size(), 0u);
  same_options(loaded);
  EXPECT_EQ(loaded.serialize(), bytes);
  loaded.add({42}, kRow);
  const auto r = loaded.search(kRow, 3);
  ASSERT_EQ(r.size(), 1u);
  EXPECT_EQ(r[0].id, 42u);
}

TEST(EmptyIndexFiles, FlatRoundTrips) {
  for (Metric metric : kMetrics) {
    for (bool emptied : {false, true}) {
      FlatIndex index({kDim, metric});
      if (emptied) {
        index.add({7}, kRow);
        index.remove({7});
      }
      check_round_trip<FlatIndex>(
          index.serialize(),
          [&](const FlatIndex& l) {
            EXPECT_EQ(l.dim(), kDim);
            EXPECT_EQ(l.metric(), metric);
          },
          std::string("flat ") + metric_name(metric) + (emptied ? " emptied" : " new"));
    }
  }
}

TEST(EmptyIndexFiles, QuantizedRoundTrips) {
  for (Metric metric : kMetrics) {
    for (unsigned bits : {2u, 4u}) {
      for (bool keep : {false, true}) {
        for (bool emptied : {false, true}) {
          QuantizedIndexOptions o;
          o.dim = kDim;
          o.metric = metric;
          o.bits = bits;
          o.keep_vectors = keep;
          o.seed = 7;
          QuantizedIndex index(o);
          if (emptied) {
            index.add({7}, kRow);
            index.remove({7});
          }
          check_round_trip<QuantizedIndex>(
              index.serialize(),
              [&](const QuantizedIndex& l) {
                EXPECT_EQ(l.dim(), kDim);
                EXPECT_EQ(l.metric(), metric);
                EXPECT_EQ(l.bits(), bits);
                EXPECT_EQ(l.keeps_vectors(), keep);
                EXPECT_EQ(l.seed(), 7u);
              },
              std::string("quantized ") + metric_name(metric) + " bits " + std::to_string(bits) +
                  (keep ? " keep" : " codes only") + (emptied ? " emptied" : " new"));
        }
      }
    }
  }
}

TEST(EmptyIndexFiles, HnswRoundTrips) {
  for (Metric metric : kMetrics) {
    for (HnswStorage storage : {HnswStorage::f32, HnswStorage::sq8}) {
      for (bool keep : {false, true}) {
        if (storage == HnswStorage::f32 && !keep) continue;  // f32 storage always holds its vectors
        for (bool emptied : {false, true}) {
          HnswIndexOptions o;
          o.dim = kDim;
          o.metric = metric;
          o.storage = storage;
          o.keep_vectors = keep;
          HnswIndex index(o);
          if (emptied) {
            index.add({7}, kRow);
            index.remove({7});
          }
          check_round_trip<HnswIndex>(
              index.serialize(),
              [&](const HnswIndex& l) {
                EXPECT_EQ(l.dim(), kDim);
                EXPECT_EQ(l.metric(), metric);
                EXPECT_EQ(l.storage(), storage);
                EXPECT_EQ(l.keeps_vectors(), keep);
              },
              std::string("hnsw ") + metric_name(metric) + " " + hnsw_storage_name(storage) +
                  (keep ? " keep" : " codes only") + (emptied ? " emptied" : " new"));
        }
      }
    }
  }
}

}  // namespace test_io_empty
}  // namespace quiver
