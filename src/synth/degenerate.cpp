#include "synth/degenerate.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>

namespace drtriton {

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

// Bounds every element of a value lies within (possibly infinite).
struct Range {
  double lo = -kInf, hi = kInf;
  bool constant() const { return lo == hi && std::isfinite(lo); }
};

Range hull(Range a, Range b) {
  return {std::min(a.lo, b.lo), std::max(a.hi, b.hi)};
}

// The range of a nondecreasing function of a value in `r`.
template <typename F>
Range increasing(Range r, F f) {
  return {f(r.lo), f(r.hi)};
}

Range scaled(Range r, double c) {
  if (c == 0) return {0, 0};
  return c > 0 ? Range{r.lo * c, r.hi * c} : Range{r.hi * c, r.lo * c};
}

double sigmoid(double x) {
  return 1 / (1 + std::exp(-x));
}

// The range an op's output lies in, from its operands' ranges.
Range output_range(const Node& n, const std::vector<Range>& in, int64_t in_elements,
                   int64_t out_elements) {
  const Attrs& a = n.attrs;
  const Range& x = in.empty() ? Range{} : in[0];
  auto clamp_to = [](Range r, double lo, double hi) {
    return increasing(r, [&](double v) { return std::clamp(v, lo, hi); });
  };
  switch (n.op) {
    case Op::Relu: return increasing(x, [](double v) { return std::max(v, 0.0); });
    case Op::Sigmoid: return increasing(x, sigmoid);
    case Op::Tanh: return increasing(x, [](double v) { return std::tanh(v); });
    case Op::Erf: return increasing(x, [](double v) { return std::erf(v); });
    case Op::Exp: return increasing(x, [](double v) { return std::exp(v); });
    case Op::Hardsigmoid:
      return clamp_to(increasing(x, [](double v) { return v / 6 + 0.5; }), 0, 1);
    case Op::Hardtanh: return clamp_to(x, attr_float(a, "min_val"), attr_float(a, "max_val"));
    case Op::Clamp: return clamp_to(x, attr_float(a, "min"), attr_float(a, "max"));
    case Op::ClampMin: return clamp_to(x, attr_float(a, "min"), kInf);
    case Op::ClampMax: return clamp_to(x, -kInf, attr_float(a, "max"));
    case Op::LeakyRelu: {
      double s = attr_float(a, "negative_slope");
      return increasing(x, [s](double v) { return v < 0 ? s * v : v; });
    }
    case Op::Neg: return scaled(x, -1);
    case Op::AddScalar: return {x.lo + attr_float(a, "other"), x.hi + attr_float(a, "other")};
    case Op::SubScalar: return {x.lo - attr_float(a, "other"), x.hi - attr_float(a, "other")};
    case Op::RsubScalar: return {attr_float(a, "other") - x.hi, attr_float(a, "other") - x.lo};
    case Op::MulScalar: return scaled(x, attr_float(a, "other"));
    case Op::DivScalar: return scaled(x, 1 / attr_float(a, "other"));
    case Op::Abs:
    case Op::Square: {
      double lo = x.lo >= 0 ? x.lo : x.hi <= 0 ? -x.hi : 0, hi = std::max(-x.lo, x.hi);
      return n.op == Op::Abs ? Range{lo, hi} : Range{lo * lo, hi * hi};
    }
    case Op::Sin:
    case Op::Cos: return {-1, 1};
    case Op::Sign: return increasing(x, [](double v) { return double((v > 0) - (v < 0)); });
    case Op::Round: return increasing(x, [](double v) { return std::nearbyint(v); });
    case Op::Floor: return increasing(x, [](double v) { return std::floor(v); });
    case Op::Ceil: return increasing(x, [](double v) { return std::ceil(v); });
    case Op::Trunc: return increasing(x, [](double v) { return std::trunc(v); });
    // Activations with a floor: their minimum over all reals.
    case Op::Silu: return {-0.2785, kInf};
    case Op::Gelu: return {-0.1700, kInf};
    case Op::Mish: return {-0.3089, kInf};
    case Op::Hardswish: return {-0.375, kInf};
    case Op::Selu: return {-1.7581, kInf};
    case Op::Elu: return {-attr_float(a, "alpha"), kInf};
    case Op::Softmax: return {0, 1};
    case Op::LogSoftmax: return {-kInf, 0};
    case Op::GtScalar:
    case Op::LtScalar:
    case Op::Gt:
    case Op::Lt: {
      // a > b is always true when a.lo > b.hi and always false when a.hi <= b.lo.
      Range l = x,
            r = in.size() > 1 ? in[1] : Range{attr_float(a, "other"), attr_float(a, "other")};
      if (n.op == Op::LtScalar || n.op == Op::Lt) std::swap(l, r);
      if (l.lo > r.hi) return {1, 1};
      if (l.hi <= r.lo) return {0, 0};
      return {0, 1};
    }
    case Op::Add: return {in[0].lo + in[1].lo, in[0].hi + in[1].hi};
    case Op::Sub: return {in[0].lo - in[1].hi, in[0].hi - in[1].lo};
    case Op::Mul:
      if (in[0].constant() && in[0].lo == 0) return {0, 0};
      if (in[1].constant() && in[1].lo == 0) return {0, 0};
      break;
    case Op::Maximum: return {std::max(in[0].lo, in[1].lo), std::max(in[0].hi, in[1].hi)};
    case Op::Minimum: return {std::min(in[0].lo, in[1].lo), std::min(in[0].hi, in[1].hi)};
    case Op::Where:
      if (in[0].constant()) return in[0].lo != 0 ? in[1] : in[2];
      return hull(in[1], in[2]);
    case Op::Logsumexp: {
      // Between the largest element and it plus log(n).
      double n = static_cast<double>(in_elements) / std::max<double>(out_elements, 1);
      return {x.lo, x.hi + std::log(n)};
    }
    case Op::Sum:
    case Op::Cumsum:
      if (x.constant() && x.lo == 0) return {0, 0};
      break;
    // Average pools may count zero padding.
    case Op::AvgPool1d:
    case Op::AvgPool2d:
    case Op::AvgPool3d: return hull(x, {0, 0});
    default: break;
  }
  switch (n.schema().out_domain) {
    case OutDomain::Positive:
    case OutDomain::NonNegative: return {0, kInf};
    case OutDomain::SameAsInputs: {
      Range r = x;
      for (const Range& o : in) r = hull(r, o);
      return r;
    }
    case OutDomain::Real: break;
  }
  return {};
}

std::vector<int64_t> nonneg_dims(std::vector<int64_t> dims, int rank) {
  for (int64_t& d : dims) d = d < 0 ? d + rank : d;
  return dims;
}

// The dims a normalization (or softmax) takes its statistics over; empty for other ops.
std::vector<int64_t> statistic_dims(const Node& n, const Graph& g) {
  int r = g.value(n.inputs[0]).type.rank();
  std::vector<int64_t> d;
  auto from = [&](int first) {
    for (int i = first; i < r; ++i) d.push_back(i);
  };
  switch (n.op) {
    case Op::BatchNorm1d:
    case Op::BatchNorm2d:
    case Op::BatchNorm3d:
      d.push_back(0);
      from(2);
      break;
    case Op::InstanceNorm2d:
    case Op::InstanceNorm3d: from(2); break;
    case Op::GroupNorm: from(1); break;  // all of one group's channels and positions
    case Op::LayerNorm:
    case Op::RmsNorm:  // over one element, x / sqrt(x^2 + eps) is its sign
      from(r - static_cast<int>(attr_ints(n.attrs, "normalized_shape").size()));
      break;
    case Op::Softmax:
    case Op::LogSoftmax: d.push_back(nonneg_dims({attr_int(n.attrs, "dim")}, r)[0]); break;
    default: break;
  }
  return d;
}

// Whether a node's output is constant whatever its input, by its shapes: statistics over
// one element, an arg-reduction over a dim of size 1, or a reduction that undoes the
// normalization that made its input (the sum of a softmax along its dim is 1; the mean of
// a layer norm over its normalized dims is its bias).
std::string constant_by_shape(const Node& n, const Graph& g) {
  if (n.inputs.empty()) return "";
  const Shape& x = g.value(n.inputs[0]).type.shape;
  const int r = static_cast<int>(x.size());
  auto elements = [&](const std::vector<int64_t>& dims) {
    int64_t e = 1;
    for (int64_t d : dims) e *= x[d];
    return e;
  };
  std::vector<int64_t> stats = statistic_dims(n, g);
  int64_t per_stat = elements(stats);
  if (n.op == Op::GroupNorm) per_stat /= attr_int(n.attrs, "num_groups");
  if (!stats.empty() && per_stat == 1) return "takes its statistics over a single element";
  if (n.schema().category != Category::Reduction || n.op == Op::Cumsum) return "";
  const AttrValue& dim_attr = n.attrs.at("dim");
  std::vector<int64_t> dims = nonneg_dims(std::holds_alternative<int64_t>(dim_attr)
                                              ? std::vector<int64_t>{std::get<int64_t>(dim_attr)}
                                              : std::get<std::vector<int64_t>>(dim_attr),
                                          r);
  if ((n.op == Op::Argmax || n.op == Op::Argmin) && elements(dims) == 1)
    return "picks among a single element";
  if ((n.op == Op::Var || n.op == Op::Std) && elements(dims) <= 1)
    return "is the spread of a single element";
  const Value& in = g.value(n.inputs[0]);
  if (in.kind != ValueKind::Node) return "";
  const Node& producer = g.nodes()[in.node];
  std::vector<int64_t> made = statistic_dims(producer, g);
  bool undoes = producer.op == Op::Softmax      ? n.op == Op::Sum || n.op == Op::Mean
                : producer.op == Op::LogSoftmax ? n.op == Op::Logsumexp
                : producer.op == Op::RmsNorm
                    ? false
                    : n.op == Op::Sum || n.op == Op::Mean || n.op == Op::Var || n.op == Op::Std;
  bool covers = !made.empty() && std::all_of(made.begin(), made.end(), [&](int64_t d) {
    return std::find(dims.begin(), dims.end(), d) != dims.end();
  });
  if (undoes && covers) return "undoes the " + producer.schema().name + " that made its input";
  return "";
}

}  // namespace

