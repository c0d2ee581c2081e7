// The codegen knobs (CodegenKnobs in codegen.h) change the solution's text where they say,
// and the defaults are the compiler's own choices. That the variants still compute the same
// thing is the verifier's to judge (tests/python/test_pairs.py); here, only the lines that
// matter, FileCheck style.
#include <gtest/gtest.h>

#include <stdexcept>
#include <string>

#include "codegen/codegen.h"
#include "ir/text.h"

namespace drtriton {
namespace {

// tanh(exp(x)) costs three operations and has two readers (the row sum and the subtraction):
// the defaults write it once; a high recompute limit evaluates it in both kernels.
constexpr const char* kSharedValue = R"(input %x : f32[8,64]
%1 = exp(%x)
%2 = tanh(%1)
%3 = sum(%2) {dim=[1], keepdim=true}
%4 = sub(%2, %3)
return %4
)";

GeneratedSolution compile(const CodegenKnobs& knobs) {
  CodegenOptions options;
  options.knobs = knobs;
  return generate_solution(parse_graph(kSharedValue), options);
}

int count(const std::string& text, const std::string& what) {
  int n = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

TEST(CodegenKnobs, DefaultsAreTheCompilersOwnChoices) {
  GeneratedSolution s = compile({});
  EXPECT_EQ(s.kernels, 3);  // the shared value, the row sum, the output
  EXPECT_EQ(count(s.source, "BLOCK=1024"), 2);
  EXPECT_EQ(count(s.source, "4096 // block_r"), 1);
  EXPECT_EQ(count(s.source, "num_warps"), 0);
}

TEST(CodegenKnobs, PointwiseBlockSetsBlockAndGrid) {
  CodegenKnobs k;
  k.pointwise_block = 256;
  GeneratedSolution s = compile(k);
  EXPECT_EQ(count(s.source, "BLOCK=256"), 2);
  EXPECT_EQ(count(s.source, "triton.cdiv((8 * 64), 256)"), 2);  // the grid
  EXPECT_EQ(count(s.source, "1024),)"), 0);
}

TEST(CodegenKnobs, TileElementsSetTheRowTile) {
  CodegenKnobs k;
  k.tile_elements = 16384;
  GeneratedSolution s = compile(k);
  EXPECT_EQ(count(s.source, "16384 // block_r"), 1);
  EXPECT_EQ(count(s.source, "4096"), 0);
}

TEST(CodegenKnobs, NumWarpsOnEveryLaunch) {
  CodegenKnobs k;
  k.num_warps = 8;
  GeneratedSolution s = compile(k);
  EXPECT_EQ(count(s.source, ", num_warps=8)"), s.kernels);
}

TEST(CodegenKnobs, RecomputeLimitDecidesWhatIsWritten) {
  CodegenKnobs recompute;
  recompute.recompute_limit = 3;  // tanh(exp(x)) costs 3: not more than the limit
  GeneratedSolution s = compile(recompute);
  EXPECT_EQ(s.kernels, 2);
  EXPECT_EQ(count(s.source, "tl.exp(("), 2);  // evaluated in both kernels

  CodegenKnobs materialize;
  materialize.recompute_limit = 0;
  GeneratedSolution m = compile(materialize);
  EXPECT_EQ(m.kernels, 3);
  EXPECT_EQ(count(m.source, "tl.exp(("), 1);
}

TEST(CodegenKnobs, OutOfRangeIsRefused) {
  CodegenKnobs k;
  k.pointwise_block = 1000;
  EXPECT_THROW(compile(k), std::invalid_argument);
  k = {};
  k.tile_elements = 512;
  EXPECT_THROW(compile(k), std::invalid_argument);
  k = {};
  k.num_warps = 3;
  EXPECT_THROW(compile(k), std::invalid_argument);
  k = {};
  k.recompute_limit = -1;
  EXPECT_THROW(compile(k), std::invalid_argument);
}

// The command line's --knob NAME=VALUE: one parser, whose errors name the allowed values.
TEST(CodegenKnobs, SetKnobNamesTheValues) {
  CodegenKnobs k;
  set_knob(k, "gemm", "library");
  EXPECT_EQ(k.gemm, "library");
  set_knob(k, "pointwise_block", "256");
  EXPECT_EQ(k.pointwise_block, 256);
  try {
    set_knob(k, "gemm", "cublas");
    FAIL() << "gemm=cublas accepted";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("gemm takes triton or library"), std::string::npos)
        << e.what();
  }
  EXPECT_THROW(set_knob(k, "pointwise_block", "300"), std::invalid_argument);
  EXPECT_THROW(set_knob(k, "num_warps", "4x"), std::invalid_argument);
  EXPECT_THROW(set_knob(k, "blocks", "4"), std::invalid_argument);
  EXPECT_EQ(k.pointwise_block, 256);  // a refused value changes nothing
}

}  // namespace
}  // namespace drtriton
