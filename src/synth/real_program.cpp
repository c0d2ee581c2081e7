#include "synth/real_program.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <numeric>

#include "synth/degenerate.h"
#include "synth/structure.h"

namespace drtriton {

namespace {

using Rng = std::mt19937_64;
using Ints = std::vector<int64_t>;

// What the current value holds, which decides the ops a real model applies to it:
// features [B, F]; tokens [B, T, D]; channels and positions [B, C, S...].
enum class Kind { Vector, Tokens, Spatial };

// A choice that does not fit the program built so far: the caller tries another.
struct Skip {};

struct Facts {
  ValueDomain domain = ValueDomain::Real;
  bool bounded = true;
};

// The program so far. An idiom is tried on a copy, which replaces it only if every op applied.
struct Draft {
  Graph g;
  ValueId cur = -1;   // the current value
  ValueId skip = -1;  // the current tail's input (residual connections)
  Kind kind = Kind::Vector;
  bool channels_last = false;  // a Spatial value permuted to [B, S..., C]
  std::vector<Facts> facts;    // by ValueId
  std::map<std::string, int> names;
};

int64_t uniform(Rng& rng, int64_t lo, int64_t hi) {
  return std::uniform_int_distribution<int64_t>(lo, std::max(lo, hi))(rng);
}

bool chance(Rng& rng, double p) {
  return std::uniform_real_distribution<double>(0, 1)(rng) < p;
}

double log_uniform(Rng& rng, double lo, double hi) {
  return std::exp(
      std::uniform_real_distribution<double>(std::log(lo), std::log(std::max(lo, hi)))(rng));
}

template <typename T>
const T& pick(Rng& rng, const std::vector<T>& v) {
  return v[static_cast<size_t>(uniform(rng, 0, static_cast<int64_t>(v.size()) - 1))];
}

// An index drawn by weight, or -1 when every weight is zero.
int pick_weighted(Rng& rng, const std::vector<double>& w) {
  double total = std::accumulate(w.begin(), w.end(), 0.0);
  if (total <= 0) return -1;
  double r = std::uniform_real_distribution<double>(0, total)(rng);
  for (size_t i = 0; i < w.size(); ++i) {
    if (r < w[i]) return static_cast<int>(i);
    r -= w[i];
  }
  for (size_t i = w.size(); i-- > 0;)
    if (w[i] > 0) return static_cast<int>(i);
  return -1;
}

Ints divisors(int64_t n) {
  Ints d;
  for (int64_t i = 1; i <= n; ++i)
    if (n % i == 0) d.push_back(i);
  return d;
}

// The rank an op needs exactly (conv2d: 4), or 0 when it takes several.
int needed_rank(Op op) {
  const OpSchema& s = op_schema(op);
  return s.min_rank == s.max_rank && s.min_rank >= 3 ? s.min_rank : 0;
}

bool is_conv(Op op) {
  return op >= Op::Conv1d && op <= Op::ConvTranspose3d;
}

class RealBuilder {
 public:
  RealBuilder(const RealTable& t, const SizePreset& preset, Rng& rng, std::optional<Op> target,
              double elems)
      : t_(t),
        z_(t.sizes_for(preset.name)),
        rng_(rng),
        target_(target),
        elems_(elems),
        max_flops_(preset.max_flops),
        max_bytes_(preset.max_bytes) {}

  Graph run(const RealTemplate& tp, int difficulty) {
    // Plan: draw the family blocks' idioms, then share what is left among the tails.
    std::vector<const RealIdiom*> idioms(tp.blocks.size(), nullptr);
    std::vector<int> budget(tp.blocks.size(), 0);
    std::vector<size_t> tails;
    int fixed = 0;
    for (size_t i = 0; i < tp.blocks.size(); ++i) {
      const RealBlock& b = tp.blocks[i];
      if (b.kind == "family") {
        const RealFamily& f = t_.families.at(b.family);
        std::vector<double> w;
        for (const RealIdiom& idiom : f.idioms) w.push_back(idiom.weight);
        int k = pick_weighted(rng_, w);
        if (k < 0) throw Skip{};
        idioms[i] = &f.idioms[k];
        fixed += idioms[i]->cost;
      } else if (b.kind == "idiom") {
        idioms[i] = &b.idiom;
        fixed += b.idiom.cost;
      } else if (b.kind == "tail") {
        tails.push_back(i);
      } else {
        fixed += real_block_cost(b.kind);
      }
    }
    int left = difficulty - fixed;
    if (left < 0 || (left > 0 && tails.empty())) throw Skip{};
    for (int k = 0; k < left; ++k)
      ++budget[tails[uniform(rng_, 0, static_cast<int64_t>(tails.size()) - 1)]];
    for (size_t i = 0; i < tp.blocks.size(); ++i) {
      const RealBlock& b = tp.blocks[i];
      bool last_tail = !tails.empty() && i == tails.back();
      if (d_.cur < 0) make_input(b);
      if (idioms[i]) {
        apply_idiom(*idioms[i], false);
      } else if (b.kind == "tail") {
        tail(budget[i], last_tail);
      } else {
        block(b.kind);
      }
    }
    d_.g.set_outputs({d_.cur});
    return std::move(d_.g);
  }

 private:
  std::string unique(const std::string& base) {
    int n = ++d_.names[base];
    return n == 1 ? base : base + std::to_string(n);
  }

