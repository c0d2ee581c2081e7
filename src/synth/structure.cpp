#include "synth/structure.h"

#include <algorithm>
#include <stdexcept>

namespace drtriton {

std::string_view fresh_name(Fresh f) {
  switch (f) {
    case Fresh::None: return "";
    case Fresh::ParamFull: return "param:full";
    case Fresh::ParamChannel: return "param:channel";
    case Fresh::ParamRow: return "param:row";
    case Fresh::ParamScalar: return "param:scalar";
    case Fresh::Input: return "input";
  }
  return "";
}

Wiring wiring_of(const OpSchema& s) {
  switch (s.op) {
    case Op::Where: return Wiring::Where;
    case Op::Matmul:
    case Op::Bmm: return Wiring::FreshWeight;
    case Op::Addmm: return Wiring::Addmm;
    case Op::Cat: return Wiring::Cat;
    default: return s.arity == 2 ? Wiring::Binary : Wiring::Unary;
  }
}

bool satisfies(ValueDomain have, Domain need) {
  switch (need) {
    case Domain::Any: return true;
    case Domain::NonNegative: return have != ValueDomain::Real;
    case Domain::Positive:
    case Domain::NonZero: return have == ValueDomain::Positive;
  }
  return false;
}

ValueDomain output_domain(const OpSchema& s, ValueDomain a, ValueDomain b) {
  switch (s.out_domain) {
    case OutDomain::Real: return ValueDomain::Real;
    case OutDomain::NonNegative: return ValueDomain::NonNegative;
    case OutDomain::Positive: return ValueDomain::Positive;
    case OutDomain::SameAsInputs: return std::min(a, b);
  }
  return ValueDomain::Real;
}

bool output_bounded(const OpSchema& s, bool inputs_bounded) {
  switch (s.magnitude) {
    case Magnitude::Bounded: return true;
    case Magnitude::SameAsInputs: return inputs_bounded;
    case Magnitude::Unbounded: return false;
  }
  return false;
}

namespace {

// A fresh operand holds real values unless its position demands a domain.
ValueDomain fresh_domain(const OpSchema& s, int position) {
  return s.domain != Domain::Any && s.domain_input == position ? ValueDomain::Positive
                                                               : ValueDomain::Real;
}

bool reduces_several_dims(Op op) {
  switch (op) {
    case Op::Sum:
    case Op::Mean:
    case Op::Amax:
    case Op::Amin:
    case Op::Logsumexp:
    case Op::Var:
    case Op::Std:
    case Op::Norm: return true;
    default: return false;
  }
}

// Normalizations that take batch or spatial statistics fail on a dim of size 1.
bool needs_no_unit_dim(Op op) {
  switch (op) {
    case Op::BatchNorm1d:
    case Op::BatchNorm2d:
    case Op::BatchNorm3d:
    case Op::GroupNorm:
    case Op::InstanceNorm2d:
    case Op::InstanceNorm3d: return true;
    default: return false;
  }
}

DType output_dtype(Op op) {
  switch (op) {
    case Op::Gt:
    case Op::Lt:
    case Op::GtScalar:
    case Op::LtScalar: return DType::Bool;
    case Op::Argmax:
    case Op::Argmin: return DType::I64;
    default: return DType::F32;
  }
}

bool rank_ok(const OpSchema& s, int rank) {
  return rank >= s.min_rank && rank <= s.max_rank;
}

}  // namespace

std::vector<OutputVariant> output_variants(const OpSchema& s, const AbstractValue& in) {
  using Shaped = OutputVariant;
  int r = in.rank;
  Op op = s.op;
  std::vector<Shaped> v;
  if (op == Op::Cumsum) return {{r, in.unit_dim, false}};
  if (s.category == Category::Reduction) {
    int most = reduces_several_dims(op) ? 2 : 1;
    for (int d = 1; d <= most && d <= r; ++d) {
      if (r - d >= 1) v.push_back({r - d, false, true, d, false});
      v.push_back({r, true, true, d, true});
    }
    return v;
  }
  switch (op) {
    case Op::Reshape:
      for (int out = 1; out <= kMaxRank; ++out) v.push_back({out, false, true});
      return v;
    case Op::Flatten:
      for (int out = 1; out < r; ++out) v.push_back({out, false, true});
      return v;
    case Op::Unsqueeze:
      if (r < kMaxRank) v.push_back({r + 1, true, true});
      return v;
    case Op::Squeeze:
      if (in.unit_dim && r > 1) v.push_back({r - 1, false, true});
      return v;
    case Op::Permute:
    case Op::Transpose:
      if (r >= 2) v.push_back({r, in.unit_dim, true});
      return v;
    default: break;
  }
  if (s.category == Category::Anchor || s.category == Category::Pooling) return {{r, false, true}};
  return {{r, in.unit_dim, false}};
}

uint64_t State::key() const {
  // Shape classes are relabeled by first appearance, so equal states share one key.
  uint64_t k = compute_left;
  k = k << 1 | after_layout;
  k = k << 1 | must_use_done;
  k = k << 3 | window.size();
  uint8_t relabel[256];
  std::fill(std::begin(relabel), std::end(relabel), 255);
  uint8_t next = 0;
  for (const AbstractValue& v : window) {
    if (relabel[v.shape_class] == 255) relabel[v.shape_class] = next++;
    k = k << 3 | v.rank;
    k = k << 2 | static_cast<uint64_t>(v.dtype == DType::F32 ? 0 : v.dtype == DType::Bool ? 1 : 2);
    k = k << 2 | static_cast<uint64_t>(v.domain);
    k = k << 1 | v.unit_dim;
    k = k << 1 | v.bounded;
    k = k << 1 | v.used;
    k = k << 3 | relabel[v.shape_class];
  }
  return k;
}

StructureSpace::StructureSpace(SpaceOptions options) : options_(std::move(options)) {
  if (options_.difficulty < 1 || options_.difficulty > kMaxDifficulty) {
    throw std::invalid_argument("difficulty must be between 1 and " +
                                std::to_string(kMaxDifficulty));
  }
  allowed_.assign(all_op_schemas().size(), options_.ops.empty());
  for (Op op : options_.ops) allowed_[static_cast<int>(op)] = true;
  starts_.assign(options_.difficulty + 1, -1);
  for (int k = options_.difficulty; k >= 1; --k) {
    State start;
    start.compute_left = static_cast<uint8_t>(k);
    start.must_use_done = !options_.must_use.has_value();
    starts_[k] = intern(start);
    count_from(starts_[k]);
  }
}

int StructureSpace::start(int difficulty) const {
  if (difficulty < 1 || difficulty > options_.difficulty) {
    throw std::invalid_argument("difficulty " + std::to_string(difficulty) +
                                " is outside this structure space (1 to " +
                                std::to_string(options_.difficulty) + ")");
  }
  return starts_[difficulty];
}

int StructureSpace::intern(State s) {
  auto [it, inserted] = ids_.emplace(s.key(), static_cast<int>(states_.size()));
  if (inserted) {
    states_.push_back(std::move(s));
    counts_.emplace_back();
    counted_.push_back(false);
  }
  return it->second;
}

bool StructureSpace::can_stop(int id) const {
  const State& s = states_[id];
  if (s.window.empty() || s.compute_left > 0 || !s.must_use_done) return false;
  for (size_t i = 0; i + 1 < s.window.size(); ++i)
    if (!s.window[i].used) return false;
  return true;
}

namespace {

// The state after `step` consumes `used` slots and adds `out`; false when a value would
// leave the window unused.
bool apply(const State& s, const OpSchema& schema, std::initializer_list<int> used,
           AbstractValue out, std::optional<Op> must_use, State* next) {
  *next = s;
  for (int slot : used) next->window[slot].used = true;
  uint8_t max_class = 0;
  for (const AbstractValue& v : s.window) max_class = std::max<uint8_t>(max_class, v.shape_class);
  if (out.shape_class == 255) out.shape_class = static_cast<uint8_t>(max_class + 1);
  next->window.push_back(out);
  if (next->window.size() > kWindow) {
    if (!next->window.front().used) return false;
    next->window.pop_front();
  }
  if (schema.category == Category::Layout) {
    if (s.after_layout) return false;
    next->after_layout = true;
  } else {
    if (next->compute_left == 0) return false;
    --next->compute_left;
    next->after_layout = false;
  }
  if (must_use && schema.op == *must_use) next->must_use_done = true;
  return true;
}

}  // namespace

template <typename Resolve>
void StructureSpace::expand(int id, std::vector<Transition>& out, Resolve&& resolve) const {
  // The first step also chooses the input's rank, and the input holds positive values
  // exactly when the first step needs them.
  if (states_[id].window.empty()) {
    for (int rank = 1; rank <= kMaxRank; ++rank) {
      for (ValueDomain dom : {ValueDomain::Real, ValueDomain::Positive}) {
        State pseudo = states_[id];
        pseudo.window.push_back(
            {static_cast<uint8_t>(rank), DType::F32, dom, false, true, 0, false});
        int pseudo_id = resolve(std::move(pseudo));
        if (pseudo_id < 0) continue;
        std::vector<Transition> first;
        expand(pseudo_id, first, resolve);
        for (Transition& t : first) {
          if ((dom == ValueDomain::Positive) != first_input_positive(t.step)) continue;
          t.step.first_rank = static_cast<uint8_t>(rank);
          out.push_back(t);
        }
      }
    }
    return;
  }
  const State s = states_[id];  // a copy: interning may grow states_
  const int n = static_cast<int>(s.window.size());
  auto emit = [&](const OpSchema& schema, Step step, std::initializer_list<int> used,
                  AbstractValue v) {
    State next;
    if (!apply(s, schema, used, v, options_.must_use, &next)) return;
    int next_id = resolve(std::move(next));
    if (next_id >= 0) out.push_back({step, next_id});
  };
  auto is_float = [&](int slot) { return s.window[slot].dtype == DType::F32; };
  for (const OpSchema& schema : all_op_schemas()) {
    if (!allowed_[static_cast<int>(schema.op)]) continue;
    bool layout = schema.category == Category::Layout;
    if (layout ? s.after_layout : s.compute_left == 0) continue;
    Wiring wiring = wiring_of(schema);
    for (int a = 0; a < n; ++a) {
      const AbstractValue& va = s.window[a];
      Step step{schema.op};
      step.operands[0] = static_cast<int8_t>(a);
      AbstractValue out{
          va.rank, output_dtype(schema.op), ValueDomain::Real, false, true, va.shape_class, false};
      if (wiring == Wiring::Where) {
        // where(cond, x, y): the condition is a bool value, x and y have its shape.
        if (va.dtype != DType::Bool) continue;
        for (int x = 0; x < n; ++x) {
          if (!is_float(x) || s.window[x].shape_class != va.shape_class) continue;
          step.operands[1] = static_cast<int8_t>(x);
          AbstractValue w = out;
          w.unit_dim = s.window[x].unit_dim;
          for (int y = 0; y < n; ++y) {
            // where(c, x, x) ignores its condition: no binary op over one value.
            if (y == x || !is_float(y) || s.window[y].shape_class != va.shape_class) continue;
            step.operands[2] = static_cast<int8_t>(y);
            step.fresh = Fresh::None;
            w.domain = std::min(s.window[x].domain, s.window[y].domain);
            w.bounded = output_bounded(schema, s.window[x].bounded && s.window[y].bounded);
            emit(schema, step, {a, x, y}, w);
          }
          step.operands[2] = -1;
          for (Fresh f : {Fresh::ParamFull, Fresh::ParamChannel, Fresh::ParamRow,
                          Fresh::ParamScalar, Fresh::Input}) {
            if (f == Fresh::ParamChannel && va.rank < 3) continue;
            step.fresh = f;
            w.domain = ValueDomain::Real;
            w.bounded = output_bounded(schema, s.window[x].bounded);
            emit(schema, step, {a, x}, w);
          }
        }
        continue;
      }
      if (!is_float(a) || !rank_ok(schema, va.rank)) continue;
      if (schema.domain != Domain::Any && schema.domain_input == 0 &&
          !satisfies(va.domain, schema.domain)) {
        continue;
      }
      if (needs_no_unit_dim(schema.op) && va.unit_dim) continue;
      if (schema.needs_bounded_input && !va.bounded) continue;
      switch (wiring) {
        case Wiring::Unary: {
          std::vector<OutputVariant> vs = output_variants(schema, va);
          for (size_t k = 0; k < vs.size(); ++k) {
            step.variant = static_cast<uint8_t>(k);
            AbstractValue v = out;
            v.rank = static_cast<uint8_t>(vs[k].rank);
            v.unit_dim = vs[k].unit;
            v.domain = output_domain(schema, va.domain, va.domain);
            v.bounded = output_bounded(schema, va.bounded);
            v.shape_class = vs[k].new_class ? 255 : va.shape_class;
            emit(schema, step, {a}, v);
          }
          break;
        }
        case Wiring::Binary: {
          for (int b = 0; b < n; ++b) {
            const AbstractValue& vb = s.window[b];
            // No binary op over one value (x - x, torch.maximum(x, x)): see degenerate.h.
            if (b == a || !is_float(b) || vb.shape_class != va.shape_class) continue;
            if (schema.domain != Domain::Any && schema.domain_input == 1 &&
                !satisfies(vb.domain, schema.domain)) {
              continue;
            }
            step.operands[1] = static_cast<int8_t>(b);
            AbstractValue v = out;
            v.unit_dim = va.unit_dim;
            v.domain = output_domain(schema, va.domain, vb.domain);
            v.bounded = output_bounded(schema, va.bounded && vb.bounded);
            emit(schema, step, {a, b}, v);
          }
          step.operands[1] = -1;
          for (Fresh f : {Fresh::ParamFull, Fresh::ParamChannel, Fresh::ParamRow,
                          Fresh::ParamScalar, Fresh::Input}) {
            if (f == Fresh::ParamChannel && va.rank < 3) continue;
            step.fresh = f;
            AbstractValue v = out;
            v.unit_dim = va.unit_dim;
            v.domain = output_domain(schema, va.domain, fresh_domain(schema, 1));
            v.bounded = output_bounded(schema, va.bounded);
            emit(schema, step, {a}, v);
          }
          break;
        }
        case Wiring::FreshWeight:
        case Wiring::Addmm: {
          if (wiring == Wiring::Addmm && va.rank != 2) break;
          // The weight (and addmm's bias) are fresh parameters; addmm's window operand is
          // its input 1, after the bias.
          AbstractValue v = out;
          v.shape_class = 255;
          v.bounded = false;
          emit(schema, step, {a}, v);
          break;
        }
        case Wiring::Cat: {
          for (int b = 0; b < n; ++b) {
            if (!is_float(b) || s.window[b].shape_class != va.shape_class) continue;
            step.operands[1] = static_cast<int8_t>(b);
            AbstractValue v = out;
            v.domain = std::min(va.domain, s.window[b].domain);
            v.bounded = va.bounded && s.window[b].bounded;
            v.shape_class = 255;
            emit(schema, step, {a, b}, v);
          }
          break;
        }
        case Wiring::Where: break;
      }
    }
  }
}

std::vector<StructureSpace::Transition> StructureSpace::transitions(int id) const {
  std::vector<Transition> out;
  expand(id, out, [this](const State& s) {
    auto it = ids_.find(s.key());
    return it == ids_.end() ? -1 : it->second;  // unknown: unreachable while counting
  });
  return out;
}

const BigCount& StructureSpace::count_from(int id) {
  if (!counted_[id]) {
    std::vector<Transition> ts;
    expand(id, ts, [this](State s) { return intern(std::move(s)); });
    BigCount total(can_stop(id) ? 1 : 0);
    for (const Transition& t : ts) total += count_from(t.next);
    counts_[id] = total;  // counts_ may have grown: index, never hold references across calls
    counted_[id] = true;
  }
  return counts_[id];
}

std::vector<Step> StructureSpace::sample(std::mt19937_64& rng, int difficulty) const {
  int state = start(difficulty);
  const BigCount& total = counts_[state];
  if (total.is_zero())
    throw std::runtime_error("no valid structure with these operators and difficulty");
  std::vector<Step> steps;
  BigCount r = total.uniform_below(rng);
  for (;;) {
    if (can_stop(state)) {
      if (r.is_zero()) return steps;
      r -= BigCount(1);
    }
    bool moved = false;
    for (const Transition& t : transitions(state)) {
      const BigCount& c = counts_[t.next];
      if (r < c) {
        steps.push_back(t.step);
        state = t.next;
        moved = true;
        break;
      }
      r -= c;
    }
    if (!moved) throw std::logic_error("internal: structure sampling fell off its counts");
  }
}

void StructureSpace::enumerate_from(int state, std::vector<Step>& prefix,
                                    std::vector<std::vector<Step>>& out, size_t limit) const {
  if (out.size() >= limit) return;
  if (can_stop(state)) out.push_back(prefix);
  for (const Transition& t : transitions(state)) {
    if (counts_[t.next].is_zero()) continue;
    prefix.push_back(t.step);
    enumerate_from(t.next, prefix, out, limit);
    prefix.pop_back();
  }
}

std::vector<std::vector<Step>> StructureSpace::enumerate(size_t limit) const {
  std::vector<std::vector<Step>> out;
  std::vector<Step> prefix;
  enumerate_from(initial_state(), prefix, out, limit);
  return out;
}

bool first_input_positive(const Step& first) {
  const OpSchema& s = op_schema(first.op);
  return s.domain != Domain::Any && first.operands[s.domain_input] >= 0;
}

std::string structure_text(const std::vector<Step>& steps) {
  // Operands by absolute value number: v0 is the input, step i defines v(i+1).
  std::string s;
  std::vector<int> window;
  for (size_t i = 0; i < steps.size(); ++i) {
    const Step& st = steps[i];
    if (i == 0) {
      window = {0};
      s += "in r" + std::to_string(st.first_rank);
      s += first_input_positive(st) ? " positive" : " real";
    }
    const OpSchema& schema = op_schema(st.op);
    s += "; v" + std::to_string(i + 1) + "=" + schema.name;
    s += "/" + std::to_string(st.variant) + "(";
    bool first_operand = true;
    for (int k = 0; k < 3; ++k) {
      if (st.operands[k] < 0) continue;
      s += (first_operand ? "v" : ",v") + std::to_string(window[st.operands[k]]);
      first_operand = false;
    }
    if (st.fresh != Fresh::None)
      s += (first_operand ? "" : ",") + std::string(fresh_name(st.fresh));
    s += ")";
    window.push_back(static_cast<int>(i + 1));
    if (window.size() > kWindow) window.erase(window.begin());
  }
  return s;
}

}  // namespace drtriton
