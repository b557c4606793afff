// The quantised index's internal state (QuantizedIndex::Impl) and its per-thread search
// scratch. Not a public header. The work is split by job, one file each:
//   quantized_index.cpp   public API: options, add / remove / search entry points, locking
//   quantized_encode.cpp  vector -> codes + per-vector scalars; the 32-vector block storage
//   quantized_tables.cpp  query -> rotated query, float tables and 8-bit fast-scan tables
//   quantized_search.cpp  the block scan that keeps candidates, then their re-scoring
//   quantized_access.cpp  the index file code's view of the storage (quantized_state.hpp)
//   quantized_partition.cpp  partitions: when to train, k-means on decoded codes, assignment
//   quantized_coarse.*    the coarse quantiser (centroids, deterministic k-means)
//   quantized_lists.*     the inverted lists (blocks of 32, grown one block at a time)
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "base/aligned_buffer.hpp"
#include "base/row_blocks.hpp"
#include "base/rw_lock.hpp"
#include "index/quantized/partition/quantized_coarse.hpp"
#include "index/quantized/partition/quantized_lists.hpp"
#include "index/common/slot_table.hpp"
#include "quant/codebook.hpp"
#include "quant/fastscan.hpp"
#include "quant/refine_plane.hpp"
#include "quant/rotation.hpp"
#include "quiver/quantized_index.hpp"
#include "simd/kernels.hpp"

namespace quiver {
namespace quantized {

// A candidate of the code scan. It carries the caller id, so that exact ties at the candidate
// cut-off go to the smaller id as they do in the final list (slots are reused last-freed
// first, so slot order is not id order), and the slot, for re-scoring.
//
// A partitioned scan also records where the slot's codes are (its block and lane, and its
// offset), which it has at hand, so re-scoring does not look them up again through the slot's
// list and position; block is null where the scan did not record it.
struct Candidate {
  uint64_t id;
  float distance;
  uint32_t slot;
  uint32_t lane = 0;
  const uint8_t* block = nullptr;
  float offset = 0.0f;
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
  uint32_t warmed = 0;  // what core::warm_lines() loaded in re-scoring: kept so the loads stay
};

struct Scratch {
  QueryLane lanes[quant::kMaxQueriesPerPass];
  std::vector<float> rot_tmp;        // rotation scratch
  std::vector<uint32_t> allow_mask;  // one 32-bit word per block
  // Partitioned search: centroid scores and the probe order, and each list's first block in
  // allow_mask (lists + 1 entries).
  std::vector<float> list_scores;
  std::vector<uint32_t> list_order;
  std::vector<uint64_t> list_keys;  // the order's sort keys (quantized_search.cpp, order_key)
  std::vector<uint32_t> block_base;
  std::vector<float> settle;
  std::vector<uint8_t> coarse_codes;  // the query's 8-bit codes for the centroid shortlist

  void reserve(size_t dim, size_t subq, size_t groups, size_t cand, size_t blocks);
  void reserve_lists(size_t lists, size_t dim);
};

// This thread's scratch (each pool worker has its own).
Scratch& thread_scratch();

// Per-query constants of the 8-bit tables (build_tables).
struct QueryTables {
  float c0;    // per-query constant of the distance
  float bias;  // sum of per-table minima
  float step;  // float value of one table unit
};

[[noreturn]] void throw_oom();

// Partitions (quantized_partition.cpp has the rules and why).
inline constexpr size_t kMaxLists = QuantizedIndexOptions::kMaxLists;
// The list count of lists = kAutoLists for an index trained at t vectors with `bits`-bit codes.
size_t auto_lists(size_t t, unsigned bits);
// A search at the default probes scans at least this many vectors (all of a smaller index).
inline constexpr size_t kDefaultMinScanned = 8192;
// The adaptive default's patience at `lists` lists: the lists without a change in its best
// estimates before it may stop (quantized_search.cpp, SettleWatch).
size_t adaptive_patience(size_t lists);
// A filtered partitioned search scores at least this many allowed vectors (or all of them):
// below it scoring every one costs little (blocks without one are skipped) and is exact.
inline constexpr size_t kMinAllowedScored = 1024;

}  // namespace quantized

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
  quant::RefineCodec refine_codec;  // disabled without a refine plane (refine_bits 0)

