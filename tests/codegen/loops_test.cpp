// A loop the trace unrolled (src/codegen/loops.cpp): three copies of an RNN cell's step,
// each reading x[:, t] and the step before's hidden state, become one step inside a Python
// loop over x.shape[1]. Copies that are not one step repeated stay as they are.
#include <gtest/gtest.h>

#include <string>

#include "codegen/codegen.h"
#include "ir/text.h"

namespace drtriton {
namespace {

int count(const std::string& text, const std::string& what) {
  int n = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

// Three steps of h = tanh(x[:, t] + h * 0.5); then h * 2. `step_scale` is the third step's
// scale (0.5: the same step each time).
std::string unrolled(const std::string& step_scale = "0.5") {
  std::string ir = "input %x : f32[4,3,8]\ninput %h : f32[4,8]\n";
  std::string h = "%h";
  for (int t = 0; t < 3; ++t) {
    std::string s = std::to_string(t);
    ir += "%x" + s + " = select(%x) {dim=1, index=" + s + "}\n";
    ir += "%m" + s + " = mul_scalar(" + h + ") {other=" + (t == 2 ? step_scale : "0.5") + "}\n";
    ir += "%a" + s + " = add(%x" + s + ", %m" + s + ")\n";
    ir += "%h" + s + " = tanh(%a" + s + ")\n";
    h = "%h" + s;
  }
  return ir + "%y = mul_scalar(" + h + ") {other=2.0}\nreturn %y\n";
}

TEST(StepLoop, UnrolledStepsBecomeOneStepInALoop) {
  std::string s = generate_solution(parse_graph(unrolled()), CodegenOptions{}).source;
  EXPECT_EQ(count(s, "steps = x.shape[1]"), 1) << s;
  EXPECT_EQ(count(s, "for step in range(steps):"), 1) << s;
  EXPECT_EQ(count(s, "carry3 = h\n"), 1) << s;        // the hidden state, carried
  EXPECT_EQ(count(s, "@triton.jit\ndef k"), 2) << s;  // the step, and the work after the loop
  EXPECT_EQ(count(s, "step: tl.constexpr"), 0) << s;
  // x.shape[1] is read, not checked (the text form fixes the other sizes)
  EXPECT_EQ(count(s, "if (x.shape[0], x.shape[2]) != (4, 8):"), 1) << s;
}

TEST(StepLoop, DifferentStepsStayUnrolled) {
  std::string s = generate_solution(parse_graph(unrolled("0.25")), CodegenOptions{}).source;
  EXPECT_EQ(count(s, "for step in range"), 0) << s;
  EXPECT_EQ(count(s, "if (x.shape[0], x.shape[1], x.shape[2]) != (4, 3, 8):"), 1) << s;
}

}  // namespace
}  // namespace drtriton
