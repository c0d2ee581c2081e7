// The operator table: one OpSchema per operator of ops.def, with everything the later
// stages ask of an operator (attributes, shape and dtype rules, parameters, cost, and its
// PyTorch spellings). The sampler draws from the same table that the factory checks.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "ir/attr.h"
#include "ir/types.h"

namespace drtriton {

enum class Op {
#define OP(Enum, name, category, arity) Enum,
#include "ir/ops.def"
#undef OP
};

enum class Category { Anchor, Unary, Binary, Reduction, Normalization, Pooling, Layout };
std::string_view category_name(Category category);

// What an input must hold for the output to be finite (the sampler feeds it such values).
enum class Domain { Any, Positive, NonNegative, NonZero };
std::string_view domain_name(Domain domain);

// What the output is known to hold, whatever the attributes: the sampler tracks it so
// that log, sqrt, division and friends only ever see inputs in their domain.
enum class OutDomain { Real, NonNegative, Positive, SameAsInputs };

// Whether the output's magnitude stays modest (|y| of order 10) when the inputs' does:
// exp, pow and square overflow float32 on large inputs, so the sampler feeds them only
// bounded values.
enum class Magnitude { Unbounded, Bounded, SameAsInputs };

// A tensor a module op owns: a trained parameter or a buffer (BatchNorm's running stats).
struct ParamSpec {
  std::string name;  // relative to the module: "weight", "running_mean"
  TensorType type;
  bool is_buffer = false;
};

// Shape rules see the input types and may normalize attributes (negative dims to
// non-negative, -1 in a reshape to its size); they throw IrError on invalid use.
using ShapeRule = TensorType (*)(const std::vector<TensorType>& inputs, Attrs& attrs);
using ParamRule = std::vector<ParamSpec> (*)(const Attrs& attrs);
using FlopsRule = double (*)(const std::vector<TensorType>& inputs, const TensorType& output,
                             const Attrs& attrs);

struct OpSchema {
  Op op;
  std::string name;
  Category category;
  int arity;  // tensor inputs; -1: a list of at least one (cat)
  std::vector<AttrSpec> attrs;
  ShapeRule infer_shape;
  ParamRule params;  // nullptr: the op owns no parameters
  FlopsRule flops;   // nullptr: flops_per_element times the larger of input and output
  double flops_per_element = 1;
  // PyTorch spellings, as emit templates: $0 $1 $2 are the inputs, $* all of them,
  // {attr} an attribute's value ({dtype}: the torch dtype), {attr?} ", attr=value" only where
  // it differs from the default, $d ", device=X.device" for the program's first input X,
  // $: one ":, " for each dim before attribute dim (x[:, :, idx]).
  // torch_module builds an nn.Module (called as self.NAME(x)); an empty torch_function
  // means the op exists only as a module.
  std::string torch_module;
  std::string torch_function;
  std::vector<std::string> aten;  // the aten operators import maps onto this op
  Domain domain = Domain::Any;    // what input domain_input must hold
  int domain_input = 0;
  // The input that holds integer indices (embedding's ids, nll_loss's targets); -1: none.
  // Every other input of a compute op must be floating point.
  int index_input = -1;
  OutDomain out_domain = OutDomain::Real;
  Magnitude magnitude = Magnitude::Unbounded;
  bool needs_bounded_input = false;
  // The ranks input 0 may have (the shape rule's own check; the sampler reads it).
  int min_rank = 0, max_rank = 8;
  // Inputs may have any dtype (masks: triu of a bool tensor, `mask == 0`), not only floating.
  bool any_dtype = false;
  // Drawn by the program generator (synth). False for operators that import and convert
  // know but the generator does not draw yet: its default vocabulary leaves them out.
  bool sampled = true;

  const AttrSpec* find_attr(std::string_view attr_name) const;
  bool needs_module() const { return torch_function.empty(); }
};

const OpSchema& op_schema(Op op);
const std::vector<OpSchema>& all_op_schemas();
// nullptr when no operator has that name.
const OpSchema* find_op(std::string_view name);

}  // namespace drtriton
