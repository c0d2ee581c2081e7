#include "eval/pool_devices.h"

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <set>
#include <sstream>
#include <stdexcept>

namespace drtriton {

std::vector<int> visible_gpus() {
  int listed = 0;
  FILE* p = ::popen("nvidia-smi -L 2>/dev/null", "r");
  if (p) {
    char line[512];
    int index = 0;
    while (std::fgets(line, sizeof line, p)) listed += std::sscanf(line, "GPU %d:", &index) == 1;
    ::pclose(p);
  }
  return visible_gpus(listed, std::getenv("CUDA_VISIBLE_DEVICES"));
}

std::vector<int> visible_gpus(int listed, const char* cuda_visible_devices) {
  int count = listed;
  if (cuda_visible_devices) {
    int kept = 0;
    std::istringstream entries(cuda_visible_devices);
    for (std::string e; std::getline(entries, e, ',') && !e.empty() && e[0] != '-';) ++kept;
    count = std::min(count, kept);
  }
  std::vector<int> gpus;
  for (int g = 0; g < count; ++g) gpus.push_back(g);
  return gpus;
}

std::string physical_gpu_name(const std::string& device, const char* cuda_visible_devices) {
  std::string index = device.substr(device.find(':') + 1);
  std::string name = index;
  if (cuda_visible_devices && std::all_of(index.begin(), index.end(), ::isdigit) &&
      !index.empty() && index.size() < 6) {
    std::istringstream entries(cuda_visible_devices);
    std::string e;
    for (int i = 0; std::getline(entries, e, ','); ++i) {
      if (i == std::stoi(index)) {
        name = e;
        break;
      }
    }
  }
  std::string kept;
  for (unsigned char c : name)
    if (std::isalnum(c) || c == '-') kept += static_cast<char>(c);
  return kept.empty() ? "0" : kept;
}

std::vector<int> parse_gpu_list(const std::string& text) {
  auto bad = [&] {
    return std::invalid_argument("expected GPU indices like 0,1, got '" + text + "'");
  };
  std::vector<int> gpus;
  std::set<int> seen;
  std::istringstream items(text + ",");  // so that a trailing comma reads as an empty item
  for (std::string item; std::getline(items, item, ',');) {
    auto digit = [](unsigned char c) { return std::isdigit(c) != 0; };
    if (item.empty() || item.size() > 6 || !std::all_of(item.begin(), item.end(), digit))
      throw bad();
    int g = std::stoi(item);
    if (!seen.insert(g).second)
      throw std::invalid_argument("GPU " + item + " is named twice in '" + text + "'");
    gpus.push_back(g);
  }
  if (gpus.empty()) throw bad();
  return gpus;
}

std::vector<std::string> spread_workers(const std::vector<int>& gpus, int workers) {
  std::vector<std::string> devices;
  for (int w = 0; w < workers; ++w)
    devices.push_back(gpus.empty() ? "cpu" : "cuda:" + std::to_string(gpus[w % gpus.size()]));
  return devices;
}

int default_workers(int gpus, int cores) {
  cores = std::max(1, cores);
  // Eight workers keep one H200's timing lock busy 87% of the time on small kernels
  // (docs/results/verify_throughput_h200.md); fewer when there are fewer cores to feed them.
  return gpus == 0 ? cores : gpus * std::clamp(cores / gpus, 1, 8);
}

}  // namespace drtriton
