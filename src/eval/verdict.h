// The verifier's request and verdict as the C++ side sees them. The Python worker writes the
// verdict (docs/verifier.md); this side parses requests, writes the verdicts a worker
// could not write (a crash, a timeout), and adds task_hash, candidate_hash and cached.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace drtriton {

// A request a client got wrong (bad JSON, a missing or mistyped field): HTTP 400.
struct RequestError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// Requests and verdicts nest a few levels. Deeper JSON is refused before anything recursive
// touches it (nlohmann's copy, comparison and dump recurse): 100k levels overflow the stack.
constexpr int kMaxJsonDepth = 64;
// The deepest nesting of [ and { in JSON text, counted in one pass without recursion; brackets
// inside strings do not count. Text that is not JSON gets some number; the parser rejects it.
int json_depth(std::string_view text);
// JSON text that came from outside (an HTTP body). Throws RequestError when it is not JSON or
// nests deeper than kMaxJsonDepth.
nlohmann::json parse_request_json(std::string_view text);

// The byte offset of the first byte that is not part of well-formed UTF-8, or npos.
size_t find_invalid_utf8(std::string_view s);
// `s` with each ill-formed UTF-8 sequence replaced by U+FFFD.
std::string valid_utf8(std::string_view s);
// JSON text of data that came from outside (a worker's log, a client's string): bytes that are
// not UTF-8 become U+FFFD, where a plain dump() would throw and fail the whole answer.
std::string dump_json(const nlohmann::json& j, int indent = -1);

// Seeds go to Python and torch (torch.manual_seed, numpy): a sane range keeps them valid there.
constexpr int64_t kMaxSeed = 2147483647;

// The options of docs/verifier.md, mirroring the `verify` flags, plus two the worker reads
// (python/drtriton/verifier/judge.py): a fixed seed for the input sets, and whether to time
// torch.compile at all. Both change the verdict, so both are part of the cache key when set.
struct VerifyOptions {
  bool strict = false;
  bool eval_mode = false;
  std::string device = "cpu";  // "cpu" or "cuda": the kind, not the index
  std::optional<int64_t> seed;
  std::optional<bool> compile;
};

struct VerifyRequest {
  std::string task;       // KernelBench-format source with Model, get_inputs, ...
  std::string candidate;  // source with ModelNew
  VerifyOptions options;
};

// {"task": str, "candidate": str, "options": {...}}; options may be left out, and a missing
// options.device means `default_device`; options.seed is in 0..kMaxSeed. Throws RequestError
// naming the field (`where` is prefixed, e.g. "items[3]").
VerifyRequest parse_verify_request(const nlohmann::json& j, const std::string& default_device,
                                   const std::string& where = "");

// The canonical form of the options: strict, eval_mode and device always, seed and compile
// when set; keys sorted. It is what the worker receives (plus the reference timing) and what
// the cache key hashes.
nlohmann::json options_to_json(const VerifyOptions& options);

// The stages in pipeline order. A worker reports each stage as it enters it ("progress"); a
// verdict's `stage` is the last stage passed ("none" before the first), `failed_stage` the one
// that failed.
const std::vector<std::string>& verdict_stages();
// The stage before `stage` in pipeline order: "none" for "static".
std::string stage_before(const std::string& stage);

// A rejection written by the C++ side when the worker could not write one (`flag`:
// worker_crashed, timeout, ...); `running` is the stage the worker had entered last ("" for a
// request that never reached a worker).
// A verdict's text field (failed_stage, stage, reason), or `otherwise` where it is missing
// or null (a failure before the first stage has no failed_stage).
std::string verdict_text(const nlohmann::json& verdict, const char* key,
                         const std::string& otherwise);

nlohmann::json make_failure_verdict(const std::string& running, const std::string& reason,
                                    const std::string& flag);

}  // namespace drtriton
