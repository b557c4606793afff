#include "tools/datasets.hpp"

#include <cstring>
#include <new>

#include "base/little_endian.hpp"
#include "container/file.hpp"
#include "quiver/error.hpp"

namespace quiver::io {
namespace {

constexpr uint64_t kMaxDim = 1u << 24;

constexpr auto get_u32 = le::u32;
using le::put_u32;

[[noreturn]] void fail(ErrorCode code, const char* format, const std::string& message) {
  throw Error(code, std::string(format) + ": " + message);
}

std::string str(uint64_t v) { return std::to_string(v); }

// Copies n little-endian 32-bit words (float or int32) into out.
template <typename T>
void copy_words(const uint8_t* src, size_t n, T* out) {
  static_assert(sizeof(T) == 4, "32-bit words");
  for (size_t i = 0; i < n; ++i) {
    const uint32_t bits = get_u32(src + 4 * i);
    std::memcpy(out + i, &bits, 4);
  }
}

template <typename T>
std::vector<T> alloc(uint64_t n, const char* format) {
  if (n > SIZE_MAX / sizeof(T)) fail(ErrorCode::OutOfMemory, format, "too large for this address space");
  try {
    return std::vector<T>(size_t(n));
  } catch (const std::bad_alloc&) {
    fail(ErrorCode::OutOfMemory, format, "out of memory for " + str(n) + " values");
  }
}

void check_dim(uint64_t dim, const char* format) {
  if (dim == 0 || dim > kMaxDim) {
    fail(ErrorCode::Corrupt, format, "impossible dimension " + str(dim) + " (expected 1 to 16777216)");
  }
}

// fvecs / ivecs: rows of (int32 d, d words).
template <typename T>
void parse_vecs(const uint8_t* data, size_t size, const char* format, size_t* rows_out, size_t* dim_out,
                std::vector<T>* out) {
  if (size == 0) fail(ErrorCode::Corrupt, format, "the file is empty");
  if (size < 4) fail(ErrorCode::Truncated, format, "truncated: " + str(size) + " bytes, no complete row header");
  const int32_t d = int32_t(get_u32(data));
  if (d <= 0 || uint64_t(d) > kMaxDim) {
    fail(ErrorCode::Corrupt, format, "impossible dimension " + std::to_string(d) + " in the first row");
  }
  const uint64_t row_bytes = 4 + 4 * uint64_t(d);
  if (size % row_bytes != 0) {
    fail(ErrorCode::Truncated, format,
         "truncated: " + str(size) + " bytes is not a whole number of " + str(row_bytes) + "-byte rows of dimension " +
             std::to_string(d));
  }
  const uint64_t rows = size / row_bytes;
  for (uint64_t r = 1; r < rows; ++r) {
    const int32_t dr = int32_t(get_u32(data + r * row_bytes));
    if (dr != d) {
      fail(ErrorCode::Corrupt, format,
           "row " + str(r) + " declares dimension " + std::to_string(dr) + ", the first row " + std::to_string(d));
    }
  }
  *out = alloc<T>(rows * uint64_t(d), format);
  for (uint64_t r = 0; r < rows; ++r) copy_words(data + r * row_bytes + 4, size_t(d), out->data() + r * d);
  *rows_out = size_t(rows);
  *dim_out = size_t(d);
}

// fbin / ibin: uint32 rows, uint32 dim, rows x dim words.
template <typename T>
void parse_bin(const uint8_t* data, size_t size, const char* format, size_t* rows_out, size_t* dim_out,
               std::vector<T>* out) {
  if (size < 8)
    fail(ErrorCode::Truncated, format, "truncated: " + str(size) + " bytes, shorter than the 8-byte header");
  const uint64_t rows = get_u32(data);
  const uint64_t dim = get_u32(data + 4);
  check_dim(dim, format);
  const uint64_t need = 8 + rows * dim * 4;  // < 2^32 * 2^24 * 4: no overflow
  if (need > size) {
    fail(ErrorCode::Truncated, format,
         "truncated: the header declares " + str(rows) + " x " + str(dim) + " values (" + str(need) + " bytes), only " +
             str(size) + " present");
  }
  if (need < size) {
    fail(ErrorCode::Corrupt, format,
         str(size - need) + " unexpected bytes after " + str(rows) + " x " + str(dim) + " values");
  }
  *out = alloc<T>(rows * dim, format);
  copy_words(data + 8, size_t(rows * dim), out->data());
  *rows_out = size_t(rows);
  *dim_out = size_t(dim);
}

// The value text after 'key': in an .npy header dict, or fails.
std::string npy_field(const std::string& header, const std::string& key) {
  const std::string quoted[2] = {"'" + key + "'", "\"" + key + "\""};
  for (const auto& q : quoted) {
    const size_t at = header.find(q);
    if (at == std::string::npos) continue;
    size_t p = at + q.size();
    while (p < header.size() && header[p] == ' ') ++p;
    if (p >= header.size() || header[p] != ':') break;
    ++p;
    while (p < header.size() && header[p] == ' ') ++p;
    size_t end = p;
    if (p < header.size() && header[p] == '(') {
      end = header.find(')', p);
      if (end == std::string::npos) break;
      ++end;
    } else if (p < header.size() && (header[p] == '\'' || header[p] == '"')) {
      end = header.find(header[p], p + 1);
      if (end == std::string::npos) break;
      ++end;
    } else {
      while (end < header.size() && header[end] != ',' && header[end] != '}') ++end;
    }
    return header.substr(p, end - p);
  }
  fail(ErrorCode::Corrupt, "npy", "the header has no readable '" + key + "' field");
}

Vectors parse_npy(const uint8_t* data, size_t size) {
  static const uint8_t magic[6] = {0x93, 'N', 'U', 'M', 'P', 'Y'};
  if (size > 0 && std::memcmp(data, magic, size < 6 ? size : 6) != 0) {
    fail(ErrorCode::BadMagic, "npy", "not an .npy file (the first bytes are not \\x93NUMPY)");
  }
  if (size < 10) fail(ErrorCode::Truncated, "npy", "truncated: " + str(size) + " bytes, shorter than the preamble");
  const unsigned major = data[6], minor = data[7];
  uint64_t header_len, header_at;
  if (major == 1) {
    header_len = uint64_t(data[8]) | uint64_t(data[9]) << 8;
    header_at = 10;
  } else if (major == 2 || major == 3) {
    if (size < 12) fail(ErrorCode::Truncated, "npy", "truncated: " + str(size) + " bytes, shorter than the preamble");
    header_len = get_u32(data + 8);
    header_at = 12;
  } else {
    fail(ErrorCode::UnsupportedVersion, "npy",
         "format version " + std::to_string(major) + "." + std::to_string(minor) +
             " is not supported (1.0, 2.0, 3.0 are)");
  }
  if (header_at + header_len > size) {
    fail(ErrorCode::Truncated, "npy",
         "truncated: the header declares " + str(header_len) + " bytes, only " + str(size - header_at) + " present");
  }
  const std::string header(reinterpret_cast<const char*>(data + header_at), size_t(header_len));
  std::string descr = npy_field(header, "descr");
  if (descr.size() >= 2) descr = descr.substr(1, descr.size() - 2);
  if (descr != "<f4") {
    fail(ErrorCode::InvalidArgument, "npy",
         "dtype '" + descr + "' is not supported (Quiver reads little-endian float32, '<f4')");
  }
  const std::string fortran = npy_field(header, "fortran_order");
  if (fortran == "True")
    fail(ErrorCode::InvalidArgument, "npy", "Fortran-order arrays are not supported (use C order)");
  if (fortran != "False") fail(ErrorCode::Corrupt, "npy", "fortran_order must be True or False, not '" + fortran + "'");
  const std::string shape = npy_field(header, "shape");
  std::vector<uint64_t> dims;
  {
    size_t p = 1;  // after '('
    while (p < shape.size()) {
      while (p < shape.size() && (shape[p] == ' ' || shape[p] == ',')) ++p;
      if (p >= shape.size() || shape[p] == ')') break;
      if (shape[p] < '0' || shape[p] > '9') {
        fail(ErrorCode::Corrupt, "npy", "impossible shape " + shape);
      }
      uint64_t v = 0;
      while (p < shape.size() && shape[p] >= '0' && shape[p] <= '9') {
        if (v > (uint64_t(1) << 40)) fail(ErrorCode::Corrupt, "npy", "impossible shape " + shape);
        v = v * 10 + uint64_t(shape[p] - '0');
        ++p;
      }
      dims.push_back(v);
      if (dims.size() > 2) {
        fail(ErrorCode::InvalidArgument, "npy", "shape " + shape + " is not a matrix (rows, dim)");
      }
    }
  }
  if (shape.empty() || shape[0] != '(' || dims.empty()) {
    fail(ErrorCode::InvalidArgument, "npy", "shape " + shape + " is not a matrix (rows, dim)");
  }
  const uint64_t rows = dims.size() == 2 ? dims[0] : 1;
  const uint64_t dim = dims.back();
  check_dim(dim, "npy");
  const uint64_t body = size - header_at - header_len;
  if (rows > body / (4 * dim)) {  // rows * dim * 4 > body, without overflowing
    fail(ErrorCode::Truncated, "npy",
         "truncated: the shape " + shape + " needs " + str(rows) + " x " + str(dim) + " float32 values, only " +
             str(body) + " bytes present");
  }
  if (rows * dim * 4 < body) {
    fail(ErrorCode::Corrupt, "npy", str(body - rows * dim * 4) + " unexpected bytes after the data");
  }
  Vectors v;
  v.rows = size_t(rows);
  v.dim = size_t(dim);
  v.data = alloc<float>(rows * dim, "npy");
  copy_words(data + header_at + header_len, v.data.size(), v.data.data());
  return v;
}

std::string lower_extension(const std::string& path) {
  const size_t slash = path.find_last_of('/');
  const size_t dot = path.find_last_of('.');
  if (dot == std::string::npos || (slash != std::string::npos && dot < slash)) return "";
  std::string ext = path.substr(dot + 1);
  for (char& c : ext) c = char(c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c);
  return ext;
}

[[noreturn]] void rethrow_with_path(const Error& e, const std::string& path) {
  throw Error(e.code(), path + ": " + e.what());
}

}  // namespace

const char* dataset_format_name(DatasetFormat format) noexcept {
  switch (format) {
    case DatasetFormat::fvecs: return "fvecs";
    case DatasetFormat::fbin: return "fbin";
    case DatasetFormat::npy: return "npy";
    case DatasetFormat::raw: return "raw";
    case DatasetFormat::ivecs: return "ivecs";
    case DatasetFormat::ibin: return "ibin";
  }
  return "unknown";
}

DatasetFormat parse_dataset_format(const std::string& name) {
  for (auto f : {DatasetFormat::fvecs, DatasetFormat::fbin, DatasetFormat::npy, DatasetFormat::raw,
                 DatasetFormat::ivecs, DatasetFormat::ibin}) {
    if (name == dataset_format_name(f)) return f;
  }
  throw Error(ErrorCode::InvalidArgument,
              "unknown dataset format '" + name + "' (expected fvecs, fbin, npy, raw, ivecs or ibin)");
}

DatasetFormat dataset_format_from_path(const std::string& path) {
  const std::string ext = lower_extension(path);
  if (ext == "fvecs") return DatasetFormat::fvecs;
  if (ext == "fbin") return DatasetFormat::fbin;
  if (ext == "npy") return DatasetFormat::npy;
  if (ext == "ivecs") return DatasetFormat::ivecs;
  if (ext == "ibin") return DatasetFormat::ibin;
  if (ext == "f32" || ext == "raw") return DatasetFormat::raw;
  throw Error(ErrorCode::InvalidArgument,
              "cannot tell the format of '" + path +
                  "' from its extension (.fvecs, .fbin, .npy, .f32/.raw, .ivecs, .ibin); name it explicitly");
}

Vectors parse_vectors(const uint8_t* data, size_t size, DatasetFormat format, size_t raw_dim) {
  if (size > 0 && data == nullptr) throw Error(ErrorCode::InvalidArgument, "dataset bytes are null");
  Vectors v;
  switch (format) {
    case DatasetFormat::fvecs: parse_vecs(data, size, "fvecs", &v.rows, &v.dim, &v.data); return v;
    case DatasetFormat::fbin: parse_bin(data, size, "fbin", &v.rows, &v.dim, &v.data); return v;
    case DatasetFormat::npy: return parse_npy(data, size);
    case DatasetFormat::raw: {
      if (raw_dim == 0) {
        throw Error(ErrorCode::InvalidArgument, "raw float32 vectors need their dimension (--dim)");
      }
      check_dim(raw_dim, "raw");
      if (size % (4 * uint64_t(raw_dim)) != 0) {
        fail(ErrorCode::Truncated, "raw",
             "truncated: " + str(size) + " bytes is not a whole number of rows of " + str(raw_dim) + " float32 values");
      }
      v.dim = raw_dim;
      v.rows = size / (4 * raw_dim);
      v.data = alloc<float>(uint64_t(v.rows) * raw_dim, "raw");
      copy_words(data, v.data.size(), v.data.data());
      return v;
    }
    case DatasetFormat::ivecs:
    case DatasetFormat::ibin: break;
  }
  throw Error(ErrorCode::InvalidArgument,
              std::string(dataset_format_name(format)) + " holds ids, not vectors (use .fvecs, .fbin, .npy or raw)");
}

GroundTruth parse_ground_truth(const uint8_t* data, size_t size, DatasetFormat format) {
  if (size > 0 && data == nullptr) throw Error(ErrorCode::InvalidArgument, "dataset bytes are null");
  GroundTruth g;
  if (format == DatasetFormat::ivecs) {
    parse_vecs(data, size, "ivecs", &g.rows, &g.k, &g.ids);
  } else if (format == DatasetFormat::ibin) {
    parse_bin(data, size, "ibin", &g.rows, &g.k, &g.ids);
  } else {
    throw Error(ErrorCode::InvalidArgument,
                std::string(dataset_format_name(format)) + " is not a ground-truth format (use .ivecs or .ibin)");
  }
  return g;
}

Vectors read_vectors(const std::string& path, std::optional<DatasetFormat> format, size_t raw_dim) {
  const DatasetFormat f = format ? *format : dataset_format_from_path(path);
  MappedFile file(path);
  try {
    return parse_vectors(file.data(), file.size(), f, raw_dim);
  } catch (const Error& e) {
    rethrow_with_path(e, path);
  }
}

GroundTruth read_ground_truth(const std::string& path, std::optional<DatasetFormat> format) {
  const DatasetFormat f = format ? *format : dataset_format_from_path(path);
  MappedFile file(path);
  try {
    return parse_ground_truth(file.data(), file.size(), f);
  } catch (const Error& e) {
    rethrow_with_path(e, path);
  }
}

namespace {

template <typename T>
std::vector<uint8_t> encode_rows(const T* data, size_t rows, size_t dim, bool vecs, bool bin) {
  std::vector<uint8_t> out;
  out.reserve(8 + rows * dim * 4 + (vecs ? rows * 4 : 0));
  if (bin) {
    put_u32(out, uint32_t(rows));
    put_u32(out, uint32_t(dim));
  }
  for (size_t r = 0; r < rows; ++r) {
    if (vecs) put_u32(out, uint32_t(dim));
    for (size_t i = 0; i < dim; ++i) {
      uint32_t bits;
      std::memcpy(&bits, data + r * dim + i, 4);
      put_u32(out, bits);
    }
  }
  return out;
}

void check_shape(size_t rows, size_t dim, DatasetFormat format) {
  if (dim == 0 || dim > kMaxDim) throw Error(ErrorCode::InvalidArgument, "dimension must be 1 to 16777216");
  if ((format == DatasetFormat::fbin || format == DatasetFormat::ibin) && rows > UINT32_MAX) {
    throw Error(ErrorCode::InvalidArgument, "fbin/ibin hold at most 4294967295 rows");
  }
}

}  // namespace

std::vector<uint8_t> encode_vectors(const float* data, size_t rows, size_t dim, DatasetFormat format) {
  check_shape(rows, dim, format);
  switch (format) {
    case DatasetFormat::fvecs: return encode_rows(data, rows, dim, true, false);
    case DatasetFormat::fbin: return encode_rows(data, rows, dim, false, true);
    case DatasetFormat::raw: return encode_rows(data, rows, dim, false, false);
    case DatasetFormat::npy: {
      std::string header = "{'descr': '<f4', 'fortran_order': False, 'shape': (" + std::to_string(rows) + ", " +
                           std::to_string(dim) + "), }";
      while ((10 + header.size() + 1) % 64 != 0) header += ' ';
      header += '\n';
      std::vector<uint8_t> out = {
          0x93, 'N', 'U', 'M', 'P', 'Y', 1, 0, uint8_t(header.size()), uint8_t(header.size() >> 8)};
      out.insert(out.end(), header.begin(), header.end());
      const auto body = encode_rows(data, rows, dim, false, false);
      out.insert(out.end(), body.begin(), body.end());
      return out;
    }
    default: break;
  }
  throw Error(ErrorCode::InvalidArgument, std::string("cannot write vectors as ") + dataset_format_name(format));
}

std::vector<uint8_t> encode_ground_truth(const int32_t* ids, size_t rows, size_t k, DatasetFormat format) {
  check_shape(rows, k, format);
  if (format == DatasetFormat::ivecs) return encode_rows(ids, rows, k, true, false);
  if (format == DatasetFormat::ibin) return encode_rows(ids, rows, k, false, true);
  throw Error(ErrorCode::InvalidArgument, std::string("cannot write ground truth as ") + dataset_format_name(format));
}

void write_vectors(const std::string& path, const float* data, size_t rows, size_t dim,
                   std::optional<DatasetFormat> format) {
  const auto bytes = encode_vectors(data, rows, dim, format ? *format : dataset_format_from_path(path));
  write_file_atomic(path, bytes.data(), bytes.size());
}

void write_ground_truth(const std::string& path, const int32_t* ids, size_t rows, size_t k,
                        std::optional<DatasetFormat> format) {
  const auto bytes = encode_ground_truth(ids, rows, k, format ? *format : dataset_format_from_path(path));
  write_file_atomic(path, bytes.data(), bytes.size());
}

}  // namespace quiver::io
