// Program structures and their exact count (CSP-DAG, layer 1: docs/design.md, CSP-DAG).
//
// A structure is which operators a program applies and how they are wired, without
// shapes or attributes. It is a sequence of steps; each step applies one operator to
// values chosen from a window of the kWindow most recent values (so a value can feed
// several ops, and a residual connection joins a value with what was computed from it),
// or to fresh operands (a new parameter with a broadcast pattern, or a new input). Every
// value but the last must be used before it leaves the window, so programs have no dead
// code. The first input's rank is part of the structure. A structure of difficulty K has
// exactly K compute steps, and layout steps (reshape, permute, cat, ...), which the
// difficulty does not count, anywhere but right after another layout step. A binary op
// never takes one value twice (x - x; see degenerate.h).
//
// The abstract state after a prefix of steps (the window's values: rank, dtype, what
// domain they are known to hold, whether they have a size-1 dim, which have equal shapes,
// which are used; and the steps left) decides which steps may follow. StructureSpace
// counts the valid completions of every state exactly (memoized), which makes drawing a
// structure uniformly among all valid structures a walk that picks each next step with
// probability proportional to its count.
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <optional>
#include <random>
#include <string>
#include <unordered_map>
#include <vector>

#include "ir/op_schema.h"
#include "synth/big_count.h"

namespace drtriton {

// How far back an operand may reach. The count of abstract states grows about as the
// window's cube; two keeps exact counting fast up to difficulty 24.
constexpr int kWindow = 2;
constexpr int kMaxRank = 5;  // ranks of sampled values: 1..5
constexpr int kMaxDifficulty = 24;

enum class ValueDomain : uint8_t { Real, NonNegative, Positive };

// What the sampler knows about a value.
struct AbstractValue {
  uint8_t rank = 0;
  DType dtype = DType::F32;
  ValueDomain domain = ValueDomain::Real;
  bool unit_dim = false;    // has a dim of size 1 (from keepdim or unsqueeze): squeezable
  bool bounded = true;      // of modest magnitude (see Magnitude)
  uint8_t shape_class = 0;  // equal classes have equal shapes (within the window)
  bool used = false;
  bool operator==(const AbstractValue&) const = default;
};

// How a fresh operand (the second operand of a binary op, the other branch of where)
// is made: a parameter broadcast like a per-channel bias, a scalar or a full tensor, or
// a new graph input of the same shape.
enum class Fresh : uint8_t { None, ParamFull, ParamChannel, ParamRow, ParamScalar, Input };
std::string_view fresh_name(Fresh f);

// How a step takes its operands: one window value; two (the second from the window or
// fresh); where's three; a window value and a fresh weight (matmul, bmm, addmm); two
// window values of one shape (cat).
enum class Wiring { Unary, Binary, Where, FreshWeight, Addmm, Cat };
Wiring wiring_of(const OpSchema& op);

// What a one-operand step makes of its input: the output's rank and whether it has a
// size-1 dim or a shape of its own; for reductions, how many dims and whether kept.
struct OutputVariant {
  int rank;
  bool unit;
  bool new_class;
  int reduce_dims = 0;
  bool keepdim = false;
};
// The variants of `op` at input `in`; a Step's variant indexes this list.
std::vector<OutputVariant> output_variants(const OpSchema& op, const AbstractValue& in);

struct Step {
  Op op;
  uint8_t variant = 0;                // output-rank variant (reductions, reshape, ...)
  int8_t operands[3] = {-1, -1, -1};  // window slots (oldest is 0); -1: fresh or unused
  Fresh fresh = Fresh::None;
  uint8_t first_rank = 0;  // the first step only: the rank of the program's input
};

// Which operators and how many steps: the space of structures.
struct SpaceOptions {
  std::vector<Op> ops;  // the vocabulary; empty means every operator
  int difficulty = 1;   // compute steps: the space holds every difficulty from 1 to this one
  // Count and draw only structures that use this operator (coverage), if set.
  std::optional<Op> must_use;
};

// The window of a state, held inline: states are copied for every candidate step.
class Window {
 public:
  size_t size() const { return n_; }
  bool empty() const { return n_ == 0; }
  AbstractValue& operator[](size_t i) { return v_[i]; }
  const AbstractValue& operator[](size_t i) const { return v_[i]; }
  const AbstractValue& front() const { return v_[0]; }
  void push_back(const AbstractValue& x) { v_[n_++] = x; }
  void pop_front() {
    for (int i = 1; i < n_; ++i) v_[i - 1] = v_[i];
    --n_;
  }
  const AbstractValue* begin() const { return v_.data(); }
  const AbstractValue* end() const { return v_.data() + n_; }

