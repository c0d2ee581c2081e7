// The verifier as the CLI and the HTTP service use it: requests in, verdicts out, in order.
// A request whose verdict is in the cache is answered from it (cached: true); the others run
// on the worker pool, concurrently, and each verdict is written to the cache the moment its
// worker gives it.
#pragma once

#include <atomic>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "eval/verdict.h"
#include "eval/verdict_cache.h"
#include "eval/worker_pool.h"

namespace drtriton {

// The verdicts of `requests` when the cache holds every one of them for workers of this
// identity (each marked cached), else nothing. A batch answered so needs no worker started.
std::optional<std::vector<nlohmann::json>> cached_verdicts(
    const std::vector<VerifyRequest>& requests, const WorkerIdentity& identity,
    VerdictCache& cache);

class Verifier {
 public:
  // `cache` may be null: no caching.
  Verifier(WorkerPool& pool, VerdictCache* cache);

  // The device kind the pool's workers run on ("cpu" or "cuda"): the default for requests.
  std::string device_kind() const;
  // Throws RequestError when this verifier cannot serve the request (another device kind, a
  // source that is not UTF-8).
  void check_request(const VerifyRequest& request) const;

  nlohmann::json verify(const VerifyRequest& request);
  std::vector<nlohmann::json> verify_batch(const std::vector<VerifyRequest>& requests);

  uint64_t verdicts_served() const { return verdicts_served_; }
  uint64_t cache_hits() const { return cache_hits_; }

 private:
  WorkerPool& pool_;
  VerdictCache* cache_;
  std::atomic<uint64_t> verdicts_served_{0};
  std::atomic<uint64_t> cache_hits_{0};
};

}  // namespace drtriton
