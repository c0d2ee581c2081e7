// Datasets with a numeric check: flagged programs are drawn again, the others kept, the
// output independent of the threads, and a check that never passes stops with a message.
// A stand-in check replaces the PyTorch one (tests/python/test_synth.py runs that).
#include "synth/dataset.h"

#include <gtest/gtest.h>

#include <stdexcept>

namespace drtriton {
namespace {

// Fails a third of the draws, by seed: a rule that only the redraws' new seeds can pass.
std::vector<bool> fail_a_third(const std::vector<ProgramRecord>& programs) {
  std::vector<bool> flagged;
  for (const ProgramRecord& r : programs) flagged.push_back(r.seed % 3 == 0);
  return flagged;
}

SynthOptions options(Distribution dist) {
  SynthOptions o;
  o.dist = dist;
  o.count = 150;
  o.difficulty_lo = 1;
  o.difficulty_hi = 4;
  o.ops = default_vocabulary();
  o.ops.resize(40);  // a smaller structure space, counted in a moment
  o.cover = dist == Distribution::Uniform ? 1 : 0;
  o.seed = 91;
  return o;
}

TEST(Synthesize, TheNumericCheckRedrawsFlaggedProgramsOnly) {
  for (Distribution dist : {Distribution::Uniform, Distribution::Real}) {
    SynthOptions o = options(dist);
    o.jobs = 2;
    std::vector<ProgramRecord> plain = synthesize(o);
    o.numeric_check = fail_a_third;
    std::vector<ProgramRecord> checked = synthesize(o);
    ASSERT_EQ(plain.size(), checked.size());
    int redrawn = 0;
    for (size_t i = 0; i < plain.size(); ++i) {
      EXPECT_NE(checked[i].seed % 3, 0u) << checked[i].id;
      EXPECT_EQ(checked[i].id, plain[i].id);
      EXPECT_EQ(checked[i].difficulty, plain[i].difficulty);
      if (plain[i].seed % 3 != 0) {
        EXPECT_EQ(checked[i].to_json(), plain[i].to_json());
        EXPECT_EQ(checked[i].numeric_redraws, 0);
      } else {
        EXPECT_GE(checked[i].numeric_redraws, 1);
        ++redrawn;
      }
    }
    EXPECT_GT(redrawn, 20);
  }
}

TEST(Synthesize, NumericCheckSameBytesWhateverTheJobs) {
  for (Distribution dist : {Distribution::Uniform, Distribution::Real}) {
    SynthOptions o = options(dist);
    o.numeric_check = fail_a_third;
    std::string outputs[3];
    for (int jobs : {1, 2, 3}) {
      o.jobs = jobs;
      for (const ProgramRecord& r : synthesize(o)) outputs[jobs - 1] += r.to_json().dump() + "\n";
    }
    EXPECT_EQ(outputs[0], outputs[1]);
    EXPECT_EQ(outputs[0], outputs[2]);
  }
}

TEST(Synthesize, AProgramThatNeverPassesTheNumericCheckStops) {
  SynthOptions o = options(Distribution::Real);
  o.count = 3;
  int rounds = 0;
  o.numeric_check = [&](const std::vector<ProgramRecord>& programs) {
    ++rounds;
    std::vector<bool> flagged;
    for (const ProgramRecord& r : programs) flagged.push_back(r.id == "p000001");
    return flagged;
  };
  try {
    synthesize(o);
    FAIL() << "expected the redraw limit";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("1 program still fails the numeric check after 20 "
                                         "redraws (p000001 of difficulty"),
              std::string::npos)
        << e.what();
  }
  EXPECT_EQ(rounds, kMaxNumericRedraws + 1);
}

}  // namespace
}  // namespace drtriton
