// `drtriton verify` (one verdict, through a pool of one worker) and `drtriton serve` (the
// verifier as an HTTP service). Both start python -m drtriton.worker (src/eval/README.md).
#include <pthread.h>
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <memory>
#include <nlohmann/json.hpp>
#include <sstream>
#include <thread>

#include "cli/commands.h"
#include "cli/io.h"
#include "eval/service.h"
#include "eval/verdict.h"
#include "eval/verdict_cache.h"
#include "eval/verifier.h"
#include "eval/worker_pool.h"

namespace fs = std::filesystem;
using json = nlohmann::json;

namespace drtriton::cli {

namespace {

std::unique_ptr<VerdictCache> open_cache(const std::string& path) {
  if (path.empty()) return nullptr;
  try {
    return std::make_unique<VerdictCache>(path);
  } catch (const std::exception& e) {
    throw CLI::ValidationError("--cache", e.what());  // a bad path is a usage error: exit 2
  }
}

// Scratch folders of earlier runs whose process is gone (a service killed with -9 cannot
// remove its own): drtriton-eval-<pid> in the temporary folder.
void remove_stale_scratch() {
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(fs::temp_directory_path(), ec)) {
    std::string name = entry.path().filename().string();
    if (name.rfind("drtriton-eval-", 0) != 0) continue;
    char* end = nullptr;
    long pid = std::strtol(name.c_str() + 14, &end, 10);
    if (pid <= 0 || *end != '\0') continue;
    if (::kill(static_cast<pid_t>(pid), 0) != 0 && errno == ESRCH) fs::remove_all(entry, ec);
  }
}

// --sandbox auto|on|off (the CLI checks the spelling).
SandboxMode sandbox_mode(const std::string& flag) {
  if (flag == "on") return SandboxMode::kOn;
  if (flag == "off") return SandboxMode::kOff;
  return SandboxMode::kAuto;
}

}  // namespace

// The worker's argv: the given command (for tests, a fake worker), else the project's.
PoolConfig worker_config(const std::string& worker_command, const std::string& sandbox) {
  PoolConfig config;
  config.sandbox = sandbox_mode(sandbox);
  std::istringstream words(worker_command);
  for (std::string w; words >> w;) config.command.push_back(w);
  if (config.command.empty()) config.command = {python_executable(), "-m", "drtriton.worker"};
  std::string path = python_path();
  if (const char* old = std::getenv("PYTHONPATH"); old && *old) path += std::string(":") + old;
  config.env["PYTHONPATH"] = path;
  remove_stale_scratch();
  config.scratch_root =
      (fs::temp_directory_path() / ("drtriton-eval-" + std::to_string(::getpid()))).string();
  return config;
}

