// Internal access to a QuantizedIndex's slot storage, for the index file code
// (src/index/quantized/quantized_format.cpp). Not a public header: QuantizedIndex names this struct as its
// friend, and its functions are defined in quantized_access.cpp, where the storage layout (32-vector
// code blocks, dead slots at offset +inf) is known. The file format sees a canonical per-slot
// layout instead, so the kernels' block layout can change without changing the format.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "base/rw_lock.hpp"
#include "quant/codebook.hpp"
#include "quant/refine_plane.hpp"
#include "quant/rotation.hpp"
#include "quiver/quantized_index.hpp"

namespace quiver {

struct QuantizedIndexAccess {
  static constexpr uint64_t kNoId = UINT64_MAX;  // slot_ids value of a free slot

  struct View {
    size_t subq;  // sub-quantisers per vector (4-bit codes): dim at 4 bits, ceil(dim/2) at 2
    const quant::Codebook* codebook;
    const quant::Rotation* rotation;
    size_t slots;                // slots in use (high-water mark), live and free
    const uint64_t* slot_ids;    // kNoId for a free slot
    bool keeps_vectors;          // vector() gives each live slot's kept vector
    const uint32_t* free_slots;  // the free list, in the order adds take from its back
    size_t free_count;
    const quant::RefineCodec* refine;  // null without a refine plane
  };
  // Holds off writers (searches go on) while a file is written; view() and packed_codes()
  // only under it (or before the index is shared).
  static core::ReadLock read_lock(const QuantizedIndex& index);
  static View view(const QuantizedIndex& index);

  // Packed codes of one slot: ceil(subq / 2) bytes, byte j = code(2j) | code(2j + 1) << 4.
  static void packed_codes(const QuantizedIndex& index, uint32_t slot, uint8_t* out);
  // The kept f32 vector of a live slot (dim floats; keep_vectors only).
  static const float* vector(const QuantizedIndex& index, uint32_t slot);
  // The list of a live slot (partitioned only).
  static uint32_t list_of_slot(const QuantizedIndex& index, uint32_t slot);
  // The refine plane's row (refine->row_bytes() bytes) and scale of a live slot.
  static const uint8_t* refine_row(const QuantizedIndex& index, uint32_t slot);
  static float refine_scale(const QuantizedIndex& index, uint32_t slot);
  // The distance-estimate scalars of a live slot.
  static void scalars(const QuantizedIndex& index, uint32_t slot, float& offset, float& scale);

  // Partitions (all zero / null when the index is not partitioned).
  struct Partition {
    size_t lists_option;           // QuantizedIndexOptions::lists
    size_t lists;                  // lists now: 1 before training, else the centroid count
    size_t trained_on;             // the size threshold of the last training (0: never trained)
    std::vector<float> centroids;  // lists x dim when trained, else empty
    std::vector<float> spreads;    // inner product, trained: one per list (else empty)
  };
  static Partition partition(const QuantizedIndex& index);

  // Loading into a fresh, empty index made with the file's options, from validated data:
  // set_partition() (partitioned only), reserve(slots) once, then append_slots() in slot order until `slots` are filled
  // (a free slot has id kNoId; its other inputs are ignored), then set_free_slots(). Rows of `vectors` are dim floats
  // in stored form; null without keep_vectors. `refine_rows` (n x row bytes) and `refine_scales`: null without a refine
  // plane. Throws only Error(OutOfMemory); on a throw the index must be discarded.
  static void reserve(QuantizedIndex& index, size_t slots, size_t free_count);
  // `lists`: the list of each slot (null when not partitioned); each list is filled in slot order.
  static void append_slots(QuantizedIndex& index, size_t n, const uint64_t* ids, const uint8_t* packed_codes,
                           const float* offset, const float* scale, const float* vectors, const uint32_t* lists,
                           const uint8_t* refine_rows = nullptr, const float* refine_scales = nullptr);
  // centroids: lists x dim (empty when trained_on == 0, and then lists == 1).
  static void set_partition(QuantizedIndex& index, size_t lists, size_t trained_on, std::vector<float> centroids,
                            std::vector<float> spreads);
  static void set_free_slots(QuantizedIndex& index, const uint32_t* free_slots, size_t n);
  // Once loaded: empty, or why the partition's lists do not match its centroids (a sampled
  // check that each vector sits in its nearest list; quantized_partition.cpp).
  static std::string partition_fault(const QuantizedIndex& index);
  // Once every slot is in its list: puts each list's blocks side by side (InvertedLists::pack;
  // the load filled the lists slot by slot, so their blocks are scattered). Never throws.
  static void pack_lists(QuantizedIndex& index) noexcept;

  // Streamed loading (io::QuantizedDecoder): each section's rows are written into the index's
  // storage as they arrive, before the slot table knows the slots; the checks then read them
  // back through packed_codes(), scalars(), vector() and refine_row() / refine_scale(), and
  // commit_slots() enters the slots in the table once they passed. reserve_rows() grows the
  // per-slot storage (chunks only); these throw only Error(OutOfMemory).
  // Unpartitioned, every slot's rows go to its place, free slots included (as stored: zeros
  // in a sound file): put_codes(), put_offset(), put_scale().
  // Partitioned (an index made with lists != 0), begin_lists() first (from PART, which a file
  // written since the streamed partitioned load stores before the codes), then each live
  // slot, in slot order, is appended to its list by place_codes() (from LIST, also stored
  // before the codes) — the order the whole-file loader fills the lists in — and put_offset()
  // / put_scale() reach it there; free slots have no place (the decoder remembers whether
  // they held anything). set_centroids() is set_partition() keeping the lists so filled.
  static void reserve_rows(QuantizedIndex& index, size_t slots);
  static void put_codes(QuantizedIndex& index, uint32_t slot, const uint8_t* packed_codes) noexcept;
  static void begin_lists(QuantizedIndex& index, size_t lists_option, size_t lists);
  static void place_codes(QuantizedIndex& index, uint32_t slot, uint32_t list, const uint8_t* packed_codes);
  static void set_centroids(QuantizedIndex& index, size_t lists, size_t trained_on, std::vector<float> centroids,
                            std::vector<float> spreads);
  static void put_offset(QuantizedIndex& index, uint32_t slot, float offset) noexcept;
  static void put_scale(QuantizedIndex& index, uint32_t slot, float scale) noexcept;
  static float* vector_row(QuantizedIndex& index, uint32_t slot) noexcept;
  static void put_refine(QuantizedIndex& index, uint32_t slot, const uint8_t* row, float scale) noexcept;
  // The next n slots (in slot order) enter the table; a free slot (kNoId) is made dead again.
  static void commit_slots(QuantizedIndex& index, size_t n, const uint64_t* ids);
};

}  // namespace quiver
