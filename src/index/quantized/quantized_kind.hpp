// The quantised kind's entry in the index kind registry (index/common/kind_registry.hpp).
#pragma once

#include "index/common/kind_registry.hpp"

namespace quiver {

extern const IndexKindEntry quantized_kind;

}  // namespace quiver
