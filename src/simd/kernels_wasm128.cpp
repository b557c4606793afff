// WebAssembly SIMD128 distance kernels: the one body (kernels_body.hpp) over the SIMD128
// wrapper, in the simd, simd-mt and relaxed-simd variants.
#include "simd/vec_wasm128.hpp"
#include "simd/kernels_body.hpp"

namespace quiver::simd {
namespace {

#if defined(QUIVER_WASM_RELAXED_SIMD)
// dot_u8_gather4's step through i32x4.relaxed_dot_i8x16_i7x16_add (relaxed-simd only). That
// opcode multiplies signed bytes by 7-bit ones, so sum q_i c_i is taken apart exactly:
//   c_i = (c_i ^ 0x80) + 128 as a signed byte, q_i = 2 (q_i >> 1) + (q_i & 1), hence
//   sum q c = 2 sum (c ^ 0x80) (q >> 1) + sum (c ^ 0x80) (q & 1) + 128 sum q,
// two relaxed dots a 16-byte step where the plain form spends two widenings and two
// i32x4.dot_i16x8. Each pair of products is at most 2 x 128 x 127 = 32,512 in magnitude, inside
// the 16 bits the spec lets an engine keep, so the result is fully determined, and the sums are
// the plain form's mod 2^32 bit for bit. Whether it is faster depends on the CPU (likely: V8 lowers
// the op to one vpdpbusd only where it may; elsewhere to pmaddubsw + pmaddwd + add). In a
// 4,096-row scratch loop in Chromium 156 (bench/ivf/results/relaxed-dot-20261207/, indicative):
// 11-14 ns a 384-byte row against 27-50 for the plain form on the Zen 5 of stop 52, but 27-51
// against 26-36 on an EPYC without AVX-VNNI, where a 1M build was 1.23-1.33x slower and queries
// 0.89-1.00x (bench/ivf/results/relaxed-dot-1m-20261208/).
struct SevenBitHalves {
  static constexpr size_t kParts = 2, kSums = 2;
  static void split(v128_t vq, v128_t* part) {
    part[0] = wasm_v128_and(wasm_u16x8_shr(vq, 1), wasm_i8x16_splat(0x7F));  // q >> 1
    part[1] = wasm_v128_and(vq, wasm_i8x16_splat(1));                        // q & 1
  }
  static void add(v128_t v, const v128_t* part, v128_t* sum) {
    const v128_t centred = wasm_v128_xor(v, wasm_i8x16_splat(int8_t(0x80)));
    sum[0] = wasm_i32x4_relaxed_dot_i8x16_i7x16_add(centred, part[0], sum[0]);
    sum[1] = wasm_i32x4_relaxed_dot_i8x16_i7x16_add(centred, part[1], sum[1]);
  }
  static uint32_t total(const v128_t* sum) { return 2u * Wasm128::u32_hsum(sum[0]) + Wasm128::u32_hsum(sum[1]); }
  static uint32_t bias(const uint8_t* q, size_t dims) {  // 128 sum q over the dimensions the steps cover
    uint32_t b = 0;
    for (size_t i = 0; i < dims; ++i) b += 128u * q[i];
    return b;
  }
};

// Whether this engine computes relaxed_dot as the spec says, checked once a module instance on
// varied bytes and a non-zero accumulator against the plain kernel. Node 20's baseline compiler
// (Liftoff, V8 11.3) does not (8 a b per lane for splats, the accumulator dropped). The check
// runs on the first call, in the tier a function starts in; its answer is kept, so every index
// of a module instance scores the same way. Where it fails the plain kernel is used: slower,
// never different. The inputs go through volatile stores so that the compiler cannot fold them.
bool relaxed_dot_is_exact() noexcept {
  volatile uint8_t bytes[64];
  for (int i = 0; i < 64; ++i) bytes[i] = uint8_t(i * 53 + 7);
  bytes[0] = 0;
  bytes[1] = 255;
  alignas(16) uint8_t query[32], row[32];
  for (int i = 0; i < 32; ++i) {
    query[i] = bytes[i];
    row[i] = bytes[32 + i];
  }
  row[0] = 255;  // an extreme pair: q = 0 and 255 against the most negative centred byte
  row[1] = 0;
  const uint8_t* rows[4] = {row, row + 16, query, query + 16};
  uint32_t relaxed[4], plain[4];
  dot_u8_gather4<Wasm128, SevenBitHalves>(query, rows, 4, 16, relaxed);
  dot_u8_gather4<Wasm128>(query, rows, 4, 16, plain);
  for (int k = 0; k < 4; ++k) {
    if (relaxed[k] != plain[k]) return false;
  }
  return true;
}
#endif

}  // namespace

bool wasm128_relaxed_dot() noexcept {
#if defined(QUIVER_WASM_RELAXED_SIMD)
  static const bool exact = relaxed_dot_is_exact();
  return exact;
#else
  return false;
#endif
}

KernelTable wasm128_kernels() noexcept {
  KernelTable table = make_kernel_table<Wasm128>(Isa::wasm128);
  // wasm has no prefetch: scoring four rows together lets their loads overlap.
  table.dot_u8_gather = dot_u8_gather4<Wasm128>;
#if defined(QUIVER_WASM_RELAXED_SIMD)
  if (wasm128_relaxed_dot()) table.dot_u8_gather = dot_u8_gather4<Wasm128, SevenBitHalves>;
#endif
  return table;
}

}  // namespace quiver::simd
