// The quantised index: encoding (rotation + Lloyd–Max codes + correction), the block layout
// the fast-scan kernels read, 8-bit query tables, and search with optional exact rerank.
#include "quiver/quantized_index.hpp"

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <cstring>
#include <new>
#include <string>
#include <unordered_map>
#include <unordered_set>

#include "core/aligned_buffer.hpp"
#include "core/rw_lock.hpp"
#include "core/topk.hpp"
#include "core/validate.hpp"
#include "index/quantized_state.hpp"
#include "index/slot_table.hpp"
#include "parallel/thread_pool.hpp"
#include "quant/codebook.hpp"
#include "quant/fastscan.hpp"
#include "quant/rotation.hpp"
#include "quiver/error.hpp"
#include "simd/kernels.hpp"

namespace quiver {
namespace {

using quant::kBlockVectors;
using quant::kGroupCodeBytes;
using quant::kGroupSubquantizers;
using quant::kGroupTableBytes;

constexpr size_t kRefineFactor = 2;  // 8-bit candidates per result, re-scored in float

size_t padded_stride(size_t dim) { return (dim + 15) / 16 * 16; }

[[noreturn]] void throw_oom() {
  throw Error(ErrorCode::OutOfMemory, "out of memory while adding vectors; the index is unchanged");
}

// A candidate of the code scan. It carries the caller id, so that exact ties at the candidate
// cut-off go to the smaller id as they do in the final list (slots are reused last-freed
// first, so slot order is not id order), and the slot, for re-scoring.
struct Candidate {
  uint64_t id;
  float distance;
  uint32_t slot;
};

// Per-thread search scratch, grown on first use and reused: warm searches allocate nothing.
// One lane per query of a multi-query pass.
struct QueryLane {
  std::vector<float> query;             // normalised query (cosine)
  std::vector<float> rotated;           // R * query
  std::vector<float> ftables;           // sub-quantisers x 16 float table entries
  std::vector<float> lows;              // per sub-quantiser table minimum
  core::AlignedBuffer<uint8_t> tables;  // groups x 128 bytes, the kernel layout
  std::vector<Candidate> candidates;
};

struct Scratch {
  QueryLane lanes[quant::kMaxQueriesPerPass];
  std::vector<float> rot_tmp;        // rotation scratch
  std::vector<uint32_t> allow_mask;  // one 32-bit word per block

  void reserve(size_t dim, size_t subq, size_t groups, size_t cand, size_t blocks) {
    for (QueryLane& lane : lanes) {
      if (lane.query.size() < dim) {
        lane.query.resize(dim);
        lane.rotated.resize(dim);
      }
      if (lane.ftables.size() < subq * 16) {
        lane.ftables.resize(subq * 16);
        lane.lows.resize(subq);
      }
      lane.tables.reserve(groups * kGroupTableBytes, 0);
      if (lane.candidates.size() < cand) lane.candidates.resize(cand);
    }
    if (rot_tmp.size() < dim) rot_tmp.resize(dim);
    if (allow_mask.size() < blocks) allow_mask.resize(blocks, 0);
  }
};

Scratch& thread_scratch() {
  static thread_local Scratch scratch;
  return scratch;
}

}  // namespace

struct QuantizedIndex::Impl {
  size_t dim;
  Metric metric;
  unsigned bits;
  uint64_t seed;
  bool keep_vectors;
  size_t subq;    // sub-quantisers: dim at 4 bits, ceil(dim / 2) at 2 bits
  size_t groups;  // ceil(subq / 4)
  size_t stride;  // floats per kept vector
  simd::KernelTable kernels;
  quant::FastScanTable fastscan;
  quant::Rotation rotation;
  quant::Codebook codebook;

