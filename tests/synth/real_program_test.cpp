// The --dist real distribution and the degenerate-program rules: exact difficulty, coverage,
// determinism across threads, the table's error messages, and what find_degenerate flags.
#include "synth/real_program.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <set>

#include "ir/text.h"
#include "synth/dataset.h"
#include "synth/degenerate.h"

namespace drtriton {
namespace {

SynthOptions real_options(int count, int lo, int hi, uint64_t seed) {
  SynthOptions o;
  o.dist = Distribution::Real;
  o.count = count;
  o.difficulty_lo = lo;
  o.difficulty_hi = hi;
  o.seed = seed;
  o.jobs = 2;
  return o;
}

TEST(RealDist, ProgramsHaveTheirDifficultyFitTheBudgetAndAreNotDegenerate) {
  SynthOptions o = real_options(400, 1, 24, 3);
  for (const ProgramRecord& r : synthesize(o)) {
    Graph g = parse_graph(r.ir, r.id);
    EXPECT_EQ(g.compute_ops(), r.difficulty) << r.ir;
    EXPECT_LE(g.flops(), o.sizes.max_flops);
    EXPECT_LE(static_cast<double>(g.bytes()), o.sizes.max_bytes);
    EXPECT_EQ(find_degenerate(g), "") << r.ir;
    EXPECT_EQ(r.dist, "real");
  }
}

TEST(RealDist, EveryOperatorIsCoveredAndMostProgramsHaveAnAnchor) {
  SynthOptions o = real_options(600, 1, 5, 9);
  o.cover = 2;
  std::map<std::string, int> programs_with;
  int anchored = 0;
  for (const ProgramRecord& r : synthesize(o)) {
    std::set<std::string> seen(r.ops.begin(), r.ops.end());
    for (const std::string& op : seen) ++programs_with[op];
    anchored += std::any_of(r.ops.begin(), r.ops.end(), [](const std::string& op) {
      return find_op(op)->category == Category::Anchor;
    });
  }
  for (Op op : default_vocabulary())
    EXPECT_GE(programs_with[op_schema(op).name], 2) << op_schema(op).name;
  EXPECT_GE(anchored, 600 * 85 / 100);
}

TEST(RealDist, SameSeedSameBytesWhateverTheJobs) {
  SynthOptions o = real_options(300, 1, 12, 77);
  o.cover = 1;
  std::string outputs[3];
  for (int jobs : {1, 2, 3}) {
    o.jobs = jobs;
    for (const ProgramRecord& r : synthesize(o)) outputs[jobs - 1] += r.to_json().dump() + "\n";
  }
  EXPECT_EQ(outputs[0], outputs[1]);
  EXPECT_EQ(outputs[0], outputs[2]);
}

std::string load_error(const std::string& text) {
  std::string path = (std::filesystem::temp_directory_path() / "drtriton_bad_table.json").string();
  std::ofstream(path) << text;
  try {
    load_real_table(path);
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return "";
}

TEST(RealTable, ABadEditNamesTheFileAndTheField) {
  std::ifstream in(default_real_table_path());
  std::string table((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::string bad = table;
  bad.replace(bad.find("\"relu\": 6"), 9, "\"rleu\": 6");
  EXPECT_NE(load_error(bad).find("drtriton_bad_table.json: families.activation.\"rleu\": unknown "
                                 "operator 'rleu'"),
            std::string::npos)
      << load_error(bad);
  EXPECT_NE(load_error("{\n  \"templates\": [,]\n}").find("line 2"), std::string::npos);
  bad = table;
  bad.replace(bad.find("\"add:skip\""), 10, "\"add:self\"");
  EXPECT_NE(load_error(bad).find("'self' is not an argument of add"), std::string::npos);
  EXPECT_EQ(load_error(table), "");
}

Graph graph_of(const std::string& text) {
  return parse_graph(text, "test");
}

TEST(Degenerate, FlagsBinaryOpsOverOneValueAndConstantOutputs) {
  EXPECT_NE(find_degenerate(graph_of("input %x : f32[4,8]\n%1 : f32[4,8] = relu(%x)\n"
                                     "%2 : f32[4,8] = sub(%1, %1)\nreturn %2\n")),
            "");
  // Two nodes that compute the same value are one value.
  EXPECT_NE(find_degenerate(graph_of("input %x : f32[4,8]\n%1 : f32[4,8] = tanh(%x)\n"
                                     "%2 : f32[4,8] = tanh(%x)\n%3 : f32[4,8] = maximum(%1, %2)\n"
                                     "return %3\n")),
            "");
  // relu(-exp(x)) is 0 everywhere.
  EXPECT_NE(find_degenerate(graph_of("input %x : f32[4,8]\n%1 : f32[4,8] = exp(%x)\n"
                                     "%2 : f32[4,8] = neg(%1)\n%3 : f32[4,8] = relu(%2)\n"
                                     "return %3\n")),
            "");
  // The sum of a softmax along its own dim is 1.
  EXPECT_NE(find_degenerate(graph_of("input %x : f32[4,8]\n%1 : f32[4,8] = softmax(%x) {dim=1}\n"
                                     "%2 : f32[4] = sum(%1) {dim=[1]}\nreturn %2\n")),
            "");
  // sigmoid(x) > 1.5 is always false.
  EXPECT_NE(find_degenerate(graph_of("input %x : f32[4,8]\n%1 : f32[4,8] = sigmoid(%x)\n"
                                     "%2 : bool[4,8] = gt_scalar(%1) {other=1.5}\nreturn %2\n")),
            "");
  // An input the output never reads.
  EXPECT_NE(find_degenerate(graph_of("input %x : f32[4,8]\ninput %y : f32[4,8]\n"
                                     "%1 : f32[4,8] = relu(%x)\nreturn %1\n")),
            "");
  EXPECT_EQ(
      find_degenerate(graph_of("input %x : f32[4,8]\n%1 : f32[4,8] = relu(%x)\n"
                               "%2 : f32[4,8] = add(%1, %x)\n%3 : f32[4] = sum(%2) {dim=[1]}\n"
                               "return %3\n")),
      "");
}

TEST(StructureSpace, NoBinaryOpTakesOneValueTwice) {
  StructureSpace s(
      {{Op::Relu, Op::Add, Op::Sub, Op::Maximum, Op::GtScalar, Op::Where}, 3, std::nullopt});
  for (const auto& steps : s.enumerate(200'000)) {
    for (const Step& st : steps) {
      if (st.op == Op::Where) {
        EXPECT_NE(st.operands[1], st.operands[2]) << structure_text(steps);
      } else if (op_schema(st.op).category == Category::Binary && st.operands[1] >= 0) {
        EXPECT_NE(st.operands[0], st.operands[1]) << structure_text(steps);
      }
    }
  }
}

}  // namespace
}  // namespace drtriton