  const TensorType& type(ValueId v) const { return d_.g.value(v).type; }
  const Shape& shape() const { return type(d_.cur).shape; }
  int rank() const { return type(d_.cur).rank(); }

  // A size in `r` near `want`, a multiple of 8 as people choose them when it is large enough.
  int64_t size_near(const RealRange& r, double want) {
    int64_t v = std::clamp<int64_t>(static_cast<int64_t>(std::llround(want)), r.lo, r.hi);
    if (v >= 16 && chance(rng_, 0.8)) v = std::clamp<int64_t>(v / 8 * 8, r.lo, r.hi);
    return v;
  }
  int64_t size_in(const RealRange& r) { return size_near(r, log_uniform(rng_, r.lo, r.hi)); }

  ValueId track(ValueId v, Facts f) {
    d_.facts.resize(d_.g.values().size());
    d_.facts[v] = f;
    return v;
  }

  ValueId add_input(const std::string& base, const Shape& s, bool positive = false) {
    ValueId v =
        d_.g.add_input(unique(base), {DType::F32, s}, positive ? Init::Positive : Init::Normal);
    return track(v, {positive ? ValueDomain::Positive : ValueDomain::Real, true});
  }

  ValueId add_param(const std::string& base, const Shape& s, bool positive = false) {
    ValueId v =
        d_.g.add_param(unique(base), {DType::F32, s}, positive ? Init::Positive : Init::Normal);
    return track(v, {positive ? ValueDomain::Positive : ValueDomain::Real, true});
  }

  // One node through the factory, with the attributes no rule here chose drawn as the
  // uniform sampler draws them; its facts from the op table's.
  ValueId node(Op op, const std::vector<ValueId>& ins, Attrs attrs = {}) {
    const OpSchema& s = op_schema(op);
    for (const AttrSpec& a : s.attrs) {
      if (attrs.count(a.name)) continue;
      if (a.type == AttrType::Float) attrs[a.name] = sample_float_attr(rng_, op, a.name);
      if (a.type == AttrType::Bool) {
        bool def = a.default_value && std::get<bool>(*a.default_value);
        attrs[a.name] = chance(rng_, 0.85) ? def : !def;
      }
      if (a.type == AttrType::Str && !a.choices.empty()) attrs[a.name] = pick(rng_, a.choices);
    }
    std::string module = s.needs_module() ? unique(module_prefix(op)) : "";
    ValueId out = d_.g.add_node(op, ins, attrs, module);
    size_t first = op == Op::Where ? 1 : 0;
    Facts a = d_.facts[ins[first]], b = ins.size() > first + 1 ? d_.facts[ins[first + 1]] : a;
    return track(out,
                 {output_domain(s, a.domain, b.domain), output_bounded(s, a.bounded && b.bounded)});
  }

  void set_cur(ValueId v, Kind k) {
    d_.cur = v;
    d_.kind = k;
  }

  // The kind of a value of rank r that lost its layout (after a reduction).
  static Kind kind_of_rank(int r) {
    return r <= 2 ? Kind::Vector : r == 3 ? Kind::Tokens : Kind::Spatial;
  }

  // ---- The program's input, shaped for its first block ---------------------------------

  int spatial_dims_by_weight(bool transposed) {
    Op first = transposed ? Op::ConvTranspose1d : Op::Conv1d;
    if (target_ && needed_rank(*target_)) return needed_rank(*target_) - 2;
    std::vector<double> w(3, 0);
    for (const auto& [op, weight] : t_.anchors)
      if (op >= first && op <= static_cast<Op>(static_cast<int>(first) + 2))
        w[static_cast<int>(op) - static_cast<int>(first)] = weight;
    int k = pick_weighted(rng_, w);
    return k < 0 ? 2 : k + 1;
  }

  void input_of_kind(Kind kind, int n = 2, int64_t features = 0) {
    int64_t b = size_in(z_.batch);
    Shape s;
    if (kind == Kind::Vector) {
      s = {b, features ? features : size_near(z_.features, elems_ / b)};
    } else if (kind == Kind::Tokens) {
      int64_t dim = features ? features : size_in(z_.features);
      s = {b, size_near(z_.tokens, elems_ / (b * dim)), dim};
    } else {
      int64_t c = chance(rng_, 0.3) ? 3 : size_in(z_.channels);
      s = {b, c};
      int64_t side = static_cast<int64_t>(std::pow(elems_ / (b * c), 1.0 / n));
      for (int i = 0; i < n; ++i) s.push_back(std::clamp(side, z_.spatial.lo, z_.spatial.hi));
    }
    set_cur(add_input("x", s), kind);
  }

  // Drawn among the table's anchors that fit the current value (any, for the first).
  Op draw_anchor() {
    std::vector<double> w;
    bool force = target_ && op_schema(*target_).category == Category::Anchor;
    for (const auto& [op, weight] : t_.anchors) {
      bool fits = d_.cur < 0 ? !(target_ && needed_rank(*target_)) ||
                                   needed_rank(op) == needed_rank(*target_)
                             : anchor_fits(op);
      w.push_back(fits && (!force || op == *target_) ? weight : 0);
    }
    int k = pick_weighted(rng_, w);
    if (k < 0) throw Skip{};
    return t_.anchors[k].first;
  }

