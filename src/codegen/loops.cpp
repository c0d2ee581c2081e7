// Loops the trace unrolled. `for t in range(x.shape[1]): h = step(x[:, t], h)` reaches the IR
// as x.shape[1] copies of the step, fixed to the traced length. Found again here, the step is
// lowered once, inside a Python loop over that dim of the input: the solution then runs at
// other lengths, as the program does, and compiles each kernel once.
#include <algorithm>

#include "codegen/lowering.h"

namespace drtriton::codegen {

namespace {

// A select's dim, counted from the front.
int select_dim(const Graph& g, const Node& select) {
  const int64_t d = attr_int(select.attrs, "dim");
  return static_cast<int>(d < 0 ? d + g.value(select.inputs[0]).type.rank() : d);
}

// Whether n reads the loop's input along its dim (at some index): a step's select.
bool selects_step(const Graph& g, const StepLoop& loop, const Node& n) {
  return n.op == Op::Select && n.inputs[0] == loop.over && select_dim(g, n) == loop.dim;
}

// The variable that holds the carried result at `offset` of the step.
std::string carry_var(int offset) {
  return "carry" + std::to_string(offset);
}

// Whether the copies of loop's body (from loop.first, loop.length nodes each) are one step
// repeated: the same operators, attributes, types and modules; the selects of `over` reading
// index i in copy i; every input either the same value in every copy, a value of the copy
// itself at the same offset, or (carried) the copy before's result where the first copy reads
// a value from before the loop. Fills loop.carried. Nothing after the loop reads a copy but the
// last, and nothing random runs in the body (each copy's draws would be the same).
bool one_step_repeated(const Graph& g, StepLoop& loop) {
  const std::vector<Node>& nodes = g.nodes();
  const int first = loop.first, length = loop.length, steps = loop.steps;
  const int end = first + steps * length;
  if (first < 0 || end > static_cast<int>(nodes.size())) return false;
  auto copy_of = [&](ValueId v) {  // (copy, offset), or (-1, -1) outside the loop
    const Value& val = g.value(v);
    if (val.kind != ValueKind::Node || val.node < first || val.node >= end)
      return std::pair<int, int>{-1, -1};
    return std::pair<int, int>{(val.node - first) / length, (val.node - first) % length};
  };
  std::set<ValueId> invariant;
  std::map<std::pair<int, size_t>, int> carried_from;  // (offset, input) -> offset, or -1
  for (int j = 0; j < length; ++j) {
    const Node& a = nodes[first + j];
    if (a.op == Op::Dropout || a.op == Op::Dropout2d || a.op == Op::Dropout3d ||
        a.op == Op::AlphaDropout)
      return false;
    for (int i = 1; i < steps; ++i) {
      const Node& b = nodes[first + i * length + j];
      if (b.op != a.op || b.module != a.module || b.sym_attrs != a.sym_attrs ||
          b.inputs.size() != a.inputs.size() || !(g.value(b.output).type == g.value(a.output).type))
        return false;
      if (selects_step(g, loop, a)) {
        if (!selects_step(g, loop, b) || attr_int(a.attrs, "index") != 0 ||
            attr_int(b.attrs, "index") != i)
          return false;
      } else if (b.attrs != a.attrs) {
        return false;
      }
      for (size_t s = 0; s < a.inputs.size(); ++s) {
        const ValueId in_a = a.inputs[s], in_b = b.inputs[s];
        const auto [copy_a, offset_a] = copy_of(in_a);
        const auto [copy_b, offset_b] = copy_of(in_b);
        if (copy_a == 0) {
          if (copy_b != i || offset_b != offset_a) return false;
        } else if (copy_a != -1) {
          return false;
        } else {
          // The same value in every copy, or in every copy the copy before's result.
          const int from = in_b == in_a ? -1 : copy_b == i - 1 ? offset_b : -2;
          auto [slot, fresh] = carried_from.emplace(std::pair{j, s}, from);
          if (from == -2 || slot->second != from) return false;
          if (from == -1) {
            invariant.insert(in_a);
          } else {
            auto [at, added] = loop.carried.emplace(from, in_a);
            if (at->second != in_a) return false;
          }
        }
      }
    }
  }
  // A value carried in one input and read unchanged in another would need two variables.
  for (const auto& [offset, init] : loop.carried)
    if (invariant.count(init)) return false;
  // Each copy's results are read by itself and the next; after the loop, only the last's.
  auto read_after = [&](ValueId v) {
    const auto [copy, offset] = copy_of(v);
    return copy == -1 || copy == steps - 1;
  };
  for (int n = end; n < static_cast<int>(nodes.size()); ++n)
    for (ValueId in : nodes[n].inputs)
      if (!read_after(in)) return false;
  for (ValueId out : g.outputs())
    if (!read_after(out)) return false;
  return true;
}

}  // namespace

std::optional<StepLoop> find_step_loop(const Graph& g) {
  const std::vector<Node>& nodes = g.nodes();
  // The selects of one input along one dim, by index: a loop's steps read index 0, 1, ...
  std::map<std::pair<ValueId, int>, std::map<int64_t, int>> selects;
  for (int i = 0; i < static_cast<int>(nodes.size()); ++i) {
    const Node& n = nodes[i];
    if (n.op != Op::Select || g.value(n.inputs[0]).kind != ValueKind::Input) continue;
    selects[{n.inputs[0], select_dim(g, n)}].emplace(attr_int(n.attrs, "index"), i);
  }
  for (const auto& [key, by_index] : selects) {
    const auto [over, dim] = key;
    const int64_t steps = g.value(over).type.shape[dim];
    if (steps < 2 || static_cast<int64_t>(by_index.size()) != steps ||
        by_index.begin()->first != 0 || by_index.rbegin()->first != steps - 1)
      continue;
    const int length = by_index.at(1) - by_index.at(0);
    if (length <= 0) continue;
    // The step may begin before its select (h's half of the step traced first).
    for (int before = 0; before < length && before <= by_index.at(0); ++before) {
      StepLoop loop{by_index.at(0) - before, length, static_cast<int>(steps), over, dim, {}};
      bool evenly = true;
      for (const auto& [index, node] : by_index)
        evenly = evenly && node == loop.first + before + index * length;
      if (evenly && one_step_repeated(g, loop)) return loop;
    }
  }
  return std::nullopt;
}

// Before the first step's nodes: a variable for each carried value (the first step reads the
// value from before the loop, every later one the step before's result), then the loop.
void Lowering::open_step_loop() {
  for (const auto& [offset, init] : loop_->carried) {
    if (!is_buffer(init)) materialize(init);
    const std::string var = carry_var(offset);
    forward_.push_back(var + " = " + buffers_.at(init).var);
    outside_loop_[init] = buffers_.at(init);
    buffers_[init] = {var, buffers_.at(init).written_by_kernel};
  }
  forward_.push_back("for " + std::string(kStep) + " in range(" +
                     shape_of(loop_->over)[loop_->dim] + "):");
  loop_from_ = forward_.size();
}

// After the first step's nodes: each step writes what the next step reads and what is read
// after the loop, and hands the former on; after the loop, the last step's values are the
// buffers the step wrote.
void Lowering::close_step_loop() {
  const StepLoop& loop = *loop_;
  const int last = loop.first + (loop.steps - 1) * loop.length;
  const std::set<ValueId> outputs(g_.outputs().begin(), g_.outputs().end());
  for (int j = 0; j < loop.length; ++j) {
    const ValueId mine = g_.nodes()[loop.first + j].output;
    const ValueId final_value = g_.nodes()[last + j].output;
    bool read_after = outputs.count(final_value) > 0;
    for (int reader : consumers_[final_value])
      read_after = read_after || reader >= last + loop.length;
    if (!loop.carried.count(j) && !read_after) continue;
    if (!is_buffer(mine)) materialize(mine);
    if (loop.carried.count(j)) forward_.push_back(carry_var(j) + " = " + buffers_.at(mine).var);
  }
  indent_forward_since(loop_from_);
  for (const auto& [init, buffer] : outside_loop_) buffers_[init] = buffer;
  // A carried value is its variable after the loop: with no steps at all, the value from
  // before the loop, as the program's own loop leaves it.
  for (int j = 0; j < loop.length; ++j) {
    const ValueId mine = g_.nodes()[loop.first + j].output,
                  final_value = g_.nodes()[last + j].output;
    if (loop.carried.count(j))
      buffers_[final_value] = {carry_var(j), true};
    else if (is_buffer(mine))
      buffers_[final_value] = buffers_.at(mine);
  }
}

bool Lowering::reads_step(const Node& n) const {
  const int at = static_cast<int>(&n - g_.nodes().data());
  return loop_ && at >= loop_->first && at < loop_->first + loop_->length &&
         selects_step(g_, *loop_, n);
}

}  // namespace drtriton::codegen
