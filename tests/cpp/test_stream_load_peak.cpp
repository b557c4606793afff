// The memory a streamed load needs beside the bytes the caller holds (issue 12: the wasm heap
// at most 1.2x what the index reports at every point of a load, never the file twice). The
// peak is the most bytes held at once through operator new (alloc_counter.cpp), measured from
// the moment the caller holds the file until the index is taken, minus what was held before.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <cstdint>
#include <vector>

#include "alloc_counter.hpp"
#include "index/common/stream_loader.hpp"
#include "quiver/quiver.hpp"
#include "workload_test_support.hpp"

namespace quiver {
namespace {

struct Peak {
  size_t index_bytes;  // memory_bytes() of the loaded index
  size_t peak_bytes;   // most held at once during the load, beyond the file
};

// Streams `file` in 64 KiB chunks (a fetch body's size) with its length known, as the JS
// loadStream does for a Response with Content-Length.
Peak streamed_load_peak(const std::vector<uint8_t>& file) {
  const size_t before = test::live_bytes();
  test::reset_peak_live_bytes();
  size_t index_bytes = 0;
  {
    io::StreamOptions options;
    options.isa = Isa::scalar;
    options.size_hint = file.size();
    io::StreamLoader loader(options);
    constexpr size_t kChunk = 64 * 1024;
    for (size_t at = 0; at < file.size(); at += kChunk)
      loader.push(file.data() + at, std::min(kChunk, file.size() - at));
    EXPECT_EQ(loader.finish(), IndexKind::quantized);
    const QuantizedIndex index = loader.take_quantized();
    index_bytes = index.memory_bytes();
  }
  const Peak p{index_bytes, test::peak_live_bytes() - before};
  std::printf("streamed load: file %zu bytes, index %zu bytes, peak %zu bytes (%.3fx the index)\n", file.size(),
              p.index_bytes, p.peak_bytes, double(p.peak_bytes) / double(p.index_bytes));
  return p;
}

std::vector<uint8_t> quantized_file(const QuantizedIndexOptions& options, size_t n) {
  const test::Workload d = test::gaussian_workload(n, 1, options.dim, 3, 1);
  QuantizedIndex index(options, Isa::scalar);
  index.add(d.ids, d.base);
  return index.serialize();
}

// Codes only (the kind whose file is nearly all of the index): the stream is decoded into the
// index as it arrives, so the peak is the index and a chunk's worth of work, not file + index.
TEST(StreamLoadPeak, CodesOnlyQuantizedLoadStaysWithinOnePointTwoTimesTheIndex) {
  const std::vector<uint8_t> file = quantized_file({128, Metric::l2, 4, 7, /*keep_vectors=*/false}, 20000);
  const Peak p = streamed_load_peak(file);
  EXPECT_LE(double(p.peak_bytes), 1.2 * double(p.index_bytes)) << "file " << file.size() << " bytes";
}

TEST(StreamLoadPeak, QuantizedWithKeptVectorsLoadStaysWithinOnePointTwoTimesTheIndex) {
  const std::vector<uint8_t> file = quantized_file({64, Metric::cosine, 4, 7, /*keep_vectors=*/true}, 10000);
  const Peak p = streamed_load_peak(file);
  EXPECT_LE(double(p.peak_bytes), 1.2 * double(p.index_bytes)) << "file " << file.size() << " bytes";
}

// Partitioned (lists auto: trained at 16,384 and 8,192 rows, 128 and 91 lists): the partition
// precedes the codes in the file, so each slot's codes go straight to its list as they arrive.
// Before, such a file was gathered whole first: file + index at the peak (about 1.5-1.8x).
// Codes only is the 4 + 3-bit kind of the README's 128 MB table.
TEST(StreamLoadPeak, PartitionedCodesOnlyQuantizedLoadStaysWithinOnePointTwoTimesTheIndex) {
  QuantizedIndexOptions options{128, Metric::l2, 4, 7, /*keep_vectors=*/false};
  options.refine_bits = 3;
  options.lists = QuantizedIndexOptions::kAutoLists;
  const std::vector<uint8_t> file = quantized_file(options, 20000);
  const Peak p = streamed_load_peak(file);
  EXPECT_LE(double(p.peak_bytes), 1.2 * double(p.index_bytes)) << "file " << file.size() << " bytes";
}

TEST(StreamLoadPeak, PartitionedQuantizedWithKeptVectorsLoadStaysWithinOnePointTwoTimesTheIndex) {
  QuantizedIndexOptions options{64, Metric::cosine, 4, 7, /*keep_vectors=*/true};
  options.lists = QuantizedIndexOptions::kAutoLists;
  const std::vector<uint8_t> file = quantized_file(options, 10000);
  const Peak p = streamed_load_peak(file);
  EXPECT_LE(double(p.peak_bytes), 1.2 * double(p.index_bytes)) << "file " << file.size() << " bytes";
}

}  // namespace
}  // namespace quiver