  bool anchor_fits(Op op) const {
    if (is_conv(op))
      return d_.kind == Kind::Spatial && !d_.channels_last && rank() == needed_rank(op);
    if (op == Op::Bmm) return d_.kind == Kind::Tokens;
    if (op == Op::Addmm) return d_.kind == Kind::Vector && rank() == 2;
    return d_.kind != Kind::Spatial;  // linear, matmul: over the features
  }

  Op first_anchor_ = Op::Identity;  // the anchor an "anchor" block drew before the input

  void make_input(const RealBlock& b) {
    const std::string& k = b.kind;
    auto conv_input = [&](bool transposed) {
      input_of_kind(Kind::Spatial, spatial_dims_by_weight(transposed));
    };
    auto features_input = [&](Op op) {
      if (is_conv(op)) return input_of_kind(Kind::Spatial, needed_rank(op) - 2);
      bool tokens = op == Op::Bmm || (op == Op::Linear && chance(rng_, 0.35)) ||
                    (op == Op::Matmul && chance(rng_, 0.2));
      input_of_kind(tokens ? Kind::Tokens : Kind::Vector);
    };
    if (k == "anchor") {
      first_anchor_ = draw_anchor();
      features_input(first_anchor_);
    } else if (k == "linear" || k == "matmul" || k == "bmm" || k == "addmm") {
      features_input(k == "linear"   ? Op::Linear
                     : k == "matmul" ? Op::Matmul
                     : k == "bmm"    ? Op::Bmm
                                     : Op::Addmm);
    } else if (k == "conv" || k == "residual" || (k == "branches" && chance(rng_, 0.8))) {
      conv_input(false);
    } else if (k == "conv_transpose") {
      conv_input(true);
    } else if (k == "attention" || k == "mlp") {
      // The block's weights (about 12 D^2 values) take at most half of the byte budget.
      int64_t head = size_in(z_.head_dim), heads = 1;
      double widest = std::min<double>(z_.features.hi, std::sqrt(max_bytes_ / 96));
      while (heads < 16 && heads * 2 * head <= widest && chance(rng_, 0.7)) heads *= 2;
      input_of_kind(k == "mlp" && chance(rng_, 0.3) ? Kind::Vector : Kind::Tokens, 2, heads * head);
    } else if (k == "attention_1head" || k == "seq_conv") {
      input_of_kind(Kind::Tokens);
    } else if (k == "idiom" && b.idiom.tokens[0].ops[0] == Op::Unsqueeze) {
      input_of_kind(Kind::Vector);
    } else {
      // A tail or an idiom first: features, tokens or positions, as programs without an anchor
      // have.
      int n = target_ && needed_rank(*target_) ? needed_rank(*target_) - 2 : 0;
      std::vector<double> w = {0.35, 0.25, 0.25, 0.075, 0.075};
      int c = n ? 1 + n : pick_weighted(rng_, w);
      if (c == 0)
        input_of_kind(Kind::Vector);
      else if (c == 1)
        input_of_kind(Kind::Tokens);
      else
        input_of_kind(Kind::Spatial, c == 2 ? 2 : c == 3 ? 1 : 3);
    }
  }

  // ---- Anchors --------------------------------------------------------------------------

  // A width (features, channels) that keeps the output near the target size and the op's
  // FLOPs (`flops_per_unit` per unit of width) within a third of the budget.
  int64_t width_for(const RealRange& r, double positions, double flops_per_unit) {
    double want = std::min(elems_ / std::max(positions, 1.0), max_flops_ / 3 / flops_per_unit);
    return size_near(r, want);
  }
  int64_t features_for(int64_t rows, int64_t in) {
    return width_for(z_.features, static_cast<double>(rows), 2.0 * static_cast<double>(rows * in));
  }

  ValueId linear(ValueId x, int64_t out, const char* module = nullptr) {
    Attrs a = {
        {"in_features", type(x).shape.back()}, {"out_features", out}, {"bias", chance(rng_, 0.9)}};
    if (!module) return node(Op::Linear, {x}, a);
    ValueId v = d_.g.add_node(Op::Linear, {x}, a, unique(module));
    return track(v, {ValueDomain::Real, false});
  }

  void anchor(Op op) {
    if (!anchor_fits(op)) throw Skip{};
    const Shape x = shape();
    int64_t rows = type(d_.cur).numel() / x.back(), k = x.back();
    ValueId out;
    switch (op) {
      case Op::Linear: out = linear(d_.cur, features_for(rows, k)); break;
      case Op::Matmul: {
        // Two inputs for a program's first GEMM (torch.matmul(A, B)); a weight after that.
        int64_t n = features_for(rows, k);
        bool first = d_.g.nodes().empty();
        ValueId w = first ? add_input("w", {k, n}) : add_param("weight", {k, n});
        out = node(Op::Matmul, {d_.cur, w});
        break;
      }
      case Op::Bmm:
        out = node(Op::Bmm, {d_.cur, add_input("y", {x[0], k, features_for(rows, k)})});
        break;
      case Op::Addmm: {
        int64_t n = features_for(rows, k);
        out = node(Op::Addmm, {add_param("bias", {n}), d_.cur, add_param("weight", {k, n})});
        break;
      }
      default: out = conv(op); break;
    }
    d_.facts[out] = {ValueDomain::Real, false};
    d_.cur = out;
  }

