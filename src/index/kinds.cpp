// The index kinds built into quiver: one line each. A kind lives in its own folder
// (src/index/<kind>/) and exports one IndexKindEntry (index/common/kind_registry.hpp); listing
// it here, rather than registering it from a static object in its folder, keeps it in every
// program that links the static library (a linker drops an object file nothing refers to).
#include "index/flat/flat_kind.hpp"
#include "index/hnsw/hnsw_kind.hpp"
#include "index/quantized/quantized_kind.hpp"

namespace quiver {

const IndexKindEntry* const* built_in_index_kinds(size_t& count) noexcept {
  static const IndexKindEntry* const kinds[] = {
      &flat_kind,
      &quantized_kind,
      &hnsw_kind,
  };
  count = sizeof(kinds) / sizeof(kinds[0]);
  return kinds;
}

}  // namespace quiver
