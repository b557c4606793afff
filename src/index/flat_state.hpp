// Internal access to a FlatIndex for the index file code (src/io/flat_format.cpp). Not a
// public header: FlatIndex names this struct as its friend.
#pragma once

#include <cstddef>

#include "core/rw_lock.hpp"
#include "quiver/flat_index.hpp"

namespace quiver {

struct FlatIndexAccess {
  // Holds off writers (searches go on) while a file is written from stored_row()/stored_id().
  static core::ReadLock read_lock(const FlatIndex& index);
  // size() without taking the lock: only under read_lock().
  static size_t size(const FlatIndex& index);
};

}  // namespace quiver
