#include "cli/io.h"

#include <unistd.h>

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

void write_output(const std::string& path, const std::string& text) {
  if (path.empty() || path == "-") {
    std::cout << text;
    return;
  }
  write_atomic(path, [&](std::ostream& out) { out << text; });
}

void write_atomic(const std::string& path, const std::function<void(std::ostream&)>& write) {
  fs::path target(path);
  fs::path tmp = target;
  tmp += ".tmp" + std::to_string(::getpid());
  {
    std::ofstream out(tmp, std::ios::binary);
    if (!out) throw CliError(path + ": cannot be written");
    write(out);
    if (!out.flush()) {
      fs::remove(tmp);
      throw CliError(path + ": write failed");
    }
  }
  fs::rename(tmp, target);
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
  return (fs::path(DRTRITON_SOURCE_DIR) / "python").string();
}

}  // namespace drtriton::cli
