// Statistics kernels: how they tile rows and columns (where consecutive rows lie next to each
// other in memory, the innermost dim kept, a tile spans many rows, so that its loads run
// along them; otherwise a row's columns), and what they compute inside instead of reading.
#include <gtest/gtest.h>

#include <string>

#include "codegen/codegen.h"
#include "ir/text.h"

namespace drtriton {
namespace {

std::string sum_over(const std::string& dims) {
  return generate_solution(
             parse_graph("input %x : f32[4,64,32]\n%1 = sum(%x) {dim=" + dims + "}\nreturn %1\n"),
             CodegenOptions{})
      .source;
}

bool has(const std::string& source, const std::string& text) {
  return source.find(text) != std::string::npos;
}

int count(const std::string& source, const std::string& text) {
  int n = 0;
  for (size_t at = source.find(text); at != std::string::npos; at = source.find(text, at + 1)) ++n;
  return n;
}

TEST(Reduce, TilesRunAlongTheRowsWhenTheInnermostDimIsKept) {
  std::string middle = sum_over("[1]");  // rows (b, m): m is the innermost dim
  EXPECT_TRUE(has(middle, "BLOCK_M, BLOCK_R = _tile_rows((4 * 32), 64)")) << middle;
  std::string outer = sum_over("[0]");  // rows (n, m)
  EXPECT_TRUE(has(outer, "BLOCK_M, BLOCK_R = _tile_rows((64 * 32), 4)")) << outer;
  // rows (b, n), each row's columns contiguous: whole rows in registers, as are 64 x 32
  std::string last = sum_over("[2]");
  EXPECT_TRUE(has(last, "BLOCK_M, BLOCK_R, WARPS = _row_tile((4 * 64), 32)")) << last;
  std::string two = sum_over("[1, 2]");
  EXPECT_TRUE(has(two, "BLOCK_M, BLOCK_R, WARPS = _row_tile(4, (64 * 32))")) << two;
}

// A value read twice, but only inside the expression one reduction reads (a Huber loss: |d|
// and d^2 of one difference d lead to the mean of a `where`), is computed in that reduction's
// kernel, once per element, not written first; read by two reductions, it is written once.
TEST(Reduce, AValueReadOnlyInsideOneReductionIsNotWritten) {
  const char* huber = R"(input %p : f32[64,32]
input %t : f32[64,32]
%d = sub(%p, %t)
%a = abs(%d)
%q = square(%d)
%small = lt_scalar(%a) {other=0.5}
%h = mul_scalar(%q) {other=0.5}
%l = sub_scalar(%a) {other=0.25}
%w = where(%small, %h, %l)
%m = mean(%w) {dim=[0,1]}
return %m
)";
  GeneratedSolution one = generate_solution(parse_graph(huber), CodegenOptions{});
  EXPECT_FALSE(has(one.source, "_sub[")) << one.source;
  EXPECT_TRUE(has(one.source, "tl.abs(")) << one.source;
  const char* two_reductions = R"(input %p : f32[64,32]
input %t : f32[64,32]
%d = sub(%p, %t)
%a = abs(%d)
%q = square(%d)
%s1 = sum(%a) {dim=[1]}
%s2 = amax(%q) {dim=[1]}
%r = add(%s1, %s2)
return %r
)";
  GeneratedSolution written = generate_solution(parse_graph(two_reductions), CodegenOptions{});
  EXPECT_TRUE(has(written.source, "_sub[")) << written.source;
}

