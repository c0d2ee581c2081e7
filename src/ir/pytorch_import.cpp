#include "ir/pytorch_import.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <map>
#include <optional>
#include <set>

#include "ir/json_form.h"
#include "ir/pytorch_decompose.h"

namespace drtriton {

using json = nlohmann::json;

namespace {

// One aten call as the frontend saw it: its tensor arguments in schema order and the
// other arguments by schema name.
struct Call {
  std::string target;    // "aten::add"
  std::string overload;  // "Tensor"
  std::vector<std::string> refs;
  std::vector<std::string> reads;  // refs, and those in a list of optional tensors (x[:, i])
  std::map<std::string, json> consts;
  std::map<std::string, json> defaults;
};

// Why a node could not be imported; collected, then reported together.
struct Unsupported : std::runtime_error {
  using std::runtime_error::runtime_error;
};
// Unsupported whatever the call is decomposed into (it reads what no graph value can be), so
// not worth tracing again through torch's decompositions.
struct UnsupportedRead : Unsupported {
  using Unsupported::Unsupported;
};

std::string text_of(const json& j, const char* key);

std::string place(const json& node) {
  std::string line = text_of(node, "line");
  std::string code = text_of(node, "code");
  std::string s = line.empty() ? "<unknown line>" : line;
  if (!code.empty()) s += " (`" + code + "`)";
  return s;
}

// A string field that may be missing or null in the traced JSON.
std::string text_of(const json& j, const char* key) {
  auto it = j.find(key);
  return it != j.end() && it->is_string() ? it->get<std::string>() : "";
}

bool is_ref(const json& v) {
  return v.is_object() && v.contains("ref");
}

Call parse_call(const json& node) {
  Call c{text_of(node, "target"), text_of(node, "overload"), {}, {}, {}, {}};
  for (const json& arg : node.value("args", json::array())) {
    std::string name = arg.value("name", "");
    const json& v = arg["value"];
    if (is_ref(v)) {
      c.refs.push_back(v["ref"]);
    } else if (v.is_array() && !v.empty() && std::all_of(v.begin(), v.end(), is_ref)) {
      for (const json& e : v) c.refs.push_back(e["ref"]);
    } else {
      c.consts[name] = v;
      if (arg.contains("default")) c.defaults[name] = arg["default"];
      if (v.is_array())
        for (const json& e : v)
          if (is_ref(e)) c.reads.push_back(e["ref"]);
    }
  }
  c.reads.insert(c.reads.end(), c.refs.begin(), c.refs.end());
  return c;
}

AttrValue to_attr(const json& v, const std::string& name) {
  try {
    return attr_from_json(v, "argument '" + name + "'");
  } catch (const IrError& e) {
    throw Unsupported(e.what());
  }
}

const OpSchema& op_named(const char* name) {
  return *find_op(name);
}

// The class name a module spelling builds: "nn.Conv2d({in_channels}, ...)" -> "Conv2d".
std::string module_class(const OpSchema& s) {
  if (s.torch_module.rfind("nn.", 0) != 0) return "";
  return s.torch_module.substr(3, s.torch_module.find('(') - 3);
}

const OpSchema* op_for_module_class(const std::string& cls) {
  for (const OpSchema& s : all_op_schemas())
    if (!cls.empty() && module_class(s) == cls) return &s;
  return nullptr;
}

// Module attributes that must have one value for the module to be one of our ops.
void check_module_invariants(const json& attrs) {
  auto require = [&](const char* key, const json& expected, const char* why) {
    if (attrs.contains(key) && attrs[key] != expected) {
      throw Unsupported(std::string(key) + " = " + attrs[key].dump() + ": " + why);
    }
  };
  require("return_indices", false, "pooling indices are not supported");
  require("divisor_override", nullptr, "divisor_override is not supported");
  require("proj_size", 0, "an LSTM with projections is not supported");
  require("max_norm", nullptr, "max_norm renormalizes the weight inside forward; not supported");
}

// nn.Conv's padding that its node cannot hold: padding="same" (dilation * (kernel - 1) in
// all, the odd one after) and padding_mode other than "zeros" (reflect, replicate, circular),
// which the module does with F.pad before a convolution without padding. The pad node's
// attributes, with the convolution's padding set to zero; nullopt where the node pads itself.
std::optional<Attrs> conv_padding(const json& attrs, Attrs& conv) {
  std::string mode = attrs.value("padding_mode", "zeros");
  const json padding = attrs.value("padding", json());
  if (mode == "zeros" && padding != "same") return std::nullopt;  // module_attrs took it
  const size_t dims = attrs.value("kernel_size", json::array()).size();
  auto per_dim = [&](const char* key, size_t d) {
    const json v = attrs.value(key, json(1));
    return v.is_array() ? v.at(d).get<int64_t>() : v.get<int64_t>();
  };
  std::vector<int64_t> before(dims, 0), after(dims, 0);
  for (size_t d = 0; d < dims; ++d) {
    if (padding == "same") {
      int64_t total = per_dim("dilation", d) * (per_dim("kernel_size", d) - 1);
      before[d] = total / 2;
      after[d] = total - total / 2;
    } else if (padding.is_array()) {
      before[d] = after[d] = padding.at(d).get<int64_t>();
    } else if (padding != "valid") {
      throw Unsupported("padding " + padding.dump() + " is not supported");
    }
  }
  if (mode == "zeros" && before == after) {
    conv["padding"] = before;
    return std::nullopt;
  }
  std::vector<int64_t> amounts;  // F.pad's order: the last dim first, (before, after) each
  for (size_t d = dims; d-- > 0;) {
    amounts.push_back(before[d]);
    amounts.push_back(after[d]);
  }
  conv["padding"] = std::vector<int64_t>(dims, 0);
  return Attrs{{"pad", amounts}, {"mode", mode == "zeros" ? "constant" : mode}};
}

// The pad node of conv_padding, with its shape over the input sizes.
ValueId add_pad(Graph& g, ValueId x, const Attrs& attrs, const std::string& name) {
  ValueId padded = g.add_node(Op::Pad, {x}, attrs, "", name);
  std::vector<std::string> dims = sym_shape_of(g, g.nodes().back());
  if (!dims.empty()) g.set_sym_shape(padded, std::move(dims));
  return padded;
}

// A module call (nn.Conv2d, nn.BatchNorm2d, nn.ReLU, ...) becomes one node whose
// attributes are the module's own constructor arguments.
Attrs module_attrs(const OpSchema& schema, const json& module) {
  const json attrs = module.value("attrs", json::object());
  check_module_invariants(attrs);
  std::set<std::string> params;
  for (const json& p : module.value("params", json::array())) params.insert(p.get<std::string>());
  Attrs out;
  for (const AttrSpec& spec : schema.attrs) {
    if (spec.name == "bias" && spec.type == AttrType::Bool && !attrs.contains("bias")) {
      out["bias"] = params.count("bias") > 0;  // nn.Conv/Linear/LayerNorm keep bias as a parameter
      continue;
    }
    if (!attrs.contains(spec.name)) continue;
    json v = attrs[spec.name];
    if (spec.name == "padding" && v.is_string()) {
      // "valid" is zero padding; "same" is set by conv_padding (a convolution's amounts)
      if (v != "valid" && (v != "same" || schema.torch_module.rfind("nn.Conv", 0) != 0))
        throw Unsupported("padding = " + v.dump() + " is not supported");
      v = 0;
    }
    if (spec.name == "eps" && v.is_null() && schema.op == Op::RmsNorm) {
      v = 1.1920928955078125e-07;  // nn.RMSNorm(eps=None) uses torch.finfo(float32).eps
    }
    if (spec.none_is_nan && v.is_null()) {  // BatchNorm's momentum=None
      out[spec.name] = std::numeric_limits<double>::quiet_NaN();
      continue;
    }
    if (v.is_null()) throw Unsupported("module attribute '" + spec.name + "' is None");
    out[spec.name] = to_attr(v, spec.name);
  }
  return out;
}

// The type of a value an aten call reads; one the import does not know (a module's own
// weight read outside the module, say) is reported, not a crash.
const TensorType& type_at(const std::map<std::string, TensorType>& types, const std::string& ref) {
  auto it = types.find(ref);
  if (it == types.end())
    throw Unsupported("reads '" + ref + "', which is not a tensor drtriton knows");
  return it->second;
}

// Other spellings of operations map_call knows: torch.export keeps what the user wrote
// (torch.multiply, x.swapaxes), so each alias is renamed here, once, with its arguments.
struct Alias {
  const char* canonical;
  std::vector<std::pair<const char*, const char*>> renamed_args;  // alias name -> canonical
};

const std::map<std::string, Alias>& aten_aliases() {
  static const std::map<std::string, Alias> table = {
      {"aten::multiply", {"aten::mul", {}}},
      {"aten::subtract", {"aten::sub", {}}},
      {"aten::divide", {"aten::div", {}}},
      {"aten::true_divide", {"aten::div", {}}},
      {"aten::greater", {"aten::gt", {}}},
      {"aten::less", {"aten::lt", {}}},
      {"aten::greater_equal", {"aten::ge", {}}},
      {"aten::less_equal", {"aten::le", {}}},
      {"aten::not_equal", {"aten::ne", {}}},
      {"aten::absolute", {"aten::abs", {}}},
      {"aten::negative", {"aten::neg", {}}},
      {"aten::clip", {"aten::clamp", {}}},
      {"aten::special_expit", {"aten::sigmoid", {}}},
      {"aten::special_erf", {"aten::erf", {}}},
      {"aten::fix", {"aten::trunc", {}}},
      {"prims::sign", {"aten::sign", {}}},  // in torch's decompositions (lp_pool)
      {"aten::concat", {"aten::cat", {}}},
      {"aten::concatenate", {"aten::cat", {{"axis", "dim"}}}},
      {"aten::swapaxes", {"aten::transpose", {{"axis0", "dim0"}, {"axis1", "dim1"}}}},
      {"aten::swapdims", {"aten::transpose", {}}},
      {"aten::moveaxis", {"aten::movedim", {}}},
      {"aten::nll_loss_nd", {"aten::nll_loss", {}}},
      {"aten::nll_loss2d", {"aten::nll_loss", {}}},
  };
  return table;
}

// The IR spelling of a torch dtype name the frontend writes ("float32" -> "f32").
std::string ir_dtype(const json& torch_name) {
  std::optional<std::string> ir = ir_dtype_of(torch_name);
  if (!ir) throw Unsupported("dtype " + torch_name_of(torch_name) + " is not supported");
  return *ir;
}

// Renames an alias to its canonical spelling; rewrites the calls that are a permutation
// (x.T, x.mT, movedim) or no operation at all (detach, alias) into permute and clone, and
// tensor indexing along one dim into index_select.
void canonicalize(Call& c, const std::map<std::string, TensorType>& types) {
  auto alias = aten_aliases().find(c.target);
  if (alias != aten_aliases().end()) {
    c.target = alias->second.canonical;
    for (const auto& [from, to] : alias->second.renamed_args) {
      if (c.consts.count(from)) c.consts[to] = c.consts[from], c.consts.erase(from);
      if (c.defaults.count(from)) c.defaults[to] = c.defaults[from], c.defaults.erase(from);
    }
  }
  const std::string& t = c.target;
  if (t == "aten::mul" && c.refs.size() == 2) {
    bool first = type_at(types, c.refs[0]).dtype == DType::Bool;
    bool second = type_at(types, c.refs[1]).dtype == DType::Bool;
    if (first != second) {  // a float tensor times a mask
      if (first) std::swap(c.refs[0], c.refs[1]);
      c.target = "drtriton::mul_by_mask";
      return;
    }
  }
  if (t == "aten::where" && (c.consts.count("self") || c.consts.count("other"))) {
    c.target = "drtriton::where_scalar";  // torch.where(mask, x, 0.0): composed with constants
    return;
  }
  if (t == "aten::pow" && (c.refs.size() == 2 || c.consts.count("self"))) {
    // x ** y of two tensors, b ** x of a number: composed (our pow takes a number exponent)
    c.target = c.refs.size() == 2 ? "drtriton::pow_tensor" : "drtriton::pow_scalar_base";
    return;
  }
  if (t == "aten::clamp" && c.refs.size() > 1) {  // torch.clamp(x, min=lo_tensor, max=hi)
    for (const char* bound : {"min", "max"})
      if (c.consts.count(bound) && !c.consts[bound].is_null())
        throw Unsupported("clamp with one tensor bound and one number is not supported");
    c.target = "drtriton::clamp_tensor";
    return;
  }
  if (t == "aten::bitwise_not" && c.refs.size() == 1 &&
      type_at(types, c.refs[0]).dtype == DType::Bool) {  // ~mask
    c.target = "aten::logical_not";
    return;
  }
  if (t == "aten::to" || t == "aten::_to_copy" || t == "aten::type_as") {
    // x.to(dtype), x.half(), x.to(y), x.type_as(y): a cast, or a copy where the dtype stays
    // (a device move is no operation on one device).
    std::string from(dtype_name(type_at(types, c.refs.at(0)).dtype)), to = from;
    if (c.refs.size() == 2) {
      to = dtype_name(type_at(types, c.refs[1]).dtype);
      c.refs.resize(1);
    } else if (c.consts.count("dtype") && !c.consts["dtype"].is_null()) {
      to = ir_dtype(c.consts["dtype"]);
    }
    for (const char* gone : {"dtype", "copy", "non_blocking", "device", "layout"})
      c.consts.erase(gone);
    c.target = to == from ? "aten::clone" : "drtriton::cast";
    if (to != from) c.consts["dtype"] = to;
    return;
  }
  // x.narrow(dim, start, length): a slice (a negative start counts from the end)
  if (t == "aten::narrow") {
    if (!c.consts.count("start") || !c.consts["start"].is_number_integer() ||
        !c.consts.count("length") || !c.consts["length"].is_number_integer())
      throw Unsupported("narrow with a start or length computed from tensors");
    int64_t start = c.consts["start"].get<int64_t>(), length = c.consts["length"].get<int64_t>();
    int64_t end =
        start < 0 && start + length == 0 ? std::numeric_limits<int64_t>::max() : start + length;
    c.target = "aten::slice";
    c.consts = {{"dim", c.consts.count("dim") ? c.consts["dim"] : json(0)},
                {"start", start},
                {"end", end},
                {"step", 1}};
    c.defaults.clear();
    return;
  }
  if (t == "aten::index") {  // x[idx] (indices [idx]: a ref) or x[:, idx] ([null, idx])
    int64_t dim = 0;
    if (c.consts.count("indices")) {
      const json indices = c.consts["indices"];
      c.consts.erase("indices");
      int found = 0;
      for (size_t d = 0; d < indices.size(); ++d) {
        if (indices[d].is_null()) continue;
        if (!is_ref(indices[d])) throw Unsupported("indexing with " + indices[d].dump());
        c.refs.push_back(indices[d]["ref"]);
        dim = static_cast<int64_t>(d);
        ++found;
      }
      if (found != 1) throw Unsupported("indexing with several index tensors (x[:, i, j])");
    }
    if (c.refs.size() != 2)
      throw Unsupported("indexing with several index tensors (x[i, j]) is not supported");
    DType index = type_at(types, c.refs[1]).dtype;
    if (index != DType::I64 && index != DType::I32)
      throw Unsupported("indexing with a " + std::string(dtype_name(index)) +
                        " mask (x[mask]) is not supported: its shape depends on the data");
    c.target = "aten::index_select";
    c.consts["dim"] = dim;
    return;
  }
  if (t == "aten::detach" || t == "aten::alias" || t == "aten::lift_fresh_copy") {
    c.target = "aten::clone";  // a value-preserving copy; codegen forwards it
    return;
  }
  if (t != "aten::numpy_T" && t != "aten::mT" && t != "aten::movedim") return;
  const int rank = type_at(types, c.refs.at(0)).rank();
  std::vector<int64_t> order(rank);
  for (int i = 0; i < rank; ++i) order[i] = i;
  if (t == "aten::numpy_T") {
    std::reverse(order.begin(), order.end());
  } else if (t == "aten::mT") {
    if (rank < 2) throw Unsupported("mT of a tensor of rank " + std::to_string(rank));
    std::swap(order[rank - 2], order[rank - 1]);
  } else {  // movedim(source, destination), each an int or a list
    auto dims = [&](const char* name) {
      json v = c.consts[name];
      c.consts.erase(name);
      std::vector<int64_t> d =
          v.is_array() ? v.get<std::vector<int64_t>>() : std::vector<int64_t>{v.get<int64_t>()};
      for (int64_t& x : d) x = x < 0 ? x + rank : x;
      return d;
    };
    std::vector<int64_t> src = dims("source"), dst = dims("destination");
    if (src.size() != dst.size()) throw Unsupported("movedim with lists of different lengths");
    // PyTorch's rule: the moved dims land at their destinations, the others keep their
    // order in the places left free.
    std::vector<int64_t> rest;
    for (int i = 0; i < rank; ++i)
      if (std::find(src.begin(), src.end(), i) == src.end()) rest.push_back(i);
    std::fill(order.begin(), order.end(), -1);
    for (size_t k = 0; k < src.size(); ++k) order.at(dst[k]) = src[k];
    size_t next = 0;
    for (int64_t& o : order)
      if (o < 0) o = rest.at(next++);
  }
  c.target = "aten::permute";
  c.consts["dims"] = order;
}

// A number of the traced JSON as PyTorch wrote it: a bool, an int, a float or a
// non-finite {"float": "inf"}.
AttrValue number_of(const json& v, const std::string& what) {
  AttrValue a = to_attr(v, what);
  if (!std::holds_alternative<bool>(a) && !std::holds_alternative<int64_t>(a) &&
      !std::holds_alternative<double>(a))
    throw Unsupported(what + " = " + v.dump() + " is not a number");
  return a;
}

double as_double(const AttrValue& a) {
  if (std::holds_alternative<bool>(a)) return std::get<bool>(a) ? 1 : 0;
  if (std::holds_alternative<int64_t>(a)) return static_cast<double>(std::get<int64_t>(a));
  return std::get<double>(a);
}

// torch.zeros, ones, full, their _like and new_ forms: one `full` node that reads no tensor.
// The dtype is PyTorch's: the one asked for, else the given tensor's (_like, new_), else
// the fill value's (a Python bool makes a bool tensor, an int an int64 one), else float32.
bool map_factory(Call& c, const std::map<std::string, TensorType>& types) {
  std::string kind = c.target.rfind("aten::", 0) == 0 ? c.target.substr(6) : "";
  bool made_new = kind.rfind("new_", 0) == 0;
  if (made_new) kind = kind.substr(4);
  bool like = kind.size() > 5 && kind.compare(kind.size() - 5, 5, "_like") == 0;
  if (like) kind.resize(kind.size() - 5);
  if ((kind != "zeros" && kind != "ones" && kind != "full") || (like && made_new)) return false;
  auto take = [&](const char* name) {
    json v = c.consts.count(name) ? c.consts[name] : json(nullptr);
    c.consts.erase(name);
    return v;
  };
  AttrValue fill = kind == "full" ? number_of(take("fill_value"), "fill_value")
                                  : AttrValue(kind == "ones" ? 1.0 : 0.0);
  json size = like ? json(type_at(types, c.refs.at(0)).shape) : take("size");
  json dtype = take("dtype");
  std::string ir = !dtype.is_null()   ? ir_dtype(dtype)
                   : like || made_new ? std::string(dtype_name(type_at(types, c.refs[0]).dtype))
                   : std::holds_alternative<bool>(fill)    ? "bool"
                   : std::holds_alternative<int64_t>(fill) ? "i64"
                                                           : "f32";
  const std::vector<std::string>& made = op_named("full").find_attr("dtype")->choices;
  if (std::find(made.begin(), made.end(), ir) == made.end()) {
    std::string allowed;
    for (const std::string& d : made) allowed += (allowed.empty() ? "" : ", ") + d;
    throw Unsupported("a " + ir + " tensor made inside forward is not supported (only " + allowed +
                      ")");
  }
  c.consts["size"] = size;
  c.consts["value"] = as_double(fill);
  c.consts["dtype"] = ir;
  c.refs.clear();  // the model tensor of a _like gives only its shape and dtype
  return true;
}

// PyTorch's promotion in arithmetic: an integer or bool tensor beside a floating one is
// computed in the floating one's dtype (x / mask.sum(1), x + idx), and a function whose
// result is floating computes an integer input in the result's dtype (torch.sqrt(count),
// counts / total, torch.log1p(idx)). Our arithmetic takes floats only, so such an input is
// cast first. `result` is the traced result's dtype; index inputs stay integers. `s` is null
// for a composed call, promoted only where it computes a function of real numbers (atan, not
// masked_fill's mask or cross_entropy's targets).
void promote_to_floating(Graph& g, const OpSchema* s, std::vector<ValueId>& ins,
                         std::optional<DType> result, const std::string& name) {
  if (s && (s->any_dtype || s->op == Op::Where ||
            (s->category != Category::Binary && s->category != Category::Unary)))
    return;
  std::optional<DType> floating;
  for (ValueId in : ins)
    if (is_floating(g.value(in).type.dtype)) floating = g.value(in).type.dtype;
  if (!floating && result && is_floating(*result)) floating = result;
  if (!floating) return;
  for (size_t i = 0; i < ins.size(); ++i) {
    const Value& v = g.value(ins[i]);
    if (is_floating(v.type.dtype) || (s && static_cast<int>(i) == s->index_input)) continue;
    std::vector<std::string> dims = v.sym_shape;
    ins[i] = g.add_node(Op::Cast, {ins[i]}, {{"dtype", std::string(dtype_name(*floating))}}, "",
                        name + "_promoted" + std::to_string(i));
    if (!dims.empty()) g.set_sym_shape(ins[i], dims);
  }
}

// Pick the operator and attributes for one functional aten call. Arguments not taken as
// attributes must be at their schema defaults; anything else is reported, not dropped.
struct Mapped {
  Op op;
  std::vector<std::string> inputs;
  Attrs attrs;
};

Mapped map_call(Call& c, const std::map<std::string, TensorType>& types) {
  auto rank_of = [&](const std::string& ref) { return type_at(types, ref).rank(); };
  auto all_dims = [&](const std::string& ref) {
    std::vector<int64_t> d(rank_of(ref));
    for (size_t i = 0; i < d.size(); ++i) d[i] = static_cast<int64_t>(i);
    return json(d);
  };
  auto take = [&](const char* name) {
    json v = c.consts.count(name) ? c.consts[name] : json(nullptr);
    c.consts.erase(name);
    return v;
  };
  auto scalar_or_tensor = [&](const char* tensor_op, const char* scalar_op) -> const OpSchema& {
    if (c.refs.size() == 2) return op_named(tensor_op);
    c.consts["other"] = take("other");
    return op_named(scalar_op);
  };
  canonicalize(c, types);
  const std::string& t = c.target;
  const OpSchema* schema = nullptr;
  Mapped m{};

  if (t == "aten::add" || t == "aten::sub") {
    json alpha = take("alpha");
    if (!alpha.is_null() && alpha != 1)
      throw Unsupported("alpha = " + alpha.dump() + " is not supported");
    schema = t == "aten::add" ? &scalar_or_tensor("add", "add_scalar")
                              : &scalar_or_tensor("sub", "sub_scalar");
  } else if (t == "aten::mul") {
    schema = &scalar_or_tensor("mul", "mul_scalar");
  } else if (t == "aten::div") {
    if (!take("rounding_mode").is_null()) throw Unsupported("rounding_mode is not supported");
    schema = &scalar_or_tensor("div", "div_scalar");
  } else if (t == "aten::rsub") {
    json alpha = take("alpha");
    if (!alpha.is_null() && alpha != 1)
      throw Unsupported("alpha = " + alpha.dump() + " is not supported");
    if (c.refs.size() == 2) {
      std::swap(c.refs[0], c.refs[1]);  // rsub(a, b) = b - a
      schema = &op_named("sub");
    } else {
      c.consts["other"] = take("other");
      schema = &op_named("rsub_scalar");
    }
  } else if (t == "aten::gt" || t == "aten::lt" || t == "aten::ge" || t == "aten::le" ||
             t == "aten::eq" || t == "aten::ne") {
    std::string op = t.substr(6);
    schema = &scalar_or_tensor(op.c_str(), (op + "_scalar").c_str());
  } else if ((t == "aten::max" || t == "aten::min") && c.refs.size() == 2) {
    schema = &op_named(t == "aten::max" ? "maximum" : "minimum");
  } else if ((t == "aten::max" || t == "aten::min") && c.overload == "default") {
    schema = &op_named(t == "aten::max" ? "amax" : "amin");  // the max of all elements
    c.consts["dim"] = all_dims(c.refs[0]);
  } else if (t == "aten::sum" || t == "aten::mean" || t == "aten::amax" || t == "aten::amin" ||
             t == "aten::logsumexp") {
    json dim = take("dim");
    // No dims (or an empty list) means every dim, as in PyTorch.
    c.consts["dim"] = dim.is_null() || (dim.is_array() && dim.empty()) ? all_dims(c.refs[0]) : dim;
  } else if (t == "aten::var" || t == "aten::std") {
    json dim = take("dim");
    c.consts["dim"] = dim.is_null() || (dim.is_array() && dim.empty()) ? all_dims(c.refs[0]) : dim;
    json unbiased = take("unbiased"), correction = take("correction");
    if (!correction.is_null()) {
      if (!correction.is_number_integer())
        throw Unsupported("correction = " + correction.dump() + " is not an integer");
      c.consts["correction"] = correction;
    } else {
      c.consts["correction"] = unbiased.is_boolean() && !unbiased.get<bool>() ? 0 : 1;
    }
  } else if (t == "aten::linalg_vector_norm") {
    json dim = take("dim");
    c.consts["dim"] = dim.is_null() ? all_dims(c.refs[0]) : dim;
  } else if (t == "aten::clamp") {
    json lo = take("min"), hi = take("max");
    if (lo.is_null() == hi.is_null()) {
      schema = &op_named("clamp");
    } else {
      schema = &op_named(lo.is_null() ? "clamp_max" : "clamp_min");
    }
    if (!lo.is_null()) c.consts["min"] = lo;
    if (!hi.is_null()) c.consts["max"] = hi;
  } else if (t == "aten::squeeze") {
    json dim = take("dim");
    if (dim.is_null()) {
      std::vector<int64_t> ones;
      const Shape& s = type_at(types, c.refs[0]).shape;
      for (size_t i = 0; i < s.size(); ++i)
        if (s[i] == 1) ones.push_back(static_cast<int64_t>(i));
      dim = ones;
    }
    c.consts["dim"] = dim.is_array() ? dim : json::array({dim});
  } else if (t == "aten::view" || t == "aten::reshape" || t == "aten::_unsafe_view") {
    json size = take("size");
    c.consts["shape"] = size.is_null() ? take("shape") : size;
  } else if (t == "aten::_softmax" || t == "aten::_log_softmax") {
    if (take("half_to_float") == true) throw Unsupported("half_to_float is not supported");
  } else if (t == "aten::elu") {
    for (const char* k : {"scale", "input_scale"}) {
      json v = take(k);
      if (!v.is_null() && v != 1)
        throw Unsupported(std::string(k) + " = " + v.dump() + " is not supported");
    }
  } else if (t == "aten::addmm") {
    for (const char* k : {"beta", "alpha"}) {
      json v = take(k);
      if (!v.is_null() && v != 1)
        throw Unsupported(std::string(k) + " = " + v.dump() + " is not supported");
    }
  } else if (t == "aten::t") {
    if (rank_of(c.refs[0]) != 2)
      throw Unsupported("t() of a tensor of rank " + std::to_string(rank_of(c.refs[0])));
    schema = &op_named("transpose");
    c.consts["dim0"] = 0;
    c.consts["dim1"] = 1;
  } else if (t == "aten::expand_as") {  // the other tensor gives only its shape
    c.consts["size"] = type_at(types, c.refs.at(1)).shape;
    c.refs.resize(1);
    schema = &op_named("expand");
  } else if (map_factory(c, types)) {
    schema = &op_named("full");
  } else if (t == "aten::arange") {  // arange(end), arange(start, end), arange(start, end, step)
    json start = take("start"), end = take("end"), step = take("step"), dtype = take("dtype");
    if (start.is_null()) start = 0;
    if (step.is_null()) step = 1;
    // PyTorch's dtype: the one asked for, else int64 where every argument is an integer
    bool ints = start.is_number_integer() && end.is_number_integer() && step.is_number_integer();
    c.consts["start"] = start;
    c.consts["end"] = end;
    c.consts["step"] = step;
    c.consts["dtype"] = !dtype.is_null() ? ir_dtype(dtype) : ints ? "i64" : "f32";
    schema = &op_named("arange");
  } else if (t == "aten::dropout" || t == "aten::feature_dropout" || t == "aten::alpha_dropout") {
    // The program is traced in training mode: train=False is a call that never drops
    // (F.dropout(x, p, training=False)), the identity in either mode.
    if (take("train") == false) c.consts["p"] = 0.0;
    // F.dropout2d and F.dropout3d are one aten op; the rank tells them apart.
    if (t == "aten::feature_dropout")
      schema = &op_named(rank_of(c.refs.at(0)) == 5 ? "dropout3d" : "dropout2d");
  } else if (t == "aten::pad" || t == "aten::constant_pad_nd") {
    json value = take("value");  // F.pad's modes are the operator's (mode stays a const)
    c.consts["value"] = value.is_null() ? json(0.0) : value;
    schema = &op_named("pad");
  } else if (t == "aten::upsample_nearest2d" || t == "aten::upsample_bilinear2d") {
    // Output sizes given, or scale factors: then the output is floor(in * factor) and the
    // source step 1/factor, as PyTorch computes them.
    const Shape& in = type_at(types, c.refs.at(0)).shape;
    json sizes = take("output_size"), factors = take("scale_factors");
    for (const char* k : {"scales_h", "scales_w"}) {  // the non-.vec overloads
      json v = take(k);
      if (!v.is_null()) factors.push_back(v);
    }
    if (in.size() != 4) throw Unsupported(t + " of a tensor of rank " + std::to_string(in.size()));
    std::vector<int64_t> size(2);
    for (int d = 0; d < 2; ++d) {
      double factor = factors.is_array() && factors.size() == 2 ? factors[d].get<double>() : 0;
      size[d] = sizes.is_array() && sizes.size() == 2
                    ? sizes[d].get<int64_t>()
                    : static_cast<int64_t>(std::floor(in[2 + d] * factor));
      c.consts[d == 0 ? "scale_h" : "scale_w"] = factor > 0 ? 1.0 / factor : 0.0;
    }
    c.consts["size"] = size;
    c.consts["mode"] = t == "aten::upsample_nearest2d" ? "nearest" : "bilinear";
    schema = &op_named("upsample2d");
  } else if (t == "aten::unflatten") {  // one dim split into several: a reshape
    const Shape& in = type_at(types, c.refs.at(0)).shape;
    const int rank = static_cast<int>(in.size());
    int64_t dim = take("dim").get<int64_t>();
    if (dim < -rank || dim >= rank) throw Unsupported("unflatten dim " + std::to_string(dim));
    dim = dim < 0 ? dim + rank : dim;
    std::vector<int64_t> shape(in.begin(), in.begin() + dim);
    for (int64_t s : take("sizes").get<std::vector<int64_t>>()) shape.push_back(s);
    shape.insert(shape.end(), in.begin() + dim + 1, in.end());
    c.consts["shape"] = shape;
    schema = &op_named("reshape");
  } else if (t == "aten::scaled_dot_product_attention") {
    if (c.refs.size() > 3) throw Unsupported(t + " with an attn_mask is not supported");
    json p = take("dropout_p");
    if (!p.is_null() && p != 0)
      throw Unsupported(t + " with dropout_p = " + p.dump() +
                        " is not supported: attention dropout is random (give dropout_p=0)");
    if (take("enable_gqa") == true) throw Unsupported(t + " with enable_gqa=True is not supported");
    json scale = take("scale");  // None: the default, 1/sqrt(head dim), which is attribute 0
    if (!scale.is_null() && !(scale.is_number() && scale.get<double>() > 0))
      throw Unsupported(t + " with scale = " + scale.dump() +
                        " is not supported (only a positive one)");
    c.consts["scale"] = scale.is_null() ? json(0.0) : scale;
    schema = &op_named("sdpa");
  } else if (t.find("pool") != std::string::npos) {
    json stride = take("stride");  // an empty stride means the kernel size
    c.consts["stride"] = stride.is_null() || (stride.is_array() && stride.empty())
                             ? c.consts["kernel_size"]
                             : stride;
    for (const char* k : {"return_indices", "divisor_override"}) {
      json v = take(k);
      if (!v.is_null() && v != false)
        throw Unsupported(std::string(k) + " = " + v.dump() + " is not supported");
    }
  }
  if (!schema) {
    for (const OpSchema& s : all_op_schemas()) {
      for (const std::string& a : s.aten) {
        if (a == t && !s.needs_module()) schema = &s;
      }
    }
  }
  if (!schema) {
    for (const OpSchema& s : all_op_schemas()) {
      for (const std::string& a : s.aten) {
        if (a == t) {
          throw Unsupported(t + " with free weights has no drtriton operator; write it as nn." +
                            module_class(s) + " so that the module owns its parameters");
        }
      }
    }
    throw Unsupported(t + "." + c.overload + " has no drtriton operator");
  }
  m.op = schema->op;
  m.inputs = c.refs;
  for (const AttrSpec& spec : schema->attrs) {
    auto it = c.consts.find(spec.name);
    if (it == c.consts.end()) continue;
    if (!it->second.is_null()) m.attrs[spec.name] = to_attr(it->second, spec.name);
    c.consts.erase(it);
  }
  // Whatever is left must be harmless: at its default, a dtype of None or the input's own
  // floating one (x.sum(1, dtype=torch.float32) of a float32 x; an integer sum's own dtype
  // would keep it from widening to int64), a layout hint.
  for (const auto& [name, value] : c.consts) {
    if (value.is_null() || name == "memory_format" || name == "layout" || name == "device" ||
        name == "pin_memory" || name == "non_blocking") {
      continue;
    }
    if (name == "dtype" && !c.refs.empty() && is_floating(type_at(types, c.refs[0]).dtype) &&
        ir_dtype(value) == dtype_name(type_at(types, c.refs[0]).dtype)) {
      continue;
    }
    auto d = c.defaults.find(name);
    if (d != c.defaults.end() && d->second == value) continue;
    throw Unsupported("argument '" + name + "' = " + value.dump() + " of " + t +
                      " is not supported");
  }
  return m;
}

TensorType traced_type(const json& j) {
  TensorType t;
  std::string dt = j.value("dtype", "");
  if (!parse_dtype(dt, &t.dtype))
    throw IrError("the traced graph has an unknown dtype '" + dt + "'");
  t.shape = j.value("shape", Shape{});
  return t;
}

// Give an IR value the symbolic shape the frontend's dynamic export found for the traced
// value it comes from. Nothing when there is none, or when the IR value has another rank
// (an IR node that reshapes differently from the traced node it came from).
void copy_sym_shape(Graph& g, ValueId id, const json& traced_value) {
  auto it = traced_value.find("sym_shape");
  if (it == traced_value.end() || !it->is_array()) return;
  std::vector<std::string> dims;
  for (const json& d : *it) {
    if (!d.is_string()) return;
    dims.push_back(d.get<std::string>());
  }
  if (static_cast<int>(dims.size()) != g.value(id).type.rank()) return;
  g.set_sym_shape(id, std::move(dims));
}

// Give a node the size expressions of the number arguments forward computed from sizes
// (the frontend's sym_args), where they are attributes of its IR op under the same name
// (`other` of div_scalar). The others keep their traced value: a slice's bounds, which
// the node's sym_shape already follows.
void copy_sym_args(Graph& g, ValueId id, const json& traced_node) {
  auto it = traced_node.find("sym_args");
  if (it == traced_node.end() || !it->is_object()) return;
  const Value& v = g.value(id);
  if (v.kind != ValueKind::Node) return;
  const OpSchema& schema = g.nodes()[v.node].schema();
  for (const auto& [arg, expr] : it->items()) {
    const AttrSpec* spec = schema.find_attr(arg);
    if (expr.is_string() && spec && spec->type == AttrType::Float)
      g.set_sym_attr(id, arg, expr.get<std::string>());
  }
}

bool is_recurrent(const std::string& target) {
  return target == "aten::lstm" || target == "aten::gru" || target == "aten::rnn_tanh" ||
         target == "aten::rnn_relu";
}

// The initial states of recurrent layers that are zeros made for them: nn.LSTM/GRU/RNN make
// them inside forward when called without hx, and programs often write torch.zeros(...)
// themselves. Such a state is no input of the layer's node: a layer without state inputs
// starts from zeros (codegen passes zeros to the library call). Factory ops are no IR
// operators yet; once aten::zeros is one, this can become a plain zeros node.
std::set<std::string> zero_states(const json& nodes, const std::vector<Call>& calls,
                                  const std::map<std::string, std::vector<int>>& readers) {
  std::set<std::string> found;
  for (size_t i = 0; i < calls.size(); ++i) {
    if (calls[i].target != "aten::zeros") continue;
    std::string name = text_of(nodes[i], "name");
    auto r = readers.find(name);
    bool all_states = r != readers.end();
    for (int j : all_states ? r->second : std::vector<int>{}) {
      // The state's shape is the layer's final state's (its result 1).
      const json outs = nodes[j].value("outputs", json::array());
      all_states = all_states && is_recurrent(calls[j].target) && outs.size() >= 2 &&
                   calls[j].refs.at(0) != name &&
                   outs[1].value("shape", Shape{}) == nodes[i].value("shape", Shape{}) &&
                   outs[1].value("dtype", "") == nodes[i].value("dtype", "");
    }
    if (all_states) found.insert(name);
  }
  return found;
}

// torch.split, split_with_sizes and chunk: tuples whose elements are slices.
bool is_split(const std::string& target) {
  return target == "aten::split" || target == "aten::split_with_sizes" || target == "aten::chunk";
}

// Element `index` of a split as the slice it is, by PyTorch's rules: pieces of split_size
// (the last one shorter), of the sizes given, or `chunks` pieces of ceil(n / chunks). The
// bounds are the traced sizes' (a split of a dim that varies is wrong on other sizes).
void split_piece(Call& c, int64_t index, const std::map<std::string, TensorType>& types) {
  const TensorType& x = type_at(types, c.refs.at(0));
  int64_t dim = c.consts.count("dim") ? c.consts["dim"].get<int64_t>() : 0;
  if (dim < 0) dim += x.rank();
  if (dim < 0 || dim >= x.rank()) throw Unsupported("split along a dim out of range");
  int64_t n = x.shape[dim], start = 0, end = 0;
  if (c.target == "aten::split_with_sizes") {
    auto sizes = c.consts["split_sizes"].get<std::vector<int64_t>>();
    for (int64_t i = 0; i < index; ++i) start += sizes.at(i);
    end = start + sizes.at(index);
  } else {
    int64_t piece = c.target == "aten::split" ? c.consts["split_size"].get<int64_t>()
                                              : (n + c.consts["chunks"].get<int64_t>() - 1) /
                                                    c.consts["chunks"].get<int64_t>();
    start = index * piece;
    end = std::min(n, start + piece);
  }
  c.target = "aten::slice";
  c.consts = {{"dim", dim}, {"start", start}, {"end", end}, {"step", 1}};
  c.defaults.clear();
}

// The one value of a tensor constant the frontend recorded ("value": a number or nested
// lists), or none when it holds several or was not recorded (too large, not plain data).
std::optional<double> uniform_value(const json& param) {
  if (!param.contains("value")) return std::nullopt;
  std::optional<double> found;
  bool uniform = true;
  std::function<void(const json&)> visit = [&](const json& v) {
    if (v.is_array()) {
      for (const json& e : v) visit(e);
      return;
    }
    double x = as_double(number_of(v, "constant"));
    if (found && !(*found == x || (std::isnan(*found) && std::isnan(x)))) uniform = false;
    found = x;
  };
  visit(param["value"]);
  return uniform ? found : std::nullopt;
}

}  // namespace

Graph import_traced(const json& traced) {
  if (text_of(traced, "format") != "drtriton.traced/1") {
    throw IrError("not a traced program (expected \"format\": \"drtriton.traced/1\")");
  }
  std::string source = text_of(traced, "source");
  const json& nodes = traced["nodes"];
  const json modules = traced.value("modules", json::object());
  const int count = static_cast<int>(nodes.size());
  // Each node's arguments, parsed once, and who reads each value.
  std::vector<Call> calls;
  std::map<std::string, int> index_of;
  std::map<std::string, std::vector<int>> readers;
  for (int i = 0; i < count; ++i) {
    calls.push_back(parse_call(nodes[i]));
    index_of[text_of(nodes[i], "name")] = i;
    for (const std::string& r : calls[i].reads) readers[r].push_back(i);
  }
  std::set<std::string> outputs;
  for (const json& o : traced["outputs"]) outputs.insert(text_of(o, "ref"));
  const std::set<std::string> zeros = zero_states(nodes, calls, readers);

  // Group the aten calls of each call of a module that is one of our operators.
  std::map<std::string, std::vector<int>> groups;  // module_call -> node indices
  std::map<int, std::string> group_of;
  for (int i = 0; i < count; ++i) {
    const json& n = nodes[i];
    std::string cls = text_of(n, "module_class");
    std::string call = text_of(n, "module_call");
    if (call.empty() || !op_for_module_class(cls)) continue;
    // A class of the program's own that shares a name with torch's (nanoGPT's LayerNorm,
    // which calls F.layer_norm on its parameters) is not torch's module.
    std::string type = text_of(modules.value(text_of(n, "module"), json::object()), "type");
    if (!type.empty() && type.rfind("torch.nn.", 0) != 0) continue;
    groups[call].push_back(i);
    group_of[i] = call;
  }
  std::set<std::string> owned_params;               // placeholders that belong to grouped modules
  std::map<std::string, std::string> param_target;  // the module's own state, by placeholder
  for (const json& p : traced["params"])
    if (!p.value("attribute", false)) param_target[p["placeholder"]] = p["target"];
  for (const auto& [call, members] : groups) {
    for (int i : members) {
      for (const std::string& r : calls[i].refs) {
        if (param_target.count(r)) owned_params.insert(r);
      }
    }
  }

  Graph g;
  std::map<std::string, ValueId> value_of;  // traced name -> IR value
  std::map<std::string, TensorType> type_of;
  std::vector<std::string> errors;
  std::set<std::string> failed_calls;  // for ImportError::calls
  std::set<std::string> poisoned;      // values downstream of an unsupported operation

  for (const json& in : traced["inputs"]) {
    std::string name = in["name"];
    value_of[name] = g.add_input(name, traced_type(in));
    type_of[name] = g.value(value_of[name]).type;
    copy_sym_shape(g, value_of[name], in);
  }
  for (const json& c : traced.value("constant_inputs", json::array())) {
    errors.push_back(source + ": forward argument '" + c.value("name", "?") +
                     "' is not a tensor; drtriton graphs take tensor inputs only");
  }
  for (const json& p : traced["params"]) {
    std::string ph = p["placeholder"], target = p["target"];
    if (owned_params.count(ph) || !readers.count(ph)) continue;
    std::string where = place(nodes[readers[ph].front()]);
    try {
      if (p.value("kind", "") == "constant" && !p.value("attribute", false)) {
        // torch.tensor(c) inside forward: one value everywhere is a `full` node.
        std::optional<double> value = uniform_value(p);
        if (!value)
          throw Unsupported(
              "torch.tensor(...) inside forward with more than one value is not supported; "
              "make it a buffer or a parameter in __init__");
        TensorType t = traced_type(p);
        value_of[ph] = g.add_node(
            Op::Full, {},
            {{"size", t.shape}, {"value", *value}, {"dtype", std::string(dtype_name(t.dtype))}}, "",
            ph);
      } else {
        // Parameters, buffers the module registers (a mask) and plain tensor attributes
        // (self.h0 = torch.randn(...)): ModelNew builds them in __init__ as the reference
        // does and reads them by their names.
        std::string name = target;
        for (char& ch : name) ch = ch == '.' ? '_' : ch;
        value_of[ph] = g.add_param(name, traced_type(p));
        copy_sym_shape(g, value_of[ph], p);
      }
      type_of[ph] = traced_type(p);
    } catch (const std::runtime_error& e) {  // Unsupported, or IrError from the factory
      errors.push_back(where + ": " + p.value("kind", "") + " '" + target + "': " + e.what());
      poisoned.insert(ph);
    }
  }

  // Only what the outputs depend on is imported: torch.export keeps dead values (the
  // unused indices of torch.max, say) that do not change what the program computes.
  std::set<std::string> live;
  std::vector<std::string> work(outputs.begin(), outputs.end());
  while (!work.empty()) {
    std::string v = work.back();
    work.pop_back();
    if (!live.insert(v).second || !index_of.count(v)) continue;
    for (const std::string& r : calls[index_of[v]].reads) work.push_back(r);
  }

  // diag(v) @ B is v[:, None] * B and A @ diag(w) is A * w: a vector's diagonal matrix that
  // only matrix products read is never built (of a product of two such, the first is).
  std::map<std::string, std::string> diagonal_vector;  // diag's name -> its vector's
  auto is_product = [](const std::string& t) { return t == "aten::mm" || t == "aten::matmul"; };
  for (int i = 0; i < count; ++i) {
    const Call& d = calls[i];
    std::string name = nodes[i]["name"];
    if (d.target != "aten::diag" || d.refs.size() != 1 || !live.count(name) ||
        outputs.count(name) || traced_type(nodes[i]).rank() != 2 ||
        (d.consts.count("diagonal") && d.consts.at("diagonal") != 0))
      continue;
    bool only_products = true;
    for (int j : readers[name]) {
      const Call& r = calls[j];
      only_products =
          only_products && is_product(r.target) && r.refs.size() == 2 && r.refs[0] != r.refs[1];
    }
    if (only_products) diagonal_vector[name] = d.refs[0];
  }
  for (const auto& [diag, vector] : std::map(diagonal_vector))
    for (int j : readers[diag])
      for (const std::string& r : calls[j].refs)
        if (r != diag && diagonal_vector.count(r)) diagonal_vector.erase(diag);

  std::map<std::string, int> tuple_calls;  // max.dim and friends, read by getitem
  std::set<std::string> emitted_groups;
  for (int i = 0; i < count; ++i) {
    const json& n = nodes[i];
    std::string name = n["name"];
    if (!live.count(name) || zeros.count(name) || diagonal_vector.count(name)) continue;
    Call c = calls[i];  // a copy: mapping consumes its arguments
    bool skip = false;
    for (const std::string& r : c.refs) skip = skip || poisoned.count(r) > 0;
    if (skip) {
      poisoned.insert(name);
      continue;
    }
    g.set_source(text_of(n, "line"));  // the nodes made for this call carry its line
    try {
      Mapped m;
      bool composed = false;         // a call pytorch_decompose builds from several nodes
      std::optional<Attrs> pre_pad;  // a convolution's padding, done by a pad node first
      std::string module;
      std::string out_name = name;
      const json* type_json = &n;
      if (group_of.count(i)) {
        const std::string& call = group_of[i];
        const std::vector<int>& members = groups[call];
        std::set<std::string> inside;
        for (int j : members) inside.insert(nodes[j]["name"].get<std::string>());
        // The group's value is the member that something outside the group reads.
        bool read_outside = outputs.count(name) > 0;
        for (int j : readers[name])
          read_outside = read_outside || !group_of.count(j) || group_of[j] != call;
        if (!read_outside) continue;  // an inner step of the module (or its running-stat update)
        std::string path = text_of(n, "module");
        const OpSchema& schema = *op_for_module_class(text_of(n, "module_class"));
        // A recurrent layer has several results; each one read is a node of its own.
        const bool several = schema.find_attr("result") != nullptr;
        if (!emitted_groups.insert(call).second && !several) {
          throw Unsupported("module call " + call + " produces more than one value");
        }
        std::vector<std::string> ins;
        for (int j : members) {
          if (several && calls[j].target != "getitem" && calls[j].target != "aten::zeros" &&
              !is_recurrent(calls[j].target)) {
            throw Unsupported(module_class(schema) + " computes " + calls[j].target +
                              " around its layer (an unbatched or packed sequence?); "
                              "only batched sequences are supported");
          }
          for (const std::string& r : calls[j].refs) {
            if (inside.count(r) || param_target.count(r) || zeros.count(r)) continue;
            if (poisoned.count(r))
              throw Unsupported("its input comes from an unsupported operation");
            if (std::find(ins.begin(), ins.end(), r) == ins.end()) ins.push_back(r);
          }
        }
        if (!modules.contains(path))
          throw Unsupported("module '" + path + "' is missing from the traced modules");
        for (int j : members) {
          const auto& consts = calls[j].consts;
          for (const char* flag : {"training", "train", "use_input_stats"}) {
            if (consts.count(flag) && consts.at(flag) == false) {
              throw Unsupported("module '" + path +
                                "' runs in eval mode; drtriton graphs are in training mode (the "
                                "verifier's --eval-mode judges a program after .eval())");
            }
          }
        }
        m = {schema.op, ins, module_attrs(schema, modules[path])};
        if (schema.find_attr("padding") && schema.torch_module.rfind("nn.Conv", 0) == 0)
          pre_pad = conv_padding(modules[path].value("attrs", json::object()), m.attrs);
        if (schema.op == Op::Embedding) {  // nn.Embedding(..., dtype=...) or .half(): its weight's
          for (const json& p : traced["params"]) {
            if (p["target"] == path + ".weight")
              m.attrs["dtype"] = std::string(dtype_name(traced_type(p).dtype));
          }
        }
        module = path;
        if (several) {
          if (c.target != "getitem")
            throw Unsupported(module_class(schema) + "'s results are used as a tuple");
          m.attrs["result"] = c.consts.at("index").get<int64_t>();
        }
      } else if (c.target == "getitem") {
        std::string from = c.refs.at(0);
        int64_t index = c.consts["index"].get<int64_t>();
        auto it = tuple_calls.find(from);
        if (it == tuple_calls.end()) throw Unsupported("indexing a value that is not a tuple");
        const std::string& tuple_target = calls[it->second].target;
        const bool moments = tuple_target == "aten::var_mean" || tuple_target == "aten::std_mean";
        const bool extreme = tuple_target == "aten::max" || tuple_target == "aten::min";
        if (index != 0 && tuple_target != "aten::broadcast_tensors" &&
            tuple_target != "aten::unbind" && !is_split(tuple_target) && !moments && !extreme)
          throw Unsupported("element " + std::to_string(index) + " of " + calls[it->second].target +
                            " (the indices) is not supported");
        Call inner = calls[it->second];
        if (inner.target == "aten::broadcast_tensors") {
          // Each element is its input where broadcasting changes nothing (a loss of two
          // same-shape tensors); an expanded copy has no drtriton form.
          const std::string& ref = inner.refs.at(index);
          if (!value_of.count(ref) || type_of.at(ref) != traced_type(n))
            throw Unsupported("broadcast_tensors that expands a tensor is not supported");
          value_of[name] = value_of[ref];
          type_of[name] = type_of[ref];
          continue;
        }
        if (inner.target == "aten::unbind") {  // element i of unbind(x, dim) is select(x, dim, i)
          inner.target = "aten::select";
          inner.consts["index"] = index;
        }
        // (values, indices) of max(x, dim): the indices are argmax's (the first extreme's)
        if (extreme && index == 1)
          inner.target = tuple_target == "aten::max" ? "aten::argmax" : "aten::argmin";
        if (moments) {  // (var or std, mean) of var_mean(x, dim, correction, keepdim)
          inner.target =
              index == 0 ? inner.target.substr(0, inner.target.size() - 5) : "aten::mean";
          if (index == 1) inner.consts.erase("correction"), inner.consts.erase("unbiased");
        }
        if (is_split(inner.target)) split_piece(inner, index, type_of);
        composed = is_composed(inner.target);  // (values, indices) of adaptive_max_pool2d
        if (composed)
          c = inner;
        else
          m = map_call(inner, type_of);
      } else if (((c.target == "aten::max" || c.target == "aten::min") && c.overload == "dim") ||
                 c.target.find("_with_indices") != std::string::npos ||
                 c.target.rfind("aten::adaptive_max_pool", 0) == 0 ||
                 c.target == "aten::broadcast_tensors" || c.target == "aten::unbind" ||
                 c.target == "aten::var_mean" || c.target == "aten::std_mean" ||
                 is_split(c.target)) {
        tuple_calls[name] = i;
        continue;
      } else {
        if (c.target.size() > 1 && c.target.back() == '_' && !c.refs.empty()) {
          // An in-place op (x += y, relu_) is its functional twin as long as nothing reads
          // the overwritten tensor again: later code reads the op's result instead.
          for (int j : readers[c.refs[0]]) {
            if (j > i && live.count(text_of(nodes[j], "name"))) {
              throw Unsupported(c.target + " overwrites " + c.refs[0] +
                                ", which is read again later");
            }
          }
          c.target.pop_back();
        }
        for (const std::string& r : c.reads)  // weight tying: x @ self.embedding.weight.t()
          if (owned_params.count(r))
            throw UnsupportedRead("reads the parameter " + param_target[r] +
                                  " outside its module; a module's parameters are its own here");
        canonicalize(c, type_of);  // before asking: a canonical call may be a composed one
        for (size_t side = 0; side < c.refs.size() && is_product(c.target); ++side) {
          auto diag = diagonal_vector.find(c.refs[side]);
          if (diag == diagonal_vector.end()) continue;
          c.refs[side] = diag->second;
          c.consts["diagonal_left"] = side == 0;
          c.target = "drtriton::diagonal_matmul";
        }
        composed = is_composed(c.target);
        if (!composed) m = map_call(c, type_of);
      }
      auto ids_of = [&](const std::vector<std::string>& refs) {
        std::vector<ValueId> ids;
        for (const std::string& r : refs) {
          if (!value_of.count(r))
            throw Unsupported("reads '" + r + "', which is not a tensor drtriton knows");
          ids.push_back(value_of[r]);
        }
        return ids;
      };
      ValueId id;
      try {
        DType traced_dtype{};
        std::optional<DType> result;  // none where the trace gives no tensor dtype
        if (parse_dtype(type_json->value("dtype", ""), &traced_dtype)) result = traced_dtype;
        if (composed) {
          std::vector<ValueId> ins = ids_of(c.refs);
          if (composes_real_function(c.target))
            promote_to_floating(g, nullptr, ins, result, out_name);
          id = compose_call(g, c.target, ins, c.consts, name);
        } else {
          std::vector<ValueId> ins = ids_of(m.inputs);
          if (pre_pad) ins.at(0) = add_pad(g, ins.at(0), *pre_pad, out_name + "_pad");
          promote_to_floating(g, &op_schema(m.op), ins, result, out_name);
          id = g.add_node(m.op, ins, m.attrs, module, out_name);
        }
      } catch (const IrError& e) {
        throw Unsupported(e.what());
      }
      TensorType expect = traced_type(*type_json);
      if (g.value(id).type != expect) {
        throw IrError(place(n) + ": internal: drtriton infers " + to_string(g.value(id).type) +
                      " for " + std::string(op_schema(m.op).name) + " but PyTorch gives " +
                      to_string(expect));
      }
      // The traced node whose value this is: for a module, the member read outside it.
      copy_sym_shape(g, id, *type_json);
      if (!composed && module.empty()) copy_sym_args(g, id, n);
      value_of[name] = id;
      type_of[name] = expect;
    } catch (const Unsupported& e) {
      errors.push_back(place(n) + ": " + e.what());
      poisoned.insert(name);
      const Call& call = calls[i];
      if (!group_of.count(i) && call.target.rfind("aten::", 0) == 0 &&
          !dynamic_cast<const UnsupportedRead*>(&e))
        failed_calls.insert(call.target + "." + call.overload);
    }
  }

  // Writes to the module's buffers (self.avg.mul_(0.9), a buffer's copy_) would be lost: the
  // graph computes values, and only the modules that are our operators (the norms' running
  // statistics) write their own state; the verifier compares buffers after a forward, so
  // such a solution would be rejected (detach_ changes no value). Parameters are not
  // compared: an in-place clamp of a weight (the same each call) is left to the verifier.
  std::set<std::string> written;
  for (const json& m : traced.value("mutations", json::array())) {
    auto at = index_of.find(text_of(m, "ref"));
    if (text_of(m, "kind") != "buffer" || at == index_of.end() || group_of.count(at->second) ||
        calls[at->second].target == "aten::detach_" || !written.insert(text_of(m, "target")).second)
      continue;
    errors.push_back(place(nodes[at->second]) + ": writes the module's buffer " +
                     text_of(m, "target") +
                     ", a state kept across calls, which drtriton does not compile");
  }

  g.set_source("");
  std::vector<ValueId> outs;
  for (const json& o : traced["outputs"]) {
    std::string ref = o.is_object() ? o.value("ref", "") : "";
    if (poisoned.count(ref)) continue;
    if (!value_of.count(ref)) {
      errors.push_back(source + ": an output of forward is not a tensor computed by the program");
      continue;
    }
    outs.push_back(value_of[ref]);
  }
  if (!errors.empty()) {
    std::string msg = source + ": " + std::to_string(errors.size()) +
                      (errors.size() == 1 ? " operation has" : " operations have") +
                      " no drtriton form:";
    for (const std::string& e : errors) msg += "\n  " + e;
    throw ImportError(msg, {failed_calls.begin(), failed_calls.end()});
  }
  g.set_outputs(outs);
  return g;
}

}  // namespace drtriton
