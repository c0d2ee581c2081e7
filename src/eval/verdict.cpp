#include "eval/verdict.h"

using json = nlohmann::json;

namespace drtriton {

namespace {

bool get_bool(const json& options, const char* key, const std::string& where) {
  if (!options.contains(key)) return false;
  if (!options[key].is_boolean())
    throw RequestError(where + "options." + key + ": expected a bool");
  return options[key].get<bool>();
}

}  // namespace

VerifyRequest parse_verify_request(const json& j, const std::string& default_device,
                                   const std::string& where) {
  std::string at = where.empty() ? "" : where + ": ";
  if (!j.is_object()) throw RequestError(at + "expected a JSON object");
  VerifyRequest r;
  for (const char* field : {"task", "candidate"}) {
    if (!j.contains(field)) throw RequestError(at + "missing field '" + field + "'");
    if (!j[field].is_string()) throw RequestError(at + "'" + field + "' must be a string");
  }
  r.task = j["task"].get<std::string>();
  r.candidate = j["candidate"].get<std::string>();
  for (const auto& [key, value] : j.items()) {
    if (key != "task" && key != "candidate" && key != "options") {
      throw RequestError(at + "unknown field '" + key + "'");
    }
  }
  json options = j.value("options", json::object());
  if (options.is_null()) options = json::object();
  if (!options.is_object()) throw RequestError(at + "'options' must be an object");
  // Unknown options are refused rather than ignored: a misspelt "evalmode" would otherwise
  // judge the candidate under other rules than the client meant.
  for (const auto& [key, value] : options.items()) {
    if (key != "strict" && key != "eval_mode" && key != "device" && key != "seed" &&
        key != "compile") {
      throw RequestError(at + "unknown option '" + key +
                         "' (options: strict, eval_mode, device, seed, compile)");
    }
  }
  r.options.strict = get_bool(options, "strict", at);
  r.options.eval_mode = get_bool(options, "eval_mode", at);
  if (options.contains("compile")) r.options.compile = get_bool(options, "compile", at);
  if (options.contains("seed")) {
    if (!options["seed"].is_number_integer())
      throw RequestError(at + "options.seed: expected an integer");
    r.options.seed = options["seed"].get<int64_t>();
  }
  r.options.device = default_device;
  if (options.contains("device")) {
    if (!options["device"].is_string())
      throw RequestError(at + "options.device: expected a string");
    r.options.device = options["device"].get<std::string>();
    if (r.options.device != "cpu" && r.options.device != "cuda") {
      throw RequestError(at + "options.device: expected \"cpu\" or \"cuda\", got \"" +
                         r.options.device + "\"");
    }
  }
  return r;
}

json options_to_json(const VerifyOptions& options) {
  json j = {
      {"strict", options.strict}, {"eval_mode", options.eval_mode}, {"device", options.device}};
  if (options.seed) j["seed"] = *options.seed;
  if (options.compile) j["compile"] = *options.compile;
  return j;
}

const std::vector<std::string>& verdict_stages() {
  static const std::vector<std::string> stages = {"static",   "load",    "compile",
                                                  "faithful", "correct", "timed"};
  return stages;
}

std::string stage_before(const std::string& stage) {
  const auto& stages = verdict_stages();
  for (size_t i = 1; i < stages.size(); ++i) {
    if (stages[i] == stage) return stages[i - 1];
  }
  return "none";
}

json make_failure_verdict(const std::string& running, const std::string& reason,
                          const std::string& flag) {
  return {{"passed", false},
          {"stage", stage_before(running)},
          {"failed_stage", running.empty() ? json(nullptr) : json(running)},
          {"reason", reason},
          {"checks", json::object()},
          {"err", json::array()},
          {"timing_ms", nullptr},
          {"speedup_eager", nullptr},
          {"speedup_compile", nullptr},
          {"own_kernel_share", nullptr},
          {"flags", json::array({flag})},
          {"reward", {{"correct", 0}, {"speed", nullptr}}},
          {"device", nullptr},
          {"versions", nullptr},
          {"reference_timing", nullptr}};
}

}  // namespace drtriton
