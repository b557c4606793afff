// Counts calls to the global operator new in this test program (alloc_counter.cpp replaces
// it), so tests can assert that a warm search allocates nothing.
#pragma once

#include <cstddef>

namespace quiver::test {

size_t allocation_count();

}  // namespace quiver::test
