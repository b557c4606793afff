// AVX2 + FMA distance kernels: the one body (kernels_body.hpp) over the AVX2 wrapper.
// Compiled with -mavx2 -mfma (src/CMakeLists.txt); reached only through kernel_table() after
// CPU detection says yes.
#include "simd/vec_avx2.hpp"
#include "simd/kernels_body.hpp"

namespace quiver::simd {

KernelTable avx2_kernels() noexcept { return make_kernel_table<Avx2>(Isa::avx2); }

}  // namespace quiver::simd
