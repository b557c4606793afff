// The FlatIndex decoder (flat_format.cpp): an index from a validated container, for generic
// dispatch on the stored kind (CLI, bindings) and for fuzzing.
#pragma once

#include "io/format.hpp"
#include "quiver/flat_index.hpp"
#include "quiver/isa.hpp"

namespace quiver::io {

// Throws quiver::Error (Corrupt, UnsupportedVersion, InvalidArgument for another kind, ...).
FlatIndex load_flat(const Reader& reader, Isa isa);

}  // namespace quiver::io