  // A convolution or transposed convolution with the attributes real blocks use.
  ValueId conv(Op op, int64_t out_channels = 0, int64_t kernel = 0) {
    const Shape x = shape();
    int n = rank() - 2;
    bool transposed = op >= Op::ConvTranspose1d;
    int64_t smallest = *std::min_element(x.begin() + 2, x.end());
    int64_t k, stride, pad, dilation = 1, out_pad = 0;
    if (kernel) {  // a block's "same" convolution
      k = kernel, stride = 1, pad = kernel / 2;
    } else if (transposed) {
      k = pick(rng_, Ints{2, 3, 4, 3});
      stride = chance(rng_, 0.6) ? 2 : 1;
      pad = chance(rng_, 0.5) ? (k - 1) / 2 : 0;
      out_pad = stride == 2 && chance(rng_, 0.3) ? 1 : 0;
    } else {
      k = pick(rng_, Ints{1, 3, 3, 3, 5});
      stride = chance(rng_, 0.25) ? 2 : 1;
      pad = chance(rng_, 0.6) ? k / 2 : 0;
      dilation = chance(rng_, 0.1) ? 2 : 1;
      if (dilation * (k - 1) + 1 > smallest + 2 * pad) throw Skip{};
    }
    int64_t out_positions = x[0];
    for (int i = 0; i < n; ++i) {
      int64_t s = x[2 + i];
      out_positions *= transposed ? (s - 1) * stride - 2 * pad + dilation * (k - 1) + out_pad + 1
                                  : (s + 2 * pad - dilation * (k - 1) - 1) / stride + 1;
    }
    int64_t in = x[1];
    int64_t out = out_channels
                      ? out_channels
                      : width_for(z_.channels, static_cast<double>(out_positions),
                                  2.0 * static_cast<double>(out_positions * in) * std::pow(k, n));
    int64_t groups = 1;
    if (!kernel && chance(rng_, 0.1)) groups = pick(rng_, divisors(std::gcd(in, out)));
    Attrs a = {{"in_channels", in},         {"out_channels", out},
               {"kernel_size", Ints(n, k)}, {"stride", Ints(n, stride)},
               {"padding", Ints(n, pad)},   {"dilation", Ints(n, dilation)},
               {"groups", groups},          {"bias", chance(rng_, 0.9)}};
    if (transposed) a["output_padding"] = Ints(n, out_pad);
    return node(op, {d_.cur}, a);
  }

  // ---- Blocks ---------------------------------------------------------------------------

  // A conv of the current value's rank.
  Op conv_of_rank(bool transposed) const {
    return static_cast<Op>(static_cast<int>(transposed ? Op::ConvTranspose1d : Op::Conv1d) +
                           rank() - 3);
  }

  void activation() {
    auto it = t_.families.find("activation");
    std::vector<const RealIdiom*> single;
    std::vector<double> w;
    if (it != t_.families.end()) {
      for (const RealIdiom& idiom : it->second.idioms) {
        if (idiom.tokens.size() != 1) continue;
        single.push_back(&idiom);
        w.push_back(idiom.weight);
      }
    }
    int k = pick_weighted(rng_, w);
    d_.cur = k < 0 ? node(Op::Relu, {d_.cur}) : token(single[k]->tokens[0], d_.cur);
  }

  void block(const std::string& kind) {
    if (kind == "anchor") {
      anchor(first_anchor_ != Op::Identity ? first_anchor_ : draw_anchor());
      first_anchor_ = Op::Identity;
    } else if (kind == "linear") {
      anchor(Op::Linear);
    } else if (kind == "matmul") {
      anchor(Op::Matmul);
    } else if (kind == "bmm") {
      anchor(Op::Bmm);
    } else if (kind == "addmm") {
      anchor(Op::Addmm);
    } else if (kind == "conv" || kind == "conv_transpose") {
      if (d_.kind != Kind::Spatial || d_.channels_last) throw Skip{};
      anchor(conv_of_rank(kind == "conv_transpose"));
    } else if (kind == "residual") {
      residual();
    } else if (kind == "mlp") {
      mlp();
    } else if (kind == "attention") {
      attention();
    } else if (kind == "attention_1head") {
      attention_1head();
    } else if (kind == "branches") {
      branches();
    } else if (kind == "seq_conv") {
      seq_conv();
    } else {
      throw std::logic_error("internal: no builder for block kind '" + kind + "'");
    }
  }

  // conv, norm, activation, conv, norm, + input, activation (a ResNet basic block).
  void residual() {
    if (d_.kind != Kind::Spatial || d_.channels_last) throw Skip{};
    ValueId s = d_.cur;
    int64_t c = shape()[1];
    bool group = chance(rng_, 0.3) && c % 2 == 0;
    Op bn = static_cast<Op>(static_cast<int>(Op::BatchNorm1d) + rank() - 3);
    auto norm = [&] {
      Attrs a =
          group ? Attrs{{"num_channels", c}, {"num_groups", c / 2}} : Attrs{{"num_features", c}};
      d_.cur = node(group ? Op::GroupNorm : bn, {d_.cur}, a);
    };
    for (int i = 0; i < 2; ++i) {
      d_.cur = conv(conv_of_rank(false), c, 3);
      norm();
      if (i == 0) activation();
    }
    d_.cur = node(Op::Add, {d_.cur, s});
    activation();
  }

