#include "eval/worker_process.h"

#include <fcntl.h>
#include <poll.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <stdexcept>
#include <thread>

#include "eval/sandbox.h"

extern char** environ;

namespace fs = std::filesystem;

namespace drtriton {

namespace {

using Clock = std::chrono::steady_clock;

int remaining_ms(Clock::time_point deadline) {
  auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now());
  return left.count() < 0 ? 0 : static_cast<int>(left.count());
}

Clock::time_point deadline_after(double seconds) {
  return Clock::now() + std::chrono::microseconds(static_cast<int64_t>(seconds * 1e6));
}

std::vector<char*> c_strings(std::vector<std::string>& strings) {
  std::vector<char*> out;
  for (std::string& s : strings) out.push_back(s.data());
  out.push_back(nullptr);
  return out;
}

// The environment a worker starts with (see worker_process.h).
std::vector<std::string> worker_environment(const WorkerSpec& spec) {
  std::map<std::string, std::string> env;
  for (char** e = environ; *e; ++e) {
    std::string kv = *e;
    size_t eq = kv.find('=');
    if (eq != std::string::npos && worker_env_allowed(kv.substr(0, eq))) {
      env[kv.substr(0, eq)] = kv.substr(eq + 1);
    }
  }
  // Caches and temporary files go to the one folder the sandbox leaves writable.
  fs::path scratch = spec.scratch;
  env["HOME"] = (scratch / "home").string();
  env["TMPDIR"] = (scratch / "home").string();
  env["TRITON_CACHE_DIR"] = (scratch / "cache" / "triton").string();
  env["TORCHINDUCTOR_CACHE_DIR"] = (scratch / "cache" / "inductor").string();
  env["CUDA_CACHE_PATH"] = (scratch / "cache" / "cuda").string();
  // torch.compile then compiles in the worker's own process: inside the sandbox, every other
  // process in the worker's namespace is one a candidate left, and the worker ends them.
  env["TORCHINDUCTOR_COMPILE_THREADS"] = "1";
  env["DRTRITON_SANDBOX"] = spec.sandbox ? "1" : "0";
  for (const auto& [k, v] : spec.env) env[k] = v;
  std::vector<std::string> out;
  for (const auto& [k, v] : env) out.push_back(k + "=" + v);
  return out;
}

}  // namespace

bool worker_env_allowed(const std::string& name) {
  for (const char* exact :
       {"PATH", "LD_LIBRARY_PATH", "PYTHONPATH", "LANG", "OMP_NUM_THREADS",
        "DRTRITON_TASK_CACHE_MB", "DRTRITON_INPUT_KEEP_MB", "DRTRITON_QUIET_TIMING",
        "DRTRITON_PRECOMPILE", "DRTRITON_STEADY_RUNS", "PYTORCH_CUDA_ALLOC_CONF"}) {
    if (name == exact) return true;
  }
  for (const char* prefix : {"LC_", "CUDA_", "NVIDIA_", "TRITON_", "DRTRITON_TEST_"}) {
    if (name.rfind(prefix, 0) == 0) return true;
  }
  return false;
}

WorkerProcess::WorkerProcess(WorkerSpec spec) : spec_(std::move(spec)) {}

WorkerProcess::~WorkerProcess() {
  kill();
}

void WorkerProcess::start() {
  if (running()) kill();
  // A write to a worker that just died must come back as EPIPE, not end this process.
  static std::once_flag ignore_sigpipe;
  std::call_once(ignore_sigpipe, [] { std::signal(SIGPIPE, SIG_IGN); });

  fs::remove_all(spec_.scratch);
  for (const char* sub : {"home", "cache/triton", "cache/inductor", "cache/cuda"}) {
    fs::create_directories(fs::path(spec_.scratch) / sub);
  }
  std::string log_path = (fs::path(spec_.scratch) / "worker.log").string();

  // Everything the child needs is built before fork: between fork and exec a threaded
  // process may only make async-signal-safe calls (no allocation).
  std::vector<std::string> args = spec_.command;
  args.insert(args.end(), {"--device", spec_.device, "--scratch", spec_.scratch});
  std::vector<std::string> env = worker_environment(spec_);
  std::vector<char*> argv = c_strings(args), envp = c_strings(env);
  SandboxPlan plan = make_sandbox_plan(spec_.scratch);

  // O_CLOEXEC on every pipe end: a worker must not inherit another worker's pipes, or that
  // other worker's EOF would never be seen.
  int in[2], out[2];
  if (pipe2(in, O_CLOEXEC) != 0) throw std::runtime_error("pipe: " + std::string(strerror(errno)));
  if (pipe2(out, O_CLOEXEC) != 0) {
    ::close(in[0]), ::close(in[1]);
    throw std::runtime_error("pipe: " + std::string(strerror(errno)));
  }
  pid_t parent = ::getpid();
  pid_t pid = ::fork();
  if (pid < 0) {
    ::close(in[0]), ::close(in[1]), ::close(out[0]), ::close(out[1]);
    throw std::runtime_error("fork: " + std::string(strerror(errno)));
  }
  if (pid == 0) {
    ::setpgid(0, 0);
    // If the service dies (even by kill -9) the worker goes too, instead of running on.
    ::prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (::getppid() != parent) ::_exit(127);
    sigset_t none;
    sigemptyset(&none);
    ::sigprocmask(SIG_SETMASK, &none, nullptr);  // the service blocks SIGINT/SIGTERM
    ::signal(SIGPIPE, SIG_DFL);
    ::dup2(in[0], 0);
    ::dup2(out[1], 1);
    int log = ::open(log_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (log >= 0) ::dup2(log, 2);
    // Sockets of the HTTP server are not close-on-exec: close everything else.
    for (int fd = 3; fd < 4096; ++fd) ::close(fd);
    if (spec_.sandbox) enter_sandbox(plan);
    ::execvpe(argv[0], argv.data(), envp.data());
    const char msg[] = "drtriton: cannot execute the worker command\n";
    [[maybe_unused]] ssize_t n = ::write(2, msg, sizeof msg - 1);
    ::_exit(127);
  }
  ::setpgid(pid, pid);  // also from this side, so killpg works even before the child runs
  ::close(in[0]);
  ::close(out[1]);
  to_child_ = in[1];
  from_child_ = out[0];
  ::fcntl(to_child_, F_SETFL, ::fcntl(to_child_, F_GETFL) | O_NONBLOCK);
  ::fcntl(from_child_, F_SETFL, ::fcntl(from_child_, F_GETFL) | O_NONBLOCK);
  pid_ = pid;
  buffer_.clear();
  dropping_ = false;
  ended_.clear();
}

bool WorkerProcess::send_line(const std::string& line, double timeout_s) {
  if (!running()) return false;
  std::string data = line + "\n";
  auto deadline = deadline_after(timeout_s);
  size_t sent = 0;
  while (sent < data.size()) {
    ssize_t n = ::write(to_child_, data.data() + sent, data.size() - sent);
    if (n > 0) {
      sent += static_cast<size_t>(n);
      continue;
    }
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && errno != EAGAIN) return false;  // EPIPE: the worker is gone
    pollfd p{to_child_, POLLOUT, 0};
    if (::poll(&p, 1, remaining_ms(deadline)) <= 0) return false;
    if (p.revents & (POLLERR | POLLHUP)) return false;
  }
  return true;
}

