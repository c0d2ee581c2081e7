#include "eval/worker_pool.h"

#include <fcntl.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <stdexcept>
#include <thread>

#include "eval/pool_devices.h"
#include "eval/sha256.h"
#include "eval/verdict.h"

namespace fs = std::filesystem;
using json = nlohmann::json;

namespace drtriton {

namespace {

using Clock = std::chrono::steady_clock;

// Slots wait on their worker in slices this long, so a stop is noticed quickly.
constexpr double kPollSlice = 0.25;
// A worker that does not take a request line within this long is considered gone.
constexpr double kSendTimeout = 10;
// Affinities a slot remembers: as many tasks as a worker's task cache keeps (MAX_TASKS).
constexpr size_t kRecentTasks = 64;
// A job passed over this often is taken next, whatever its affinity: none waits for long.
constexpr int kMaxPassOver = 8;

double seconds_until(Clock::time_point t) {
  return std::chrono::duration<double>(t - Clock::now()).count();
}

Clock::time_point after(double seconds) {
  return Clock::now() + std::chrono::microseconds(static_cast<int64_t>(seconds * 1e6));
}

std::string format_seconds(double s) {
  char buf[32];
  std::snprintf(buf, sizeof buf, s == std::floor(s) ? "%.0f" : "%.1f", s);
  return buf;
}

int stage_index(const std::string& stage) {
  const auto& stages = verdict_stages();
  for (size_t i = 0; i < stages.size(); ++i) {
    if (stages[i] == stage) return static_cast<int>(i);
  }
  return -1;
}

// Random bytes from the kernel, as hex; for request ids and keys nobody can guess.
std::string random_hex(size_t bytes) {
  std::string raw(bytes, '\0');
  size_t got = 0;
  while (got < bytes) {
    ssize_t n = ::getrandom(raw.data() + got, bytes - got, 0);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) throw std::runtime_error("getrandom failed");
    got += static_cast<size_t>(n);
  }
  return to_hex(raw);
}

// A request id: random, so a forged line cannot guess which request it would answer; below
// 2^53 so every JSON reader keeps it exact.
uint64_t random_id() {
  return std::stoull(random_hex(8), nullptr, 16) & ((uint64_t(1) << 53) - 1);
}

// A protocol line is "<HMAC-SHA256(key, json) in hex> <json>". The JSON object, when the MAC
// is right and it answers request `id`; null otherwise.
json authentic_line(const std::string& line, const std::string& key, uint64_t id) {
  if (line.size() < 66 || line[64] != ' ') return nullptr;
  std::string_view text = std::string_view(line).substr(65);
  if (!equal_in_constant_time(line.substr(0, 64), hmac_sha256_hex(key, text))) return nullptr;
  json j = json::parse(text, nullptr, false);
  if (!j.is_object() || !j.contains("id") || j["id"] != id) return nullptr;
  return j;
}

// The identity in a worker's ready line.
WorkerIdentity identity_of(const json& ready, const std::string& device) {
  return {ready.value("device", device), ready.value("versions", json::object())};
}

// The GPU's memory as the workers share it: this many equal parts, each a lock file.
constexpr int kGpuMemoryParts = 16;

// The lock files of one GPU, shared by every worker on it: PATH for timed runs (and
// PATH.timing_turnstile under quiet timing), PATH.turnstile and PATH.memory.0 ..
// PATH.memory.<kGpuMemoryParts - 1> for its memory
// (python/drtriton/verifier/timing.py). Made here: a sandboxed worker cannot create files
// outside its scratch folder. Shared by every service on the machine, named by the physical
// GPU. Returns PATH.
std::string gpu_lock_file(const std::string& device) {
  std::string gpu = physical_gpu_name(device, std::getenv("CUDA_VISIBLE_DEVICES"));
  std::string path = (fs::temp_directory_path() / ("drtriton-gpu-" + gpu + ".lock")).string();
  std::vector<std::string> files = {path, path + ".timing_turnstile", path + ".turnstile"};
  for (int part = 0; part < kGpuMemoryParts; ++part)
    files.push_back(path + ".memory." + std::to_string(part));
  for (const std::string& file : files) {
    int fd = ::open(file.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0666);
    if (fd >= 0) {
      ::fchmod(fd, 0666);  // whoever made it first, every service's workers may lock it
      ::close(fd);
    }
  }
  return path;
}

}  // namespace