  // layer norm, linear up, activation, linear down, + input (a transformer's MLP).
  void mlp() {
    if (d_.kind == Kind::Spatial) throw Skip{};
    ValueId s = d_.cur;
    int64_t dim = shape().back();
    d_.cur = node(Op::LayerNorm, {d_.cur}, {{"normalized_shape", Ints{dim}}});
    d_.cur = linear(d_.cur, size_near(z_.features, dim * pick(rng_, Ints{2, 4})));
    activation();
    d_.cur = linear(d_.cur, dim);
    d_.cur = node(Op::Add, {d_.cur, s});
  }

  // Heads of a [B, T, D] value: D = heads * head_dim.
  std::pair<int64_t, int64_t> heads_of(int64_t dim) {
    Ints fit;
    for (int64_t h : divisors(dim))
      if (h >= z_.head_dim.lo && h <= z_.head_dim.hi) fit.push_back(h);
    int64_t head = fit.empty() ? dim : pick(rng_, fit);
    return {dim / head, head};
  }

  ValueId layout(Op op, ValueId x, Attrs a) {
    return track(d_.g.add_node(op, {x}, a), d_.facts[x]);
  }

  // Multi-head self-attention with a pre-norm and a residual connection.
  void attention() {
    if (d_.kind != Kind::Tokens) throw Skip{};
    const Shape x = shape();
    int64_t b = x[0], tokens = x[1], dim = x[2];
    auto [heads, head] = heads_of(dim);
    ValueId s = d_.cur;
    ValueId h = node(Op::LayerNorm, {d_.cur}, {{"normalized_shape", Ints{dim}}});
    ValueId q = linear(h, dim, "q_proj"), k = linear(h, dim, "k_proj"),
            v = linear(h, dim, "v_proj");
    Ints split = {b, tokens, heads, head};
    q = layout(Op::Transpose, layout(Op::Reshape, q, {{"shape", split}}),
               {{"dim0", int64_t{1}}, {"dim1", int64_t{2}}});
    k = layout(Op::Permute, layout(Op::Reshape, k, {{"shape", split}}),
               {{"dims", Ints{0, 2, 3, 1}}});
    v = layout(Op::Transpose, layout(Op::Reshape, v, {{"shape", split}}),
               {{"dim0", int64_t{1}}, {"dim1", int64_t{2}}});
    ValueId scores = node(Op::Matmul, {q, k});
    scores = node(Op::MulScalar, {scores}, {{"other", 1 / std::sqrt(static_cast<double>(head))}});
    ValueId p = node(Op::Softmax, {scores}, {{"dim", int64_t{3}}});
    ValueId o = node(Op::Matmul, {p, v});
    o = layout(Op::Transpose, o, {{"dim0", int64_t{1}}, {"dim1", int64_t{2}}});
    o = layout(Op::Reshape, o, {{"shape", Ints{b, tokens, dim}}});
    o = linear(o, dim, "out_proj");
    d_.cur = node(Op::Add, {o, s});
  }

  // One head, with torch.bmm: softmax(q k^T / sqrt(d)) v.
  void attention_1head() {
    if (d_.kind != Kind::Tokens) throw Skip{};
    int64_t dim = shape()[2];
    ValueId x = d_.cur;
    ValueId q = linear(x, dim, "q_proj"), k = linear(x, dim, "k_proj"),
            v = linear(x, dim, "v_proj");
    k = layout(Op::Transpose, k, {{"dim0", int64_t{1}}, {"dim1", int64_t{2}}});
    ValueId scores = node(Op::Bmm, {q, k});
    scores = node(Op::MulScalar, {scores}, {{"other", 1 / std::sqrt(static_cast<double>(dim))}});
    ValueId p = node(Op::Softmax, {scores}, {{"dim", int64_t{2}}});
    d_.cur = node(Op::Bmm, {p, v});
  }

  // Two parallel anchors over one value, concatenated (Inception's branches).
  void branches() {
    ValueId x = d_.cur;
    ValueId a, b;
    if (d_.kind == Kind::Spatial && !d_.channels_last) {
      double positions = static_cast<double>(type(x).numel() / shape()[1]);
      a = conv(conv_of_rank(false), size_near(z_.channels, elems_ / positions / 2), 1);
      b = conv(conv_of_rank(false), size_near(z_.channels, elems_ / positions / 2), 3);
    } else if (d_.kind != Kind::Spatial) {
      int64_t rows = type(x).numel() / shape().back();
      a = linear(x, size_near(z_.features, elems_ / static_cast<double>(rows) / 2));
      b = linear(x, size_near(z_.features, elems_ / static_cast<double>(rows) / 2));
    } else {
      throw Skip{};
    }
    int64_t dim = d_.kind == Kind::Spatial ? 1 : rank() - 1;
    Facts f = {ValueDomain::Real, false};
    d_.cur = track(d_.g.add_node(Op::Cat, {a, b}, {{"dim", dim}}), f);
  }

