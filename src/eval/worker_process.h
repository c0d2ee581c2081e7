// One verifier worker: a child process (python -m drtriton.worker, or a test's fake) in its
// own process group, fed JSON lines on its stdin and read line by line from its stdout with
// timeouts, its stderr going to worker.log in its scratch folder. Killing it kills the whole
// group, so a candidate's stray subprocesses (a Triton compile, a fork bomb) go with it; in
// the sandbox (sandbox.h) the worker is also PID 1 of its own PID namespace, so even a
// process that left the group (setsid) dies with it.
//
// The worker gets a clean environment, not the service's: the variables of kEnvAllowed, the
// spec's, and HOME, TMPDIR and the compiler caches pointed into its scratch folder.
#pragma once

#include <sys/types.h>

#include <map>
#include <string>
#include <vector>

namespace drtriton {

struct WorkerSpec {
  std::vector<std::string> command;        // argv; --device and --scratch are appended
  std::map<std::string, std::string> env;  // set on top of the allowed part of ours
  std::string device;                      // "cpu" or "cuda:N"
  std::string scratch;                     // the worker's own folder, made fresh each start
  bool sandbox = false;                    // start it inside the OS sandbox (sandbox.h)
};

// Whether a variable of the service's environment is passed on to workers: what Python,
// CUDA and the locale need (PATH, LD_LIBRARY_PATH, PYTHONPATH, LANG, LC_*, CUDA_*, NVIDIA_*,
// OMP_NUM_THREADS, TRITON_*, PYTORCH_CUDA_ALLOC_CONF: how torch's allocator caches GPU
// memory), the verifier's own settings (DRTRITON_TASK_CACHE_MB, DRTRITON_INPUT_KEEP_MB,
// DRTRITON_QUIET_TIMING, DRTRITON_PRECOMPILE, DRTRITON_STEADY_RUNS) and the test-only
// DRTRITON_TEST_*; nothing else.
bool worker_env_allowed(const std::string& name);

enum class ReadStatus { kLine, kTimeout, kEof };

class WorkerProcess {
 public:
  explicit WorkerProcess(WorkerSpec spec);
  ~WorkerProcess();  // kills the group
  WorkerProcess(const WorkerProcess&) = delete;
  WorkerProcess& operator=(const WorkerProcess&) = delete;

  // Spawn the child. Throws std::runtime_error when it cannot be started at all. Call it from
  // a thread that outlives the child: the child gets SIGKILL when the thread that forked it
  // ends (PR_SET_PDEATHSIG), which is what takes the workers down with a killed service.
  void start();
  bool running() const { return pid_ > 0; }
  // Write one line (a newline is added). False when the worker is gone or does not read it
  // within `timeout_s`.
  bool send_line(const std::string& line, double timeout_s);
  // The next line of stdout, waiting at most `timeout_s`. Lines longer than kMaxLine (a
  // candidate printing megabytes to the protocol channel) are dropped, not buffered.
  ReadStatus read_line(std::string& line, double timeout_s);
  // Whether the worker wrote anything not yet read (without waiting). Between requests it
  // writes nothing, so anything there was written by something else.
  bool has_pending_output();
  // SIGKILL the process group and reap the child; records how it ended.
  void kill();
  // After EOF: wait briefly for the child to exit by itself, then kill it. Returns how it
  // ended: "signal 11", "exit code 3".
  std::string reap_after_eof();
  // The last lines of worker.log (at most `max_bytes`), for a verdict's worker_log.
  std::string log_tail(size_t max_bytes = 4096) const;
  const WorkerSpec& spec() const { return spec_; }

  static constexpr size_t kMaxLine = 16 << 20;

 private:
  std::string describe_status(int status) const;

  WorkerSpec spec_;
  pid_t pid_ = -1;
  int to_child_ = -1;      // the child's stdin
  int from_child_ = -1;    // the child's stdout
  std::string buffer_;     // stdout read but not yet returned as lines
  bool dropping_ = false;  // inside an over-long line: discard up to its newline
  std::string ended_;      // how the last child ended
};

}  // namespace drtriton
