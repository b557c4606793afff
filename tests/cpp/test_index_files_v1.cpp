// Files written by the version before the shared slot table (tests/cpp/data/v1/, see
// index_files_v1.hpp) still load, re-serialise to the very same bytes, and answer every
// search mode with the same ids and the same distances (to float rounding) at every ISA level.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <iterator>
#include <sstream>
#include <string>
#include <vector>

#include "index_files_v1.hpp"
#include "index_files_v1_embedded.hpp"

namespace quiver {
namespace test_index_files_v1 {

using namespace test::v1;

std::vector<uint8_t> file_bytes(const std::string& name) {
  for (size_t i = 0; i < test::kIndexFilesV1Count; ++i) {
    const test::EmbeddedFile& f = test::kIndexFilesV1[i];
    if (name == f.name) return std::vector<uint8_t>(f.data, f.data + f.size);
  }
  ADD_FAILURE() << "no committed file " << name << " (tests/cpp/data/v1/)";
  return {};
}

std::string file_text(const std::string& name) {
  const std::vector<uint8_t> bytes = file_bytes(name);
  return std::string(bytes.begin(), bytes.end());
}

struct Answer {
  std::string label;  // "<mode> <query>"
  std::vector<uint64_t> ids;
  std::vector<float> distances;
};

// Parses the answers text (index_files_v1.hpp: "<mode> <query>: <id>:<hex float> ...").
std::vector<Answer> parse(const std::string& text) {
  std::vector<Answer> out;
  std::istringstream lines(text);
  std::string line;
  while (std::getline(lines, line)) {
    Answer a;
    const size_t colon = line.find(':');
    a.label = line.substr(0, colon);
    std::istringstream items(line.substr(colon + 1));
    std::string item;
    while (items >> item) {
      const size_t sep = item.find(':');
      a.ids.push_back(std::stoull(item.substr(0, sep)));
      a.distances.push_back(std::strtof(item.c_str() + sep + 1, nullptr));
    }
    out.push_back(std::move(a));
  }
  return out;
}

// Loads the committed file, checks the round trip, then every search mode. Ids must match
// exactly; distances to float rounding only, because the ISA levels sum in different orders
// (the files were written at one level and are checked at all of them).
template <typename Index>
void check(const char* name, const std::vector<Mode<Index>>& modes) {
  SCOPED_TRACE(name);
  const std::vector<uint8_t> bytes = file_bytes(std::string(name) + ".qvr");
  ASSERT_FALSE(bytes.empty());
  const Index index = Index::load(bytes);
  EXPECT_TRUE(index.serialize() == bytes) << "re-serialised bytes differ from the committed file";
  const std::vector<Answer> expected = parse(file_text(std::string(name) + ".expected"));
  const std::vector<Answer> actual = parse(answers(index, modes));
  ASSERT_EQ(actual.size(), expected.size()) << "different number of answer lines";
  ASSERT_EQ(expected.size(), modes.size() * kQueries);
  for (size_t i = 0; i < expected.size(); ++i) {
    const Answer& e = expected[i];
    const Answer& a = actual[i];
    SCOPED_TRACE(e.label);
    EXPECT_EQ(a.label, e.label);
    EXPECT_EQ(a.ids, e.ids);
    ASSERT_EQ(a.distances.size(), e.distances.size());
    for (size_t j = 0; j < e.distances.size(); ++j) {
      EXPECT_NEAR(a.distances[j], e.distances[j], 1e-5 * std::max(1.0f, std::fabs(e.distances[j])));
    }
  }
}

TEST(IndexFilesV1, EveryCommittedFileIsChecked) {
  // 3 kinds x 3 fixtures, each an index file and its answers: a missing or extra file means
  // the data directory and index_files_v1.hpp disagree.
  EXPECT_EQ(test::kIndexFilesV1Count, 2 * (std::size(kFlat) + std::size(kQuantized) + std::size(kHnsw)));
}

TEST(IndexFilesV1, FlatFilesLoadAndAnswerIdentically) {
  for (const FlatFixture& f : kFlat) check<FlatIndex>(f.name, flat_modes());
}

TEST(IndexFilesV1, QuantizedFilesLoadAndAnswerIdentically) {
  for (const QuantizedFixture& f : kQuantized) check<QuantizedIndex>(f.name, quantized_modes(f.keep_vectors));
}

TEST(IndexFilesV1, HnswFilesLoadAndAnswerIdentically) {
  for (const HnswFixture& f : kHnsw) check<HnswIndex>(f.name, hnsw_modes());
}

}  // namespace test_index_files_v1
}  // namespace quiver
