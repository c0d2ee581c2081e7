// A Linear, matmul, bmm or addmm is one Triton GEMM kernel (`gemm=triton`; `auto`, the
// default, where that pays) whose epilogue computes the bias and the elementwise chain after
// it, so the product never reaches memory; `gemm=library` keeps cuBLAS plus a kernel that
// reads its result. That the kernels compute the right thing is the verifier's to judge
// (tests/python/test_convert_gemm.py); here, only the lines that matter.
#include <gtest/gtest.h>

#include <string>

#include "codegen/codegen.h"
#include "ir/text.h"

namespace drtriton {
namespace {

std::string compile(const std::string& text, const std::string& gemm = "triton") {
  CodegenOptions options;
  options.knobs.gemm = gemm;
  return generate_solution(parse_graph(text), options).source;
}

int count(const std::string& text, const std::string& what) {
  int n = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

// Linear, bias, GELU and a residual add: one kernel, the chain after the K loop.
TEST(Gemm, EpilogueInsideTheKernel) {
  std::string s = compile(R"(input %x : f32[8,32]
input %r : f32[8,16]
%1 = linear(%x) {module="fc", in_features=32, out_features=16}
%2 = gelu(%1)
%3 = add(%2, %r)
return %3
)");
  EXPECT_EQ(count(s, "@triton.jit"), 1) << s;
  EXPECT_EQ(count(s, "F.linear"), 0) << s;
  EXPECT_EQ(count(s, "tl.dot(a, b, acc, input_precision=\"tf32x3\")"), 1) << s;
  EXPECT_EQ(count(s, "#   k0_linear  linear self.fc, gelu, add"), 1) << s;
  // The bias, then GELU and the residual, after the loop; one store, of the sum.
  size_t loop = s.find("for k0 in range(0, K, BLOCK_K):");
  size_t bias = s.find("tl.load(p_fc_bias_ptr + cols, mask=cols < N, other=0.0)");
  size_t gelu = s.find("tl.erf(");
  ASSERT_NE(loop, std::string::npos) << s;
  EXPECT_LT(loop, bias) << s;
  EXPECT_LT(bias, gelu) << s;
  EXPECT_EQ(count(s, "tl.store("), 1) << s;
  EXPECT_EQ(count(s, "num_warps=WARPS, num_stages=STAGES)"), 1) << s;
  // A Linear of a buffer reads both operands through TMA where _gemm_tma can address them,
  // else through its pointer loads.
  EXPECT_EQ(count(s, "= _gemm_tma(x, p_fc_weight, 8, 16, 32, 1, 4)"), 1) << s;
  EXPECT_EQ(count(s, "from triton.tools.tensor_descriptor import TensorDescriptor"), 1) << s;
  EXPECT_EQ(count(s, "a = a_desc.load([m0, k0])"), 1) << s;
  EXPECT_EQ(count(s, "b = b_desc.load([n0, k0]).T"), 1) << s;
  EXPECT_EQ(count(s, "tl.load(x_ptr"), 1) << s;
  EXPECT_EQ(count(s, "TMA=A_DESC is not None"), 1) << s;
}

// An operand that is an expression (x * s) loads two tensors in the K loop: the one beyond
// the first goes to _gemm_blocks, which fits the pipeline's stages to shared memory.
TEST(Gemm, ExpressionOperandCountsItsLoads) {
  std::string s = compile(R"(input %x : f32[8,32]
input %s : f32[8,32]
%1 = mul(%x, %s)
%2 = linear(%1) {module="fc", in_features=32, out_features=16}
return %2
)");
  EXPECT_EQ(count(s, "@triton.jit"), 1) << s;
  EXPECT_EQ(count(s, "_gemm_blocks(8, 16, 32, 1, 4, 1, 0)"), 1) << s;
  EXPECT_EQ(count(s, "TensorDescriptor"), 0) << s;  // TMA copies buffers, not expressions
}

TEST(Gemm, LibraryKnobKeepsCublas) {
  std::string s = compile(R"(input %x : f32[8,32]
%1 = linear(%x) {module="fc", in_features=32, out_features=16}
%2 = relu(%1)
return %2
)",
                          "library");
  EXPECT_EQ(count(s, "F.linear(x, p_fc_weight).contiguous()"), 1) << s;
  EXPECT_EQ(count(s, "tl.dot("), 0) << s;
  EXPECT_EQ(count(s, "_gemm_blocks"), 0) << s;
}

// gemm=auto, the default: the Triton GEMM for products of 2^30 multiply-adds or more whose
// right operand tensor cores take as stored (a Linear's weight, a transposed view) or, in
// fp32, is a matrix copied K-major first (x @ W); cuBLAS for small products and for batched
// fp32 row-major right operands (attention's P @ V).
TEST(Gemm, AutoChoosesByTracedSize) {
  auto triton_kernel = [](const std::string& text) {
    std::string s = generate_solution(parse_graph(text), CodegenOptions{}).source;
    return count(s, "tl.dot(a, b, acc") == 1;
  };
  EXPECT_TRUE(triton_kernel(R"(input %x : f32[1024,1024]
%1 = linear(%x) {module="fc", in_features=1024, out_features=1024}
return %1
)"));
  // A Linear whose rows TMA can copy (840 fp32: 16-byte multiples) pays from 2^28
  // multiply-adds; with rows of 506 fp32 it does not, nor at 24x2048x2048.
  EXPECT_TRUE(triton_kernel(R"(input %x : f32[784,840]
%1 = linear(%x) {module="fc", in_features=840, out_features=506}
return %1
)"));
  EXPECT_FALSE(triton_kernel(R"(input %x : f32[784,506]
%1 = linear(%x) {module="fc", in_features=506, out_features=840}
return %1
)"));
  EXPECT_FALSE(triton_kernel(R"(input %x : f32[24,2048]
%1 = linear(%x) {module="fc", in_features=2048, out_features=2048}
return %1
)"));
  // x @ W with W row-major (N contiguous): the Triton GEMM, in fp32 after a K-major copy of
  // W (TF32 products take K-major operands only), in fp16 as it is; batched in fp32, cuBLAS
  // unless each entry's product has 2^30 multiply-adds.
  auto x_at_w = [](const std::string& dtype) {
    return "input %x : " + dtype + "[2048,4096]\ninput %w : " + dtype +
           "[4096,8192]\n%1 = matmul(%x, %w)\nreturn %1\n";
  };
  EXPECT_TRUE(triton_kernel(x_at_w("f32")));
  EXPECT_EQ(
      count(generate_solution(parse_graph(x_at_w("f32")), CodegenOptions{}).source, "_k_major["),
      1);
  EXPECT_FALSE(triton_kernel(R"(input %p : f32[16,1024,1024]
input %v : f32[16,1024,256]
%1 = matmul(%p, %v)
return %1
)"));
  EXPECT_TRUE(triton_kernel(R"(input %h : f32[8,2048,1024]
input %w : f32[8,1024,1024]
%1 = bmm(%h, %w)
return %1
)"));
  EXPECT_TRUE(triton_kernel(R"(input %x : f32[2048,4096]
input %w : f32[8192,4096]
%1 = transpose(%w) {dim0=0, dim1=1}
%2 = matmul(%x, %1)
return %2
)"));
  EXPECT_TRUE(triton_kernel(x_at_w("f16")));
}

// A value of the chain read past its end (here by the row sum) ends the epilogue there:
// the kernel writes that value and the reduction reads it (with the subtraction: one pass).
TEST(Gemm, ChainEndsWhereAValueIsReadOutside) {
  std::string s = compile(R"(input %x : f32[8,32]
%1 = linear(%x) {module="fc", in_features=32, out_features=16}
%2 = relu(%1)
%3 = sum(%2) {dim=[1], keepdim=true}
%4 = sub(%2, %3)
return %4
)");
  EXPECT_EQ(count(s, "@triton.jit"), 2) << s;  // the GEMM with relu, the sum and subtraction
  EXPECT_EQ(count(s, "#   k0_linear    linear self.fc, relu\n"), 1) << s;
  EXPECT_EQ(count(s, " < 0, 0.0, "), 1) << s;  // relu once, in the GEMM kernel
}

// A value read twice inside the chain (x * sigmoid(x)) is computed once per tile element,
// not written.
TEST(Gemm, SharedValueInsideTheChain) {
  std::string s = compile(R"(input %x : f32[8,32]
%1 = linear(%x) {module="fc", in_features=32, out_features=16, bias=false}
%2 = sigmoid(%1)
%3 = mul(%1, %2)
return %3
)");
  EXPECT_EQ(count(s, "@triton.jit"), 1) << s;
  EXPECT_EQ(count(s, "p_fc_bias"), 0) << s;
  EXPECT_EQ(count(s, "(acc) * (t"), 1) << s;
}

TEST(Gemm, BatchedOperandsBroadcast) {
  std::string s = compile(R"(input %a : f32[4,8,16]
input %b : f32[16,12]
%1 = matmul(%a, %b)
%2 = mul_scalar(%1) {other=2.0}
return %2
)");
  EXPECT_EQ(count(s, "torch.matmul"), 0) << s;
  EXPECT_EQ(count(s, "t0 = tl.program_id(1)"), 1) << s;  // the batch entry
  // b, row-major fp32, is copied K-major first (no batch dim); every load of it reads the
  // copy, TMA's and the pointer loads alike; a's rows of all 4 entries go through TMA.
  EXPECT_EQ(count(s, "k0_k_major[(triton.cdiv(16, 64), triton.cdiv(12, 64), 1)](b, buf0, "), 1)
      << s;
  EXPECT_EQ(count(s, "tl.load(buf0_ptr + (cols * 16 + kb)"), 1) << s;
  EXPECT_EQ(count(s, "BLOCK_N), 4)](a, buf0, "), 1) << s;
  EXPECT_EQ(count(s, "_gemm_tma(a, buf0, 8, 12, 16, 4, 4)"), 1) << s;
  EXPECT_EQ(count(s, "a = a_desc.load([tl.program_id(1) * M + m0, k0])"), 1) << s;
  EXPECT_EQ(count(s, "b = b_desc.load([n0, k0]).T"), 1) << s;
}

// A = X^T of a buffer would be copied K-major, but B, an expression, keeps the pointer loads:
// then no copy is written at all (netvlad_head's copy of A was a wasted pass, which the
// verifier's no-op test rejected).
TEST(Gemm, NoCopyTheProductDoesNotRead) {
  std::string s = compile(R"(input %a : f32[4,16,8]
input %b : f32[4,16,12]
%1 = transpose(%a) {dim0=1, dim1=2}
%2 = mul_scalar(%b) {other=0.5}
%3 = matmul(%1, %2)
return %3
)");
  EXPECT_EQ(count(s, "torch.matmul"), 0) << s;
  EXPECT_EQ(count(s, "_k_major"), 0) << s;
}

// B = X^T of a buffer X [.., N, K]: TMA reads X itself, batch entry by batch entry; an
// operand that is an expression, or fp16's row-major B, keeps the pointer loads.
TEST(Gemm, TmaReadsTheBufferOfATransposedView) {
  std::string s = compile(R"(input %q : f32[4,8,16]
input %k : f32[4,12,16]
%1 = transpose(%k) {dim0=1, dim1=2}
%2 = matmul(%q, %1)
return %2
)");
  EXPECT_EQ(count(s, "_k_major"), 0) << s;
  EXPECT_EQ(count(s, "_gemm_tma(q, k, 8, 12, 16, 4, 4)"), 1) << s;
  EXPECT_EQ(count(s, "b = b_desc.load([tl.program_id(1) * N + n0, k0]).T"), 1) << s;
  std::string expression = compile(R"(input %q : f32[4,8,16]
input %k : f32[4,16,12]
%1 = mul_scalar(%q) {other=0.5}
%2 = matmul(%1, %k)
return %2
)");
  EXPECT_EQ(count(expression, "TensorDescriptor"), 0) << expression;
  std::string half = compile(R"(input %q : f16[8,16]
input %k : f16[16,12]
%1 = matmul(%q, %k)
return %1
)");
  EXPECT_EQ(count(half, "TensorDescriptor"), 0) << half;
}

TEST(Gemm, AddmmAndBmm) {
  std::string s = compile(R"(input %a : f32[8,16]
param %w : f32[16,12]
param %bias : f32[12]
%1 = addmm(%bias, %a, %w)
return %1
)");
  EXPECT_EQ(count(s, "torch.mm"), 0) << s;
  EXPECT_EQ(count(s, "acc + t"), 1) << s;
  std::string b = compile(R"(input %a : f32[4,8,16]
input %b : f32[4,16,12]
%1 = bmm(%a, %b)
return %1
)");
  EXPECT_EQ(count(b, "torch.bmm"), 0) << b;
  EXPECT_EQ(count(b, "tl.dot(a, b, acc"), 1) << b;
}

TEST(Gemm, HalfPrecisionMultipliesAsItIs) {
  std::string s = compile(R"(input %x : f16[8,32]
%1 = linear(%x) {module="fc", in_features=32, out_features=16}
return %1
)");
  EXPECT_EQ(count(s, "tl.dot(a, b, acc)"), 1) << s;
  EXPECT_EQ(count(s, ".to(tl.float16)"), 2) << s;  // both operands
  EXPECT_EQ(count(s, "tf32x3"), 0) << s;
  EXPECT_EQ(count(s, "_gemm_tma(x, p_fc_weight, 8, 16, 32, 1, 2)"), 1) << s;
}

// bf16 values are exact in TF32: one TF32 pass on the fp32 loads gives bf16's products.
TEST(Gemm, Bfloat16ThroughOneTf32Pass) {
  std::string s = compile(R"(input %x : bf16[8,32]
%1 = linear(%x) {module="fc", in_features=32, out_features=16}
return %1
)");
  EXPECT_EQ(count(s, "tl.dot(a, b, acc, input_precision=\"tf32\")"), 1) << s;
  EXPECT_EQ(count(s, "tl.bfloat16"), 1) << s;   // in _round_bf16 only: no bf16 operands
  EXPECT_EQ(count(s, "_round_bf16("), 2) << s;  // the helper and the store
}

// A dim of a literal 1 drops its axis from the offsets: the operands and the store are
// broadcast to the tile (tl.dot and tl.store take no smaller blocks).
TEST(Gemm, LiteralOneDimsGiveFullTiles) {
  std::string s = compile(R"(input %a : f32[1,16]
input %b : f32[16,12]
%1 = matmul(%a, %b)
return %1
)");
  EXPECT_EQ(count(s, "a = tl.where(a_mask, "), 1) << s;
  EXPECT_EQ(count(s, "b = tl.where(b_mask, "), 1) << s;
  EXPECT_EQ(count(s, "tl.store(buf0_ptr + mask.to(tl.int32) * 0 + "), 1) << s;
}

// A matmul of a vector stays a library call.
TEST(Gemm, VectorOperandStaysALibraryCall) {
  std::string s = compile(R"(input %a : f32[8,16]
input %v : f32[16]
%1 = matmul(%a, %v)
return %1
)");
  EXPECT_EQ(count(s, "torch.matmul(a, v)"), 1) << s;
}

}  // namespace
}  // namespace drtriton