std::string find_degenerate(const Graph& g) {
  const size_t n_values = g.values().size();
  std::vector<Range> range(n_values);
  std::vector<uint64_t> deps(n_values, 0);  // bit i: may depend on graph input i
  std::vector<int> number(n_values);        // equal numbers: provably equal values
  std::map<std::string, int> numbers;
  int next_number = 0;
  std::string erased;  // the first constant node that dropped a dependence, for the message
  if (g.inputs().size() > 64) return "";  // beyond the mask; no synthetic program has that many
  for (ValueId v = 0; v < static_cast<ValueId>(n_values); ++v) {
    const Value& val = g.value(v);
    if (val.kind == ValueKind::Node) continue;
    number[v] = next_number++;
    if (val.init == Init::Positive) range[v] = {0.1, 1.1};
  }
  for (size_t i = 0; i < g.inputs().size(); ++i) deps[g.inputs()[i]] = uint64_t{1} << i;
  for (const Node& n : g.nodes()) {
    const OpSchema& s = n.schema();
    std::vector<Range> in;
    std::string key = s.name + "|" + n.module;
    uint64_t d = 0;
    for (ValueId v : n.inputs) {
      in.push_back(range[v]);
      key += "|" + std::to_string(number[v]);
      d |= deps[v];
    }
    for (const auto& [name, value] : n.attrs) key += "|" + name + "=" + attr_to_string(value);
    auto [it, fresh] = numbers.emplace(key, next_number);
    next_number += fresh;
    number[n.output] = it->second;
    std::string name = "%" + g.value(n.output).name + " = " + s.name;
    if (s.category == Category::Binary) {
      bool where = n.op == Op::Where;
      if (number[n.inputs[where ? 1 : 0]] == number[n.inputs[where ? 2 : 1]])
        return name + " applies a binary op to one value twice";
    }
    Range r =
        output_range(n, in, g.value(n.inputs[0]).type.numel(), g.value(n.output).type.numel());
    std::string why = constant_by_shape(n, g);
    if (r.constant() || !why.empty()) {
      if (d != 0 && erased.empty())
        erased = name + (why.empty() ? " is constant on every input" : " " + why);
      d = 0;  // a constant depends on nothing
    } else if (n.op == Op::Where && in[0].constant()) {
      d = deps[n.inputs[in[0].lo != 0 ? 1 : 2]];
    }
    range[n.output] = r;
    deps[n.output] = d;
  }
  for (ValueId out : g.outputs()) {
    for (size_t i = 0; i < g.inputs().size(); ++i) {
      if (!(deps[out] >> i & 1))
        return "output %" + g.value(out).name + " does not depend on input %" +
               g.value(g.inputs()[i]).name + (erased.empty() ? "" : " (" + erased + ")");
    }
  }
  return "";
}

}  // namespace drtriton
