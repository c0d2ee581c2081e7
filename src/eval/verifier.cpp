#include "eval/verifier.h"

#include <future>
#include <iostream>
#include <memory>

#include "eval/sha256.h"

using json = nlohmann::json;

namespace drtriton {

namespace {

// Verdicts that say something about the service rather than the candidate are not kept: the
// same request would be judged properly once the service runs again. Crashes and timeouts are
// kept, because a candidate that hangs will hang again, and judging it again costs a timeout.
bool cacheable(const json& verdict) {
  for (const json& flag : verdict.value("flags", json::array())) {
    if (flag == "worker_failed" || flag == "service_stopping") return false;
  }
  return true;
}

// The sources go to the worker as JSON, and nlohmann refuses to write bytes that are not UTF-8.
void check_utf8(const char* field, const std::string& source) {
  size_t at = find_invalid_utf8(source);
  if (at != std::string::npos) {
    throw RequestError(std::string(field) + ": not UTF-8 text (byte offset " + std::to_string(at) +
                       ")");
  }
}

}  // namespace

std::optional<std::vector<json>> cached_verdicts(const std::vector<VerifyRequest>& requests,
                                                 const WorkerIdentity& identity,
                                                 VerdictCache& cache) {
  std::vector<json> verdicts;
  for (const VerifyRequest& r : requests) {
    std::optional<json> hit = cache.get(verdict_cache_key(
        sha256_hex(r.task), sha256_hex(r.candidate), identity, options_to_json(r.options)));
    if (!hit) return std::nullopt;
    (*hit)["cached"] = true;
    verdicts.push_back(std::move(*hit));
  }
  return verdicts;
}

Verifier::Verifier(WorkerPool& pool, VerdictCache* cache) : pool_(pool), cache_(cache) {}

std::string Verifier::device_kind() const {
  const std::string& first = pool_.config().devices.front();
  return first.rfind("cuda", 0) == 0 ? "cuda" : "cpu";
}

void Verifier::check_request(const VerifyRequest& request) const {
  check_utf8("task", request.task);
  check_utf8("candidate", request.candidate);
  if (request.options.device != device_kind()) {
    throw RequestError("options.device is \"" + request.options.device +
                       "\" but this verifier runs " + device_kind() + " workers");
  }
}

json Verifier::verify(const VerifyRequest& request) {
  return verify_batch({request}).front();
}

std::vector<json> Verifier::verify_batch(const std::vector<VerifyRequest>& requests) {
  WorkerIdentity identity = pool_.identity();
  std::vector<json> verdicts(requests.size());
  std::vector<std::pair<size_t, std::future<json>>> pending;
  std::vector<PoolJob> jobs;
  for (const VerifyRequest& r : requests) check_request(r);  // all or nothing
  for (size_t i = 0; i < requests.size(); ++i) {
    const VerifyRequest& r = requests[i];
    std::string task_hash = sha256_hex(r.task), candidate_hash = sha256_hex(r.candidate);
    json options = options_to_json(r.options);
    std::string key = verdict_cache_key(task_hash, candidate_hash, identity, options);
    if (cache_) {
      if (std::optional<json> hit = cache_->get(key)) {
        verdicts[i] = std::move(*hit);
        verdicts[i]["cached"] = true;
        ++cache_hits_;
        ++verdicts_served_;
        continue;
      }
    }
    auto promise = std::make_shared<std::promise<json>>();
    pending.emplace_back(i, promise->get_future());
    std::string context = reference_context(identity, options);
    PoolJob job;
    job.task = r.task;
    job.candidate = r.candidate;
    job.options = options;
    job.affinity = task_hash;
    job.before_send = [this, task_hash, identity, context](json& o) {
      std::optional<json> timing;
      if (cache_) timing = cache_->reference_timing(task_hash, identity.device, context);
      o["reference"] = timing ? *timing : json(nullptr);
    };
    job.done = [this, promise, task_hash, candidate_hash, key, identity, context](json v) {
      v["task_hash"] = task_hash;
      v["candidate_hash"] = candidate_hash;
      v["cached"] = false;
      if (cache_ && cacheable(v)) {
        // A full disk must not lose the answer: the verdict still goes back to the client.
        try {
          if (v.contains("reference_timing") && v["reference_timing"].is_object()) {
            cache_->put_reference_timing(task_hash, identity.device, context,
                                         v["reference_timing"]);
          }
          cache_->put(key, v);
        } catch (const std::exception& e) {
          std::cerr << "drtriton: " << e.what() << "\n";
        }
      }
      ++verdicts_served_;
      promise->set_value(std::move(v));
    };
    jobs.push_back(std::move(job));
  }
  pool_.submit_all(std::move(jobs));
  for (auto& [index, future] : pending) verdicts[index] = future.get();
  return verdicts;
}

}  // namespace drtriton
