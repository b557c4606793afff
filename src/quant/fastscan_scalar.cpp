// Scalar fast-scan reference: the definition every SIMD kernel must match exactly.
#include "quant/fastscan.hpp"

#include "quiver/error.hpp"

namespace quiver::quant {

uint32_t fastscan_block_scalar(const uint8_t* codes, const uint8_t* tables, size_t groups,
                               const float* offset, const float* scale, const BlockScoring& bs,
                               float* dist) {
  uint32_t acc[kBlockVectors] = {};
  for (size_t g = 0; g < groups; ++g) {
    const uint8_t* t = tables + g * kGroupTableBytes;
    for (size_t j = 0; j < 2; ++j) {
      const uint8_t* c = codes + (2 * g + j) * kBlockVectors;
      const uint8_t* ta = t + j * 32;
      const uint8_t* tb = t + 64 + j * 32;
      for (size_t v = 0; v < kBlockVectors; ++v) acc[v] += ta[c[v] & 15] + tb[c[v] >> 4];
    }
  }
  uint32_t hits = 0;
  for (size_t v = 0; v < kBlockVectors; ++v) {
    const float score = bs.bias + float(acc[v]) * bs.step;
    dist[v] = (bs.c0 + offset[v]) + scale[v] * score;
    hits |= uint32_t(dist[v] <= bs.threshold) << v;
  }
  return hits;
}

void fastscan_block_multi_scalar(const uint8_t* codes, const uint8_t* const* tables, size_t nq,
                                 size_t groups, const float* offset, const float* scale,
                                 const BlockScoring* scoring, float* dist, uint32_t* hits) {
  for (size_t q = 0; q < nq; ++q) {
    hits[q] = fastscan_block_scalar(codes, tables[q], groups, offset, scale, scoring[q],
                                    dist + q * kBlockVectors);
  }
}

FastScanTable fastscan_table(Isa isa) {
  if (!isa_available(isa)) {
    throw Error(ErrorCode::UnsupportedIsa,
                std::string("ISA level '") + isa_name(isa) + "' is not available here");
  }
  switch (isa) {
#if defined(QUIVER_HAVE_AVX2)
    case Isa::avx2: return {isa, fastscan_block_avx2, fastscan_block_multi_avx2};
#endif
#if defined(QUIVER_HAVE_AVX512)
    case Isa::avx512: return {isa, fastscan_block_avx512, fastscan_block_multi_avx512};
#endif
#if defined(QUIVER_HAVE_NEON)
    case Isa::neon: return {isa, fastscan_block_neon, fastscan_block_multi_neon};
#endif
#if defined(QUIVER_HAVE_WASM128)
    case Isa::wasm128: return {isa, fastscan_block_wasm128, fastscan_block_multi_wasm128};
#endif
    default: return {Isa::scalar, fastscan_block_scalar, fastscan_block_multi_scalar};
  }
}

}  // namespace quiver::quant
