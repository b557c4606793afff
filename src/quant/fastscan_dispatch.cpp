// The fast-scan registry: maps an ISA level to its fast-scan table, defined in the level's own
// file (quant/fastscan_<isa>.cpp); no SIMD type crosses into this file. It sits in quant/, above
// the distance-kernel registry (simd/dispatch.cpp), whose availability check it shares.
#include "quant/fastscan.hpp"
#include "simd/kernels.hpp"

namespace quiver::quant {

FastScanTable fastscan_table(Isa isa) {
  simd::require_isa(isa);
  switch (isa) {
#if defined(QUIVER_HAVE_AVX2)
    case Isa::avx2: return avx2_fastscan();
#endif
#if defined(QUIVER_HAVE_AVX512)
    case Isa::avx512: return avx512_fastscan();
#endif
#if defined(QUIVER_HAVE_NEON)
    case Isa::neon: return neon_fastscan();
#endif
#if defined(QUIVER_HAVE_WASM128)
    case Isa::wasm128: return wasm128_fastscan();
#endif
    default: return scalar_fastscan();
  }
}

}  // namespace quiver::quant
