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

}  // namespace
}  // namespace drtriton
