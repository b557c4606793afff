// libFuzzer target: the dataset readers. Byte 0 picks the format (fvecs, fbin, npy, raw,
// ivecs, ibin), byte 1 the raw dimension; the rest is the file. Any input must parse or
// throw quiver::Error; whatever parses must encode back to a file that parses to the same.
#include <cstdint>
#include <cstdlib>
#include <cstring>

#include "tools/datasets.hpp"
#include "quiver/error.hpp"

using namespace quiver::io;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 2) return 0;
  const auto format = DatasetFormat(data[0] % 6);
  const size_t raw_dim = data[1];
  data += 2;
  size -= 2;
  try {
    if (format == DatasetFormat::ivecs || format == DatasetFormat::ibin) {
      const GroundTruth g = parse_ground_truth(data, size, format);
      if (g.ids.size() != g.rows * g.k) std::abort();
      const auto bytes = encode_ground_truth(g.ids.data(), g.rows, g.k, format);
      const GroundTruth back = parse_ground_truth(bytes.data(), bytes.size(), format);
      if (back.ids != g.ids) std::abort();
    } else {
      const Vectors v = parse_vectors(data, size, format, raw_dim);
      if (v.data.size() != v.rows * v.dim) std::abort();
      if (v.rows == 0) return 0;
      const auto bytes = encode_vectors(v.data.data(), v.rows, v.dim, format);
      const Vectors back = parse_vectors(bytes.data(), bytes.size(), format, v.dim);
      if (back.rows != v.rows || back.dim != v.dim ||
          std::memcmp(back.data.data(), v.data.data(), v.data.size() * sizeof(float)) != 0) {
        std::abort();
      }
    }
  } catch (const quiver::Error&) {
  }
  return 0;
}