  // Slot storage. A slot is live iff slots.id_at(slot) != kNoId; dead and padding slots have
  // offset = +inf, so they can never enter a result.
  core::AlignedBuffer<uint8_t> codes;  // blocks x groups x 64 bytes
  core::AlignedBuffer<float> offset;   // per slot: c_v in  distance = (c0 + c_v) + scale_v * score
  core::AlignedBuffer<float> scale;    // per slot: scale_v
  core::AlignedBuffer<float> vectors;  // per slot x stride, if keep_vectors
  // Ids of the slots (size = slots in use, the high-water mark; kNoId for a free slot) and
  // the free list, reused last-in first-out.
  index::SlotTable slots{index::Reuse::free_list, UINT32_MAX, "quantized"};
  size_t capacity_slots = 0;
  // Searches share it; add and remove hold it alone (the contract in quantized_index.hpp).
  mutable core::SharedMutex rw;

  Impl(const QuantizedIndexOptions& o, Isa isa)
      : dim(o.dim), metric(o.metric), bits(o.bits), seed(o.seed), keep_vectors(o.keep_vectors) {
    if (dim == 0) throw Error(ErrorCode::InvalidArgument, "dimension must be at least 1");
    if (dim > (1u << 20)) {
      throw Error(ErrorCode::InvalidArgument,
                  "dimension " + std::to_string(dim) + " exceeds the maximum of 1048576");
    }
    if (bits != 2 && bits != 4) {
      throw Error(ErrorCode::InvalidArgument,
                  "bits must be 2 or 4, got " + std::to_string(bits));
    }
    kernels = simd::kernel_table(isa);
    fastscan = quant::fastscan_table(isa);
    subq = bits == 4 ? dim : (dim + 1) / 2;
    groups = (subq + kGroupSubquantizers - 1) / kGroupSubquantizers;
    stride = padded_stride(dim);
    rotation = quant::Rotation(dim, seed);
    codebook = quant::lloyd_max_codebook(dim, bits);
  }

  size_t block_bytes() const { return groups * kGroupCodeBytes; }
  size_t blocks() const { return (slots.used() + kBlockVectors - 1) / kBlockVectors; }
  size_t live() const { return slots.size(); }

  // --- encoding -----------------------------------------------------------------------

  struct Encoded {
    std::vector<uint8_t> codes;  // n x subq
    std::vector<float> offset, scale;
  };

  // unit = x / |x| (norm2 = |x|^2, summed in double). The float reciprocal where it is finite
  // (the codes of every file written so far depend on those bits); the double one for a
  // vector so small that 1 / |x| overflows float.
  void scale_to_unit(const float* x, double norm2, float* unit) const {
    const double inv = 1.0 / std::sqrt(norm2);
    const float inv_f = static_cast<float>(inv);
    if (std::isfinite(inv_f)) {
      for (size_t i = 0; i < dim; ++i) unit[i] = x[i] * inv_f;
    } else {
      for (size_t i = 0; i < dim; ++i) unit[i] = static_cast<float>(x[i] * inv);
    }
  }

  // Codes and scalars for n rows. Plain scalar code in a fixed order: bit-identical anywhere.
  Encoded encode(const float* rows, size_t n) const {
    Encoded e;
    e.codes.resize(n * subq);
    e.offset.resize(n);
    e.scale.resize(n);
    std::vector<float> unit(dim), rotated(dim), tmp(dim);
    for (size_t r = 0; r < n; ++r) {
      const float* x = rows + r * dim;
      double norm2 = 0.0;
      for (size_t i = 0; i < dim; ++i) norm2 += double(x[i]) * x[i];
      uint8_t* c = e.codes.data() + r * subq;
      if (norm2 == 0.0) {
        // A zero vector (l2, ip; cosine rejects it): scale 0 makes every estimate exact, |q|^2
        // under l2 and 0 under ip, whatever the codes, which are all 0.
        std::fill(c, c + subq, uint8_t(0));
        e.offset[r] = 0.0f;
        e.scale[r] = 0.0f;
        continue;
      }
      const double norm = std::sqrt(norm2);
      scale_to_unit(x, norm2, unit.data());
      rotation.apply(unit.data(), rotated.data(), tmp.data());
      double dot = 0.0;  // <rotated unit vector, its reconstruction>
      for (size_t i = 0; i < dim; ++i) {
        const unsigned level = codebook.encode(rotated[i]);
        dot += double(rotated[i]) * codebook.centroids[level];
        if (bits == 4) {
          c[i] = uint8_t(level);
        } else if (i % 2 == 0) {
          c[i / 2] = uint8_t(level);
        } else {
          c[i / 2] = uint8_t(c[i / 2] | (level << 2));
        }
      }
      // Unbiased inner-product estimate: <q, x> ~ correction * <R q, reconstruction>.
      const double length = metric == Metric::cosine ? 1.0 : norm;
      const double correction = dot > 1e-12 ? length / dot : length;
      switch (metric) {
        case Metric::l2:  // |q|^2 + |x|^2 - 2 <q, x>
          e.offset[r] = static_cast<float>(norm2);
          e.scale[r] = static_cast<float>(-2.0 * correction);
          break;
        case Metric::ip:  // -<q, x>
          e.offset[r] = 0.0f;
          e.scale[r] = static_cast<float>(-correction);
          break;
        case Metric::cosine:  // 1 - <q/|q|, x/|x|>
          e.offset[r] = 0.0f;
          e.scale[r] = static_cast<float>(-correction);
          break;
      }
    }
    return e;
  }

