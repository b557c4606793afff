// WebAssembly SIMD128 fast scan: the one body (fastscan_body.hpp) over the SIMD128 wrapper;
// i8x16.swizzle looks up 16 codes per instruction. In the simd and simd-mt variants only.
#include "simd/vec_wasm128.hpp"
#include "quant/fastscan_body.hpp"

namespace quiver::quant {

FastScanTable wasm128_fastscan() noexcept { return make_fastscan_table<FastScanKernel<simd::Wasm128>>(Isa::wasm128); }

}  // namespace quiver::quant
