// QUIVER_DCHECK: throws Error(Internal) where debug checks are on (debug and sanitizer builds),
// and in release builds neither fires nor evaluates its condition.
#include <gtest/gtest.h>

#include <string>

#include "base/check.hpp"
#include "quiver/error.hpp"

namespace quiver {
namespace test_debug_check {

#if defined(QUIVER_DEBUG_CHECKS) && QUIVER_DEBUG_CHECKS

TEST(DebugCheck, FailedCheckThrowsInternalWithTheMessage) {
  try {
    QUIVER_DCHECK(1 + 1 == 3, "arithmetic is broken");
    FAIL() << "the check did not fire";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::Internal);
    EXPECT_STREQ(e.code_name(), "INTERNAL");
    EXPECT_NE(std::string(e.what()).find("arithmetic is broken"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("1 + 1 == 3"), std::string::npos) << e.what();
  }
}

TEST(DebugCheck, PassingCheckEvaluatesItsConditionOnce) {
  int evaluations = 0;
  QUIVER_DCHECK(++evaluations == 1, "evaluated once");
  EXPECT_EQ(evaluations, 1);
}

#else

TEST(DebugCheck, ReleaseBuildsNeitherFireNorEvaluate) {
  int evaluations = 0;
  EXPECT_NO_THROW(QUIVER_DCHECK(++evaluations == 42, "never checked in release"));
  EXPECT_EQ(evaluations, 0);
}

#endif

}  // namespace test_debug_check
}  // namespace quiver