  // A 1-d convolution over a sequence: [B, T, D] -> [B, D, T] -> conv1d -> [B, T, D'].
  void seq_conv() {
    if (d_.kind != Kind::Tokens) throw Skip{};
    d_.cur = layout(Op::Transpose, d_.cur, {{"dim0", int64_t{1}}, {"dim1", int64_t{2}}});
    d_.kind = Kind::Spatial;
    d_.cur = conv(Op::Conv1d, size_near(z_.channels, shape()[1]), 3);
    d_.cur = layout(Op::Transpose, d_.cur, {{"dim0", int64_t{1}}, {"dim1", int64_t{2}}});
    d_.kind = Kind::Tokens;
  }

  // ---- Idioms and tails -----------------------------------------------------------------

  // A param shaped like real biases and scales: per channel, per feature, or one number.
  ValueId param_like(ValueId x, const char* base, bool positive) {
    const Shape& s = type(x).shape;
    Shape p = {1};
    if (d_.kind == Kind::Spatial && !d_.channels_last && s.size() >= 3 && chance(rng_, 0.75)) {
      p = Shape(s.size() - 1, 1);
      p[0] = s[1];
    } else if (s.size() >= 2 && chance(rng_, 0.75)) {
      p = {s.back()};
    }
    return add_param(base, p, positive);
  }

  // The dims a reduction or softmax works on, never the batch.
  Ints dims_for(const RealToken& tk, bool one) {
    const int r = rank();
    bool spatial = d_.kind == Kind::Spatial && !d_.channels_last && r >= 3;
    std::string which = tk.dims;
    if (which.empty()) {
      which = spatial ? (chance(rng_, 0.5) ? "spatial" : "channel")
                      : (d_.kind == Kind::Tokens && chance(rng_, 0.3) ? "channel" : "last");
    }
    Ints dims;
    if (which == "spatial") {
      if (!spatial) throw Skip{};
      for (int i = 2; i < r; ++i) dims.push_back(i);
    } else {
      dims = {which == "channel" ? 1 : r - 1};
    }
    if (r < 2 || dims[0] == 0) throw Skip{};
    if (one) dims = {pick(rng_, dims)};
    return dims;
  }

  // Applies one op of an idiom to the current value; `prev` is the idiom's input.
  ValueId token(const RealToken& tk, ValueId prev) {
    const int r = rank();
    Op op = Op::Identity;
    for (Op o : tk.ops)
      if (r >= op_schema(o).min_rank && r <= op_schema(o).max_rank) op = o;
    if (op == Op::Identity) throw Skip{};
    const OpSchema& s = op_schema(op);
    const Facts f = d_.facts[d_.cur];
    const bool is_bool = type(d_.cur).dtype == DType::Bool;
    if (is_bool != (op == Op::Where) || type(d_.cur).dtype == DType::I64) throw Skip{};
    if (s.domain != Domain::Any && s.domain_input == 0 && !satisfies(f.domain, s.domain))
      throw Skip{};
    if (s.needs_bounded_input && !f.bounded) throw Skip{};
    // A positive value of large magnitude may have underflowed to zero (softplus of -100):
    // log, rsqrt and reciprocal only see bounded ones.
    if (s.domain != Domain::Any && s.domain != Domain::NonNegative && s.domain_input == 0 &&
        !f.bounded)
      throw Skip{};
    const Shape x = shape();
    const bool spatial = d_.kind == Kind::Spatial && !d_.channels_last;
    const bool last_is_feature = d_.kind != Kind::Spatial || d_.channels_last;
    ValueId cur = d_.cur;
    Attrs a;
    switch (s.category) {
      case Category::Binary: {
        if (op == Op::Where) {
          if (type(prev).shape != x || type(prev).dtype != DType::F32) throw Skip{};
          return node(op, {cur, prev, param_like(prev, "fill", false)});
        }
        bool positive = s.domain != Domain::Any && s.domain_input == 1;
        ValueId other;
        if (tk.operand == "param") {
          other = param_like(cur,
                             op == Op::Gt || op == Op::Lt     ? "threshold"
                             : op == Op::Add || op == Op::Sub ? "bias"
                                                              : "scale",
                             positive);
        } else if (tk.operand == "input") {
          other = add_input("y", x, positive);
        } else {
          other = tk.operand == "prev" ? prev : d_.skip;
          if (other < 0 || other == cur || type(other).shape != x ||
              type(other).dtype != DType::F32)
            throw Skip{};
          if (positive && !satisfies(d_.facts[other].domain, s.domain)) throw Skip{};
        }
        return node(op, {cur, other});
      }
      case Category::Reduction: {
        bool one = s.find_attr("dim")->type == AttrType::Int;
        Ints dims = dims_for(tk, one);
        // The least of many non-negative values is all but surely 0 (min of a relu).
        if ((op == Op::Min || op == Op::Amin) && f.domain != ValueDomain::Real) throw Skip{};
        // A product of many factors overflows or vanishes in float32.
        if (op == Op::Prod && x[dims[0]] > 8) throw Skip{};
        a["dim"] = one ? AttrValue(dims[0]) : AttrValue(dims);
        if (op != Op::Cumsum) a["keepdim"] = tk.keep || chance(rng_, 0.2);
        if (s.find_attr("correction")) a["correction"] = int64_t{chance(rng_, 0.5) ? 1 : 0};
        ValueId out = node(op, {cur}, a);
        if (op != Op::Cumsum && !std::get<bool>(a["keepdim"])) {
          d_.kind = kind_of_rank(r - static_cast<int>(dims.size()));
          d_.channels_last = false;
        }
        return out;
      }
      case Category::Normalization:
        switch (op) {
          case Op::Softmax:
          case Op::LogSoftmax: {
            int64_t dim = tk.dims.empty() ? int64_t{spatial ? 1 : r - 1} : dims_for(tk, true)[0];
            if (r < 2 || x[dim] == 1) throw Skip{};  // over one element: constant
            a["dim"] = dim;
            break;
          }
          case Op::LayerNorm:
          case Op::RmsNorm:
            if (!last_is_feature) throw Skip{};
            a["normalized_shape"] = Ints{x.back()};
            break;
          case Op::GroupNorm: {
            if (!spatial) throw Skip{};
            Ints g = divisors(x[1]);
            if (g.size() > 2)
              g = Ints(g.begin() + 1, g.end() - 1);  // neither 1 nor one per channel
            a = {{"num_channels", x[1]}, {"num_groups", pick(rng_, g)}};
            break;
          }
          default:  // batch and instance norms: over channels
            if (!(spatial || (d_.kind == Kind::Vector && op == Op::BatchNorm1d && r == 2)))
              throw Skip{};
            a["num_features"] = x[1];
        }
        return node(op, {cur}, a);
      case Category::Pooling: {
        if (!spatial) throw Skip{};
        int n = r - 2;
        if (op == Op::AdaptiveAvgPool2d || op == Op::AdaptiveAvgPool3d) {
          Ints out;
          for (int i = 0; i < n; ++i)
            out.push_back(tk.global ? 1 : std::max<int64_t>(1, x[2 + i] / 2));
          a["output_size"] = out;
        } else {
          int64_t k = pick(rng_, Ints{2, 2, 3});
          int64_t pad = k == 3 && chance(rng_, 0.5) ? 1 : 0;
          a = {{"kernel_size", Ints(n, k)},
               {"stride", Ints(n, k == 3 && chance(rng_, 0.5) ? 2 : k)},
               {"padding", Ints(n, pad)},
               {"ceil_mode", false}};
        }
        ValueId out = node(op, {cur}, a);
        if (!tk.global && type(out).numel() < z_.min_output) throw Skip{};
        return out;
      }
      case Category::Layout: return layout_token(op);
      default:
        // A one-sided clamp keeps zero inside, as relu6-like code does: a bound on the far
        // side of zero would flatten every activation's output (x * tanh(x) >= 0).
        if (op == Op::ClampMin || op == Op::ClampMax) {
          double bound =
              std::round(std::uniform_real_distribution<double>(0.1, 1.0)(rng_) * 100) / 100;
          a[op == Op::ClampMin ? "min" : "max"] = op == Op::ClampMin ? -bound : bound;
        }
        return node(op, {cur}, a);
    }
  }