  // Slot storage. A slot is live iff slots.id_at(slot) != kNoId; dead and padding slots have
  // offset = +inf, so they can never enter a result. Every per-slot array is chunked
  // (core::RowBlocks): growing adds chunks and never copies what is stored, so an add needs
  // the index plus its new rows, not twice the index (a wasm heap never shrinks back).
  core::RowBlocks<uint8_t> codes{1, 32};  // one row per block of 32 slots: groups x 64 bytes
  core::RowBlocks<float> offset{1, 32};   // per slot: c_v in  distance = (c0 + c_v) + scale_v * score
  core::RowBlocks<float> scale{1, 32};    // per slot: scale_v
  core::RowBlocks<float> vectors{1, 32};  // per slot x stride, if keep_vectors
  quant::RefinePlane refine;              // per slot: refine row + scale, if refine_bits > 0
  // Ids of the slots (size = slots in use, the high-water mark; kNoId for a free slot) and
  // the free list, reused last-in first-out.
  index::SlotTable slots{index::Reuse::free_list, UINT32_MAX, "quantized"};
  size_t capacity_slots = 0;
  // Searches share it; add and remove hold it alone (the contract in quantized_index.hpp).
  mutable core::SharedMutex rw;

  // Partitions (quantized_partition.cpp). When partitioned, codes, offsets and scales live
  // only in the lists (the per-slot arrays above stay empty, except `vectors`), and each slot
  // records where: list and position.
  size_t lists_option = 0;                                      // QuantizedIndexOptions::lists
  quantized::CoarseQuantizer coarse;                            // 0 lists until trained
  quantized::InvertedLists ivf;                                 // 1 list until trained, then coarse.lists()
  core::RowBlocks<uint32_t> slot_list{1, 32}, slot_pos{1, 32};  // per slot
  size_t trained_on = 0;  // the training threshold T the centroids were trained at

  Impl(const QuantizedIndexOptions& o, Isa isa);  // quantized_index.cpp

  bool partitioned() const { return lists_option != 0; }
  size_t block_bytes() const { return groups * quant::kGroupCodeBytes; }
  // Blocks a search may scan (unpartitioned: by slot; partitioned: over every list).
  size_t blocks() const;
  size_t live() const { return slots.size(); }

  // Where a slot's codes and scalars are: its block and lane.
  const uint8_t* code_block(uint32_t slot, size_t& lane) const {
    if (!partitioned()) {
      lane = slot % quant::kBlockVectors;
      return codes.row(slot / quant::kBlockVectors);
    }
    const uint32_t pos = *slot_pos.row(slot);
    lane = pos % quant::kBlockVectors;
    return ivf.codes(*slot_list.row(slot), pos / quant::kBlockVectors);
  }
  float offset_of(uint32_t slot) const {
    if (!partitioned()) return *offset.row(slot);
    const uint32_t pos = *slot_pos.row(slot);
    return ivf.offsets(*slot_list.row(slot), pos / quant::kBlockVectors)[pos % quant::kBlockVectors];
  }
  float scale_of(uint32_t slot) const {
    if (!partitioned()) return *scale.row(slot);
    const uint32_t pos = *slot_pos.row(slot);
    return ivf.scales(*slot_list.row(slot), pos / quant::kBlockVectors)[pos % quant::kBlockVectors];
  }

  // --- encoding (quantized_encode.cpp) ---------------------------------------------------
  struct Encoded {
    std::vector<uint8_t> codes;  // n x subq
    std::vector<float> offset, scale;
    std::vector<uint8_t> refine_rows;  // n x refine row bytes, with a refine plane
    std::vector<float> refine_scale;   // n, with a refine plane
  };
  // unit = x / |x| (norm2 = |x|^2, summed in double), bit-identical on every target.
  void scale_to_unit(const float* x, double norm2, float* unit) const;
  // Codes and scalars for n rows. Plain scalar code in a fixed order: bit-identical anywhere.
  Encoded encode(const float* rows, size_t n) const;
  void write_codes(uint32_t slot, const uint8_t* c);
  void write_packed_codes(uint32_t slot, const uint8_t* packed) noexcept;  // a packed row (the file's form)
  uint8_t read_code(uint32_t slot, size_t s) const {
    size_t lane;
    const uint8_t* block = code_block(slot, lane);
    return quantized::read_lane(block, lane, s);
  }
  // Room for `slots` slots in every per-slot array; new slots start dead (offset = +inf).
  // Adds chunks only. Throws Error(OutOfMemory) with the arrays as they were.
  void reserve_slots(size_t slots);
  // Per-slot scalar arrays (offsets, scales, list, position) come in chunks of this many (a
  // multiple of 32: a block's offsets and scales are read as one run), the codes and kept
  // vectors in chunks of at most kSlotChunkBytes (at least one block / row). Small chunks keep
  // a small index small; at 1M vectors the chunk tables are still a few hundred KB.
  static constexpr size_t kSlotsPerScalarChunk = 1024;
  static constexpr size_t kSlotChunkBytes = size_t(32) << 10;

