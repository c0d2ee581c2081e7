#include "eval/verdict.h"

#include <algorithm>

using json = nlohmann::json;

namespace drtriton {

namespace {

// The length of the well-formed UTF-8 sequence that starts at s[i] (Unicode's table 3-7), or 0
// when there is none.
size_t utf8_sequence_length(std::string_view s, size_t i) {
  auto byte = [&](size_t k) { return k < s.size() ? static_cast<unsigned char>(s[k]) : 0u; };
  auto in = [](unsigned b, unsigned lo, unsigned hi) { return b >= lo && b <= hi; };
  unsigned b0 = byte(i);
  if (b0 < 0x80) return 1;
  size_t n = 0;
  if (in(b0, 0xC2, 0xDF)) {
    n = 2;
  } else if (in(b0, 0xE0, 0xEF)) {
    n = 3;
  } else if (in(b0, 0xF0, 0xF4)) {
    n = 4;
  } else {
    return 0;
  }
  // The second byte's range depends on the first: this excludes overlong forms (E0, F0),
  // surrogates (ED) and code points above U+10FFFF (F4).
  unsigned lo = b0 == 0xE0 ? 0xA0 : b0 == 0xF0 ? 0x90 : 0x80;
  unsigned hi = b0 == 0xED ? 0x9F : b0 == 0xF4 ? 0x8F : 0xBF;
  if (!in(byte(i + 1), lo, hi)) return 0;
  for (size_t k = 2; k < n; ++k) {
    if (!in(byte(i + k), 0x80, 0xBF)) return 0;
  }
  return n;
}

bool get_bool(const json& options, const char* key, const std::string& where) {
  if (!options.contains(key)) return false;
  if (!options[key].is_boolean())
    throw RequestError(where + "options." + key + ": expected a bool");
  return options[key].get<bool>();
}

}  // namespace

int json_depth(std::string_view text) {
  int depth = 0, deepest = 0;
  bool in_string = false;
  for (size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (in_string) {
      if (c == '\\')
        ++i;  // an escaped character, perhaps a quote
      else if (c == '"')
        in_string = false;
    } else if (c == '"') {
      in_string = true;
    } else if (c == '[' || c == '{') {
      deepest = std::max(deepest, ++depth);
    } else if (c == ']' || c == '}') {
      --depth;
    }
  }
  return deepest;
}

json parse_request_json(std::string_view text) {
  if (json_depth(text) > kMaxJsonDepth) {
    throw RequestError("the request body nests deeper than " + std::to_string(kMaxJsonDepth) +
                       " levels");
  }
  json j = json::parse(text, nullptr, false);
  if (j.is_discarded()) throw RequestError("the request body is not valid JSON");
  return j;
}

size_t find_invalid_utf8(std::string_view s) {
  for (size_t i = 0; i < s.size();) {
    size_t n = utf8_sequence_length(s, i);
    if (n == 0) return i;
    i += n;
  }
  return std::string::npos;
}

std::string valid_utf8(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (size_t i = 0; i < s.size();) {
    size_t n = utf8_sequence_length(s, i);
    if (n == 0) {
      out += "\xEF\xBF\xBD";  // U+FFFD for each byte that starts no valid sequence
      ++i;
    } else {
      out.append(s.substr(i, n));
      i += n;
    }
  }
  return out;
}

std::string dump_json(const json& j, int indent) {
  return j.dump(indent, ' ', false, json::error_handler_t::replace);
}

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
    const json& seed = options["seed"];
    bool in_range = seed.is_number_unsigned()
                        ? seed.get<uint64_t>() <= static_cast<uint64_t>(kMaxSeed)
                        : seed.is_number_integer() && seed.get<int64_t>() >= 0 &&
                              seed.get<int64_t>() <= kMaxSeed;
    if (!in_range) {
      throw RequestError(at + "options.seed: expected an integer in 0.." +
                         std::to_string(kMaxSeed));
    }
    r.options.seed = seed.get<int64_t>();
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

std::string verdict_text(const json& verdict, const char* key, const std::string& otherwise) {
  auto it = verdict.find(key);
  if (it == verdict.end() || it->is_null()) return otherwise;
  return it->is_string() ? it->get<std::string>() : it->dump();
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
          {"kernelbench_native", nullptr},
          {"random", nullptr},
          {"flags", json::array({flag})},
          {"reward", {{"correct", 0}, {"speed", nullptr}}},
          {"device", nullptr},
          {"versions", nullptr},
          {"reference_timing", nullptr}};
}

}  // namespace drtriton