std::optional<WorkerIdentity> probe_identity(const PoolConfig& config) {
  if (config.devices.empty()) return std::nullopt;
  std::vector<std::string> command = config.command;
  command.push_back("--identity");
  fs::path scratch = fs::path(config.scratch_root) / "identity";
  std::optional<WorkerIdentity> identity;
  {
    WorkerProcess probe({command, config.env, config.devices.front(), scratch.string(), false});
    try {
      probe.start();
    } catch (const std::exception&) {
      return std::nullopt;
    }
    auto deadline = after(config.ready_timeout_s);
    std::string line;
    while (!identity && seconds_until(deadline) > 0 &&
           probe.read_line(line, seconds_until(deadline)) == ReadStatus::kLine) {
      json j = json::parse(line, nullptr, false);
      if (!j.is_object() || !j.contains("ready")) continue;  // a library's banner
      if (j["ready"] != true) break;
      identity = identity_of(j, config.devices.front());
    }
  }  // the probe is reaped here, before its folder goes
  std::error_code ec;
  fs::remove_all(scratch, ec);
  fs::remove(config.scratch_root, ec);  // when empty: no pool has started there
  return identity;
}

WorkerPool::WorkerPool(PoolConfig config) : config_(std::move(config)) {
  if (config_.devices.empty()) throw std::runtime_error("a worker pool needs at least one worker");
  // Each worker's CPU thread pools get their share of the cores: N workers with a thread per
  // core each oversubscribe the machine N times (on a 16-core H200 host, 8 workers of 16
  // OpenMP threads verified 237 candidates a minute, against 556 with 2 threads each).
  if (!std::getenv("OMP_NUM_THREADS") && !config_.env.count("OMP_NUM_THREADS")) {
    unsigned cores = std::max(1u, std::thread::hardware_concurrency());
    size_t share = std::max<size_t>(1, cores / config_.devices.size());
    config_.env["OMP_NUM_THREADS"] = std::to_string(share);
  }
  sandbox_state_ = "off";
  if (config_.sandbox != SandboxMode::kOff) {
    std::string why = probe_sandbox((fs::path(config_.scratch_root) / "probe").string());
    if (why.empty()) {
      sandbox_state_ = "on";
    } else if (config_.sandbox == SandboxMode::kOn) {
      throw std::runtime_error("the worker sandbox is not available on this machine: " + why);
    } else {
      sandbox_state_ = "unavailable: " + why;
      std::fprintf(stderr,
                   "drtriton: WARNING: the worker sandbox is not available (%s): candidates run "
                   "UNSANDBOXED, with the service's file system and network; verdicts are "
                   "flagged 'unsandboxed'\n",
                   why.c_str());
    }
  }
  for (size_t i = 0; i < config_.devices.size(); ++i) {
    auto slot = std::make_unique<Slot>();
    WorkerSpec spec{config_.command, config_.env, config_.devices[i],
                    (fs::path(config_.scratch_root) / ("worker-" + std::to_string(i))).string(),
                    sandboxed()};
    if (config_.devices[i].rfind("cuda", 0) == 0) {
      spec.env["DRTRITON_GPU_LOCK"] = gpu_lock_file(config_.devices[i]);
      spec.env["DRTRITON_GPU_MEMORY_PARTS"] = std::to_string(kGpuMemoryParts);
    }
    slot->worker = std::make_unique<WorkerProcess>(std::move(spec));
    slots_.push_back(std::move(slot));
  }
  for (size_t i = 0; i < slots_.size(); ++i) threads_.emplace_back([this, i] { run_slot(i); });

  std::unique_lock lock(mutex_);
  started_.wait(lock, [&] {
    return first_starts_done_ == slots_.size() || (have_identity_ && !config_.wait_for_every_start);
  });
  if (!have_identity_) {
    std::string why = slots_[0]->start_error;
    lock.unlock();
    stop();
    throw std::runtime_error("no verifier worker started: " + why);
  }
}

