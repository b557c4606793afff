#include "quiver/metric.hpp"

#include "quiver/error.hpp"

namespace quiver {

const char* metric_name(Metric metric) noexcept {
  switch (metric) {
    case Metric::l2: return "l2";
    case Metric::ip: return "ip";
    case Metric::cosine: return "cosine";
  }
  return "unknown";
}

Metric parse_metric(const std::string& name) {
  if (name == "l2") return Metric::l2;
  if (name == "ip" || name == "inner_product") return Metric::ip;
  if (name == "cosine") return Metric::cosine;
  throw Error(ErrorCode::InvalidArgument, "unknown metric '" + name + "' (expected l2, ip or cosine)");
}

}  // namespace quiver