// A softmax or norm over rows that fit in a tile, read only by elementwise nodes on the way
// to the output, is one kernel: each row loaded once, its statistics in registers.
TEST(Reduce, ShortRowsAreNormalizedInOnePass) {
  auto compile = [](const std::string& text) {
    return generate_solution(parse_graph(text), CodegenOptions{});
  };
  GeneratedSolution norm = compile(R"(input %x : f32[8,16,256]
%n = layer_norm(%x) {module="norm", normalized_shape=[256]}
%g = gelu(%n)
%s = mul_scalar(%g) {other=2.0}
return %s
)");
  EXPECT_EQ(norm.kernels, 1);
  EXPECT_TRUE(has(norm.source, "BLOCK_M, BLOCK_R, WARPS = _row_tile((8 * 16), 256)"))
      << norm.source;
  EXPECT_TRUE(has(norm.source, "tl.sum(t7 * t7, axis=1)[:, None]")) << norm.source;
  EXPECT_TRUE(has(norm.source, "1.0 / tl.sqrt_rn(t8 / COLS + 1e-05)")) << norm.source;
  EXPECT_FALSE(has(norm.source, "row_statistic")) << norm.source;  // no load of them
  // Rows of up to four tiles (16,384 elements) stay in registers, a warp each 1024 columns.
  GeneratedSolution in_registers = compile(R"(input %x : f32[1024,16384]
%s = softmax(%x) {dim=1}
return %s
)");
  EXPECT_EQ(in_registers.kernels, 1);
  EXPECT_EQ(count(in_registers.source, "for c0 in range("), 0) << in_registers.source;
  EXPECT_TRUE(has(in_registers.source, "num_warps=WARPS")) << in_registers.source;
  // Rows too long for that: two loops over each, the statistics' then the output's.
  GeneratedSolution looped = compile(R"(input %x : f32[1024,20000]
%s = softmax(%x) {dim=1}
return %s
)");
  EXPECT_EQ(looped.kernels, 1);
  EXPECT_EQ(count(looped.source, "for c0 in range(0, COLS, BLOCK_R):"), 2) << looped.source;
  // Few of them: statistics kernels that split each row over many programs, then the output's.
  GeneratedSolution wide = compile(R"(input %x : f32[4,20000]
%s = softmax(%x) {dim=1}
return %s
)");
  EXPECT_FALSE(has(wide.source, "_rows[")) << wide.source;
  EXPECT_TRUE(has(wide.source, "_softmax[")) << wide.source;
  // Its value read by a reduction too: the statistics are a buffer for both.
  GeneratedSolution shared = compile(R"(input %x : f32[4,256]
%s = softmax(%x) {dim=1}
%m = amax(%s) {dim=[1]}
return %s, %m
)");
  EXPECT_FALSE(has(shared.source, "_rows[")) << shared.source;
  // Over a leading dim (not the rows' trailing ones): two passes.
  GeneratedSolution leading = compile(R"(input %x : f32[256,4]
%s = softmax(%x) {dim=0}
return %s
)");
  EXPECT_FALSE(has(leading.source, "_rows[")) << leading.source;
}

// A reduction over trailing rows whose value reaches one output only through elementwise
// nodes and broadcasts (row_chain) is one kernel too: the reduced value stays in registers.
TEST(Reduce, ShortRowsAreReducedAndUsedInOnePass) {
  auto compile = [](const std::string& text) {
    return generate_solution(parse_graph(text), CodegenOptions{});
  };
  GeneratedSolution l2 = compile(R"(input %x : f32[8,300]
%n = norm(%x) {dim=[1], keepdim=true}
%c = clamp_min(%n) {min=1e-12}
%e = expand(%c) {size=[8,300]}
%y = div(%x, %e)
return %y
)");
  EXPECT_EQ(l2.kernels, 1) << l2.source;
  EXPECT_TRUE(has(l2.source, "k0_norm_rows[")) << l2.source;
  EXPECT_EQ(count(l2.source, "tl.load("), 1) << l2.source;  // the row, once
  // Two reductions of the row (a layer norm written out): one kernel, one Welford accumulator,
  // over the whole row in registers (its count, mean and squared deviations once).
  GeneratedSolution standard = compile(R"(input %x : f32[8,300]
%m = mean(%x) {dim=[1], keepdim=true}
%d = sub(%x, %m)
%s = std(%x) {dim=[1], keepdim=true}
%e = add_scalar(%s) {other=1e-06}
%y = div(%d, %e)
return %y
)");
  EXPECT_EQ(standard.kernels, 1) << standard.source;
  EXPECT_EQ(count(standard.source, "= (hi - lo) * 1.0"), 1) << standard.source;
  EXPECT_EQ(count(standard.source, "for c0 in range("), 0) << standard.source;
  // The reduced value also returned: a buffer, its statistics kernel.
  GeneratedSolution returned = compile(R"(input %x : f32[8,300]
%s = sum(%x) {dim=[1], keepdim=true}
%y = sub(%x, %s)
return %y, %s
)");
  EXPECT_FALSE(has(returned.source, "_rows[")) << returned.source;
  // Broadcast against columns that are not the rows' ([8, 1] times [1, 5]): two kernels.
  GeneratedSolution outer = compile(R"(input %x : f32[8,300]
input %w : f32[1,5]
%s = sum(%x) {dim=[1], keepdim=true}
%y = mul(%s, %w)
return %y
)");
  EXPECT_FALSE(has(outer.source, "_rows[")) << outer.source;
  // A square matrix less its row sums without keepdim: broadcast along the rows, element
  // (i, j) reads sum j, which a kernel of row i does not hold.
  GeneratedSolution across = compile(R"(input %x : f32[8,8]
%s = sum(%x) {dim=[1]}
%y = sub(%x, %s)
return %y
)");
  EXPECT_FALSE(has(across.source, "_rows[")) << across.source;
  // An integer sum (int64 throughout) keeps its kernel.
  GeneratedSolution counts = compile(R"(input %x : f32[8,300]
%b = gt_scalar(%x) {other=0.0}
%s = sum(%b) {dim=[1], keepdim=true}
%f = cast(%s) {dtype="f32"}
%y = mul(%x, %f)
return %y
)");
  EXPECT_FALSE(has(counts.source, "_rows[")) << counts.source;
}

}  // namespace
}  // namespace drtriton
