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

// The embedding-like workload: what sentence embeddings look like to an index, where the two
// workloads above are too easy (i.i.d. Gaussian has no structure; the clustered one is nearly
// separable, graphs reach recall 0.9 at ef 10). Built in a latent space and then turned by one
// seeded random rotation, so no output axis is special:
//   - a shared mean direction (latent axis 0), sized so that random pairs of rows have a cosine
//     of about 0.1, as pairs of unrelated sentences do;
//   - `clusters` topics with Zipf sizes (topic t is drawn with probability proportional to
//     1 / (t + 1): a few big topics and a long tail), centres from a Gaussian with a decaying
//     spread across latent axes;
//   - inside a topic, a decaying spectrum (variance 1 / (1 + j / 12)^2 on the topic's j-th axis;
//     each topic spreads along its own seeded permutation of the axes) plus a small isotropic
//     floor, so neighbourhoods have a few dozen effective dimensions;
//   - queries (EmbeddingRole::query) are drawn from the same topics with 1.5x the in-topic spread
//     and 2x the isotropic floor: they sit between points, not on them;
//   - every row is scaled to unit length.
// `mixture_seed` fixes the mean, the topics and the rotation (share it between base and
// queries); `sample_seed` draws the rows. Rows are drawn in order from one stream, so the first
// n rows of a larger sample are the n-row sample. Only exact IEEE operations in a fixed order
// (no libm beyond sqrt, FP contraction off), so a seed gives the same bits on every target.
// The project's workload: 100,000 (or 1,000,000) x 384, 1,000 topics, mixture seed 42, base
// sample seed 43, 1,000 queries with sample seed 13. Measured at 100,000 x 384 (500 queries):
// an HNSW graph (M 16, efConstruction 200) reaches recall@10 0.948 at ef 60, 0.958 at ef 80,
// 0.971 at ef 100 (0.70 at ef 10), where the clustered workload needs ef 10 for 0.9. `topic_of`,
// when given, receives each row's topic.
enum class EmbeddingRole { base, query };
std::vector<float> embedding_like_vectors(size_t n, size_t dim, size_t clusters, uint64_t mixture_seed,
                                          uint64_t sample_seed, EmbeddingRole role = EmbeddingRole::base,
                                          std::vector<uint32_t>* topic_of = nullptr);

// The unit-length direction of each topic's centre (mean direction + centre, rotated):
// `clusters` x dim. For tests and analysis.
std::vector<float> embedding_like_centres(size_t dim, size_t clusters, uint64_t mixture_seed);

}  // namespace quiver
