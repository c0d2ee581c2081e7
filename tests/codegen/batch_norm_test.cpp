// Batch norm follows self.training: with running statistics, the forward branches once, a
// training branch with the statistics kernel and the running-statistics update, an eval
// branch that normalizes with the running statistics; without them, no branch at all.
#include <gtest/gtest.h>

#include <string>

#include "codegen/codegen.h"
#include "ir/text.h"

namespace drtriton {
namespace {

std::string compile(const std::string& attrs) {
  return generate_solution(parse_graph("input %x : f32[8,16,10]\n"
                                       "%1 = batch_norm1d(%x) {module=\"bn\", num_features=16" +
                                       attrs + "}\nreturn %1\n"),
                           CodegenOptions{})
      .source;
}

bool has(const std::string& source, const std::string& text) {
  return source.find(text) != std::string::npos;
}

TEST(BatchNorm, RunningStatisticsFollowTheModulesMode) {
  std::string s = compile(", momentum=0.2");
  EXPECT_TRUE(has(s, "        if self.training:\n            BLOCK_M, BLOCK_R, WARPS = _row_tile("))
      << s;
  EXPECT_TRUE(has(s, "tl.store(p_bn_num_batches_tracked_ptr, tracked)")) << s;
  EXPECT_TRUE(has(s, "momentum = 0.2")) << s;
  EXPECT_TRUE(has(s, " / (COLS - 1)")) << s;  // the running variance is the unbiased one
  EXPECT_TRUE(has(s, "        else:\n            buf0 = p_bn_running_mean\n")) << s;
  EXPECT_TRUE(has(s, "1.0 / tl.sqrt_rn(t0 + 1e-05)")) << s;  // 1/std of the running variance
  // One consumer kernel reads the same mean and 1/std buffers in both modes.
  EXPECT_TRUE(has(s, "        buf3 = torch.empty(")) << s;
}

TEST(BatchNorm, MomentumNoneIsTheCumulativeAverage) {
  std::string s = compile(", momentum=nan");
  EXPECT_TRUE(has(s, "momentum = 1.0 / tracked.to(tl.float32)")) << s;
}

TEST(BatchNorm, WithoutRunningStatisticsBothModesUseTheBatch) {
  std::string s = compile(", track_running_stats=false");
  EXPECT_FALSE(has(s, "self.training")) << s;
  EXPECT_FALSE(has(s, "_running")) << s;
}

}  // namespace
}  // namespace drtriton
