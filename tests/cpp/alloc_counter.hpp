// Counts calls to the global operator new in this test program (alloc_counter.cpp replaces
// it), so tests can assert that a warm search allocates nothing.
#pragma once

#include <cstddef>

namespace quiver::test {

size_t allocation_count();
size_t allocated_bytes();  // total bytes requested through operator new so far

}  // namespace quiver::test