  void write_codes(uint32_t slot, const uint8_t* c) {
    uint8_t* block = codes.data() + size_t(slot / kBlockVectors) * block_bytes();
    const size_t v = slot % kBlockVectors;
    for (size_t s = 0; s < subq; ++s) {
      uint8_t& byte = block[(s / 2) * kBlockVectors + v];
      byte = (s % 2) ? uint8_t((byte & 0x0F) | (c[s] << 4)) : uint8_t((byte & 0xF0) | c[s]);
    }
  }

  uint8_t read_code(uint32_t slot, size_t s) const {
    const uint8_t* block = codes.data() + size_t(slot / kBlockVectors) * block_bytes();
    const uint8_t byte = block[(s / 2) * kBlockVectors + slot % kBlockVectors];
    return (s % 2) ? uint8_t(byte >> 4) : uint8_t(byte & 0x0F);
  }

  // Room for `slots` slots in every per-slot array; new slots start dead (offset = +inf).
  void reserve_slots(size_t slots) {
    if (slots <= capacity_slots) return;
    const size_t want = std::max(slots, capacity_slots + capacity_slots / 2);
    const size_t new_blocks = (want + kBlockVectors - 1) / kBlockVectors;
    const size_t new_cap = new_blocks * kBlockVectors;
    const size_t old_blocks = capacity_slots / kBlockVectors;
    codes.reserve(new_blocks * block_bytes(), old_blocks * block_bytes());
    offset.reserve(new_cap, capacity_slots);
    scale.reserve(new_cap, capacity_slots);
    if (keep_vectors) vectors.reserve(new_cap * stride, capacity_slots * stride);
    for (size_t s = capacity_slots; s < new_cap; ++s) offset.data()[s] = INFINITY;
    capacity_slots = new_cap;
  }

  // --- query tables ---------------------------------------------------------------------

  struct QueryTables {
    float c0;         // per-query constant of the distance
    float bias;       // sum of per-table minima
    float step;       // float value of one table unit
  };

