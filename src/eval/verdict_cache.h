// Verdicts on disk: a SQLite file (WAL mode) that a killed service leaves intact, because each
// verdict is committed the moment it is produced. Two tables:
//   verdicts(key TEXT PRIMARY KEY, verdict TEXT, created REAL)
//   reference_timings(task_hash, device, context, json): the eager and torch.compile timings a
//     worker measured for a task, handed back to workers as options.reference so a task's
//     reference is timed once per device and software stack, not once per candidate.
#pragma once

#include <mutex>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

struct sqlite3;

namespace drtriton {

struct WorkerIdentity;

class VerdictCache {
 public:
  // Opens or creates the file. Throws std::runtime_error naming the file on failure.
  explicit VerdictCache(const std::string& path);
  ~VerdictCache();
  VerdictCache(const VerdictCache&) = delete;
  VerdictCache& operator=(const VerdictCache&) = delete;

  std::optional<nlohmann::json> get(const std::string& key);
  void put(const std::string& key, const nlohmann::json& verdict);
  std::optional<nlohmann::json> reference_timing(const std::string& task_hash,
                                                 const std::string& device,
                                                 const std::string& context);
  void put_reference_timing(const std::string& task_hash, const std::string& device,
                            const std::string& context, const nlohmann::json& timing);
  size_t size();
  const std::string& path() const { return path_; }

 private:
  void exec(const char* sql);

  std::string path_;
  sqlite3* db_ = nullptr;
  std::mutex mutex_;  // one connection, shared by the service's threads
};

// The key of a verdict: sha256 of task_hash|candidate_hash|device name|versions|options, with
// versions and options as canonical JSON (sorted keys). A new GPU model, a new torch or
// Triton, or other options give a new key; options.reference is not part of it.
std::string verdict_cache_key(const std::string& task_hash, const std::string& candidate_hash,
                              const WorkerIdentity& worker, const nlohmann::json& options);

// What a reference timing depends on besides task and device: the software versions and
// whether modules run in eval mode (BatchNorm and Dropout time differently).
std::string reference_context(const WorkerIdentity& worker, const nlohmann::json& options);

}  // namespace drtriton
