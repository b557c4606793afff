// HNSW memory at the edge (issue 12): the graph grows without copying what it holds, and a
// file loads section by section without the loader ever holding it.
//   * Growth: the node blocks and kept vectors live in chunks (core/row_blocks.hpp). A stored
//     node never moves when later adds grow the storage — before, every growth reallocated the
//     whole node array and copied it (peaks of 2-3x the index in a wasm heap that never
//     shrinks).
//   * Loading: an HNSW file streamed through io::StreamLoader is decoded as it arrives (links,
//     codes and vectors straight into the node storage). The loader's own buffer stays the size
//     of the file's head — before, it gathered the whole file beside the index it built.
// The heap bound itself (growth <= 1.2x memoryBytes in wasm) is tests/js/edge-memory-hnsw.test.mjs.
#include <gtest/gtest.h>

#include <algorithm>
#include <vector>

#include "hnsw_test_support.hpp"
#include "index/hnsw/hnsw_state.hpp"
#include "index/common/stream_loader.hpp"
#include "quiver/quiver.hpp"

namespace quiver {
namespace test_hnsw_storage_growth {

using hnsw_test::Data;

struct Storage {
  const char* name;
  HnswStorage storage;
  bool keep;
};
constexpr Storage kStorages[] = {
    {"f32", HnswStorage::f32, true}, {"sq8", HnswStorage::sq8, false}, {"sq8+kept", HnswStorage::sq8, true}};

HnswIndexOptions options(const Storage& s, size_t dim) {
  HnswIndexOptions o{dim, Metric::cosine, 8, 32, 42};
  o.storage = s.storage;
  o.keep_vectors = s.keep;
  return o;
}

TEST(HnswStorageGrowth, StoredNodesNeverMoveWhenTheGraphGrows) {
  const Data d = hnsw_test::clustered(3000, 1, 48);
  for (const Storage& s : kStorages) {
    SCOPED_TRACE(s.name);
    HnswIndex index(options(s, d.dim));
    // Adds of 1, then 99, then the rest in 400s: many growths, small and large.
    std::vector<size_t> cuts = {0, 1, 100};
    while (cuts.back() < d.n) cuts.push_back(std::min(d.n, cuts.back() + 400));
    std::vector<const uint32_t*> first_links;
    std::vector<const float*> first_vectors;
    for (size_t c = 0; c + 1 < cuts.size(); ++c) {
      const size_t a = cuts[c], b = cuts[c + 1];
      index.add(d.ids.data() + a, d.base.data() + a * d.dim, b - a);
      // Where the first 100 nodes live never changes once they exist.
      for (uint32_t slot = 0; slot < std::min<size_t>(b, 100); ++slot) {
        const uint32_t* links = HnswIndexAccess::links(index, slot, 0);
        const float* vector = HnswIndexAccess::vector(index, slot);
        if (slot >= first_links.size()) {
          first_links.push_back(links);
          first_vectors.push_back(vector);
        }
        ASSERT_EQ(links, first_links[slot]) << "node " << slot << " moved after adding " << b << " vectors";
        ASSERT_EQ(vector, first_vectors[slot]) << "vector " << slot << " moved after adding " << b << " vectors";
      }
    }
    // The storage holds whole chunks, not a 1.5x growth reserve: at most one partly used chunk
    // per row store beyond the rows (256 KiB each) and a few bytes per node of bookkeeping.
    const size_t rows = d.n * index.node_bytes() + (s.storage == HnswStorage::sq8 && s.keep ? d.n * 48 * 4 : 0);
    EXPECT_LE(index.memory_bytes(), rows + 2 * (size_t(256) << 10) + d.n * 64);
  }
}

TEST(HnswStorageGrowth, CompactionFreesTheStoragePastTheLiveNodesWithoutASecondCopy) {
  const Data d = hnsw_test::clustered(2000, 1, 48);
  for (const Storage& s : kStorages) {
    SCOPED_TRACE(s.name);
    HnswIndex index(options(s, d.dim));
    index.add(d.ids, d.base);
    const size_t before = index.memory_bytes();
    index.remove(std::vector<uint64_t>(d.ids.begin() + 500, d.ids.end()));
    const float* kept_first = HnswIndexAccess::vector(index, 0);
    index.compact();
    EXPECT_EQ(index.size(), 500u);
    EXPECT_LT(index.memory_bytes(), before / 2);
    // Slot 0 was live: it stays where it was (compaction renumbers in place).
    EXPECT_EQ(HnswIndexAccess::vector(index, 0), kept_first);
    std::vector<Neighbor> out(1);
    ASSERT_EQ(index.search(d.base.data() + 7 * d.dim, 1, out.data()), 1u);
    EXPECT_EQ(out[0].id, d.ids[7]);
  }
}

// A file pushed in small chunks loads into the same index as its bytes, and the loader never
// holds more than the file's head: the graph is decoded as the bytes arrive.
TEST(HnswStreamLoad, DecodesAsTheBytesArriveAndHoldsOnlyTheHead) {
  const Data d = hnsw_test::clustered(1500, 1, 40);
  for (const Storage& s : kStorages) {
    SCOPED_TRACE(s.name);
    HnswIndex index(options(s, d.dim));
    index.add(d.ids, d.base);
    index.remove(std::vector<uint64_t>(d.ids.begin() + 10, d.ids.begin() + 60));  // tombstones, free list
    const std::vector<uint8_t> file = index.serialize();
    for (size_t chunk : {size_t(1000), size_t(4096), size_t(65536)}) {
      io::StreamLoader loader({active_isa()});
      size_t most = 0;
      for (size_t at = 0; at < file.size(); at += chunk) {
        loader.push(file.data() + at, std::min(chunk, file.size() - at));
        most = std::max(most, loader.buffer_bytes());
      }
      ASSERT_EQ(loader.finish(), IndexKind::hnsw);
      EXPECT_LE(most, 4096u) << "the loader held " << most << " bytes of a " << file.size() << "-byte file";
      HnswIndex loaded = loader.take_hnsw();
      EXPECT_EQ(loaded.serialize(), file) << "chunk " << chunk;
      EXPECT_EQ(loaded.size(), index.size());
    }
  }
}

}  // namespace test_hnsw_storage_growth
}  // namespace quiver
