// WebAssembly SIMD128 distance kernels: the one body (kernels_body.hpp) over the SIMD128
// wrapper, in the simd and simd-mt variants only.
#include "simd/vec_wasm128.hpp"
#include "simd/kernels_body.hpp"

namespace quiver::simd {

KernelTable wasm128_kernels() noexcept {
  KernelTable table = make_kernel_table<Wasm128>(Isa::wasm128);
  // wasm has no prefetch: scoring four rows together lets their loads overlap.
  table.dot_u8_gather = dot_u8_gather4<Wasm128>;
  return table;
}

}  // namespace quiver::simd
