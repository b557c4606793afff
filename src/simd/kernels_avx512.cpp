// AVX-512 (F/BW/VL) distance kernels: the one body (kernels_body.hpp) over the AVX-512
// wrapper. Compiled with the AVX-512 flags (src/CMakeLists.txt); reached only through
// kernel_table() after CPU detection says yes.
#include "simd/vec_avx512.hpp"
#include "simd/kernels_body.hpp"

namespace quiver::simd {

KernelTable avx512_kernels() noexcept { return make_kernel_table<Avx512>(Isa::avx512); }

}  // namespace quiver::simd
