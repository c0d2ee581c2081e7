#include "ir/graph.h"

#include <algorithm>
#include <cassert>
#include <cctype>
#include <set>

namespace drtriton {

bool is_digits(const std::string& s) {
  return !s.empty() &&
         std::all_of(s.begin(), s.end(), [](unsigned char c) { return std::isdigit(c); });
}

bool is_identifier(const std::string& s) {
  if (s.empty() || std::isdigit(static_cast<unsigned char>(s[0]))) return false;
  return std::all_of(s.begin(), s.end(),
                     [](unsigned char c) { return std::isalnum(c) || c == '_'; });
}

bool is_valid_name(const std::string& name, bool allow_dots) {
  if (name.empty()) return false;
  for (size_t i = 0; i < name.size(); ++i) {
    char c = name[i];
    bool ok = std::isalnum(static_cast<unsigned char>(c)) || c == '_' ||
              (allow_dots && c == '.' && i > 0 && i + 1 < name.size() && name[i - 1] != '.');
    if (!ok) return false;
  }
  return true;
}

bool is_integer_clamp(const Graph& g, const Node& n) {
  const bool clamp = n.op == Op::Clamp || n.op == Op::ClampMin || n.op == Op::ClampMax;
  return clamp && !is_floating(g.value(n.output).type.dtype);
}

ValueId Graph::add_value(const std::string& name, const TensorType& type, ValueKind kind) {
  if (!is_valid_name(name)) {
    throw IrError("invalid value name '%" + name + "': use letters, digits and '_'");
  }
  if (find_value(name) >= 0) throw IrError("value %" + name + " is defined twice");
  for (int64_t d : type.shape) {
    if (d < 1) throw IrError("value %" + name + " has a dimension < 1 in " + to_string(type));
  }
  values_.push_back({name, type, kind, -1});
  return static_cast<ValueId>(values_.size() - 1);
}

ValueId Graph::add_input(const std::string& name, const TensorType& type, Init init) {
  ValueId id = add_value(name, type, ValueKind::Input);
  values_[id].init = init;
  inputs_.push_back(id);
  return id;
}

ValueId Graph::add_param(const std::string& name, const TensorType& type, Init init) {
  ValueId id = add_value(name, type, ValueKind::Param);
  values_[id].init = init;
  params_.push_back(id);
  return id;
}

ValueId Graph::find_value(const std::string& name) const {
  for (size_t i = 0; i < values_.size(); ++i)
    if (values_[i].name == name) return static_cast<ValueId>(i);
  return -1;
}

namespace {

// Complete and check a node's attributes against its schema: unknown names, types,
// ranges and required attributes; fill in defaults.
void complete_attrs(const OpSchema& schema, Attrs& attrs) {
  for (const auto& [name, value] : attrs) {
    if (!schema.find_attr(name)) {
      std::string known;
      for (const AttrSpec& a : schema.attrs) known += (known.empty() ? "" : ", ") + a.name;
      throw IrError("unknown attribute '" + name + "'" +
                    (known.empty() ? " (it takes none)" : " (it takes: " + known + ")"));
    }
  }
  for (const AttrSpec& spec : schema.attrs) {
    auto it = attrs.find(spec.name);
    if (it == attrs.end()) {
      if (spec.default_value) {
        attrs[spec.name] = *spec.default_value;
      } else if (!spec.default_from.empty() && attrs.count(spec.default_from)) {
        attrs[spec.name] = attrs[spec.default_from];
      } else {
        throw IrError("missing required attribute '" + spec.name + "'");
      }
      continue;
    }
    if (auto error = coerce_attr(spec, &it->second)) throw IrError(*error);
  }
  // A second pass: default_from values were copied before their source was coerced.
  for (const AttrSpec& spec : schema.attrs) {
    if (auto error = coerce_attr(spec, &attrs[spec.name])) throw IrError(*error);
  }
}

}  // namespace

ValueId Graph::add_node(Op op, const std::vector<ValueId>& inputs, Attrs attrs,
                        const std::string& module, const std::string& name) {
  const OpSchema& schema = op_schema(op);
  std::string where = schema.name;
  try {
    if (schema.arity >= 0 && static_cast<int>(inputs.size()) != schema.arity) {
      throw IrError("takes " + std::to_string(schema.arity) + " input" +
                    (schema.arity == 1 ? "" : "s") + ", got " + std::to_string(inputs.size()));
    }
    if (schema.arity < 0 && inputs.empty()) throw IrError("takes at least one input, got none");
    std::vector<TensorType> types;
    for (size_t i = 0; i < inputs.size(); ++i) {
      if (inputs[i] < 0 || inputs[i] >= static_cast<ValueId>(values_.size())) {
        throw IrError("input " + std::to_string(i) + " is not a value of this graph");
      }
      const TensorType& t = values_[inputs[i]].type;
      // Arithmetic needs floats; the condition of where, indices (the shape rule checks
      // they are integers), the layout ops and the ops marked any_dtype take any dtype.
      bool any_dtype = schema.category == Category::Layout || schema.any_dtype ||
                       (op == Op::Where && i == 0) || static_cast<int>(i) == schema.index_input;
      if (!any_dtype && !is_floating(t.dtype)) {
        throw IrError("input " + std::to_string(i) + " (%" + values_[inputs[i]].name +
                      ") must be floating point, got " + to_string(t));
      }
      types.push_back(t);
    }
    complete_attrs(schema, attrs);
    if (schema.needs_module() && module.empty()) {
      throw IrError("is a module op and needs a module name (module=\"...\")");
    }
    if (!module.empty() && schema.torch_module.empty()) {
      throw IrError("has no module form, so it cannot name module \"" + module + "\"");
    }
    Node node{op, inputs, std::move(attrs), module, -1, source_};
    check_module_name(node);
    TensorType out = schema.infer_shape(types, node.attrs);
    std::string out_name = name.empty() ? std::to_string(next_number_++) : name;
    ValueId id = add_value(out_name, out, ValueKind::Node);
    values_[id].node = static_cast<int>(nodes_.size());
    node.output = id;
    nodes_.push_back(std::move(node));
    return id;
  } catch (const IrError& e) {
    std::string args;
    for (ValueId v : inputs) {
      bool known = v >= 0 && v < static_cast<ValueId>(values_.size());
      args += (args.empty() ? "%" : ", %") + (known ? values_[v].name : std::string("?"));
    }
    throw IrError(where + "(" + args + "): " + e.what());
  }
}

void Graph::check_module_name(const Node& node) const {
  if (node.module.empty()) return;
  if (!is_valid_name(node.module, true) ||
      std::isdigit(static_cast<unsigned char>(node.module[0]))) {
    throw IrError("module name \"" + node.module + "\" is not a Python attribute path");
  }
  for (ValueId p : params_) {
    if (values_[p].name == node.module) {
      throw IrError("module name \"" + node.module + "\" is also a parameter's name");
    }
  }
  // `result` picks one value of a layer with several (an RNN's output or final states): it
  // is not a property of the layer. Compared as text, where NaN (a None) equals itself.
  auto layer_attrs = [](const Attrs& attrs) {
    std::map<std::string, std::string> text;
    for (const auto& [name, value] : attrs)
      if (name != "result") text[name] = attr_to_string(value);
    return text;
  };
  for (const Node& other : nodes_) {
    if (other.module != node.module) continue;
    // One module called twice shares its weights: it must be the same layer.
    if (other.op != node.op || layer_attrs(other.attrs) != layer_attrs(node.attrs)) {
      throw IrError("module \"" + node.module + "\" is already a " + other.schema().name +
                    " with other attributes; a module name denotes one layer");
    }
  }
}

void Graph::set_sym_shape(ValueId id, std::vector<std::string> dims) {
  Value& v = values_.at(id);
  if (static_cast<int>(dims.size()) != v.type.rank()) {
    throw IrError("%" + v.name + ": symbolic shape has " + std::to_string(dims.size()) +
                  " dims, its type " + to_string(v.type));
  }
  v.sym_shape = std::move(dims);
}

void Graph::set_sym_attr(ValueId id, const std::string& attr, std::string expr) {
  const Value& v = values_.at(id);
  if (v.kind != ValueKind::Node) throw IrError("%" + v.name + " is not computed by a node");
  Node& n = nodes_.at(v.node);
  const AttrSpec* spec = n.schema().find_attr(attr);
  if (!spec || (spec->type != AttrType::Float && spec->type != AttrType::Int)) {
    throw IrError("%" + v.name + ": " + n.schema().name + " has no number attribute " + attr);
  }
  n.sym_attrs[attr] = std::move(expr);
}

void Graph::set_outputs(const std::vector<ValueId>& outputs) {
  if (outputs.empty()) throw IrError("a graph needs at least one output");
  for (ValueId v : outputs) {
    if (v < 0 || v >= static_cast<ValueId>(values_.size())) {
      throw IrError("output is not a value of this graph");
    }
  }
  outputs_ = outputs;
}

std::vector<ParamSpec> Graph::node_params(const Node& node) const {
  const OpSchema& schema = node.schema();
  if (!schema.params) return {};
  std::vector<ParamSpec> params = schema.params(node.attrs);
  for (ParamSpec& p : params) p.name = node.module + "." + p.name;
  return params;
}

double Graph::node_flops(const Node& node) const {
  const OpSchema& schema = node.schema();
  std::vector<TensorType> in;
  for (ValueId v : node.inputs) in.push_back(values_[v].type);
  const TensorType& out = values_[node.output].type;
  if (schema.flops) return schema.flops(in, out, node.attrs);
  int64_t n = out.numel();
  for (const TensorType& t : in) n = std::max(n, t.numel());
  return schema.flops_per_element * static_cast<double>(n);
}

int64_t Graph::node_bytes(const Node& node) const {
  int64_t bytes = values_[node.output].type.bytes();
  for (ValueId v : node.inputs) bytes += values_[v].type.bytes();
  for (const ParamSpec& p : node_params(node)) bytes += p.type.bytes();
  return bytes;
}

double Graph::flops() const {
  double total = 0;
  for (const Node& n : nodes_) total += node_flops(n);
  return total;
}

int64_t Graph::bytes() const {
  int64_t total = 0;
  for (const Node& n : nodes_) total += node_bytes(n);
  return total;
}

int64_t Graph::io_bytes() const {
  int64_t total = 0;
  for (ValueId v : inputs_) total += values_[v].type.bytes();
  for (ValueId v : params_) total += values_[v].type.bytes();
  for (ValueId v : outputs_) total += values_[v].type.bytes();
  std::set<std::string> modules;  // two nodes of one module share its state
  for (const Node& n : nodes_) {
    if (!modules.insert(n.module).second && !n.module.empty()) continue;
    for (const ParamSpec& p : node_params(n)) total += p.type.bytes();
  }
  return total;
}

int Graph::compute_ops() const {
  int n = 0;
  for (const Node& node : nodes_) n += node.schema().category != Category::Layout;
  return n;
}

}  // namespace drtriton
