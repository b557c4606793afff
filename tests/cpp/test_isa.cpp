#include <gtest/gtest.h>

#include <cstdlib>

#if defined(__EMSCRIPTEN__)
#include <emscripten.h>
#endif

#include "quiver/error.hpp"
#include "quiver/isa.hpp"
#include "simd/kernels.hpp"

namespace quiver {
namespace test_isa {

TEST(Isa, ActiveLevelHonoursQuiverIsa) {
  const char* forced = std::getenv("QUIVER_ISA");
#if defined(__EMSCRIPTEN__)
  // getenv() only sees Node's environment through the pre-js shim; prove it is there.
  // The block is JavaScript: clang-format would split its !==.
  // clang-format off
  const int node_has_it = EM_ASM_INT({
    return typeof process !== 'undefined' && !!process.env.QUIVER_ISA;
  });
  // clang-format on
  EXPECT_EQ(node_has_it != 0, forced != nullptr) << "QUIVER_ISA did not reach getenv()";
#endif
  if (forced != nullptr && *forced != '\0') {
    EXPECT_STREQ(isa_name(active_isa()), forced);
  } else {
    EXPECT_EQ(active_isa(), best_isa());
  }
}

TEST(Isa, ScalarIsAlwaysAvailableAndFirst) {
  const auto isas = available_isas();
  ASSERT_FALSE(isas.empty());
  EXPECT_EQ(isas.front(), Isa::scalar);
  EXPECT_EQ(best_isa(), isas.back());
}

TEST(Isa, NamesRoundTrip) {
  for (Isa isa : {Isa::scalar, Isa::avx2, Isa::avx512, Isa::neon, Isa::wasm128}) {
    EXPECT_EQ(parse_isa(isa_name(isa)), isa);
  }
}

TEST(Isa, UnknownNameIsAClearError) {
  try {
    parse_isa("sse9");
    FAIL() << "parse_isa accepted an unknown level";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::UnsupportedIsa);
    EXPECT_NE(std::string(e.what()).find("sse9"), std::string::npos);
  }
}

TEST(Isa, UnavailableLevelIsRefused) {
  // Every build lacks at least one of these (x86 has no NEON, Arm and wasm have no AVX2).
  for (Isa isa : {Isa::avx2, Isa::neon, Isa::wasm128}) {
    if (isa_available(isa)) continue;
    EXPECT_THROW(simd::kernel_table(isa), Error);
    return;
  }
  FAIL() << "every level is available, which no build should claim";
}

TEST(Isa, TargetMatchesBuild) {
#if defined(__EMSCRIPTEN__)
  EXPECT_STREQ(target_arch(), "wasm32");
  EXPECT_STRNE(build_variant(), "native");
#else
  EXPECT_STREQ(build_variant(), "native");
#endif
}

}  // namespace test_isa
}  // namespace quiver
