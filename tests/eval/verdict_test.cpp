// Requests are parsed strictly (a mistake is a 400 naming the field), and the stage a crash
// interrupted is the one after the last stage reported.
#include "eval/verdict.h"

#include <gtest/gtest.h>

namespace drtriton {
namespace {

using json = nlohmann::json;

std::string parse_error(const json& j) {
  try {
    parse_verify_request(j, "cpu", "items[2]");
  } catch (const RequestError& e) {
    return e.what();
  }
  return "no error";
}

TEST(VerifyRequest, DefaultsAndOptions) {
  VerifyRequest r = parse_verify_request({{"task", "T"}, {"candidate", "C"}}, "cuda");
  EXPECT_EQ(r.task, "T");
  EXPECT_EQ(r.candidate, "C");
  EXPECT_FALSE(r.options.strict);
  EXPECT_FALSE(r.options.eval_mode);
  EXPECT_EQ(r.options.device, "cuda");
  r = parse_verify_request(
      {{"task", "T"},
       {"candidate", "C"},
       {"options", {{"strict", true}, {"eval_mode", true}, {"device", "cpu"}}}},
      "cuda");
  EXPECT_TRUE(r.options.strict);
  EXPECT_TRUE(r.options.eval_mode);
  EXPECT_EQ(options_to_json(r.options).dump(),
            R"({"device":"cpu","eval_mode":true,"strict":true})");
}

TEST(VerifyRequest, ErrorsNameTheItemAndField) {
  EXPECT_EQ(parse_error(json::array()), "items[2]: expected a JSON object");
  EXPECT_EQ(parse_error({{"task", "T"}}), "items[2]: missing field 'candidate'");
  EXPECT_EQ(parse_error({{"task", 1}, {"candidate", "C"}}), "items[2]: 'task' must be a string");
  EXPECT_EQ(parse_error({{"task", "T"}, {"candidate", "C"}, {"extra", 1}}),
            "items[2]: unknown field 'extra'");
  EXPECT_EQ(parse_error({{"task", "T"}, {"candidate", "C"}, {"options", {{"evalmode", true}}}}),
            "items[2]: unknown option 'evalmode' (options: strict, eval_mode, device, seed, "
            "compile)");
  EXPECT_EQ(parse_error({{"task", "T"}, {"candidate", "C"}, {"options", {{"strict", 1}}}}),
            "items[2]: options.strict: expected a bool");
  EXPECT_EQ(parse_error({{"task", "T"}, {"candidate", "C"}, {"options", {{"device", "tpu"}}}}),
            "items[2]: options.device: expected \"cpu\" or \"cuda\", got \"tpu\"");
}

TEST(VerifyRequest, SeedAndCompileAreKeptOnlyWhenGiven) {
  VerifyRequest r = parse_verify_request(
      {{"task", "T"}, {"candidate", "C"}, {"options", {{"seed", 7}, {"compile", false}}}}, "cpu");
  EXPECT_EQ(options_to_json(r.options).dump(),
            R"({"compile":false,"device":"cpu","eval_mode":false,"seed":7,"strict":false})");
  EXPECT_EQ(parse_error({{"task", "T"}, {"candidate", "C"}, {"options", {{"seed", 1.5}}}}),
            "items[2]: options.seed: expected an integer");
}

TEST(Verdict, StageBeforeAndFailureVerdict) {
  EXPECT_EQ(stage_before("static"), "none");
  EXPECT_EQ(stage_before("compile"), "load");
  EXPECT_EQ(stage_before("timed"), "correct");
  json v = make_failure_verdict("compile", "worker crashed (signal 11) during compile",
                                "worker_crashed");
  EXPECT_EQ(v["passed"], false);
  EXPECT_EQ(v["stage"], "load");
  EXPECT_EQ(v["failed_stage"], "compile");
  EXPECT_EQ(v["flags"], json::array({"worker_crashed"}));
  EXPECT_EQ(v["reward"]["correct"], 0);
  EXPECT_TRUE(v["reward"]["speed"].is_null());
  json queued = make_failure_verdict("", "the verifier service is stopping", "service_stopping");
  EXPECT_EQ(queued["stage"], "none");
  EXPECT_TRUE(queued["failed_stage"].is_null());
}

}  // namespace
}  // namespace drtriton
