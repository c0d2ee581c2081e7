// Import: lift the traced program that python/drtriton/frontend.py writes (torch.export's
// aten graph, with module calls, schema argument names and source lines) onto the
// operator table. Every rule of the mapping lives here, on the C++ side.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "ir/graph.h"

namespace drtriton {

// Throws IrError listing every operation it could not map, each with its source line.
Graph import_traced(const nlohmann::json& traced);

}  // namespace drtriton
