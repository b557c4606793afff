// NEON fast scan: the one body (fastscan_body.hpp) over the NEON wrapper; tbl looks up 16
// codes per instruction. One query per pass over the codes (a multi-query pass reloads the
// codes per query here: NEON has registers for only one query's accumulators), and the
// epilogue is the shared plain code (finish_block in fastscan.hpp).
#include "simd/vec_neon.hpp"
#include "quant/fastscan_body.hpp"

namespace quiver::quant {

FastScanTable neon_fastscan() noexcept {
  return make_fastscan_table<FastScanKernel<simd::Neon, /*kSharedCodePass=*/false, /*kSimdEpilogue=*/false>>(Isa::neon);
}

}  // namespace quiver::quant
