#include "synth/program.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <numeric>
#include <stdexcept>

#include "synth/degenerate.h"

namespace drtriton {

SizePreset size_preset(const std::string& name) {
  if (name == "tiny") return {"tiny", 2, 4, 1, 8, 3, 10, 2, 16, 2e7, 4e6};
  if (name == "small") return {"small", 2, 16, 3, 32, 8, 32, 16, 256, 2e9, 2e8};
  // About 1 to 20 ms on an H100-class GPU: up to ~1 TFLOP of matrix work or ~8 GB of traffic.
  if (name == "bench") return {"bench", 16, 256, 16, 128, 16, 96, 256, 4096, 1e12, 8e9};
  throw std::invalid_argument("unknown size preset '" + name + "' (expected tiny, small or bench)");
}

namespace {

using Rng = std::mt19937_64;
using Ints = std::vector<int64_t>;

int64_t uniform_int(Rng& rng, int64_t lo, int64_t hi) {
  if (hi < lo) hi = lo;
  return std::uniform_int_distribution<int64_t>(lo, hi)(rng);
}

bool coin(Rng& rng) {
  return uniform_int(rng, 0, 1) == 1;
}

// A float with two decimals, as a person writes constants.
double uniform_float(Rng& rng, double lo, double hi) {
  double v = std::uniform_real_distribution<double>(lo, hi)(rng);
  return std::round(v * 100) / 100;
}

template <typename T>
const T& pick(Rng& rng, const std::vector<T>& v) {
  return v[static_cast<size_t>(uniform_int(rng, 0, static_cast<int64_t>(v.size()) - 1))];
}

Ints divisors(int64_t n) {
  Ints d;
  for (int64_t i = 1; i <= n; ++i)
    if (n % i == 0) d.push_back(i);
  return d;
}

}  // namespace

double sample_float_attr(std::mt19937_64& rng, Op op, const std::string& name) {
  if (name == "negative_slope") return uniform_float(rng, 0.01, 0.3);
  if (name == "alpha" || name == "beta") return uniform_float(rng, 0.5, 2.0);
  if (name == "min_val") return uniform_float(rng, -3.0, -0.5);
  if (name == "max_val") return uniform_float(rng, 0.5, 3.0);
  if (name == "threshold") return uniform_float(rng, 5.0, 20.0);
  if (name == "exponent") return uniform_float(rng, 0.5, 3.0);
  if (name == "eps") return pick(rng, std::vector<double>{1e-5, 1e-6, 1e-3});
  if (name == "momentum") return 0.1;
  if (name == "p") return 0.0;  // Dropout: p > 0 is judged by statistics only, not exactly
  if (name == "ord") return 2.0;
  if (op == Op::Clamp)
    return name == "min" ? uniform_float(rng, -1.0, -0.1) : uniform_float(rng, 0.1, 1.0);
  if (name == "min" || name == "max") return uniform_float(rng, -1.0, 1.0);
  if (name == "other") {
    double v = uniform_float(rng, 0.1, 2.0);
    return op == Op::DivScalar || coin(rng) ? v : -v;
  }
  throw std::logic_error("internal: no sampling range for float attribute '" + name + "'");
}

namespace {

// A random factorization of n into `rank` dims (prime factors dealt out uniformly).
Ints factorize(Rng& rng, int64_t n, int rank) {
  Ints dims(rank, 1);
  for (int64_t p = 2; n > 1; ++p) {
    while (n % p == 0) {
      dims[uniform_int(rng, 0, rank - 1)] *= p;
      n /= p;
    }
    if (p * p > n && n > 1) {
      dims[uniform_int(rng, 0, rank - 1)] *= n;
      n = 1;
    }
  }
  return dims;
}

}  // namespace

const char* module_prefix(Op op) {
  switch (op_schema(op).category) {
    case Category::Anchor:
      return op == Op::Linear ? "fc" : (op >= Op::ConvTranspose1d ? "conv_t" : "conv");
    case Category::Normalization:
      switch (op) {
        case Op::BatchNorm1d:
        case Op::BatchNorm2d:
        case Op::BatchNorm3d: return "bn";
        case Op::GroupNorm: return "gn";
        case Op::LayerNorm: return "ln";
        case Op::RmsNorm: return "rms";
        default: return "norm";
      }
    default: return "layer";
  }
}

namespace {

class Builder {
 public:
  Builder(const SizePreset& sizes, Rng& rng) : sizes_(sizes), rng_(rng) {}

