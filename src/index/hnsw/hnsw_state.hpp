// Internal access to an HnswIndex's graph, for the index file code (src/index/hnsw/hnsw_format.cpp)
// and the graph's white-box tests.
// Not a public header: HnswIndex names this struct as its friend, and its functions are
// defined in hnsw_index.cpp, where the node layout (vector and level-0 links in one padded
// stride) is known. The file sees a canonical per-slot layout instead.
#pragma once

#include <cstddef>
#include <cstdint>
#include <mutex>
#include <string>

#include "quiver/hnsw_index.hpp"

namespace quiver {

struct HnswIndexAccess {
  static constexpr uint64_t kNoId = UINT64_MAX;     // slot id of a tombstone in the file
  static constexpr uint64_t kNoEntry = UINT64_MAX;  // entry of an index that never held a node
  static constexpr int kMaxLevel = 31;

  struct View {
    size_t slots;                // slots in use (high-water mark): live nodes and tombstones
    const uint64_t* slot_ids;    // per slot (a tombstone's is stale: check deleted)
    const uint8_t* levels;       // per slot
    const uint8_t* deleted;      // per slot: 1 = tombstone
    const uint32_t* free_slots;  // the tombstones, in the order adds take them from the back
    size_t free_count;
    uint64_t entry;  // (level << 32) | slot, or kNoEntry
    uint64_t draws;  // levels drawn so far
  };
  // Holds off add/remove/reserve (searches go on) while a file is written.
  static std::unique_lock<std::mutex> lock_updates(const HnswIndex& index);
  // Only under lock_updates (or before the index is shared).
  static View view(const HnswIndex& index);
  // The f32 vector of a slot (dim floats, unit length under cosine); null under sq8 storage
  // without kept vectors.
  static const float* vector(const HnswIndex& index, uint32_t slot);
  // sq8: the dim codes of a slot, and its scale (hnsw_sq8.hpp: r_i ~ scale (code_i - 128)).
  static const uint8_t* codes(const HnswIndex& index, uint32_t slot);
  static float sq8_scale(const HnswIndex& index, uint32_t slot);
  // The link list of a slot at a level <= its level: [count, link_0, ..., link_{cap-1}], cap
  // = 2M on level 0 and M above. Words past count are unspecified.
  static const uint32_t* links(const HnswIndex& index, uint32_t slot, int level);

  // Loading into a fresh, empty index made with the file's options. First, as a file's bytes
  // arrive (before anything is validated), the rows of the node storage can be filled in
  // place: load_links(slot) (level 0), load_point(slot) (sq8: the codes), load_vector(slot)
  // (the f32 vector: in the node, or kept beside it under sq8) grow the storage by a chunk
  // when `slot` needs one and return where the row goes. Fresh storage is zeroed: the padding
  // of a row is zero unless written. Then, from validated data (link targets < slots, counts
  // <= cap, levels <= kMaxLevel, the entry a node on its own level): begin_load(slots) once,
  // then for every slot in order set_node() and fill mutable_vector() (if not null and not
  // loaded in place), the sq8 codes (set_codes(), or encode() from a vector) and
  // mutable_links() at each level above 0, then finish_load(). A duplicate live id throws
  // Error(Corrupt); otherwise only Error(OutOfMemory). On a throw the index must be discarded.
  static uint32_t* load_links(HnswIndex& index, uint32_t slot);
  static uint8_t* load_point(HnswIndex& index, uint32_t slot);
  static float* load_vector(HnswIndex& index, uint32_t slot);
  static void begin_load(HnswIndex& index, size_t slots, size_t free_count);
  static void set_node(HnswIndex& index, uint32_t slot, uint64_t id, bool tombstone, int level);
  static float* mutable_vector(HnswIndex& index, uint32_t slot);
  // sq8: stores a slot's codes and scale as read from a file (`codes` may be where
  // load_point() put them); returns what makes them impossible (empty if they are valid; see
  // Sq8Codec::set_record).
  static std::string set_codes(HnswIndex& index, uint32_t slot, const uint8_t* codes, float scale);
  // sq8: codes a slot from an f32 vector (transcoding a file of an older sq8 scheme). The
  // vector must pass core::check_vectors(); `scratch` holds encode_scratch_floats().
  static size_t encode_scratch_floats(const HnswIndex& index);
  static void encode(HnswIndex& index, uint32_t slot, const float* v, float* scratch);
  static uint32_t* mutable_links(HnswIndex& index, uint32_t slot, int level);
  static void finish_load(HnswIndex& index, const uint32_t* free_slots, size_t free_count, uint64_t entry,
                          uint64_t draws);

  // The graph itself (index/hnsw_graph.hpp), for white-box tests that drive its steps directly
  // (e.g. two insertions interleaved at a chosen point).
  static HnswIndex::Impl& graph(HnswIndex& index);
};

}  // namespace quiver
