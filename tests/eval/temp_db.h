// A SQLite file path under /tmp for one test, removed (with its -wal and -shm companions)
// before and after.
#pragma once

#include <unistd.h>

#include <filesystem>
#include <string>

namespace drtriton {

struct TempDb {
  std::filesystem::path path;
  explicit TempDb(const std::string& name)
      : path(std::filesystem::temp_directory_path() /
             ("drtriton-test-" + std::to_string(::getpid()) + "-" + name + ".sqlite")) {
    remove();
  }
  ~TempDb() { remove(); }
  std::string str() const { return path.string(); }
  void remove() const {
    for (const char* suffix : {"", "-wal", "-shm"}) std::filesystem::remove(path.string() + suffix);
  }
};

}  // namespace drtriton
