// Shared plumbing of the subcommands: reading inputs, writing outputs atomically, the
// error type whose message reaches the user, and starting the project's Python.
#pragma once

#include <chrono>
#include <filesystem>
#include <functional>
#include <ostream>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace drtriton::cli {

// A user-facing failure: main prints it as "drtriton: <message>" and exits 1.
struct CliError : std::runtime_error {
  using std::runtime_error::runtime_error;
};
// A child process (Python) failed and said why itself: main exits with its status, silently.
struct ExitStatus {
  int code;
};

std::string read_file(const std::string& path);
// An output path that cannot be written (an existing folder, a missing or read-only parent
// folder) is a usage error (exit 2), found before any work is done. "" and "-" (stdout) pass.
void check_output_path(const std::string& path);
// Write through a temporary file in the same folder and rename it into place, so a
// reader never sees half a file and a failure leaves nothing behind. "" or "-": stdout.
void write_output(const std::string& path, const std::string& text);
// The same for a file written piece by piece (a large dataset) to a stream.
void write_atomic(const std::string& path, const std::function<void(std::ostream&)>& write);
bool has_extension(const std::string& path, const char* ext);
std::string shell_quote(const std::string& s);
// The Python that has PyTorch: $DRTRITON_PYTHON, else the one the build was configured
// with (the project's virtual environment), else python3.
std::string python_executable();
// The folder that holds the drtriton Python package (for PYTHONPATH): python/ of the source
// tree, or for the binary an installed package ships (drtriton/_bin/), the folder it lies in.
std::string python_path();
// `python -m MODULE ARGS...` with the project's Python and python/ on PYTHONPATH, its output
// passed through (its stdout to our stderr with `quiet_stdout`, so ours stays clean);
// returns its exit status (a signal counts as 128 + its number). A child ended by SIGINT or
// SIGTERM raises the same signal here: Ctrl-C stops the caller too, unless it handles it.
int run_python_module(const std::string& module, const std::vector<std::string>& args,
                      bool quiet_stdout = false);

// How much a command says on stderr besides its errors: --quiet (nothing), the default
// (where its output went, progress bars on a terminal, rejected samples), --verbose (also
// each step's time and each program's outcome as it comes).
enum class Verbosity { Quiet, Normal, Verbose };
void set_verbosity(Verbosity v);
bool quiet();
bool verbose();
// stderr for what a command says as it goes; a sink under --quiet.
std::ostream& info();

// A scratch folder, removed however the run ends.
struct ScratchDir {
  std::filesystem::path path;
  ~ScratchDir() {
    std::error_code ec;
    std::filesystem::remove_all(path, ec);
  }
};

// A one-line progress bar on stderr when it is a terminal ("synth [###...] 12/100 programs,
// 3.1 s"), redrawn at most ten times a second and at the end; nothing when stderr is a file
// or a pipe. Called with the number of items done.
class Progress {
 public:
  // "synth [...] 12/100 programs": label, total, unit.
  Progress(std::string label, int total, std::string unit = "programs")
      : label_(std::move(label)), unit_(std::move(unit)), total_(total) {}
  void operator()(int done);

 private:
  std::string label_, unit_;
  int total_;
  std::chrono::steady_clock::time_point start_ = std::chrono::steady_clock::now(), drawn_{};
};

}  // namespace drtriton::cli
