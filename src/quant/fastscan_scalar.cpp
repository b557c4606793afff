// Scalar fast-scan reference: the definition every SIMD kernel must match exactly.
#include "quant/fastscan.hpp"

namespace quiver::quant {
namespace {

struct Kernel {
  template <size_t Q>
  static void scan(const uint8_t* codes, const uint8_t* const* tables, size_t groups, const float* offset,
                   const float* scale, const BlockScoring* scoring, float* dist, uint32_t* hits) {
    scan_pass<Kernel, Q>(codes, tables, groups, offset, scale, scoring, dist, hits);
  }

  template <size_t Q>
  static void sums(const uint8_t* codes, const uint8_t* const* tables, size_t groups, int32_t (*out)[kBlockVectors]) {
    for (size_t q = 0; q < Q; ++q) {
      int32_t* acc = out[q];
      for (size_t v = 0; v < kBlockVectors; ++v) acc[v] = 0;
      for (size_t g = 0; g < groups; ++g) {
        const uint8_t* t = tables[q] + g * kGroupTableBytes;
        for (size_t j = 0; j < 2; ++j) {
          const uint8_t* c = codes + (2 * g + j) * kBlockVectors;
          const uint8_t* ta = t + j * 32;
          const uint8_t* tb = t + 64 + j * 32;
          for (size_t v = 0; v < kBlockVectors; ++v) acc[v] += ta[c[v] & 15] + tb[c[v] >> 4];
        }
      }
    }
  }
};

}  // namespace

uint32_t fastscan_block_scalar(const uint8_t* codes, const uint8_t* tables, size_t groups, const float* offset,
                               const float* scale, const BlockScoring& bs, float* dist) {
  return scan_one_query<Kernel>(codes, tables, groups, offset, scale, bs, dist);
}

FastScanTable scalar_fastscan() noexcept { return make_fastscan_table<Kernel>(Isa::scalar); }

}  // namespace quiver::quant
