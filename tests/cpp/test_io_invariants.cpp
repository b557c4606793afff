// Files that were edited and then given valid checksums again: every byte is well formed, but
// a row, id, offset or scale breaks an invariant its index relies on (unit rows under cosine,
// the norm bound, the reserved id, offsets and scales an encoder could have produced). The
// loaders must reject each with CORRUPT and a message that names the problem.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

#include "container/format.hpp"
#include "io_test_support.hpp"
#include "quiver/quiver.hpp"

namespace quiver {
namespace test_io_invariants {

using namespace test;

constexpr size_t kDim = 6;

std::vector<float> rows(size_t n) {
  std::vector<float> v(n * kDim);
  for (size_t i = 0; i < v.size(); ++i) v[i] = float(int(i * 7 % 13) - 6) * 0.25f + 0.125f;
  return v;
}
std::vector<uint64_t> ids(size_t n) {
  std::vector<uint64_t> v(n);
  for (size_t i = 0; i < n; ++i) v[i] = 10 + i;
  return v;
}

float get_f32(const Bytes& b, size_t at) {
  float f;
  const uint32_t u = rd32(b, at);
  std::memcpy(&f, &u, 4);
  return f;
}
void put_f32(Bytes& b, size_t at, float f) {
  uint32_t u;
  std::memcpy(&u, &f, 4);
  wr32(b, at, u);
}

RawSection& section(RawFile& raw, const char (&tag)[5]) {
  for (RawSection& s : raw.sections) {
    if (s.tag == io::fourcc(tag)) return s;
  }
  ADD_FAILURE() << "no section " << tag;
  return raw.sections.front();
}

// Applies `edit` to the file's sections, re-assembles it with valid checksums and expects the
// loader to say CORRUPT with `part` in the message.
template <typename Index>
void expect_corrupt(const Bytes& good, const std::function<void(RawFile&)>& edit, const std::string& part,
                    const std::string& what) {
  SCOPED_TRACE(what);
  RawFile raw = split(good);
  edit(raw);
  const Bytes bad = assemble(raw);
  ASSERT_NE(bad, good);
  const Failure f = failure_of([&] { Index::load(bad); });
  EXPECT_EQ(f.code, ErrorCode::Corrupt) << f.message;
  EXPECT_NE(f.message.find(part), std::string::npos) << f.message;
}

// ---- flat ----

TEST(TamperedFiles, FlatRowsAndIds) {
  FlatIndex cosine({kDim, Metric::cosine});
  cosine.add(ids(4), rows(4));
  expect_corrupt<FlatIndex>(
      cosine.serialize(),
      [](RawFile& r) {
        Bytes& v = section(r, "VECS").payload;
        for (size_t i = 0; i < kDim; ++i) put_f32(v, (kDim + i) * 4, get_f32(v, (kDim + i) * 4) * 3.0f);
      },
      "unit length", "a cosine row three times too long");

  FlatIndex l2({kDim, Metric::l2});
  l2.add(ids(4), rows(4));
  expect_corrupt<FlatIndex>(
      l2.serialize(), [](RawFile& r) { put_f32(section(r, "VECS").payload, 2 * kDim * 4, 0x1p60f); }, "2^100",
      "an l2 row past the norm bound");
  expect_corrupt<FlatIndex>(
      l2.serialize(), [](RawFile& r) { wr64(section(r, "IDS ").payload, 8, UINT64_MAX); }, "reserved",
      "the reserved id");
}

// ---- HNSW (f32 rows) ----

TEST(TamperedFiles, HnswCosineRowsAreUnitLength) {
  HnswIndexOptions o;
  o.dim = kDim;
  o.metric = Metric::cosine;
  HnswIndex index(o);
  index.add(ids(5), rows(5));
  expect_corrupt<HnswIndex>(
      index.serialize(),
      [](RawFile& r) {
        Bytes& v = section(r, "VECS").payload;
        for (size_t i = 0; i < kDim; ++i) put_f32(v, (3 * kDim + i) * 4, get_f32(v, (3 * kDim + i) * 4) * 0.5f);
      },
      "unit length", "a cosine row half as long");
}

// ---- quantised ----

QuantizedIndex quantized(Metric metric, bool keep, unsigned bits = 4) {
  QuantizedIndexOptions o;
  o.dim = kDim;
  o.metric = metric;
  o.bits = bits;
  o.keep_vectors = keep;
  QuantizedIndex index(o);
  index.add(ids(5), rows(5));
  return index;
}

void edit_f32(RawFile& r, const char (&tag)[5], size_t slot, const std::function<float(float)>& f) {
  Bytes& p = section(r, tag).payload;
  put_f32(p, slot * 4, f(get_f32(p, slot * 4)));
}

TEST(TamperedFiles, QuantizedOffsetsAndScales) {
  for (bool keep : {false, true}) {
    for (unsigned bits : {2u, 4u}) {
      const std::string opts =
          std::string(keep ? " (kept vectors" : " (codes only") + ", " + std::to_string(bits) + " bits)";
      const Bytes l2 = quantized(Metric::l2, keep, bits).serialize();
      expect_corrupt<QuantizedIndex>(
          l2, [](RawFile& r) { edit_f32(r, "OFFS", 1, [](float x) { return -x; }); }, "offset",
          "a negative l2 offset" + opts);
      expect_corrupt<QuantizedIndex>(
          l2, [](RawFile& r) { edit_f32(r, "OFFS", 1, [](float) { return 0x1p101f; }); }, "offset",
          "an l2 offset past the norm bound" + opts);
      expect_corrupt<QuantizedIndex>(
          l2, [](RawFile& r) { edit_f32(r, "SCAL", 2, [](float x) { return -x; }); }, "scale",
          "a positive scale" + opts);
      expect_corrupt<QuantizedIndex>(
          l2, [](RawFile& r) { edit_f32(r, "SCAL", 2, [](float x) { return x * 1e6f; }); }, "scale",
          "a scale a million times too large" + opts);
      expect_corrupt<QuantizedIndex>(
          l2, [](RawFile& r) { edit_f32(r, "SCAL", 2, [](float x) { return x * 1e-3f; }); }, "scale",
          "a scale a thousand times too small" + opts);
      expect_corrupt<QuantizedIndex>(
          l2, [](RawFile& r) { edit_f32(r, "SCAL", 3, [](float) { return 0.0f; }); }, "scale",
          "scale 0 for a vector that is not zero" + opts);
      const Bytes ip = quantized(Metric::ip, keep, bits).serialize();
      expect_corrupt<QuantizedIndex>(
          ip, [](RawFile& r) { edit_f32(r, "OFFS", 0, [](float) { return 2.5f; }); }, "offset",
          "an ip offset that is not 0" + opts);
      expect_corrupt<QuantizedIndex>(
          ip, [](RawFile& r) { edit_f32(r, "SCAL", 0, [](float) { return -0x1p70f; }); }, "scale",
          "an ip scale no accepted vector gives" + opts);
      const Bytes cosine = quantized(Metric::cosine, keep, bits).serialize();
      expect_corrupt<QuantizedIndex>(
          cosine, [](RawFile& r) { edit_f32(r, "OFFS", 4, [](float) { return 1.0f; }); }, "offset",
          "a cosine offset that is not 0" + opts);
      expect_corrupt<QuantizedIndex>(
          cosine, [](RawFile& r) { edit_f32(r, "SCAL", 4, [](float x) { return x * 50.0f; }); }, "scale",
          "a cosine scale fifty times too large" + opts);
      expect_corrupt<QuantizedIndex>(
          cosine, [](RawFile& r) { edit_f32(r, "SCAL", 4, [](float) { return 0.0f; }); }, "scale",
          "scale 0 under cosine" + opts);
    }
  }
}

TEST(TamperedFiles, QuantizedKeptVectors) {
  // Under cosine the kept rows are unit length.
  expect_corrupt<QuantizedIndex>(
      quantized(Metric::cosine, true).serialize(),
      [](RawFile& r) {
        Bytes& v = section(r, "VECS").payload;
        for (size_t i = 0; i < kDim; ++i) put_f32(v, (2 * kDim + i) * 4, get_f32(v, (2 * kDim + i) * 4) * 2.0f);
      },
      "unit length", "a kept cosine row twice too long");
  // Under l2 the offset is the kept vector's squared norm, exactly.
  expect_corrupt<QuantizedIndex>(
      quantized(Metric::l2, true).serialize(),
      [](RawFile& r) { edit_f32(r, "VECS", 1 * kDim + 2, [](float x) { return x + 0.5f; }); }, "offset",
      "an l2 kept vector that is not the one encoded");
  // Under ip the scale follows the kept vector's norm.
  expect_corrupt<QuantizedIndex>(
      quantized(Metric::ip, true).serialize(),
      [](RawFile& r) {
        for (size_t i = 0; i < kDim; ++i) edit_f32(r, "VECS", 3 * kDim + i, [](float x) { return x * 100.0f; });
      },
      "scale", "an ip kept vector a hundred times longer than the one encoded");
  // A kept vector past the norm bound.
  expect_corrupt<QuantizedIndex>(
      quantized(Metric::ip, true).serialize(),
      [](RawFile& r) { edit_f32(r, "VECS", 0, [](float) { return 0x1p60f; }); }, "2^100",
      "an ip kept vector past the norm bound");
}

TEST(TamperedFiles, QuantizedZeroVectorIsExactlyZero) {
  QuantizedIndexOptions o;
  o.dim = kDim;
  QuantizedIndex index(o);
  index.add(ids(3), rows(3));
  index.add({99}, std::vector<float>(kDim, 0.0f));  // slot 3: offset 0, scale 0, codes 0
  const Bytes good = index.serialize();
  EXPECT_EQ(QuantizedIndex::load(good).serialize(), good);
  expect_corrupt<QuantizedIndex>(
      good, [](RawFile& r) { section(r, "CODE").payload[3 * (kDim / 2)] = 0x11; }, "codes",
      "codes under scale 0 that are not 0");
  // (with kept vectors the offset is caught first: it is not the zero vector's squared norm)
  expect_corrupt<QuantizedIndex>(
      good, [](RawFile& r) { edit_f32(r, "OFFS", 3, [](float) { return 4.0f; }); }, "slot 3 has offset",
      "scale 0 with a non-zero l2 offset");
}

// Every file the tests above start from loads, so each rejection is the edit's doing.
TEST(TamperedFiles, TheUneditedFilesLoad) {
  for (Metric m : {Metric::l2, Metric::ip, Metric::cosine}) {
    for (bool keep : {false, true}) {
      for (unsigned bits : {2u, 4u}) {
        const Bytes b = quantized(m, keep, bits).serialize();
        EXPECT_EQ(QuantizedIndex::load(b).serialize(), b);
      }
    }
  }
}

}  // namespace test_io_invariants
}  // namespace quiver