WorkerPool::~WorkerPool() {
  stop();
}

void WorkerPool::stop() {
  std::deque<PoolJob> left;
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
    stop_flag_ = true;
    left.swap(queue_);
  }
  wake_.notify_all();
  for (PoolJob& job : left) job.done(stopping_verdict(""));
  for (std::thread& t : threads_) {
    if (t.joinable()) t.join();
  }
  for (auto& slot : slots_) slot->worker->kill();
  if (!config_.scratch_root.empty()) {
    std::error_code ignored;
    fs::remove_all(config_.scratch_root, ignored);
  }
}

void WorkerPool::submit(PoolJob job) {
  std::vector<PoolJob> one;
  one.push_back(std::move(job));
  submit_all(std::move(one));
}

void WorkerPool::submit_all(std::vector<PoolJob> jobs) {
  {
    std::lock_guard lock(mutex_);
    if (!stopping_) {
      for (PoolJob& job : jobs) queue_.push_back(std::move(job));
      wake_.notify_all();
      return;
    }
  }
  for (PoolJob& job : jobs) job.done(stopping_verdict(""));
}

// The first job whose task this slot's worker ran lately (its task cache has that task's
// work); else the first whose task no worker ran lately (so the tasks of a batch spread over
// the workers instead of every worker doing every task's work); else the oldest. The oldest
// is taken anyway once passed over kMaxPassOver times.
PoolJob WorkerPool::take_job(Slot& slot) {
  auto knows = [](const Slot& s, const PoolJob& job) {
    return std::find(s.recent.begin(), s.recent.end(), job.affinity) != s.recent.end();
  };
  auto pick = queue_.begin();
  if (pick->passed_over < kMaxPassOver) {
    auto mine = std::find_if(queue_.begin(), queue_.end(), [&](const PoolJob& job) {
      return !job.affinity.empty() && knows(slot, job);
    });
    if (mine == queue_.end()) {
      mine = std::find_if(queue_.begin(), queue_.end(), [&](const PoolJob& job) {
        return !job.affinity.empty() &&
               std::none_of(slots_.begin(), slots_.end(), [&](auto& s) { return knows(*s, job); });
      });
    }
    if (mine != queue_.end()) pick = mine;
  }
  for (auto it = queue_.begin(); it != pick; ++it) ++it->passed_over;
  PoolJob job = std::move(*pick);
  queue_.erase(pick);
  if (!job.affinity.empty()) {
    std::erase(slot.recent, job.affinity);
    slot.recent.push_front(job.affinity);
    if (slot.recent.size() > kRecentTasks) slot.recent.pop_back();
  }
  return job;
}

WorkerIdentity WorkerPool::identity() const {
  std::lock_guard lock(mutex_);
  return identity_;
}

PoolStats WorkerPool::stats() const {
  std::lock_guard lock(mutex_);
  return {slots_.size(), busy_, queue_.size(), restarts_.load()};
}