namespace {

std::string number(const json& v, const char* format = "%.4g") {
  if (!v.is_number()) return v.is_null() ? "-" : dump_json(v);
  char buf[64];
  std::snprintf(buf, sizeof buf, format, v.get<double>());
  return buf;
}

std::string compact(const json& v) {
  if (v.is_string()) return valid_utf8(v.get<std::string>());
  std::string s = dump_json(v);
  return s.size() > 160 ? s.substr(0, 157) + "..." : s;
}

void print_row(const std::string& name, const std::string& value) {
  std::printf("%-16s %s\n", name.c_str(), value.c_str());
}

bool is_empty(const json& v) {
  if (v.is_string()) return v.get_ref<const std::string&>().empty();
  return v.is_null() || ((v.is_array() || v.is_object()) && v.empty());
}

struct VerifyArgs {
  std::string task, candidate, device, cache, worker_command, sandbox = "auto";
  bool strict = false, eval_mode = false, json = false, no_compile_timing = false;
  double timeout = 300;
};

// A source file, refused (exit 2) unless it is UTF-8 text: it goes to the worker as JSON.
std::string read_source(const std::string& path) {
  std::string text = read_file(path);
  size_t at = find_invalid_utf8(text);
  if (at != std::string::npos) {
    throw CLI::ValidationError(path, "not UTF-8 text (byte offset " + std::to_string(at) + ")");
  }
  return text;
}

bool has_flag(const json& verdict, const char* flag) {
  const json& flags = verdict.value("flags", json::array());
  return flags.is_array() && std::find(flags.begin(), flags.end(), flag) != flags.end();
}

// Prints the verdict; exit 1 when the candidate was rejected, 2 when the task itself is broken
// (no Model, a syntax error, get_inputs failing): no candidate could pass, so the caller must
// fix the task, and a trainer must not count it against the candidate.
void report(const json& verdict, bool as_json, const std::string& task,
            const std::string& candidate) {
  if (as_json) {
    std::cout << dump_json(verdict, 2) << "\n";
  } else {
    print_verdict(verdict);
  }
  std::cout.flush();
  if (verdict.value("passed", false)) return;
  std::string reason = compact(verdict.value("reason", json("?")));
  if (has_flag(verdict, "task_error")) {
    throw CLI::ValidationError(task, "the task is at fault, not the candidate: " + reason);
  }
  throw CliError(candidate + ": rejected: " + reason);
}

void run_verify(const VerifyArgs& a) {
  VerifyRequest request;
  request.task = read_source(a.task);
  request.candidate = read_source(a.candidate);
  request.options.strict = a.strict;
  request.options.eval_mode = a.eval_mode;
  request.options.device = a.device;
  if (a.no_compile_timing) request.options.compile = false;
  report(verify_once(request, a.cache, a.worker_command, a.timeout, {}, a.sandbox), a.json, a.task,
         a.candidate);
}

struct ServeArgs {
  std::string host = "127.0.0.1", device, cache, gpus, worker_command, sandbox = "auto";
  int port = -1, workers_per_gpu = 0;  // 0: chosen by serve_devices
  double compile_timeout = 120, run_timeout = 300;
  ServiceLimits limits;
};

std::vector<std::string> serve_devices(const ServeArgs& a) {
  std::string device = a.device.empty() ? default_device(a.gpus) : a.device;
  std::vector<int> gpus = pool_gpus(device, a.gpus);
  if (a.workers_per_gpu > 0)
    return spread_workers(gpus, a.workers_per_gpu * std::max<int>(1, gpus.size()));
  return gpus.empty() ? spread_workers(gpus, 1) : pool_devices(gpus, 0);
}

// The one thread that receives SIGINT and SIGTERM (blocked in every other thread, the
// workers' threads included) and stops the service from outside the signal context.
void run_serve(const ServeArgs& a) {
  std::vector<std::string> devices = serve_devices(a);  // a usage error: before anything starts
  sigset_t stop_signals;
  sigemptyset(&stop_signals);
  sigaddset(&stop_signals, SIGINT);
  sigaddset(&stop_signals, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &stop_signals, nullptr);

  PoolConfig config = worker_config(a.worker_command, a.sandbox);
  config.devices = devices;
  config.compile_timeout_s = a.compile_timeout;
  config.run_timeout_s = a.run_timeout;
  std::unique_ptr<VerdictCache> cache = open_cache(a.cache);
  // For serve, a worker that cannot start and a port in use are the user's to fix: exit 1.
  std::unique_ptr<WorkerPool> started;
  try {
    started = std::make_unique<WorkerPool>(config);
  } catch (const std::runtime_error& e) {
    throw CliError(e.what());
  }
  WorkerPool& pool = *started;
  Verifier verifier(pool, cache.get());
  Service service(verifier, pool, a.limits);
  int port = 0;
  try {
    port = service.bind(a.host, a.port);
  } catch (const std::runtime_error& e) {
    throw CliError(e.what());
  }

  std::thread stopper([&] {
    int sig = 0;
    sigwait(&stop_signals, &sig);
    std::fprintf(stderr, "drtriton serve: stopping (signal %d)\n", sig);
    pool.stop();  // answers what is running, so no HTTP thread waits on a verdict
    service.stop();
  });
  std::printf(
      "drtriton serve: listening on http://%s:%d (%zu %s workers on %s, cache %s, sandbox %s)\n",
      a.host.c_str(), port, config.devices.size(), verifier.device_kind().c_str(),
      pool.identity().device.c_str(), a.cache.empty() ? "off" : a.cache.c_str(),
      pool.sandbox_state().c_str());
  std::fflush(stdout);
  service.run();
  // run() also returns when the server fails; wake the stopper so it can be joined.
  ::kill(::getpid(), SIGTERM);
  stopper.join();
}

}  // namespace

