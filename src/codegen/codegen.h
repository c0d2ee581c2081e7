// The built-in compiler: a graph in, a KernelBench-format solution out (a `ModelNew` whose
// forward runs Triton kernels, plus library matmul/convolution calls in the default mode).
//
// How a graph becomes kernels (lower.cpp):
// - Every value is either a buffer (a tensor in memory: inputs, parameters, library
//   results, reduction results) or an element expression over buffers. Elementwise ops,
//   layout ops (views, permutes, cat) and pooling windows are expressions; they cost no
//   memory traffic of their own and fuse into whatever kernel reads them.
// - A kernel writes a buffer: a pointwise kernel evaluates an expression over its whole
//   shape; a statistics kernel reduces an expression over some dims (sums, means, max,
//   softmax's max and sum of exponentials, norms' mean and 1/std) in row tiles.
// - Normalizations are statistics plus an expression: softmax is exp(x - max) / sum, with
//   max and sum from one statistics kernel, so what follows it fuses into the same
//   pointwise kernel.
// - Sizes are computed at run time from the inputs' shapes (Value::sym_shape), so the
//   solution runs on other input sizes than the traced ones.
#pragma once

#include <string>
#include <vector>

#include "ir/graph.h"

namespace drtriton {

// One tensor of the reference's state_dict: ModelNew declares the same ones so that one
// state_dict loads into both.
struct StateEntry {
  std::string key;  // "fc.weight", "bn.running_mean"
  TensorType type;
  bool is_buffer = false;
  bool persistent = true;
};

struct CodegenOptions {
  std::string init_params;  // Model.__init__'s parameters after self: "in_f, out_f=10"
  std::vector<StateEntry> state;
  std::string source_name;  // for the header comment
};

struct GeneratedSolution {
  std::string source;  // the Python file
  int kernels = 0;     // @triton.jit kernels in it
  int library_calls = 0;
};

// Throws IrError naming the operator when a node cannot be lowered.
GeneratedSolution generate_solution(const Graph& graph, const CodegenOptions& options);

}  // namespace drtriton
