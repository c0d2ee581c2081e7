// Dropout follows self.training: in training mode an expression that zeroes each element with
// probability p (Philox at the element's offset, keyed by a seed the forward draws on every
// call) and scales the others by 1/(1-p), fused into the kernel that reads it; in eval mode
// (TRAINING a constexpr False) the identity. p = 0 costs nothing in either mode.
#include <gtest/gtest.h>

#include <string>

#include "codegen/codegen.h"
#include "ir/text.h"

namespace drtriton {
namespace {

std::string compile(const std::string& body, const std::string& input = "f32[8,16]",
                    const CodegenKnobs& knobs = {}) {
  CodegenOptions options;
  options.knobs = knobs;
  return generate_solution(parse_graph("input %x : " + input + "\n" + body), options).source;
}

size_t count(const std::string& source, const std::string& text) {
  size_t n = 0;
  for (size_t at = source.find(text); at != std::string::npos; at = source.find(text, at + 1)) ++n;
  return n;
}

TEST(Dropout, DropsInTrainingModeInsideTheKernelThatReadsIt) {
  std::string s = compile(
      "%1 = relu(%x)\n%2 = dropout(%1) {module=\"drop\", p=0.2}\n%3 = mul(%2, %x)\nreturn %3\n");
  EXPECT_EQ(count(s, "@triton.jit"), 1) << s;  // relu, dropout and mul in one kernel
  EXPECT_EQ(count(s,
                  "dropout_seeds = torch.randint(2**31 - 1, (1,), device=device) if "
                  "self.training else None\n"),
            1)
      << s;
  EXPECT_EQ(count(s, "tl.where(tl.rand(tl.load(dropout_seeds_ptr + 0), offs) >= 0.2, t"), 1) << s;
  EXPECT_EQ(count(s, " * 1.25, 0.0) if TRAINING else t"), 1) << s;  // 1/(1-p), the input in eval
  EXPECT_EQ(count(s, "TRAINING: tl.constexpr"), 1) << s;
  EXPECT_EQ(count(s, "dropout_seeds, buf0, (8 * 16), BLOCK=1024, TRAINING=self.training)"), 1) << s;
}

TEST(Dropout, EachDropoutHasItsOwnSeed) {
  std::string s = compile("%1 = dropout(%x) {p=0.5}\n%2 = dropout(%1) {p=0.1}\nreturn %2\n");
  EXPECT_EQ(count(s, "torch.randint(2**31 - 1, (2,), device=device)"), 1) << s;
  EXPECT_EQ(count(s, "tl.rand(tl.load(dropout_seeds_ptr + 0)"), 1) << s;
  EXPECT_EQ(count(s, "tl.rand(tl.load(dropout_seeds_ptr + 1)"), 1) << s;
}

// A library call reads memory: the dropped values are written by a kernel first, not the
// input passed through as it was when dropout was the identity.
TEST(Dropout, BeforeALibraryCallAKernelWritesIt) {
  CodegenKnobs library;
  library.gemm = "library";
  std::string s = compile(
      "%1 = dropout(%x) {module=\"drop\", p=0.3}\n"
      "%2 = linear(%1) {module=\"fc\", in_features=16, out_features=4, bias=false}\n"
      "return %2\n",
      "f32[8,16]", library);
  EXPECT_EQ(count(s, "tl.rand("), 1) << s;
  EXPECT_EQ(count(s, "F.linear(buf0, "), 1) << s;
}

// A Triton GEMM reads its operand as an expression: the mask is drawn at the element's
// offset in the dropout's output, the same at every read.
TEST(Dropout, InsideATritonGemmsOperand) {
  CodegenKnobs triton;
  triton.gemm = "triton";
  std::string s = compile(
      "%1 = dropout(%x) {module=\"drop\", p=0.3}\n"
      "%2 = linear(%1) {module=\"fc\", in_features=16, out_features=4, bias=false}\n"
      "return %2\n",
      "f32[8,16]", triton);
  EXPECT_EQ(count(s, "@triton.jit"), 1) << s;
  EXPECT_EQ(count(s, "tl.rand(tl.load(dropout_seeds_ptr + 0), (t0 * 16 + ka))"), 1) << s;
  EXPECT_EQ(count(s, "F.linear"), 0) << s;
}

TEST(Dropout, ZeroRateIsTheIdentity) {
  std::string s = compile("%1 = dropout(%x) {module=\"drop\", p=0.0}\n%2 = relu(%1)\nreturn %2\n");
  EXPECT_EQ(count(s, "tl.rand("), 0) << s;
  EXPECT_EQ(count(s, "dropout_seeds"), 0) << s;
  EXPECT_EQ(count(s, "TRAINING"), 0) << s;
}

// Dropout2d draws one number per (sample, channel): the offset is n * C + c, however many
// elements a channel has; over a contiguous tensor that is the flat offset over a channel's
// elements (the index algebra merges the sample's and channel's digits back).
TEST(Dropout, ChannelDropoutDrawsPerSampleAndChannel) {
  std::string s =
      compile("%1 = dropout2d(%x) {module=\"drop\", p=0.5}\nreturn %1\n", "f32[4,6,5,5]");
  EXPECT_EQ(count(s, "tl.rand("), 1) << s;
  EXPECT_EQ(count(s, "tl.rand(tl.load(dropout_seeds_ptr + 0), offs)"), 0) << s;
  EXPECT_EQ(count(s, "((offs // (5 * 5)))"), 1) << s;  // n * 6 + c
  EXPECT_EQ(count(s, ") >= 0.5, t"), 1) << s;
}

// AlphaDropout with p = 0.2: kept a * x + b, dropped a * alpha' + b (PyTorch's constants).
TEST(Dropout, AlphaDropoutKeepsTheMeanAndVariance) {
  std::string s = compile("%1 = alpha_dropout(%x) {module=\"drop\", p=0.2}\nreturn %1\n");
  EXPECT_EQ(count(s, "tl.rand(tl.load(dropout_seeds_ptr + 0), offs) >= 0.2"), 1) << s;
  EXPECT_EQ(count(s, " * 0.8789035834435328 + 0.30903996214409446, -1.2361598485763778)"), 1) << s;
  EXPECT_EQ(count(s, "if TRAINING else"), 1) << s;
}

}  // namespace
}  // namespace drtriton
