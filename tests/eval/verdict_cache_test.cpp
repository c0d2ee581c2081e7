// The verdict cache keeps what it was given across a close and reopen (what a killed service
// relies on), and its key separates what must be judged apart.
#include "eval/verdict_cache.h"

#include <gtest/gtest.h>

#include "eval/worker_pool.h"
#include "temp_db.h"

namespace drtriton {
namespace {

using json = nlohmann::json;

TEST(VerdictCache, VerdictsAndReferenceTimingsSurviveReopening) {
  TempDb db("reopen");
  json verdict = {{"passed", true}, {"stage", "timed"}, {"reward", {{"correct", 1}}}};
  json timing = {{"eager", {{"median", 0.5}}}};
  {
    VerdictCache cache(db.str());
    EXPECT_FALSE(cache.get("k1"));
    cache.put("k1", verdict);
    cache.put_reference_timing("task", "NVIDIA H200", "ctx", timing);
    EXPECT_EQ(cache.size(), 1u);
  }
  VerdictCache again(db.str());
  ASSERT_TRUE(again.get("k1"));
  EXPECT_EQ(*again.get("k1"), verdict);
  EXPECT_FALSE(again.get("k2"));
  ASSERT_TRUE(again.reference_timing("task", "NVIDIA H200", "ctx"));
  EXPECT_EQ(*again.reference_timing("task", "NVIDIA H200", "ctx"), timing);
  EXPECT_FALSE(again.reference_timing("task", "cpu", "ctx"));
  EXPECT_FALSE(again.reference_timing("task", "NVIDIA H200", "other"));
}

TEST(VerdictCache, ReplacingAKeyKeepsOneRow) {
  TempDb db("replace");
  VerdictCache cache(db.str());
  cache.put("k", {{"passed", false}});
  cache.put("k", {{"passed", true}});
  EXPECT_EQ(cache.size(), 1u);
  EXPECT_EQ((*cache.get("k"))["passed"], true);
}

TEST(VerdictCache, UnopenablePathNamesTheFile) {
  try {
    VerdictCache cache("/nonexistent-dir/verdicts.sqlite");
    FAIL() << "expected an error";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("/nonexistent-dir/verdicts.sqlite"), std::string::npos);
  }
}

TEST(VerdictCacheKey, ChangesWithEveryPartButTheReference) {
  WorkerIdentity h200{"NVIDIA H200", {{"torch", "2.5"}, {"triton", "3.1"}}};
  json options = {{"strict", false}, {"eval_mode", false}, {"device", "cuda"}};
  std::string base = verdict_cache_key("t", "c", h200, options);
  EXPECT_EQ(base.size(), 64u);
  EXPECT_NE(base, verdict_cache_key("t2", "c", h200, options));
  EXPECT_NE(base, verdict_cache_key("t", "c2", h200, options));
  WorkerIdentity a100{"NVIDIA A100", h200.versions};
  EXPECT_NE(base, verdict_cache_key("t", "c", a100, options));
  WorkerIdentity new_torch{"NVIDIA H200", {{"torch", "2.6"}, {"triton", "3.1"}}};
  EXPECT_NE(base, verdict_cache_key("t", "c", new_torch, options));
  json strict = options;
  strict["strict"] = true;
  EXPECT_NE(base, verdict_cache_key("t", "c", h200, strict));
  json with_reference = options;
  with_reference["reference"] = {{"eager", 1.0}};
  EXPECT_EQ(base, verdict_cache_key("t", "c", h200, with_reference));
}

}  // namespace
}  // namespace drtriton
