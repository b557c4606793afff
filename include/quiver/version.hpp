#pragma once

namespace quiver {

inline constexpr const char* kVersion = "0.1.0";

}  // namespace quiver
