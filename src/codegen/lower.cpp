// The lowering of codegen.h: values to buffers and expressions, expressions to kernels.
#include <algorithm>
#include <cctype>
#include <cmath>
#include <functional>
#include <map>
#include <numeric>
#include <set>
#include <sstream>
#include <stdexcept>

#include "codegen/codegen.h"
#include "codegen/pointwise.h"

namespace drtriton {

namespace {

// ---- Small text helpers ----------------------------------------------------------------

bool is_integer(const std::string& s) {
  return !s.empty() && std::all_of(s.begin(), s.end(), [](char c) { return std::isdigit(c); });
}

bool is_identifier(const std::string& s) {
  if (s.empty() || std::isdigit(static_cast<unsigned char>(s[0]))) return false;
  return std::all_of(s.begin(), s.end(), [](char c) { return std::isalnum(c) || c == '_'; });
}

std::string product(const std::vector<std::string>& factors) {
  std::vector<std::string> kept;
  for (const auto& f : factors) {
    if (f != "1") kept.push_back(f);
  }
  if (kept.empty()) return "1";
  if (kept.size() == 1) return kept[0];
  std::string s;
  for (size_t i = 0; i < kept.size(); ++i) s += (i ? " * " : "") + kept[i];
  return "(" + s + ")";
}

std::string join(const std::vector<std::string>& items, const std::string& sep) {
  std::string s;
  for (size_t i = 0; i < items.size(); ++i) s += (i ? sep : "") + items[i];
  return s;
}

std::string python_name(std::string s) {
  for (char& c : s) {
    if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
  }
  return s;
}

// How forward names a state entry: self.conv.weight; through get_parameter / get_buffer
// when a part of its key is no Python attribute name ("layers.0.bias": an index of a
// Sequential or a ModuleList, or a key of a ModuleDict, which self.layers[0] would not find).
std::string state_attribute(const StateEntry& e) {
  std::string path = "self";
  size_t start = 0;
  while (start <= e.key.size()) {
    size_t dot = std::min(e.key.find('.', start), e.key.size());
    std::string part = e.key.substr(start, dot - start);
    if (is_identifier(part)) {
      path += "." + part;
    } else {
      return std::string("self.") + (e.is_buffer ? "get_buffer" : "get_parameter") + "(\"" + e.key +
             "\")";
    }
    start = dot + 1;
  }
  return path;
}

// `a + b` and `a * f` for integers b and f, without the no-ops (+ 0, - 0, * 1).
std::string offset_by(const std::string& a, int64_t b) {
  return b == 0 ? a : b > 0 ? a + " + " + std::to_string(b) : a + " - " + std::to_string(-b);
}
std::string scaled(const std::string& a, int64_t f) {
  return f == 1 ? a : a + " * " + std::to_string(f);
}

std::string tuple(const std::vector<std::string>& items) {
  return items.size() == 1 ? "(" + items[0] + ",)" : "(" + join(items, ", ") + ")";
}

// ---- Where a kernel reads an element -----------------------------------------------------

// A multi-index into a value, as Triton expressions (one per dim), the mask under which
// the element is needed, and the linear offset when the index is the kernel's own
// contiguous iteration over a tensor of the same shape (then a load needs no arithmetic).
struct Index {
  std::vector<std::string> dims;
  std::string mask;
  std::string linear;
  // The shape `linear` enumerates; a channels-last iteration (materialize) marks it as
  // channels_last_shape(shape), which no row-major shape equals.
  std::vector<std::string> linear_shape;
  // Inside a pooling window: the mask without the window's bounds, and the index
  // expressions that are the same at every window position. A load indexed by those alone
  // (a per-channel bias) is one load under the outer mask, not one per position.
  std::string outer_mask;
  std::set<std::string> invariant;
};

// How one operand of the forward is held: a tensor variable in the forward, or nothing
// (an expression, evaluated inside whichever kernel reads it).
struct Buffer {
  std::string var;
  bool written_by_kernel = false;
};

// A reduction over a regrouped view of its input: rows enumerate `kept`, columns `reduced`;
// `to_input` maps (row index, column index) to an index of the input, `row_of` maps an
// index of the normalized output back to its row's index.
struct ReducePlan {
  std::vector<std::string> kept, reduced;
  int64_t traced_rows = 1, traced_cols = 1;  // their products at the traced sizes
  // Consecutive rows are consecutive in memory (a batch norm's channels, channels-last): the
  // tile then spans many rows (_tile_rows), so that its loads run along them.
  bool rows_contiguous = false;
  std::function<std::vector<std::string>(const std::vector<std::string>&,
                                         const std::vector<std::string>&)>
      to_input;
  std::function<std::vector<std::string>(const std::vector<std::string>&)> row_of;
};

class Kernel;
// An element expression at an index, written into a kernel (returns its variable).
using Element = std::function<std::string(Kernel&, const Index&)>;

class Kernel {
 public:
  Kernel(std::string name) : name_(std::move(name)) {}

  std::string tmp() { return "t" + std::to_string(next_tmp_++); }
  void line(const std::string& s) { body_.push_back(std::string(4 * indent_, ' ') + s); }
  std::string assign(const std::string& expr) {
    std::string t = tmp();
    line(t + " = " + expr);
    return t;
  }
  void push() {
    ++indent_;
    memo_.emplace_back();
  }
  void pop() {
    --indent_;
    memo_.pop_back();
  }
  const std::string* find(const std::string& key) const {
    for (auto it = memo_.rbegin(); it != memo_.rend(); ++it) {
      auto f = it->find(key);
      if (f != it->end()) return &f->second;
    }
    return nullptr;
  }
  void remember(const std::string& key, const std::string& var) { memo_.back()[key] = var; }

  // A tensor argument; returns its parameter name.
  std::string pointer(const std::string& var) {
    std::string p = var + "_ptr";
    if (std::find(pointers_.begin(), pointers_.end(), var) == pointers_.end()) {
      pointers_.push_back(var);
    }
    return p;
  }
  // A size used inside: an integer stays a literal, a forward variable becomes an argument.
  std::string size(const std::string& dim) {
    if (is_integer(dim)) return dim;
    sizes_.insert(dim);
    return dim;
  }
  std::string size_product(const std::vector<std::string>& dims) {
    std::vector<std::string> f;
    for (const auto& d : dims) f.push_back(size(d));
    return product(f);
  }

  // The seed of the forward's dropout number `slot`, read in training mode only: the kernel
  // then takes the forward's seeds and a TRAINING flag (finish_kernel).
  std::string dropout_seed(int slot) {
    training_ = true;
    return "tl.load(" + pointer("dropout_seeds") + " + " + std::to_string(slot) + ")";
  }
  bool training() const { return training_; }

  // The graph nodes (by index) this kernel computes, for the solution's header.
  void touch(int node) {
    if (node >= 0) nodes_.insert(node);
  }
  const std::set<int>& nodes() const { return nodes_; }

  std::string name() const { return name_; }
  const std::vector<std::string>& pointers() const { return pointers_; }
  const std::set<std::string>& sizes() const { return sizes_; }
  const std::vector<std::string>& body() const { return body_; }

 private:
  std::string name_;
  std::vector<std::string> body_;
  std::vector<std::map<std::string, std::string>> memo_{1};
  std::vector<std::string> pointers_;
  std::set<std::string> sizes_;
  std::set<int> nodes_;
  int indent_ = 1;
  int next_tmp_ = 0;
  bool training_ = false;
};

// A dropout that drops: p > 0 (p = 0 is the identity in both modes).
bool is_dropout(Op op) {
  return op == Op::Dropout || op == Op::Dropout2d || op == Op::Dropout3d || op == Op::AlphaDropout;
}

bool drops(const Node& n) {
  return is_dropout(n.op) && attr_float(n.attrs, "p") > 0;
}

// Row-major decomposition of `linear` over `shape`: the index of each dim.
std::vector<std::string> decompose(Kernel& k, const std::string& linear,
                                   const std::vector<std::string>& shape) {
  std::vector<std::string> idx(shape.size());
  std::vector<std::string> inner;
  for (int d = static_cast<int>(shape.size()) - 1; d >= 0; --d) {
    std::string stride = k.size_product(inner);
    std::string q = stride == "1" ? linear : "(" + linear + " // " + stride + ")";
    if (shape[d] == "1" || linear == "0") {
      idx[d] = "0";  // a literal, so that loads see a broadcast scalar
    } else {
      idx[d] = k.assign(d == 0 ? q : q + " % " + k.size(shape[d]));
    }
    inner.insert(inner.begin(), shape[d]);
  }
  return idx;
}

// A channels-last tensor's dims in memory order: batch, the spatial dims, channels last.
std::vector<std::string> memory_order(std::vector<std::string> dims) {
  std::rotate(dims.begin() + 1, dims.begin() + 2, dims.end());
  return dims;
}
std::vector<std::string> channels_last_shape(const std::vector<std::string>& shape) {
  std::vector<std::string> marked = memory_order(shape);
  marked.push_back("channels_last");
  return marked;
}
std::string memory_format(size_t rank) {
  return rank == 4 ? "torch.channels_last" : "torch.channels_last_3d";
}
std::vector<std::string> logical_order(std::vector<std::string> dims) {
  std::rotate(dims.begin() + 1, dims.end() - 1, dims.end());
  return dims;
}

std::string linearize(Kernel& k, const std::vector<std::string>& idx,
                      const std::vector<std::string>& shape) {
  std::vector<std::string> terms;
  for (size_t d = 0; d < idx.size(); ++d) {
    if (shape[d] == "1" || idx[d] == "0") continue;
    std::vector<std::string> inner(shape.begin() + d + 1, shape.end());
    std::string stride = k.size_product(inner);
    terms.push_back(stride == "1" ? idx[d] : idx[d] + " * " + stride);
  }
  return terms.empty() ? "0" : "(" + join(terms, " + ") + ")";
}

std::string load_at(Kernel& k, const std::string& var, const std::string& offset,
                    const std::string& mask, const std::string& other, bool widen = false);

// The mask of a load indexed by `dims`: inside a pooling window, the outer mask when every
// dim is the same at each position (Index::invariant), so that one load serves them all.
std::string load_mask(const Index& idx, const std::vector<std::string>& dims) {
  bool same =
      !idx.outer_mask.empty() && std::all_of(dims.begin(), dims.end(), [&](const std::string& d) {
        return is_integer(d) || idx.invariant.count(d) > 0;
      });
  return same ? idx.outer_mask : idx.mask;
}

// A variable holding `expr`: the expression itself when it is one already.
std::string named(Kernel& k, const std::string& expr) {
  return is_identifier(expr) ? expr : k.assign(expr);
}

// ---- The lowering ----------------------------------------------------------------------

class Lowering {
 public:
  Lowering(const Graph& g, const CodegenOptions& options) : g_(g), options_(options) {}

  GeneratedSolution run();

 private:
  // Sizes.
  std::vector<std::string> shape_of(ValueId v);
  std::string dim_var(const std::string& expr);
  std::string numel_py(ValueId v) { return product(shape_of(v)); }

  // Buffers and kernels.
  bool is_buffer(ValueId v) const { return buffers_.count(v) > 0; }
  std::string materialize(ValueId v, bool channels_last = false);
  std::string conv_operand(ValueId v, const std::string& format);
  // Layout knob: 4-d and 5-d values that read a channels-last buffer are written channels-last
  // (those a convolution takes, or several kernels read), or else NCHW in tiles.
  bool channels_last() const { return options_.knobs.layout == "channels_last"; }
  bool reads_channels_last(ValueId v);
  bool wants_channels_last(ValueId v) {
    int rank = g_.value(v).type.rank();
    return channels_last() && (rank == 4 || rank == 5) && reads_channels_last(v);
  }
  std::string as_tensor(ValueId v);  // a buffer or a torch view of one, for library calls
  std::string alloc(const std::vector<std::string>& shape, DType dtype);
  void finish_kernel(Kernel& k, const std::vector<std::string>& extra_params,
                     const std::vector<std::string>& constexprs, const std::string& grid,
                     const std::vector<std::string>& extra_args,
                     const std::vector<std::string>& constexpr_args,
                     const std::vector<std::string>& launch_options = {});

  // Expressions.
  std::string emit(Kernel& k, ValueId v, const Index& idx);
  // What a kernel remembers `v` at `idx` by: emit's memo, which the GEMM epilogue fills
  // with the accumulator so that the chain reading the product reads the tile.
  static std::string value_key(ValueId v, const Index& idx) {
    return "value " + std::to_string(v) + "[" + join(idx.dims, ",") + "] if " + idx.mask;
  }
  std::string emit_node(Kernel& k, const Node& n, const Index& idx);
  std::string load(Kernel& k, const std::string& var, ValueId v, const Index& idx);
  Index broadcast_index(ValueId in, ValueId out, const Index& idx);
  std::string emit_pool(Kernel& k, const Node& n, const Index& idx);
  std::string emit_dropout(Kernel& k, const Node& n, const Index& idx);
  bool is_global_pool(const Node& n) const;
  void lower_global_pool(const Node& n);
  int cost(ValueId v);

  // Nodes that write buffers.
  void lower_anchor(const Node& n);
  bool triton_gemm(const Node& n) const;
  void plan_gemm(const Node& n);
  void lower_gemm(const Node& n, ValueId root);
  void lower_recurrent(const Node& n);
  void lower_nll_loss(const Node& n);
  std::string nll_term(Kernel& k, const Node& n, const Index& idx, bool count);
  void lower_reduction(const Node& n);
  void lower_normalization(const Node& n);
  void lower_batch_norm(const Node& n, const ReducePlan& plan);
  void lower_instance_norm(const Node& n, const ReducePlan& plan);
  // What a norm with running statistics reads from its node: eps, momentum (NaN for
  // momentum=None) and the forward variables of running_mean and running_var.
  struct RunningStats {
    std::string eps;
    double momentum;
    std::string mean, var;
  };
  RunningStats running_stats(const Node& n);
  std::string kernel_name(const Node& n, const std::string& what) const {
    return "k" + std::to_string(kernels_.size()) + "_" + n.schema().name + "_" + what;
  }
  void indent_forward_since(size_t line);
  void lower_scan(const Node& n);
  void lower_attention(const Node& n);
  ReducePlan plan_dims(ValueId in, const std::vector<int>& reduced);
  // `element` gives the reduced value at an index of `in` (default: `in`'s own value);
  // `result` is the results' type (argmax and argmin: int64): fp32, the statistics of a
  // normalization, or a reduction's own output type (fp16 rounds once, from fp32, at the store).
  std::vector<std::string> stats_kernel(const std::string& what, ValueId in, const ReducePlan& plan,
                                        const Node& n, const Element& element = nullptr,
                                        DType result = DType::F32);
  std::string param_var(const Node& n, const std::string& rel);
  bool has_param(const Node& n, const std::string& rel) const;

  std::string header(const std::string& body);
  std::string contents() const;
  // The first grid axis's program index: 64-bit when some tensor is too large for 32-bit
  // offsets.
  std::string program_id() const {
    return int64_index_ ? "tl.program_id(0).to(tl.int64)" : "tl.program_id(0)";
  }
  std::string model_class();
  // What a store of a `dtype` tensor writes: bf16 rounded to nearest even (_round_bf16).
  std::string rounded(DType dtype, const std::string& x) {
    if (dtype != DType::BF16) return x;
    helpers_.insert("_round_bf16");
    return "_round_bf16(" + x + ")";
  }

  // fp16 and bf16 values (and the parameters of a module whose output is one) are loaded
  // into fp32.
  bool low_precision(ValueId v) const {
    DType dtype = g_.value(v).type.dtype;
    return dtype == DType::F16 || dtype == DType::BF16;
  }
  // A value cast to `dtype` as kernels hold it: floating values in fp32, fp16 and bf16 ones
  // rounded to their precision first (as PyTorch rounds on the cast); bool as a comparison;
  // integers truncated toward zero.
  std::string cast_to(DType from, DType dtype, const std::string& x) {
    std::string fp32 = is_floating(from) ? x : x + ".to(tl.float32)";
    switch (dtype) {
      case DType::F16: return x + ".to(tl.float16).to(tl.float32)";
      case DType::BF16: return rounded(DType::BF16, fp32) + ".to(tl.float32)";
      case DType::Bool: return "(" + x + " != 0)";
      case DType::I64: return x + ".to(tl.int64)";
      case DType::I32: return x + ".to(tl.int32)";
      case DType::F32: return fp32;
      default:
        throw IrError("codegen: no cast to " + std::string(dtype_name(dtype)) + " in a kernel");
    }
  }

