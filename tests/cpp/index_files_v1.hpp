// Index files written by an earlier version (tests/cpp/data/v1/, written by
// write_index_files_v1.cpp from the code as it was before the shared slot table): how each
// one was built and which searches it must keep answering identically. The writer and the
// check (test_index_files_v1.cpp) share this header so the data, the queries and the search
// modes cannot drift apart.
//
// Every index has had ids removed and re-added after its first batch, so the files pin the
// slot layout that removal leaves (flat moves the last row into the hole, the quantised index
// and HNSW reuse slots), not only a freshly built one.
#pragma once

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <string>
#include <vector>

#include "quiver/quiver.hpp"

namespace quiver::test::v1 {

constexpr size_t kDim = 16;
constexpr size_t kRows = 300;
constexpr size_t kQueries = 6;
constexpr size_t kK = 10;

// A generator of our own (splitmix64), not <random>'s distributions, whose output differs
// between libstdc++ and libc++ (Emscripten): the queries must be the same on every target.
inline uint64_t splitmix(uint64_t& state) {
  uint64_t z = (state += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}
// n * kDim values in [-1, 1), exact in float (multiples of 2^-23).
inline std::vector<float> values(uint64_t seed, size_t n) {
  std::vector<float> v(n * kDim);
  for (float& x : v) x = float(int64_t(splitmix(seed) >> 40) - (int64_t(1) << 23)) * 0x1p-23f;
  return v;
}
inline std::vector<float> queries() { return values(7001, kQueries); }

// One way of searching a loaded index, named for the expected-answers file.
template <typename Index>
struct Mode {
  std::string name;
  std::function<size_t(const Index&, const float* query, Neighbor* out)> run;
};

// Ids 1..kRows, then every 7th removed and 10 new ids (1000..1009) added: the holes and the
// reuse are part of what the file pins.
inline std::vector<uint64_t> first_ids() {
  std::vector<uint64_t> ids(kRows);
  for (size_t i = 0; i < kRows; ++i) ids[i] = i + 1;
  return ids;
}
inline std::vector<uint64_t> removed_ids() {
  std::vector<uint64_t> ids;
  for (uint64_t id = 3; id <= kRows; id += 7) ids.push_back(id);
  return ids;
}
inline std::vector<uint64_t> later_ids() {
  std::vector<uint64_t> ids(10);
  for (size_t i = 0; i < ids.size(); ++i) ids[i] = 1000 + i;
  return ids;
}
template <typename Index>
void fill(Index& index) {
  index.add(first_ids(), values(11, kRows));
  index.remove(removed_ids());
  index.add(later_ids(), values(13, later_ids().size()));
}

// An allow list mixing present, removed and unknown ids.
inline const std::vector<uint64_t>& allow_list() {
  static const std::vector<uint64_t> ids = {2, 3, 5, 8, 13, 21, 34, 55, 89, 144, 233, 1001, 1004, 5000};
  return ids;
}

// ---- the fixtures ----

struct FlatFixture {
  const char* name;
  Metric metric;
};
inline const FlatFixture kFlat[] = {{"flat_l2", Metric::l2}, {"flat_ip", Metric::ip}, {"flat_cosine", Metric::cosine}};

inline std::vector<Mode<FlatIndex>> flat_modes() {
  return {
      {"plain", [](const FlatIndex& i, const float* q, Neighbor* out) { return i.search(q, kK, out); }},
      {"allow",
       [](const FlatIndex& i, const float* q, Neighbor* out) {
         FlatSearchParams p;
         p.allow = allow_list().data();
         p.allow_count = allow_list().size();
         return i.search(q, kK, out, p);
       }},
  };
}

struct QuantizedFixture {
  const char* name;
  Metric metric;
  unsigned bits;
  bool keep_vectors;
};
inline const QuantizedFixture kQuantized[] = {
    {"quantized_l2_4bit_kept", Metric::l2, 4, true},
    {"quantized_ip_2bit_kept", Metric::ip, 2, true},
    {"quantized_cosine_4bit_codes", Metric::cosine, 4, false},
};
inline QuantizedIndexOptions quantized_options(const QuantizedFixture& f) {
  QuantizedIndexOptions o;
  o.dim = kDim;
  o.metric = f.metric;
  o.bits = f.bits;
  o.keep_vectors = f.keep_vectors;
  return o;
}

// Rerank needs kept vectors, so codes-only files skip those modes.
inline std::vector<Mode<QuantizedIndex>> quantized_modes(bool kept_vectors) {
  auto with = [](size_t rerank, bool allow, bool float_tables) {
    return [=](const QuantizedIndex& i, const float* q, Neighbor* out) {
      QuantizedSearchParams p;
      p.rerank = rerank;
      p.float_tables = float_tables;
      if (allow) {
        p.allow = allow_list().data();
        p.allow_count = allow_list().size();
      }
      return i.search(q, kK, out, p);
    };
  };
  std::vector<Mode<QuantizedIndex>> modes = {
      {"plain", with(0, false, false)},
      {"float_tables", with(0, false, true)},
      {"allow", with(0, true, false)},
  };
  if (kept_vectors) {
    modes.push_back({"rerank40", with(40, false, false)});
    modes.push_back({"allow_rerank40", with(40, true, false)});
  }
  return modes;
}

struct HnswFixture {
  const char* name;
  Metric metric;
  HnswStorage storage;
  bool keep_vectors;
};
inline const HnswFixture kHnsw[] = {
    {"hnsw_l2_f32", Metric::l2, HnswStorage::f32, true},
    {"hnsw_cosine_sq8_kept", Metric::cosine, HnswStorage::sq8, true},
    {"hnsw_ip_sq8_codes", Metric::ip, HnswStorage::sq8, false},
};
inline HnswIndexOptions hnsw_options(const HnswFixture& f) {
  HnswIndexOptions o;
  o.dim = kDim;
  o.metric = f.metric;
  o.M = 6;
  o.ef_construction = 40;
  o.ef_search = 16;
  o.storage = f.storage;
  o.keep_vectors = f.keep_vectors;
  return o;
}

inline std::vector<Mode<HnswIndex>> hnsw_modes() {
  auto with = [](size_t ef, bool rerank, bool allow) {
    return [=](const HnswIndex& i, const float* q, Neighbor* out) {
      HnswSearchParams p;
      p.ef = ef;
      if (!rerank) p.rerank = 0;  // else unset: the default, which re-scores the final beam
      if (allow) {
        p.allow = allow_list().data();
        p.allow_count = allow_list().size();
      }
      return i.search(q, kK, out, p);
    };
  };
  return {
      {"default_ef", with(0, true, false)},
      {"ef40", with(40, true, false)},
      {"ef40_no_rerank", with(40, false, false)},
      {"allow", with(0, true, true)},
  };
}

// ---- the expected-answers text: one line per mode and query ----
// "<mode> <query>:" then " <id>:<distance as %a>" per result; hex floats are exact.

template <typename Index>
std::string answers(const Index& index, const std::vector<Mode<Index>>& modes) {
  const std::vector<float> qs = queries();
  std::string text;
  std::vector<Neighbor> out(kK);
  char buf[64];
  for (const auto& mode : modes) {
    for (size_t q = 0; q < kQueries; ++q) {
      const size_t n = mode.run(index, qs.data() + q * kDim, out.data());
      text += mode.name + " " + std::to_string(q) + ":";
      for (size_t i = 0; i < n; ++i) {
        std::snprintf(buf, sizeof buf, " %llu:%a", (unsigned long long)out[i].id, double(out[i].distance));
        text += buf;
      }
      text += "\n";
    }
  }
  return text;
}

}  // namespace quiver::test::v1
