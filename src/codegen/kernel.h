// The kernel builder of the lowering (internal to codegen): a Triton kernel's body as lines,
// the loads and values it already holds, its tensor and size arguments; the index algebra and
// the small text helpers every emitter shares.
#pragma once

#include <algorithm>
#include <functional>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "ir/graph.h"

namespace drtriton::codegen {

// ---- Small text helpers ----------------------------------------------------------------

// "(a * b)" of the factors that are not "1"; "1" when none is.
std::string product(const std::vector<std::string>& factors);
std::string join(const std::vector<std::string>& items, const std::string& sep);
// `s` with every character that may not stand in a Python name made '_'.
std::string python_name(std::string s);
// `a + b` and `a * f` for integers b and f, without the no-ops (+ 0, - 0, * 1).
std::string offset_by(const std::string& a, int64_t b);
std::string scaled(const std::string& a, int64_t f);
// A Python tuple: "(a,)", "(a, b)".
std::string tuple(const std::vector<std::string>& items);

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
    if (is_digits(dim)) return dim;
    sizes_.insert(dim);
    return dim;
  }
  // Index `i` of a dim of `dim` elements counted from its other end (a flip).
  std::string flipped(const std::string& dim, const std::string& i) {
    return "(" + size(dim) + " - 1 - " + i + ")";
  }
  std::string size_product(const std::vector<std::string>& dims) {
    std::vector<std::string> f;
    for (const auto& d : dims) f.push_back(size(d));
    return product(f);
  }

  // Where an index variable of `decompose` came from: dim `dim` of `linear` over `shape`.
  // linearize merges the digits of one number back into it where the memory order keeps
  // them next to each other (a channels-last tensor's positions, a plane's rows and columns).
  struct Digit {
    std::string linear;
    std::vector<std::string> shape;
    size_t dim;
  };
  void note_digit(const std::string& var, Digit d) { digits_[var] = std::move(d); }
  const Digit* digit(const std::string& var) const {
    auto it = digits_.find(var);
    return it == digits_.end() ? nullptr : &it->second;
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
  std::map<std::string, Digit> digits_;
  int indent_ = 1;
  int next_tmp_ = 0;
  bool training_ = false;
};

// An element expression at an index, written into a kernel (returns its variable).
using Element = std::function<std::string(Kernel&, const Index&)>;

// A dropout that drops: p > 0 (p = 0 is the identity in both modes).
bool is_dropout(Op op);
bool drops(const Node& n);

// Row-major decomposition of `linear` over `shape`: the index of each dim.
std::vector<std::string> decompose(Kernel& k, const std::string& linear,
                                   const std::vector<std::string>& shape);
// The row-major offset of the index `idx` into `shape`.
std::string linearize(Kernel& k, const std::vector<std::string>& idx,
                      const std::vector<std::string>& shape);

// A channels-last tensor's dims in memory order: batch, the spatial dims, channels last;
// logical_order turns them back.
std::vector<std::string> memory_order(std::vector<std::string> dims);
std::vector<std::string> logical_order(std::vector<std::string> dims);
// The shape a channels-last iteration enumerates (Index::linear_shape): its memory order,
// marked so that no row-major shape equals it.
std::vector<std::string> channels_last_shape(const std::vector<std::string>& shape);
// torch's memory format of a channels-last tensor of `rank` dims.
std::string memory_format(size_t rank);

// Every load of a kernel goes through here: one per element and mask (later reads reuse it).
// `widen`: fp16 and bf16 elements are computed on in fp32, as PyTorch's own kernels do (and
// Triton's exp, sigmoid and friends take fp32 only); the store rounds to the tensor's type.
std::string load_at(Kernel& k, const std::string& var, const std::string& offset,
                    const std::string& mask, const std::string& other, bool widen = false);
// The mask of a load indexed by `dims`: inside a pooling window, the outer mask when every
// dim is the same at each position (Index::invariant), so that one load serves them all.
std::string load_mask(const Index& idx, const std::vector<std::string>& dims);
// A variable holding `expr`: the expression itself when it is one already.
std::string named(Kernel& k, const std::string& expr);

}  // namespace drtriton::codegen
