// What becomes a buffer and which nodes each kernel computes: the walk over the graph
// (lower_graph), sizes, the recompute rule, channels-last decisions, GEMM epilogues.
#include <algorithm>
#include <unordered_set>

#include "codegen/lowering.h"
#include "ir/pytorch_decompose.h"

namespace drtriton::codegen {

void Lowering::lower_graph() {
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
      // A plain tensor attribute is a buffer of ModelNew's (Lowering::model_class).
      if (python_name(e.key) == name) key = e.key, buffer = e.is_buffer || e.is_attribute;
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
  plan_attention();

  for (const Node& n : g_.nodes()) {
    current_node_ = static_cast<int>(&n - g_.nodes().data());
    if (loop_) {  // a loop the trace unrolled: its first step, inside a Python loop
      const int end = loop_->first + loop_->steps * loop_->length;
      if (current_node_ == loop_->first) open_step_loop();
      if (current_node_ == loop_->first + loop_->length) close_step_loop();
      if (current_node_ >= loop_->first + loop_->length && current_node_ < end) continue;
    }
    if (inside_attention_.count(current_node_)) continue;  // the attention kernel's work
    auto attention = attentions_.find(current_node_);
    if (attention != attentions_.end()) {
      lower_attention(attention->second, /*causal=*/false, n.output);
      continue;
    }
    // A statistics kernel does not evaluate a depthwise convolution: its tiles of thousands
    // of elements unrolled the window at each (a 5x5 depthwise convolution, batch norm and
    // SiLU took 32 ms on an H100, eager 2.5), and a normalization reads its input twice.
    // The convolution's output is written first, by an elementwise kernel.
    Category category = n.schema().category;
    if ((category == Category::Reduction || category == Category::Normalization ||
         (category == Category::Pooling && is_global_pool(n))) &&
        !is_buffer(n.inputs[0]) && reads_window(n.inputs[0], /*pools=*/false)) {
      materialize(n.inputs[0], wants_channels_last(n.inputs[0]));
    }
    switch (category) {
      case Category::Anchor:
        if (n.op == Op::Sdpa) {
          double scale = attr_float(n.attrs, "scale");  // 0: PyTorch's default
          Attention a{n.inputs[0], n.inputs[1], n.inputs[2],
                      scale > 0 ? float_to_string(scale) : ""};
          lower_attention(a, attr_bool(n.attrs, "is_causal"), n.output);
        } else if (is_depthwise_conv(n)) {
          // An expression; its input, read at every position of the window, is written
          // first where it costs more than the recompute limit (a SiLU of a batch norm).
          ValueId in = n.inputs[0];
          if (cost(in) > options_.knobs.recompute_limit) materialize(in, wants_channels_last(in));
        } else {
          triton_gemm(n) ? plan_gemm(n) : lower_anchor(n);
        }
        break;
      case Category::Reduction:
        if (n.op == Op::NllLoss)
          lower_nll_loss(n);
        else if (const Node* norm = group_norm_under_mean(n))
          lower_mean_of_group_norm(n, *norm);
        else
          n.op == Op::Cumsum || n.op == Op::Cumprod ? lower_scan(n) : lower_statistics(n);
        break;
      case Category::Normalization:
        if (!folds_into_mean(n)) lower_normalization(n);
        break;
      case Category::Pooling:
        if (is_global_pool(n)) lower_global_pool(n);
        break;         // else a window, an expression
      default: break;  // an expression
    }
    // A GEMM's epilogue ends here: the GEMM kernel computes the chain and writes its end.
    auto gemm = gemm_roots_.find(n.output);
    if (gemm != gemm_roots_.end()) lower_gemm(g_.nodes()[gemm->second], n.output);
    // A value read more than once is written once when it is more than a few operations
    // (not one inside a GEMM's epilogue, nor one whose readers all end in one reduction: the
    // kernel computes it once per element); so is a window read by a window (a pool of a
    // pool), which the second would recompute at each of its positions, and a long chain
    // that overlapping pool windows would evaluate several times an element.
    if (!is_buffer(n.output) && !computed_inside_.count(n.output) &&
        ((users_[n.output] > 1 && cost(n.output) > options_.knobs.recompute_limit &&
          !evaluated_in_one_kernel(n.output) && !rereads_one_tensor(n.output)) ||
         (read_by_window(n.output) && reads_window(n.output)) || recomputed_by_pools(n.output))) {
      materialize(n.output, wants_channels_last(n.output));
    }
  }
  current_node_ = -1;
  std::vector<std::string> returns;
  std::set<std::string> returned;
  // A buffer a kernel wrote, returned once, or a view of one that reshapes it (the squeeze of
  // the last kernel's output). Anything else is copied by a kernel: an input, a parameter or a
  // library result returned as it is, one buffer returned twice, or a channels-last one (the
  // outputs have the reference's contiguous layout).
  auto fresh = [&](ValueId v) {
    auto b = buffers_.find(v);
    return b != buffers_.end() && b->second.written_by_kernel && !returned.count(b->second.var) &&
           !channels_last_.count(b->second.var);
  };
  for (ValueId v : g_.outputs()) {
    std::optional<ValueId> root = is_buffer(v) ? std::nullopt : reshaped_buffer(v);
    std::string var;
    if (fresh(v)) {
      var = buffers_[v].var;
      returned.insert(var);
    } else if (root && fresh(*root)) {
      var = buffers_[*root].var + ".view(" + join(shape_of(v), ", ") + ")";
      returned.insert(buffers_[*root].var);
    } else {
      var = materialize(v);
      returned.insert(var);
    }
    returns.push_back(var);
  }
  forward_.push_back("return " + (returns.size() == 1 ? returns[0] : tuple(returns)));
  if (!dropout_slots_.empty()) {  // fresh seeds on every call, from PyTorch's generator
    prologue_.insert(prologue_.begin(), "dropout_seeds = torch.randint(2**31 - 1, (" +
                                            std::to_string(dropout_slots_.size()) +
                                            ",), device=device) if self.training else None");
  }
}

std::vector<std::string> Lowering::shape_of(ValueId v) {
  const Value& val = g_.value(v);
  std::vector<std::string> dims;
  for (int d = 0; d < val.type.rank(); ++d) {
    std::string e = val.sym_shape.empty() ? std::to_string(val.type.shape[d]) : val.sym_shape[d];
    dims.push_back(is_digits(e) ? e : dim_var(e));
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

std::string Lowering::alloc(const std::vector<std::string>& shape, DType dtype,
                            bool channels_last) {
  std::string var = "buf" + std::to_string(next_buffer_++);
  std::string format = channels_last ? ", memory_format=" + memory_format(shape.size()) : "";
  forward_.push_back(var + " = torch.empty(" + tuple(shape) + ", device=device, dtype=" +
                     std::string(dtype_torch_name(dtype)) + format + ")");
  if (channels_last) channels_last_.insert(var);
  return var;
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
  if (is_depthwise_conv(n)) window = static_cast<int>(conv_positions(n));
  for (ValueId in : n.inputs) c += window * cost(in);
  cost_[v] = c;
  return c;
}

// The tensors an element of `v`'s expression loads: one for a buffer or a leaf; a library
// result its bias too; a normalization its statistics and affine parameters too.
int Lowering::tensors_read(ValueId v) {
  if (is_buffer(v) || g_.value(v).kind != ValueKind::Node) return 1;
  const Node& n = g_.nodes()[g_.value(v).node];
  Category category = n.schema().category;
  if (category == Category::Anchor && !is_depthwise_conv(n)) return 2;
  int loads = 0;
  if (category == Category::Normalization) {
    auto stats = stats_.find(v);
    loads += stats != stats_.end() ? static_cast<int>(stats->second.size()) : 2;
    for (const ParamSpec& p : g_.node_params(n)) loads += p.is_buffer ? 0 : 1;
  }
  for (ValueId in : n.inputs) loads += tensors_read(in);
  return loads;
}

Lowering::ElementwiseRegion Lowering::elementwise_region(ValueId v) {
  ElementwiseRegion r{{v}, {}};
  std::vector<ValueId> todo = {v};
  while (!todo.empty()) {
    ValueId x = todo.back();
    todo.pop_back();
    for (int c : consumers_[x]) {
      const Node& n = g_.nodes()[c];
      Category category = n.schema().category;
      if (category != Category::Unary && category != Category::Binary)
        r.readers[c].insert(x);
      else if (r.values.insert(n.output).second)
        todo.push_back(n.output);
    }
  }
  return r;
}

// Do all of `v`'s readers lead, through elementwise nodes only, to one value that one kernel
// alone evaluates: one reduction that alone reads it (as a Huber loss's |d| and d^2 lead to
// the mean of a `where`), or the program's one output among them, of `v`'s shape and read by
// nothing else (|x| + 1 read by a log, a sqrt and a reciprocal summed into the output)? That
// kernel evaluates `v` once per element (emit remembers a value at an index): writing it
// would only add memory traffic.
bool Lowering::evaluated_in_one_kernel(ValueId v) {
  ElementwiseRegion r = elementwise_region(v);
  const std::vector<ValueId>& outputs = g_.outputs();
  std::vector<ValueId> returned;
  for (ValueId x : r.values)
    if (std::find(outputs.begin(), outputs.end(), x) != outputs.end()) returned.push_back(x);
  if (returned.size() == 1 && r.readers.empty() && returned[0] != v) {
    for (ValueId x : r.values)
      if (g_.value(x).type.shape != g_.value(v).type.shape) return false;
    return std::count(outputs.begin(), outputs.end(), returned[0]) == 1;
  }
  if (!returned.empty() || r.readers.size() != 1) return false;
  const auto& [reader, read] = *r.readers.begin();
  return read.size() == 1 && *read.begin() != v &&
         g_.nodes()[reader].schema().category == Category::Reduction;
}

// Is `v` a short elementwise expression (up to four times the recompute limit in distinct
// operators) that loads one tensor of its own size, besides smaller ones (a bias, a
// per-channel slope)? Each of its readers then loads one tensor of that size whether `v` is
// written or evaluated again (a PReLU of a convolution read by a var_mean and by the
// standardization after it), where no reader broadcasts it: writing it would add a write and
// a read.
bool Lowering::rereads_one_tensor(ValueId v) {
  const int64_t size = g_.value(v).type.numel();
  int operators = 0;
  std::set<ValueId> seen, sources;
  std::vector<ValueId> todo = {v};
  while (!todo.empty()) {
    ValueId u = todo.back();
    todo.pop_back();
    if (!seen.insert(u).second) continue;
    if (is_buffer(u) || raw_.count(u) || g_.value(u).kind != ValueKind::Node) {
      if (g_.value(u).type.numel() >= size) sources.insert(u);
      continue;
    }
    const Node& n = g_.nodes()[g_.value(u).node];
    Category c = n.schema().category;
    if (c != Category::Unary && c != Category::Binary && c != Category::Layout) return false;
    if (c != Category::Layout && ++operators > 4 * options_.knobs.recompute_limit) return false;
    todo.insert(todo.end(), n.inputs.begin(), n.inputs.end());
  }
  if (sources.size() > 1) return false;
  // No reader may evaluate it at more positions than it has (a broadcast into a larger shape
  // would evaluate it again at each).
  todo = {v};
  seen.clear();
  while (!todo.empty()) {
    ValueId u = todo.back();
    todo.pop_back();
    if (!seen.insert(u).second) continue;
    if (g_.value(u).type.numel() > size) return false;
    for (int c : consumers_[u]) {
      Category category = g_.nodes()[c].schema().category;
      if (category == Category::Unary || category == Category::Binary ||
          category == Category::Layout)
        todo.push_back(g_.nodes()[c].output);
    }
  }
  return true;
}

// Is `v` the input of a window (a pool but a global one, a depthwise convolution)?
bool Lowering::read_by_window(ValueId v) {
  for (int c : consumers_[v]) {
    const Node& n = g_.nodes()[c];
    if ((n.schema().category == Category::Pooling && !is_global_pool(n)) || is_depthwise_conv(n))
      return true;
  }
  return false;
}

// Would the pools that read `v` evaluate it more than kMaxPoolRecompute operations an element
// beyond the once that writing it costs? A window of K positions moving by a stride of
// volume S evaluates each element K / S times on average (27 / 8 for a 3x3x3 pool of stride
// 2); a ReLU before a 3x3 pool of stride 2 stays inside it, a chain of norms, GELU and Mish
// before the 3x3x3 one is written first (the synthetic d20_p000003 on an H100: 2.3 ms
// inline, 0.72 ms so; eager 1.0).
bool Lowering::recomputed_by_pools(ValueId v) {
  constexpr double kMaxPoolRecompute = 16;
  for (int c : consumers_[v]) {
    const Node& n = g_.nodes()[c];
    if (n.schema().category != Category::Pooling || is_global_pool(n) || !n.attrs.count("stride"))
      continue;
    double evaluations = static_cast<double>(conv_positions(n));
    for (int64_t s : attr_ints(n.attrs, "stride")) evaluations /= static_cast<double>(s);
    if ((evaluations - 1) * cost(v) > kMaxPoolRecompute) return true;
  }
  return false;
}

// Does evaluating `v` inline evaluate a window (a depthwise convolution's, or a pool's too
// where `pools`), through values not in memory?
bool Lowering::reads_window(ValueId v, bool pools) {
  std::set<ValueId> seen;
  std::vector<ValueId> todo = {v};
  while (!todo.empty()) {
    ValueId u = todo.back();
    todo.pop_back();
    if (is_buffer(u) || g_.value(u).kind != ValueKind::Node || !seen.insert(u).second) continue;
    const Node& n = g_.nodes()[g_.value(u).node];
    if ((pools && n.schema().category == Category::Pooling) || is_depthwise_conv(n)) return true;
    todo.insert(todo.end(), n.inputs.begin(), n.inputs.end());
  }
  return false;
}

// A depthwise convolution (each output channel reads one input channel) of at most 49
// positions may be an expression that fuses into its elementwise readers (an activation, a
// residual), as a pool does, rather than a library call and the write of its output; past 7x7
// the unrolled window costs more than the write it saves. depthwise=auto unrolls it, except a
// 2-d one over several channels in a channels-last program: there cuDNN's NHWC kernel won on
// all four programs measured (1.07x to 1.66x), where the unrolled NCHW window won alone
// (1.86x, 3.2x; a 1-d one 5.2x) and over one input channel (1.36x, 4.07x;
// docs/results/depthwise_h100_1207.md).
bool Lowering::depthwise_window(const Node& n) const {
  constexpr int64_t kMaxConvWindow = 49;
  return n.op >= Op::Conv1d && n.op <= Op::Conv3d &&
         attr_int(n.attrs, "in_channels") == attr_int(n.attrs, "groups") &&
         conv_positions(n) <= kMaxConvWindow;
}

bool Lowering::is_depthwise_conv(const Node& n) const {
  if (!depthwise_window(n) || options_.knobs.depthwise == "library") return false;
  return options_.knobs.depthwise == "triton" || !depthwise_by_layout(n) || !nhwc_ || keeps_nchw(n);
}

bool Lowering::depthwise_by_layout(const Node& n) const {
  return options_.knobs.depthwise == "auto" && n.op == Op::Conv2d &&
         attr_int(n.attrs, "in_channels") > 1 && depthwise_window(n);
}

int64_t Lowering::conv_positions(const Node& n) const {
  int64_t positions = 1;
  for (int64_t size : attr_ints(n.attrs, "kernel_size")) positions *= size;
  return positions;
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

DType Lowering::state_dtype(const Node& n, const std::string& rel) const {
  for (const StateEntry& e : options_.state) {
    if (e.key == n.module + "." + rel) return e.type.dtype;
  }
  return DType::F32;
}

// layout=auto: channels-last where Inductor's layout optimization would take it and the
// kernels after a convolution read it along the channels or not at all: every library
// convolution 2-d (3-d ones ran slower channels-last under torch.compile), none grouped with
// several channels a group (Inductor's exclusion), one at least larger than 1x1 (where cuDNN
// gains most from NHWC) among those that run channels-last (keeps_nchw leaves the others
// NCHW). The other operators: elementwise ones; softmaxes and reductions over the
// channels alone (each position's channels lie next to each other, one pass of whole rows),
// over the positions (a global pool's) or over both; pools (a window's neighbouring outputs read
// neighbouring channels; a global pool reads channels as rows), pads of the positions (a
// same-padded convolution: docs/results/kernel_profile_h100_1206c.md), batch, group and
// instance norms (kernel_profile_h100_1206d.md, 1206e.md), concatenations of channels, views
// of what they leave, and work on what a global pool left (a classifier head). Channel shuffles
// stay NCHW, where whole solutions measured both ways lost channels-last; a channel minimum and an
// adaptive pool won it (1.45x, 1.18x; docs/results/conv_layout_h200.md).
bool Lowering::prefers_channels_last() const {
  bool larger = false;
  // A ConvNeXt block's rows of channels: x.permute(0, 2, 3, 1) of a channels-last tensor is its
  // memory in order, and LayerNorm (over the channels), Linear and elementwise work read those
  // rows so until permute(0, 3, 1, 2) turns them back (1.19x over NCHW with cuDNN's depthwise
  // convolution, docs/results/depthwise_h100_1207.md).
  std::unordered_set<ValueId> rows;
  const auto convolutions = std::count_if(g_.nodes().begin(), g_.nodes().end(), [](const Node& m) {
    return m.op >= Op::Conv1d && m.op <= Op::ConvTranspose3d;
  });
  for (const Node& n : g_.nodes()) {
    const Category c = n.schema().category;
    const bool elementwise = c == Category::Unary || c == Category::Binary || n.op == Op::Cast ||
                             n.op == Op::Clone || n.op == Op::Contiguous || n.op == Op::Identity ||
                             n.op == Op::Dropout;
    bool reads_rows = false, reads_other = false;
    for (ValueId v : n.inputs) {
      if (g_.value(v).type.shape.size() < 3) continue;
      (rows.count(v) ? reads_rows : reads_other) = true;
    }
    if (channels_permute(n) == 1 && !reads_rows) {
      rows.insert(n.output);
      continue;
    }
    if (reads_rows && !reads_other) {
      if (channels_permute(n) == -1) continue;
      if (elementwise || n.op == Op::Linear ||
          (n.op == Op::LayerNorm && attr_ints(n.attrs, "normalized_shape").size() == 1)) {
        rows.insert(n.output);
        continue;
      }
    }
    if (elementwise) continue;
    const Shape& in = g_.value(n.inputs[0]).type.shape;
    const int rank = static_cast<int>(in.size());
    const bool spatial = rank == 4 || rank == 5;
    // What a global pool or a reduction left (a classifier's Linear on [N, C]) or a vector:
    // no positions.
    if (n.op != Op::Conv1d && n.op != Op::ConvTranspose1d &&
        std::all_of(n.inputs.begin(), n.inputs.end(),
                    [&](ValueId v) { return g_.value(v).type.shape.size() <= 3; }))
      continue;
    if (spatial && (n.op == Op::Softmax || n.op == Op::LogSoftmax ||
                    (c == Category::Reduction && n.op != Op::Cumsum && n.op != Op::Cumprod &&
                     n.op != Op::NllLoss))) {
      std::vector<int> dims = reduced_dims(n, rank), positions;
      for (int d = 2; d < rank; ++d) positions.push_back(d);
      std::vector<int> all_but_batch = positions;
      all_but_batch.insert(all_but_batch.begin(), 1);
      if (dims == std::vector<int>{1} || dims == positions || dims == all_but_batch) continue;
    }
    if (c == Category::Pooling && spatial) continue;
    // A batch norm's statistics read each position's channels as a row.
    if (n.op == Op::BatchNorm2d) continue;
    // Group and instance norms: their statistics read each position's channels as rows, as
    // batch norm's do (1.31x and 1.49x over NCHW, docs/results/kernel_profile_h100_1206e.md).
    if ((n.op == Op::GroupNorm || n.op == Op::InstanceNorm2d) && spatial && rank == 4) continue;
    // A concatenation of channels (a DenseNet block's): channels-last rows are joined at each
    // position (1.51x over NCHW, kernel_profile_h100_1206e.md).
    if (n.op == Op::Cat && rank == 4) continue;
    // A pad of the positions alone (a convolution's padding="same" with an even kernel): its
    // kernel copies the input into the layout, as Inductor's own copy of the input does.
    if (n.op == Op::Pad && spatial && attr_ints(n.attrs, "pad").size() <= 2 * (in.size() - 2))
      continue;
    // A view of what a global pool or reduction left ([N, C, 1, 1]): no positions to read
    // across. (A view of a vector, a PReLU's weights as [C, 1, 1], is work on a rank 1 input.)
    if (c == Category::Layout && g_.value(n.inputs[0]).type.numel() <= in[0] * in[1]) continue;
    // A classifier's flatten (or view) of the last feature map to [N, features]: one copy into NCHW
    // order, small next to the convolutions before it (vgg11 ran 1.26x faster channels-last
    // than NCHW, docs/results/search_h100_1206g.md).
    const Shape& out = g_.value(n.output).type.shape;
    if ((n.op == Op::Flatten || n.op == Op::Reshape) && spatial && out.size() == 2 &&
        out[0] == in[0])
      continue;
    if (n.op != Op::Conv2d && n.op != Op::ConvTranspose2d) return false;
    // A depthwise convolution that depthwise=auto leaves to the layout (is_depthwise_conv):
    // alone, it stays NCHW and unrolled; beside other convolutions, or read as a ConvNeXt
    // block's rows, it takes channels-last and cuDNN's NHWC kernel.
    if (depthwise_by_layout(n) && !keeps_nchw(n)) {
      const bool read_as_rows = std::any_of(
          g_.nodes().begin(), g_.nodes().end(),
          [&](const Node& m) { return channels_permute(m) == 1 && m.inputs[0] == n.output; });
      larger = larger || convolutions > 1 || read_as_rows;
      continue;
    }
    if (is_depthwise_conv(n)) continue;  // an expression, not a library call
    const int64_t groups = n.attrs.count("groups") ? attr_int(n.attrs, "groups") : 1;
    if (groups > 1 && attr_int(n.attrs, "in_channels") / groups > 1) return false;
    if (keeps_nchw(n)) continue;
    for (int64_t k : std::get<std::vector<int64_t>>(n.attrs.at("kernel_size")))
      larger = larger || k > 1;
  }
  return larger;
}

// cuDNN runs some convolutions on fp32 in NCHW and on TF32 in NHWC (TF32 allowed, PyTorch's
// default). Eager's bound is then fp32's, and a channels-last solution is rejected (errors near
// 3e-4 against bounds near 1e-6). The rule follows a grid of 150 convolutions on an H100
// (`python3 bench/conv_layout_precision.py`, docs/results/conv_precision_h100_1206f.md) and the
// corpus's verdicts, and a narrower grid over images and batches for 16 and 32 input channels
// (`--narrow`, docs/results/conv_precision_h100_1206g.md): fewer than 32 output channels; 1x1 of
// stride 2 (either kind); an ungrouped Conv2d of fewer than 16 input channels (8 in
// conv2d_groupnorm_tanh_hardswish_residual), of 16 in, 32 out and a kernel of at most 3 (a 5x5
// passed), or of at most 32 in, at most 64 out and stride 2 with a kernel of 2 or 4
// (conv_autoencoder), 32 out, or 16 in (3x3 of stride 2 from 32 in to 64 out passed in
// resnet_cifar_small; 128 out is TF32 both ways); a ConvTranspose2d of stride 1, a kernel of 5 or
// more and at most 64 input channels. layout=auto runs them NCHW, as eager does, on an NCHW copy
// of their input; the rest of the program stays channels-last.
bool Lowering::keeps_nchw(const Node& n) const {
  if (options_.knobs.layout != "auto") return false;
  if (n.op != Op::Conv2d && n.op != Op::ConvTranspose2d) return false;
  const int64_t in = attr_int(n.attrs, "in_channels"), out = attr_int(n.attrs, "out_channels");
  if (out < 32) return true;
  int64_t kernel = 1, stride = 1;
  for (int64_t k : attr_ints(n.attrs, "kernel_size")) kernel = std::max(kernel, k);
  if (n.attrs.count("stride"))
    for (int64_t s : attr_ints(n.attrs, "stride")) stride = std::max(stride, s);
  if (kernel == 1 && stride > 1) return true;
  if (n.op == Op::ConvTranspose2d) return stride == 1 && kernel >= 5 && in <= 64;
  if (n.attrs.count("groups") && attr_int(n.attrs, "groups") > 1) return false;
  return in < 16 || (in == 16 && out == 32 && kernel <= 3) ||
         (in <= 32 && out <= 64 && stride > 1 && (kernel % 2 == 0 || out == 32 || in == 16));
}

int Lowering::channels_permute(const Node& n) {
  if (n.op != Op::Permute) return 0;
  std::vector<int64_t> perm = attr_ints(n.attrs, "dims");
  const int64_t rank = static_cast<int64_t>(perm.size());
  if (rank != 4 && rank != 5) return 0;
  std::vector<int64_t> into = {0}, back = {0, rank - 1};
  for (int64_t d = 2; d < rank; ++d) into.push_back(d);
  into.push_back(1);
  for (int64_t d = 1; d < rank - 1; ++d) back.push_back(d);
  for (int64_t& d : perm) d = (d + rank) % rank;
  return perm == into ? 1 : perm == back ? -1 : 0;
}

// Does `v`'s expression read a channels-last buffer (a convolution's result, directly or
// through elementwise and layout ops), or a row-major [N, H, W, C] one permuted back to NCHW
// (a ConvNeXt block's linear layers run on channels-last rows)?
bool Lowering::reads_channels_last(ValueId v) {
  auto b = buffers_.find(v);
  if (b != buffers_.end()) return channels_last_.count(b->second.var) > 0;
  auto r = raw_.find(v);
  if (r != raw_.end()) return channels_last_.count(r->second) > 0;
  if (g_.value(v).kind != ValueKind::Node) return false;
  auto it = reads_cl_.find(v);
  if (it != reads_cl_.end()) return it->second;
  const Node& n = g_.nodes()[g_.value(v).node];
  bool reads = false;
  if (int permute = channels_permute(n))
    reads = permute < 0 && !reads_channels_last(n.inputs[0]);
  else
    for (ValueId in : n.inputs) reads = reads || reads_channels_last(in);
  reads_cl_[v] = reads;
  return reads;
}

// The input of a channels-last convolution: a channels-last buffer as it is; an expression,
// or another buffer (the program's input), written channels-last by a kernel that
// transposes tiles (torch's copy into that layout reads along the channels, a stride apart).
// The value is that buffer from then on: a second convolution of it reads the same one.
std::string Lowering::conv_operand(ValueId v) {
  if (is_buffer(v) && channels_last_.count(buffers_[v].var)) return buffers_[v].var;
  return materialize(v, true);
}

// The row-major buffer that `v` reshapes through reshape, flatten, squeeze and unsqueeze
// nodes (x.view(-1, F) then .view(B, -1, F)), if any: `v` is a view of it, as torch's views of
// a contiguous tensor are.
std::optional<ValueId> Lowering::reshaped_buffer(ValueId v) {
  auto reshapes = [&](ValueId x) {
    if (is_buffer(x) || g_.value(x).kind != ValueKind::Node) return false;
    Op op = g_.nodes()[g_.value(x).node].op;
    return op == Op::Reshape || op == Op::Flatten || op == Op::Squeeze || op == Op::Unsqueeze;
  };
  if (!reshapes(v)) return std::nullopt;
  while (reshapes(v)) v = g_.nodes()[g_.value(v).node].inputs[0];
  if (!is_buffer(v) || channels_last_.count(buffers_[v].var)) return std::nullopt;
  return v;
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
      if (std::optional<ValueId> root = reshaped_buffer(v))
        return buffers_[*root].var + ".view(" + join(shape_of(v), ", ") + ")";
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

// A Linear, matmul, bmm or addmm that a Triton kernel computes (the `gemm` knob): floating
// operands of two dims or more (a matmul of a vector stays a library call); under "auto",
// only where that pays (gemm_pays).
bool Lowering::triton_gemm(const Node& n) const {
  if (options_.knobs.gemm == "library") return false;
  DType dtype = g_.value(n.output).type.dtype;
  if (dtype != DType::F32 && dtype != DType::F16 && dtype != DType::BF16) return false;
  bool matrices = false;
  switch (n.op) {
    case Op::Linear: matrices = g_.value(n.inputs[0]).type.rank() >= 2; break;
    case Op::Matmul:
      matrices = g_.value(n.inputs[0]).type.rank() >= 2 && g_.value(n.inputs[1]).type.rank() >= 2;
      break;
    case Op::Bmm:
    case Op::Addmm: matrices = true; break;
    default: break;
  }
  return matrices && (options_.knobs.gemm == "triton" || gemm_pays(n));
}

// Where the Triton GEMM beat cuBLAS fp32 on an H200 (docs/results/gemm_epilogue_h200.md),
// at the traced sizes: at least 2^30 multiply-adds (1024^3 ran 1.5x faster, 784x840x506
// 2.6x slower: small products leave SMs idle), or 2^28 for a Linear whose rows TMA can copy
// (16-byte multiples: 784x840x506 then ran 1.5x faster, 24x2048x2048 still 1.2x slower).
// Unless the operands are fp16, the right operand must be stored K-contiguous (a Linear's
// weight, a transposed view), since TF32 tensor-core products take K-major operands only, or
// be a row-major matrix, which the solution copies K-major first (k_major_operands): x @ W
// (2048x4096x8192) then ran 1.73x faster than cuBLAS, against 1.45x slower read as it is; a
// batched one (attention's P @ V) was not faster. A product composed on import
// (nn.Bilinear's) is always a kernel: the verifier allows a candidate only the library calls
// the reference makes.
bool Lowering::gemm_pays(const Node& n) const {
  if (composed_on_import(g_.value(n.output))) return true;
  const Shape& out = g_.value(n.output).type.shape;
  const Shape& a = g_.value(n.inputs[n.op == Op::Addmm ? 1 : 0]).type.shape;
  double macs = static_cast<double>(a.back());
  for (int64_t d : out) macs *= static_cast<double>(d);
  DType dtype = g_.value(n.output).type.dtype;
  int64_t row_bytes = a.back() * (dtype == DType::F32 ? 4 : 2);
  bool tma_rows = n.op == Op::Linear && dtype != DType::BF16 && row_bytes % 16 == 0;
  if (macs < static_cast<double>(int64_t{1} << (tma_rows ? 28 : 30))) return false;
  if (n.op == Op::Linear || dtype == DType::F16) return true;
  const Value& b = g_.value(n.inputs[n.op == Op::Addmm ? 2 : 1]);
  if (b.kind == ValueKind::Node && k_contiguous_view(g_.nodes()[b.node], b.type.rank(), false))
    return true;
  // Copied K-major first; a batched one where each entry's product is large (attention's
  // P @ V, 16 of 1024x1024x256, was not faster).
  double entry_macs = static_cast<double>(a.back()) * static_cast<double>(out[out.size() - 2]) *
                      static_cast<double>(out.back());
  return dtype == DType::F32 &&
         (b.type.rank() == 2 || entry_macs >= static_cast<double>(int64_t{1} << 30));
}

bool k_contiguous_view(const Node& view, int rank, bool only_last_two) {
  const int r = rank;
  if (view.op == Op::Transpose) {
    int64_t d0 = attr_int(view.attrs, "dim0"), d1 = attr_int(view.attrs, "dim1");
    return std::min(d0, d1) == r - 2 && std::max(d0, d1) == r - 1;
  }
  if (view.op != Op::Permute) return false;
  std::vector<int64_t> dims = attr_ints(view.attrs, "dims");
  if (dims[r - 2] != r - 1) return false;
  if (!only_last_two) return true;
  for (int d = 0; d < r - 2; ++d)
    if (dims[d] != d) return false;
  return dims[r - 1] == r - 2;
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
  for (size_t j = 0; j < root; ++j) computed_inside_.insert(chain[j]);
  gemm_roots_[chain[root]] = first;
}

}  // namespace drtriton::codegen
