// Dataset readers: round trips for every format and a table of malformed files, each with
// its own code and message.
#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "tools/datasets.hpp"
#include "quiver/error.hpp"

namespace quiver::io {
namespace test_datasets {

using Bytes = std::vector<uint8_t>;

std::vector<float> sample(size_t rows, size_t dim) {
  std::vector<float> v(rows * dim);
  for (size_t i = 0; i < v.size(); ++i) v[i] = float(i) * 0.5f - 3.0f;
  return v;
}

TEST(Datasets, VectorRoundTripEveryFormat) {
  const auto v = sample(7, 5);
  for (auto f : {DatasetFormat::fvecs, DatasetFormat::fbin, DatasetFormat::npy, DatasetFormat::raw}) {
    SCOPED_TRACE(dataset_format_name(f));
    const Bytes b = encode_vectors(v.data(), 7, 5, f);
    const Vectors r = parse_vectors(b.data(), b.size(), f, 5);
    EXPECT_EQ(r.rows, 7u);
    EXPECT_EQ(r.dim, 5u);
    EXPECT_EQ(r.data, v);
  }
}

TEST(Datasets, KnownEncodings) {
  const float v[2] = {1.0f, -2.0f};
  EXPECT_EQ(encode_vectors(v, 1, 2, DatasetFormat::fvecs), (Bytes{2, 0, 0, 0, 0, 0, 0x80, 0x3F, 0, 0, 0, 0xC0}));
  EXPECT_EQ(encode_vectors(v, 2, 1, DatasetFormat::fbin),
            (Bytes{2, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0x80, 0x3F, 0, 0, 0, 0xC0}));
  const Bytes npy = encode_vectors(v, 1, 2, DatasetFormat::npy);
  EXPECT_EQ((10 + (npy[8] | npy[9] << 8)) % 64, 0);
  const std::string header(npy.begin() + 10, npy.end() - 8);
  EXPECT_NE(header.find("'descr': '<f4'"), std::string::npos) << header;
  EXPECT_NE(header.find("'shape': (1, 2)"), std::string::npos) << header;
}

TEST(Datasets, NpyVersion2AndOneDimensional) {
  // A version 2.0 header (4-byte length) as numpy writes for very wide headers.
  std::string h = "{\"descr\": \"<f4\", \"fortran_order\": False, \"shape\": (3,)}";
  Bytes b = {0x93, 'N', 'U', 'M', 'P', 'Y', 2, 0, uint8_t(h.size()), 0, 0, 0};
  b.insert(b.end(), h.begin(), h.end());
  const float v[3] = {1, 2, 3};
  b.insert(b.end(), reinterpret_cast<const uint8_t*>(v), reinterpret_cast<const uint8_t*>(v) + 12);
  const Vectors r = parse_vectors(b.data(), b.size(), DatasetFormat::npy);
  EXPECT_EQ(r.rows, 1u);
  EXPECT_EQ(r.dim, 3u);
  EXPECT_EQ(r.data, (std::vector<float>{1, 2, 3}));
}

TEST(Datasets, GroundTruthRoundTrip) {
  const std::vector<int32_t> ids = {1, 2, 3, 4, 5, 6, -1, 9};
  for (auto f : {DatasetFormat::ivecs, DatasetFormat::ibin}) {
    const Bytes b = encode_ground_truth(ids.data(), 2, 4, f);
    const GroundTruth g = parse_ground_truth(b.data(), b.size(), f);
    EXPECT_EQ(g.rows, 2u);
    EXPECT_EQ(g.k, 4u);
    EXPECT_EQ(g.ids, ids);
  }
}

TEST(Datasets, FormatFromPath) {
  EXPECT_EQ(dataset_format_from_path("a/b.fvecs"), DatasetFormat::fvecs);
  EXPECT_EQ(dataset_format_from_path("B.FBIN"), DatasetFormat::fbin);
  EXPECT_EQ(dataset_format_from_path("x.npy"), DatasetFormat::npy);
  EXPECT_EQ(dataset_format_from_path("x.f32"), DatasetFormat::raw);
  EXPECT_EQ(dataset_format_from_path("gt.ibin"), DatasetFormat::ibin);
  EXPECT_THROW(dataset_format_from_path("dir.fvecs/file"), Error);
  EXPECT_THROW(dataset_format_from_path("x.csv"), Error);
  EXPECT_EQ(parse_dataset_format("ivecs"), DatasetFormat::ivecs);
  EXPECT_THROW(parse_dataset_format("parquet"), Error);
}

TEST(Datasets, FilesRoundTripAndNameThePath) {
  // A prefix no other process uses: ctest runs this suite at several ISA levels at once.
  const std::string dir = testing::TempDir() + "quiver_ds_" +
                          std::to_string(std::chrono::steady_clock::now().time_since_epoch().count()) + "_";
  const auto v = sample(4, 3);
  write_vectors(dir + "quiver_ds.fbin", v.data(), 4, 3);
  EXPECT_EQ(read_vectors(dir + "quiver_ds.fbin").data, v);
  write_vectors(dir + "quiver_ds.raw", v.data(), 4, 3);
  EXPECT_EQ(read_vectors(dir + "quiver_ds.raw", {}, 3).rows, 4u);
  const Bytes junk = {1, 2, 3};
  FILE* f = std::fopen((dir + "quiver_bad.fbin").c_str(), "wb");
  std::fwrite(junk.data(), 1, junk.size(), f);
  std::fclose(f);
  try {
    read_vectors(dir + "quiver_bad.fbin");
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::Truncated);
    EXPECT_NE(std::string(e.what()).find("quiver_bad.fbin: fbin: truncated"), std::string::npos) << e.what();
  }
  EXPECT_THROW(read_vectors(dir + "quiver_missing.fbin"), Error);
  for (const char* name : {"quiver_ds.fbin", "quiver_ds.raw", "quiver_bad.fbin"}) std::remove((dir + name).c_str());
}

struct BadDataset {
  const char* name;
  DatasetFormat format;
  Bytes bytes;
  ErrorCode code;
  const char* message_part;
  size_t raw_dim = 0;
};

Bytes with_header(std::initializer_list<uint8_t> head, size_t zeros) {
  Bytes b(head);
  b.resize(b.size() + zeros, 0);
  return b;
}

Bytes npy(const std::string& header, size_t data_bytes, uint8_t major = 1) {
  Bytes b = {0x93, 'N', 'U', 'M', 'P', 'Y', major, 0, uint8_t(header.size()), uint8_t(header.size() >> 8)};
  b.insert(b.end(), header.begin(), header.end());
  b.resize(b.size() + data_bytes, 0);
  return b;
}

const std::string kGoodNpyHeader = "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }";

TEST(DatasetsBad, EveryMalformedFileHasItsOwnError) {
  const BadDataset table[] = {
      {"fvecs empty", DatasetFormat::fvecs, {}, ErrorCode::Corrupt, "the file is empty"},
      {"fvecs short header", DatasetFormat::fvecs, {3, 0}, ErrorCode::Truncated, "no complete row header"},
      {"fvecs zero dimension", DatasetFormat::fvecs, with_header({0, 0, 0, 0}, 4), ErrorCode::Corrupt,
       "impossible dimension 0"},
      {"fvecs negative dimension", DatasetFormat::fvecs, with_header({0xFF, 0xFF, 0xFF, 0xFF}, 4), ErrorCode::Corrupt,
       "impossible dimension -1"},
      {"fvecs huge dimension", DatasetFormat::fvecs, with_header({0, 0, 0, 0x40}, 4), ErrorCode::Corrupt,
       "impossible dimension"},
      {"fvecs truncated row", DatasetFormat::fvecs, with_header({2, 0, 0, 0}, 7), ErrorCode::Truncated,
       "not a whole number of 12-byte rows"},
      {"fvecs rows disagree", DatasetFormat::fvecs, Bytes{1, 0, 0, 0, 0, 0, 0, 0, 2, 0, 0, 0, 0, 0, 0, 0},
       ErrorCode::Corrupt, "row 1 declares dimension 2"},
      {"fbin short header", DatasetFormat::fbin, {1, 0, 0}, ErrorCode::Truncated, "shorter than the 8-byte header"},
      {"fbin zero dimension", DatasetFormat::fbin, with_header({1, 0, 0, 0, 0, 0, 0, 0}, 4), ErrorCode::Corrupt,
       "impossible dimension 0"},
      {"fbin truncated", DatasetFormat::fbin, with_header({2, 0, 0, 0, 3, 0, 0, 0}, 20), ErrorCode::Truncated,
       "declares 2 x 3 values"},
      {"fbin huge count", DatasetFormat::fbin, with_header({0xFF, 0xFF, 0xFF, 0xFF, 0, 0, 0, 1}, 4),
       ErrorCode::Truncated, "truncated"},
      {"fbin trailing bytes", DatasetFormat::fbin, with_header({1, 0, 0, 0, 1, 0, 0, 0}, 5), ErrorCode::Corrupt,
       "1 unexpected bytes"},
      {"npy wrong magic", DatasetFormat::npy, Bytes{'P', 'K', 3, 4, 0, 0, 0, 0, 0, 0, 0}, ErrorCode::BadMagic,
       "not an .npy file"},
      {"npy short", DatasetFormat::npy, Bytes{0x93, 'N', 'U', 'M'}, ErrorCode::Truncated, "shorter than the preamble"},
      {"npy version 9", DatasetFormat::npy, npy(kGoodNpyHeader, 24, 9), ErrorCode::UnsupportedVersion,
       "format version 9.0"},
      {"npy header past the end", DatasetFormat::npy, Bytes{0x93, 'N', 'U', 'M', 'P', 'Y', 1, 0, 0xFF, 0x7F, '{'},
       ErrorCode::Truncated, "the header declares"},
      {"npy float64", DatasetFormat::npy, npy("{'descr': '<f8', 'fortran_order': False, 'shape': (2, 3), }", 48),
       ErrorCode::InvalidArgument, "dtype '<f8'"},
      {"npy big-endian", DatasetFormat::npy, npy("{'descr': '>f4', 'fortran_order': False, 'shape': (2, 3), }", 24),
       ErrorCode::InvalidArgument, "dtype '>f4'"},
      {"npy fortran order", DatasetFormat::npy, npy("{'descr': '<f4', 'fortran_order': True, 'shape': (2, 3), }", 24),
       ErrorCode::InvalidArgument, "Fortran-order"},
      {"npy 3-D", DatasetFormat::npy, npy("{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3, 4), }", 96),
       ErrorCode::InvalidArgument, "not a matrix"},
      {"npy no shape", DatasetFormat::npy, npy("{'descr': '<f4', 'fortran_order': False}", 24), ErrorCode::Corrupt,
       "no readable 'shape'"},
      {"npy absurd shape", DatasetFormat::npy,
       npy("{'descr': '<f4', 'fortran_order': False, 'shape': (99999999999999999999999, 3), }", 24), ErrorCode::Corrupt,
       "impossible shape"},
      {"npy truncated data", DatasetFormat::npy, npy(kGoodNpyHeader, 23), ErrorCode::Truncated,
       "needs 2 x 3 float32 values"},
      {"npy trailing data", DatasetFormat::npy, npy(kGoodNpyHeader, 25), ErrorCode::Corrupt, "1 unexpected bytes"},
      {"raw without dim", DatasetFormat::raw, Bytes(8), ErrorCode::InvalidArgument, "need their dimension", 0},
      {"raw partial row", DatasetFormat::raw, Bytes(10), ErrorCode::Truncated, "not a whole number of rows", 2},
      {"ivecs as vectors", DatasetFormat::ivecs, Bytes(8), ErrorCode::InvalidArgument, "holds ids, not vectors"},
  };
  for (const auto& bad : table) {
    SCOPED_TRACE(bad.name);
    try {
      parse_vectors(bad.bytes.data(), bad.bytes.size(), bad.format, bad.raw_dim);
      ADD_FAILURE() << "expected an error";
    } catch (const Error& e) {
      EXPECT_EQ(e.code(), bad.code) << error_code_name(e.code()) << ": " << e.what();
      EXPECT_NE(std::string(e.what()).find(bad.message_part), std::string::npos) << e.what();
    }
  }
}

TEST(DatasetsBad, GroundTruth) {
  try {
    const Bytes b = with_header({5, 0, 0, 0, 10, 0, 0, 0}, 40);
    parse_ground_truth(b.data(), b.size(), DatasetFormat::ibin);
    ADD_FAILURE();
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::Truncated);
    EXPECT_NE(std::string(e.what()).find("ibin: truncated"), std::string::npos) << e.what();
  }
  const Bytes b(8);
  EXPECT_THROW(parse_ground_truth(b.data(), b.size(), DatasetFormat::fbin), Error);
}

TEST(DatasetsBad, EveryTruncationOfAGoodFileFails) {
  const auto v = sample(3, 4);
  for (auto f : {DatasetFormat::fvecs, DatasetFormat::fbin, DatasetFormat::npy}) {
    const Bytes good = encode_vectors(v.data(), 3, 4, f);
    for (size_t len = 1; len < good.size(); ++len) {
      // fvecs cut at a row boundary is a valid, shorter file
      if (f == DatasetFormat::fvecs && len % 20 == 0) continue;
      EXPECT_THROW(parse_vectors(good.data(), len, f), Error) << dataset_format_name(f) << " " << len;
    }
  }
}

}  // namespace test_datasets
}  // namespace quiver::io