// The verdict as a table a person reads: every field that says something gets a row.
void print_verdict(const json& v) {
  bool passed = v.value("passed", false);
  auto text = [&](const char* key) {
    return v.contains(key) && v[key].is_string() ? v[key].get<std::string>() : std::string();
  };
  print_row("verdict", passed ? "PASSED" : "REJECTED");
  std::string stage = text("stage").empty() ? "none" : text("stage");
  std::string failed = text("failed_stage");
  print_row("stage", stage + " passed" + (failed.empty() ? "" : ", failed during " + failed));
  if (!passed && v.contains("reason")) print_row("reason", compact(v["reason"]));
  for (const char* key : {"device", "mode", "random"}) {
    if (v.contains(key) && !is_empty(v[key])) print_row(key, compact(v[key]));
  }
  if (v.contains("checks") && v["checks"].is_object()) {
    std::string name = "checks";
    for (const auto& [key, value] : v["checks"].items()) {
      if (is_empty(value)) continue;
      print_row(name, key + ": " + compact(value));
      name = "";
    }
  }
  if (v.contains("err") && v["err"].is_array() && !v["err"].empty()) {
    std::printf("%-16s %-4s %-11s %-11s %-11s\n", "err", "set", "candidate", "eager", "bound");
    size_t i = 0;
    for (const json& e : v["err"]) {
      std::string extra;
      if (e.is_object()) {
        for (const auto& [key, value] : e.items()) {
          if (key != "candidate" && key != "eager" && key != "bound") {
            extra += " " + key + "=" + compact(value);
          }
        }
      }
      auto field = [&](const char* k) { return e.is_object() ? number(e.value(k, json())) : "-"; };
      std::printf("%-16s %-4zu %-11s %-11s %-11s%s\n", "", i++, field("candidate").c_str(),
                  field("eager").c_str(), field("bound").c_str(), extra.c_str());
    }
  }
  if (v.contains("timing_ms") && v["timing_ms"].is_object()) {
    for (const char* which : {"eager", "compile", "candidate"}) {
      const json& t = v["timing_ms"].value(which, json());
      if (!t.is_object()) continue;
      print_row(std::string("time ") + which, number(t.value("median", json())) + " ms (iqr " +
                                                  number(t.value("iqr", json())) + ")");
    }
  }
  for (const char* key : {"speedup_eager", "speedup_compile", "own_kernel_share"}) {
    if (v.contains(key) && !v[key].is_null()) print_row(key, number(v[key], "%.3g"));
  }
  if (v.contains("kernelbench_native") && v["kernelbench_native"].is_boolean())
    print_row("kernelbench_native", v["kernelbench_native"].get<bool>()
                                        ? "yes (ModelNew builds the reference's state)"
                                        : "no (needs the reference's state_dict loaded)");
  if (v.contains("flags") && v["flags"].is_array() && !v["flags"].empty()) {
    std::string flags;
    for (const json& f : v["flags"]) flags += (flags.empty() ? "" : ", ") + compact(f);
    print_row("flags", flags);
  }
  if (v.contains("reward") && v["reward"].is_object()) {
    print_row("reward", "correct " + number(v["reward"].value("correct", json())) + ", speed " +
                            number(v["reward"].value("speed", json())));
  }
  if (v.contains("worker_log") && v["worker_log"].is_string() && !passed) {
    std::printf("worker log (end):\n%s\n", valid_utf8(v["worker_log"].get<std::string>()).c_str());
  }
  print_row("cached", v.value("cached", false) ? "yes" : "no");
}

void report_verdict(const json& verdict, bool as_json, const std::string& candidate) {
  report(verdict, as_json, "the task", candidate);
}

void add_gpus_option(CLI::App& command, std::string& gpus) {
  command
      .add_option("--gpus", gpus,
                  "GPU indices for the verifier's workers, e.g. 0,1: spread round robin "
                  "(default: every visible GPU; CUDA_VISIBLE_DEVICES counts; implies --device "
                  "cuda, excludes --device cpu)")
      ->check([](const std::string& list) {
        try {
          parse_gpu_list(list);
          return std::string();
        } catch (const std::invalid_argument& e) {
          return std::string(e.what());
        }
      });
}

