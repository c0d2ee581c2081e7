#include "ir/json_form.h"

#include <cmath>

namespace drtriton {

using json = nlohmann::json;

json attr_to_json(const AttrValue& value) {
  switch (attr_type_of(value)) {
    case AttrType::Int: return std::get<int64_t>(value);
    case AttrType::Float: {
      double v = std::get<double>(value);
      // JSON has no inf or nan; spell them as text, as the traced form does.
      if (!std::isfinite(v)) return json{{"float", float_to_string(v)}};
      return v;
    }
    case AttrType::Bool: return std::get<bool>(value);
    case AttrType::Ints: return std::get<std::vector<int64_t>>(value);
    case AttrType::Str: return std::get<std::string>(value);
  }
  return nullptr;
}

AttrValue attr_from_json(const json& j, const std::string& where) {
  if (j.is_boolean()) return j.get<bool>();
  if (j.is_number_integer()) return j.get<int64_t>();
  if (j.is_number_float()) return j.get<double>();
  if (j.is_string()) return j.get<std::string>();
  if (j.is_object() && j.contains("float") && j["float"].is_string()) {
    std::string s = j["float"];
    if (s == "inf") return std::numeric_limits<double>::infinity();
    if (s == "-inf") return -std::numeric_limits<double>::infinity();
    if (s == "nan") return std::numeric_limits<double>::quiet_NaN();
  }
  if (j.is_array()) {
    std::vector<int64_t> v;
    for (const json& e : j) {
      if (!e.is_number_integer()) throw IrError(where + ": a list attribute must hold integers");
      v.push_back(e.get<int64_t>());
    }
    return v;
  }
  throw IrError(where + ": unsupported attribute value " + j.dump());
}

namespace {

json type_fields(const TensorType& t) {
  return {{"dtype", std::string(dtype_name(t.dtype))}, {"shape", t.shape}};
}

json value_decl(const Value& v) {
  json j = type_fields(v.type);
  j["name"] = v.name;
  if (v.init == Init::Positive) j["init"] = "positive";
  return j;
}

Init init_field(const json& j, const std::string& where) {
  std::string init = j.value("init", "normal");
  if (init != "normal" && init != "positive") {
    throw IrError(where + ": \"init\" must be \"normal\" or \"positive\"");
  }
  return init == "positive" ? Init::Positive : Init::Normal;
}

TensorType type_from_json(const json& j, const std::string& where) {
  TensorType t;
  if (!j.contains("dtype") || !j["dtype"].is_string() ||
      !parse_dtype(j["dtype"].get<std::string>(), &t.dtype)) {
    throw IrError(where + ": missing or unknown \"dtype\"");
  }
  if (!j.contains("shape") || !j["shape"].is_array()) throw IrError(where + ": missing \"shape\"");
  for (const json& d : j["shape"]) {
    if (!d.is_number_integer()) throw IrError(where + ": \"shape\" must hold integers");
    t.shape.push_back(d.get<int64_t>());
  }
  return t;
}

std::string name_field(const json& j, const std::string& where) {
  if (!j.contains("name") || !j["name"].is_string()) throw IrError(where + ": missing \"name\"");
  return j["name"];
}

}  // namespace

json graph_to_json(const Graph& graph) {
  json j = {{"format", "drtriton.ir/1"}};
  j["inputs"] = json::array();
  for (ValueId v : graph.inputs()) j["inputs"].push_back(value_decl(graph.value(v)));
  j["params"] = json::array();
  for (ValueId v : graph.params()) j["params"].push_back(value_decl(graph.value(v)));
  j["nodes"] = json::array();
  for (const Node& node : graph.nodes()) {
    json n = value_decl(graph.value(node.output));
    n["op"] = node.schema().name;
    n["inputs"] = json::array();
    for (ValueId v : node.inputs) n["inputs"].push_back(graph.value(v).name);
    n["attrs"] = json::object();
    for (const auto& [key, value] : node.attrs) n["attrs"][key] = attr_to_json(value);
    if (!node.module.empty()) n["module"] = node.module;
    j["nodes"].push_back(n);
  }
  j["outputs"] = json::array();
  for (ValueId v : graph.outputs()) j["outputs"].push_back(graph.value(v).name);
  return j;
}

Graph graph_from_json(const json& j, const std::string& source) {
  if (!j.is_object() || j.value("format", "") != "drtriton.ir/1") {
    throw IrError(source + ": not a drtriton IR JSON (expected \"format\": \"drtriton.ir/1\")");
  }
  Graph g;
  auto list = [&](const char* key) {
    if (!j.contains(key) || !j[key].is_array()) {
      throw IrError(source + ": missing list \"" + key + "\"");
    }
    return j[key];
  };
  auto lookup = [&](const json& name, const std::string& where) {
    ValueId v = name.is_string() ? g.find_value(name.get<std::string>()) : -1;
    if (v < 0) throw IrError(where + ": " + name.dump() + " is not a value defined earlier");
    return v;
  };
  int i = 0;
  for (const json& v : list("inputs")) {
    std::string where = source + ": inputs[" + std::to_string(i++) + "]";
    g.add_input(name_field(v, where), type_from_json(v, where), init_field(v, where));
  }
  i = 0;
  for (const json& v : list("params")) {
    std::string where = source + ": params[" + std::to_string(i++) + "]";
    g.add_param(name_field(v, where), type_from_json(v, where), init_field(v, where));
  }
  i = 0;
  for (const json& n : list("nodes")) {
    std::string where = source + ": nodes[" + std::to_string(i++) + "]";
    std::string op_name = n.value("op", "");
    const OpSchema* schema = find_op(op_name);
    if (!schema) throw IrError(where + ": unknown operator '" + op_name + "'");
    std::vector<ValueId> inputs;
    const json input_names = n.value("inputs", json::array());
    for (const json& in : input_names) inputs.push_back(lookup(in, where));
    Attrs attrs;
    const json attr_values =
        n.value("attrs", json::object());  // a copy: items() must not outlive it
    for (const auto& [key, value] : attr_values.items()) {
      attrs[key] = attr_from_json(value, where + ".attrs." + key);
    }
    try {
      ValueId id =
          g.add_node(schema->op, inputs, attrs, n.value("module", ""), name_field(n, where));
      if (n.contains("shape") && type_from_json(n, where) != g.value(id).type) {
        throw IrError("declared " + to_string(type_from_json(n, where)) + " but " + op_name +
                      " gives " + to_string(g.value(id).type));
      }
    } catch (const IrError& e) {
      throw IrError(where + ": " + e.what());
    }
  }
  std::vector<ValueId> outs;
  for (const json& o : list("outputs")) outs.push_back(lookup(o, source + ": outputs"));
  g.set_outputs(outs);
  return g;
}

json ops_to_json() {
  json ops = json::array();
  for (const OpSchema& s : all_op_schemas()) {
    json attrs = json::array();
    for (const AttrSpec& a : s.attrs) {
      json aj = {{"name", a.name}, {"type", std::string(attr_type_name(a.type))}};
      aj["default"] = a.default_value ? attr_to_json(*a.default_value) : json(nullptr);
      if (!a.default_from.empty()) aj["default_from"] = a.default_from;
      if (std::isfinite(a.lo)) aj["min"] = a.lo;
      if (std::isfinite(a.hi)) aj["max"] = a.hi;
      if (a.length) aj["length"] = a.length;
      if (!a.choices.empty()) aj["choices"] = a.choices;
      if (a.is_size) aj["size"] = true;
      attrs.push_back(aj);
    }
    json o = {{"name", s.name},
              {"category", std::string(category_name(s.category))},
              {"arity", s.arity},
              {"attrs", attrs},
              {"has_params", s.params != nullptr},
              {"torch_module", s.torch_module},
              {"torch_function", s.torch_function},
              {"aten", s.aten},
              {"domain", std::string(domain_name(s.domain))}};
    if (s.domain != Domain::Any) o["domain_input"] = s.domain_input;
    ops.push_back(o);
  }
  return ops;
}

}  // namespace drtriton