  // The layout ops a model puts between blocks; none touches the batch dim.
  ValueId layout_token(Op op) {
    const int r = rank();
    const Shape x = shape();
    switch (op) {
      case Op::Flatten:
        if (r < 3 || d_.channels_last) throw Skip{};
        d_.kind = Kind::Vector;
        return layout(op, d_.cur, {{"start_dim", int64_t{1}}, {"end_dim", int64_t{r - 1}}});
      case Op::Reshape:  // x.view(B, -1), the other spelling of a flatten
        if (r < 3 || d_.channels_last) throw Skip{};
        d_.kind = Kind::Vector;
        return layout(op, d_.cur, {{"shape", Ints{x[0], type(d_.cur).numel() / x[0]}}});
      case Op::Squeeze: {
        Ints ones;
        for (int i = 1; i < r; ++i)
          if (x[i] == 1) ones.push_back(i);
        if (ones.empty()) throw Skip{};
        d_.kind = kind_of_rank(r - static_cast<int>(ones.size()));
        d_.channels_last = false;
        return layout(op, d_.cur, {{"dim", ones}});
      }
      case Op::Unsqueeze:
        if (d_.kind != Kind::Vector || r != 2) throw Skip{};
        d_.kind = Kind::Spatial;
        return layout(op, d_.cur, {{"dim", int64_t{1}}});
      case Op::Permute: {
        if (d_.kind != Kind::Spatial) throw Skip{};
        Ints p = {0};
        if (!d_.channels_last) {
          for (int i = 2; i < r; ++i) p.push_back(i);
          p.push_back(1);
        } else {
          p.push_back(r - 1);
          for (int i = 1; i < r - 1; ++i) p.push_back(i);
        }
        d_.channels_last = !d_.channels_last;
        return layout(op, d_.cur, {{"dims", p}});
      }
      default: throw Skip{};
    }
  }

  // Applies an idiom, or leaves the program as it was and says no.
  bool try_idiom(const RealIdiom& idiom, bool may_end) {
    Draft saved = d_;
    try {
      apply_idiom(idiom, may_end);
      return true;
    } catch (const Skip&) {
    } catch (const IrError&) {
    }
    d_ = std::move(saved);
    return false;
  }

  void apply_idiom(const RealIdiom& idiom, bool may_end) {
    ValueId prev = d_.cur;
    // token() may change the kind (a flatten makes features): assign after it ran.
    for (const RealToken& tk : idiom.tokens) d_.cur = token(tk, prev);
    // An integer or boolean value can only be the program's output.
    if (type(d_.cur).dtype != DType::F32 && !may_end) throw Skip{};
  }