std::string default_device(const std::string& gpus) {
  return !gpus.empty() || !visible_gpus().empty() ? "cuda" : "cpu";
}

std::vector<int> pool_gpus(const std::string& device, const std::string& gpus) {
  if (device == "cpu") {
    if (!gpus.empty())
      throw CLI::ValidationError("--gpus", "--gpus and --device cpu exclude each other");
    return {};
  }
  std::vector<int> visible = visible_gpus();
  std::string none = "nvidia-smi -L lists none, or CUDA_VISIBLE_DEVICES hides them";
  if (gpus.empty()) {
    if (visible.empty())
      throw CLI::ValidationError("--device", "cuda, but no GPU is visible (" + none + ")");
    return visible;
  }
  std::string seen = visible.size() == 1
                         ? "only GPU 0 is"
                         : "GPUs 0 to " + std::to_string(visible.size() - 1) + " are";
  std::vector<int> listed = parse_gpu_list(gpus);  // checked at parse time already
  for (int g : listed) {
    if (g >= static_cast<int>(visible.size())) {
      throw CLI::ValidationError("--gpus", "GPU " + std::to_string(g) + " is not visible (" +
                                               (visible.empty() ? none : seen) + ")");
    }
  }
  return listed;
}

std::vector<std::string> pool_devices(const std::vector<int>& gpus, int workers) {
  int cores = static_cast<int>(std::thread::hardware_concurrency());
  return spread_workers(gpus, workers > 0 ? workers : default_workers(gpus.size(), cores));
}

PoolJudge::PoolJudge(std::vector<std::string> devices, std::string cache_path, double timeout_s,
                     const std::string& worker_command, const std::string& sandbox)
    : config_(worker_config(worker_command, sandbox)), cache_path_(std::move(cache_path)) {
  config_.devices = std::move(devices);
  config_.wait_for_every_start = false;  // a warm cache needs one worker's identity only
  config_.run_timeout_s = timeout_s;
  config_.compile_timeout_s = std::min(config_.compile_timeout_s, timeout_s);
}

PoolJudge::~PoolJudge() = default;

void PoolJudge::start() {
  if (verifier_) return;
  if (!cache_) cache_ = open_cache(cache_path_);
  pool_ = std::make_unique<WorkerPool>(config_);
  verifier_ = std::make_unique<Verifier>(*pool_, cache_.get());
}

std::vector<json> PoolJudge::operator()(const std::vector<VerifyRequest>& requests) {
  if (!verifier_ && !cache_path_.empty()) {
    if (!cache_) cache_ = open_cache(cache_path_);
    if (!probed_) {  // asked once: the answer does not change
      probed_identity_ = probe_identity(config_);
      probed_ = true;
    }
    if (probed_identity_) {
      if (auto verdicts = cached_verdicts(requests, *probed_identity_, *cache_)) return *verdicts;
    }
  }
  start();
  try {
    return verifier_->verify_batch(requests);
  } catch (const RequestError& e) {
    throw CLI::ValidationError(e.what());  // a source that is not UTF-8: exit 2
  }
}

json verify_once(VerifyRequest request, const std::string& cache_path,
                 const std::string& worker_command, double timeout_s, const std::vector<int>& gpus,
                 const std::string& sandbox) {
  if (request.options.device.empty())
    request.options.device = visible_gpus().empty() ? "cpu" : "cuda";
  std::vector<int> gpu = {gpus.empty() ? 0 : gpus[0]};
  PoolJudge judge(spread_workers(request.options.device == "cuda" ? gpu : std::vector<int>{}, 1),
                  cache_path, timeout_s, worker_command, sandbox);
  return judge({request}).front();
}

std::vector<json> verify_many(const std::vector<VerifyRequest>& requests,
                              const std::string& cache_path, double timeout_s,
                              const std::vector<int>& gpus) {
  std::vector<std::string> devices = pool_devices(gpus, 0);
  devices.resize(std::min(devices.size(), requests.size()));  // round robin: still spread
  return PoolJudge(devices, cache_path, timeout_s)(requests);
}