  // Rotates the query and builds the float tables (s.ftables) and the 8-bit kernel tables
  // (s.tables). Deterministic scalar code: the same query gives the same tables anywhere.
  QueryTables build_tables(const float* query, QueryLane& s, float* rot_tmp) const {
    const float* q = query;
    QueryTables t{0.0f, 0.0f, 1.0f};
    if (metric == Metric::cosine) {
      double n2 = 0.0;
      for (size_t i = 0; i < dim; ++i) n2 += double(query[i]) * query[i];
      scale_to_unit(query, n2, s.query.data());
      q = s.query.data();
      t.c0 = 1.0f;
    } else if (metric == Metric::l2) {
      double n2 = 0.0;
      for (size_t i = 0; i < dim; ++i) n2 += double(query[i]) * query[i];
      t.c0 = static_cast<float>(n2);
    }
    rotation.apply(q, s.rotated.data(), rot_tmp);
    const float* qr = s.rotated.data();
    const std::vector<float>& cent = codebook.centroids;
    float* ft = s.ftables.data();
    for (size_t sq = 0; sq < subq; ++sq) {
      float* row = ft + sq * 16;
      if (bits == 4) {
        for (size_t c = 0; c < 16; ++c) row[c] = qr[sq] * cent[c];
      } else {
        const float q0 = qr[2 * sq];
        const float q1 = 2 * sq + 1 < dim ? qr[2 * sq + 1] : 0.0f;
        for (size_t c = 0; c < 16; ++c) row[c] = q0 * cent[c & 3] + q1 * cent[c >> 2];
      }
    }
    // 8-bit tables: subtract each table's minimum, one scale for all so sums stay comparable.
    // Entries are monotone in each coordinate's level (q * centroid, centroids ascending), so
    // a table's extremes sit at its corner codes 0, 3, 12, 15 (4 bits: 0 or 15).
    float* lows = s.lows.data();
    double bias = 0.0;
    float range = 0.0f;
    for (size_t sq = 0; sq < subq; ++sq) {
      const float* row = ft + sq * 16;
      const float lo = std::min(std::min(row[0], row[3]), std::min(row[12], row[15]));
      const float hi = std::max(std::max(row[0], row[3]), std::max(row[12], row[15]));
      lows[sq] = lo;
      bias += lo;
      range = std::max(range, hi - lo);
    }
    const float to_units = range > 0.0f ? float(quant::kMaxTableEntry) / range : 0.0f;
    t.bias = static_cast<float>(bias);
    t.step = range > 0.0f ? range / float(quant::kMaxTableEntry) : 0.0f;
    uint8_t* tab = s.tables.data();
    for (size_t sq = 0; sq < subq; ++sq) {
      const float* row = ft + sq * 16;
      // Sub-quantiser 4g + r sits at offset: r=0 -> 0, r=2 -> 32, r=1 -> 64, r=3 -> 96.
      const size_t g = sq / 4, r = sq % 4;
      uint8_t* dst = tab + g * kGroupTableBytes + (r % 2) * 64 + (r / 2) * 32;
      const float lo = lows[sq];
      for (size_t c = 0; c < 16; ++c) {  // simple enough for the compiler to vectorise
        const float units = std::floor((row[c] - lo) * to_units + 0.5f);
        dst[c] = uint8_t(int32_t(units < float(quant::kMaxTableEntry) ? units : float(quant::kMaxTableEntry)));
      }
      std::memcpy(dst + 16, dst, 16);
    }
    // Padding sub-quantisers of the last group look up zeros.
    for (size_t sq = subq; sq < groups * kGroupSubquantizers; ++sq) {
      const size_t g = sq / 4, r = sq % 4;
      std::memset(tab + g * kGroupTableBytes + (r % 2) * 64 + (r / 2) * 32, 0, 32);
    }
    return t;
  }

  // --- search -----------------------------------------------------------------------------

  float exact_distance(const float* query, uint32_t slot) const {
    const float* x = vectors.data() + size_t(slot) * stride;
    switch (metric) {
      case Metric::l2: return kernels.l2sq_f32(query, x, dim);
      case Metric::ip: return -kernels.dot_f32(query, x, dim);
      case Metric::cosine: return kernels.cos_f32(query, x, dim);
    }
    return 0.0f;
  }

  void set_allow_mask(const QuantizedSearchParams& p, Scratch& s, bool on) const {
    for (size_t i = 0; i < p.allow_count; ++i) {
      uint32_t slot;
      if (!slots.find(p.allow[i], slot)) continue;
      uint32_t& word = s.allow_mask[slot / kBlockVectors];
      const uint32_t bit = 1u << (slot % kBlockVectors);
      word = on ? (word | bit) : 0u;
    }
  }

