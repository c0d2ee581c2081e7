// aten calls that have no operator of their own but are a few of ours: the losses (MSE, L1,
// smooth L1, Huber, KL divergence, triplet margin, cross entropy with label smoothing or
// class probabilities), cosine similarity, the activations log_sigmoid, hardshrink,
// softshrink, threshold, celu and prelu, clamp with tensor bounds, powers of a tensor
// exponent or a number base, diagonals and trace, unfold into patches, linalg_norm,
// masked_fill, einsum (permutes around one matmul where it is one, else a product and a
// sum), and F.linear and F.layer_norm on weights no module owns (a transpose and a matmul;
// means and a reciprocal square root).
// pytorch_import asks here before it reports a call as unsupported; the composed values get
// symbolic shapes from their inputs, so the solution still runs on other input sizes. Calls
// composed nowhere here may still be traced through torch's own decompositions (drtriton
// convert asks the frontend for that on an ImportError).
#pragma once

#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "ir/graph.h"

namespace drtriton {

// The symbolic shape of node `n` of `g`, from its inputs': each output dim is the input dim it
// comes from (or a sum over it, where a pad widens it). Empty (static sizes) when an input has
// none or the op has no rule here.
std::vector<std::string> sym_shape_of(const Graph& g, const Node& n);

// The IR spelling of a torch dtype name the frontend writes ("float32" -> "f32"), none for a
// dtype the IR has not; torch_name_of gives the name as written, for messages.
std::optional<std::string> ir_dtype_of(const nlohmann::json& torch_name);
std::string torch_name_of(const nlohmann::json& torch_name);

// Is `target` ("aten::mse_loss") composed here?
bool is_composed(const std::string& target);

// Is `target` a function of real numbers composed here (atan, hypot)? PyTorch computes an
// integer input of one in the floating dtype of its result; masks and targets stay integers.
bool composes_real_function(const std::string& target);

// Was `v` made by compose_call (a value named "<call>__<k>")? The reference made no call of
// its own for it: a library call for it would be one the reference does not make.
bool composed_on_import(const Value& v);

// Builds the nodes of one composed call into `g` and returns the value that stands for its
// result. `inputs` are the call's tensor arguments in schema order, `args` its other
// arguments by schema name, `name` the traced node's name (the nodes are "<name>__<k>").
// Throws IrError for a form it does not compose (p = 1 norms, einsum with a diagonal).
ValueId compose_call(Graph& g, const std::string& target, const std::vector<ValueId>& inputs,
                     const std::map<std::string, nlohmann::json>& args, const std::string& name);

}  // namespace drtriton