void WorkerPool::run_slot(size_t index) {
  Slot& slot = *slots_[index];
  start_worker(slot);
  {
    std::lock_guard lock(mutex_);
    ++first_starts_done_;
    if (slot.ready && !have_identity_) {
      identity_ = slot.identity;
      have_identity_ = true;
    }
  }
  started_.notify_all();

  for (;;) {
    PoolJob job;
    {
      std::unique_lock lock(mutex_);
      wake_.wait(lock, [&] { return stopping_ || !queue_.empty(); });
      if (stopping_) return;
      job = take_job(slot);
      ++busy_;
    }
    json verdict = run_job(slot, job);
    // A worker killed during the job is replaced now, not when the next job arrives, so the
    // next job does not wait for Python and torch to import. The restart is counted before
    // the verdict goes out: a client that saw the crash sees it in /stats too.
    const bool replace = !slot.worker->running() && !stop_flag_;
    if (replace) ++restarts_;
    job.done(std::move(verdict));
    {
      std::lock_guard lock(mutex_);
      --busy_;
    }
    if (replace) start_worker(slot);
  }
}

bool WorkerPool::restart_worker(Slot& slot) {
  ++restarts_;
  return start_worker(slot);
}

bool WorkerPool::start_worker(Slot& slot) {
  slot.ready = false;
  {
    std::lock_guard lock(mutex_);
    slot.recent.clear();  // a new worker starts with an empty task cache
  }
  try {
    slot.worker->start();
  } catch (const std::exception& e) {
    slot.start_error = e.what();
    return false;
  }
  auto deadline = after(config_.ready_timeout_s);
  std::string line;
  while (!stop_flag_) {
    double left = seconds_until(deadline);
    if (left <= 0) {
      slot.worker->kill();
      slot.start_error = "no ready line within " + format_seconds(config_.ready_timeout_s) +
                         " s; log: " + slot.worker->log_tail(1024);
      return false;
    }
    ReadStatus status = slot.worker->read_line(line, std::min(left, kPollSlice));
    if (status == ReadStatus::kTimeout) continue;
    if (status == ReadStatus::kEof) {
      std::string ended = slot.worker->reap_after_eof();
      slot.start_error = "the worker exited (" + ended +
                         ") before it was ready; log: " + slot.worker->log_tail(1024);
      return false;
    }
    json j = json::parse(line, nullptr, false);
    // Anything else a worker prints while importing (a library's banner) is not protocol.
    if (!j.is_object() || !j.contains("ready")) continue;
    if (j["ready"] != true) {  // the worker says why it cannot judge (no such GPU, ...)
      slot.worker->kill();
      slot.start_error = "the worker is not ready: " + j.value("error", j.dump());
      return false;
    }
    slot.identity = identity_of(j, config_.devices.front());
    slot.ready = true;
    slot.start_error.clear();
    return true;
  }
  slot.worker->kill();
  slot.start_error = "stopped while starting";
  return false;
}

json WorkerPool::run_job(Slot& slot, PoolJob& job) {
  for (int attempt = 0;; ++attempt) {
    if (!slot.worker->running()) {
      if (!restart_worker(slot)) {
        return failure(slot, "", "the verifier worker did not start: " + slot.start_error,
                       "worker_failed");
      }
    }
    bool retry = false;
    json verdict = run_once(slot, job, retry);
    // A worker that dies or is caught forging before acknowledging the request with any
    // progress was already broken (say, by the previous candidate's CUDA error or a process
    // it left): not this candidate's fault, so it gets one more try on a fresh worker.
    if (retry && attempt == 0) continue;
    if (!sandboxed()) {
      if (!verdict.contains("flags") || !verdict["flags"].is_array())
        verdict["flags"] = json::array();
      verdict["flags"].push_back("unsandboxed");
    }
    return verdict;
  }
}