  Graph run(const std::vector<Step>& steps) {
    for (const Step& step : steps) apply(step);
    g_.set_outputs({window_.back()});
    return std::move(g_);
  }

 private:
  std::string unique(const std::string& base) {
    int n = ++names_[base];
    return n == 1 ? base : base + std::to_string(n);
  }

  const TensorType& type(ValueId v) const { return g_.value(v).type; }

  void push(ValueId v) {
    window_.push_back(v);
    if (window_.size() > kWindow) window_.erase(window_.begin());
  }

  // The most elements one tensor may have: a program touches several tensors of about
  // its input's size, so each gets a slice of the byte budget.
  int64_t element_cap() const {
    return std::max<int64_t>(1, static_cast<int64_t>(sizes_.max_bytes / (4 * 16)));
  }

  // A size in [lo, hi] that keeps `rest` (the product of the tensor's other dims, the
  // later ones at their minimum) within the element cap: the variable's feasible range
  // given the choices before it.
  int64_t size_within_cap(int64_t lo, int64_t hi, int64_t rest) {
    return uniform_int(rng_, lo,
                       std::max(lo, std::min(hi, element_cap() / std::max<int64_t>(rest, 1))));
  }

  void add_first_input(int rank, bool positive) {
    const SizePreset& z = sizes_;
    std::vector<std::pair<int64_t, int64_t>> ranges;
    if (rank == 1) ranges = {{z.feature_lo, z.feature_hi}};
    if (rank == 2) ranges = {{z.batch_lo, z.batch_hi}, {z.feature_lo, z.feature_hi}};
    if (rank >= 3) {
      ranges = {{z.batch_lo, z.batch_hi}, {z.channel_lo, z.channel_hi}};
      for (int i = 2; i < rank; ++i) ranges.push_back({z.spatial_lo, z.spatial_hi});
    }
    Shape s;
    int64_t chosen = 1;
    for (size_t i = 0; i < ranges.size(); ++i) {
      int64_t later = 1;
      for (size_t j = i + 1; j < ranges.size(); ++j) later *= ranges[j].first;
      s.push_back(size_within_cap(ranges[i].first, ranges[i].second, chosen * later));
      chosen *= s.back();
    }
    push(g_.add_input("x", {DType::F32, s}, positive ? Init::Positive : Init::Normal));
  }

  // A fresh operand shaped after `like`.
  ValueId fresh(Fresh f, const TensorType& like, const char* base, bool positive) {
    Init init = positive ? Init::Positive : Init::Normal;
    Shape s = like.shape;
    switch (f) {
      case Fresh::Input: return g_.add_input(unique("y"), like, init);
      case Fresh::ParamFull: break;
      case Fresh::ParamChannel:
        s = Shape(like.shape.size() - 1, 1);
        s[0] = like.shape[1];
        break;
      case Fresh::ParamRow: s = {like.shape.back()}; break;
      case Fresh::ParamScalar: s = {1}; break;
      case Fresh::None: throw std::logic_error("internal: no fresh operand to make");
    }
    return g_.add_param(unique(base), {DType::F32, s}, init);
  }

  void apply(const Step& st) {
    const OpSchema& schema = op_schema(st.op);
    if (window_.empty()) {
      add_first_input(st.first_rank, first_input_positive(st));
    }
    auto slot = [&](int k) { return window_.at(static_cast<size_t>(st.operands[k])); };
    ValueId a = st.operands[0] >= 0 ? slot(0) : -1;
    std::vector<ValueId> ins;
    Attrs attrs;
    std::string module = schema.needs_module() ? unique(module_prefix(st.op)) : "";
    const char* param_base = st.op == Op::Add || st.op == Op::Sub   ? "bias"
                             : st.op == Op::Mul || st.op == Op::Div ? "scale"
                                                                    : "param";
    bool fresh_positive = schema.domain != Domain::Any && schema.domain_input == 1;
    switch (wiring_of(schema)) {
      case Wiring::Binary:
        ins = {a, st.operands[1] >= 0 ? slot(1)
                                      : fresh(st.fresh, type(a), param_base, fresh_positive)};
        break;
      case Wiring::Where:
        ins = {a, slot(1),
               st.operands[2] >= 0 ? slot(2) : fresh(st.fresh, type(slot(1)), "param", false)};
        break;
      case Wiring::Cat:
        ins = {a, slot(1)};
        attrs["dim"] = uniform_int(rng_, 0, type(a).rank() - 1);
        break;
      case Wiring::FreshWeight: {
        const TensorType& t = type(a);
        int64_t k = t.shape.back(),
                n = size_within_cap(sizes_.feature_lo, sizes_.feature_hi, t.numel() / k);
        Shape w = st.op == Op::Bmm ? Shape{t.shape[0], k, n} : Shape{k, n};
        ins = {a, g_.add_param(unique("weight"), {DType::F32, w})};
        break;
      }
      case Wiring::Addmm: {
        int64_t k = type(a).shape.back(),
                n = uniform_int(rng_, sizes_.feature_lo, sizes_.feature_hi);
        ValueId bias = g_.add_param(unique("bias"), {DType::F32, {n}});
        ins = {bias, a, g_.add_param(unique("weight"), {DType::F32, {k, n}})};
        break;
      }
      case Wiring::Unary:
        ins = {a};
        choose_attrs(schema, type(a), st, attrs);
        break;
    }
    fill_generic_attrs(schema, attrs);
    push(g_.add_node(st.op, ins, attrs, module));
  }

