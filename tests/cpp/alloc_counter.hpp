// Counts calls to the global operator new in this test program (alloc_counter.cpp replaces
// it), so tests can assert that a warm search allocates nothing; and can make one fail.
#pragma once

#include <cstddef>

namespace quiver::test {

size_t allocation_count();
size_t allocated_bytes();  // total bytes requested through operator new so far
// Bytes held now through operator new (the allocator's usable size of each block), and the
// most held at once since reset_peak_live_bytes(): the peak of a load, beside what it keeps.
size_t live_bytes();
size_t peak_live_bytes();
void reset_peak_live_bytes();
// After `n` more successful allocations, the next throwing operator new in any thread throws
// std::bad_alloc (once; the countdown then stops). SIZE_MAX disarms it. For undo-on-failure tests.
void fail_allocation_after(size_t n);

}  // namespace quiver::test
