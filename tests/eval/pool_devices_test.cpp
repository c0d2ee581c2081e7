// Which device each verifier worker gets: --gpus lists, the visible GPUs, the round robin.
#include "eval/pool_devices.h"

#include <gtest/gtest.h>

#include <stdexcept>

#include "eval/worker_process.h"

namespace drtriton {
namespace {

using Devices = std::vector<std::string>;

// What of the service's environment reaches a worker: what Python, CUDA and Triton need and
// the verifier's settings, never anything else (a secret in the service's environment).
TEST(WorkerEnvironment, PassesTheVerifiersSettingsAndNoOthers) {
  for (const char* name :
       {"PATH", "PYTHONPATH", "CUDA_VISIBLE_DEVICES", "TRITON_INTERPRET", "DRTRITON_TASK_CACHE_MB",
        "DRTRITON_INPUT_KEEP_MB", "DRTRITON_QUIET_TIMING", "DRTRITON_PRECOMPILE",
        "DRTRITON_STEADY_RUNS", "DRTRITON_TEST_X", "PYTORCH_CUDA_ALLOC_CONF"})
    EXPECT_TRUE(worker_env_allowed(name)) << name;
  for (const char* name : {"HOME", "AWS_SECRET_ACCESS_KEY", "DRTRITON_GPU_LOCK", "OPENAI_API_KEY"})
    EXPECT_FALSE(worker_env_allowed(name)) << name;
}

TEST(PoolDevices, WorkersGoRoundRobinOverTheListedGpus) {
  EXPECT_EQ(spread_workers({0, 1}, 5), (Devices{"cuda:0", "cuda:1", "cuda:0", "cuda:1", "cuda:0"}));
  EXPECT_EQ(spread_workers({3, 1}, 3), (Devices{"cuda:3", "cuda:1", "cuda:3"}));
  EXPECT_EQ(spread_workers({2}, 2), (Devices{"cuda:2", "cuda:2"}));
  EXPECT_EQ(spread_workers({}, 2), (Devices{"cpu", "cpu"}));
  EXPECT_EQ(spread_workers({0, 1}, 0), Devices{});
}

TEST(PoolDevices, DefaultWorkersShareTheCoresAtMostEightPerGpu) {
  EXPECT_EQ(default_workers(0, 6), 6);   // CPU: one per core
  EXPECT_EQ(default_workers(1, 16), 8);  // at most 8 per GPU
  EXPECT_EQ(default_workers(2, 8), 8);   // 4 cores each
  EXPECT_EQ(default_workers(8, 4), 8);   // at least one per GPU
  EXPECT_EQ(default_workers(0, 0), 1);   // an unknown core count is one
}

TEST(PoolDevices, APhysicalGpuIsNamedAlikeUnderAnyVisibleList) {
  EXPECT_EQ(physical_gpu_name("cuda:1", nullptr), "1");
  EXPECT_EQ(physical_gpu_name("cuda:0", "3,1"), "3");
  EXPECT_EQ(physical_gpu_name("cuda:1", "3,1"), "1");
  EXPECT_EQ(physical_gpu_name("cuda:1", "1"), "1");  // past the list: CUDA fails, the name stays
  EXPECT_EQ(physical_gpu_name("cuda:0", "GPU-5f25/../x,2"), "GPU-5f25x");  // a file name only
  EXPECT_EQ(physical_gpu_name("cuda:0", "MIG-ab12,2"), "MIG-ab12");
}

TEST(PoolDevices, AGpuListIsWholeNumbersEachOnce) {
  EXPECT_EQ(parse_gpu_list("0"), std::vector<int>{0});
  EXPECT_EQ(parse_gpu_list("2,0,1"), (std::vector<int>{2, 0, 1}));
  for (const char* bad : {"", "a,b", "0,", ",1", "0,,1", "-1", "1.5", " 1", "0,0", "9999999"}) {
    EXPECT_THROW(parse_gpu_list(bad), std::invalid_argument) << bad;
  }
  try {
    parse_gpu_list("a,b");
  } catch (const std::invalid_argument& e) {
    EXPECT_STREQ(e.what(), "expected GPU indices like 0,1, got 'a,b'");
  }
}

TEST(PoolDevices, CudaVisibleDevicesNarrowsAndRenumbersTheListedGpus) {
  EXPECT_EQ(visible_gpus(2, nullptr), (std::vector<int>{0, 1}));
  EXPECT_EQ(visible_gpus(8, "5,7"), (std::vector<int>{0, 1}));  // CUDA's numbers, from 0
  EXPECT_EQ(visible_gpus(8, "GPU-1a2b,GPU-3c4d,GPU-5e"), (std::vector<int>{0, 1, 2}));
  EXPECT_EQ(visible_gpus(8, ""), std::vector<int>{});         // hides every GPU
  EXPECT_EQ(visible_gpus(8, "-1"), std::vector<int>{});       // likewise
  EXPECT_EQ(visible_gpus(8, "1,-1,2"), std::vector<int>{0});  // CUDA stops at -1
  EXPECT_EQ(visible_gpus(1, "0,1,2"), std::vector<int>{0});   // no more than are there
  EXPECT_EQ(visible_gpus(0, "0"), std::vector<int>{});
}

}  // namespace
}  // namespace drtriton