constexpr const char* kSandboxHelp =
    "OS sandbox for the workers: auto (default: on when this machine allows it, else a "
    "warning and verdicts flagged unsandboxed), on (refuse to start without it), off";

void add_eval_commands(CLI::App& app) {
  auto v = std::make_shared<VerifyArgs>();
  auto* verify = app.add_subcommand(
      "verify", "Judge one candidate against its task (exit 0: passed, 1: rejected, 2: usage)");
  verify->add_option("task", v->task, "KernelBench-format task (.py with Model)")
      ->required()
      ->check(CLI::ExistingFile);
  verify->add_option("candidate", v->candidate, "Candidate (.py with ModelNew)")
      ->required()
      ->check(CLI::ExistingFile);
  verify->add_flag("--strict", v->strict, "No PyTorch compute op may run in ModelNew.forward");
  verify->add_flag("--eval-mode", v->eval_mode, "Judge the modules after .eval()");
  verify->add_flag("--no-compile-timing", v->no_compile_timing,
                   "Do not time torch.compile (its first call takes seconds, more on the CPU); "
                   "the verdict then has no speedup_compile");
  verify->add_option("--device", v->device, "cpu or cuda (default: cuda if nvidia-smi lists a GPU)")
      ->check(CLI::IsMember({"cpu", "cuda"}));
  verify->add_flag("--json", v->json, "Print the verdict as JSON");
  verify->add_option("--cache", v->cache, "SQLite verdict cache to read and write");
  verify->add_option("--timeout", v->timeout, "Run timeout in seconds (default 300)")
      ->check(CLI::PositiveNumber);
  verify->add_option("--worker-command", v->worker_command,
                     "Worker to start instead of python -m drtriton.worker (for tests)");
  verify->add_option("--sandbox", v->sandbox, kSandboxHelp)
      ->check(CLI::IsMember({"auto", "on", "off"}));
  verify->callback([v] { run_verify(*v); });

  auto s = std::make_shared<ServeArgs>();
  auto* serve = app.add_subcommand("serve", "Run the verifier as an HTTP service");
  serve->add_option("--port", s->port, "Port to listen on (0: any free port)")
      ->required()
      ->check(CLI::Range(0, 65535));
  serve->add_option("--host", s->host, "Address to listen on (default 127.0.0.1)");
  add_gpus_option(*serve, s->gpus);
  serve
      ->add_option("--workers-per-gpu", s->workers_per_gpu,
                   "Workers per GPU (default: 8, fewer when there are fewer CPU cores per GPU; "
                   "with --device cpu: the number of CPU workers, default 1)")
      ->check(CLI::Range(1, 256));
  serve->add_option("--device", s->device, "cpu or cuda (default: cuda if nvidia-smi lists a GPU)")
      ->check(CLI::IsMember({"cpu", "cuda"}));
  serve->add_option("--cache", s->cache, "SQLite verdict cache (default: none)");
  serve
      ->add_option("--compile-timeout", s->compile_timeout,
                   "Seconds until a candidate's kernels must have compiled (default 120)")
      ->check(CLI::PositiveNumber);
  serve
      ->add_option("--run-timeout", s->run_timeout,
                   "Seconds until a candidate's verdict (default 300)")
      ->check(CLI::PositiveNumber);
  serve->add_option("--worker-command", s->worker_command,
                    "Worker to start instead of python -m drtriton.worker (for tests)");
  serve
      ->add_option("--max-connections", s->limits.max_connections,
                   "Open connections served, all clients together (default 128); more get 503")
      ->check(CLI::Range(1, 4096));
  serve
      ->add_option("--max-connections-per-client", s->limits.max_connections_per_client,
                   "Open connections served from one address (default 64)")
      ->check(CLI::Range(1, 4096));
  serve
      ->add_option("--request-timeout", s->limits.request_timeout_s,
                   "Seconds to receive one whole request, and to send its answer (default 30)")
      ->check(CLI::PositiveNumber);
  serve->add_option("--sandbox", s->sandbox, kSandboxHelp)
      ->check(CLI::IsMember({"auto", "on", "off"}));
  serve->callback([s] { run_serve(*s); });
}

}  // namespace drtriton::cli
