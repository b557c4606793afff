// NEON distance kernels (AArch64): the one body (kernels_body.hpp) over the NEON wrapper.
#include "simd/vec_neon.hpp"
#include "simd/kernels_body.hpp"

namespace quiver::simd {

KernelTable neon_kernels() noexcept { return make_kernel_table<Neon>(Isa::neon); }

}  // namespace quiver::simd
