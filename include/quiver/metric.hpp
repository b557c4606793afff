// Distance metrics. Every index reports a distance where smaller is closer:
//   l2      squared Euclidean distance
//   ip      negative inner product (so the largest inner product ranks first)
//   cosine  1 - cosine similarity
#pragma once

#include <string>

namespace quiver {

enum class Metric { l2, ip, cosine };

const char* metric_name(Metric metric) noexcept;

// Accepts "l2", "ip" (or "inner_product"), "cosine"; throws Error(InvalidArgument) otherwise.
Metric parse_metric(const std::string& name);

}  // namespace quiver
