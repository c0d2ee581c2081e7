// The IR's text form: one declaration or node a line, SSA names with '%'.
//
//   # comments and blank lines are ignored
//   input %x : f32[128,3,32,32]
//   param %scale : f32[16,1,1]
//   %1 : f32[128,16,30,30] = conv2d(%x) {module="conv", in_channels=3, out_channels=16,
//   kernel_size=[3,3]} %2 : f32[128,16,30,30] = relu(%1) %3 : f32[128,16,30,30] = mul(%2, %scale)
//   return %3
//
// print_graph writes every node's type and only the attributes that differ from their
// defaults (required ones always), in the operator's declared order, so that
// print(parse(print(g))) == print(g) byte for byte. The parser accepts a node line with
// or without its type; a type that is given must equal the inferred one.
#pragma once

#include <string>

#include "ir/graph.h"

namespace drtriton {

std::string print_graph(const Graph& graph);
// `source` names the text in error messages ("graph.ir:3: unknown operator 'relux'").
Graph parse_graph(const std::string& text, const std::string& source = "<input>");
// The text of one node's right-hand side: op(%a, %b) {attrs}.
std::string print_node(const Graph& graph, const Node& node);

}  // namespace drtriton
