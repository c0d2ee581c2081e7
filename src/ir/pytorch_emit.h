// Emit: a graph as a KernelBench-format PyTorch program (class Model, module-level size
// constants, get_inputs, get_init_inputs), written the way a person would write it.
#pragma once

#include <string>

#include "ir/graph.h"

namespace drtriton {

std::string emit_pytorch(const Graph& graph);

}  // namespace drtriton
