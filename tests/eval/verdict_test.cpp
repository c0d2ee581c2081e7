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
  const char* seed_error = "items[2]: options.seed: expected an integer in 0..2147483647";
  for (json seed : {json(1.5), json(-1), json(kMaxSeed + 1), json(INT64_MAX), json(INT64_MIN),
                    json(UINT64_MAX), json("7")}) {
    EXPECT_EQ(parse_error({{"task", "T"}, {"candidate", "C"}, {"options", {{"seed", seed}}}}),
              seed_error)
        << seed;
  }
  r = parse_verify_request({{"task", "T"}, {"candidate", "C"}, {"options", {{"seed", kMaxSeed}}}},
                           "cpu");
  EXPECT_EQ(r.options.seed, kMaxSeed);
}

// 100k levels of nesting overflowed the stack in nlohmann's recursive copy: the depth is
// counted on the text, without recursion, and a deep body is refused before it is parsed.
TEST(RequestJson, DepthIsBoundedBeforeParsing) {
  EXPECT_EQ(json_depth(R"({"a": [1, {"b": []}], "c": "[[[{{{"})"), 4);
  EXPECT_EQ(json_depth(R"(["\"[[["])"), 1);  // an escaped quote does not end the string
  EXPECT_EQ(json_depth("3"), 0);
  std::string deep = std::string(100000, '[') + std::string(100000, ']');
  EXPECT_EQ(json_depth(deep), 100000);
  std::string body = R"({"task": "T", "candidate": "C", "options": )" + deep + "}";
  try {
    parse_request_json(body);
    ADD_FAILURE() << "a body nested 100k deep was accepted";
  } catch (const RequestError& e) {
    EXPECT_EQ(std::string(e.what()), "the request body nests deeper than 64 levels");
  }
  std::string at_limit = std::string(kMaxJsonDepth, '[') + std::string(kMaxJsonDepth, ']');
  EXPECT_TRUE(parse_request_json(at_limit).is_array());
  EXPECT_THROW(parse_request_json("{not json"), RequestError);
}

TEST(Utf8, InvalidBytesAreFoundAndReplaced) {
  EXPECT_EQ(find_invalid_utf8("plain ascii"), std::string::npos);
  EXPECT_EQ(find_invalid_utf8("\xC3\xA9t\xC3\xA9 \xE2\x82\xAC \xF0\x9F\x98\x80"),
            std::string::npos);
  EXPECT_EQ(find_invalid_utf8("ab\xFF"
                              "cd"),
            2u);
  EXPECT_EQ(find_invalid_utf8("\xC0\xAF"), 0u);          // overlong '/'
  EXPECT_EQ(find_invalid_utf8("x\xED\xA0\x80"), 1u);     // a UTF-16 surrogate
  EXPECT_EQ(find_invalid_utf8("\xF4\x90\x80\x80"), 0u);  // above U+10FFFF
  EXPECT_EQ(find_invalid_utf8("ok\xE2\x82"), 2u);        // cut short at the end
  EXPECT_EQ(valid_utf8("a\xFF\xC3(b\xC3\xA9"), "a\xEF\xBF\xBD\xEF\xBF\xBD(b\xC3\xA9");
  EXPECT_EQ(valid_utf8("fine"), "fine");
}

// A worker's log may hold any bytes; nlohmann's dump() throws on them, which turned a crash
// verdict into HTTP 500. dump_json writes U+FFFD instead.
TEST(Utf8, DumpJsonNeverThrowsOnBadBytes) {
  json verdict = make_failure_verdict("load", "worker crashed", "worker_crashed");
  verdict["worker_log"] = std::string("log \xFF\xFE end");
  EXPECT_THROW(verdict.dump(), json::type_error);
  std::string text = dump_json(verdict);
  EXPECT_EQ(find_invalid_utf8(text), std::string::npos);
  EXPECT_EQ(json::parse(text)["worker_log"], "log \xEF\xBF\xBD\xEF\xBF\xBD end");
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

// A failure before the first stage has a null failed_stage: readers of a verdict's text
// fields get their fallback, not a json type error (which once ended a `pairs` run).
TEST(Verdict, TextFieldsFallBackOnNull) {
  json queued = make_failure_verdict("", "the verifier service is stopping", "service_stopping");
  EXPECT_EQ(verdict_text(queued, "failed_stage", "?"), "?");
  EXPECT_EQ(verdict_text(queued, "stage", "?"), "none");
  EXPECT_EQ(verdict_text(queued, "reason", "?"), "the verifier service is stopping");
  EXPECT_EQ(verdict_text(queued, "no_such_field", "-"), "-");
  EXPECT_EQ(verdict_text(json{{"reason", 3}}, "reason", "?"), "3");
}

}  // namespace
}  // namespace drtriton
