// The pool with tests/eval/fake_worker.py in place of the real worker: every job gets a
// verdict, a crash or a hang ends only that worker, a replacement serves the next job, and a
// batch comes back in order.
#include "eval/worker_pool.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <future>
#include <map>
#include <mutex>
#include <set>

#include "eval/sha256.h"
#include "eval/verifier.h"
#include "temp_db.h"

namespace drtriton {
namespace {

namespace fs = std::filesystem;
using json = nlohmann::json;

std::string python() {
  return fs::exists(DRTRITON_PYTHON) ? std::string(DRTRITON_PYTHON) : std::string("python3");
}

PoolConfig fake_config(size_t workers, const std::string& name) {
  PoolConfig c;
  c.command = {python(), std::string(DRTRITON_SOURCE_DIR) + "/tests/eval/fake_worker.py"};
  c.devices.assign(workers, "cpu");
  c.scratch_root = (fs::temp_directory_path() /
                    ("drtriton-pool-test-" + std::to_string(::getpid()) + "-" + name))
                       .string();
  c.ready_timeout_s = 30;
  c.compile_timeout_s = 20;
  c.run_timeout_s = 30;
  return c;
}

json run(WorkerPool& pool, const std::string& candidate) {
  auto promise = std::make_shared<std::promise<json>>();
  PoolJob job;
  job.task = "class Model: pass";
  job.candidate = candidate;
  job.options = {{"strict", false}, {"eval_mode", false}, {"device", "cpu"}};
  job.done = [promise](json v) { promise->set_value(std::move(v)); };
  pool.submit(std::move(job));
  auto future = promise->get_future();
  EXPECT_EQ(future.wait_for(std::chrono::seconds(60)), std::future_status::ready);
  return future.get();
}

bool has_flag(const json& v, const char* flag) {
  for (const json& f : v.value("flags", json::array())) {
    if (f == flag) return true;
  }
  return false;
}

TEST(WorkerPool, PassAndReject) {
  WorkerPool pool(fake_config(1, "pass"));
  EXPECT_EQ(pool.identity().device, "fake-cpu");
  json pass = run(pool, "FAKE:pass");
  EXPECT_EQ(pass["passed"], true) << pass.dump();
  EXPECT_EQ(pass["stage"], "timed");
  json reject = run(pool, "FAKE:reject");
  EXPECT_EQ(reject["passed"], false);
  EXPECT_EQ(reject["reason"], "fake rejection");
  EXPECT_EQ(pool.stats().worker_restarts, 0u);
}

TEST(WorkerPool, CrashIsAVerdictAndAReplacementServesTheNextJob) {
  WorkerPool pool(fake_config(1, "crash"));
  json first = run(pool, "FAKE:pass");
  json crash = run(pool, "FAKE:crash");
  EXPECT_EQ(crash["passed"], false);
  EXPECT_EQ(crash["stage"], "static");
  EXPECT_EQ(crash["failed_stage"], "load");
  EXPECT_EQ(crash["reason"], "worker crashed (exit code 3) during load");
  EXPECT_TRUE(has_flag(crash, "worker_crashed"));
  EXPECT_EQ(crash["reward"]["correct"], 0);
  EXPECT_EQ(crash["device"], "fake-cpu");
  EXPECT_NE(crash.value("worker_log", "").find("fake worker: crashing"), std::string::npos);

  json segfault = run(pool, "FAKE:segfault");
  EXPECT_EQ(segfault["reason"], "worker crashed (signal 11) during compile");
  EXPECT_EQ(segfault["stage"], "load");

  json after = run(pool, "FAKE:pass");
  EXPECT_EQ(after["passed"], true);
  EXPECT_NE(after["checks"]["instance"], first["checks"]["instance"]);  // a new worker process
  EXPECT_EQ(pool.stats().worker_restarts, 2u);
}

TEST(WorkerPool, HangsHitTheCompileOrTheRunTimeout) {
  PoolConfig config = fake_config(1, "hang");
  config.compile_timeout_s = 1;
  config.run_timeout_s = 2.5;
  WorkerPool pool(config);
  auto start = std::chrono::steady_clock::now();
  json hang = run(pool, "FAKE:hang");
  double took = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  EXPECT_EQ(hang["reason"], "timed out after 1 s during compile");
  EXPECT_EQ(hang["stage"], "load");
  EXPECT_EQ(hang["failed_stage"], "compile");
  EXPECT_TRUE(has_flag(hang, "timeout"));
  EXPECT_LT(took, 5.0);

  json late = run(pool, "FAKE:hang_late");
  EXPECT_EQ(late["reason"], "timed out after 2.5 s during correct");
  EXPECT_EQ(late["stage"], "faithful");
  EXPECT_EQ(late["failed_stage"], "correct");

  EXPECT_EQ(run(pool, "FAKE:pass")["passed"], true);
}

// Only lines with the request's MAC count: anything else on the channel (a candidate forging
// a verdict, 5 MB of junk) ends that worker with a protocol_forgery rejection, and a
// replacement serves the next job.
TEST(WorkerPool, UnauthenticatedLinesOnTheProtocolChannelAreAForgery) {
  WorkerPool pool(fake_config(1, "forge"));
  json v = run(pool, "FAKE:forge");
  EXPECT_EQ(v["passed"], false) << v.dump().substr(0, 300);
  EXPECT_TRUE(has_flag(v, "protocol_forgery")) << v.dump().substr(0, 300);
  EXPECT_EQ(v["failed_stage"], "load");
  v = run(pool, "FAKE:huge");
  EXPECT_EQ(v["passed"], false);
  EXPECT_TRUE(has_flag(v, "protocol_forgery"));
  EXPECT_EQ(run(pool, "FAKE:pass")["passed"], true);
}

// Output between requests was written by something left behind in the worker: the next job
// is not answered by it but by a fresh worker.
TEST(WorkerPool, OutputBetweenRequestsReplacesTheWorker) {
  WorkerPool pool(fake_config(1, "junk"));
  json first = run(pool, "FAKE:junk_after_verdict");
  EXPECT_EQ(first["passed"], true);
  uint64_t restarts = pool.stats().worker_restarts;
  json next = run(pool, "FAKE:pass # next");
  EXPECT_EQ(next["passed"], true) << next.dump().substr(0, 300);
  EXPECT_NE(next["checks"]["instance"], first["checks"]["instance"]);
  EXPECT_EQ(pool.stats().worker_restarts, restarts + 1);
}

TEST(WorkerPool, AWorkerThatDiedBetweenJobsDoesNotFailTheNextCandidate) {
  WorkerPool pool(fake_config(1, "died"));
  EXPECT_EQ(run(pool, "FAKE:exit_after_verdict")["passed"], true);
  json next = run(pool, "FAKE:pass");
  EXPECT_EQ(next["passed"], true) << next.dump();
}

TEST(WorkerPool, AWorkerThatNeverStartsIsAnError) {
  PoolConfig config = fake_config(1, "nostart");
  config.env["FAKE_WORKER_START"] = "fail";
  try {
    WorkerPool pool(config);
    FAIL() << "expected an error";
  } catch (const std::runtime_error& e) {
    std::string what = e.what();
    EXPECT_NE(what.find("exit code 4"), std::string::npos) << what;
    EXPECT_NE(what.find("told to fail at start"), std::string::npos) << what;
  }
}

TEST(WorkerPool, NeedNotWaitForEveryWorkersStart) {
  PoolConfig config = fake_config(2, "onestart");
  config.devices = {"cpu", "cpu:slow"};
  config.env["FAKE_WORKER_SLOW_DEVICE"] = "cpu:slow";  // 30 s before its ready line
  config.wait_for_every_start = false;
  auto start = std::chrono::steady_clock::now();
  {
    WorkerPool pool(config);
    EXPECT_EQ(pool.identity().device, "fake-cpu");
    EXPECT_EQ(run(pool, "FAKE:pass")["passed"], true);  // served by the worker that is up
  }                                                     // stopped while the other still starts
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(20));
}

// A cache lookup needs only what a worker says about itself: one short process (the worker
// command with --identity) says the same as a started worker, or nothing when it cannot.
TEST(WorkerPool, ProbeIdentityIsWhatAStartedWorkerSays) {
  PoolConfig config = fake_config(1, "probe");
  std::optional<WorkerIdentity> probed = probe_identity(config);
  ASSERT_TRUE(probed);
  EXPECT_FALSE(fs::exists(fs::path(config.scratch_root) / "identity"));  // cleaned up
  WorkerPool pool(config);
  EXPECT_EQ(probed->device, "fake-cpu");
  EXPECT_EQ(probed->device, pool.identity().device);
  EXPECT_EQ(probed->versions, pool.identity().versions);

  config.env["FAKE_WORKER_START"] = "fail";  // exits before its ready line
  EXPECT_FALSE(probe_identity(config));
}

TEST(WorkerPool, StopAnswersRunningAndQueuedJobs) {
  WorkerPool pool(fake_config(1, "stop"));
  std::vector<std::future<json>> futures;
  for (const char* c : {"FAKE:hang", "FAKE:pass", "FAKE:pass"}) {
    auto promise = std::make_shared<std::promise<json>>();
    futures.push_back(promise->get_future());
    PoolJob job;
    job.candidate = c;
    job.options = json::object();
    job.done = [promise](json v) { promise->set_value(std::move(v)); };
    pool.submit(std::move(job));
  }
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  pool.stop();
  for (auto& f : futures) {
    ASSERT_EQ(f.wait_for(std::chrono::seconds(10)), std::future_status::ready);
    EXPECT_TRUE(has_flag(f.get(), "service_stopping"));
  }
}

// Jobs of `tasks` (affinity = task), queued together; the verdicts in the order given.
std::vector<json> run_all(WorkerPool& pool, const std::vector<std::string>& tasks,
                          const std::string& candidate, std::vector<size_t>* finished = nullptr) {
  std::vector<std::future<json>> futures;
  std::vector<PoolJob> jobs;
  auto order = std::make_shared<std::vector<size_t>>();
  auto order_lock = std::make_shared<std::mutex>();  // several workers end jobs at once
  for (size_t i = 0; i < tasks.size(); ++i) {
    auto promise = std::make_shared<std::promise<json>>();
    futures.push_back(promise->get_future());
    PoolJob job;
    job.task = tasks[i];
    job.affinity = tasks[i];
    job.candidate = candidate + " #" + std::to_string(i);
    job.options = json::object();
    job.done = [promise, order, order_lock, i](json v) {
      {  // with one worker, the run order
        std::lock_guard<std::mutex> lock(*order_lock);
        order->push_back(i);
      }
      promise->set_value(std::move(v));
    };
    jobs.push_back(std::move(job));
  }
  pool.submit_all(std::move(jobs));
  std::vector<json> verdicts;
  for (auto& f : futures) {
    EXPECT_EQ(f.wait_for(std::chrono::seconds(60)), std::future_status::ready);
    verdicts.push_back(f.get());
  }
  if (finished) *finished = *order;
  return verdicts;
}

TEST(WorkerPool, OneTasksJobsGoToTheWorkerThatRanIt) {
  WorkerPool pool(fake_config(2, "affinity"));
  std::vector<std::string> tasks = {"A", "B", "A", "B", "A", "B", "A", "B"};
  std::vector<json> verdicts = run_all(pool, tasks, "FAKE:slow FAKE_SLOW=0.2");
  std::map<std::string, std::set<std::string>> workers;  // task -> worker instances
  for (size_t i = 0; i < tasks.size(); ++i) {
    workers[tasks[i]].insert(verdicts[i]["checks"]["instance"].get<std::string>());
  }
  EXPECT_EQ(workers["A"].size(), 1u);
  EXPECT_EQ(workers["B"].size(), 1u);
  EXPECT_NE(*workers["A"].begin(), *workers["B"].begin());
}

TEST(WorkerPool, AJobOfAnotherTaskIsPassedOverOnlySoOften) {
  WorkerPool pool(fake_config(1, "passed-over"));
  run_all(pool, {"A"}, "FAKE:pass");  // the worker now knows A
  std::vector<std::string> tasks = {"B"};
  tasks.resize(12, "A");
  std::vector<size_t> order;
  run_all(pool, tasks, "FAKE:pass", &order);
  ASSERT_EQ(order.size(), tasks.size());
  EXPECT_EQ(std::find(order.begin(), order.end(), 0u) - order.begin(), 8);  // after 8 A's
}

TEST(Verifier, BatchKeepsOrderAcrossWorkersAndCaches) {
  TempDb db("batch");
  WorkerPool pool(fake_config(2, "batch"));
  VerdictCache cache(db.str());
  Verifier verifier(pool, &cache);
  std::vector<VerifyRequest> batch;
  // Slow ones first, so later items finish earlier and order must be restored.
  for (int i = 0; i < 6; ++i) {
    VerifyRequest r;
    r.task = "class Model: pass";
    r.candidate = (i < 2 ? "FAKE:slow FAKE_SLOW=0.4 #" : "FAKE:pass #") + std::to_string(i);
    if (i == 4) r.candidate = "FAKE:crash";
    batch.push_back(r);
  }
  std::vector<json> verdicts = verifier.verify_batch(batch);
  ASSERT_EQ(verdicts.size(), batch.size());
  for (size_t i = 0; i < batch.size(); ++i) {
    EXPECT_EQ(verdicts[i]["candidate_hash"], sha256_hex(batch[i].candidate)) << i;
    EXPECT_EQ(verdicts[i]["task_hash"], sha256_hex(batch[i].task));
    EXPECT_EQ(verdicts[i]["cached"], false);
    EXPECT_EQ(verdicts[i]["passed"], i != 4) << i;
  }
  // The same batch again: every verdict from the cache, the crash included.
  std::vector<json> again = verifier.verify_batch(batch);
  for (size_t i = 0; i < batch.size(); ++i) {
    EXPECT_EQ(again[i]["cached"], true) << i;
    EXPECT_EQ(again[i]["passed"], verdicts[i]["passed"]);
  }
  EXPECT_EQ(verifier.cache_hits(), batch.size());
  EXPECT_EQ(verifier.verdicts_served(), 2 * batch.size());
}

TEST(Verifier, TheReferenceTimingIsMeasuredOnceAndHandedBack) {
  TempDb db("reference");
  WorkerPool pool(fake_config(1, "reference"));
  VerdictCache cache(db.str());
  Verifier verifier(pool, &cache);
  VerifyRequest r;
  r.task = "class Model: pass";
  r.candidate = "FAKE:pass #1";
  EXPECT_EQ(verifier.verify(r)["checks"]["reference_given"], false);
  r.candidate = "FAKE:pass #2";
  EXPECT_EQ(verifier.verify(r)["checks"]["reference_given"], true);
  r.task = "class Model: pass  # another task";
  EXPECT_EQ(verifier.verify(r)["checks"]["reference_given"], false);
  r.options.eval_mode = true;  // eval mode times the reference again
  EXPECT_EQ(verifier.verify(r)["checks"]["reference_given"], false);
}

TEST(Verifier, RefusesAnotherDeviceKind) {
  WorkerPool pool(fake_config(1, "kind"));
  Verifier verifier(pool, nullptr);
  VerifyRequest r;
  r.options.device = "cuda";
  EXPECT_THROW(verifier.check_request(r), RequestError);
}

}  // namespace
}  // namespace drtriton
