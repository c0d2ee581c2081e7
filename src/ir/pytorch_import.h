// Import: lift the traced program that python/drtriton/frontend.py writes (torch.export's
// aten graph, with module calls, schema argument names and source lines) onto the
// operator table. Every rule of the mapping lives here, on the C++ side.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "ir/graph.h"

namespace drtriton {

// import_traced's error: the message lists every operation it could not map, each with its
// source line; `calls` names the aten calls among them ("aten::glu.default"), which a trace
// through torch's own decompositions (the frontend's --decompose) may turn into calls it maps.
struct ImportError : IrError {
  ImportError(const std::string& what, std::vector<std::string> calls)
      : IrError(what), calls(std::move(calls)) {}
  std::vector<std::string> calls;
};

// Throws ImportError.
Graph import_traced(const nlohmann::json& traced);

}  // namespace drtriton