  // Float score of one slot's codes against the float tables (the 8-bit tables' reference).
  // Four partial sums in a fixed order: no long dependency chain, same bits everywhere.
  float float_score(uint32_t slot, const float* ft) const {
    const uint8_t* block = codes.data() + size_t(slot / kBlockVectors) * block_bytes();
    const size_t v = slot % kBlockVectors;
    float sum[4] = {0.0f, 0.0f, 0.0f, 0.0f};
    const size_t pairs = subq / 2;
    for (size_t p = 0; p < pairs; ++p) {
      const uint8_t byte = block[p * kBlockVectors + v];
      sum[(2 * p) & 3] += ft[(2 * p) * 16 + (byte & 15)];
      sum[(2 * p + 1) & 3] += ft[(2 * p + 1) * 16 + (byte >> 4)];
    }
    if (subq % 2) sum[0] += ft[(subq - 1) * 16 + (block[pairs * kBlockVectors + v] & 15)];
    return (sum[0] + sum[1]) + (sum[2] + sum[3]);
  }

  // Searches nq <= kMaxQueriesPerPass queries in one pass over the codes; query i writes its
  // results to outs[i] and returns their count in counts[i].
  void search_many(const float* const* queries, size_t nq, size_t k, Neighbor* const* outs,
                   size_t* counts, const QuantizedSearchParams& p, Scratch& s) const {
    // Candidates: k * rerank for an exact rerank; otherwise the 8-bit scan keeps
    // kRefineFactor * k and their codes are re-scored with float tables, so the 8-bit tables'
    // rounding does not decide the final order.
    const size_t depth = std::min(p.rerank > 0 ? k * p.rerank : k * kRefineFactor, live());
    s.reserve(dim, subq, groups, depth, blocks());
    QueryTables t[quant::kMaxQueriesPerPass];
    const uint8_t* table_ptrs[quant::kMaxQueriesPerPass];
    core::BasicTopK<Candidate> tops[quant::kMaxQueriesPerPass] = {
        {s.lanes[0].candidates.data(), depth}, {s.lanes[1].candidates.data(), depth},
        {s.lanes[2].candidates.data(), depth}, {s.lanes[3].candidates.data(), depth}};
    for (size_t i = 0; i < nq; ++i) {
      t[i] = build_tables(queries[i], s.lanes[i], s.rot_tmp.data());
      table_ptrs[i] = s.lanes[i].tables.data();
    }
    const bool filtered = p.allow != nullptr;
    if (filtered) set_allow_mask(p, s, true);

    const size_t nblocks = blocks();
    const size_t used = slots.used();
    float dist[quant::kMaxQueriesPerPass * kBlockVectors];
    uint32_t hits[quant::kMaxQueriesPerPass];
    quant::BlockScoring bs[quant::kMaxQueriesPerPass];
    for (size_t b = 0; b < nblocks; ++b) {
      uint32_t allowed = ~0u;
      if (filtered) {
        allowed = s.allow_mask[b];
        if (allowed == 0) continue;  // no allowed id in this block
      }
      const size_t base = b * kBlockVectors;
      const float* off = offset.data() + base;
      const float* sc = scale.data() + base;
      const uint8_t* block = codes.data() + b * block_bytes();
      for (size_t i = 0; i < nq; ++i) {
        // Dead and padding slots score +inf and never enter, even while the heap has room.
        bs[i] = {t[i].c0, t[i].bias, t[i].step, std::min(tops[i].threshold(), FLT_MAX)};
      }
      if (p.float_tables) {
        for (size_t i = 0; i < nq; ++i) {
          hits[i] = 0;
          for (size_t v = 0; v < kBlockVectors; ++v) {
            const bool alive = base + v < used && slots.id_at(uint32_t(base + v)) != kNoId;
            const float score = alive ? float_score(uint32_t(base + v), s.lanes[i].ftables.data()) : 0.0f;
            float& d = dist[i * kBlockVectors + v];
            d = (t[i].c0 + off[v]) + sc[v] * score;
            hits[i] |= uint32_t(d <= bs[i].threshold) << v;
          }
        }
      } else if (nq == 1) {
        hits[0] = fastscan.scan_block(block, table_ptrs[0], groups, off, sc, bs[0], dist);
      } else {
        fastscan.scan_block_multi(block, table_ptrs, nq, groups, off, sc, bs, dist, hits);
      }
      for (size_t i = 0; i < nq; ++i) {
        uint32_t h = hits[i] & allowed;
        while (h) {
          const unsigned v = unsigned(__builtin_ctz(h));
          h &= h - 1;
          tops[i].push(slots.id_at(uint32_t(base + v)), dist[i * kBlockVectors + v], uint32_t(base + v));
        }
      }
    }
    if (filtered) set_allow_mask(p, s, false);

    for (size_t i = 0; i < nq; ++i) {
      const size_t found = tops[i].finish();
      const Candidate* cand = s.lanes[i].candidates.data();
      core::TopK best(outs[i], std::min(k, found));
      if (p.rerank > 0) {  // exact distances from the kept vectors
        const float* q = metric == Metric::cosine ? s.lanes[i].query.data() : queries[i];
        for (size_t c = 0; c < found; ++c) best.push(cand[c].id, exact_distance(q, cand[c].slot));
      } else if (!p.float_tables) {  // float-table scores of the same codes
        for (size_t c = 0; c < found; ++c) {
          const uint32_t slot = cand[c].slot;
          best.push(cand[c].id, (t[i].c0 + offset.data()[slot]) +
                                    scale.data()[slot] * float_score(slot, s.lanes[i].ftables.data()));
        }
      } else {
        for (size_t c = 0; c < found; ++c) best.push(cand[c].id, cand[c].distance);
      }
      counts[i] = best.finish();
    }
  }

