// AVX2 fast scan: the one body (fastscan_body.hpp) over the AVX2 wrapper. One 32-byte load
// holds a pair of 4-bit codes for 32 vectors; two vpshufb look up its 64 codes. Compiled with
// -mavx2 -mfma (src/CMakeLists.txt); reached only through fastscan_table().
#include "simd/vec_avx2.hpp"
#include "quant/fastscan_body.hpp"

namespace quiver::quant {

FastScanTable avx2_fastscan() noexcept { return make_fastscan_table<FastScanKernel<simd::Avx2>>(Isa::avx2); }

}  // namespace quiver::quant
