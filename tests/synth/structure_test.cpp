// The structure space: exact counts, uniform draws, coverage and determinism.
#include "synth/structure.h"

#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <set>

#include "ir/text.h"
#include "synth/dataset.h"

namespace drtriton {
namespace {

SpaceOptions space(std::vector<Op> ops, int difficulty) {
  return {std::move(ops), difficulty, std::nullopt};
}

TEST(StructureSpace, CountEqualsTheNumberOfDistinctEnumeratedStructures) {
  std::vector<std::pair<std::vector<Op>, int>> cases = {
      {{Op::Relu, Op::Add, Op::Sum}, 1},
      {{Op::Relu, Op::Add, Op::Sum}, 2},
      {{Op::Exp, Op::Log, Op::Div, Op::Reshape}, 2},
      {{Op::Conv2d, Op::BatchNorm2d, Op::Mul, Op::Squeeze, Op::Mean}, 2},
      {{Op::GtScalar, Op::Where, Op::Cat, Op::Matmul}, 3},
  };
  for (const auto& [ops, k] : cases) {
    StructureSpace s(space(ops, k));
    auto all = s.enumerate(2'000'000);
    std::set<std::string> distinct;
    for (const auto& steps : all) distinct.insert(structure_text(steps));
    ASSERT_LT(all.size(), 2'000'000u);
    EXPECT_EQ(s.count().to_string(), std::to_string(all.size())) << "K=" << k;
    EXPECT_EQ(distinct.size(), all.size()) << "two structures print the same text";
  }
}

TEST(StructureSpace, OneSpaceHoldsEveryLowerDifficulty) {
  // Counts and draws at difficulty k of a space built for 5 are those of a space built for k.
  const std::vector<Op> ops = {Op::Relu, Op::Add, Op::Sum, Op::Reshape, Op::Matmul};
  StructureSpace all(space(ops, 5));
  for (int k = 1; k <= 5; ++k) {
    StructureSpace alone(space(ops, k));
    EXPECT_EQ(all.count(k).to_string(), alone.count().to_string()) << "K=" << k;
    std::mt19937_64 a(k), b(k);
    for (int i = 0; i < 20; ++i)
      EXPECT_EQ(structure_text(all.sample(a, k)), structure_text(alone.sample(b))) << "K=" << k;
  }
  EXPECT_THROW(all.count(6), std::invalid_argument);
  EXPECT_THROW(all.count(0), std::invalid_argument);
}

// Upper quantile of the chi-square distribution (Wilson-Hilferty), for the test below.
double chi_square_quantile(double df, double z) {
  double a = 2.0 / (9.0 * df);
  return df * std::pow(1 - a + z * std::sqrt(a), 3);
}

TEST(StructureSpace, DrawsAreUniform) {
  // Every structure of a space small enough to enumerate, drawn about 40 times each: the
  // chi-square statistic of the frequencies must not reject uniformity at p = 0.001.
  StructureSpace s(space({Op::Relu, Op::Add, Op::Sum, Op::Exp, Op::Log}, 2));
  auto all = s.enumerate(100'000);
  std::map<std::string, int> freq;
  for (const auto& steps : all) freq[structure_text(steps)] = 0;
  const int draws = static_cast<int>(all.size()) * 40;
  std::mt19937_64 rng(12345);
  for (int i = 0; i < draws; ++i) {
    auto it = freq.find(structure_text(s.sample(rng)));
    ASSERT_NE(it, freq.end()) << "a drawn structure is not in the enumeration";
    ++it->second;
  }
  double expected = static_cast<double>(draws) / static_cast<double>(freq.size()), chi2 = 0;
  int seen = 0;
  for (const auto& [text, f] : freq) {
    chi2 += (f - expected) * (f - expected) / expected;
    seen += f > 0;
  }
  double df = static_cast<double>(freq.size()) - 1;
  EXPECT_LT(chi2, chi_square_quantile(df, 3.09)) << "chi2 " << chi2 << " over df " << df;
  EXPECT_GT(chi2, chi_square_quantile(df, -3.09)) << "suspiciously even: chi2 " << chi2;
  EXPECT_EQ(seen, static_cast<int>(freq.size()));
}

TEST(Synthesize, CoverageHoldsAlways) {
  std::vector<Op> vocab = {Op::Conv2d, Op::Relu,      Op::Add,       Op::Log,    Op::Softmax,
                           Op::Where,  Op::GtScalar,  Op::MaxPool2d, Op::Linear, Op::Reshape,
                           Op::Argmax, Op::GroupNorm, Op::Squeeze,   Op::Sum,    Op::Cat};
  for (uint64_t seed : {1, 2, 3}) {
    SynthOptions o;
    o.count = 60;
    o.difficulty_lo = 1;
    o.difficulty_hi = 4;
    o.seed = seed;
    o.ops = vocab;
    o.cover = 4;
    o.jobs = 2;
    std::map<std::string, int> programs_with;
    for (const ProgramRecord& r : synthesize(o)) {
      std::set<std::string> seen(r.ops.begin(), r.ops.end());
      for (const std::string& op : seen) ++programs_with[op];
    }
    for (Op op : vocab) EXPECT_GE(programs_with[op_schema(op).name], 4) << op_schema(op).name;
  }
}

TEST(Synthesize, SameSeedSameBytesWhateverTheJobs) {
  SynthOptions o;
  o.count = 300;
  o.difficulty_lo = 1;
  o.difficulty_hi = 6;
  o.ops = default_vocabulary();
  o.ops.resize(40);
  o.cover = 2;
  o.seed = 77;
  std::string outputs[3];
  for (int jobs : {1, 2, 3}) {
    o.jobs = jobs;
    for (const ProgramRecord& r : synthesize(o)) outputs[jobs - 1] += r.to_json().dump() + "\n";
  }
  EXPECT_EQ(outputs[0], outputs[1]);
  EXPECT_EQ(outputs[0], outputs[2]);
}

TEST(Synthesize, ProgramsHaveTheirDifficultyAndValidIr) {
  SynthOptions o;
  o.count = 400;
  o.difficulty_lo = 1;
  o.difficulty_hi = 20;
  o.seed = 5;
  o.jobs = 2;
  for (const ProgramRecord& r : synthesize(o)) {
    Graph g = parse_graph(r.ir, r.id);
    EXPECT_EQ(g.compute_ops(), r.difficulty) << r.ir;
    EXPECT_EQ(print_graph(g), r.ir);
    EXPECT_LE(g.flops(), o.sizes.max_flops);
    EXPECT_LE(static_cast<double>(g.bytes()), o.sizes.max_bytes);
  }
}

}  // namespace
}  // namespace drtriton
