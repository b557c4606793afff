// Dataset files for the CLI, the benchmarks and the tests: vectors in .fvecs, .fbin, .npy
// (float32, C order, format 1.0/2.0/3.0 headers) or raw float32 (the dimension given by the
// caller), and exact ground truth in .ivecs or .ibin.
//
//   fvecs / ivecs   per row: int32 d, then d float32 / int32 (every row the same d)
//   fbin / ibin     uint32 rows, uint32 dim, then rows x dim float32 / int32
//   npy             "\x93NUMPY", version, header dict {'descr': '<f4', 'fortran_order':
//                   False, 'shape': (rows, dim)}, then the data
//   raw             rows x dim float32, nothing else
// All little-endian. Every parser checks each declared size against the bytes present before
// it allocates, and throws quiver::Error: TRUNCATED (the bytes end early), CORRUPT
// (impossible dimension, inconsistent rows, trailing bytes), BAD_MAGIC (not an .npy file),
// UNSUPPORTED_VERSION (an .npy version other than 1-3), INVALID_ARGUMENT (a dtype or layout
// Quiver does not read, raw without a dimension), IO_ERROR (the file system).
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace quiver::io {

enum class DatasetFormat { fvecs, fbin, npy, raw, ivecs, ibin };

const char* dataset_format_name(DatasetFormat format) noexcept;
// "fvecs", "fbin", "npy", "raw", "ivecs", "ibin"; throws Error(InvalidArgument).
DatasetFormat parse_dataset_format(const std::string& name);
// From the extension: .fvecs .fbin .npy .ivecs .ibin, .f32/.raw for raw float32.
// Throws Error(InvalidArgument) for anything else.
DatasetFormat dataset_format_from_path(const std::string& path);

struct Vectors {
  size_t rows = 0;
  size_t dim = 0;
  std::vector<float> data;  // rows x dim, row-major
};

struct GroundTruth {
  size_t rows = 0;
  size_t k = 0;
  std::vector<int32_t> ids;  // rows x k, nearest first; negative values mean "no neighbour"
};

// Parse a whole file held in memory. raw_dim is required for raw and ignored otherwise.
Vectors parse_vectors(const uint8_t* data, size_t size, DatasetFormat format, size_t raw_dim = 0);
GroundTruth parse_ground_truth(const uint8_t* data, size_t size, DatasetFormat format);

// Read a file; the format defaults to the one its extension names. Messages name the file.
Vectors read_vectors(const std::string& path, std::optional<DatasetFormat> format = {}, size_t raw_dim = 0);
GroundTruth read_ground_truth(const std::string& path, std::optional<DatasetFormat> format = {});

// Encode and write (atomically). Vectors: fvecs, fbin, npy, raw; ground truth: ivecs, ibin.
std::vector<uint8_t> encode_vectors(const float* data, size_t rows, size_t dim, DatasetFormat format);
std::vector<uint8_t> encode_ground_truth(const int32_t* ids, size_t rows, size_t k, DatasetFormat format);
void write_vectors(const std::string& path, const float* data, size_t rows, size_t dim,
                   std::optional<DatasetFormat> format = {});
void write_ground_truth(const std::string& path, const int32_t* ids, size_t rows, size_t k,
                        std::optional<DatasetFormat> format = {});

}  // namespace quiver::io
