// The IR's JSON form, for the Python side and for tools:
// {"format": "drtriton.ir/1",
//  "inputs": [{"name": "x", "dtype": "f32", "shape": [..]}], "params": [...same...],
//  "nodes": [{"name": "1", "op": "conv2d", "inputs": ["x"], "attrs": {...},
//             "module": "conv", "dtype": "f32", "shape": [..]}],
//  "outputs": ["3"]}
// Attributes are complete (defaults included) in JSON; reading goes through the factory.
#pragma once

#include <nlohmann/json.hpp>

#include "ir/graph.h"

namespace drtriton {

nlohmann::json graph_to_json(const Graph& graph);
Graph graph_from_json(const nlohmann::json& json, const std::string& source = "<json>");
nlohmann::json attr_to_json(const AttrValue& value);
// Throws IrError naming `where` for a value with no attribute form.
AttrValue attr_from_json(const nlohmann::json& value, const std::string& where);
// The operator table as `drtriton ops --json` prints it.
nlohmann::json ops_to_json();

}  // namespace drtriton
