// N verifier workers behind one queue. Each worker has its own thread (a "slot") that takes
// the next job, runs it on its worker under a compile timeout and a run timeout, and, when the
// worker crashes or times out, kills it, answers with a verdict written here, and starts a
// replacement. Every job submitted gets exactly one verdict through its `done` callback.
//
// The worker runs untrusted code, so the pool believes only lines that carry the MAC of the
// request's own random key (src/eval/README.md, "The worker protocol"); any other line while
// a request runs, or any output between requests, ends that worker and is reported as
// `protocol_forgery`.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "eval/sandbox.h"
#include "eval/worker_process.h"

namespace drtriton {

struct PoolConfig {
  std::vector<std::string> command;        // the worker's argv before --device/--scratch
  std::map<std::string, std::string> env;  // extra environment (PYTHONPATH)
  std::vector<std::string> devices;        // one entry per worker: "cpu", "cuda:0", ...
  std::string scratch_root;                // worker i works in scratch_root/worker-i
  double ready_timeout_s = 300;    // start until the ready line (importing torch, CUDA init)
  double compile_timeout_s = 120;  // request sent until the "faithful" progress
  double run_timeout_s = 300;      // request sent until the verdict
  // kAuto: sandbox the workers when this machine allows it, else a warning on stderr and
  // every verdict flagged "unsandboxed"; kOn: refuse to start without it.
  SandboxMode sandbox = SandboxMode::kAuto;
  // true: the pool's constructor returns once every worker is up (or failed); false: once one
  // is ready, the others joining as they come up. A caller that may find every verdict in
  // its cache needs only one worker's identity, not eight workers' start.
  bool wait_for_every_start = true;
};

// What a worker said about itself in its ready line; part of every cache key.
struct WorkerIdentity {
  std::string device;  // the device's name, e.g. "NVIDIA H200" or "cpu"
  nlohmann::json versions = nlohmann::json::object();
};

// What a worker of `config` (on its first device) would say about itself, asked of one
// short-lived process (the worker command with --identity: its imports and device checks,
// no sandbox, nothing judged). Nothing when that process cannot tell (a command without
// --identity, a GPU that is not there): the pool's own workers will.
std::optional<WorkerIdentity> probe_identity(const PoolConfig& config);

struct PoolJob {
  std::string task, candidate;
  nlohmann::json options;  // canonical options (verdict.h)
  // Jobs with the same affinity (one task's candidates) go preferably to a worker that ran
  // one lately: a worker keeps the work that depends only on the task (task_cache.py).
  std::string affinity;
  int passed_over = 0;  // the pool's: how often a later job was taken before this one
  // Called on the worker's thread just before sending, to fill options.reference with what
  // is known by then (a queued job profits from the reference timing of an earlier one).
  std::function<void(nlohmann::json& options)> before_send;
  // Called exactly once, on a pool thread, with the verdict.
  std::function<void(nlohmann::json verdict)> done;
};

struct PoolStats {
  size_t workers = 0, busy = 0, queue_length = 0;
  uint64_t worker_restarts = 0;
};

class WorkerPool {
 public:
  // Starts every worker and waits until each is ready or failed (or, unless
  // config.wait_for_every_start, until one is ready). Throws std::runtime_error (with the end
  // of the worker's log) when not one worker came up.
  explicit WorkerPool(PoolConfig config);
  // Stops: queued and running jobs are answered with a "service_stopping" verdict.
  ~WorkerPool();
  WorkerPool(const WorkerPool&) = delete;
  WorkerPool& operator=(const WorkerPool&) = delete;

  void submit(PoolJob job);
  // Queued together, so that free workers choose among the whole batch (by affinity).
  void submit_all(std::vector<PoolJob> jobs);
  void stop();
  WorkerIdentity identity() const;  // of the first worker that came up
  PoolStats stats() const;
  // "on", "off" (asked for), or "unavailable: <why>" (auto on a machine that does not allow
  // it); for the service's /health and /stats.
  const std::string& sandbox_state() const { return sandbox_state_; }
  bool sandboxed() const { return sandbox_state_ == "on"; }
  const PoolConfig& config() const { return config_; }

 private:
  struct Slot {
    std::unique_ptr<WorkerProcess> worker;
    WorkerIdentity identity;
    bool ready = false;
    std::string start_error;         // why the last start failed
    std::deque<std::string> recent;  // affinities of its worker's last jobs, newest first
  };

  void run_slot(size_t index);
  PoolJob take_job(Slot& slot);  // with mutex_ held
  bool start_worker(Slot& slot);
  bool restart_worker(Slot& slot);  // start_worker, counted in worker_restarts
  nlohmann::json run_job(Slot& slot, PoolJob& job);
  nlohmann::json run_once(Slot& slot, PoolJob& job, bool& retry);
  nlohmann::json failure(const Slot& slot, const std::string& stage, const std::string& reason,
                         const std::string& flag);
  nlohmann::json stopping_verdict(const std::string& stage) const;

  PoolConfig config_;
  std::vector<std::unique_ptr<Slot>> slots_;
  std::vector<std::thread> threads_;

  mutable std::mutex mutex_;
  std::condition_variable wake_;     // a job arrived, or stop
  std::condition_variable started_;  // a slot finished its first start
  std::deque<PoolJob> queue_;
  size_t first_starts_done_ = 0;
  size_t busy_ = 0;
  bool stopping_ = false;
  WorkerIdentity identity_;
  bool have_identity_ = false;

  std::string sandbox_state_;
  std::atomic<uint64_t> restarts_{0};
  std::atomic<bool> stop_flag_{false};  // read by slots inside a job, without the mutex
};

}  // namespace drtriton