  // Floats, flags and choices no rule below decides.
  void fill_generic_attrs(const OpSchema& s, Attrs& attrs) {
    for (const AttrSpec& a : s.attrs) {
      if (attrs.count(a.name)) continue;
      if (a.type == AttrType::Float) {
        attrs[a.name] = sample_float_attr(rng_, s.op, a.name);
      } else if (a.type == AttrType::Bool) {
        attrs[a.name] = coin(rng_);
      } else if (a.type == AttrType::Str && !a.choices.empty()) {
        attrs[a.name] = pick(rng_, a.choices);
      }
    }
  }

  void choose_attrs(const OpSchema& s, const TensorType& t, const Step& st, Attrs& attrs) {
    const int r = t.rank();
    const Shape& x = t.shape;
    const Op op = s.op;
    auto dim = [&] { return uniform_int(rng_, 0, r - 1); };
    if (s.category == Category::Anchor) {
      if (op == Op::Linear) {
        attrs["in_features"] = x.back();
        attrs["out_features"] =
            size_within_cap(sizes_.feature_lo, sizes_.feature_hi, t.numel() / x.back());
        return;
      }
      conv_attrs(op, t, attrs);
      return;
    }
    if (s.category == Category::Pooling) {
      int n = r - 2;
      int64_t smallest = *std::min_element(x.begin() + 2, x.end());
      if (op == Op::AdaptiveAvgPool2d || op == Op::AdaptiveAvgPool3d) {
        Ints out;
        for (int i = 0; i < n; ++i) out.push_back(uniform_int(rng_, 1, x[2 + i]));
        attrs["output_size"] = out;
        return;
      }
      int64_t k = uniform_int(rng_, 1, std::min<int64_t>(4, smallest));
      attrs["kernel_size"] = Ints(n, k);
      attrs["stride"] = Ints(n, uniform_int(rng_, 1, k));
      attrs["padding"] = Ints(n, uniform_int(rng_, 0, k / 2));
      return;
    }
    if (s.category == Category::Reduction) {
      AbstractValue in{static_cast<uint8_t>(r)};
      OutputVariant v = output_variants(s, in).at(st.variant);
      if (op == Op::Cumsum) {
        attrs["dim"] = dim();
        return;
      }
      if (op == Op::Prod) {
        // A product of many factors overflows or vanishes in float32: at most 8 of them.
        Ints small;
        for (int i = 0; i < r; ++i)
          if (x[i] <= 8) small.push_back(i);
        // Else the smallest dim: products of many normal values shrink towards zero.
        if (small.empty()) small = {std::min_element(x.begin(), x.end()) - x.begin()};
        attrs["dim"] = pick(rng_, small);
      } else if (s.find_attr("dim")->type == AttrType::Int) {
        attrs["dim"] = dim();
      } else {
        Ints all(r);
        std::iota(all.begin(), all.end(), 0);
        std::shuffle(all.begin(), all.end(), rng_);
        all.resize(v.reduce_dims);
        std::sort(all.begin(), all.end());
        attrs["dim"] = all;
      }
      attrs["keepdim"] = v.keepdim;
      if (s.find_attr("correction")) {
        // The unbiased estimate needs two values; over a single one it is NaN.
        int64_t reduced = 1;
        for (int64_t d : attr_ints(attrs, "dim")) reduced *= x[d];
        attrs["correction"] = reduced > 1 ? uniform_int(rng_, 0, 1) : int64_t{0};
      }
      return;
    }
    switch (op) {
      case Op::BatchNorm1d:
      case Op::BatchNorm2d:
      case Op::BatchNorm3d:
      case Op::InstanceNorm2d:
      case Op::InstanceNorm3d: attrs["num_features"] = x[1]; return;
      case Op::GroupNorm:
        attrs["num_channels"] = x[1];
        attrs["num_groups"] = pick(rng_, divisors(x[1]));
        return;
      case Op::LayerNorm:
      case Op::RmsNorm: {
        int64_t c = uniform_int(rng_, 1, std::min(2, r));
        attrs["normalized_shape"] = Ints(x.end() - c, x.end());
        return;
      }
      case Op::Softmax:
      case Op::LogSoftmax: attrs["dim"] = dim(); return;
      case Op::Reshape: {
        AbstractValue in{static_cast<uint8_t>(r)};
        attrs["shape"] = factorize(rng_, t.numel(), output_variants(s, in).at(st.variant).rank);
        return;
      }
      case Op::Flatten: {
        int out_rank =
            static_cast<int>(output_variants(s, {static_cast<uint8_t>(r)}).at(st.variant).rank);
        int merged = r - out_rank + 1;
        int64_t start = uniform_int(rng_, 0, r - merged);
        attrs["start_dim"] = start;
        attrs["end_dim"] = start + merged - 1;
        return;
      }
      case Op::Permute: {
        Ints p(r);
        std::iota(p.begin(), p.end(), 0);
        Ints identity = p;
        while (p == identity) std::shuffle(p.begin(), p.end(), rng_);
        attrs["dims"] = p;
        return;
      }
      case Op::Transpose: {
        int64_t i = dim(), j = dim();
        while (j == i) j = dim();
        attrs["dim0"] = i;
        attrs["dim1"] = j;
        return;
      }
      case Op::Unsqueeze: attrs["dim"] = uniform_int(rng_, 0, r); return;
      case Op::Squeeze: {
        Ints ones;
        for (int i = 0; i < r; ++i)
          if (x[i] == 1) ones.push_back(i);
        if (ones.empty()) throw IrError("no size-1 dim to squeeze");
        attrs["dim"] = Ints{pick(rng_, ones)};
        return;
      }
      default: return;
    }
  }

