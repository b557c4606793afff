// Internal access to a FlatIndex for the index file code (src/index/flat/flat_format.cpp). Not a
// public header: FlatIndex names this struct as its friend.
#pragma once

#include <cstddef>
#include <cstdint>

#include "base/rw_lock.hpp"
#include "quiver/flat_index.hpp"

namespace quiver {

struct FlatIndexAccess {
  // Holds off writers (searches go on) while a file is written from stored_row()/stored_id().
  static core::ReadLock read_lock(const FlatIndex& index);
  // size() without taking the lock: only under read_lock().
  static size_t size(const FlatIndex& index);

  // Loading a file piece by piece (io::FlatDecoder) into an index no one else sees yet: ids
  // and rows arrive separately, each in slot order, and size() stays 0 until finish_load().
  // Room for `rows` rows and ids at once (a whole file is at hand). Error(OutOfMemory).
  static void reserve_load(FlatIndex& index, size_t rows);
  // Row `slot` to be filled, allocating a chunk when the storage does not reach it yet
  // (Error(OutOfMemory)). Rows are requested in slot order.
  static float* load_row(FlatIndex& index, size_t slot);
  // Throws Error (NonFinite, InvalidArgument) for a row an index would not store.
  static void check_loaded_row(const FlatIndex& index, const float* row);
  // Appends the id of the next slot; throws Error(InvalidArgument) for the reserved id or
  // an id already loaded, Error(OutOfMemory).
  static void load_id(FlatIndex& index, uint64_t id);
  // The rows and ids 0 .. count - 1 are loaded: they become the index.
  static void finish_load(FlatIndex& index, size_t count);
};

}  // namespace quiver
