// Counts calls to the global operator new in this test program (alloc_counter.cpp replaces
// it), so tests can assert that a warm search allocates nothing; and can make one fail.
#pragma once

#include <cstddef>

namespace quiver::test {

size_t allocation_count();
size_t allocated_bytes();  // total bytes requested through operator new so far
// After `n` more successful allocations, the next throwing operator new in any thread throws
// std::bad_alloc (once; the countdown then stops). SIZE_MAX disarms it. For undo-on-failure tests.
void fail_allocation_after(size_t n);

}  // namespace quiver::test
