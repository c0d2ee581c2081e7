#include "ir/fragment.h"

#include <map>
#include <string>

namespace drtriton {

Fragment extract_fragment(const Graph& whole, int begin, int end) {
  const auto& nodes = whole.nodes();
  if (begin < 0 || end > static_cast<int>(nodes.size()) || begin >= end) {
    throw IrError("fragment [" + std::to_string(begin) + ", " + std::to_string(end) +
                  ") is not a range of the graph's " + std::to_string(nodes.size()) + " nodes");
  }
  Fragment f;
  f.begin = begin;
  f.end = end;
  auto defined_inside = [&](ValueId v) {
    const Value& value = whole.value(v);
    return value.kind == ValueKind::Node && value.node >= begin && value.node < end;
  };
  std::map<ValueId, ValueId> local;  // whole graph's value -> the fragment's
  auto bind = [&](ValueId v) {
    if (local.count(v)) return;
    const Value& value = whole.value(v);
    ValueId id = value.kind == ValueKind::Param
                     ? f.graph.add_param(value.name, value.type, value.init)
                     : f.graph.add_input(value.name, value.type, value.init);
    if (!value.sym_shape.empty()) f.graph.set_sym_shape(id, value.sym_shape);
    if (value.kind != ValueKind::Param) f.inputs.push_back(v);
    local[v] = id;
  };
  for (int i = begin; i < end; ++i) {
    const Node& n = nodes[i];
    std::vector<ValueId> ins;
    for (ValueId v : n.inputs) {
      if (!defined_inside(v)) bind(v);
      ins.push_back(local.at(v));
    }
    f.graph.set_source(n.source);
    ValueId out = f.graph.add_node(n.op, ins, n.attrs, n.module, whole.value(n.output).name);
    const Value& value = whole.value(n.output);
    if (!value.sym_shape.empty()) f.graph.set_sym_shape(out, value.sym_shape);
    for (const auto& [attr, expr] : n.sym_attrs) f.graph.set_sym_attr(out, attr, expr);
    local[n.output] = out;
  }
  // What the rest of the program reads of it: later nodes' inputs, then the graph's outputs.
  auto returned = [&](ValueId v) {
    for (ValueId o : f.outputs)
      if (o == v) return;
    f.outputs.push_back(v);
  };
  for (int i = end; i < static_cast<int>(nodes.size()); ++i)
    for (ValueId v : nodes[i].inputs)
      if (defined_inside(v)) returned(v);
  for (ValueId v : whole.outputs())
    if (defined_inside(v)) returned(v);
  if (f.outputs.empty()) {
    throw IrError("fragment [" + std::to_string(begin) + ", " + std::to_string(end) +
                  ") computes nothing that the program reads after it");
  }
  std::vector<ValueId> outs;
  for (ValueId v : f.outputs) outs.push_back(local.at(v));
  f.graph.set_outputs(outs);
  return f;
}

}  // namespace drtriton
