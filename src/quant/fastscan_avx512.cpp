// AVX-512BW fast scan: the one body (fastscan_body.hpp) over the AVX-512 wrapper. One 64-byte
// load holds both pairs of a group (128 codes of 32 vectors); two vpshufb look them all up.
// Compiled with the AVX-512 flags (src/CMakeLists.txt); reached only through fastscan_table().
#include "simd/vec_avx512.hpp"
#include "quant/fastscan_body.hpp"

namespace quiver::quant {

FastScanTable avx512_fastscan() noexcept { return make_fastscan_table<FastScanKernel<simd::Avx512>>(Isa::avx512); }

}  // namespace quiver::quant
