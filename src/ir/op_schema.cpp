#include "ir/op_schema.h"

#include <cassert>
#include <limits>
#include <stdexcept>
#include <tuple>

#include "ir/shape_rules.h"

namespace drtriton {

std::string_view category_name(Category category) {
  switch (category) {
    case Category::Anchor: return "anchor";
    case Category::Unary: return "unary";
    case Category::Binary: return "binary";
    case Category::Reduction: return "reduction";
    case Category::Normalization: return "normalization";
    case Category::Pooling: return "pooling";
    case Category::Layout: return "layout";
  }
  return "?";
}

std::string_view domain_name(Domain domain) {
  switch (domain) {
    case Domain::Any: return "any";
    case Domain::Positive: return "positive";
    case Domain::NonNegative: return "non_negative";
    case Domain::NonZero: return "non_zero";
  }
  return "?";
}

const AttrSpec* OpSchema::find_attr(std::string_view attr_name) const {
  for (const AttrSpec& a : attrs)
    if (a.name == attr_name) return &a;
  return nullptr;
}

namespace {

using namespace rules;
using Ints = std::vector<int64_t>;
constexpr double kInf = std::numeric_limits<double>::infinity();

// The table is data: it keeps one declaration to a few lines, which clang-format would
// spread over many.
// clang-format off

// Attribute constructors: the table below reads as a list of declarations.
AttrSpec size_attr(const std::string& name) {
  return {.name = name, .type = AttrType::Int, .lo = 1, .is_size = true};
}
AttrSpec int_attr(const std::string& name, std::optional<int64_t> def, double lo = -kInf,
                  double hi = kInf) {
  AttrSpec a{.name = name, .type = AttrType::Int, .lo = lo, .hi = hi};
  if (def) a.default_value = *def;
  return a;
}
AttrSpec float_attr(const std::string& name, std::optional<double> def, double lo = -kInf,
                    double hi = kInf) {
  AttrSpec a{.name = name, .type = AttrType::Float, .lo = lo, .hi = hi};
  if (def) a.default_value = *def;
  return a;
}
AttrSpec bool_attr(const std::string& name, bool def) {
  return {.name = name, .type = AttrType::Bool, .default_value = def};
}
// A list with one entry per spatial dim (length n), or of any length >= 1 (n = 0).
AttrSpec ints_attr(const std::string& name, int n, std::optional<int64_t> fill, double lo,
                   bool is_size = false) {
  AttrSpec a{.name = name, .type = AttrType::Ints, .lo = lo, .length = n, .min_length = 1,
             .is_size = is_size};
  if (fill) a.default_value = Ints(n, *fill);
  return a;
}

std::vector<AttrSpec> conv_attrs(int n, bool transposed) {
  std::vector<AttrSpec> a = {size_attr("in_channels"), size_attr("out_channels"),
                             ints_attr("kernel_size", n, std::nullopt, 1, true),
                             ints_attr("stride", n, 1, 1), ints_attr("padding", n, 0, 0)};
  if (transposed) a.push_back(ints_attr("output_padding", n, 0, 0));
  a.push_back(ints_attr("dilation", n, 1, 1));
  a.push_back(int_attr("groups", 1, 1));
  a.push_back(bool_attr("bias", true));
  return a;
}

std::vector<AttrSpec> reduce_attrs() {
  AttrSpec dim{.name = "dim", .type = AttrType::Ints, .min_length = 1};
  return {dim, bool_attr("keepdim", false)};
}

std::vector<AttrSpec> reduce_one_attrs() {
  return {int_attr("dim", std::nullopt), bool_attr("keepdim", false)};
}

// momentum NaN stands for momentum=None, a cumulative average of the batch statistics
// (factor 1/num_batches_tracked): a NaN momentum has no meaning of its own.
std::vector<AttrSpec> batch_norm_attrs(bool instance) {
  AttrSpec momentum = float_attr("momentum", 0.1, 0, 1);
  momentum.none_is_nan = true;
  return {size_attr("num_features"), float_attr("eps", 1e-5, 0, 1), momentum,
          bool_attr("affine", !instance), bool_attr("track_running_stats", !instance)};
}

std::vector<AttrSpec> pool_attrs(int n, bool max_pool) {
  AttrSpec stride = ints_attr("stride", n, std::nullopt, 1);
  stride.default_from = "kernel_size";
  std::vector<AttrSpec> a = {ints_attr("kernel_size", n, std::nullopt, 1, true), stride,
                             ints_attr("padding", n, 0, 0)};
  if (max_pool) a.push_back(ints_attr("dilation", n, 1, 1));
  a.push_back(bool_attr("ceil_mode", false));
  if (!max_pool) a.push_back(bool_attr("count_include_pad", true));
  return a;
}

// Spatial-rank variants of one spelling: "nn.Conv{n}d(...)" -> "nn.Conv2d(...)".
std::string nd(std::string s, int n) {
  for (size_t i; (i = s.find("{n}")) != std::string::npos;) s.replace(i, 3, std::to_string(n));
  return s;
}

std::vector<OpSchema> conv_family(Op first, bool transposed) {
  std::vector<OpSchema> out;
  for (int n = 1; n <= 3; ++n) {
    std::string cls = transposed ? "ConvTranspose{n}d" : "Conv{n}d";
    std::string args = transposed
        ? "{in_channels}, {out_channels}, {kernel_size}{stride?}{padding?}{output_padding?}{groups?}{bias?}{dilation?}"
        : "{in_channels}, {out_channels}, {kernel_size}{stride?}{padding?}{dilation?}{groups?}{bias?}";
    out.push_back({.op = static_cast<Op>(static_cast<int>(first) + n - 1),
                   .attrs = conv_attrs(n, transposed),
                   .infer_shape = transposed ? conv_transpose : conv,
                   .params = transposed ? conv_transpose_params : conv_params,
                   .flops = transposed ? conv_transpose_flops : conv_flops,
                   .torch_module = nd("nn." + cls + "(" + args + ")", n),
                   .aten = {nd(transposed ? "aten::conv_transpose{n}d" : "aten::conv{n}d", n)}});
  }
  return out;
}

std::vector<OpSchema> pool_family(Op first, bool is_max, int from, int to) {
  std::vector<OpSchema> out;
  for (int n = from; n <= to; ++n) {
    std::string args = is_max ? "{kernel_size}{stride?}{padding?}{dilation?}{ceil_mode?}"
                                : "{kernel_size}{stride?}{padding?}{ceil_mode?}{count_include_pad?}";
    std::string name = is_max ? "max_pool{n}d" : "avg_pool{n}d";
    std::string cls = is_max ? "MaxPool{n}d" : "AvgPool{n}d";
    out.push_back({.op = static_cast<Op>(static_cast<int>(first) + n - from),
                   .attrs = pool_attrs(n, is_max),
                   .infer_shape = is_max ? max_pool : avg_pool,
                   .flops = pool_flops,
                   .torch_module = nd("nn." + cls + "(" + args + ")", n),
                   .torch_function = nd("F." + name + "($0, " + args + ")", n),
                   .aten = {nd("aten::" + name, n), nd("aten::" + name + "_with_indices", n)}});
  }
  return out;
}

// A unary elementwise op with no attributes, spelled torch.NAME or F.NAME.
OpSchema simple_unary(Op op, const std::string& module, const std::string& function,
                      const std::string& aten, double flops = 1, Domain domain = Domain::Any) {
  return {.op = op, .infer_shape = same_shape, .flops_per_element = flops,
          .torch_module = module, .torch_function = function + "($0)",
          .aten = {"aten::" + aten}, .domain = domain};
}

OpSchema scalar_op(Op op, const std::string& expr, const std::string& aten,
                   ShapeRule rule = same_shape) {
  return {.op = op, .attrs = {float_attr("other", std::nullopt)}, .infer_shape = rule,
          .torch_function = expr, .aten = {aten}};
}

OpSchema binary_op(Op op, const std::string& expr, const std::string& aten,
                   ShapeRule rule = broadcast) {
  return {.op = op, .infer_shape = rule, .torch_function = expr, .aten = {aten}};
}

OpSchema reduction(Op op, const std::string& fn, const std::string& aten, double flops = 1) {
  return {.op = op, .attrs = reduce_attrs(), .infer_shape = reduce_dims,
          .flops_per_element = flops,
          .torch_function = "torch." + fn + "($0, dim={dim}{keepdim?})", .aten = {aten}};
}

std::vector<OpSchema> build_table() {
  std::vector<OpSchema> t;
  auto add = [&](OpSchema s) { t.push_back(std::move(s)); };
  auto add_all = [&](std::vector<OpSchema> v) {
    for (auto& s : v) t.push_back(std::move(s));
  };

  // Anchors.
  add({.op = Op::Linear,
       .attrs = {size_attr("in_features"), size_attr("out_features"), bool_attr("bias", true)},
       .infer_shape = linear, .params = linear_params, .flops = linear_flops,
       .torch_module = "nn.Linear({in_features}, {out_features}{bias?})",
       .aten = {"aten::linear"}});
  add({.op = Op::Matmul, .infer_shape = matmul, .flops = matmul_flops,
       .torch_function = "torch.matmul($0, $1)", .aten = {"aten::matmul", "aten::mm"}});
  add({.op = Op::Bmm, .infer_shape = bmm, .flops = matmul_flops,
       .torch_function = "torch.bmm($0, $1)", .aten = {"aten::bmm"}});
  add({.op = Op::Addmm, .infer_shape = addmm, .flops = matmul_flops,
       .torch_function = "torch.addmm($0, $1, $2)", .aten = {"aten::addmm"}});
  add_all(conv_family(Op::Conv1d, false));
  add_all(conv_family(Op::ConvTranspose1d, true));
  // Recurrent layers. `result` picks the node's value among the layer's results (0 the
  // output sequence, 1 h_n, 2 c_n); nodes of one module call share one library call.
  std::vector<AttrSpec> rnn_attrs = {
      size_attr("input_size"), size_attr("hidden_size"), int_attr("num_layers", 1, 1),
      bool_attr("bias", true), bool_attr("batch_first", false), float_attr("dropout", 0.0, 0, 1),
      bool_attr("bidirectional", false)};
  std::string rnn_args = "{input_size}, {hidden_size}{num_layers?}{bias?}{batch_first?}{dropout?}{bidirectional?}";
  auto with = [](std::vector<AttrSpec> a, std::vector<AttrSpec> more) {
    a.insert(a.end(), more.begin(), more.end());
    return a;
  };
  add({.op = Op::Lstm, .attrs = with(rnn_attrs, {int_attr("result", 0, 0, 2)}),
       .infer_shape = lstm, .params = lstm_params, .flops = lstm_flops,
       .torch_module = "nn.LSTM(" + rnn_args + ")", .aten = {"aten::lstm"}, .sampled = false});
  add({.op = Op::Gru, .attrs = with(rnn_attrs, {int_attr("result", 0, 0, 1)}),
       .infer_shape = gru, .params = gru_params, .flops = gru_flops,
       .torch_module = "nn.GRU(" + rnn_args + ")", .aten = {"aten::gru"}, .sampled = false});
  AttrSpec nonlinearity{.name = "nonlinearity", .type = AttrType::Str,
                        .default_value = std::string("tanh"), .choices = {"tanh", "relu"}};
  add({.op = Op::Rnn, .attrs = with(rnn_attrs, {nonlinearity, int_attr("result", 0, 0, 1)}),
       .infer_shape = gru, .params = rnn_params, .flops = rnn_flops,
       .torch_module = "nn.RNN(" + rnn_args + "{nonlinearity?})",
       .aten = {"aten::rnn_tanh", "aten::rnn_relu"}, .sampled = false});
  // scaled_dot_product_attention. scale 0 stands for PyTorch's default (scale=None): 1/sqrt
  // of the head dim, a run-time size. Dropout and attention masks are not part of it.
  add({.op = Op::Sdpa, .attrs = {bool_attr("is_causal", false), float_attr("scale", 0.0, 0)},
       .infer_shape = sdpa, .flops = sdpa_flops,
       .torch_function = "F.scaled_dot_product_attention($0, $1, $2{is_causal?}{scale?})",
       .aten = {"aten::scaled_dot_product_attention"}, .sampled = false});

  // Unary elementwise.
  add(simple_unary(Op::Relu, "nn.ReLU()", "torch.relu", "relu"));
  add(simple_unary(Op::Sigmoid, "nn.Sigmoid()", "torch.sigmoid", "sigmoid", 4));
  add(simple_unary(Op::Tanh, "nn.Tanh()", "torch.tanh", "tanh", 4));
  add({.op = Op::Gelu,
       .attrs = {{.name = "approximate", .type = AttrType::Str,
                  .default_value = std::string("none"), .choices = {"none", "tanh"}}},
       .infer_shape = same_shape, .flops_per_element = 8,
       .torch_module = "nn.GELU({approximate?})", .torch_function = "F.gelu($0{approximate?})",
       .aten = {"aten::gelu"}});
  add(simple_unary(Op::Mish, "nn.Mish()", "F.mish", "mish", 8));
  add(simple_unary(Op::Hardswish, "nn.Hardswish()", "F.hardswish", "hardswish", 4));
  add(simple_unary(Op::Hardsigmoid, "nn.Hardsigmoid()", "F.hardsigmoid", "hardsigmoid", 3));
  add({.op = Op::Hardtanh,
       .attrs = {float_attr("min_val", -1.0), float_attr("max_val", 1.0)},
       .infer_shape = same_shape, .flops_per_element = 2,
       .torch_module = "nn.Hardtanh({min_val?}{max_val?})",
       .torch_function = "F.hardtanh($0{min_val?}{max_val?})", .aten = {"aten::hardtanh"}});
  add({.op = Op::LeakyRelu, .attrs = {float_attr("negative_slope", 0.01)},
       .infer_shape = same_shape, .flops_per_element = 2,
       .torch_module = "nn.LeakyReLU({negative_slope?})",
       .torch_function = "F.leaky_relu($0{negative_slope?})", .aten = {"aten::leaky_relu"}});
  add({.op = Op::Elu, .attrs = {float_attr("alpha", 1.0)}, .infer_shape = same_shape,
       .flops_per_element = 4, .torch_module = "nn.ELU({alpha?})",
       .torch_function = "F.elu($0{alpha?})", .aten = {"aten::elu"}});
  add(simple_unary(Op::Selu, "nn.SELU()", "F.selu", "selu", 5));
  add({.op = Op::Softplus,
       .attrs = {float_attr("beta", 1.0), float_attr("threshold", 20.0)},
       .infer_shape = same_shape, .flops_per_element = 5,
       .torch_module = "nn.Softplus({beta?}{threshold?})",
       .torch_function = "F.softplus($0{beta?}{threshold?})", .aten = {"aten::softplus"}});
  add(simple_unary(Op::Silu, "nn.SiLU()", "F.silu", "silu", 5));
  add(simple_unary(Op::Exp, "", "torch.exp", "exp", 4));
  add(simple_unary(Op::Log, "", "torch.log", "log", 4, Domain::Positive));
  add(simple_unary(Op::Abs, "", "torch.abs", "abs"));
  add(simple_unary(Op::Sqrt, "", "torch.sqrt", "sqrt", 2, Domain::NonNegative));
  add(simple_unary(Op::Rsqrt, "", "torch.rsqrt", "rsqrt", 2, Domain::Positive));
  add(simple_unary(Op::Neg, "", "torch.neg", "neg"));
  add(simple_unary(Op::Reciprocal, "", "torch.reciprocal", "reciprocal", 1, Domain::NonZero));
  add(simple_unary(Op::Square, "", "torch.square", "square"));
  // A non-integer exponent needs a non-negative base; the sampler keeps to that domain.
  add({.op = Op::Pow, .attrs = {float_attr("exponent", std::nullopt)},
       .infer_shape = same_shape, .flops_per_element = 4,
       .torch_function = "torch.pow($0, {exponent})", .aten = {"aten::pow"},
       .domain = Domain::NonNegative});
  // Integer tensors too (a count clamped to at least one), with integer bounds.
  add({.op = Op::Clamp, .attrs = {float_attr("min", std::nullopt), float_attr("max", std::nullopt)},
       .infer_shape = clamp_bounds, .flops_per_element = 2,
       .torch_function = "torch.clamp($0, min={min}, max={max})", .aten = {"aten::clamp"},
       .any_dtype = true});
  add({.op = Op::ClampMin, .attrs = {float_attr("min", std::nullopt)},
       .infer_shape = clamp_bounds, .torch_function = "torch.clamp_min($0, {min})",
       .aten = {"aten::clamp_min"}, .any_dtype = true});
  add({.op = Op::ClampMax, .attrs = {float_attr("max", std::nullopt)},
       .infer_shape = clamp_bounds, .torch_function = "torch.clamp_max($0, {max})",
       .aten = {"aten::clamp_max"}, .any_dtype = true});
  add(simple_unary(Op::Erf, "", "torch.erf", "erf", 8));
  add(simple_unary(Op::Sin, "", "torch.sin", "sin", 4));
  add(simple_unary(Op::Cos, "", "torch.cos", "cos", 4));
  // Steps a program writes (a sign, a quantization's rounding): not drawn yet, since a
  // step's output jumps where rounding noise crosses it.
  for (auto [op, fn] : {std::pair{Op::Sign, "sign"}, std::pair{Op::Round, "round"},
                        std::pair{Op::Floor, "floor"}, std::pair{Op::Ceil, "ceil"},
                        std::pair{Op::Trunc, "trunc"}}) {
    OpSchema step = simple_unary(op, "", std::string("torch.") + fn, fn);
    step.sampled = false;
    add(step);
  }
  add(scalar_op(Op::AddScalar, "$0 + {other}", "aten::add"));
  add(scalar_op(Op::SubScalar, "$0 - {other}", "aten::sub"));
  add(scalar_op(Op::RsubScalar, "{other} - $0", "aten::rsub"));
  add(scalar_op(Op::MulScalar, "$0 * {other}", "aten::mul"));
  add(scalar_op(Op::DivScalar, "$0 / {other}", "aten::div", div_scalar));
  // Comparisons take integers too (positions against lengths, `self.mask == 0`); only > and <
  // are drawn.
  for (auto [op, expr, aten] : {std::tuple{Op::GtScalar, "$0 > {other}", "aten::gt"},
                                std::tuple{Op::LtScalar, "$0 < {other}", "aten::lt"},
                                std::tuple{Op::GeScalar, "$0 >= {other}", "aten::ge"},
                                std::tuple{Op::LeScalar, "$0 <= {other}", "aten::le"},
                                std::tuple{Op::EqScalar, "$0 == {other}", "aten::eq"},
                                std::tuple{Op::NeScalar, "$0 != {other}", "aten::ne"}}) {
    OpSchema cmp = scalar_op(op, expr, aten, compare_scalar);
    cmp.any_dtype = true;
    cmp.sampled = op == Op::GtScalar || op == Op::LtScalar;
    add(cmp);
  }
  add({.op = Op::LogicalNot, .infer_shape = compare_scalar,
       .torch_function = "torch.logical_not($0)", .aten = {"aten::logical_not"},
       .any_dtype = true, .sampled = false});
  for (Op op : {Op::Triu, Op::Tril}) {
    std::string fn = op == Op::Triu ? "triu" : "tril";
    add({.op = op, .attrs = {int_attr("diagonal", 0)}, .infer_shape = same_shape,
         .torch_function = "torch." + fn + "($0{diagonal?})", .aten = {"aten::" + fn},
         .any_dtype = true, .sampled = false});
  }
  // The factories of forward: the frontend's zeros, ones, full, their _like and new_ forms,
  // and tensor constants of one value all import as this (pytorch_import.cpp). $d is the
  // device of the program's first input.
  add({.op = Op::Full,
       .attrs = {{.name = "size", .type = AttrType::Ints, .lo = 1},
                 float_attr("value", std::nullopt),
                 {.name = "dtype", .type = AttrType::Str, .default_value = std::string("f32"),
                  .choices = {"f32", "f16", "bf16", "bool"}}},
       .infer_shape = full, .flops = no_flops,
       .torch_function = "torch.full({size}, {value}, dtype={dtype}$d)", .aten = {"aten::full"},
       .sampled = false});
  add({.op = Op::Arange,
       .attrs = {float_attr("start", 0.0), float_attr("end", std::nullopt), float_attr("step", 1.0),
                 {.name = "dtype", .type = AttrType::Str, .default_value = std::string("i64"),
                  .choices = {"i64", "i32", "f32", "f16", "bf16"}}},
       .infer_shape = arange, .flops = no_flops,
       .torch_function = "torch.arange({start}, {end}, {step}, dtype={dtype}$d)",
       .aten = {"aten::arange"}, .sampled = false});

  // Binary elementwise.
  add(binary_op(Op::Add, "$0 + $1", "aten::add"));
  add(binary_op(Op::Sub, "$0 - $1", "aten::sub"));
  add(binary_op(Op::Mul, "$0 * $1", "aten::mul"));
  OpSchema div = binary_op(Op::Div, "$0 / $1", "aten::div");
  div.domain = Domain::NonZero;
  div.domain_input = 1;
  add(div);
  add(binary_op(Op::Maximum, "torch.maximum($0, $1)", "aten::maximum"));
  add(binary_op(Op::Minimum, "torch.minimum($0, $1)", "aten::minimum"));
  for (auto [op, expr, aten] : {std::tuple{Op::Gt, "$0 > $1", "aten::gt"},
                                std::tuple{Op::Lt, "$0 < $1", "aten::lt"},
                                std::tuple{Op::Ge, "$0 >= $1", "aten::ge"},
                                std::tuple{Op::Le, "$0 <= $1", "aten::le"},
                                std::tuple{Op::Eq, "$0 == $1", "aten::eq"},
                                std::tuple{Op::Ne, "$0 != $1", "aten::ne"}}) {
    OpSchema cmp = binary_op(op, expr, aten, compare);
    cmp.any_dtype = true;  // as the scalar comparisons
    cmp.sampled = op == Op::Gt || op == Op::Lt;
    add(cmp);
  }
  add(binary_op(Op::Where, "torch.where($0, $1, $2)", "aten::where", where));

  // Reductions.
  OpSchema sum = reduction(Op::Sum, "sum", "aten::sum");
  sum.infer_shape = sum_dims;
  sum.any_dtype = true;  // mask.sum(), idx.sum(): an int64 count
  add(sum);
  add(reduction(Op::Mean, "mean", "aten::mean"));
  add({.op = Op::Max, .attrs = reduce_one_attrs(), .infer_shape = reduce_dim,
       .torch_function = "torch.max($0, dim={dim}{keepdim?}).values", .aten = {"aten::max"}});
  add({.op = Op::Min, .attrs = reduce_one_attrs(), .infer_shape = reduce_dim,
       .torch_function = "torch.min($0, dim={dim}{keepdim?}).values", .aten = {"aten::min"}});
  add(reduction(Op::Amax, "amax", "aten::amax"));
  add(reduction(Op::Amin, "amin", "aten::amin"));
  add(reduction(Op::Logsumexp, "logsumexp", "aten::logsumexp", 6));
  for (auto [op, fn] : {std::pair{Op::Var, "var"}, std::pair{Op::Std, "std"}}) {
    std::vector<AttrSpec> a = reduce_attrs();
    a.insert(a.begin() + 1, int_attr("correction", 1, 0));
    add({.op = op, .attrs = a, .infer_shape = reduce_dims, .flops_per_element = 3,
         .torch_function = std::string("torch.") + fn + "($0, dim={dim}{correction?}{keepdim?})",
         .aten = {std::string("aten::") + fn}});
  }
  OpSchema norm = reduction(Op::Norm, "linalg.vector_norm", "aten::linalg_vector_norm", 2);
  norm.attrs.insert(norm.attrs.begin(), float_attr("ord", 2.0, 2, 2));
  add(norm);
  add({.op = Op::Prod, .attrs = reduce_one_attrs(), .infer_shape = reduce_dim,
       .torch_function = "torch.prod($0, dim={dim}{keepdim?})", .aten = {"aten::prod"}});
  add({.op = Op::Argmax, .attrs = reduce_one_attrs(), .infer_shape = arg_reduce,
       .torch_function = "torch.argmax($0, dim={dim}{keepdim?})", .aten = {"aten::argmax"}});
  add({.op = Op::Argmin, .attrs = reduce_one_attrs(), .infer_shape = arg_reduce,
       .torch_function = "torch.argmin($0, dim={dim}{keepdim?})", .aten = {"aten::argmin"}});
  add({.op = Op::NllLoss,
       .attrs = {{.name = "reduction", .type = AttrType::Str, .default_value = std::string("mean"),
                  .choices = {"none", "mean", "sum"}},
                 int_attr("ignore_index", -100)},
       .infer_shape = nll_loss, .flops = no_flops,
       .torch_function = "F.nll_loss($0, $1{reduction?}{ignore_index?})",
       .aten = {"aten::nll_loss", "aten::nll_loss_nd", "aten::nll_loss2d"}, .index_input = 1,
       .sampled = false});
  add({.op = Op::Cumsum, .attrs = {int_attr("dim", std::nullopt)}, .infer_shape = along_dim,
       .torch_function = "torch.cumsum($0, dim={dim})", .aten = {"aten::cumsum"}});
  add({.op = Op::Cumprod, .attrs = {int_attr("dim", std::nullopt)}, .infer_shape = along_dim,
       .torch_function = "torch.cumprod($0, dim={dim})", .aten = {"aten::cumprod"},
       .sampled = false});

  // Normalization and softmax.
  ShapeRule bn_rules[] = {batch_norm1d, batch_norm2d, batch_norm3d};
  for (int n = 1; n <= 3; ++n) {
    add({.op = static_cast<Op>(static_cast<int>(Op::BatchNorm1d) + n - 1),
         .attrs = batch_norm_attrs(false), .infer_shape = bn_rules[n - 1],
         .params = batch_norm_params, .flops_per_element = 8,
         .torch_module = nd("nn.BatchNorm{n}d({num_features}{eps?}{momentum?}{affine?}{track_running_stats?})", n),
         .aten = {"aten::batch_norm", "aten::_native_batch_norm_legit_functional",
                  "aten::native_batch_norm"}});
  }
  add({.op = Op::GroupNorm,
       .attrs = {size_attr("num_groups"), size_attr("num_channels"), float_attr("eps", 1e-5, 0, 1),
                 bool_attr("affine", true)},
       .infer_shape = group_norm, .params = group_norm_params, .flops_per_element = 8,
       .torch_module = "nn.GroupNorm({num_groups}, {num_channels}{eps?}{affine?})",
       .aten = {"aten::group_norm", "aten::native_group_norm"}});
  add({.op = Op::LayerNorm,
       .attrs = {ints_attr("normalized_shape", 0, std::nullopt, 1, true),
                 float_attr("eps", 1e-5, 0, 1), bool_attr("elementwise_affine", true),
                 bool_attr("bias", true)},
       .infer_shape = trailing_norm, .params = layer_norm_params, .flops_per_element = 8,
       .torch_module = "nn.LayerNorm({normalized_shape}{eps?}{elementwise_affine?}{bias?})",
       .aten = {"aten::layer_norm", "aten::native_layer_norm"}});
  ShapeRule in_rules[] = {instance_norm2d, instance_norm3d};
  for (int n = 2; n <= 3; ++n) {
    add({.op = static_cast<Op>(static_cast<int>(Op::InstanceNorm2d) + n - 2),
         .attrs = batch_norm_attrs(true), .infer_shape = in_rules[n - 2],
         .params = batch_norm_params, .flops_per_element = 8,
         .torch_module = nd("nn.InstanceNorm{n}d({num_features}{eps?}{momentum?}{affine?}{track_running_stats?})", n),
         .aten = {"aten::instance_norm"}});
  }
  // nn.RMSNorm's default eps (None) depends on the dtype, so the IR always states it.
  add({.op = Op::RmsNorm,
       .attrs = {ints_attr("normalized_shape", 0, std::nullopt, 1, true),
                 float_attr("eps", std::nullopt, 0, 1), bool_attr("elementwise_affine", true)},
       .infer_shape = trailing_norm, .params = rms_norm_params, .flops_per_element = 4,
       .torch_module = "nn.RMSNorm({normalized_shape}, eps={eps}{elementwise_affine?})",
       .aten = {"aten::rms_norm"}});
  add({.op = Op::Softmax, .attrs = {int_attr("dim", std::nullopt)}, .infer_shape = along_dim,
       .flops_per_element = 6, .torch_module = "nn.Softmax(dim={dim})",
       .torch_function = "torch.softmax($0, dim={dim})",
       .aten = {"aten::softmax", "aten::_softmax"}});
  add({.op = Op::LogSoftmax, .attrs = {int_attr("dim", std::nullopt)}, .infer_shape = along_dim,
       .flops_per_element = 6, .torch_module = "nn.LogSoftmax(dim={dim})",
       .torch_function = "torch.log_softmax($0, dim={dim})",
       .aten = {"aten::log_softmax", "aten::_log_softmax"}});

  // Pooling.
  add_all(pool_family(Op::MaxPool1d, true, 1, 3));
  add_all(pool_family(Op::AvgPool1d, false, 1, 3));
  for (int n = 2; n <= 3; ++n) {
    add({.op = static_cast<Op>(static_cast<int>(Op::AdaptiveAvgPool2d) + n - 2),
         .attrs = {ints_attr("output_size", n, std::nullopt, 1, true)},
         .infer_shape = adaptive_pool,
         .torch_module = nd("nn.AdaptiveAvgPool{n}d({output_size})", n),
         .torch_function = nd("F.adaptive_avg_pool{n}d($0, {output_size})", n),
         .aten = {nd("aten::adaptive_avg_pool{n}d", n), nd("aten::_adaptive_avg_pool{n}d", n)}});
  }

  // Layout.
  add({.op = Op::Reshape,
       .attrs = {{.name = "shape", .type = AttrType::Ints, .lo = -1}},
       .infer_shape = reshape, .flops = no_flops,
       .torch_function = "$0.reshape({shape})",
       .aten = {"aten::view", "aten::reshape", "aten::_unsafe_view"}});
  // nn.Flatten and torch.flatten disagree on start_dim's default, so both dims are required.
  add({.op = Op::Flatten,
       .attrs = {int_attr("start_dim", std::nullopt), int_attr("end_dim", std::nullopt)},
       .infer_shape = flatten, .flops = no_flops,
       .torch_module = "nn.Flatten({start_dim}, {end_dim})",
       .torch_function = "torch.flatten($0, {start_dim}, {end_dim})", .aten = {"aten::flatten"}});
  add({.op = Op::Permute, .attrs = {{.name = "dims", .type = AttrType::Ints}},
       .infer_shape = permute, .flops = no_flops, .torch_function = "$0.permute({dims})",
       .aten = {"aten::permute"}});
  add({.op = Op::Transpose,
       .attrs = {int_attr("dim0", std::nullopt), int_attr("dim1", std::nullopt)},
       .infer_shape = transpose, .flops = no_flops,
       .torch_function = "$0.transpose({dim0}, {dim1})", .aten = {"aten::transpose"}});
  add({.op = Op::Flip, .attrs = {{.name = "dims", .type = AttrType::Ints, .min_length = 1}},
       .infer_shape = flip, .flops = no_flops, .torch_function = "torch.flip($0, {dims})",
       .aten = {"aten::flip"}, .sampled = false});
  add({.op = Op::Slice,
       .attrs = {int_attr("dim", 0), int_attr("start", 0),
                 int_attr("end", std::numeric_limits<int64_t>::max()), int_attr("step", 1, 1)},
       .infer_shape = slice, .flops = no_flops,
       .torch_function = "torch.ops.aten.slice.Tensor($0, {dim}, {start}, {end}, {step})",
       .aten = {"aten::slice"}, .sampled = false});
  add({.op = Op::Select, .attrs = {int_attr("dim", std::nullopt), int_attr("index", std::nullopt)},
       .infer_shape = select, .flops = no_flops, .torch_function = "torch.select($0, {dim}, {index})",
       .aten = {"aten::select"}, .sampled = false});
  add({.op = Op::Expand, .attrs = {{.name = "size", .type = AttrType::Ints, .min_length = 1}},
       .infer_shape = expand, .flops = no_flops, .torch_function = "$0.expand({size})",
       .aten = {"aten::expand"}, .sampled = false});
  add({.op = Op::Roll,
       .attrs = {{.name = "shifts", .type = AttrType::Ints, .min_length = 1},
                 {.name = "dims", .type = AttrType::Ints, .min_length = 1}},
       .infer_shape = roll, .flops = no_flops,
       .torch_function = "torch.roll($0, {shifts}, {dims})", .aten = {"aten::roll"},
       .sampled = false});
  // F.pad: constant (value; negative amounts crop), reflect, replicate or circular.
  AttrSpec pad_mode{.name = "mode", .type = AttrType::Str,
                    .default_value = std::string("constant"),
                    .choices = {"constant", "reflect", "replicate", "circular"}};
  add({.op = Op::Pad,
       .attrs = {{.name = "pad", .type = AttrType::Ints, .min_length = 2}, float_attr("value", 0.0),
                 pad_mode},
       .infer_shape = pad, .flops = no_flops,
       .torch_function = "torch.nn.functional.pad($0, {pad}{mode?}{value?})",
       .aten = {"aten::constant_pad_nd"}, .sampled = false});
  // F.interpolate / nn.Upsample of an image. scale_h, scale_w: the source step per output
  // pixel that PyTorch uses (1/scale_factor where one was given), 0 for in/out sizes.
  AttrSpec upsample_mode{.name = "mode", .type = AttrType::Str,
                         .default_value = std::string("nearest"), .choices = {"nearest", "bilinear"}};
  add({.op = Op::Upsample2d,
       .attrs = {upsample_mode, ints_attr("size", 2, std::nullopt, 1, true),
                 float_attr("scale_h", 0.0, 0), float_attr("scale_w", 0.0, 0),
                 bool_attr("align_corners", false)},
       .infer_shape = upsample, .flops = no_flops,
       .torch_function = "F.interpolate($0, size={size}{mode?}{align_corners?})",
       .aten = {"aten::upsample_nearest2d", "aten::upsample_bilinear2d"}, .sampled = false});
  // nn.Embedding's padding_idx only zeroes a row at init and its gradient, and max_norm
  // (renormalizing the weight inside forward) is refused by import: neither is an attribute.
  // Its output has its weight's dtype (the input holds indices), so that dtype is one.
  add({.op = Op::Embedding,
       .attrs = {size_attr("num_embeddings"), size_attr("embedding_dim"),
                 {.name = "dtype", .type = AttrType::Str, .default_value = std::string("f32"),
                  .choices = {"f32", "f16", "bf16"}}},
       .infer_shape = embedding, .params = embedding_params, .flops = no_flops,
       .torch_module = "nn.Embedding({num_embeddings}, {embedding_dim}{dtype?})",
       .aten = {"aten::embedding"}, .index_input = 0, .sampled = false});
  // Tensor indexing along one dim (x[idx], x[:, idx], index_select); a multi-dim index
  // puts its dims in place of that dim.
  add({.op = Op::IndexSelect, .attrs = {int_attr("dim", std::nullopt)},
       .infer_shape = index_select, .flops = no_flops,
       .torch_function = "$0[$:$1]",
       .aten = {"aten::index_select"}, .index_input = 1, .sampled = false});
  add({.op = Op::Gather, .attrs = {int_attr("dim", std::nullopt)}, .infer_shape = gather,
       .flops = no_flops, .torch_function = "torch.gather($0, {dim}, $1)",
       .aten = {"aten::gather"}, .index_input = 1, .sampled = false});
  add({.op = Op::Unsqueeze, .attrs = {int_attr("dim", std::nullopt)}, .infer_shape = unsqueeze,
       .flops = no_flops, .torch_function = "$0.unsqueeze({dim})", .aten = {"aten::unsqueeze"}});
  add({.op = Op::Squeeze,
       .attrs = {{.name = "dim", .type = AttrType::Ints, .min_length = 1}},
       .infer_shape = squeeze, .flops = no_flops, .torch_function = "$0.squeeze({dim})",
       .aten = {"aten::squeeze"}});
  add({.op = Op::Cat, .attrs = {int_attr("dim", std::nullopt)}, .infer_shape = cat,
       .flops = no_flops, .torch_function = "torch.cat([$*], dim={dim})", .aten = {"aten::cat"}});
  add({.op = Op::Clone, .infer_shape = same_shape, .flops = no_flops,
       .torch_function = "$0.clone()", .aten = {"aten::clone"}});
  add({.op = Op::Contiguous, .infer_shape = same_shape, .flops = no_flops,
       .torch_function = "$0.contiguous()", .aten = {"aten::contiguous"}});
  // Dropout follows the module's mode, as nn.Dropout does (the function form passes
  // training=self.training): with p > 0 it is random in training mode, where the verifier
  // judges it by statistics, and the sampler emits only p = 0 (synth/program.cpp).
  add({.op = Op::Dropout, .attrs = {float_attr("p", 0.5, 0, 0.999999)},
       .infer_shape = same_shape, .flops = no_flops, .torch_module = "nn.Dropout(p={p})",
       .torch_function = "F.dropout($0, p={p}, training=self.training)",
       .aten = {"aten::dropout"}});
  // The variants, random in training mode too: never drawn by the sampler. Import maps
  // aten::feature_dropout by rank (5: dropout3d, else dropout2d), and nn.Dropout2d/3d by class.
  for (auto [op, cls, fn] : {std::tuple{Op::Dropout2d, "Dropout2d", "dropout2d"},
                             std::tuple{Op::Dropout3d, "Dropout3d", "dropout3d"},
                             std::tuple{Op::AlphaDropout, "AlphaDropout", "alpha_dropout"}}) {
    bool alpha = op == Op::AlphaDropout;
    add({.op = op, .attrs = {float_attr("p", 0.5, 0, 0.999999)},
         .infer_shape = alpha ? same_shape : channel_dropout, .flops = no_flops,
         .torch_module = std::string("nn.") + cls + "(p={p})",
         .torch_function = std::string("F.") + fn + "($0, p={p}, training=self.training)",
         .aten = {alpha ? "aten::alpha_dropout" : "aten::feature_dropout"}, .sampled = false});
  }
  add({.op = Op::Identity, .infer_shape = same_shape, .flops = no_flops,
       .torch_module = "nn.Identity()"});
  // Import makes it of aten::to, _to_copy and type_as when the dtype changes (a clone when
  // it does not).
  add({.op = Op::Cast,
       .attrs = {{.name = "dtype", .type = AttrType::Str, .default_value = std::string("f32"),
                  .choices = {"f32", "f16", "bf16", "bool", "i64", "i32"}}},
       .infer_shape = cast, .flops = no_flops, .torch_function = "$0.to({dtype})",
       .aten = {"drtriton::cast"}, .sampled = false});
  return t;
}

// clang-format on

struct OpDecl {
  const char* name;
  Category category;
  int arity;
};

constexpr OpDecl kDecls[] = {
#define OP(Enum, name, category, arity) {name, Category::category, arity},
#include "ir/ops.def"
#undef OP
};
constexpr int kNumOps = sizeof kDecls / sizeof kDecls[0];

// Output domains, magnitudes and input ranks, as lists: the facts the sampler relies on.
// clang-format off
void set_domains_and_ranks(std::vector<OpSchema>& t) {
  auto set = [&](std::initializer_list<Op> ops, auto&& fn) {
    for (Op op : ops) fn(t[static_cast<int>(op)]);
  };
  // Ops that select, average or move values: what holds of their inputs holds of them.
  const std::initializer_list<Op> moves_values = {
      Op::Max, Op::Min, Op::Amax, Op::Amin, Op::Mean, Op::Maximum, Op::Minimum, Op::Where,
      Op::MaxPool1d, Op::MaxPool2d, Op::MaxPool3d, Op::AvgPool1d, Op::AvgPool2d, Op::AvgPool3d,
      Op::AdaptiveAvgPool2d, Op::AdaptiveAvgPool3d, Op::Reshape, Op::Flatten, Op::Permute,
      Op::Transpose, Op::Unsqueeze, Op::Squeeze, Op::Cat, Op::Clone, Op::Contiguous, Op::Dropout,
      Op::Identity, Op::Flip, Op::Slice, Op::Select, Op::Expand, Op::Roll};
  set({Op::Exp, Op::Sigmoid, Op::Softplus, Op::Softmax},
      [](OpSchema& s) { s.out_domain = OutDomain::Positive; });
  set({Op::Relu, Op::Abs, Op::Square, Op::Hardsigmoid, Op::Sqrt, Op::Norm, Op::Var, Op::Std},
      [](OpSchema& s) { s.out_domain = OutDomain::NonNegative; });
  set(moves_values, [](OpSchema& s) { s.out_domain = OutDomain::SameAsInputs; });
  set({Op::Add, Op::Mul, Op::Sum, Op::Prod, Op::Cumsum},
      [](OpSchema& s) { s.out_domain = OutDomain::SameAsInputs; });
  // Squashing and normalizing ops bound their output; moving values or a slope near one
  // keeps the inputs' bound.
  set({Op::Sigmoid, Op::Tanh, Op::Hardtanh, Op::Hardsigmoid, Op::Erf, Op::Sin, Op::Cos,
       Op::Softmax, Op::Clamp, Op::BatchNorm1d, Op::BatchNorm2d, Op::BatchNorm3d, Op::GroupNorm,
       Op::LayerNorm, Op::InstanceNorm2d, Op::InstanceNorm3d, Op::RmsNorm, Op::GtScalar,
       Op::LtScalar, Op::GeScalar, Op::LeScalar, Op::EqScalar, Op::NeScalar, Op::LogicalNot,
       Op::Gt, Op::Lt, Op::Ge, Op::Le, Op::Eq, Op::Ne},
      [](OpSchema& s) { s.magnitude = Magnitude::Bounded; });
  set(moves_values, [](OpSchema& s) { s.magnitude = Magnitude::SameAsInputs; });
  set({Op::Relu, Op::LeakyRelu, Op::Elu, Op::Selu, Op::Gelu, Op::Silu, Op::Mish, Op::Hardswish,
       Op::Softplus, Op::Abs, Op::Neg, Op::ClampMin, Op::ClampMax, Op::AddScalar, Op::SubScalar,
       Op::RsubScalar, Op::MulScalar, Op::Add, Op::Sub},
      [](OpSchema& s) { s.magnitude = Magnitude::SameAsInputs; });
  set({Op::Exp, Op::Pow, Op::Square}, [](OpSchema& s) { s.needs_bounded_input = true; });
  auto ranks = [&](std::initializer_list<Op> ops, int lo, int hi) {
    for (Op op : ops) {
      t[static_cast<int>(op)].min_rank = lo;
      t[static_cast<int>(op)].max_rank = hi;
    }
  };
  ranks({Op::Conv1d, Op::ConvTranspose1d, Op::MaxPool1d, Op::AvgPool1d}, 3, 3);
  ranks({Op::Conv2d, Op::ConvTranspose2d, Op::MaxPool2d, Op::AvgPool2d, Op::AdaptiveAvgPool2d,
         Op::BatchNorm2d, Op::InstanceNorm2d}, 4, 4);
  ranks({Op::Conv3d, Op::ConvTranspose3d, Op::MaxPool3d, Op::AvgPool3d, Op::AdaptiveAvgPool3d,
         Op::BatchNorm3d, Op::InstanceNorm3d}, 5, 5);
  ranks({Op::BatchNorm1d}, 2, 3);
  ranks({Op::Bmm}, 3, 3);
  ranks({Op::GroupNorm, Op::Transpose}, 2, 8);
  ranks({Op::Linear, Op::Matmul, Op::LayerNorm, Op::RmsNorm, Op::Cat, Op::Flatten, Op::Squeeze,
         Op::Sum, Op::Mean, Op::Max, Op::Min, Op::Amax, Op::Amin, Op::Logsumexp, Op::Var,
         Op::Std, Op::Norm, Op::Prod, Op::Argmax, Op::Argmin, Op::Cumsum, Op::Cumprod,
         Op::Softmax, Op::LogSoftmax, Op::Flip, Op::Slice, Op::Select}, 1, 8);
  ranks({Op::Triu, Op::Tril, Op::Sdpa}, 2, 8);
  ranks({Op::Lstm, Op::Gru, Op::Rnn}, 3, 3);
  ranks({Op::NllLoss}, 1, 8);
}
// clang-format on

std::vector<OpSchema> make_table() {
  std::vector<OpSchema> defs = build_table();
  std::vector<OpSchema> table(kNumOps);
  std::vector<bool> defined(kNumOps);
  for (OpSchema& s : defs) {
    int i = static_cast<int>(s.op);
    if (defined[i]) throw std::logic_error(std::string("op defined twice: ") + kDecls[i].name);
    defined[i] = true;
    s.name = kDecls[i].name;
    s.category = kDecls[i].category;
    s.arity = kDecls[i].arity;
    table[i] = std::move(s);
  }
  for (int i = 0; i < kNumOps; ++i) {
    if (!defined[i]) throw std::logic_error(std::string("op without a schema: ") + kDecls[i].name);
  }
  set_domains_and_ranks(table);
  return table;
}

}  // namespace

const std::vector<OpSchema>& all_op_schemas() {
  static const std::vector<OpSchema> table = make_table();
  return table;
}

const OpSchema& op_schema(Op op) {
  return all_op_schemas()[static_cast<int>(op)];
}

const OpSchema* find_op(std::string_view name) {
  for (const OpSchema& s : all_op_schemas())
    if (s.name == name) return &s;
  return nullptr;
}

}  // namespace drtriton
