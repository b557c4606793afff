// Deterministic synthetic workloads, bit-identical on every target.
//
// The generator uses its own PRNG (xoshiro256**) and its own logarithm (no libm), so a seed
// gives the same floats natively and in wasm, and so the same exact results everywhere.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace quiver {

// n x dim vectors with i.i.d. standard normal coordinates, each row scaled to unit length.
// The project's "seed workload" is (10000, 384, 42) for the base and (256, 384, 13) for queries.
std::vector<float> unit_gaussian_vectors(size_t n, size_t dim, uint64_t seed);

}  // namespace quiver