  const Graph& g_;
  const CodegenOptions& options_;
  std::map<ValueId, Buffer> buffers_;
  std::map<ValueId, std::string> raw_;  // anchor results before their bias
  std::map<ValueId, std::vector<std::string>> stats_;
  std::map<ValueId, ReducePlan> plans_;
  std::map<ValueId, int> users_, cost_;
  std::map<ValueId, std::vector<int>> consumers_;  // the nodes (indices) reading each value
  // Triton GEMMs waiting for their epilogue's last value (root -> the GEMM's node index),
  // the values inside an epilogue (computed in the GEMM kernel only), and the nodes taken.
  std::map<ValueId, int> gemm_roots_;
  std::set<ValueId> epilogue_inner_;
  std::set<int> epilogue_nodes_;
  std::set<std::string> channels_last_;  // forward variables held channels-last in memory
  std::map<ValueId, bool> reads_cl_;
  std::set<std::pair<std::string, std::string>> channels_last_weights_;  // module, format
  std::map<std::string, std::string> dim_vars_;  // expression -> forward variable
  std::vector<std::string> forward_;             // forward's lines, after the prologue
  std::vector<std::string> prologue_;
  std::vector<std::string> kernels_;  // kernel sources
  std::set<std::string> helpers_;
  std::map<std::string, std::string> param_vars_;       // state key -> forward variable
  std::map<std::string, std::string> recurrent_calls_;  // module and inputs -> results tuple
  std::map<int, int> dropout_slots_;  // a dropout node's index -> its seed's in dropout_seeds
  int next_buffer_ = 0, library_calls_ = 0;
  int current_node_ = -1;  // the node being lowered (index), -1 after the last
  // What each kernel and library call computes: (its name, the nodes), in launch order.
  std::vector<std::pair<std::string, std::set<int>>> computes_;
  bool int64_index_ = false;
};

std::vector<std::string> Lowering::shape_of(ValueId v) {
  const Value& val = g_.value(v);
  std::vector<std::string> dims;
  for (int d = 0; d < val.type.rank(); ++d) {
    std::string e = val.sym_shape.empty() ? std::to_string(val.type.shape[d]) : val.sym_shape[d];
    dims.push_back(is_integer(e) ? e : dim_var(e));
  }
  return dims;
}

// Every symbolic size gets one forward variable, computed once after the inputs' sizes
// are bound: kernels take these as arguments.
std::string Lowering::dim_var(const std::string& expr) {
  auto it = dim_vars_.find(expr);
  if (it != dim_vars_.end()) return it->second;
  std::string var = is_identifier(expr) ? expr : "d" + std::to_string(dim_vars_.size());
  dim_vars_[expr] = var;
  if (var != expr) prologue_.push_back(var + " = " + expr);
  return var;
}

std::string Lowering::alloc(const std::vector<std::string>& shape, DType dtype) {
  std::string var = "buf" + std::to_string(next_buffer_++);
  forward_.push_back(var + " = torch.empty(" + tuple(shape) +
                     ", device=device, dtype=" + std::string(dtype_torch_name(dtype)) + ")");
  return var;
}

std::string Lowering::load(Kernel& k, const std::string& var, ValueId v, const Index& idx) {
  std::vector<std::string> shape = shape_of(v);
  std::string offset =
      !idx.linear.empty() &&
              idx.linear_shape == (channels_last_.count(var) ? channels_last_shape(shape) : shape)
          ? idx.linear
      : channels_last_.count(var) ? linearize(k, memory_order(idx.dims), memory_order(shape))
                                  : linearize(k, idx.dims, shape);
  return load_at(k, var, offset, load_mask(idx, idx.dims),
                 is_floating(g_.value(v).type.dtype) ? "0.0" : "0", low_precision(v));
}

// Every load of a kernel goes through here: one per element and mask (later reads reuse it).
// `widen`: fp16 and bf16 elements are computed on in fp32, as PyTorch's own kernels do (and
// Triton's exp, sigmoid and friends take fp32 only); the store rounds to the tensor's type.
std::string load_at(Kernel& k, const std::string& var, const std::string& offset,
                    const std::string& mask, const std::string& other, bool widen) {
  std::string key = "load " + var + "[" + offset + "] if " + mask;
  if (const std::string* t = k.find(key)) return *t;
  // An element every lane reads (a broadcast scalar) is one unmasked scalar load: a block
  // mask needs a block of pointers.
  std::string load = offset == "0" ? "tl.load(" + k.pointer(var) + ")"
                                   : "tl.load(" + k.pointer(var) + " + " + offset +
                                         ", mask=" + mask + ", other=" + other + ")";
  std::string t = k.assign(widen ? load + ".to(tl.float32)" : load);
  k.remember(key, t);
  return t;
}

// The index of input `in` that an elementwise op reads for its output index: broadcast
// dims (size 1 in the input, not in the output) read element 0.
Index Lowering::broadcast_index(ValueId in, ValueId out, const Index& idx) {
  const Shape& si = g_.value(in).type.shape;
  const Shape& so = g_.value(out).type.shape;
  Index r{{}, idx.mask, "", {}, idx.outer_mask, idx.invariant};
  size_t lead = so.size() - si.size();
  for (size_t d = 0; d < si.size(); ++d) {
    r.dims.push_back(si[d] == 1 && so[d + lead] != 1 ? "0" : idx.dims[d + lead]);
  }
  if (si == so) {
    r.linear = idx.linear;
    r.linear_shape = idx.linear_shape;
  }
  return r;
}

std::string Lowering::emit(Kernel& k, ValueId v, const Index& idx) {
  auto b = buffers_.find(v);
  if (b != buffers_.end()) return load(k, b->second.var, v, idx);
  const Value& val = g_.value(v);
  if (val.kind != ValueKind::Node) {
    throw IrError("codegen: %" + val.name + " has no buffer");
  }
  std::string key = value_key(v, idx);
  if (const std::string* t = k.find(key)) return *t;
  k.touch(val.node);
  std::string t = emit_node(k, g_.nodes()[val.node], idx);
  k.remember(key, t);
  return t;
}

std::string Lowering::emit_node(Kernel& k, const Node& n, const Index& idx) {
  const OpSchema& s = n.schema();
  ValueId out = n.output;
  if (n.op == Op::Triu || n.op == Op::Tril) {  // zero on one side of a diagonal
    std::string x = emit(k, n.inputs[0], idx);
    size_t r = idx.dims.size();
    std::string row = idx.dims[r - 2], col = idx.dims[r - 1];
    // Literal indices (size-1 dims) would make the condition a Python bool: make it a block.
    if (is_integer(row) && is_integer(col)) col = "(" + idx.mask + ").to(tl.int32) * 0 + " + col;
    std::string diagonal = std::to_string(attr_int(n.attrs, "diagonal"));
    std::string keep =
        "(" + col + " - " + row + (n.op == Op::Triu ? " >= " : " <= ") + diagonal + ")";
    if (g_.value(out).type.dtype == DType::Bool) return k.assign(keep + " & (" + x + ")");
    return k.assign("tl.where(" + keep + ", " + x + ", 0.0)");
  }
  if (n.op == Op::NllLoss) {  // per target, or a reduction's sum (over its count, for a mean)
    const std::string& reduction = attr_str(n.attrs, "reduction");
    if (reduction == "none") return nll_term(k, n, idx, false);
    const std::vector<std::string>& st = stats_.at(out);
    std::string sum = load_at(k, st[0], "0", idx.mask, "0.0");
    return reduction == "sum" ? sum
                              : k.assign(sum + " / " + load_at(k, st[1], "0", idx.mask, "1.0"));
  }
  if (n.op == Op::Full) {  // one value everywhere, as a block shaped like the mask
    const std::string& m = idx.mask;
    double value = attr_float(n.attrs, "value");
    if (g_.value(out).type.dtype == DType::Bool)
      return k.assign("(" + m + ") " + (value != 0 ? "==" : "!=") + " (" + m + ")");
    std::string v = float_literal(value);
    // An fp16 or bf16 tensor holds the value rounded to its precision (-0.1 is not -0.1).
    DType dtype = g_.value(out).type.dtype;
    return k.assign(cast_to(DType::F32, dtype, "tl.where(" + m + ", " + v + ", " + v + ")"));
  }
  if (s.category == Category::Unary || s.category == Category::Binary) {
    std::vector<std::string> args;
    for (ValueId in : n.inputs) args.push_back(emit(k, in, broadcast_index(in, out, idx)));
    // A number computed from sizes (`x / x.size(0)`) is a kernel argument, like a dim.
    std::map<std::string, std::string> scalars;
    for (const auto& [attr, expr] : n.sym_attrs) scalars[attr] = k.size(dim_var(expr));
    return k.assign(pointwise_formula(n, args, helpers_, scalars));
  }
  if (s.category == Category::Anchor) {  // library result plus its bias
    std::string acc = load(k, raw_.at(out), out, idx);
    if (n.op == Op::Addmm) {
      ValueId bias = n.inputs[0];
      return k.assign(acc + " + " + emit(k, bias, broadcast_index(bias, out, idx)));
    }
    // The bias is per output feature (a Linear's last dim) or per channel (dim 1).
    std::string bias = param_var(n, "bias");
    int channel = n.op == Op::Linear ? static_cast<int>(idx.dims.size()) - 1 : 1;
    std::string b = load_at(k, bias, idx.dims[channel], load_mask(idx, {idx.dims[channel]}), "0.0",
                            low_precision(out));
    return k.assign(acc + " + " + b);
  }
  if (s.category == Category::Normalization) {
    ValueId x = n.inputs[0];
    std::string xv = emit(k, x, idx);
    const ReducePlan& plan = plans_.at(out);
    std::vector<std::string> row_dims = plan.row_of(idx.dims);
    std::string row = linearize(k, row_dims, plan.kept);
    std::vector<std::string> st;
    for (const std::string& var : stats_.at(out))
      st.push_back(load_at(k, var, row, load_mask(idx, row_dims), "1.0"));
    if (n.op == Op::Softmax) return k.assign("tl.exp(" + xv + " - " + st[0] + ") / " + st[1]);
    if (n.op == Op::LogSoftmax) {
      return k.assign(xv + " - " + st[0] + " - tl.log(" + st[1] + ")");
    }
    std::string y = n.op == Op::RmsNorm ? k.assign(xv + " * " + st[0])
                                        : k.assign("(" + xv + " - " + st[0] + ") * " + st[1]);
    // Affine parameters: per channel (batch, group, instance norms) or over the trailing
    // normalized dims (layer and RMS norms).
    bool trailing = n.op == Op::LayerNorm || n.op == Op::RmsNorm;
    std::vector<ParamSpec> params = g_.node_params(n);
    for (const ParamSpec& p : params) {
      if (p.is_buffer) continue;
      std::string rel = p.name.substr(n.module.size() + 1);
      std::string var = param_var(n, rel);
      std::vector<std::string> pdims, pshape;
      if (trailing) {
        size_t r = p.type.shape.size();
        pdims.assign(idx.dims.end() - r, idx.dims.end());
        std::vector<std::string> full = shape_of(out);
        pshape.assign(full.end() - r, full.end());
      } else {
        pdims = {idx.dims[1]};
        pshape = {shape_of(out)[1]};
      }
      std::string off = linearize(k, pdims, pshape);
      std::string pv = load_at(k, var, off, load_mask(idx, pdims), "0.0", low_precision(out));
      y = k.assign(rel == "weight" ? y + " * " + pv : y + " + " + pv);
    }
    return y;
  }
  if (s.category == Category::Pooling) return emit_pool(k, n, idx);
  if (s.category == Category::Layout) {
    ValueId in = n.inputs.empty() ? -1 : n.inputs[0];
    std::vector<std::string> ishape = in >= 0 ? shape_of(in) : std::vector<std::string>{};
    std::vector<std::string> oshape = shape_of(out);
    switch (n.op) {
      case Op::Dropout:
      case Op::Dropout2d:
      case Op::Dropout3d:
      case Op::AlphaDropout:
        if (drops(n)) return emit_dropout(k, n, idx);
        [[fallthrough]];
      case Op::Clone:
      case Op::Contiguous:
      case Op::Identity: return emit(k, in, idx);
      case Op::Cast: {
        std::string x = emit(k, in, idx);
        std::string y = cast_to(g_.value(in).type.dtype, g_.value(out).type.dtype, x);
        return y == x ? x : k.assign(y);
      }
      case Op::Permute:
      case Op::Transpose: {
        std::vector<int64_t> perm;
        if (n.op == Op::Permute) {
          perm = attr_ints(n.attrs, "dims");
        } else {
          perm.resize(oshape.size());
          std::iota(perm.begin(), perm.end(), 0);
          std::swap(perm[attr_int(n.attrs, "dim0")], perm[attr_int(n.attrs, "dim1")]);
        }
        Index r{std::vector<std::string>(ishape.size()), idx.mask, "", {}};
        for (size_t d = 0; d < perm.size(); ++d) r.dims[perm[d]] = idx.dims[d];
        return emit(k, in, r);
      }
      case Op::Flip: {
        Index r{idx.dims, idx.mask, "", {}};
        for (int64_t d : attr_ints(n.attrs, "dims"))
          r.dims[d] = "(" + k.size(ishape[d]) + " - 1 - " + idx.dims[d] + ")";
        return emit(k, in, r);
      }
      case Op::Slice: {  // input index = start + i * step, start counted from the end if < 0
        int64_t d = attr_int(n.attrs, "dim"), start = attr_int(n.attrs, "start");
        int64_t step = attr_int(n.attrs, "step");
        std::string first = start >= 0
                                ? std::to_string(start)
                                : "(" + k.size(ishape[d]) + " - " + std::to_string(-start) + ")";
        Index r{idx.dims, idx.mask, "", {}};
        r.dims[d] = "(" + first + " + " + idx.dims[d] +
                    (step == 1 ? "" : " * " + std::to_string(step)) + ")";
        return emit(k, in, r);
      }
      case Op::Select: {
        int64_t d = attr_int(n.attrs, "dim"), index = attr_int(n.attrs, "index");
        Index r{idx.dims, idx.mask, "", {}};
        std::string at = index >= 0
                             ? std::to_string(index)
                             : "(" + k.size(ishape[d]) + " - " + std::to_string(-index) + ")";
        r.dims.insert(r.dims.begin() + d, at);
        return emit(k, in, r);
      }
      case Op::Expand: return emit(k, in, broadcast_index(in, out, idx));
      case Op::Embedding: {  // row ids[i...] of the weight; an id out of range reads 0
        Index r{idx.dims, idx.mask, "", {}};
        std::string column = r.dims.back();
        r.dims.pop_back();
        std::string id = emit(k, in, r);
        std::string rows = std::to_string(attr_int(n.attrs, "num_embeddings"));
        std::string width = std::to_string(attr_int(n.attrs, "embedding_dim"));
        std::string valid = k.assign("(" + id + " >= 0) & (" + id + " < " + rows + ")");
        return load_at(k, param_var(n, "weight"), id + " * " + width + " + " + column,
                       "(" + idx.mask + ") & " + valid, "0.0", low_precision(out));
      }
      case Op::Roll: {  // out[i] = in[(i - shift) mod n], with (-shift) mod n taken in Python
        Index r{idx.dims, idx.mask, "", {}};
        auto shifts = attr_ints(n.attrs, "shifts"), dims = attr_ints(n.attrs, "dims");
        for (size_t j = 0; j < dims.size(); ++j) {
          const std::string& len = ishape[dims[j]];
          std::string back =
              is_integer(len) ? std::to_string(((-shifts[j]) % std::stoll(len) + std::stoll(len)) %
                                               std::stoll(len))
                              : dim_var("(" + std::to_string(-shifts[j]) + ") % " + len);
          r.dims[dims[j]] =
              "((" + r.dims[dims[j]] + " + " + k.size(back) + ") % " + k.size(len) + ")";
        }
        return emit(k, in, r);
      }
      case Op::Cat: {
        int dim = static_cast<int>(attr_int(n.attrs, "dim"));
        std::string offset = "0";
        std::string result;
        for (size_t i = 0; i < n.inputs.size(); ++i) {
          ValueId part = n.inputs[i];
          std::string len = k.size(shape_of(part)[dim]);
          std::string end = offset == "0" ? len : "(" + offset + " + " + len + ")";
          std::string inside = k.assign("(" + idx.dims[dim] + " >= " + offset + ") & (" +
                                        idx.dims[dim] + " < " + end + ")");
          Index r = idx;
          r.linear.clear();
          r.dims[dim] = offset == "0" ? idx.dims[dim] : "(" + idx.dims[dim] + " - " + offset + ")";
          r.mask = "(" + idx.mask + ") & " + inside;
          std::string v = emit(k, part, r);
          result =
              result.empty() ? v : k.assign("tl.where(" + inside + ", " + v + ", " + result + ")");
          offset = end;
        }
        return result;
      }
      default: {  // reshape, flatten, squeeze, unsqueeze: the same elements in the same order
        Index r{{}, idx.mask, idx.linear, idx.linear_shape};
        std::string lin = !idx.linear.empty() && idx.linear_shape == oshape
                              ? idx.linear
                              : linearize(k, idx.dims, oshape);
        if (lin != "0") lin = k.assign(lin);
        r.dims = decompose(k, lin, ishape);
        r.linear = lin;
        r.linear_shape = ishape;
        return emit(k, in, r);
      }
    }
  }
  throw IrError("codegen: no lowering for " + s.name);
}

// Dropout in training mode, as nn.Dropout: each element zeroed with probability p, the others
// scaled by 1/(1-p). The uniform number is Philox's (tl.rand) at the element's offset in the
// dropout's output, keyed by the node's seed, which the forward draws from PyTorch's
// generator on every call: every kernel that recomputes the value draws the same mask, and
// torch.manual_seed makes a run reproducible. In eval mode TRAINING is False and the value
// is the input (a branch on a constexpr: nothing of it is compiled).
std::string Lowering::emit_dropout(Kernel& k, const Node& n, const Index& idx) {
  std::string x = emit(k, n.inputs[0], idx);
  std::vector<std::string> shape = shape_of(n.output);
  // The random number's offset: the element's, or for whole channels its (sample, channel).
  std::string offset;
  if (n.op == Op::Dropout2d || n.op == Op::Dropout3d) {
    offset = linearize(k, {idx.dims[0], idx.dims[1]}, {shape[0], shape[1]});
  } else {
    offset = !idx.linear.empty() && idx.linear_shape == shape ? idx.linear
                                                              : linearize(k, idx.dims, shape);
  }
  // tl.rand takes a block of offsets: a literal one (a single element) is made one.
  if (is_integer(offset)) offset = "(" + idx.mask + ").to(tl.int32) * 0 + " + offset;
  int node = static_cast<int>(&n - g_.nodes().data());
  int slot = dropout_slots_.emplace(node, static_cast<int>(dropout_slots_.size())).first->second;
  double p = attr_float(n.attrs, "p");
  std::string keep = "tl.rand(" + k.dropout_seed(slot) + ", " + offset + ") >= " + float_literal(p);
  if (n.op == Op::AlphaDropout) {
    // PyTorch's alpha dropout: kept a * x + b, dropped a * alpha' + b, with alpha' = -1.758...
    // (SELU's negative saturation), a = ((1 - p)(1 + p alpha'^2))^-1/2, b = -a alpha' p.
    const double alpha = 1.7580993408473766;
    double a = 1.0 / std::sqrt((alpha * alpha * p + 1) * (1 - p));
    return k.assign("tl.where(" + keep + ", " + x + " * " + float_literal(a) + " + " +
                    float_literal(alpha * a * p) + ", " + float_literal(-alpha * a * (1 - p)) +
                    ") if TRAINING else " + x);
  }
  return k.assign("tl.where(" + keep + ", " + x + " * " + float_literal(1.0 / (1.0 - p)) +
                  ", 0.0) if TRAINING else " + x);
}

// A pooling window, unrolled: each position reads the input expression, masked where the
// window leaves the input (padding, ceil mode, adaptive bounds).
std::string Lowering::emit_pool(Kernel& k, const Node& n, const Index& idx) {
  ValueId in = n.inputs[0];
  std::vector<std::string> ishape = shape_of(in);
  const Shape& ocon = g_.value(n.output).type.shape;
  const Shape& icon = g_.value(in).type.shape;
  int rank = static_cast<int>(ishape.size());
  bool adaptive = n.op == Op::AdaptiveAvgPool2d || n.op == Op::AdaptiveAvgPool3d;
  bool is_max = n.op == Op::MaxPool1d || n.op == Op::MaxPool2d || n.op == Op::MaxPool3d;
  int sp = adaptive ? static_cast<int>(attr_ints(n.attrs, "output_size").size())
                    : static_cast<int>(attr_ints(n.attrs, "kernel_size").size());
  int first = rank - sp;
  std::vector<std::string> start(sp), stop(sp), size_incl(sp);
  std::vector<int64_t> window(sp);
  for (int d = 0; d < sp; ++d) {
    std::string o = idx.dims[first + d];
    // A literal output index (a size-1 dim) makes the window's bounds Python constants,
    // and a block mask cannot be combined with a Python bool: make it a block of indices.
    if (is_integer(o)) o = k.assign("(" + idx.mask + ").to(tl.int32) * 0 + " + o);
    std::string len = k.size(ishape[first + d]);
    if (adaptive) {
      int64_t out_n = ocon[first + d];
      start[d] = k.assign("(" + o + " * " + len + ") // " + std::to_string(out_n));
      stop[d] = k.assign("((" + o + " + 1) * " + len + " + " + std::to_string(out_n - 1) + ") // " +
                         std::to_string(out_n));
      // The widest window for this size, plus one for an input a size smaller or larger.
      window[d] = (icon[first + d] + out_n - 1) / out_n + 1;
      continue;
    }
    int64_t ks = attr_ints(n.attrs, "kernel_size")[d];
    int64_t st = attr_ints(n.attrs, "stride")[d];
    int64_t pad = attr_ints(n.attrs, "padding")[d];
    start[d] = named(k, offset_by(scaled(o, st), -pad));
    window[d] = ks;
    if (!is_max) {
      std::string end =
          k.assign("tl.minimum(" + offset_by(start[d], ks) + ", " + offset_by(len, pad) + ")");
      size_incl[d] = k.assign(end + " - " + start[d]);
      stop[d] = k.assign("tl.minimum(" + end + ", " + len + ")");
    }
  }
  int64_t positions = 1;
  for (int64_t w : window) positions *= w;
  std::string acc;
  // The dims outside the window are the same at every position (and, in a window inside
  // another, only those the outer one kept).
  std::set<std::string> invariant;
  for (size_t d = 0; d < idx.dims.size(); ++d) {
    bool pooled = static_cast<int>(d) >= first && static_cast<int>(d) < first + sp;
    if (!pooled && (idx.outer_mask.empty() || idx.invariant.count(idx.dims[d])))
      invariant.insert(idx.dims[d]);
  }
  for (int64_t p = 0; p < positions; ++p) {
    Index r = idx;
    r.linear.clear();
    r.outer_mask = idx.outer_mask.empty() ? idx.mask : idx.outer_mask;
    r.invariant = invariant;
    std::vector<std::string> conds;
    int64_t rest = p;
    for (int d = sp - 1; d >= 0; --d) {
      int64_t off = rest % window[d];
      rest /= window[d];
      int64_t dil = is_max ? attr_ints(n.attrs, "dilation")[d] : 1;
      std::string pos = named(k, offset_by(start[d], off * dil));
      std::string len = k.size(ishape[first + d]);
      conds.push_back("(" + pos + " >= 0)");
      conds.push_back(adaptive || !is_max ? "(" + pos + " < " + stop[d] + ")"
                                          : "(" + pos + " < " + len + ")");
      r.dims[first + d] = pos;
    }
    std::string valid = k.assign(join(conds, " & "));
    r.mask = "(" + idx.mask + ") & " + valid;
    std::string v = emit(k, in, r);
    std::string term = is_max ? "tl.where(" + valid + ", " + v + ", float('-inf'))"
                              : "tl.where(" + valid + ", " + v + ", 0.0)";
    if (acc.empty()) {
      acc = k.assign(term);
    } else {
      acc = k.assign(is_max ? "tl.maximum(" + acc + ", " + term + ")" : acc + " + " + term);
    }
  }
  if (is_max) return acc;
  std::vector<std::string> sizes;
  for (int d = 0; d < sp; ++d) {
    if (adaptive) {
      sizes.push_back("(" + stop[d] + " - " + start[d] + ")");
    } else if (attr_bool(n.attrs, "count_include_pad")) {
      sizes.push_back(size_incl[d]);
    } else {
      sizes.push_back("(" + stop[d] + " - tl.maximum(" + start[d] + ", 0))");
    }
  }
  return k.assign(acc + " / (" + join(sizes, " * ") + ").to(tl.float32)");
}

// How many operations evaluating `v` inline costs: a value read by several consumers is
// written to memory once when recomputing it would cost more than reading it.
int Lowering::cost(ValueId v) {
  if (is_buffer(v) || g_.value(v).kind != ValueKind::Node) return 1;
  auto it = cost_.find(v);
  if (it != cost_.end()) return it->second;
  const Node& n = g_.nodes()[g_.value(v).node];
  int c = n.schema().category == Category::Layout && !drops(n) ? 0 : 1;
  int window = 1;
  if (n.schema().category == Category::Pooling) window = 8;
  for (ValueId in : n.inputs) c += window * cost(in);
  cost_[v] = c;
  return c;
}

// Does a module node own the parameter `rel` ("bias")? Graph::node_params names them in full.
bool Lowering::has_param(const Node& n, const std::string& rel) const {
  for (const ParamSpec& p : g_.node_params(n)) {
    if (p.name == n.module + "." + rel) return true;
  }
  return false;
}

std::string Lowering::param_var(const Node& n, const std::string& rel) {
  std::string key = n.module + "." + rel;
  auto it = param_vars_.find(key);
  if (it != param_vars_.end()) return it->second;
  std::string var = "p_" + python_name(key);
  param_vars_[key] = var;
  bool buffer = rel.rfind("running_", 0) == 0 || rel == "num_batches_tracked";
  prologue_.push_back(var + " = self." + (buffer ? "get_buffer" : "get_parameter") + "(\"" + key +
                      "\")");
  return var;
}

// Writes the kernel's source and its launch in the forward.
void Lowering::finish_kernel(Kernel& k, const std::vector<std::string>& extra_params,
                             const std::vector<std::string>& constexprs, const std::string& grid,
                             const std::vector<std::string>& extra_args,
                             const std::vector<std::string>& constexpr_args,
                             const std::vector<std::string>& launch_options) {
  std::vector<std::string> params, args;
  for (const std::string& var : k.pointers()) {
    params.push_back(var + "_ptr");
    args.push_back(var);
  }
  for (const std::string& s : k.sizes()) {
    params.push_back(s);
    args.push_back(s);
  }
  for (size_t i = 0; i < extra_params.size(); ++i) {
    params.push_back(extra_params[i]);
    args.push_back(extra_args[i]);
  }
  for (size_t i = 0; i < constexprs.size(); ++i) {
    params.push_back(constexprs[i] + ": tl.constexpr");
    args.push_back(constexprs[i] + "=" + constexpr_args[i]);
  }
  if (k.training()) {  // a dropout inside: it drops in training mode only
    params.push_back("TRAINING: tl.constexpr");
    args.push_back("TRAINING=self.training");
  }
  if (options_.knobs.num_warps > 0)
    args.push_back("num_warps=" + std::to_string(options_.knobs.num_warps));
  args.insert(args.end(), launch_options.begin(), launch_options.end());
  k.touch(current_node_);
  computes_.push_back({k.name(), k.nodes()});
  std::ostringstream src;
  src << "@triton.jit\ndef " << k.name() << "(" << join(params, ", ") << "):\n";
  for (const std::string& l : k.body()) src << l << "\n";
  kernels_.push_back(src.str());
  forward_.push_back(k.name() + "[" + grid + "](" + join(args, ", ") + ")");
}

// A pointwise kernel that writes `v`'s expression over its whole shape (a copy when `v` is
// a buffer already). `channels_last`: the buffer is NHWC (NDHWC) in memory, and the kernel
// runs over it in memory order, so that its stores (and its loads of channels-last
// buffers) are contiguous.
std::string Lowering::materialize(ValueId v, bool channels_last) {
  std::vector<std::string> shape = shape_of(v);
  const Value& val = g_.value(v);
  std::string out = alloc(shape, val.type.dtype);
  std::string what = val.kind == ValueKind::Node ? g_.nodes()[val.node].schema().name : "copy";
  Kernel k("k" + std::to_string(kernels_.size()) + "_" + what);
  std::string block = std::to_string(options_.knobs.pointwise_block);
  if (!channels_last && wants_channels_last(v)) {
    // NCHW out of channels-last buffers: a tile of BLOCK_C channels by BLOCK_S positions of
    // one sample, so that the loads run along the channels and the stores along the
    // positions, both contiguous (Triton transposes the tile in shared memory).
    std::vector<std::string> spatial(shape.begin() + 2, shape.end());
    k.line("s = " + program_id() + " * BLOCK_S + tl.arange(0, BLOCK_S)[None, :]");
    k.line("c = tl.program_id(1) * BLOCK_C + tl.arange(0, BLOCK_C)[:, None]");
    k.line(int64_index_ ? "n = tl.program_id(2).to(tl.int64)" : "n = tl.program_id(2)");
    k.line("mask = (c < C) & (s < S)");
    std::vector<std::string> dims = {"n", "c"};
    for (const std::string& d : decompose(k, "s", spatial)) dims.push_back(d);
    std::string result = emit(k, v, Index{dims, "mask", "", {}});
    k.line("tl.store(" + k.pointer(out) + " + (n * C + c) * S + s, " +
           rounded(val.type.dtype, result) + ", mask=mask)");
    std::string c = shape[1], positions = product(spatial);
    forward_.push_back("BLOCK_C = min(32, triton.next_power_of_2(" + c + "))");
    finish_kernel(k, {"C", "S"}, {"BLOCK_C", "BLOCK_S"},
                  "(triton.cdiv(" + positions + ", " + block + " // BLOCK_C), triton.cdiv(" + c +
                      ", BLOCK_C), " + shape[0] + ")",
                  {c, positions}, {"BLOCK_C", block + " // BLOCK_C"});
    buffers_[v] = {out, true};
    return out;
  }
  k.line("offs = " + program_id() + " * BLOCK + tl.arange(0, BLOCK)");
  k.line("mask = offs < N");
  Index idx = channels_last ? Index{logical_order(decompose(k, "offs", memory_order(shape))),
                                    "mask", "offs", channels_last_shape(shape)}
                            : Index{decompose(k, "offs", shape), "mask", "offs", shape};
  if (channels_last) {
    forward_.back() = out + " = torch.empty(" + tuple(shape) +
                      ", device=device, dtype=" + std::string(dtype_torch_name(val.type.dtype)) +
                      ", memory_format=" + memory_format(shape.size()) + ")";
    channels_last_.insert(out);
  }
  std::string result = emit(k, v, idx);
  k.line("tl.store(" + k.pointer(out) + " + offs, " + rounded(val.type.dtype, result) +
         ", mask=mask)");
  std::string n = numel_py(v);
  finish_kernel(k, {"N"}, {"BLOCK"}, "(triton.cdiv(" + n + ", " + block + "),)", {n}, {block});
  buffers_[v] = {out, true};
  return out;
}

// Does `v`'s expression read a channels-last buffer (a convolution's result, directly or
// through elementwise and layout ops)?
bool Lowering::reads_channels_last(ValueId v) {
  auto b = buffers_.find(v);
  if (b != buffers_.end()) return channels_last_.count(b->second.var) > 0;
  auto r = raw_.find(v);
  if (r != raw_.end()) return channels_last_.count(r->second) > 0;
  if (g_.value(v).kind != ValueKind::Node) return false;
  auto it = reads_cl_.find(v);
  if (it != reads_cl_.end()) return it->second;
  bool reads = false;
  for (ValueId in : g_.nodes()[g_.value(v).node].inputs) reads = reads || reads_channels_last(in);
  reads_cl_[v] = reads;
  return reads;
}

// The input of a channels-last convolution: a channels-last buffer as it is, another
// buffer (the program's input) converted by torch, an expression written channels-last.
std::string Lowering::conv_operand(ValueId v, const std::string& format) {
  if (!is_buffer(v)) return materialize(v, true);
  const std::string& var = buffers_[v].var;
  return channels_last_.count(var) ? var : var + ".contiguous(memory_format=" + format + ")";
}

// A tensor for a library call: a buffer as it is, a view of a buffer through the layout
// ops that torch expresses as views, or else a new buffer.
std::string Lowering::as_tensor(ValueId v) {
  if (is_buffer(v)) return buffers_[v].var;
  const Value& val = g_.value(v);
  const Node& n = g_.nodes()[val.node];
  // A view of a channels-last buffer is not the row-major tensor a library call expects.
  bool viewable = !n.inputs.empty() && is_buffer(n.inputs[0]) &&
                  !channels_last_.count(buffers_[n.inputs[0]].var);
  switch (n.op) {
    case Op::Reshape:
    case Op::Flatten:
    case Op::Squeeze:
    case Op::Unsqueeze:
      if (viewable) return buffers_[n.inputs[0]].var + ".view(" + join(shape_of(v), ", ") + ")";
      break;
    case Op::Transpose:  // a strided view: matmul and bmm read it as it is
      if (viewable)
        return buffers_[n.inputs[0]].var + ".transpose(" +
               std::to_string(attr_int(n.attrs, "dim0")) + ", " +
               std::to_string(attr_int(n.attrs, "dim1")) + ")";
      break;
    case Op::Dropout:
    case Op::Dropout2d:
    case Op::Dropout3d:
    case Op::AlphaDropout:
      if (drops(n)) break;  // random in training mode: a kernel writes it
      [[fallthrough]];
    case Op::Clone:
    case Op::Contiguous:
    case Op::Identity: return as_tensor(n.inputs[0]);
    default: break;
  }
  return materialize(v);
}

void Lowering::lower_anchor(const Node& n) {
  if (n.op == Op::Lstm || n.op == Op::Gru || n.op == Op::Rnn) return lower_recurrent(n);
  ValueId out = n.output;
  int rank = g_.value(out).type.rank();
  // A 2-d or 3-d (transposed) convolution in the channels-last layout: its input, its weight
  // and its result NHWC (NDHWC) in memory.
  bool is_conv = n.op >= Op::Conv1d && n.op <= Op::Conv3d;
  bool is_transposed = n.op >= Op::ConvTranspose1d && n.op <= Op::ConvTranspose3d;
  bool nhwc = channels_last() && (is_conv || is_transposed) && (rank == 4 || rank == 5);
  std::string format = memory_format(rank);
  std::vector<std::string> ins;
  for (ValueId in : n.inputs) ins.push_back(nhwc ? conv_operand(in, format) : as_tensor(in));
  std::string weight = n.op == Op::Linear || is_conv || is_transposed ? param_var(n, "weight") : "";
  // The weight is stored channels-last by __init__ (model_class), not converted per call.
  if (nhwc) channels_last_weights_.insert({n.module, format});
  std::string call;
  auto ints = [&](const char* name) {
    std::vector<std::string> items;
    for (int64_t x : attr_ints(n.attrs, name)) items.push_back(std::to_string(x));
    return tuple(items);
  };
  int spatial = 0;
  switch (n.op) {
    case Op::Linear: call = "F.linear(" + ins[0] + ", " + weight + ")"; break;
    case Op::Matmul: call = "torch.matmul(" + ins[0] + ", " + ins[1] + ")"; break;
    case Op::Bmm: call = "torch.bmm(" + ins[0] + ", " + ins[1] + ")"; break;
    case Op::Addmm: call = "torch.mm(" + ins[1] + ", " + ins[2] + ")"; break;
    case Op::Conv1d:
    case Op::Conv2d:
    case Op::Conv3d:
      spatial = 1 + static_cast<int>(n.op) - static_cast<int>(Op::Conv1d);
      call = "F.conv" + std::to_string(spatial) + "d(" + ins[0] + ", " + weight + ", None, " +
             ints("stride") + ", " + ints("padding") + ", " + ints("dilation") + ", " +
             std::to_string(attr_int(n.attrs, "groups")) + ")";
      break;
    case Op::ConvTranspose1d:
    case Op::ConvTranspose2d:
    case Op::ConvTranspose3d:
      spatial = 1 + static_cast<int>(n.op) - static_cast<int>(Op::ConvTranspose1d);
      call = "F.conv_transpose" + std::to_string(spatial) + "d(" + ins[0] + ", " + weight +
             ", None, " + ints("stride") + ", " + ints("padding") + ", " + ints("output_padding") +
             ", " + std::to_string(attr_int(n.attrs, "groups")) + ", " + ints("dilation") + ")";
      break;
    default: throw IrError("codegen: no lowering for " + n.schema().name);
  }
  std::string var = "lib" + std::to_string(library_calls_++);
  computes_.push_back({var, {current_node_}});
  forward_.push_back(var + " = " + call + ".contiguous(" + (nhwc ? "memory_format=" + format : "") +
                     ")");
  if (nhwc) channels_last_.insert(var);
  if (n.op == Op::Addmm || has_param(n, "bias")) {
    raw_[out] = var;  // the node's value is an expression: this plus the bias
  } else {
    buffers_[out] = {var, false};
  }
}

// A Linear, matmul, bmm or addmm that a Triton kernel computes (the `gemm` knob): floating
// operands of two dims or more (a matmul of a vector stays a library call).
bool Lowering::triton_gemm(const Node& n) const {
  if (options_.knobs.gemm != "triton") return false;
  DType dtype = g_.value(n.output).type.dtype;
  if (dtype != DType::F32 && dtype != DType::F16 && dtype != DType::BF16) return false;
  switch (n.op) {
    case Op::Linear: return g_.value(n.inputs[0]).type.rank() >= 2;
    case Op::Matmul:
      return g_.value(n.inputs[0]).type.rank() >= 2 && g_.value(n.inputs[1]).type.rank() >= 2;
    case Op::Bmm:
    case Op::Addmm: return true;
    default: return false;
  }
}

// The epilogue of a Triton GEMM: the elementwise nodes after it, of the product's shape,
// that read the product or each other, up to the last one that is the only value of them
// read outside (by other nodes or as an output). The GEMM kernel is written when that node
// is lowered, so every other input of the chain exists by then; the product and the values
// inside never reach memory.
void Lowering::plan_gemm(const Node& n) {
  constexpr size_t kMaxEpilogue = 64;  // nodes; a longer chain ends in a second kernel
  const int first = static_cast<int>(&n - g_.nodes().data());
  const Shape& shape = g_.value(n.output).type.shape;
  std::set<ValueId> outputs(g_.outputs().begin(), g_.outputs().end());
  std::vector<ValueId> chain = {n.output};
  std::set<ValueId> in_chain = {n.output};
  std::set<int> nodes;
  size_t root = 0;  // chain[root] is the last value that may end the epilogue
  for (int i = first + 1; i < static_cast<int>(g_.nodes().size()) && chain.size() < kMaxEpilogue;
       ++i) {
    const Node& m = g_.nodes()[i];
    bool reads = std::any_of(m.inputs.begin(), m.inputs.end(),
                             [&](ValueId in) { return in_chain.count(in) > 0; });
    if (!reads) continue;
    Category c = m.schema().category;
    if ((c != Category::Unary && c != Category::Binary) || epilogue_nodes_.count(i) ||
        g_.value(m.output).type.shape != shape)
      break;  // the chain's values reach a node of another kind: it ends at the last root
    chain.push_back(m.output);
    in_chain.insert(m.output);
    nodes.insert(i);
    // Does only the newest value escape the chain?
    bool closed = true;
    for (size_t j = 0; j + 1 < chain.size() && closed; ++j) {
      if (outputs.count(chain[j])) closed = false;
      for (int user : consumers_[chain[j]])
        if (!nodes.count(user)) closed = false;
    }
    if (closed) root = chain.size() - 1;
  }
  for (size_t j = 1; j <= root; ++j) epilogue_nodes_.insert(g_.value(chain[j]).node);
  for (size_t j = 0; j < root; ++j) epilogue_inner_.insert(chain[j]);
  gemm_roots_[chain[root]] = first;
}

// A GEMM as one Triton kernel, in the tiles of Triton's matmul tutorial: a program computes
// a BLOCK_M x BLOCK_N tile of the product over K in BLOCK_K steps, programs grouped GROUP_M
// row blocks at a time so that neighbours share operand tiles in L2; a batch entry per
// program_id(1). The operands are read as expressions (a transposed view, a scaled input
// fuse into the loads). fp32 operands go through tf32x3, three TF32 products that come to
// fp32 accuracy on tensor cores (plain tl.dot on fp32 is one TF32 product, too inaccurate
// for the verifier); fp16 and bf16 ones give their own exact products, into fp32. The tile
// of the product plus its bias is the value of the GEMM's node in the kernel's memo, and the
// kernel writes the epilogue's last value `root` (plan_gemm) from it.
void Lowering::lower_gemm(const Node& n, ValueId root) {
  constexpr int kInlineCost = 3;  // as attention: each operand element is read many times
  const bool linear = n.op == Op::Linear;
  std::vector<ValueId> operands = linear
                                      ? std::vector<ValueId>{n.inputs[0]}
                                      : std::vector<ValueId>{n.inputs[n.op == Op::Addmm ? 1 : 0],
                                                             n.inputs[n.op == Op::Addmm ? 2 : 1]};
  for (ValueId in : operands)
    if (cost(in) > kInlineCost) materialize(in);
  ValueId out = n.output;
  std::vector<std::string> os = shape_of(out);
  const size_t r = os.size();
  // A Linear's rows are all its leading dims; the others multiply matrices per batch entry.
  std::vector<std::string> batch =
      linear ? std::vector<std::string>{} : std::vector<std::string>(os.begin(), os.end() - 2);
  std::vector<std::string> row_shape(os.begin() + (linear ? 0 : r - 2), os.end() - 1);
  std::vector<std::string> as = shape_of(operands[0]);
  std::string m_py = product(row_shape), n_py = os[r - 1], k_py = as.back();
  DType dtype = g_.value(out).type.dtype;

  Kernel k("k" + std::to_string(kernels_.size()) + "_" + n.schema().name);
  k.touch(static_cast<int>(&n - g_.nodes().data()));
  k.line("pid = " + program_id());
  k.line("blocks_m = tl.cdiv(M, BLOCK_M)");
  k.line("group = GROUP_M * tl.cdiv(N, BLOCK_N)");
  k.line("first_m = pid // group * GROUP_M");
  k.line("group_m = tl.minimum(blocks_m - first_m, GROUP_M)");
  k.line("rows = (first_m + pid % group % group_m) * BLOCK_M + tl.arange(0, BLOCK_M)[:, None]");
  k.line("cols = (pid % group // group_m) * BLOCK_N + tl.arange(0, BLOCK_N)[None, :]");
  std::vector<std::string> lead =
      decompose(k, int64_index_ ? "tl.program_id(1).to(tl.int64)" : "tl.program_id(1)", batch);
  std::vector<std::string> row_dims = decompose(k, "rows", row_shape);
  // An operand's batch dims, right-aligned with the output's: size 1 broadcasts.
  auto batch_dims = [&](ValueId in) {
    const Shape& si = g_.value(in).type.shape;
    const Shape& so = g_.value(out).type.shape;
    std::vector<std::string> dims;
    size_t nb = si.size() - 2, skip = batch.size() - nb;
    for (size_t d = 0; d < nb; ++d)
      dims.push_back(si[d] == 1 && so[skip + d] != 1 ? "0" : lead[skip + d]);
    return dims;
  };
  // fp16 operands are multiplied as fp16. bf16 ones stay fp32 (as loaded) under one TF32
  // pass, which holds a bf16 value exactly, so the products are bf16's (and Triton's
  // interpreter has no bf16 dot).
  std::string dot_type = dtype == DType::F16 ? "tl.float16" : "";
  std::string precision = dtype == DType::F16    ? ""
                          : dtype == DType::BF16 ? ", input_precision=\"tf32\""
                                                 : ", input_precision=\"tf32x3\"";
  // A dim of a literal 1 leaves the offsets without that axis: then the operands and the
  // store are made blocks of the tile's shape (tl.dot and tl.store take no broadcast).
  const bool degenerate = m_py == "1" || n_py == "1" || k_py == "1";
  auto operand = [&](const std::string& e, bool loaded, const std::string& mask) {
    // Padding must add nothing: an expression of a masked load need not be 0 there.
    std::string x = loaded && !degenerate ? e : "tl.where(" + mask + ", " + e + ", 0.0)";
    return dot_type.empty() ? x : x + ".to(" + dot_type + ")";
  };
  k.line("acc = tl.zeros([BLOCK_M, BLOCK_N], tl.float32)");
  k.line("for k0 in range(0, K, BLOCK_K):");
  k.push();
  k.line("ka = k0 + tl.arange(0, BLOCK_K)[None, :]");
  k.line("kb = k0 + tl.arange(0, BLOCK_K)[:, None]");
  k.line("a_mask = (rows < M) & (ka < K)");
  k.line("b_mask = (kb < K) & (cols < N)");
  std::vector<std::string> a_dims = linear ? row_dims : batch_dims(operands[0]);
  if (!linear) a_dims.push_back(row_dims[0]);
  a_dims.push_back("ka");
  k.line("a = " + operand(emit(k, operands[0], Index{a_dims, "a_mask", "", {}}),
                          is_buffer(operands[0]), "a_mask"));
  std::string b;
  if (linear) {  // the weight [N, K] read transposed
    b = load_at(k, param_var(n, "weight"), linearize(k, {"cols", "kb"}, {n_py, k_py}), "b_mask",
                "0.0", low_precision(out));
    b = operand(b, true, "b_mask");
  } else {
    std::vector<std::string> b_dims = batch_dims(operands[1]);
    b_dims.push_back("kb");
    b_dims.push_back("cols");
    b = operand(emit(k, operands[1], Index{b_dims, "b_mask", "", {}}), is_buffer(operands[1]),
                "b_mask");
  }
  k.line("b = " + b);
  k.line("acc = tl.dot(a, b, acc" + precision + ")");
  k.pop();

  k.line("mask = (rows < M) & (cols < N)");
  std::vector<std::string> out_dims = lead;
  out_dims.insert(out_dims.end(), row_dims.begin(), row_dims.end());
  out_dims.push_back("cols");
  Index tile{out_dims, "mask", "", {}};
  std::string value = "acc";
  if (n.op == Op::Addmm) {
    ValueId bias = n.inputs[0];
    value = k.assign("acc + " + emit(k, bias, broadcast_index(bias, out, tile)));
  } else if (has_param(n, "bias")) {  // one bias per output feature: a row of them
    value = k.assign(
        "acc + " + load_at(k, param_var(n, "bias"), "cols", "cols < N", "0.0", low_precision(out)));
  }
  k.remember(value_key(out, tile), value);
  std::string result = emit(k, root, tile);
  DType root_dtype = g_.value(root).type.dtype;
  std::vector<std::string> rs = shape_of(root);
  std::string buf = alloc(rs, root_dtype);
  std::string offset = linearize(k, out_dims, rs);
  if (degenerate) offset = "mask.to(tl.int32) * 0 + " + offset;
  k.line("tl.store(" + k.pointer(buf) + " + " + offset + ", " + rounded(root_dtype, result) +
         ", mask=mask)");

  forward_.push_back("BLOCK_M, BLOCK_N, BLOCK_K, GROUP_M, WARPS, STAGES = _gemm_blocks(" + m_py +
                     ", " + n_py + ", " + k_py + ", " + product(batch) + ", " +
                     (dtype == DType::F32 ? "4" : "2") + ")");
  std::vector<std::string> launch = {"num_stages=STAGES"};
  if (options_.knobs.num_warps == 0) launch.insert(launch.begin(), "num_warps=WARPS");
  std::vector<std::string> blocks = {"BLOCK_M", "BLOCK_N", "BLOCK_K", "GROUP_M"};
  finish_kernel(k, {"M", "N", "K"}, blocks,
                "(triton.cdiv(" + m_py + ", BLOCK_M) * triton.cdiv(" + n_py + ", BLOCK_N), " +
                    product(batch) + ")",
                {m_py, n_py, k_py}, blocks, launch);
  buffers_[root] = {buf, true};
}

// A recurrent layer is one library call (cuDNN's fused RNN on a GPU) on the module's own
// weights, as nn.LSTM/GRU/RNN make it; each node reading one of its results shares it. A
// layer without state inputs starts from zeros, as the module does when given none.
void Lowering::lower_recurrent(const Node& n) {
  std::vector<std::string> ins;
  for (ValueId in : n.inputs) ins.push_back(as_tensor(in));
  std::string key = n.module + "(" + join(ins, ", ") + ")";
  auto it = recurrent_calls_.find(key);
  if (it == recurrent_calls_.end()) {
    int states = n.op == Op::Lstm ? 2 : 1;
    const std::string x = ins[0];  // a copy: ins grows below
    if (ins.size() == 1) {
      int64_t dirs = attr_bool(n.attrs, "bidirectional") ? 2 : 1;
      std::string batch = shape_of(n.inputs[0])[attr_bool(n.attrs, "batch_first") ? 0 : 1];
      std::string shape = tuple({std::to_string(attr_int(n.attrs, "num_layers") * dirs), batch,
                                 std::to_string(attr_int(n.attrs, "hidden_size"))});
      for (int i = 0; i < states; ++i)
        ins.push_back("torch.zeros(" + shape + ", device=device, dtype=" + x + ".dtype)");
    }
    std::vector<std::string> weights;
    for (const ParamSpec& p : g_.node_params(n))
      weights.push_back(param_var(n, p.name.substr(n.module.size() + 1)));
    std::string fn = n.op == Op::Lstm  ? "torch.lstm"
                     : n.op == Op::Gru ? "torch.gru"
                                       : "torch.rnn_" + attr_str(n.attrs, "nonlinearity");
    std::string hx = states == 2 ? "[" + ins[1] + ", " + ins[2] + "]" : ins[1];
    auto flag = [&](const char* name) { return attr_bool(n.attrs, name) ? "True" : "False"; };
    std::string var = "lib" + std::to_string(library_calls_++);
    computes_.push_back({var, {current_node_}});
    forward_.push_back(var + " = " + fn + "(" + x + ", " + hx + ", [" + join(weights, ", ") +
                       "], " + flag("bias") + ", " +
                       std::to_string(attr_int(n.attrs, "num_layers")) + ", " +
                       float_literal(attr_float(n.attrs, "dropout")) + ", self.training, " +
                       flag("bidirectional") + ", " + flag("batch_first") + ")");
    it = recurrent_calls_.emplace(key, var).first;
  }
  // The output sequence of a batch-first layer is a transposed view: copy what is not
  // contiguous, as kernels read buffers in row-major order.
  int64_t result = attr_int(n.attrs, "result");
  std::string var = it->second + "_" + std::to_string(result);
  forward_.push_back(var + " = " + it->second + "[" + std::to_string(result) + "].contiguous()");
  buffers_[n.output] = {var, false};
}

// nll_loss at one target index: -logp[n, target, d...], 0 where the target is ignore_index
// (or out of range); with `count`, 1 where it counts toward a mean, else 0.
std::string Lowering::nll_term(Kernel& k, const Node& n, const Index& idx, bool count) {
  ValueId logp = n.inputs[0];
  std::string target = emit(k, n.inputs[1], idx);
  int class_dim = g_.value(logp).type.rank() == 1 ? 0 : 1;
  std::string classes = k.size(shape_of(logp)[class_dim]);
  std::string valid =
      k.assign("(" + target + " != " + std::to_string(attr_int(n.attrs, "ignore_index")) + ") & (" +
               target + " >= 0) & (" + target + " < " + classes + ")");
  if (count) return k.assign(valid + ".to(tl.float32)");
  Index at{idx.dims, "(" + idx.mask + ") & " + valid, "", {}};
  at.dims.insert(at.dims.begin() + class_dim, target);
  return k.assign("tl.where(" + valid + ", -" + emit(k, logp, at) + ", 0.0)");
}

// A reduced nll_loss: the sum over every target (a statistics kernel), and for a mean the
// count of targets that are not ignore_index (a second one); emit_node divides.
void Lowering::lower_nll_loss(const Node& n) {
  if (attr_str(n.attrs, "reduction") == "none") return;  // an expression per target
  ValueId target = n.inputs[1];
  std::vector<int> all(g_.value(target).type.rank());
  std::iota(all.begin(), all.end(), 0);
  ReducePlan plan = plan_dims(target, all);
  auto term = [&](bool count) -> Element {
    return [this, &n, count](Kernel& k, const Index& idx) { return nll_term(k, n, idx, count); };
  };
  stats_[n.output] = {stats_kernel("sum", target, plan, n, term(false))[0]};
  if (attr_str(n.attrs, "reduction") == "mean")
    stats_[n.output].push_back(stats_kernel("sum", target, plan, n, term(true))[0]);
}

ReducePlan Lowering::plan_dims(ValueId in, const std::vector<int>& reduced) {
  std::vector<std::string> shape = shape_of(in);
  ReducePlan p;
  std::vector<int> kept_dims, red_dims;
  for (int d = 0; d < static_cast<int>(shape.size()); ++d) {
    bool r = std::find(reduced.begin(), reduced.end(), d) != reduced.end();
    (r ? red_dims : kept_dims).push_back(d);
    (r ? p.reduced : p.kept).push_back(shape[d]);
    (r ? p.traced_cols : p.traced_rows) *= g_.value(in).type.shape[d];
  }
  if (wants_channels_last(in)) {
    // Columns in memory order: the channels, when reduced, vary fastest.
    auto c = std::find(red_dims.begin(), red_dims.end(), 1);
    if (c != red_dims.end()) {
      std::rotate(c, c + 1, red_dims.end());
      p.reduced.clear();
      for (int d : red_dims) p.reduced.push_back(shape[d]);
    }
    p.rows_contiguous = kept_dims == std::vector<int>{1};
  }
  int rank = static_cast<int>(shape.size());
  p.to_input = [=](const std::vector<std::string>& ki, const std::vector<std::string>& ri) {
    std::vector<std::string> idx(rank);
    for (size_t i = 0; i < kept_dims.size(); ++i) idx[kept_dims[i]] = ki[i];
    for (size_t i = 0; i < red_dims.size(); ++i) idx[red_dims[i]] = ri[i];
    return idx;
  };
  p.row_of = [=](const std::vector<std::string>& full) {
    std::vector<std::string> ki;
    for (int d : kept_dims) ki.push_back(full[d]);
    return ki;
  };
  return p;
}

// A statistics kernel: `what` names the recipe; returns one buffer per statistic, each
// with one element per row of the plan.
// The statistics of a recipe, in two steps: `partial` statistics over a range of columns
// (a whole row, or one chunk of it), and `finish`, which turns them into the results. A
// long row with few rows to spread over the GPU is split: one kernel writes every chunk's
// partial statistics, a second combines them (Chan's formula for means and variances).
struct Recipe {
  std::vector<std::string> partial;  // names of the partial statistics
  bool splittable = true;
};

Recipe recipe_of(const std::string& what) {
  if (what == "sum" || what == "isum" || what == "mean" || what == "norm" || what == "rms")
    return {{"s"}};
  if (what == "max" || what == "min") return {{"m"}};
  if (what == "max_sumexp" || what == "logsumexp") return {{"m", "s"}};
  if (what == "var" || what == "std" || what == "mean_rstd" || what == "batch_norm")
    return {{"n", "mean", "m2"}};
  if (what == "prod") return {{"p"}, false};
  if (what == "argmax" || what == "argmin") return {{"i"}, false};
  throw IrError("codegen: no statistics recipe " + what);
}

std::vector<std::string> Lowering::stats_kernel(const std::string& what, ValueId in,
                                                const ReducePlan& plan, const Node& n,
                                                const Element& element, DType result) {
  Recipe recipe = recipe_of(what);
  // The traced sizes decide: fewer rows than a GPU has room for, each long.
  bool split = recipe.splittable && plan.traced_rows < 1024 && plan.traced_cols >= 8192;

  std::string base = "k" + std::to_string(kernels_.size()) + "_" + n.schema().name;
  Kernel k(base + (split ? "_partial" : "_stats"));
  std::string pid = program_id();
  k.line("rows = " + pid + " * BLOCK_M + tl.arange(0, BLOCK_M)[:, None]");
  k.line("row_mask = rows < ROWS");
  if (split) {
    k.line("lo = tl.program_id(1) * CHUNK");
    k.line("hi = tl.minimum(lo + CHUNK, COLS)");
  } else {
    k.line("lo = 0");
    k.line("hi = COLS");
  }
  std::vector<std::string> kidx = decompose(k, "rows", plan.kept);

  // Opens a loop over the columns [lo, hi), one BLOCK_R tile at a time, and returns the
  // input index of the tile's elements under mask `m`; the caller closes it with k.pop().
  auto columns = [&]() {
    k.line("for c0 in range(lo, hi, BLOCK_R):");
    k.push();
    k.line("cols = c0 + tl.arange(0, BLOCK_R)[None, :]");
    k.line("m = row_mask & (cols < hi)");
    return Index{plan.to_input(kidx, decompose(k, "cols", plan.reduced)), "m", "", {}};
  };
  auto value = [&](const Index& idx) { return element ? element(k, idx) : emit(k, in, idx); };
  // An integer or bool sum ("isum") accumulates in int64, exactly, as PyTorch does.
  const bool integer = what == "isum";
  // One pass accumulating term(x) lane by lane: combine is "sum", "product", or a tl
  // function of two tensors ("maximum").
  auto pass = [&](const std::string& acc, const std::string& init,
                  const std::function<std::string(const std::string&)>& term,
                  const std::string& combine) {
    k.line(acc + " = tl.full([BLOCK_M, BLOCK_R], " + init + ", " +
           (integer ? "tl.int64" : "tl.float32") + ")");
    std::string x = value(columns());
    std::string t = k.assign("tl.where(m, " + term(x) + ", " + init + ")");
    k.line(acc + " = " +
           (combine == "sum"       ? acc + " + " + t
            : combine == "product" ? acc + " * " + t
                                   : "tl." + combine + "(" + acc + ", " + t + ")"));
    k.pop();
  };
  auto reduce = [&](const std::string& acc, const std::string& how) {
    return k.assign("tl." + how + "(" + acc + ", axis=1)[:, None]");
  };
  auto identity = [](const std::string& x) { return x; };
  auto square = [](const std::string& x) { return x + " * " + x; };

  // The partial statistics over [lo, hi).
  std::vector<std::string> part;
  if (what == "sum" || what == "mean") {
    pass("acc", "0.0", identity, "sum");
    part = {reduce("acc", "sum")};
  } else if (integer) {
    pass(
        "acc", "0", [](const std::string& x) { return x + ".to(tl.int64)"; }, "sum");
    part = {reduce("acc", "sum")};
  } else if (what == "norm" || what == "rms") {
    pass("acc", "0.0", square, "sum");
    part = {reduce("acc", "sum")};
  } else if (what == "max" || what == "min") {
    std::string init = what == "max" ? "float('-inf')" : "float('inf')";
    pass("acc", init, identity, what == "max" ? "maximum" : "minimum");
    part = {reduce("acc", what)};
  } else if (what == "prod") {
    helpers_.insert("_mul");  // tl has no product reduction: tl.reduce with a combine function
    pass("acc", "1.0", identity, "product");
    part = {k.assign("tl.reduce(acc, 1, _mul)[:, None]")};
  } else if (what == "max_sumexp" || what == "logsumexp") {
    // One read of the input (an online softmax): each lane keeps its maximum and its sum of
    // exponentials relative to it, rescaled when the maximum grows; the lanes combine after.
    k.line("mx = tl.full([BLOCK_M, BLOCK_R], float('-inf'), tl.float32)");
    k.line("se = tl.zeros([BLOCK_M, BLOCK_R], tl.float32)");
    std::string x = k.assign("tl.where(m, " + value(columns()) + ", float('-inf'))");
    std::string top = k.assign("tl.maximum(mx, " + x + ")");
    // A lane that has seen only -inf keeps a sum of 0 (exp(-inf - -inf) would be NaN).
    std::string shift = k.assign("tl.where(" + top + " == float('-inf'), 0.0, " + top + ")");
    k.line("se = se * tl.exp(mx - " + shift + ") + tl.exp(" + x + " - " + shift + ")");
    k.line("mx = " + top);
    k.pop();
    std::string mx = reduce("mx", "max");
    std::string safe = k.assign("tl.where(" + mx + " == float('-inf'), 0.0, " + mx + ")");
    part = {safe, k.assign("tl.sum(se * tl.exp(mx - " + safe + "), axis=1)[:, None]")};
  } else if (recipe.partial.size() == 3) {  // counts, means and squared deviations
    // One read of the input (Welford): each lane keeps its count, mean and sum of squared
    // deviations; Chan's formula combines the lanes.
    std::string count =
        k.assign("(hi - lo) * 1.0");  // a float, also when Triton made COLS a constant
    k.line("cnt = tl.zeros([BLOCK_M, BLOCK_R], tl.float32)");
    k.line("mean = tl.zeros([BLOCK_M, BLOCK_R], tl.float32)");
    k.line("m2 = tl.zeros([BLOCK_M, BLOCK_R], tl.float32)");
    std::string x = value(columns());
    k.line("cnt = cnt + m.to(tl.float32)");
    std::string delta = k.assign("tl.where(m, " + x + " - mean, 0.0)");
    k.line("mean = mean + " + delta + " / tl.maximum(cnt, 1.0)");
    k.line("m2 = m2 + " + delta + " * tl.where(m, " + x + " - mean, 0.0)");
    k.pop();
    std::string all = k.assign("tl.sum(cnt * mean, axis=1)[:, None] / " + count);
    std::string d = k.assign("mean - " + all);
    part = {count, all, reduce("m2 + cnt * " + d + " * " + d, "sum")};
  } else {  // argmax, argmin
    bool is_max = what == "argmax";
    std::string init = is_max ? "float('-inf')" : "float('inf')";
    k.line("best = tl.full([BLOCK_M, BLOCK_R], " + init + ", tl.float32)");
    k.line("where = tl.zeros([BLOCK_M, BLOCK_R], tl.int64)");
    std::string x = value(columns());
    // Strictly better only: along a lane the first of equal values stays.
    std::string better = k.assign("m & (" + x + (is_max ? " > " : " < ") + "best)");
    k.line("best = tl.where(" + better + ", " + x + ", best)");
    k.line("where = tl.where(" + better + ", cols.to(tl.int64), where)");
    k.pop();
    std::string top = reduce("best", is_max ? "max" : "min");
    part = {k.assign("tl.min(tl.where(best == " + top +
                     ", where, 9223372036854775807), axis=1)[:, None]")};
  }

  std::string eps = n.schema().find_attr("eps") ? float_literal(attr_float(n.attrs, "eps")) : "0.0";
  // The results from (combined) partial statistics `p`, in kernel `kk`.
  auto finish = [&](Kernel& kk, const std::vector<std::string>& p) -> std::vector<std::string> {
    if (what == "mean") return {kk.assign(p[0] + " / COLS")};
    if (what == "norm") return {kk.assign("tl.sqrt_rn(" + p[0] + ")")};
    if (what == "rms") return {kk.assign("1.0 / tl.sqrt_rn(" + p[0] + " / COLS + " + eps + ")")};
    if (what == "logsumexp") return {kk.assign(p[0] + " + tl.log(" + p[1] + ")")};
    if (what == "mean_rstd") {
      return {p[1], kk.assign("1.0 / tl.sqrt_rn(" + p[2] + " / COLS + " + eps + ")")};
    }
    if (what == "batch_norm") {  // also the unbiased variance, which the running_var takes
      return {p[1], kk.assign("1.0 / tl.sqrt_rn(" + p[2] + " / COLS + " + eps + ")"),
              kk.assign(p[2] + " / (COLS - 1)")};
    }
    if (what == "var" || what == "std") {
      std::string count = offset_by("COLS", -attr_int(n.attrs, "correction"));
      std::string var = kk.assign(p[2] + " / tl.maximum(" + count + ", 0)");
      return {what == "std" ? kk.assign("tl.sqrt_rn(" + var + ")") : var};
    }
    return p;
  };

  std::string rows_py = product(plan.kept), cols_py = product(plan.reduced);
  std::vector<std::string> row_shape =
      plan.kept.empty() ? std::vector<std::string>{} : std::vector<std::string>{rows_py};
  DType dtype = what.rfind("arg", 0) == 0 || integer ? DType::I64 : result;
  auto store_results = [&](Kernel& kk, const std::vector<std::string>& results) {
    std::vector<std::string> vars;
    for (const std::string& r : results) {
      std::string var = alloc(row_shape, dtype);
      kk.line("tl.store(" + kk.pointer(var) + " + rows, " + rounded(dtype, r) + ", mask=row_mask)");
      vars.push_back(var);
    }
    return vars;
  };
  // Tiles of about knobs.tile_elements (4096): whole rows when they fit, several rows when short.
  forward_.push_back(
      "BLOCK_M, BLOCK_R = " + std::string(plan.rows_contiguous ? "_tile_rows" : "_tile") + "(" +
      rows_py + ", " + cols_py + ")");
  if (!split) {
    std::vector<std::string> vars = store_results(k, finish(k, part));
    finish_kernel(k, {"ROWS", "COLS"}, {"BLOCK_M", "BLOCK_R"},
                  "(triton.cdiv(" + rows_py + ", BLOCK_M),)", {rows_py, cols_py},
                  {"BLOCK_M", "BLOCK_R"});
    return vars;
  }
  // Split: chunk statistics into [ROWS, SPLIT] buffers, then one combining kernel.
  forward_.push_back("SPLIT, CHUNK = _split(" + rows_py + ", " + cols_py + ", BLOCK_M, BLOCK_R)");
  std::vector<std::string> partial_vars;
  for (const std::string& p : part) {
    std::string var = alloc(row_shape.empty() ? std::vector<std::string>{"SPLIT"}
                                              : std::vector<std::string>{rows_py, "SPLIT"},
                            dtype);
    k.line("tl.store(" + k.pointer(var) + " + rows * SPLIT + tl.program_id(1), " + p +
           ", mask=row_mask)");
    partial_vars.push_back(var);
  }
  finish_kernel(k, {"ROWS", "COLS", "SPLIT", "CHUNK"}, {"BLOCK_M", "BLOCK_R"},
                "(triton.cdiv(" + rows_py + ", BLOCK_M), SPLIT)",
                {rows_py, cols_py, "SPLIT", "CHUNK"}, {"BLOCK_M", "BLOCK_R"});

  Kernel c(base + "_stats");
  c.line("rows = " + pid + " * BLOCK_M + tl.arange(0, BLOCK_M)[:, None]");
  c.line("row_mask = rows < ROWS");
  c.line("parts = tl.arange(0, BLOCK_S)[None, :]");
  c.line("pm = row_mask & (parts < SPLIT)");
  std::vector<std::string> loaded;
  for (size_t i = 0; i < partial_vars.size(); ++i) {
    std::string other = recipe.partial[i] == "m"
                            ? (what == "min" ? "float('inf')" : "float('-inf')")
                        : integer ? "0"
                                  : "0.0";
    loaded.push_back(c.assign("tl.load(" + c.pointer(partial_vars[i]) +
                              " + rows * SPLIT + parts, mask=pm, other=" + other + ")"));
  }
  auto sum = [&](const std::string& x) { return c.assign("tl.sum(" + x + ", axis=1)[:, None]"); };
  std::vector<std::string> combined;
  if (recipe.partial == std::vector<std::string>{"s"}) {
    combined = {sum(loaded[0])};
  } else if (recipe.partial == std::vector<std::string>{"m"}) {
    combined = {c.assign("tl." + what + "(" + loaded[0] + ", axis=1)[:, None]")};
  } else if (recipe.partial.size() == 2) {  // max and sum of exponentials
    std::string mx = c.assign("tl.max(" + loaded[0] + ", axis=1)[:, None]");
    std::string safe = c.assign("tl.where(" + mx + " == float('-inf'), 0.0, " + mx + ")");
    combined = {safe, sum(loaded[1] + " * tl.exp(" + loaded[0] + " - " + safe + ")")};
  } else {  // counts, means, M2: Chan's combination
    std::string total = sum(loaded[0]);
    std::string mean = c.assign(sum(loaded[0] + " * " + loaded[1]) + " / " + total);
    std::string d = c.assign(loaded[1] + " - " + mean);
    combined = {total, mean, sum(loaded[2] + " + " + loaded[0] + " * " + d + " * " + d)};
  }
  std::vector<std::string> vars = store_results(c, finish(c, combined));
  finish_kernel(c, {"ROWS", "COLS", "SPLIT"}, {"BLOCK_M", "BLOCK_S"},
                "(triton.cdiv(" + rows_py + ", BLOCK_M),)", {rows_py, cols_py, "SPLIT"},
                {"BLOCK_M", "triton.next_power_of_2(SPLIT)"});
  return vars;
}

void Lowering::lower_reduction(const Node& n) {
  ValueId in = n.inputs[0];
  int rank = g_.value(in).type.rank();
  std::vector<int> dims;
  const AttrSpec* dim_spec = n.schema().find_attr("dim");
  if (dim_spec && dim_spec->type == AttrType::Ints) {
    for (int64_t d : attr_ints(n.attrs, "dim"))
      dims.push_back(static_cast<int>(d < 0 ? d + rank : d));
  } else {
    int64_t d = attr_int(n.attrs, "dim");
    dims.push_back(static_cast<int>(d < 0 ? d + rank : d));
  }
  std::string what;
  switch (n.op) {
    case Op::Sum: what = is_floating(g_.value(in).type.dtype) ? "sum" : "isum"; break;
    case Op::Mean: what = "mean"; break;
    case Op::Max:
    case Op::Amax: what = "max"; break;
    case Op::Min:
    case Op::Amin: what = "min"; break;
    case Op::Logsumexp: what = "logsumexp"; break;
    case Op::Var: what = "var"; break;
    case Op::Std: what = "std"; break;
    case Op::Norm: what = "norm"; break;
    case Op::Prod: what = "prod"; break;
    case Op::Argmax: what = "argmax"; break;
    case Op::Argmin: what = "argmin"; break;
    default: throw IrError("codegen: no lowering for " + n.schema().name);
  }
  ReducePlan plan = plan_dims(in, dims);
  std::vector<std::string> vars =
      stats_kernel(what, in, plan, n, nullptr, g_.value(n.output).type.dtype);
  // The statistic's buffer holds the rows in the output's order; view it in its shape.
  std::string var = vars[0];
  forward_.push_back(var + " = " + var + ".view(" + tuple(shape_of(n.output)) + ")");
  buffers_[n.output] = {var, true};
}

// An adaptive pool to one element per map: its window is the whole map, at every input
// size, so it is a mean over the spatial dims (a statistics kernel), not an unrolled window
// (a 64x64 map would be 4096 inlined reads).
bool Lowering::is_global_pool(const Node& n) const {
  if (n.op != Op::AdaptiveAvgPool2d && n.op != Op::AdaptiveAvgPool3d) return false;
  for (int64_t o : attr_ints(n.attrs, "output_size"))
    if (o != 1) return false;
  return true;
}

void Lowering::lower_global_pool(const Node& n) {
  ValueId in = n.inputs[0];
  int rank = g_.value(in).type.rank();
  int spatial = static_cast<int>(attr_ints(n.attrs, "output_size").size());
  std::vector<int> dims;
  for (int d = rank - spatial; d < rank; ++d) dims.push_back(d);
  std::string var =
      stats_kernel("mean", in, plan_dims(in, dims), n, nullptr, g_.value(n.output).type.dtype)[0];
  forward_.push_back(var + " = " + var + ".view(" + tuple(shape_of(n.output)) + ")");
  buffers_[n.output] = {var, true};
}

void Lowering::lower_normalization(const Node& n) {
  ValueId in = n.inputs[0];
  std::vector<std::string> shape = shape_of(in);
  int rank = static_cast<int>(shape.size());
  ReducePlan plan;
  std::string what = "mean_rstd";
  switch (n.op) {
    case Op::Softmax:
    case Op::LogSoftmax: {
      int64_t d = attr_int(n.attrs, "dim");
      plan = plan_dims(in, {static_cast<int>(d < 0 ? d + rank : d)});
      what = "max_sumexp";
      break;
    }
    case Op::LayerNorm:
    case Op::RmsNorm: {
      int k = static_cast<int>(attr_ints(n.attrs, "normalized_shape").size());
      std::vector<int> dims;
      for (int d = rank - k; d < rank; ++d) dims.push_back(d);
      plan = plan_dims(in, dims);
      if (n.op == Op::RmsNorm) what = "rms";
      break;
    }
    case Op::BatchNorm1d:
    case Op::BatchNorm2d:
    case Op::BatchNorm3d: {
      std::vector<int> dims = {0};
      for (int d = 2; d < rank; ++d) dims.push_back(d);
      plan = plan_dims(in, dims);
      if (attr_bool(n.attrs, "track_running_stats")) return lower_batch_norm(n, plan);
      break;
    }
    case Op::InstanceNorm2d:
    case Op::InstanceNorm3d: {
      std::vector<int> dims;
      for (int d = 2; d < rank; ++d) dims.push_back(d);
      plan = plan_dims(in, dims);
      if (attr_bool(n.attrs, "track_running_stats")) return lower_instance_norm(n, plan);
      break;
    }
    case Op::GroupNorm: {
      // Rows are (sample, group); a group's columns are its channels times the spatial dims.
      int64_t groups = attr_int(n.attrs, "num_groups");
      int64_t per = g_.value(in).type.shape[1] / groups;
      std::string G = std::to_string(groups), P = std::to_string(per);
      plan.kept = {shape[0], G};
      plan.reduced = {P};
      plan.traced_rows = g_.value(in).type.shape[0] * groups;
      plan.traced_cols = g_.value(in).type.numel() / plan.traced_rows;
      for (int d = 2; d < rank; ++d) plan.reduced.push_back(shape[d]);
      // Channels-last: a group's channels vary fastest (the memory order), after the positions.
      bool channels_inner = wants_channels_last(in);
      if (channels_inner)
        std::rotate(plan.reduced.begin(), plan.reduced.begin() + 1, plan.reduced.end());
      plan.to_input = [=](const std::vector<std::string>& ki, const std::vector<std::string>& ri) {
        std::string channel = channels_inner ? ri.back() : ri[0];
        std::vector<std::string> idx = {ki[0], "(" + ki[1] + " * " + P + " + " + channel + ")"};
        for (size_t i = channels_inner ? 0 : 1; i < ri.size() - (channels_inner ? 1 : 0); ++i)
          idx.push_back(ri[i]);
        return idx;
      };
      plan.row_of = [=](const std::vector<std::string>& full) {
        return std::vector<std::string>{full[0], "(" + full[1] + " // " + P + ")"};
      };
      break;
    }
    default: throw IrError("codegen: no lowering for " + n.schema().name);
  }
  stats_[n.output] = stats_kernel(what, in, plan, n);
  plans_[n.output] = plan;
}

// A batch norm with running statistics follows `self.training`, as nn.BatchNorm does. In
// training mode: the batch statistics, and a one-program kernel that folds them into the
// module's running_mean and running_var (momentum, or 1/num_batches_tracked for
// momentum=None: a cumulative average) and counts the batch. In eval mode: the running
// statistics themselves, no statistics kernel and no update. Both branches fill the same
// mean and 1/std variables, so the kernels that read the normalized value serve both modes.
// The power of two at or above `size` (a literal, or triton.next_power_of_2 of a variable):
// the block of a one-program kernel over the channels.
std::string power_of_two_block(const std::string& size) {
  if (!is_integer(size)) return "triton.next_power_of_2(" + size + ")";
  int64_t b = 1;
  while (b < std::stoll(size)) b *= 2;
  return std::to_string(b);
}

Lowering::RunningStats Lowering::running_stats(const Node& n) {
  return {float_literal(attr_float(n.attrs, "eps")), attr_float(n.attrs, "momentum"),
          param_var(n, "running_mean"), param_var(n, "running_var")};
}

void Lowering::lower_batch_norm(const Node& n, const ReducePlan& plan) {
  const std::string rows_py = product(plan.kept);
  const std::string block = power_of_two_block(rows_py);  // one block of channels
  const auto [eps, momentum, running_mean, running_var] = running_stats(n);

  forward_.push_back("if self.training:");
  size_t train_from = forward_.size();
  std::vector<std::string> st = stats_kernel("batch_norm", n.inputs[0], plan, n);
  Kernel u(kernel_name(n, "running"));
  u.line("rows = tl.arange(0, BLOCK)");
  u.line("mask = rows < ROWS");
  std::string tracked = u.pointer(param_var(n, "num_batches_tracked"));
  u.line("tracked = tl.load(" + tracked + ") + 1");
  u.line("tl.store(" + tracked + ", tracked)");
  u.line(std::isnan(momentum) ? "momentum = 1.0 / tracked.to(tl.float32)"
                              : "momentum = " + float_literal(momentum));
  const std::pair<std::string, std::string> updates[] = {{running_mean, st[0]},
                                                         {running_var, st[2]}};
  for (const auto& [running, batch] : updates) {
    std::string ptr = u.pointer(running) + " + rows";
    std::string old = u.assign("tl.load(" + ptr + ", mask=mask)");
    std::string now = u.assign("tl.load(" + u.pointer(batch) + " + rows, mask=mask)");
    u.line("tl.store(" + ptr + ", (1.0 - momentum) * " + old + " + momentum * " + now +
           ", mask=mask)");
  }
  finish_kernel(u, {"ROWS"}, {"BLOCK"}, "(1,)", {rows_py}, {block});
  indent_forward_since(train_from);

  forward_.push_back("else:");
  size_t eval_from = forward_.size();
  forward_.push_back(st[0] + " = " + running_mean);
  Kernel e(kernel_name(n, "eval"));
  e.line("rows = tl.arange(0, BLOCK)");
  e.line("mask = rows < ROWS");
  std::string var =
      e.assign("tl.load(" + e.pointer(running_var) + " + rows, mask=mask, other=1.0)");
  e.line("tl.store(" + e.pointer(st[1]) + " + rows, 1.0 / tl.sqrt_rn(" + var + " + " + eps +
         "), mask=mask)");
  forward_.push_back(st[1] + " = torch.empty(" + tuple({rows_py}) +
                     ", device=device, dtype=torch.float32)");
  finish_kernel(e, {"ROWS"}, {"BLOCK"}, "(1,)", {rows_py}, {block});
  indent_forward_since(eval_from);
  stats_[n.output] = {st[0], st[1]};
  plans_[n.output] = plan;
}

// An instance norm with running statistics follows `self.training` as nn.InstanceNorm does.
// In training mode: each instance's own statistics and, unless momentum is None (which
// PyTorch reads as 0: no update), a one-program kernel that folds the batch's average of
// the instance means and of their unbiased variances into running_mean and running_var
// (num_batches_tracked is not counted). In eval mode: every instance normalized by its
// channel's running statistics, spread over the (sample, channel) rows.
void Lowering::lower_instance_norm(const Node& n, const ReducePlan& plan) {
  const std::string batch = plan.kept[0], channels = plan.kept[1];
  const std::string rows_py = product(plan.kept);
  const auto [eps, momentum, running_mean, running_var] = running_stats(n);

  forward_.push_back("if self.training:");
  size_t train_from = forward_.size();
  std::vector<std::string> st = stats_kernel("batch_norm", n.inputs[0], plan, n);
  if (!std::isnan(momentum)) {
    Kernel u(kernel_name(n, "running"));
    u.line("chans = tl.arange(0, BLOCK)");
    u.line("mask = chans < C");
    u.line("mean = tl.zeros([BLOCK], tl.float32)");
    u.line("var = tl.zeros([BLOCK], tl.float32)");
    u.line("for b in range(0, B):");
    u.push();
    u.line("mean += tl.load(" + u.pointer(st[0]) + " + b * C + chans, mask=mask)");
    u.line("var += tl.load(" + u.pointer(st[2]) + " + b * C + chans, mask=mask)");
    u.pop();
    for (const auto& [running, batch_stat] : {std::pair{running_mean, std::string("mean")},
                                              std::pair{running_var, std::string("var")}}) {
      std::string ptr = u.pointer(running) + " + chans";
      u.line("tl.store(" + ptr + ", " + float_literal(1.0 - momentum) + " * tl.load(" + ptr +
             ", mask=mask) + " + float_literal(momentum) + " * (" + batch_stat +
             " / B), mask=mask)");
    }
    finish_kernel(u, {"B", "C"}, {"BLOCK"}, "(1,)", {batch, channels},
                  {power_of_two_block(channels)});
  }
  indent_forward_since(train_from);

  forward_.push_back("else:");
  size_t eval_from = forward_.size();
  std::vector<std::string> running = {alloc({rows_py}, DType::F32), alloc({rows_py}, DType::F32)};
  Kernel e(kernel_name(n, "eval"));
  e.line("rows = " + program_id() + " * BLOCK + tl.arange(0, BLOCK)");
  e.line("mask = rows < ROWS");
  e.line("chans = rows % C");
  e.line("tl.store(" + e.pointer(running[0]) + " + rows, tl.load(" + e.pointer(running_mean) +
         " + chans, mask=mask), mask=mask)");
  std::string var = e.assign("tl.load(" + e.pointer(running_var) + " + chans, mask=mask)");
  e.line("tl.store(" + e.pointer(running[1]) + " + rows, 1.0 / tl.sqrt_rn(" + var + " + " + eps +
         "), mask=mask)");
  finish_kernel(e, {"ROWS", "C"}, {"BLOCK"}, "(triton.cdiv(" + rows_py + ", 256),)",
                {rows_py, channels}, {"256"});
  // Both branches leave the statistics in the same variables for the kernels that follow.
  forward_.push_back(st[0] + ", " + st[1] + " = " + running[0] + ", " + running[1]);
  indent_forward_since(eval_from);
  stats_[n.output] = {st[0], st[1]};
  plans_[n.output] = plan;
}

// The forward's lines from `line` on go inside the block the line before opens.
void Lowering::indent_forward_since(size_t line) {
  for (size_t i = line; i < forward_.size(); ++i) forward_[i] = "    " + forward_[i];
}

// A scan along one dim, in row tiles: each column block is scanned and carried on by its
// total (cumsum: +, from 0; cumprod: *, from 1).
void Lowering::lower_scan(const Node& n) {
  ValueId in = n.inputs[0];
  int rank = g_.value(in).type.rank();
  int64_t d = attr_int(n.attrs, "dim");
  ReducePlan plan = plan_dims(in, {static_cast<int>(d < 0 ? d + rank : d)});
  std::vector<std::string> shape = shape_of(n.output);
  DType dtype = g_.value(n.output).type.dtype;
  std::string out = alloc(shape, dtype);
  const bool is_product = n.op == Op::Cumprod;
  Kernel k("k" + std::to_string(kernels_.size()) + "_" + n.schema().name);
  k.line("rows = " + program_id() + " * BLOCK_M + tl.arange(0, BLOCK_M)[:, None]");
  k.line("row_mask = rows < ROWS");
  std::vector<std::string> kidx = decompose(k, "rows", plan.kept);
  k.line(is_product ? "carry = tl.full([BLOCK_M, 1], 1.0, tl.float32)"
                    : "carry = tl.zeros([BLOCK_M, 1], tl.float32)");
  k.line("for c0 in range(0, COLS, BLOCK_R):");
  k.push();
  k.line("cols = c0 + tl.arange(0, BLOCK_R)[None, :]");
  k.line("m = row_mask & (cols < COLS)");
  std::vector<std::string> ridx = decompose(k, "cols", plan.reduced);
  std::vector<std::string> full = plan.to_input(kidx, ridx);
  std::string x = emit(k, in, Index{full, "m", "", {}});
  std::string t = k.assign("tl.where(m, " + x + (is_product ? ", 1.0)" : ", 0.0)"));
  std::string off = linearize(k, full, shape);
  if (is_integer(off)) off = "m.to(tl.int32) * 0 + " + off;  // a block of pointers for a block
  if (is_product) {
    helpers_.insert("_mul");  // tl has no product reduction: a combine function
    k.line("tl.store(" + k.pointer(out) + " + " + off + ", " +
           rounded(dtype, "tl.associative_scan(" + t + ", 1, _mul) * carry") + ", mask=m)");
    k.line("carry = carry * tl.reduce(" + t + ", 1, _mul)[:, None]");
  } else {
    k.line("tl.store(" + k.pointer(out) + " + " + off + ", " +
           rounded(dtype, "tl.cumsum(" + t + ", axis=1) + carry") + ", mask=m)");
    k.line("carry = carry + tl.sum(" + t + ", axis=1)[:, None]");
  }
  k.pop();
  std::string rows_py = product(plan.kept), cols_py = product(plan.reduced);
  forward_.push_back("BLOCK_M, BLOCK_R = _tile(" + rows_py + ", " + cols_py + ")");
  finish_kernel(k, {"ROWS", "COLS"}, {"BLOCK_M", "BLOCK_R"},
                "(triton.cdiv(" + rows_py + ", BLOCK_M),)", {rows_py, cols_py},
                {"BLOCK_M", "BLOCK_R"});
  buffers_[n.output] = {out, true};
}

// Attention as one kernel (flash attention): a program takes BLOCK_M query rows of one
// batch entry and runs over the keys BLOCK_N at a time, keeping the softmax's running
// maximum and sum (online softmax), so the L x S scores never reach memory. The reference's
// SDPA makes no matmul library call, so neither does this: both products are tl.dot, at
// fp32 precision ("ieee"; Triton's default for fp32 on NVIDIA GPUs is TF32, far less
// accurate than the verifier allows). Query, key and value are read as expressions, so the
// views that split heads, and a bias, fuse into the loads; a longer expression is written
// first, since each key and value is read once per block of query rows.
void Lowering::lower_attention(const Node& n) {
  constexpr int kInlineCost = 3;  // a library result plus its bias, through any views
  for (ValueId in : n.inputs)
    if (cost(in) > kInlineCost) materialize(in);
  ValueId q = n.inputs[0], key = n.inputs[1], v = n.inputs[2];
  for (ValueId in : {q, v}) {
    int64_t head = g_.value(in).type.shape.back();
    if (head > 128)
      throw IrError("codegen: sdpa with a head dim of " + std::to_string(head) +
                    "; the attention kernel takes head dims up to 128");
  }
  std::vector<std::string> qs = shape_of(q), ks = shape_of(key), vs = shape_of(v);
  const size_t r = qs.size();
  std::vector<std::string> batch(qs.begin(), qs.end() - 2);
  Kernel k("k" + std::to_string(kernels_.size()) + "_sdpa");
  std::string L = k.size(qs[r - 2]), S = k.size(ks[r - 2]), E = k.size(qs[r - 1]),
              EV = k.size(vs[r - 1]);
  auto at = [&](const std::vector<std::string>& lead, const std::string& row,
                const std::string& col) {
    std::vector<std::string> dims = lead;
    dims.push_back(row);
    dims.push_back(col);
    return dims;
  };
  // Each operand in fp32, zero where its block runs past the tensor (padded head dims
  // must add nothing to the dot products).
  auto operand = [&](ValueId x, const std::vector<std::string>& dims, const std::string& mask) {
    std::string e = emit(k, x, Index{dims, mask, "", {}});
    if (g_.value(x).type.dtype != DType::F32) e += ".to(tl.float32)";
    return "tl.where(" + mask + ", " + e + ", 0.0)";
  };
  k.line("m_blocks = tl.cdiv(" + L + ", BLOCK_M)");
  k.line("pid = " + program_id());
  k.line("block = pid % m_blocks");
  std::vector<std::string> lead = decompose(k, "(pid // m_blocks)", batch);
  k.line("rows = block * BLOCK_M + tl.arange(0, BLOCK_M)[:, None]");
  k.line("dq = tl.arange(0, BLOCK_D)[None, :]");
  k.line("dv = tl.arange(0, BLOCK_DV)[None, :]");
  k.line("q_mask = (rows < " + L + ") & (dq < " + E + ")");
  // qk_scale holds log2(e), so exp2 gives the softmax's exp.
  k.line("q = " + operand(q, at(lead, "rows", "dq"), "q_mask") + " * qk_scale");
  k.line("m_i = tl.full([BLOCK_M], float(\"-inf\"), tl.float32)");
  k.line("l_i = tl.zeros([BLOCK_M], tl.float32)");
  k.line("acc = tl.zeros([BLOCK_M, BLOCK_DV], tl.float32)");
  const bool causal = attr_bool(n.attrs, "is_causal");
  // PyTorch's causal mask keeps key j for query i when j <= i (aligned at the top left), so
  // the keys past this block's last row are skipped, and every row keeps key 0.
  k.line(std::string("for n0 in range(0, ") +
         (causal ? "tl.minimum(" + S + ", (block + 1) * BLOCK_M)" : S) + ", BLOCK_N):");
  k.push();
  k.line("cols = n0 + tl.arange(0, BLOCK_N)[None, :]");
  k.line("dk = tl.arange(0, BLOCK_D)[:, None]");
  k.line("k_mask = (cols < " + S + ") & (dk < " + E + ")");
  k.line("kt = " + operand(key, at(lead, "cols", "dk"), "k_mask"));  // transposed: [D, N]
  k.line("s = tl.dot(q, kt, input_precision=\"ieee\")");
  k.line("s = tl.where(" + (causal ? "(cols < " + S + ") & (cols <= rows)" : "cols < " + S) +
         ", s, float(\"-inf\"))");
  k.line("m_new = tl.maximum(m_i, tl.max(s, 1))");
  k.line("alpha = tl.exp2(m_i - m_new)");
  k.line("p = tl.exp2(s - m_new[:, None])");
  k.line("l_i = l_i * alpha + tl.sum(p, 1)");
  k.line("keys = n0 + tl.arange(0, BLOCK_N)[:, None]");
  k.line("v_mask = (keys < " + S + ") & (dv < " + EV + ")");
  k.line("vb = " + operand(v, at(lead, "keys", "dv"), "v_mask"));
  k.line("acc = acc * alpha[:, None] + tl.dot(p, vb, input_precision=\"ieee\")");
  k.line("m_i = m_new");
  k.pop();
  std::vector<std::string> os = shape_of(n.output);
  DType out_dtype = g_.value(n.output).type.dtype;
  std::string out = alloc(os, out_dtype);
  k.line("tl.store(" + k.pointer(out) + " + " + linearize(k, at(lead, "rows", "dv"), os) + ", " +
         rounded(out_dtype, "acc / l_i[:, None]") + ", mask=(rows < " + L + ") & (dv < " + EV +
         "))");
  double scale = attr_float(n.attrs, "scale");  // 0: PyTorch's default, 1/sqrt(E)
  std::string qk_scale =
      (scale > 0 ? float_to_string(scale) : qs[r - 1] + " ** -0.5") + " * 1.4426950408889634";
  forward_.push_back("BLOCK_M, BLOCK_N, BLOCK_D, BLOCK_DV = _attention_blocks(" + qs[r - 2] + ", " +
                     ks[r - 2] + ", " + qs[r - 1] + ", " + vs[r - 1] + ")");
  std::vector<std::string> blocks = {"BLOCK_M", "BLOCK_N", "BLOCK_D", "BLOCK_DV"};
  finish_kernel(k, {"qk_scale"}, blocks,
                "(" + product(batch) + " * triton.cdiv(" + qs[r - 2] + ", BLOCK_M),)", {qk_scale},
                blocks);
  buffers_[n.output] = {out, true};
}

GeneratedSolution Lowering::run() {
  for (const Value& v : g_.values()) {
    if (v.type.numel() > (int64_t{1} << 30)) int64_index_ = true;
  }
  for (ValueId v : g_.inputs()) buffers_[v] = {python_name(g_.value(v).name), false};
  for (ValueId v : g_.params()) {
    std::string name = g_.value(v).name;
    // Free parameters and buffers: the IR spells "block.scale" as "block_scale"; find its
    // state key, and whether the module registered it as a buffer (a mask).
    std::string key = name;
    bool buffer = false;
    for (const StateEntry& e : options_.state) {
      if (python_name(e.key) == name) key = e.key, buffer = e.is_buffer;
    }
    std::string var = "p_" + python_name(key);
    param_vars_[key] = var;
    prologue_.push_back(var + " = self." + (buffer ? "get_buffer" : "get_parameter") + "(\"" + key +
                        "\")");
    buffers_[v] = {var, false};
  }
  for (const Node& n : g_.nodes()) {
    for (ValueId in : n.inputs) {
      users_[in]++;
      consumers_[in].push_back(static_cast<int>(&n - g_.nodes().data()));
    }
  }
  for (ValueId v : g_.outputs()) users_[v]++;

  for (const Node& n : g_.nodes()) {
    current_node_ = static_cast<int>(&n - g_.nodes().data());
    switch (n.schema().category) {
      case Category::Anchor:
        if (n.op == Op::Sdpa)
          lower_attention(n);
        else
          triton_gemm(n) ? plan_gemm(n) : lower_anchor(n);
        break;
      case Category::Reduction:
        if (n.op == Op::NllLoss)
          lower_nll_loss(n);
        else
          n.op == Op::Cumsum || n.op == Op::Cumprod ? lower_scan(n) : lower_reduction(n);
        break;
      case Category::Normalization: lower_normalization(n); break;
      case Category::Pooling:
        if (is_global_pool(n)) lower_global_pool(n);
        break;         // else a window, an expression
      default: break;  // an expression
    }
    // A GEMM's epilogue ends here: the GEMM kernel computes the chain and writes its end.
    auto gemm = gemm_roots_.find(n.output);
    if (gemm != gemm_roots_.end()) lower_gemm(g_.nodes()[gemm->second], n.output);
    // A value read more than once is written once when it is more than a few operations
    // (not one inside a GEMM's epilogue: the GEMM kernel computes it once per element).
    if (!is_buffer(n.output) && !epilogue_inner_.count(n.output) && users_[n.output] > 1 &&
        cost(n.output) > options_.knobs.recompute_limit) {
      materialize(n.output, wants_channels_last(n.output));
    }
  }
  current_node_ = -1;
  std::vector<std::string> returns;
  std::set<std::string> returned;
  for (ValueId v : g_.outputs()) {
    auto b = buffers_.find(v);
    bool fresh = b != buffers_.end() && b->second.written_by_kernel &&
                 !returned.count(b->second.var) && !channels_last_.count(b->second.var);
    // Anything else is copied by a kernel: an input, a parameter or a library result
    // returned as it is, one buffer returned twice, or a channels-last one (the outputs have
    // the reference's contiguous layout).
    std::string var = fresh ? b->second.var : materialize(v);
    returned.insert(var);
    returns.push_back(var);
  }
  forward_.push_back("return " + (returns.size() == 1 ? returns[0] : tuple(returns)));
  if (!dropout_slots_.empty()) {  // fresh seeds on every call, from PyTorch's generator
    prologue_.insert(prologue_.begin(), "dropout_seeds = torch.randint(2**31 - 1, (" +
                                            std::to_string(dropout_slots_.size()) +
                                            ",), device=device) if self.training else None");
  }

  std::ostringstream body;
  for (const auto& [name, text] : pointwise_helpers()) {
    if (helpers_.count(name)) body << "\n\n" << text;
  }
  for (const std::string& k : kernels_) body << "\n\n" << k;
  body << "\n\n" << model_class();
  GeneratedSolution solution{header(body.str()) + body.str(), static_cast<int>(kernels_.size()),
                             library_calls_};
  if (solution.source.size() > kMaxSolutionBytes) {
    // No Triton compile finishes on megabytes of kernel: say which kernel grew, not why
    // the GPU hangs later.
    std::string largest;
    for (const std::string& k : kernels_)
      if (k.size() > largest.size()) largest = k;
    size_t def = largest.find("def ");
    std::string name = def == std::string::npos ? "?" : largest.substr(def + 4);
    name = name.substr(0, name.find('('));
    throw IrError("codegen: the solution would be " +
                  std::to_string(solution.source.size() / 1024) + " KB, over the " +
                  std::to_string(kMaxSolutionBytes / 1024) + " KB cap; its largest kernel, " +
                  name + ", is " + std::to_string(largest.size() / 1024) +
                  " KB (an unrolled pooling window or a long chain inlined many times)");
  }
  return solution;
}

// The header's table of contents: what the solution assumes, then each kernel and library
// call with the operators it computes and the program lines they come from.
std::string Lowering::contents() const {
  std::ostringstream s;
  s << "# Forward only (no autograd); the sizes the program does not fix are read at run time.\n"
       "# What each kernel and library call computes (operators, with their modules), and the\n"
       "# program's lines they come from:\n";
  size_t width = 0;
  for (const auto& [name, nodes] : computes_) width = std::max(width, name.size());
  for (const auto& [name, nodes] : computes_) {
    std::vector<std::string> ops;
    std::set<int> lines;
    for (int i : nodes) {
      const Node& n = g_.nodes()[i];
      std::string op = n.schema().name + (n.module.empty() ? "" : " self." + n.module);
      if (std::find(ops.begin(), ops.end(), op) == ops.end()) ops.push_back(op);
      size_t colon = n.source.rfind(':');
      if (colon != std::string::npos && is_integer(n.source.substr(colon + 1)))
        lines.insert(std::stoi(n.source.substr(colon + 1)));
    }
    if (ops.size() > 8) {
      size_t more = ops.size() - 7;
      ops.resize(7);
      ops.push_back("and " + std::to_string(more) + " more");
    }
    std::string what = ops.empty() ? "a copy" : join(ops, ", ");
    if (name.rfind("lib", 0) == 0) what += " (library call)";
    std::vector<std::string> numbers;
    for (int l : lines) numbers.push_back(std::to_string(l));
    std::string where = numbers.empty()       ? ""
                        : numbers.size() == 1 ? "; line " + numbers[0]
                                              : "; lines " + join(numbers, ", ");
    s << "#   " << name << std::string(width - name.size(), ' ') << "  " << what << where << "\n";
  }
  return s.str();
}

// The imports, and the host helpers that `body` calls: a solution carries no dead code.
std::string Lowering::header(const std::string& body) {
  std::ostringstream s;
  s << "# Generated by drtriton convert (the built-in compiler)";
  if (!options_.source_name.empty()) s << " from " << options_.source_name;
  s << ".\n" << contents();
  s << "import torch\nimport torch.nn as nn\nimport torch.nn.functional as F\nimport triton\n"
       "import triton.language as tl\n";
  if (!options_.init_support.empty()) s << "\n\n" << options_.init_support << "\n";
  // A call, not the tail of a longer name nor a method (tl.floor is not floor).
  auto calls = [&](const std::string& helper) {
    for (size_t at = body.find(helper + "("); at != std::string::npos;
         at = body.find(helper + "(", at + 1)) {
      if (at == 0 || !(std::isalnum(static_cast<unsigned char>(body[at - 1])) ||
                       body[at - 1] == '_' || body[at - 1] == '.'))
        return true;
    }
    return false;
  };
  std::string tile = std::to_string(options_.knobs.tile_elements);
  if (calls("_tile"))
    s << "\n\ndef _tile(rows, cols):\n"
         "    \"\"\"Row tiles of about "
      << tile
      << " elements: BLOCK_R covers a row up to 1024, BLOCK_M rows.\"\"\"\n"
         "    block_r = min(triton.next_power_of_2(max(cols, 1)), 1024)\n"
         "    block_m = max(1, min(triton.next_power_of_2(max(rows, 1)), "
      << tile
      << " // block_r))\n"
         "    return block_m, block_r\n";
  if (calls("_tile_rows"))
    s << "\n\ndef _tile_rows(rows, cols):\n"
         "    \"\"\"Tiles of about "
      << tile
      << " elements over rows that lie next to each other in memory: BLOCK_M\n"
         "    covers up to 64 of them.\"\"\"\n"
         "    block_m = min(triton.next_power_of_2(max(rows, 1)), 64)\n"
         "    block_r = max(1, min(triton.next_power_of_2(max(cols, 1)), "
      << tile
      << " // block_m))\n"
         "    return block_m, block_r\n";
  if (calls("_split"))
    s << "\n\ndef _split(rows, cols, block_m, block_r):\n"
         "    \"\"\"Column chunks of a long reduction over few rows: about 1024 programs in "
         "all.\"\"\"\n"
         "    row_blocks = triton.cdiv(rows, block_m)\n"
         "    split = max(1, min(triton.cdiv(cols, block_r), 1024 // row_blocks, 1024))\n"
         "    chunk = triton.cdiv(triton.cdiv(cols, split), block_r) * block_r\n"
         "    return triton.cdiv(cols, chunk), chunk\n";
  if (calls("_attention_blocks"))
    s << "\n\ndef _attention_blocks(rows, keys, head, head_v):\n"
         "    \"\"\"Tiles of the attention kernel: BLOCK_M query rows against BLOCK_N keys, the "
         "head dims\n    padded to a power of two (16 at least, tl.dot's smallest).\"\"\"\n"
         "    block_d = max(16, triton.next_power_of_2(head))\n"
         "    block_dv = max(16, triton.next_power_of_2(head_v))\n"
         "    block_m = min(64, max(16, triton.next_power_of_2(rows)))\n"
         "    block_n = min(64 if max(block_d, block_dv) <= 64 else 32, "
         "max(16, triton.next_power_of_2(keys)))\n"
         "    return block_m, block_n, block_d, block_dv\n";
  // The functions torch.export's size expressions call (frontend.py's docstring), for
  // the sizes the forward computes: a number divided by a size is FloatTrueDiv(...).
  static const std::vector<std::pair<std::string, std::string>> size_functions = {
      {"Mod", "(a, b):\n    return a % b"},
      {"PythonMod", "(a, b):\n    return a % b"},
      {"CeilDiv", "(a, b):\n    return -(-a // b)"},
      {"ModularIndexing", "(a, b, c):\n    return (a // b) % c"},
      {"CeilToInt", "(x):\n    return -int(-x // 1)"},
      {"FloorToInt", "(x):\n    return int(x // 1)"},
      {"TruncToInt", "(x):\n    return int(x)"},
      {"RoundToInt", "(x):\n    return round(x)"},
      {"ToFloat", "(x):\n    return float(x)"},
      {"TruncToFloat", "(x):\n    return float(int(x))"},
      {"IntTrueDiv", "(a, b):\n    return a / b"},
      {"FloatTrueDiv", "(a, b):\n    return a / b"},
      {"PowByNatural", "(a, b):\n    return a**b"},
      {"FloatPow", "(a, b):\n    return a**b"},
      {"Max", "(*args):\n    return max(args)"},
      {"Min", "(*args):\n    return min(args)"},
      {"floor", "(x):\n    return int(x // 1)"},
      {"ceiling", "(x):\n    return -int(-x // 1)"}};
  for (const auto& [name, def] : size_functions)
    if (calls(name)) s << "\n\ndef " << name << def << "\n";
  if (calls("_gemm_blocks"))
    s << "\n\ndef _gemm_blocks(m, n, k, batch, itemsize):\n"
         "    \"\"\"Tiles of a GEMM kernel: 128 x 128 (8 warps) when that gives the GPU enough "
         "programs, else\n    smaller, 16 at least (tl.dot's smallest); K steps of 32 fp32 or "
         "64 fp16 elements.\"\"\"\n"
         "    block_m = min(128, max(16, triton.next_power_of_2(m)))\n"
         "    block_n = min(128, max(16, triton.next_power_of_2(n)))\n"
         "    if batch * triton.cdiv(m, block_m) * triton.cdiv(n, block_n) < 128:\n"
         "        block_m, block_n = min(block_m, 64), min(block_n, 64)\n"
         "    block_k = min(64 if itemsize == 2 else 32, max(16, triton.next_power_of_2(k)))\n"
         "    warps = 8 if block_m * block_n >= 128 * 128 else 4\n"
         "    return block_m, block_n, block_k, 8, warps, 3 if itemsize == 4 else 4\n";
  if (calls("_declare"))
    s << "\n\ndef _declare(module, key, shape, dtype, kind):\n"
         "    \"\"\"Registers one state_dict entry under its dotted name, making containers on the "
         "way.\"\"\"\n"
         "    *path, leaf = key.split(\".\")\n"
         "    for name in path:\n"
         "        if name not in module._modules:\n"
         "            module.add_module(name, nn.Module())\n"
         "        module = module._modules[name]\n"
         "    data = torch.empty(shape, dtype=dtype)\n"
         "    if kind == \"parameter\":\n"
         "        module.register_parameter(leaf, nn.Parameter(data, "
         "requires_grad=data.is_floating_point()))\n"
         "    else:\n"
         "        module.register_buffer(leaf, data, persistent=kind == \"buffer\")\n";
  return s.str();
}

std::string Lowering::model_class() {
  std::ostringstream s;
  std::string init = options_.init_params.empty() ? "" : ", " + options_.init_params;
  s << "class ModelNew(nn.Module):\n";
  if (!options_.init_method.empty()) {  // the reference's own, line by line
    std::istringstream lines(options_.init_method);
    for (std::string line; std::getline(lines, line);)
      s << (line.empty() ? "" : "    " + line) << "\n";
  } else {
    s << "    def __init__(self" << init << "):\n";
    s << "        super().__init__()\n";
    for (const StateEntry& e : options_.state) {
      std::vector<std::string> dims;
      for (int64_t d : e.type.shape) dims.push_back(std::to_string(d));
      std::string kind = !e.is_buffer ? "parameter" : e.persistent ? "buffer" : "nonpersistent";
      s << "        _declare(self, \"" << e.key << "\", " << tuple(dims) << ", "
        << dtype_torch_name(e.type.dtype) << ", \"" << kind << "\")\n";
    }
  }
  // The weights of channels-last convolutions are stored so once: load_state_dict copies
  // into them and keeps the layout, and forward may keep no state of its own (the verifier
  // refuses a cache). Their layout changes no result, only cuDNN's speed.
  for (const auto& [module, format] : channels_last_weights_) {
    s << "        conv = self.get_submodule(\"" << module << "\")\n";
    s << "        conv.weight = nn.Parameter(conv.weight.detach().contiguous(memory_format="
      << format << "))\n";
  }
  std::vector<std::string> names;
  for (ValueId v : g_.inputs()) names.push_back(python_name(g_.value(v).name));
  s << "\n    def forward(self" << (names.empty() ? "" : ", " + join(names, ", ")) << "):\n";
  // Each size symbol is read once, from the first tensor that has it as a dim: the inputs,
  // then the parameters and buffers (channels, features), so that the solution is the same
  // text whatever the program's sizes.
  std::set<std::string> bound;
  auto bind = [&](const std::vector<std::string>& sym_shape, const std::string& tensor) {
    for (int d = 0; d < static_cast<int>(sym_shape.size()); ++d) {
      const std::string& sym = sym_shape[d];
      if (is_identifier(sym) && bound.insert(sym).second)
        s << "        " << sym << " = " << tensor << ".shape[" << d << "]\n";
    }
  };
  for (ValueId v : g_.inputs()) {
    const Value& val = g_.value(v);
    std::string name = python_name(val.name);
    s << "        " << name << " = " << name << ".contiguous()\n";
    bind(val.sym_shape, name);
  }
  for (const StateEntry& e : options_.state) bind(e.sym_shape, state_attribute(e));
  std::string device =
      g_.inputs().empty() ? "\"cuda\"" : python_name(g_.value(g_.inputs()[0]).name) + ".device";
  s << "        device = " << device << "\n";
  for (const std::string& l : prologue_) s << "        " << l << "\n";
  for (const std::string& l : forward_) s << "        " << l << "\n";
  return s.str();
}

// The knobs' ranges (codegen.h): a block or tile that is not a power of two cannot be a
// tl.arange extent, and Triton knows no other warp counts.
void check_knobs(const CodegenKnobs& k) {
  auto power_of_two = [](int v, int lo, int hi) {
    return v >= lo && v <= hi && (v & (v - 1)) == 0;
  };
  if (!power_of_two(k.pointwise_block, 64, 8192))
    throw std::invalid_argument(
        "codegen: pointwise_block must be a power of two in 64..8192, not " +
        std::to_string(k.pointwise_block));
  if (!power_of_two(k.tile_elements, 1024, 65536))
    throw std::invalid_argument(
        "codegen: tile_elements must be a power of two in 1024..65536, not " +
        std::to_string(k.tile_elements));
  if (k.num_warps != 0 && !power_of_two(k.num_warps, 1, 16))
    throw std::invalid_argument("codegen: num_warps must be 0 or 1, 2, 4, 8, 16, not " +
                                std::to_string(k.num_warps));
  if (k.layout != "nchw" && k.layout != "channels_last")
    throw std::invalid_argument("codegen: layout must be nchw or channels_last, not " + k.layout);
  if (k.recompute_limit < 0)
    throw std::invalid_argument("codegen: recompute_limit must be at least 0, not " +
                                std::to_string(k.recompute_limit));
  if (k.gemm != "triton" && k.gemm != "library")
    throw std::invalid_argument("codegen: gemm must be triton or library, not " + k.gemm);
}

}  // namespace

CodegenKnobs draw_knobs(std::mt19937_64& rng) {
  static const std::vector<int> blocks = {256, 512, 1024, 2048}, tiles = {1024, 2048, 4096, 8192},
                                warps = {0, 1, 2, 4, 8}, limits = {0, 1, 2, 4, 16};
  auto pick = [&](const std::vector<int>& v) { return v[rng() % v.size()]; };
  CodegenKnobs k;
  k.pointwise_block = pick(blocks);
  k.tile_elements = pick(tiles);
  k.num_warps = pick(warps);
  k.recompute_limit = pick(limits);
  k.gemm = rng() % 2 ? "triton" : "library";
  k.layout = rng() % 2 ? "channels_last" : "nchw";
  return k;
}

void set_knob(CodegenKnobs& knobs, const std::string& name, const std::string& value) {
  struct IntKnob {
    const char* name;
    int CodegenKnobs::*field;
    const char* values;
  };
  static const IntKnob ints[] = {
      {"pointwise_block", &CodegenKnobs::pointwise_block, "a power of two in 64..8192"},
      {"tile_elements", &CodegenKnobs::tile_elements, "a power of two in 1024..65536"},
      {"num_warps", &CodegenKnobs::num_warps, "0, 1, 2, 4, 8 or 16"},
      {"recompute_limit", &CodegenKnobs::recompute_limit, "an integer of at least 0"},
  };
  CodegenKnobs changed = knobs;
  std::string allowed;
  if (name == "gemm") {
    changed.gemm = value;
    allowed = "triton or library";
  }
  if (name == "layout") {
    changed.layout = value;
    allowed = "nchw or channels_last";
  }
  for (const IntKnob& knob : ints) {
    if (name != knob.name) continue;
    allowed = knob.values;
    size_t used = 0;
    try {
      changed.*knob.field = std::stoi(value, &used);
    } catch (const std::exception&) {
      used = 0;
    }
    if (used == 0 || used != value.size())
      throw std::invalid_argument("knob " + name + " takes " + allowed + ", not '" + value + "'");
  }
  if (allowed.empty()) {
    throw std::invalid_argument("no knob " + name +
                                "; the knobs are pointwise_block, tile_elements, num_warps, "
                                "recompute_limit, gemm, layout");
  }
  try {
    check_knobs(changed);
  } catch (const std::invalid_argument&) {
    throw std::invalid_argument("knob " + name + " takes " + allowed + ", not '" + value + "'");
  }
  knobs = changed;
}

GeneratedSolution generate_solution(const Graph& graph, const CodegenOptions& options) {
  check_knobs(options.knobs);
  return Lowering(graph, options).run();
}

}  // namespace drtriton