  void conv_attrs(Op op, const TensorType& t, Attrs& attrs) {
    const Shape& x = t.shape;
    int n = t.rank() - 2;
    bool transposed = op >= Op::ConvTranspose1d;
    int64_t in_ch = x[1];
    int64_t out_ch = size_within_cap(sizes_.channel_lo, sizes_.channel_hi, t.numel() / in_ch);
    Ints common;
    for (int64_t d : divisors(std::gcd(in_ch, out_ch))) common.push_back(d);
    int64_t groups = pick(rng_, common);
    int64_t stride = uniform_int(rng_, 1, 2), dilation = uniform_int(rng_, 1, 2);
    int64_t smallest = *std::min_element(x.begin() + 2, x.end());
    int64_t k, pad;
    if (transposed) {
      k = uniform_int(rng_, 1, 5);
      pad = uniform_int(rng_, 0, dilation * (k - 1) / 2);
      attrs["output_padding"] = Ints(n, uniform_int(rng_, 0, std::max(stride, dilation) - 1));
    } else {
      pad = uniform_int(rng_, 0, 2);
      // The window must fit: dilation * (k - 1) + 1 <= length + 2 * padding.
      k = uniform_int(rng_, 1, std::min<int64_t>(7, (smallest + 2 * pad - 1) / dilation + 1));
    }
    attrs["in_channels"] = in_ch;
    attrs["out_channels"] = out_ch;
    attrs["kernel_size"] = Ints(n, k);
    attrs["stride"] = Ints(n, stride);
    attrs["padding"] = Ints(n, pad);
    attrs["dilation"] = Ints(n, dilation);
    attrs["groups"] = groups;
  }

  const SizePreset& sizes_;
  Rng& rng_;
  Graph g_;
  std::vector<ValueId> window_;
  std::map<std::string, int> names_;
};

}  // namespace

std::optional<Graph> build_program(const std::vector<Step>& steps, const SizePreset& sizes,
                                   std::mt19937_64& rng, int attempts) {
  for (int i = 0; i < attempts; ++i) {
    try {
      Graph g = Builder(sizes, rng).run(steps);
      if (g.flops() <= sizes.max_flops && static_cast<double>(g.bytes()) <= sizes.max_bytes &&
          find_degenerate(g).empty())
        return g;
    } catch (const IrError&) {
      // A choice the ranges above did not rule out (a rare shape corner): choose again.
    }
  }
  return std::nullopt;
}

}  // namespace drtriton
