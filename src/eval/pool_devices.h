// Which device each verifier worker of a pool gets (PoolConfig::devices). GPU indices are
// CUDA's as the worker's torch sees them: after CUDA_VISIBLE_DEVICES, which the pool passes on
// to its workers, and numbered from 0.
#pragma once

#include <string>
#include <vector>

namespace drtriton {

// The GPUs a worker can use: those `nvidia-smi -L` lists ("GPU 0: ..."; none without a
// driver), narrowed by CUDA_VISIBLE_DEVICES when it is set.
std::vector<int> visible_gpus();
// That rule, given the number nvidia-smi lists and CUDA_VISIBLE_DEVICES (null: unset): CUDA
// renumbers the devices it keeps from 0 and stops at the first entry it cannot read, so the
// visible ones are the leading entries that are not empty or negative ("" and "-1" hide all),
// at most as many as are listed.
std::vector<int> visible_gpus(int listed, const char* cuda_visible_devices);
// A list of GPU indices such as "0,2", in its order. Throws std::invalid_argument, saying what
// was expected, for anything else: empty, an item that is not a whole number, a negative
// index, an index given twice.
std::vector<int> parse_gpu_list(const std::string& text);
// `workers` devices, spread round robin over `gpus` ("cuda:0", "cuda:1", "cuda:0", ...), so
// any prefix of the pool is as even as it can be; all "cpu" when `gpus` is empty.
std::vector<std::string> spread_workers(const std::vector<int>& gpus, int workers);
// The name of the physical GPU behind `device` ("cuda:1"), the same in every process of the
// machine whatever its CUDA_VISIBLE_DEVICES (null: unset): that list's entry for the index
// (an index of CUDA's order, or a "GPU-..." / "MIG-..." UUID), else the index itself; only
// letters, digits and '-' kept, so that it can name a file. The per-GPU timing lock is
// named by it: two services that see one GPU under different indices share its lock.
std::string physical_gpu_name(const std::string& device, const char* cuda_visible_devices);
// The workers of a pool when the user names no number: one per core on the CPU; on GPUs,
// the cores shared among them, from 1 to 8 per GPU.
int default_workers(int gpus, int cores);

}  // namespace drtriton