  // --- partitions (quantized_partition.cpp) ---------------------------------------------
  // What an add does to the partitions, prepared before the slot table commits (so that an
  // out-of-memory leaves the index as it was) and applied after (noexcept).
  struct PartitionPlan {
    bool retrain = false;
    quantized::CoarseQuantizer coarse;  // the new centroids, when retrain
    // When retrain: the new lists (block tables sized, empty until apply moves the old slots
    // in), the live slots in slot order and each one's new list, and the positions left in
    // each old block (from block_base[list]); the old lists' arena holds the places the new
    // lists take beyond those the old ones give back as they empty (quantized_partition.cpp).
    quantized::InvertedLists ivf;
    std::vector<uint32_t> live_slots, live_list, block_base;
    std::vector<uint8_t> remaining;
    std::vector<uint32_t> row_list;  // the list of each added row
    size_t trained_on = 0;           // the training threshold T, when retrain
  };
  // Trains if due (sample of the live slots and the new rows), assigns the rows, reserves
  // their room. Throws std::bad_alloc / Error(OutOfMemory) with nothing changed.
  PartitionPlan plan_partition(const Encoded& rows, size_t n);
  void apply_partition(PartitionPlan& plan, const Encoded& rows, const uint32_t* row_slots, size_t n) noexcept;
  void remove_from_partition(uint32_t slot) noexcept;
  // The vector a slot's codes stand for, in the rotated space (correction x centroid levels).
  void decode_rotated(const uint8_t* unpacked, float scale, float* out) const;
  void decode_slot(uint32_t slot, float* out) const;  // the same, from a stored slot
  // A loaded partition's sampled check that vectors sit in their nearest list: empty, or the
  // fault (quantized_partition.cpp).
  std::string partition_fault() const;
  size_t default_probes() const;

  // --- query tables (quantized_tables.cpp) -----------------------------------------------
  // Rotates the query and builds the 8-bit kernel tables (lane.tables) and, if float_tables,
  // the float tables (lane.ftables; see needs_float_tables). Deterministic scalar code: the
  // same query gives the same tables anywhere.
  quantized::QueryTables build_tables(const float* query, quantized::QueryLane& lane, float* rot_tmp,
                                      bool float_tables) const;
  // Whether a search reads the float tables: it scores with them (p.float_tables), or
  // re-scores its candidates with them (no refine plane).
  bool needs_float_tables(const QuantizedSearchParams& p) const { return p.float_tables || !refine_codec.enabled(); }

  // --- search (quantized_search.cpp) -----------------------------------------------------
  void check_search(size_t k, const QuantizedSearchParams& p) const;
  // Searches nq <= kMaxQueriesPerPass queries in one pass over the codes; query i writes its
  // results to outs[i] and returns their count in counts[i].
  void search_many(const float* const* queries, size_t nq, size_t k, Neighbor* const* outs, size_t* counts,
                   const QuantizedSearchParams& p, quantized::Scratch& s) const;
  size_t search_one(const float* query, size_t k, Neighbor* out, const QuantizedSearchParams& p,
                    quantized::Scratch& s) const;
  // The partitioned search: the nearest lists first, until `probes` lists are scanned and the
  // candidates are full.
  size_t search_partitioned(const float* query, size_t k, Neighbor* out, const QuantizedSearchParams& p,
                            quantized::Scratch& s) const;
  size_t candidate_depth(size_t k, const QuantizedSearchParams& p) const;
  // The scan's candidates (lane.candidates[0, found)) re-scored in place by the codes' better
  // estimate (refine plane or float tables), then the best k * rerank of them exactly when the
  // call asks for it; writes the best k to out, returns the count.
  size_t rescore_bytes(size_t found, size_t k, const QuantizedSearchParams& p) const;
  void add_stats(const QuantizedSearchParams& p, size_t lists, size_t vectors, size_t bytes) const;
  // Bytes the scan reads for one block: its codes and its vectors' offsets and scales.
  size_t block_scan_bytes() const noexcept { return block_bytes() + 2 * quant::kBlockVectors * sizeof(float); }
  size_t rescore(const float* query, const quantized::QueryTables& t, quantized::QueryLane& lane, size_t found,
                 size_t k, const QuantizedSearchParams& p, Neighbor* out) const;
  float exact_distance(const float* query, uint32_t slot) const;
  // The refine plane's estimate of a candidate's distance (needs refine_codec.enabled()).
  float refine_distance(const quantized::QueryTables& t, const float* rotated_query,
                        const quantized::Candidate& c) const;
  float float_score(uint32_t slot, const float* ft) const;
  // Whether the allow set becomes a mask before the scan (an allow list; a sparse bitmap).
  bool masked_up_front(const QuantizedSearchParams& p, size_t bits_count) const;
  // Sets (on) or clears the allow set's bits; returns the distinct allowed slots.
  size_t set_allow_mask(const QuantizedSearchParams& p, quantized::Scratch& s, bool on) const;
  // A block's allow word made from an allow bitmap as the scan reaches it.
  uint32_t bits_mask(const QuantizedSearchParams& p, size_t first, size_t n) const;
  uint32_t bits_mask(const QuantizedSearchParams& p, const uint32_t* slot_of, size_t n) const;
};

}  // namespace quiver
