// Shared plumbing of the subcommands: reading inputs, writing outputs atomically, the
// error type whose message reaches the user, and starting the project's Python.
#pragma once

#include <functional>
#include <ostream>
#include <stdexcept>
#include <string>

namespace drtriton::cli {

// A user-facing failure: main prints it as "drtriton: <message>" and exits 1.
struct CliError : std::runtime_error {
  using std::runtime_error::runtime_error;
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
// The folder python/ of this source tree (for PYTHONPATH).
std::string python_path();

}  // namespace drtriton::cli
