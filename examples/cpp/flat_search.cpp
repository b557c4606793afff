// Smallest C++ use of Quiver: build an exact index over random unit vectors and search it.
#include <cstdio>
#include <random>
#include <vector>

#include "quiver/quiver.hpp"

int main() {
  const size_t dim = 64, n = 1000;
  std::mt19937 rng(1);
  std::normal_distribution<float> normal;
  std::vector<float> vectors(n * dim);
  for (float& x : vectors) x = normal(rng);  // cosine: the index normalises each row
  std::vector<uint64_t> ids(n);
  for (size_t i = 0; i < n; ++i) ids[i] = 100 + i;

  quiver::FlatIndex index({dim, quiver::Metric::cosine});
  index.add(ids, vectors);

  // The first stored vector is its own nearest neighbour.
  std::vector<float> query(vectors.begin(), vectors.begin() + dim);
  for (const quiver::Neighbor& hit : index.search(query, 3)) {
    std::printf("id %llu distance %.4f\n", (unsigned long long)hit.id, hit.distance);
  }
  std::printf("isa %s\n", quiver::isa_name(index.isa()));
  return 0;
}