  size_t search_one(const float* query, size_t k, Neighbor* out, const QuantizedSearchParams& p,
                    Scratch& s) const {
    size_t count = 0;
    search_many(&query, 1, k, &out, &count, p, s);
    return count;
  }

  void check_search(size_t k, const QuantizedSearchParams& p) const {
    core::check_k(k);
    if (live() == 0) throw Error(ErrorCode::EmptyIndex, "the index is empty");
    if (p.rerank > 0 && !keep_vectors) {
      throw Error(ErrorCode::InvalidArgument,
                  "rerank needs the f32 vectors, but this index was created with keep_vectors = false");
    }
    if (p.allow == nullptr && p.allow_count > 0) {
      throw Error(ErrorCode::InvalidArgument, "allow is null but allow_count is not zero");
    }
  }
};

QuantizedIndex::QuantizedIndex(const QuantizedIndexOptions& options)
    : QuantizedIndex(options, active_isa()) {}
QuantizedIndex::QuantizedIndex(const QuantizedIndexOptions& options, Isa isa)
    : impl_(std::make_unique<Impl>(options, isa)) {}
QuantizedIndex::~QuantizedIndex() = default;
QuantizedIndex::QuantizedIndex(QuantizedIndex&&) noexcept = default;
QuantizedIndex& QuantizedIndex::operator=(QuantizedIndex&&) noexcept = default;

size_t QuantizedIndex::dim() const noexcept { return impl_->dim; }
Metric QuantizedIndex::metric() const noexcept { return impl_->metric; }
unsigned QuantizedIndex::bits() const noexcept { return impl_->bits; }
uint64_t QuantizedIndex::seed() const noexcept { return impl_->seed; }
bool QuantizedIndex::keeps_vectors() const noexcept { return impl_->keep_vectors; }
Isa QuantizedIndex::isa() const noexcept { return impl_->kernels.isa; }
size_t QuantizedIndex::size() const noexcept {
  core::ReadLock lock(impl_->rw);
  return impl_->live();
}
bool QuantizedIndex::contains(uint64_t id) const noexcept {
  core::ReadLock lock(impl_->rw);
  return impl_->slots.contains(id);
}

size_t QuantizedIndex::code_bytes_per_vector() const noexcept {
  return impl_->groups * kGroupCodeBytes / kBlockVectors + 2 * sizeof(float);
}

size_t QuantizedIndex::memory_bytes() const noexcept {
  const Impl& m = *impl_;
  core::ReadLock lock(m.rw);
  return m.codes.capacity() + (m.offset.capacity() + m.scale.capacity() + m.vectors.capacity()) * sizeof(float) +
         m.slots.memory_bytes();
}

void QuantizedIndex::add(const uint64_t* ids, const float* vectors, size_t n) {
  Impl& m = *impl_;
  if (n == 0) return;
  if (ids == nullptr) throw Error(ErrorCode::InvalidArgument, "ids is null");
  core::WriteLock lock(m.rw);
  m.slots.check_room(n);
  core::check_vectors(vectors, n, m.dim, m.metric, "vector");
  Impl::Encoded encoded;
  std::vector<uint32_t> slots(n);
  try {
    m.slots.check_ids(ids, n);
    encoded = m.encode(vectors, n);
    // Reserve everything, so the commit below cannot fail half way.
    m.slots.plan(n, slots.data());
    m.reserve_slots(m.slots.used() + (n - m.slots.reused_for(n)));
  } catch (const std::bad_alloc&) {
    throw_oom();
  }
  m.slots.bind(ids, slots.data(), n);
  m.slots.commit(ids, slots.data(), n);
  for (size_t i = 0; i < n; ++i) {
    const uint32_t slot = slots[i];
    m.write_codes(slot, encoded.codes.data() + i * m.subq);
    m.offset.data()[slot] = encoded.offset[i];
    m.scale.data()[slot] = encoded.scale[i];
    if (m.keep_vectors) {
      float* dst = m.vectors.data() + size_t(slot) * m.stride;
      index::store_vector(m.metric, vectors + i * m.dim, dst, m.dim);
    }
  }
}

void QuantizedIndex::add(const std::vector<uint64_t>& ids, const std::vector<float>& vectors) {
  core::check_batch_shape(ids.size(), vectors.size(), impl_->dim);
  add(ids.data(), vectors.data(), ids.size());
}

void QuantizedIndex::remove(const uint64_t* ids, size_t n) {
  Impl& m = *impl_;
  if (n == 0) return;
  core::WriteLock lock(m.rw);
  m.slots.check_remove(ids, n);
  for (size_t i = 0; i < n; ++i) {
    uint32_t unused;
    const uint32_t slot = m.slots.remove(ids[i], unused);  // onto the free list, id cleared
    m.offset.data()[slot] = INFINITY;  // the scan can never return it
  }
}

void QuantizedIndex::remove(const std::vector<uint64_t>& ids) { remove(ids.data(), ids.size()); }

std::vector<uint8_t> QuantizedIndex::codes(uint64_t id) const {
  core::ReadLock lock(impl_->rw);
  uint32_t slot;
  if (!impl_->slots.find(id, slot)) {
    throw Error(ErrorCode::UnknownId, "id " + std::to_string(id) + " is not in the index");
  }
  std::vector<uint8_t> out(impl_->subq);
  for (size_t s = 0; s < impl_->subq; ++s) out[s] = impl_->read_code(slot, s);
  return out;
}

size_t QuantizedIndex::search(const float* query, size_t k, Neighbor* out,
                              const QuantizedSearchParams& params) const {
  core::check_vectors(query, 1, impl_->dim, impl_->metric, "query");
  core::ReadLock lock(impl_->rw);
  impl_->check_search(k, params);
  return impl_->search_one(query, k, out, params, thread_scratch());
}

std::vector<Neighbor> QuantizedIndex::search(const std::vector<float>& query, size_t k,
                                             const QuantizedSearchParams& params) const {
  core::check_query_size(query.size(), impl_->dim);
  core::check_vectors(query.data(), 1, impl_->dim, impl_->metric, "query");
  core::ReadLock lock(impl_->rw);  // one lock for the size and the search
  impl_->check_search(k, params);
  std::vector<Neighbor> out(std::min(k, impl_->live()));
  out.resize(impl_->search_one(query.data(), out.size(), out.data(), params, thread_scratch()));
  return out;
}

size_t QuantizedIndex::search_batch(const float* queries, size_t nq, size_t k, Neighbor* out,
                                    const QuantizedSearchParams& params) const {
  core::check_vectors(queries, nq, impl_->dim, impl_->metric, "query");
  // The pool's workers search under this thread's shared lock (the call returns when they are done).
  core::ReadLock lock(impl_->rw);
  impl_->check_search(k, params);
  const size_t kk = std::min(k, impl_->live());
  // Queries go through the codes kMaxQueriesPerPass at a time; the passes are spread over the
  // process thread pool (each worker thread has its own scratch).
  const size_t per_pass = quant::kMaxQueriesPerPass;
  const size_t passes = (nq + per_pass - 1) / per_pass;
  const Impl& m = *impl_;
  parallel::process_pool().parallel_for(passes, [&](size_t pass, size_t) {
    const size_t first = pass * per_pass;
    const size_t n = std::min(per_pass, nq - first);
    const float* qs[quant::kMaxQueriesPerPass];
    Neighbor* outs[quant::kMaxQueriesPerPass];
    size_t counts[quant::kMaxQueriesPerPass];
    for (size_t i = 0; i < n; ++i) {
      qs[i] = queries + (first + i) * m.dim;
      outs[i] = out + (first + i) * k;
    }
    m.search_many(qs, n, kk, outs, counts, params, thread_scratch());
    // Rows the filter left short: explicit "no result" slots (neighbor.hpp), never stale data.
    for (size_t i = 0; i < n; ++i) {
      for (size_t j = counts[i]; j < kk; ++j) outs[i][j] = Neighbor{kNoId, INFINITY};
    }
  });
  return kk;
}

// ---- Index files (src/index/quantized_state.hpp, src/io/quantized_format.cpp) ----

QuantizedIndexAccess::View QuantizedIndexAccess::view(const QuantizedIndex& index) {
  const QuantizedIndex::Impl& m = *index.impl_;
  return {m.subq, &m.codebook, &m.rotation, m.slots.used(), m.slots.slot_ids(), m.offset.data(),
          m.scale.data(), m.keep_vectors ? m.vectors.data() : nullptr, m.stride, m.slots.free_slots().data(),
          m.slots.free_slots().size()};
}

core::ReadLock QuantizedIndexAccess::read_lock(const QuantizedIndex& index) {
  return core::ReadLock(index.impl_->rw);
}

void QuantizedIndexAccess::packed_codes(const QuantizedIndex& index, uint32_t slot, uint8_t* out) {
  const QuantizedIndex::Impl& m = *index.impl_;
  for (size_t j = 0; 2 * j < m.subq; ++j) {
    out[j] = uint8_t(m.read_code(slot, 2 * j) | (2 * j + 1 < m.subq ? m.read_code(slot, 2 * j + 1) << 4 : 0));
  }
}

void QuantizedIndexAccess::reserve(QuantizedIndex& index, size_t slots, size_t free_count) {
  QuantizedIndex::Impl& m = *index.impl_;
  try {
    m.reserve_slots(slots);
    m.slots.reserve(slots, slots - free_count);
  } catch (const std::bad_alloc&) {
    throw_oom();
  }
}

void QuantizedIndexAccess::append_slots(QuantizedIndex& index, size_t n, const uint64_t* ids,
                                        const uint8_t* packed, const float* offset, const float* scale,
                                        const float* vectors) {
  QuantizedIndex::Impl& m = *index.impl_;
  std::vector<uint8_t> c;
  try {
    c.resize(m.subq);
  } catch (const std::bad_alloc&) {
    throw_oom();
  }
  for (size_t i = 0; i < n; ++i) {
    const uint32_t slot = uint32_t(m.slots.used());
    try {
      m.slots.append(ids[i], ids[i] != kNoId);  // the loader rejected duplicate ids already
    } catch (const std::bad_alloc&) {
      throw_oom();
    }
    if (ids[i] == kNoId) continue;
    const uint8_t* p = packed + i * ((m.subq + 1) / 2);
    for (size_t s = 0; s < m.subq; ++s) c[s] = uint8_t((s % 2 ? p[s / 2] >> 4 : p[s / 2]) & 15);
    m.write_codes(slot, c.data());
    m.offset.data()[slot] = offset[i];
    m.scale.data()[slot] = scale[i];
    if (m.keep_vectors) std::memcpy(m.vectors.data() + size_t(slot) * m.stride, vectors + i * m.dim, m.dim * 4);
  }
}

void QuantizedIndexAccess::set_free_slots(QuantizedIndex& index, const uint32_t* free_slots, size_t n) {
  index.impl_->slots.set_free_slots(free_slots, n);  // capacity reserved
}

}  // namespace quiver