json WorkerPool::run_once(Slot& slot, PoolJob& job, bool& retry) {
  WorkerProcess& worker = *slot.worker;
  json options = job.options;
  if (job.before_send) job.before_send(options);
  uint64_t id = random_id();
  std::string key = random_hex(32);  // this request's MAC key; the worker forgets it after
  json request = {{"id", id},
                  {"key", key},
                  {"task", job.task},
                  {"candidate", job.candidate},
                  {"options", options}};

  auto start = Clock::now();
  auto compile_deadline = after(config_.compile_timeout_s);
  auto run_deadline = after(config_.run_timeout_s);
  std::string running = "static";  // the stage the worker entered last
  bool acknowledged = false;       // any progress at all for this request
  bool compiled = false;           // "faithful" entered: the compile timeout is over

  auto crashed = [&] {
    std::string ended = worker.reap_after_eof();
    retry = !acknowledged;
    return failure(slot, running, "worker crashed (" + ended + ") during " + running,
                   "worker_crashed");
  };
  // Between requests a worker writes nothing: output waiting now was written by something a
  // candidate left behind in it, which must not get to answer this request.
  if (worker.has_pending_output()) {
    worker.kill();
    retry = true;
    return failure(slot, "", "the worker wrote to its protocol channel between requests",
                   "protocol_forgery");
  }
  if (!worker.send_line(request.dump(), kSendTimeout)) return crashed();

  std::string line;
  for (;;) {
    if (stop_flag_) {
      worker.kill();
      return stopping_verdict(running);
    }
    bool compile_bound = !compiled && compile_deadline < run_deadline;
    auto deadline = compile_bound ? compile_deadline : run_deadline;
    double left = seconds_until(deadline);
    if (left <= 0) {
      worker.kill();
      double limit = compile_bound ? config_.compile_timeout_s : config_.run_timeout_s;
      return failure(slot, running,
                     "timed out after " + format_seconds(limit) + " s during " + running,
                     "timeout");
    }
    ReadStatus status = worker.read_line(line, std::min(left, kPollSlice));
    if (status == ReadStatus::kTimeout) continue;
    if (status == ReadStatus::kEof) return crashed();

    // The worker sends only lines with this request's MAC (a candidate's prints go to its
    // log); anything else was written by the candidate's code: the worker is not to be
    // believed any more.
    json j = authentic_line(line, key, id);
    if (j.is_null()) {
      worker.kill();
      retry = !acknowledged;
      return failure(slot, running,
                     "a line on the worker's protocol channel was not the worker's (forged or "
                     "corrupted) during " +
                         running,
                     "protocol_forgery");
    }
    if (j.contains("progress") && j["progress"].is_string()) {
      running = j["progress"].get<std::string>();
      acknowledged = true;
      // Entering "faithful" means the kernels compiled and ran once.
      if (stage_index(running) >= stage_index("faithful")) compiled = true;
      continue;
    }
    if (!j.contains("verdict")) continue;
    if (!j["verdict"].is_object()) {
      worker.kill();
      return failure(slot, running, "the worker answered with a malformed verdict",
                     "worker_crashed");
    }
    json verdict = std::move(j["verdict"]);
    verdict["worker_wall_s"] = std::chrono::duration<double>(Clock::now() - start).count();
    // After a CUDA error that breaks its context the worker answers, then exits by itself;
    // reap it now so the slot starts a replacement before the next job.
    for (const json& flag : verdict.value("flags", json::array())) {
      if (flag == "worker_restart_required") worker.reap_after_eof();
    }
    return verdict;
  }
}

json WorkerPool::stopping_verdict(const std::string& stage) const {
  json v = make_failure_verdict(stage, "the verifier service is stopping", "service_stopping");
  WorkerIdentity id = identity();
  if (!id.device.empty()) {
    v["device"] = id.device;
    v["versions"] = id.versions;
  }
  return v;
}

json WorkerPool::failure(const Slot& slot, const std::string& stage, const std::string& reason,
                         const std::string& flag) {
  json v = make_failure_verdict(stage, reason, flag);
  if (!slot.identity.device.empty()) {
    v["device"] = slot.identity.device;
    v["versions"] = slot.identity.versions;
  }
  std::string log = slot.worker->log_tail(2048);
  if (!log.empty()) v["worker_log"] = log;
  return v;
}

}  // namespace drtriton
