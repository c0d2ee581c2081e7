// drtriton's IR: a program is a DAG of operator nodes over tensor values.
//
// Semantics every pass respects:
// - Values are tensors with a static shape and a dtype (types.h). A value is a graph
//   input (a forward argument), a free parameter (an nn.Parameter the program declares, or
//   a buffer it registers and reads in forward, indices and masks included: ModelNew builds
//   both as the program does),
//   or the single output of a node. SSA: each value is defined once.
// - Operators are PyTorch's, with PyTorch's semantics, broadcasting and dtype promotion,
//   in the module's default training mode: BatchNorm normalizes with batch statistics and
//   updates its running stats, and Dropout zeroes each element with probability p and
//   scales the others by 1/(1-p) (generated code also follows .eval(), from the same graph,
//   where Dropout is the identity; synthetic programs hold it only with p = 0). Dropout2d
//   and Dropout3d do so per (sample, channel), AlphaDropout as nn.AlphaDropout does.
// - Module ops (Linear, Conv, norms) own their parameters, named "<module>.weight" etc.,
//   exactly as nn.Module's state_dict names them. Two nodes naming one module share its
//   parameters, so they must be the same operator with the same attributes.
// - Nodes are made only by Graph::add_node, which checks arity, attributes and shapes and
//   infers the output type: an invalid graph cannot be built.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "ir/error.h"
#include "ir/op_schema.h"

namespace drtriton {

using ValueId = int;

enum class ValueKind { Input, Param, Node };

// How an input or a parameter is drawn: from a normal distribution, or positive (uniform
// in [0.1, 1.1)) for a value that feeds log, sqrt, a divisor and the like.
enum class Init { Normal, Positive };

struct Value {
  std::string name;  // without the '%'
  TensorType type;
  ValueKind kind = ValueKind::Input;
  int node = -1;  // the defining node's index when kind is Node
  Init init = Init::Normal;
  // The shape as torch.export's dynamic trace saw it, one expression per dim over the
  // input sizes ("s0", "(s1//2)", "3"): what generated code computes at run time, so that
  // it runs on other input sizes than the traced ones. Empty when unknown (static).
  std::vector<std::string> sym_shape;
};

// Size expressions (Value::sym_shape, Node::sym_attrs) are Python text over the size
// symbols; these say what one is at a glance.
bool is_digits(const std::string& s);      // a number: "1024"
bool is_identifier(const std::string& s);  // one name: "s0", "batch_size"

struct Node {
  Op op;
  std::vector<ValueId> inputs;
  Attrs attrs;         // complete: every attribute of the op, defaults filled in
  std::string module;  // the nn.Module attribute name; "" for a functional call
  ValueId output = -1;
  std::string source;  // "program.py:12": the line it was traced from; "" if unknown
  // Number attributes that forward computes from sizes (`x / x.size(0)`: div_scalar's
  // `other`): attribute -> its expression over the size symbols, as in Value::sym_shape.
  // The attribute itself holds the traced value.
  std::map<std::string, std::string> sym_attrs;

  const OpSchema& schema() const { return op_schema(op); }
};

class Graph {
 public:
  ValueId add_input(const std::string& name, const TensorType& type, Init init = Init::Normal);
  ValueId add_param(const std::string& name, const TensorType& type, Init init = Init::Normal);
  // The factory. An empty name picks the next free number ("%7"). Throws IrError naming
  // the operator, the input and the reason.
  ValueId add_node(Op op, const std::vector<ValueId>& inputs, Attrs attrs = {},
                   const std::string& module = "", const std::string& name = "");
  void set_outputs(const std::vector<ValueId>& outputs);
  // Throws IrError when `dims` does not have the value's rank.
  void set_sym_shape(ValueId id, std::vector<std::string> dims);
  // Throws IrError when `id` is not a node's value or its op has no number attribute `attr`.
  void set_sym_attr(ValueId id, const std::string& attr, std::string expr);
  // The source line of the nodes added from now on ("program.py:12"; "" for none).
  void set_source(std::string source) { source_ = std::move(source); }

  const Value& value(ValueId id) const { return values_.at(id); }
  const std::vector<Value>& values() const { return values_; }
  const std::vector<Node>& nodes() const { return nodes_; }
  const std::vector<ValueId>& inputs() const { return inputs_; }
  const std::vector<ValueId>& params() const { return params_; }
  const std::vector<ValueId>& outputs() const { return outputs_; }
  ValueId find_value(const std::string& name) const;  // -1 when absent

  // The parameters and buffers a module node owns, by their state_dict names.
  std::vector<ParamSpec> node_params(const Node& node) const;
  double node_flops(const Node& node) const;
  // Bytes a node reads and writes if run alone: its inputs, parameters and output.
  int64_t node_bytes(const Node& node) const;
  double flops() const;
  int64_t bytes() const;
  // Bytes the program must move however it is fused: each input, parameter and buffer read
  // once, each output written once (the memory side of its roofline limit).
  int64_t io_bytes() const;
  // Number of compute operators (the paper's difficulty): nodes that are not Layout.
  int compute_ops() const;

 private:
  ValueId add_value(const std::string& name, const TensorType& type, ValueKind kind);
  void check_module_name(const Node& node) const;

  std::vector<Value> values_;
  std::vector<Node> nodes_;
  std::vector<ValueId> inputs_, params_, outputs_;
  int next_number_ = 0;
  std::string source_;
};

// Is this a valid value name: [A-Za-z0-9_]+ (module names may also contain dots)?
bool is_valid_name(const std::string& name, bool allow_dots = false);

// A clamp (clamp_min, clamp_max) of an integer tensor: its bounds are integers (the shape
// rule refuses others) and are written as integers, so the result keeps the integer dtype.
bool is_integer_clamp(const Graph& g, const Node& n);

}  // namespace drtriton
