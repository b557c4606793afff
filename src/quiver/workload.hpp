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

// The clustered workload: a Gaussian mixture whose per-dimension spread decays
// (sigma_j = 1 / (1 + 16 j / dim)), so most variance lives in the first few dozen dimensions,
// like real embeddings (low intrinsic dimension). `mixture_seed` fixes the centres (share it
// between base and queries); `sample_seed` draws the points. The project's clustered workload
// is 100,000 x 384 with 64 clusters, mixture seed 42, base sample seed 43, queries seed 13.
std::vector<float> clustered_vectors(size_t n, size_t dim, size_t clusters, uint64_t mixture_seed,
                                     uint64_t sample_seed);

}  // namespace quiver
