#include "cli/io.h"

#include <sys/wait.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <csignal>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>

namespace fs = std::filesystem;

namespace drtriton::cli {

std::string read_file(const std::string& path) {
  if (!fs::exists(path)) throw CliError(path + ": no such file");
  if (fs::is_directory(path)) throw CliError(path + ": is a directory, not a file");
  std::ifstream in(path, std::ios::binary);
  if (!in) throw CliError(path + ": cannot be read");
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

void check_output_path(const std::string& path) {
  if (path.empty() || path == "-") return;
  fs::path target(path);
  fs::path folder = target.has_parent_path() ? target.parent_path() : fs::path(".");
  if (fs::is_directory(target)) {
    throw CLI::ValidationError(path, "is a directory; the output must be a file path");
  }
  if (!fs::is_directory(folder)) {
    throw CLI::ValidationError(path, "cannot be written: no folder " + folder.string());
  }
  if (::access(folder.c_str(), W_OK) != 0) {
    throw CLI::ValidationError(path,
                               "cannot be written: folder " + folder.string() + " is not writable");
  }
}

void write_output(const std::string& path, const std::string& text) {
  if (path.empty() || path == "-") {
    std::cout << text;
    return;
  }
  write_atomic(path, [&](std::ostream& out) { out << text; });
}

void write_atomic(const std::string& path, const std::function<void(std::ostream&)>& write) {
  check_output_path(path);
  fs::path target(path);
  fs::path tmp = target;
  tmp += ".tmp" + std::to_string(::getpid());
  std::error_code ec;
  try {
    {
      std::ofstream out(tmp, std::ios::binary);
      if (!out) throw CliError(path + ": cannot be written");
      write(out);
      if (!out.flush()) throw CliError(path + ": write failed (disk full?)");
    }
    fs::rename(tmp, target, ec);
    if (ec) throw CliError(path + ": cannot be written: " + ec.message());
  } catch (...) {
    fs::remove(tmp, ec);  // whatever failed, nothing is left behind
    throw;
  }
}

bool has_extension(const std::string& path, const char* ext) {
  return fs::path(path).extension() == ext;
}

std::string shell_quote(const std::string& s) {
  std::string q = "'";
  for (char c : s) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return q + "'";
}

std::string python_executable() {
  if (const char* p = std::getenv("DRTRITON_PYTHON")) return p;
  // The build's choice (CMake's DRTRITON_PYTHON: the project's .venv unless configured).
  return fs::exists(DRTRITON_PYTHON) ? std::string(DRTRITON_PYTHON) : "python3";
}

std::string python_path() {
  // The binary a wheel ships lies inside the package it belongs to (drtriton/_bin/drtriton),
  // and its Python side is that package, wherever the source tree it was built from is now.
  std::error_code ec;
  fs::path package = fs::read_symlink("/proc/self/exe", ec).parent_path().parent_path();
  if (!ec && package.filename() == "drtriton" && fs::exists(package / "__init__.py"))
    return package.parent_path().string();
  return (fs::path(DRTRITON_SOURCE_DIR) / "python").string();
}

int run_python_module(const std::string& module, const std::vector<std::string>& args,
                      bool quiet_stdout) {
  std::string path = python_path();
  if (const char* old = std::getenv("PYTHONPATH"); old && *old) path += std::string(":") + old;
  std::string cmd = "PYTHONPATH=" + shell_quote(path) + " ";
  // The module runs this very binary where it needs one (synth, serve), unless told otherwise.
  std::error_code ec;
  fs::path self = fs::read_symlink("/proc/self/exe", ec);
  if (!std::getenv("DRTRITON_BIN") && !ec)
    cmd += "DRTRITON_BIN=" + shell_quote(self.string()) + " ";
  cmd += shell_quote(python_executable()) + " -m " + module;
  for (const std::string& arg : args) cmd += " " + shell_quote(arg);
  if (quiet_stdout) cmd += " 1>&2";
  int status = std::system(cmd.c_str());
  if (status == -1) throw CliError("could not start " + python_executable());
  int code = WIFSIGNALED(status) ? 128 + WTERMSIG(status) : WEXITSTATUS(status);
  // system() ignores SIGINT while it waits: a child that Ctrl-C (or SIGTERM) ended passes it
  // on, so that the caller stops as the child did (or handles it, as bench does).
  if (code == 128 + SIGINT || code == 128 + SIGTERM) std::raise(code - 128);
  return code;
}

namespace {
Verbosity g_verbosity = Verbosity::Normal;
}  // namespace

void set_verbosity(Verbosity v) {
  g_verbosity = v;
}
bool quiet() {
  return g_verbosity == Verbosity::Quiet;
}
bool verbose() {
  return g_verbosity == Verbosity::Verbose;
}

std::ostream& info() {
  static std::ostream sink(nullptr);  // no buffer: every write is dropped
  return quiet() ? sink : std::cerr;
}

void Progress::operator()(int done) {
  static const bool tty = ::isatty(2);
  if (quiet()) return;
  auto now = std::chrono::steady_clock::now();
  if (!tty || (done != total_ && now - drawn_ < std::chrono::milliseconds(100))) return;
  drawn_ = now;
  double s = std::chrono::duration<double>(now - start_).count();
  int width = 30, filled = total_ ? width * std::min(done, total_) / total_ : width;
  std::fprintf(stderr, "\r%s [%s%s] %d/%d %s, %.1f s", label_.c_str(),
               std::string(filled, '#').c_str(), std::string(width - filled, '.').c_str(), done,
               total_, unit_.c_str(), s);
  if (done == total_) std::fprintf(stderr, "\n");
}

}  // namespace drtriton::cli