  bool wants_target(const RealIdiom& idiom) const {
    if (!target_ || has_target()) return false;
    for (const RealToken& tk : idiom.tokens)
      if (std::find(tk.ops.begin(), tk.ops.end(), *target_) != tk.ops.end()) return true;
    return false;
  }

  bool has_target() const {
    for (const Node& n : d_.g.nodes())
      if (n.op == *target_) return true;
    return false;
  }

  // A walk over the families: each step draws a family by the current row's weights, then
  // an idiom of it that fits what is left and applies. With a coverage target, idioms that
  // use it are tried first.
  void tail(int budget, bool last) {
    d_.skip = d_.cur;
    std::string from = "start";
    while (budget > 0) {
      auto row_it = t_.tail.find(from);
      const auto& row = row_it != t_.tail.end() ? row_it->second : t_.tail.at("start");
      std::string chosen;
      for (int pass = 0; pass < 2 && chosen.empty(); ++pass) {
        // Candidates: (family, idiom) with the family's weight spread over its idioms.
        std::vector<std::pair<const RealFamily*, const RealIdiom*>> cands;
        std::vector<double> w;
        for (const auto& [name, fw] : row) {
          const RealFamily& fam = t_.families.at(name);
          double total = 0;
          for (const RealIdiom& i : fam.idioms) total += i.weight;
          for (const RealIdiom& i : fam.idioms) {
            if (i.cost < 1 || i.cost > budget || total <= 0) continue;
            // Reductions end programs: after one, a value of few elements saturates what follows.
            if (fam.final_only && !(last && i.cost == budget)) continue;
            if (pass == 0 && !wants_target(i)) continue;
            cands.push_back({&fam, &i});
            w.push_back(fw * i.weight / total);
          }
        }
        for (int k; (k = pick_weighted(rng_, w)) >= 0;) {
          if (try_idiom(*cands[k].second, last && cands[k].second->cost == budget)) {
            chosen = cands[k].first->name;
            budget -= cands[k].second->cost;
            break;
          }
          w[k] = 0;
        }
      }
      if (chosen.empty()) throw Skip{};
      from = chosen;
    }
  }

  const RealTable& t_;
  const RealSizes& z_;
  Rng& rng_;
  std::optional<Op> target_;
  double elems_;
  double max_flops_, max_bytes_;
  Draft d_;
};

// Templates that admit the difficulty (and, for coverage, may use the target).
std::vector<double> template_weights(const RealTable& t, int difficulty, std::optional<Op> target) {
  std::vector<double> w;
  for (const RealTemplate& tp : t.templates) {
    bool ok = difficulty >= tp.difficulty_lo && difficulty <= tp.difficulty_hi &&
              (!target || tp.ops.count(*target));
    w.push_back(ok ? tp.weight : 0);
  }
  return w;
}

}  // namespace

std::optional<RealProgram> build_real_program(const RealTable& table, int difficulty,
                                              const SizePreset& preset, std::mt19937_64& rng,
                                              std::optional<Op> target,
                                              const std::vector<Op>& vocab, int attempts) {
  std::vector<bool> allowed(all_op_schemas().size(), vocab.empty());
  for (Op op : vocab) allowed[static_cast<int>(op)] = true;
  const RealSizes& z = table.sizes_for(preset.name);
  std::vector<double> weights = template_weights(table, difficulty, target);
  // The typical tensor's size: from a few times the smallest output up to what the byte
  // budget allows a program of this many ops; halved after each draw over budget.
  double cap = preset.max_bytes / (4.0 * 4 * (difficulty + 2));
  for (int i = 0; i < attempts; ++i) {
    int k = pick_weighted(rng, weights);
    if (k < 0) return std::nullopt;
    double lo = 4.0 * static_cast<double>(z.min_output);
    double elems = log_uniform(rng, lo, std::max(lo, cap));
    try {
      Graph g = RealBuilder(table, preset, rng, target, elems).run(table.templates[k], difficulty);
      const TensorType& out = g.value(g.outputs()[0]).type;
      bool ends_reduced = false;
      for (auto it = g.nodes().rbegin(); it != g.nodes().rend() && !ends_reduced; ++it) {
        Category c = it->schema().category;
        if (c == Category::Anchor) break;
        ends_reduced = c == Category::Reduction && it->op != Op::Cumsum;
      }
      if (g.compute_ops() != difficulty)
        throw std::logic_error("internal: a --dist real program of difficulty " +
                               std::to_string(difficulty) + " has " +
                               std::to_string(g.compute_ops()) + " compute ops");
      if (g.flops() > preset.max_flops || static_cast<double>(g.bytes()) > preset.max_bytes) {
        cap = std::max(lo, cap / 2);
        continue;
      }
      if (out.numel() < z.min_output && !ends_reduced) continue;
      if (target && std::none_of(g.nodes().begin(), g.nodes().end(),
                                 [&](const Node& n) { return n.op == *target; }))
        continue;
      if (std::any_of(g.nodes().begin(), g.nodes().end(),
                      [&](const Node& n) { return !allowed[static_cast<int>(n.op)]; }))
        continue;
      if (!find_degenerate(g).empty()) continue;
      return RealProgram{std::move(g), table.templates[k].name};
    } catch (const Skip&) {
    } catch (const IrError&) {
    }
  }
  return std::nullopt;
}

}  // namespace drtriton
