// The index algebra of the kernel builder: a flat offset decomposed over a shape and
// linearized over a layout merges the digits that stay next to each other back into one
// division (or none), rather than dividing and multiplying each dim.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "codegen/kernel.h"

namespace drtriton::codegen {
namespace {

TEST(Index, TheSameShapeGivesTheOffsetBack) {
  Kernel k("k");
  std::vector<std::string> idx = decompose(k, "offs", {"N", "C", "H", "W"});
  EXPECT_EQ(linearize(k, idx, {"N", "C", "H", "W"}), "(offs)");
}

TEST(Index, ChannelsLastPositionsAreOneDigit) {
  // A reduction over the positions of [N, H, W] read from an [N, H, W, C] tensor in memory
  // (channels-last): the three digits of `cols` sit side by side, so the offset is cols * C.
  Kernel k("k");
  std::vector<std::string> pos = decompose(k, "cols", {"N", "H", "W"});
  EXPECT_EQ(linearize(k, {pos[0], pos[1], pos[2], "c"}, {"N", "H", "W", "C"}), "(cols * C + c)");
}

TEST(Index, AMiddleDimSplitsTheRun) {
  // The same positions read from NCHW: the sample stays a digit of its own, the plane's
  // rows and columns merge into cols % (H * W).
  Kernel k("k");
  std::vector<std::string> pos = decompose(k, "cols", {"N", "H", "W"});
  std::string offset = linearize(k, {pos[0], "c", pos[1], pos[2]}, {"N", "C", "H", "W"});
  EXPECT_EQ(offset, "(" + pos[0] + " * (C * H * W) + c * (H * W) + (cols % (H * W)))");
}

TEST(Index, DigitsOfOtherNumbersOrSizesDoNotMerge) {
  Kernel k("k");
  std::vector<std::string> a = decompose(k, "i", {"H", "W"});
  std::vector<std::string> b = decompose(k, "j", {"H", "W"});
  // Digits of two numbers; and digits in the wrong order (a transpose).
  EXPECT_EQ(linearize(k, {a[0], b[1]}, {"H", "W"}), "(" + a[0] + " * W + " + b[1] + ")");
  EXPECT_EQ(linearize(k, {a[1], a[0]}, {"W", "H"}), "(" + a[1] + " * H + " + a[0] + ")");
  // The same digits over other sizes (a reshape's view): not the same number.
  EXPECT_EQ(linearize(k, {a[0], a[1]}, {"H", "V"}), "(" + a[0] + " * V + " + a[1] + ")");
}

}  // namespace
}  // namespace drtriton::codegen
