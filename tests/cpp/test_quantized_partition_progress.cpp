// The WorkObserver of a partitioned quantised add (include/quiver/work_observer.hpp): an add that
// trains reports its k-means pieces and its re-assignment, in order, on the calling thread; an
// observer that answers false stops the add with Aborted and the index is as it was, byte for
// byte; and observing changes nothing in what the add builds.
#include <gtest/gtest.h>

#include <string>
#include <thread>
#include <vector>

#include "quantized_test_support.hpp"
#include "workload_test_support.hpp"
#include "quiver/quiver.hpp"
#include "test_support.hpp"

namespace quiver {
namespace test_quantized_partition_progress {

struct Report {
  std::string step;
  size_t done, total;
};

test::Workload data() { return test::clustered_workload(2000, 1, 32, 16, 7, 1); }
QuantizedIndexOptions partitioned(size_t dim) { return test::quantized_options(dim, Metric::l2, 4, true, 16); }

TEST(QuantizedPartitionProgress, ATrainingAddReportsItsStepsInOrderOnTheCallingThread) {
  const auto d = data();
  QuantizedIndex index(partitioned(d.dim));
  std::vector<Report> seen;
  const auto caller = std::this_thread::get_id();
  {
    WorkObserverScope observe([&](const char* step, size_t done, size_t total) {
      EXPECT_EQ(std::this_thread::get_id(), caller);
      seen.push_back({step, done, total});
      return true;
    });
    index.add(d.ids, d.base);  // 2,000 rows >= 32 x 16: trains 16 lists
  }
  ASSERT_EQ(index.lists(), 16u);
  ASSERT_FALSE(seen.empty());
  size_t training = 0, assigning = 0;
  for (size_t i = 0; i < seen.size(); ++i) {
    const Report& r = seen[i];
    ASSERT_TRUE(r.step == "training" || r.step == "assigning") << r.step;
    if (r.step == "training") {
      EXPECT_EQ(assigning, 0u) << "training comes first";
      EXPECT_EQ(r.done, ++training);
    } else {
      EXPECT_EQ(r.done, ++assigning);
    }
    EXPECT_LE(r.done, r.total);
  }
  EXPECT_GT(training, 8u) << "more than one report a round";
  EXPECT_EQ(seen.front().total, training);
  EXPECT_EQ(seen.back().done, seen.back().total);
  // Outside the scope nothing observes, and an add that trains nothing reports nothing.
  seen.clear();
  QuantizedIndex small(partitioned(d.dim));
  {
    WorkObserverScope observe([&](const char* step, size_t done, size_t total) {
      seen.push_back({step, done, total});
      return true;
    });
    small.add(std::vector<uint64_t>(d.ids.begin(), d.ids.begin() + 100),
              std::vector<float>(d.base.begin(), d.base.begin() + 100 * d.dim));
  }
  EXPECT_TRUE(seen.empty());
}

TEST(QuantizedPartitionProgress, AnObserverThatSaysStopAbortsTheAddAndChangesNothing) {
  const auto d = data();
  const std::vector<uint64_t> first_ids(d.ids.begin(), d.ids.begin() + 300);
  const std::vector<float> first(d.base.begin(), d.base.begin() + 300 * d.dim);
  const std::vector<uint64_t> rest_ids(d.ids.begin() + 300, d.ids.end());
  const std::vector<float> rest(d.base.begin() + 300 * d.dim, d.base.end());
  QuantizedIndex plain(partitioned(d.dim));
  plain.add(first_ids, first);
  plain.add(rest_ids, rest);

  for (const std::string stop_in : {"training", "assigning"}) {
    QuantizedIndex index(partitioned(d.dim));
    index.add(first_ids, first);
    const std::vector<uint8_t> before = index.serialize();
    size_t calls = 0;
    try {
      WorkObserverScope observe([&](const char* step, size_t done, size_t) {
        ++calls;
        return !(stop_in == step && done == 2);
      });
      index.add(rest_ids, rest);
      FAIL() << "the add was not stopped in " << stop_in;
    } catch (const Error& e) {
      EXPECT_EQ(e.code(), ErrorCode::Aborted) << e.what();
      EXPECT_NE(std::string(e.what()).find(stop_in), std::string::npos) << e.what();
    }
    EXPECT_GE(calls, 2u);
    EXPECT_EQ(index.size(), 300u);
    EXPECT_EQ(index.lists(), 1u);
    EXPECT_EQ(index.serialize(), before) << "stopped in " << stop_in;
    // The same add again, observed to the end, builds what an unobserved one builds.
    {
      WorkObserverScope observe([](const char*, size_t, size_t) { return true; });
      index.add(rest_ids, rest);
    }
    EXPECT_EQ(index.serialize(), plain.serialize());
  }
  EXPECT_STREQ(error_code_name(ErrorCode::Aborted), "ABORTED");
}

TEST(QuantizedPartitionProgress, ScopesNestAndRestoreTheOuterObserver) {
  const auto d = data();
  size_t outer = 0, inner = 0;
  WorkObserverScope a([&](const char*, size_t, size_t) { return ++outer, true; });
  {
    WorkObserverScope b([&](const char*, size_t, size_t) { return ++inner, true; });
    QuantizedIndex index(partitioned(d.dim));
    index.add(d.ids, d.base);
  }
  EXPECT_GT(inner, 0u);
  EXPECT_EQ(outer, 0u);
  QuantizedIndex again(partitioned(d.dim));
  again.add(d.ids, d.base);
  EXPECT_GT(outer, 0u);
}

}  // namespace test_quantized_partition_progress
}  // namespace quiver
