// The most memory this process could ever be given: natively the machine's RAM plus swap, in
// wasm the module's maximum heap. A reservation past it can never succeed, so the block
// stores refuse it at once with OUT_OF_MEMORY — instead of adding small chunks one by one
// until the allocator fails (natively that wakes the OOM killer first; in wasm it leaves the
// heap grown to its maximum for good).
#pragma once

#include <cstddef>

namespace quiver::core {

// Bytes; computed once. SIZE_MAX when the platform does not say.
size_t memory_ceiling_bytes() noexcept;

}  // namespace quiver::core