ReadStatus WorkerProcess::read_line(std::string& line, double timeout_s) {
  if (!running()) return ReadStatus::kEof;
  auto deadline = deadline_after(timeout_s);
  size_t scanned = 0;  // bytes of buffer_ known to hold no newline
  char chunk[65536];
  for (;;) {
    size_t nl = buffer_.find('\n', scanned);
    if (nl != std::string::npos) {
      bool drop = dropping_;
      dropping_ = false;
      if (!drop) line = buffer_.substr(0, nl);
      buffer_.erase(0, nl + 1);
      scanned = 0;
      if (!drop) return ReadStatus::kLine;
      continue;
    }
    scanned = buffer_.size();
    if (buffer_.size() > kMaxLine) {
      dropping_ = true;  // the rest of this line is discarded as it arrives
      buffer_.clear();
      scanned = 0;
    }
    pollfd p{from_child_, POLLIN, 0};
    int ready = ::poll(&p, 1, remaining_ms(deadline));
    if (ready < 0 && errno == EINTR) continue;
    if (ready == 0) return ReadStatus::kTimeout;
    ssize_t n = ::read(from_child_, chunk, sizeof chunk);
    if (n < 0 && (errno == EAGAIN || errno == EINTR)) continue;
    if (n <= 0) return ReadStatus::kEof;
    buffer_.append(chunk, static_cast<size_t>(n));
  }
}

bool WorkerProcess::has_pending_output() {
  if (!running()) return false;
  char chunk[65536];
  for (;;) {
    pollfd p{from_child_, POLLIN, 0};
    if (::poll(&p, 1, 0) <= 0 || !(p.revents & POLLIN)) break;
    ssize_t n = ::read(from_child_, chunk, sizeof chunk);
    if (n <= 0) break;  // EOF: the next read_line reports it
    buffer_.append(chunk, static_cast<size_t>(n));
    if (buffer_.size() > kMaxLine) break;
  }
  return !buffer_.empty() || dropping_;
}

void WorkerProcess::kill() {
  if (!running()) return;
  ::killpg(pid_, SIGKILL);
  int status = 0;
  while (::waitpid(pid_, &status, 0) < 0 && errno == EINTR) {
  }
  ended_ = describe_status(status);
  ::close(to_child_);
  ::close(from_child_);
  to_child_ = from_child_ = -1;
  pid_ = -1;
}

std::string WorkerProcess::reap_after_eof() {
  if (!running()) return ended_;
  // Closing stdout and exiting are two steps for the child; give it a moment for the second.
  // WNOWAIT leaves it a zombie, so its pid (the group id) cannot be reused before killpg.
  auto deadline = deadline_after(2.0);
  siginfo_t info{};
  while (Clock::now() < deadline) {
    info.si_pid = 0;
    if (::waitid(P_PID, pid_, &info, WEXITED | WNOHANG | WNOWAIT) == 0 && info.si_pid == pid_) {
      break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  kill();  // also ends what is left of the group
  return ended_;
}

std::string WorkerProcess::describe_status(int status) const {
  if (WIFSIGNALED(status)) return "signal " + std::to_string(WTERMSIG(status));
  if (WIFEXITED(status)) return "exit code " + std::to_string(WEXITSTATUS(status));
  return "status " + std::to_string(status);
}

std::string WorkerProcess::log_tail(size_t max_bytes) const {
  std::ifstream in(fs::path(spec_.scratch) / "worker.log", std::ios::binary);
  if (!in) return "";
  in.seekg(0, std::ios::end);
  std::streamoff size = in.tellg();
  std::streamoff from = size > std::streamoff(max_bytes) ? size - std::streamoff(max_bytes) : 0;
  in.seekg(from);
  std::string tail(static_cast<size_t>(size - from), '\0');
  in.read(tail.data(), static_cast<std::streamsize>(tail.size()));
  if (from > 0) {
    size_t nl = tail.find('\n');  // start at a whole line
    if (nl != std::string::npos) tail.erase(0, nl + 1);
  }
  return tail;
}

}  // namespace drtriton
