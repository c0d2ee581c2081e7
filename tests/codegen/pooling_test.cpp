// Pooling windows: an adaptive pool to one element per map is a mean (a statistics kernel),
// not an unrolled window; a window that would unroll past the size cap is refused by name.
#include <gtest/gtest.h>

#include <string>

#include "codegen/codegen.h"
#include "ir/error.h"
#include "ir/text.h"

namespace drtriton {
namespace {

GeneratedSolution compile(const std::string& text) {
  return generate_solution(parse_graph(text), CodegenOptions{});
}

TEST(Pooling, GlobalAdaptivePoolIsAMean) {
  GeneratedSolution s = compile(R"(input %x : f32[4,8,64,64]
%1 = relu(%x)
%2 = adaptive_avg_pool2d(%1) {output_size=[1,1]}
return %2
)");
  EXPECT_NE(s.source.find("def k0_adaptive_avg_pool2d_stats("), std::string::npos);
  EXPECT_LT(s.source.size(), 20000u);  // one statistics kernel, whatever the map's size
}

TEST(Pooling, AnUnrolledWindowOverTheCapIsRefused) {
  // 2x2 outputs of a 66x66 map: windows of 34x34 positions, each inlining the chain.
  try {
    compile(R"(input %x : f32[4,8,66,66]
%1 = tanh(%x)
%2 = sigmoid(%1)
%3 = adaptive_avg_pool2d(%2) {output_size=[2,2]}
return %3
)");
    FAIL() << "expected the size cap";
  } catch (const IrError& e) {
    std::string what = e.what();
    EXPECT_NE(what.find("over the 200 KB cap"), std::string::npos) << what;
    EXPECT_NE(what.find("adaptive_avg_pool2d"), std::string::npos) << what;
  }
}

// Overlapping windows evaluate their input several times an element (27 / 8 for a 3x3x3 pool
// of stride 2): a long chain before them is written first, a ReLU stays inside the pool.
TEST(Pooling, OverlappingWindowsWriteALongChainFirst) {
  const std::string chain = R"(input %x : f32[2,4,16,16,16]
%1 = gelu(%x)
%2 = tanh(%1)
%3 = mish(%2)
%4 = sigmoid(%3)
%5 = gelu(%4)
%6 = tanh(%5)
%7 = mish(%6)
%8 = avg_pool3d(%7) {kernel_size=[3,3,3], stride=[2,2,2], padding=[0,0,0]}
return %8
)";
  GeneratedSolution s = compile(chain);
  EXPECT_NE(s.source.find("def k0_mish("), std::string::npos) << s.source;
  EXPECT_NE(s.source.find("def k1_avg_pool3d("), std::string::npos) << s.source;

  GeneratedSolution short_chain = compile(R"(input %x : f32[2,4,16,16]
%1 = relu(%x)
%2 = max_pool2d(%1) {kernel_size=[3,3], stride=[2,2], padding=[1,1]}
return %2
)");
  EXPECT_NE(short_chain.source.find("def k0_max_pool2d("), std::string::npos) << short_chain.source;
  EXPECT_EQ(short_chain.source.find("def k1_"), std::string::npos) << short_chain.source;
}

}  // namespace
}  // namespace drtriton
