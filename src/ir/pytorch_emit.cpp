#include "ir/pytorch_emit.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <map>
#include <set>
#include <stdexcept>

namespace drtriton {

namespace {

// Names a Python program cannot bind: keywords, and the module-level names the emitted
// file itself uses (a forward argument called `torch` would hide the torch module).
// clang-format off
const std::set<std::string> kReservedNames = {
    "False", "None", "True", "and", "as", "assert", "async", "await", "break", "case",
    "class", "continue", "def", "del", "elif", "else", "except", "finally", "for", "from",
    "global", "if", "import", "in", "is", "lambda", "match", "nonlocal", "not", "or", "pass",
    "raise", "return", "try", "type", "while", "with", "yield", "_",
    "self", "torch", "nn", "F", "float", "super", "Model", "get_inputs", "get_init_inputs"};

// Attributes every nn.Module already has: a submodule or parameter of that name would
// replace a method or break the module's bookkeeping.
const std::set<std::string> kModuleAttributes = {
    "T_destination", "add_module", "apply", "bfloat16", "buffers", "call_super_init",
    "children", "compile", "cpu", "cuda", "double", "dump_patches", "eval", "extra_repr",
    "float", "forward", "get_buffer", "get_extra_state", "get_parameter", "get_submodule",
    "half", "ipu", "load_state_dict", "modules", "mtia", "named_buffers", "named_children",
    "named_modules", "named_parameters", "parameters", "register_backward_hook",
    "register_buffer", "register_forward_hook", "register_forward_pre_hook",
    "register_full_backward_hook", "register_full_backward_pre_hook",
    "register_load_state_dict_post_hook", "register_load_state_dict_pre_hook",
    "register_module", "register_parameter", "register_state_dict_post_hook",
    "register_state_dict_pre_hook", "requires_grad_", "set_extra_state", "set_submodule",
    "share_memory", "state_dict", "to", "to_empty", "train", "training", "type", "xpu",
    "zero_grad"};
// clang-format on

// A name for a Python attribute of the model (a parameter or a top-level submodule).
bool is_free_attribute(const std::string& s) {
  return is_identifier(s) && !kReservedNames.count(s) && !kModuleAttributes.count(s) && s[0] != '_';
}

bool ends_with(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() &&
         s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

std::string join(const std::vector<std::string>& parts, const std::string& sep = ", ") {
  std::string s;
  for (size_t i = 0; i < parts.size(); ++i) s += (i ? sep : "") + parts[i];
  return s;
}

// A Python tuple: (3, 5), (16,), ().
std::string python_tuple(const std::vector<std::string>& items) {
  if (items.size() == 1) return "(" + items[0] + ",)";
  return "(" + join(items) + ")";
}

std::string python_tuple(const std::vector<int64_t>& v) {
  std::vector<std::string> items;
  for (int64_t x : v) items.push_back(std::to_string(x));
  return python_tuple(items);
}

// An attribute as a Python literal. A per-spatial-dim list (kernel_size, stride) whose
// entries agree is one int, as people write it (PyTorch expands it); others are tuples.
// Lists of any length (dims, shapes) stay lists.
std::string attr_literal(const AttrSpec& spec, const AttrValue& value) {
  if (spec.none_is_nan && std::isnan(std::get<double>(value))) return "None";
  if (spec.type == AttrType::Ints && spec.length > 0) {
    const auto& v = std::get<std::vector<int64_t>>(value);
    if (!v.empty() && std::all_of(v.begin(), v.end(), [&](int64_t x) { return x == v[0]; }))
      return std::to_string(v[0]);
    return python_tuple(v);
  }
  return attr_to_python(value);
}

// The literal of a size constant: an int, or a tuple for a shape (normalized_shape).
std::string size_literal(const AttrSpec& spec, const AttrValue& value) {
  if (spec.type == AttrType::Ints && spec.length == 0) {
    return python_tuple(std::get<std::vector<int64_t>>(value));
  }
  return attr_literal(spec, value);
}

// A submodule in the model's module tree. IR module names are paths ("blocks.0.conv",
// as torch.export reports them); the emitter rebuilds the containers so that every
// parameter keeps its state_dict name.
struct ModuleEntry {
  std::string name;             // the last component of the path
  std::string path;             // the IR module name; "" for the model itself
  const Node* layer = nullptr;  // the node whose op builds this module, if any
  std::vector<int> children;    // in order of first use (by index for a ModuleList)
  enum class Holder { Attributes, List, Dict } holder = Holder::Attributes;
  std::string expr;  // the Python expression that reaches it: self.blocks[0].conv
  bool emitted = false;
};

struct Constant {
  std::string name;
  std::string literal;
};

class Emitter {
 public:
  explicit Emitter(const Graph& graph) : g_(graph) {}

  std::string run() {
    compute_last_uses();
    build_module_tree();
    name_params();
    for (ValueId v : g_.inputs()) add_input(v);
    for (const Node& node : g_.nodes()) {
      for (ValueId v : node.inputs) {
        if (g_.value(v).kind == ValueKind::Param) declare_param(v);
      }
      if (!node.module.empty()) declare_module(node.module);
    }
    for (ValueId p : g_.params()) declare_param(p);
    for (size_t i = 0; i < g_.nodes().size(); ++i) emit_node(static_cast<int>(i));
    match_input_precision();
    return assemble();
  }

 private:
  // ---- Constants and __init__ arguments --------------------------------------------

  int find_constant(const std::string& name) const {
    for (size_t i = 0; i < constants_.size(); ++i)
      if (constants_[i].name == name) return static_cast<int>(i);
    return -1;
  }

  // The constant `name` holding `literal`: the existing one, or a new one under `name`,
  // else under `fallback`, else under `fallback_2`, `fallback_3`...
  std::string constant(const std::string& name, const std::string& literal,
                       const std::string& fallback) {
    for (const std::string& candidate : {name, fallback}) {
      int i = find_constant(candidate);
      if (i >= 0 && constants_[i].literal == literal) return candidate;
      if (i < 0 && !kReservedNames.count(candidate)) {
        constants_.push_back({candidate, literal});
        return candidate;
      }
    }
    for (int n = 2;; ++n) {
      std::string candidate = fallback + "_" + std::to_string(n);
      int i = find_constant(candidate);
      if (i >= 0 && constants_[i].literal == literal) return candidate;
      if (i < 0) {
        constants_.push_back({candidate, literal});
        return candidate;
      }
    }
  }

  void use_init_arg(const std::string& name) {
    if (std::find(init_args_.begin(), init_args_.end(), name) == init_args_.end())
      init_args_.push_back(name);
  }

  // A size attribute of a module (in_channels, kernel_size...) as an __init__ argument.
  // Equal values share one constant; a channel or feature count may also reuse another
  // channel constant of equal value, so a second conv reads Conv2d(out_channels, ...).
  std::string size_constant(const Node& node, const AttrSpec& spec) {
    std::string literal = size_literal(spec, node.attrs.at(spec.name));
    const std::string& attr = spec.name;
    int same = find_constant(attr);
    if (!(same >= 0 && constants_[same].literal == literal)) {
      std::vector<std::string> families;
      if (attr == "in_channels") families = {"channels"};
      if (attr == "in_features") families = {"features"};
      if (attr == "num_features" || attr == "num_channels") families = {"channels", "features"};
      for (int i = static_cast<int>(constants_.size()) - 1; i >= 0 && !families.empty(); --i) {
        const Constant& c = constants_[i];
        bool in_family = std::any_of(families.begin(), families.end(),
                                     [&](const std::string& f) { return ends_with(c.name, f); });
        if (in_family && c.literal == literal) {
          use_init_arg(c.name);
          return c.name;
        }
      }
    }
    std::string prefix = node.module;
    std::replace(prefix.begin(), prefix.end(), '.', '_');
    std::string name = constant(attr, literal, prefix + "_" + attr);
    use_init_arg(name);
    return name;
  }

  // ---- Inputs --------------------------------------------------------------------

  bool feeds(ValueId v, std::initializer_list<Op> ops) const {
    for (const Node& node : g_.nodes()) {
      if (std::find(node.inputs.begin(), node.inputs.end(), v) == node.inputs.end()) continue;
      if (std::find(ops.begin(), ops.end(), node.op) != ops.end()) return true;
    }
    return false;
  }

  // Conventional names for an input's dims, by rank: [batch_size, in_channels, height, width].
  std::vector<std::string> dim_names(ValueId v) const {
    int rank = g_.value(v).type.rank();
    std::vector<std::string> names;
    if (rank >= 1) names.push_back("batch_size");
    if (rank == 2) names.push_back("in_features");
    if (rank == 3) {
      if (feeds(v, {Op::Linear})) {
        names.insert(names.end(), {"seq_len", "in_features"});
      } else if (feeds(v, {Op::Conv1d, Op::ConvTranspose1d, Op::BatchNorm1d, Op::MaxPool1d,
                           Op::AvgPool1d, Op::GroupNorm})) {
        names.insert(names.end(), {"in_channels", "length"});
      } else {
        names.insert(names.end(), {"dim1", "dim2"});
      }
    }
    if (rank == 4) names.insert(names.end(), {"in_channels", "height", "width"});
    if (rank == 5) names.insert(names.end(), {"in_channels", "depth", "height", "width"});
    for (int i = 1; rank > 5 && i < rank; ++i) names.push_back("dim" + std::to_string(i));
    return names;
  }

  // Integer inputs are drawn below the size of what they index (an embedding's rows, the
  // classes of nll_loss, the dim an index_select or gather reads), so that the program
  // runs; 10 where they index nothing.
  std::string index_bound(ValueId v) const {
    int64_t bound = 10;
    bool found = false;
    for (const Node& node : g_.nodes()) {
      int at = node.schema().index_input;
      if (at < 0 || node.inputs.at(at) != v) continue;
      const Shape& x = g_.value(node.inputs[0]).type.shape;
      int64_t size = node.op == Op::Embedding ? attr_int(node.attrs, "num_embeddings")
                     : node.op == Op::IndexSelect || node.op == Op::Gather
                         ? x.at(attr_int(node.attrs, "dim"))
                         : x.at(x.size() == 1 ? 0 : 1);  // the classes
      bound = found ? std::min(bound, size) : size;
      found = true;
    }
    return std::to_string(bound);
  }

  void add_input(ValueId v) {
    const Value& value = g_.value(v);
    std::vector<std::string> names = dim_names(v), dims;
    const std::vector<std::string> earlier = input_constants_;
    for (int i = 0; i < value.type.rank(); ++i) {
      std::string literal = std::to_string(value.type.shape[i]);
      // A broadcast dim reads best as itself: torch.randn(out_channels, 1, 1).
      if (literal == "1" && !(i == 0 && input_constants_.empty())) {
        dims.push_back(literal);
        continue;
      }
      std::string name = names[i];
      int same = find_constant(name);
      if (!(same >= 0 && constants_[same].literal == literal)) {
        // A later input reuses an earlier input's constant of equal value, so that the
        // operands of a matmul share their inner dim: randn(..., dim2), randn(dim2, ...).
        for (const std::string& c : earlier) {
          if (constants_[find_constant(c)].literal == literal) {
            name = c;
            break;
          }
        }
      }
      name = constant(name, literal, name);
      if (std::find(input_constants_.begin(), input_constants_.end(), name) ==
          input_constants_.end())
        input_constants_.push_back(name);
      dims.push_back(name);
    }
    std::string dims_text = join(dims);
    std::string shape_tuple = python_tuple(dims);
    std::string expr;
    switch (value.type.dtype) {
      case DType::F32:
        // A positive input feeds log, sqrt or a divisor: uniform in [0.1, 1.1).
        expr = value.init == Init::Positive
                   ? "torch.rand(" + (dims.empty() ? "()" : dims_text) + ") + 0.1"
                   : "torch.randn(" + (dims.empty() ? "()" : dims_text) + ")";
        break;
      case DType::F16:
      case DType::BF16:
      case DType::F64:
        expr = "torch.randn(" + (dims.empty() ? "()" : dims_text) +
               ", dtype=" + std::string(dtype_torch_name(value.type.dtype)) + ")";
        break;
      case DType::I64:
        expr = "torch.randint(0, " + index_bound(v) + ", " + shape_tuple + ")";
        break;
      case DType::I32:
        expr = "torch.randint(0, " + index_bound(v) + ", " + shape_tuple + ", dtype=torch.int32)";
        break;
      case DType::Bool: expr = "torch.rand(" + (dims.empty() ? "()" : dims_text) + ") > 0.5"; break;
    }
    input_exprs_.push_back(expr);
    std::string var = fresh_variable(value.name);
    var_[v] = var;
    forward_args_.push_back(var);
  }

  // ---- Parameters and modules (__init__) ----------------------------------------------

  // A name for a model attribute, unique among the model's parameters and submodules.
  std::string attribute_name(const std::string& wanted, const char* prefix) {
    std::string base = wanted;
    if (!is_identifier(base)) base = prefix + base;
    if (!is_free_attribute(base)) base += "_";
    std::string name = base;
    for (int n = 2; attributes_.count(name); ++n) name = base + std::to_string(n);
    attributes_.insert(name);
    return name;
  }

  void name_params() {
    // Top-level submodules keep their names where they can (so state_dict names hold);
    // parameters take what is left.
    for (int child : modules_[0].children) {
      ModuleEntry& m = modules_[child];
      m.expr = "self." + attribute_name(m.name, "m");
      assign_child_exprs(child);
    }
    for (ValueId p : g_.params()) {
      std::string name = attribute_name(g_.value(p).name, "p");
      param_attr_[p] = name;
      var_[p] = "self." + name;
      // torch.export names a parameter's placeholder after it: keep locals apart.
      variables_.insert(name);
    }
  }

  void declare_param(ValueId p) {
    if (declared_params_.count(p)) return;
    declared_params_.insert(p);
    const std::string& name = param_attr_.at(p);
    const TensorType& type = g_.value(p).type;
    std::string shape = constant(name + "_shape", python_tuple(type.shape), name + "_shape");
    use_init_arg(shape);
    if (!is_floating(type.dtype)) {  // indices or a mask: a buffer, drawn as an input is
      std::string draw = type.dtype == DType::Bool
                             ? "torch.rand(" + shape + ") > 0.5"
                             : "torch.randint(0, " + index_bound(p) + ", " + shape +
                                   (type.dtype == DType::I32 ? ", dtype=torch.int32)" : ")");
      init_lines_.push_back("self.register_buffer(\"" + name + "\", " + draw + ")");
      return;
    }
    std::string dtype =
        type.dtype == DType::F32 ? "" : ", dtype=" + std::string(dtype_torch_name(type.dtype));
    std::string draw = g_.value(p).init == Init::Positive
                           ? "torch.rand(" + shape + dtype + ") + 0.1"
                           : "torch.randn(" + shape + dtype + ")";
    init_lines_.push_back("self." + name + " = nn.Parameter(" + draw + ")");
  }

  int module_child(int parent, const std::string& name) {
    for (int c : modules_[parent].children)
      if (modules_[c].name == name) return c;
    ModuleEntry m;
    m.name = name;
    m.path = modules_[parent].path.empty() ? name : modules_[parent].path + "." + name;
    modules_.push_back(m);
    int id = static_cast<int>(modules_.size()) - 1;
    modules_[parent].children.push_back(id);
    return id;
  }

  void build_module_tree() {
    modules_.push_back(ModuleEntry{});
    modules_[0].expr = "self";
    for (const Node& node : g_.nodes()) {
      if (node.module.empty()) continue;
      int at = 0;
      size_t start = 0;
      while (true) {
        size_t dot = node.module.find('.', start);
        at = module_child(at, node.module.substr(start, dot - start));
        if (dot == std::string::npos) break;
        start = dot + 1;
      }
      if (!modules_[at].layer) modules_[at].layer = &node;
    }
    for (size_t i = 1; i < modules_.size(); ++i) choose_holder(static_cast<int>(i));
  }

  // How a module holds its children: as attributes (nn.Module), in an nn.ModuleList
  // (children 0..n-1), or in an nn.ModuleDict (any other names).
  void choose_holder(int id) {
    ModuleEntry& m = modules_[id];
    if (m.children.empty()) return;
    std::vector<int64_t> indices;
    bool all_digits = true, all_attributes = true;
    for (int c : m.children) {
      const std::string& n = modules_[c].name;
      if (is_digits(n) && n.size() < 10) {
        indices.push_back(std::stoll(n));
      } else {
        all_digits = false;
      }
      all_attributes = all_attributes && is_free_attribute(n);
    }
    std::sort(indices.begin(), indices.end());
    bool dense = all_digits;
    for (size_t i = 0; dense && i < indices.size(); ++i)
      dense = indices[i] == static_cast<int64_t>(i);
    if (all_attributes) {
      m.holder = ModuleEntry::Holder::Attributes;
    } else if (m.layer) {
      throw IrError("cannot emit module \"" + m.path + "\": a " + m.layer->schema().name +
                    " layer whose submodule names are not Python attributes");
    } else if (dense) {
      m.holder = ModuleEntry::Holder::List;
      std::sort(m.children.begin(), m.children.end(), [&](int a, int b) {
        return std::stoll(modules_[a].name) < std::stoll(modules_[b].name);
      });
    } else {
      m.holder = ModuleEntry::Holder::Dict;
    }
  }

  void assign_child_exprs(int id) {
    const ModuleEntry& m = modules_[id];
    for (int c : m.children) {
      ModuleEntry& child = modules_[c];
      switch (m.holder) {
        case ModuleEntry::Holder::Attributes: child.expr = m.expr + "." + child.name; break;
        case ModuleEntry::Holder::List: child.expr = m.expr + "[" + child.name + "]"; break;
        case ModuleEntry::Holder::Dict: child.expr = m.expr + "['" + child.name + "']"; break;
      }
      assign_child_exprs(c);
    }
  }

  // The constructor of one module, without its children unless they live in a list.
  std::string module_constructor(int id) {
    const ModuleEntry& m = modules_[id];
    if (m.layer) return expand(m.layer->schema().torch_module, *m.layer, {}, true);
    switch (m.holder) {
      case ModuleEntry::Holder::Attributes: return "nn.Module()";
      case ModuleEntry::Holder::Dict: return "nn.ModuleDict()";
      case ModuleEntry::Holder::List: {
        std::vector<std::string> items;
        for (int c : m.children) items.push_back(module_constructor(c));
        return "nn.ModuleList([" + join(items) + "])";
      }
    }
    return "";
  }

  // Emit a module and everything below it; `in_list`: its parent's list built it already.
  void emit_module(int id, bool in_list) {
    ModuleEntry& m = modules_[id];
    m.emitted = true;
    if (!in_list) {
      std::string ctor = module_constructor(id);
      std::string line = m.expr + " = " + ctor;
      if (m.holder == ModuleEntry::Holder::List && !m.layer && line.size() + 8 > 96) {
        // A long list reads better one layer a line.
        line = m.expr + " = nn.ModuleList([";
        for (int c : m.children) line += "\n    " + module_constructor(c) + ",";
        line += "\n])";
      }
      init_lines_.push_back(line);
    }
    for (int c : m.children) emit_module(c, m.holder == ModuleEntry::Holder::List);
  }

  void declare_module(const std::string& path) {
    std::string top = path.substr(0, path.find('.'));
    for (int c : modules_[0].children) {
      if (modules_[c].name == top && !modules_[c].emitted) emit_module(c, false);
    }
  }

  const ModuleEntry& module_at(const std::string& path) const {
    for (const ModuleEntry& m : modules_)
      if (m.path == path) return m;
    throw std::logic_error("internal: module " + path + " is not in the module tree");
  }

  // ---- Templates -----------------------------------------------------------------

  // Expand an emit template (op_schema.h): $0 $1 $* inputs, {attr} a value, {attr?}
  // ", attr=value" where the value is not the default. In a module constructor the size
  // attributes are __init__ arguments.
  std::string expand(const std::string& tmpl, const Node& node,
                     const std::vector<std::string>& args, bool constructor) {
    const OpSchema& schema = node.schema();
    std::string out;
    for (size_t i = 0; i < tmpl.size(); ++i) {
      char c = tmpl[i];
      if (c == '$' && i + 1 < tmpl.size() && tmpl[i + 1] == '*') {
        out += join(args);
        ++i;
      } else if (c == '$' && i + 1 < tmpl.size() &&
                 std::isdigit(static_cast<unsigned char>(tmpl[i + 1]))) {
        size_t k = static_cast<size_t>(tmpl[i + 1] - '0');
        if (k >= args.size())
          throw std::logic_error("internal: template " + tmpl + " names a missing input");
        out += args[k];
        ++i;
      } else if (c == '$' && i + 1 < tmpl.size() && tmpl[i + 1] == 'd') {
        if (!forward_args_.empty()) out += ", device=" + forward_args_[0] + ".device";
        ++i;
      } else if (c == '$' && i + 1 < tmpl.size() && tmpl[i + 1] == ':') {  // x[:, :, idx]
        for (int64_t d = 0; d < attr_int(node.attrs, "dim"); ++d) out += ":, ";
        ++i;
      } else if (c == '{') {
        size_t close = tmpl.find('}', i);
        if (close == std::string::npos) throw std::logic_error("internal: unclosed { in " + tmpl);
        std::string name = tmpl.substr(i + 1, close - i - 1);
        bool optional = !name.empty() && name.back() == '?';
        if (optional) name.pop_back();
        const AttrSpec* spec = schema.find_attr(name);
        if (!spec)
          throw std::logic_error("internal: template " + tmpl + " names unknown attribute " + name);
        std::string text = constructor && spec->is_size ? size_constant(node, *spec)
                                                        : attr_literal(*spec, node.attrs.at(name));
        if (is_integer_clamp(g_, node))
          text = std::to_string(static_cast<int64_t>(attr_float(node.attrs, name)));
        DType dtype;
        if (name == "dtype" && parse_dtype(attr_str(node.attrs, name), &dtype))
          text = dtype_torch_name(dtype);
        if (!optional) {
          out += text;
        } else if (!is_default_attr(*spec, node.attrs)) {
          // The first argument of a call takes no leading comma: nn.GELU(approximate='tanh').
          if (!(out.empty() || out.back() == '(')) out += ", ";
          out += name + "=" + text;
        }
        i = close;
      } else {
        out += c;
      }
    }
    return out;
  }

  // ---- forward ---------------------------------------------------------------------

  void compute_last_uses() {
    last_use_.assign(g_.values().size(), -1);
    var_.assign(g_.values().size(), "");
    for (size_t i = 0; i < g_.nodes().size(); ++i) {
      for (ValueId v : g_.nodes()[i].inputs) last_use_[v] = static_cast<int>(i);
    }
    for (ValueId v : g_.outputs()) last_use_[v] = static_cast<int>(g_.nodes().size());
  }

  // A readable local name from an IR name: %3 -> x3, %h -> h; never one used before.
  std::string fresh_variable(const std::string& ir_name) {
    std::string base = ir_name;
    if (!is_identifier(base)) base = "x" + base;
    if (kReservedNames.count(base)) base += "_";
    std::string name = base;
    for (int n = 2; variables_.count(name); ++n) name = base + "_" + std::to_string(n);
    variables_.insert(name);
    return name;
  }

  // A module's call. Recurrent layers take their initial states as one argument ((h0, c0)
  // for an LSTM) and return a tuple, of which `result` picks one: the output sequence, or a
  // final state (an LSTM's h_n and c_n come as a pair).
  static std::string module_call(const Node& node, const std::string& module,
                                 std::vector<std::string> args) {
    if (!node.schema().find_attr("result")) return module + "(" + join(args) + ")";
    int64_t result = attr_int(node.attrs, "result");
    bool lstm = node.op == Op::Lstm;
    if (lstm && args.size() == 3) args = {args[0], "(" + args[1] + ", " + args[2] + ")"};
    std::string pick = lstm && result > 0 ? "[1][" + std::to_string(result - 1) + "]"
                                          : "[" + std::to_string(result) + "]";
    return module + "(" + join(args) + ")" + pick;
  }

  void emit_node(int index) {
    const Node& node = g_.nodes()[index];
    std::vector<std::string> args;
    for (ValueId v : node.inputs) args.push_back(var_[v]);
    std::string rhs;
    if (!node.module.empty()) {
      rhs = module_call(node, module_at(node.module).expr, args);
    } else {
      rhs = expand(node.schema().torch_function, node, args, false);
    }
    // A chain reads x = f(x): the output takes the variable of an input that dies here
    // (input 0 first), if it held the same dtype, so that a name keeps one meaning.
    const Value& out = g_.value(node.output);
    std::string var;
    for (ValueId v : node.inputs) {
      const Value& in = g_.value(v);
      if (in.kind != ValueKind::Param && last_use_[v] == index && in.type.dtype == out.type.dtype) {
        var = var_[v];
        break;
      }
    }
    if (var.empty()) var = fresh_variable(out.name);
    var_[node.output] = var;
    forward_lines_.push_back(var + " = " + rhs);
  }

  // Modules build their parameters in fp32: in a program whose floating inputs are all fp16
  // (or all bf16), the model moves to that precision at the end of __init__, as
  // `model.half()` would, unless a parameter declared with its own type says otherwise.
  void match_input_precision() {
    DType half = DType::F32;
    for (ValueId v : g_.inputs()) {
      DType d = g_.value(v).type.dtype;
      if (!is_floating(d)) continue;
      if ((d != DType::F16 && d != DType::BF16) || (half != DType::F32 && half != d)) return;
      half = d;
    }
    if (half == DType::F32 || modules_.size() <= 1) return;
    for (ValueId p : declared_params_) {
      DType d = g_.value(p).type.dtype;
      if (is_floating(d) && d != half) return;
    }
    init_lines_.push_back("self.to(" + std::string(dtype_torch_name(half)) + ")");
  }

  // ---- The file ----------------------------------------------------------------------

  std::string assemble() const {
    std::string s = "import torch\nimport torch.nn as nn\nimport torch.nn.functional as F\n\n";
    if (!constants_.empty()) {
      for (const Constant& c : constants_) s += c.name + " = " + c.literal + "\n";
    }
    s += "\n\nclass Model(nn.Module):\n";
    s += "    def __init__(" + signature(init_args_) + "):\n";
    s += "        super().__init__()\n";
    for (const std::string& line : init_lines_) s += indent(line, "        ");
    s += "\n    def forward(" + signature(forward_args_) + "):\n";
    for (const std::string& line : forward_lines_) s += "        " + line + "\n";
    std::vector<std::string> outs;
    for (ValueId v : g_.outputs()) outs.push_back(var_[v]);
    s += "        return " + join(outs) + "\n";
    s += "\n\ndef get_inputs():\n" + return_list(input_exprs_);
    s += "\n\ndef get_init_inputs():\n" + return_list(init_args_);
    return s;
  }

  static std::string signature(const std::vector<std::string>& args) {
    std::vector<std::string> all = {"self"};
    all.insert(all.end(), args.begin(), args.end());
    return join(all);
  }

  // `return [a, b]`, one item a line when that is too long for one.
  static std::string return_list(const std::vector<std::string>& items) {
    std::string line = "    return [" + join(items) + "]\n";
    if (line.size() <= 89) return line;
    std::string s = "    return [\n";
    for (const std::string& item : items) s += "        " + item + ",\n";
    return s + "    ]\n";
  }

  static std::string indent(const std::string& text, const std::string& prefix) {
    std::string s = prefix;
    for (char c : text) {
      s += c;
      if (c == '\n') s += prefix;
    }
    return s + "\n";
  }

  const Graph& g_;
  std::vector<Constant> constants_;
  std::vector<std::string> input_constants_;  // constants named after input dims
  std::vector<std::string> init_args_;
  std::vector<std::string> init_lines_, forward_lines_, forward_args_, input_exprs_;
  std::vector<ModuleEntry> modules_;  // [0] is the model itself
  std::set<std::string> attributes_;  // the model's attribute names taken so far
  std::map<ValueId, std::string> param_attr_;
  std::set<ValueId> declared_params_;
  std::vector<int> last_use_;
  std::vector<std::string> var_;  // each value's Python expression
  std::set<std::string> variables_;
};

}  // namespace

std::string emit_pytorch(const Graph& graph) {
  return Emitter(graph).run();
}

}  // namespace drtriton