 private:
  std::array<AbstractValue, kWindow + 1> v_{};
  uint8_t n_ = 0;
};

struct State {
  Window window;  // oldest first; the last is the newest value
  uint8_t compute_left = 0;
  bool after_layout = false;  // the last step was a layout step
  bool must_use_done = true;
  uint64_t key() const;  // equal for states with equal futures
};

class StructureSpace {
 public:
  // Counts every reachable state's completions up front (the only work that grows the
  // space); afterwards count() and sample() only read, so threads may share a space. The
  // difficulties below options.difficulty share most states with it, so one space counts
  // them all for little more than the largest alone.
  explicit StructureSpace(SpaceOptions options);
  // The exact number of valid structures of `difficulty` (default: options.difficulty).
  const BigCount& count(int difficulty) const { return counts_[start(difficulty)]; }
  const BigCount& count() const { return count(options_.difficulty); }
  // A structure of `difficulty` drawn uniformly among all of them. Throws if there are none.
  std::vector<Step> sample(std::mt19937_64& rng, int difficulty) const;
  std::vector<Step> sample(std::mt19937_64& rng) const { return sample(rng, options_.difficulty); }
  // Every structure, in a fixed order (only for spaces small enough to enumerate).
  std::vector<std::vector<Step>> enumerate(size_t limit) const;
  const SpaceOptions& options() const { return options_; }
  size_t state_count() const { return states_.size(); }
  int initial_state() const { return start(options_.difficulty); }

  // The steps allowed after a state, with the state each leads to. One place for every
  // wiring rule: counting, sampling and enumeration all walk these.
  struct Transition {
    Step step;
    int next;  // state id
  };
  std::vector<Transition> transitions(int state) const;
  bool can_stop(int state) const;

 private:
  // Expand a state: `resolve` maps each successor to its id (interning while counting,
  // looking up afterwards).
  template <typename Resolve>
  void expand(int id, std::vector<Transition>& out, Resolve&& resolve) const;
  int intern(State s);
  int start(int difficulty) const;
  const BigCount& count_from(int state);
  void enumerate_from(int state, std::vector<Step>& prefix, std::vector<std::vector<Step>>& out,
                      size_t limit) const;

  SpaceOptions options_;
  std::vector<bool> allowed_;  // by op
  std::vector<State> states_;
  std::unordered_map<uint64_t, int> ids_;
  std::vector<BigCount> counts_;
  std::vector<bool> counted_;
  std::vector<int> starts_;  // by difficulty: the state before the first step
};

// The op table's facts as the sampler uses them: whether a value of domain `have` may
// feed an input that needs `need`; the domain of an op's output from its operands'
// (b: the second operand's, or a's again); whether its output stays of modest magnitude.
bool satisfies(ValueDomain have, Domain need);
ValueDomain output_domain(const OpSchema& s, ValueDomain a, ValueDomain b);
bool output_bounded(const OpSchema& s, bool inputs_bounded);

// Whether a structure's first step makes its input positive: exactly when the step reads
// the input where the op demands a domain (log of the input, a division by it).
bool first_input_positive(const Step& first);

// The canonical text of a structure: operators, wiring and variants, no shapes; equal
// exactly when the structures are equal.
std::string structure_text(const std::vector<Step>& steps);

}  // namespace drtriton
