// Shapes and attributes for a structure (CSP-DAG, layer 2): every dim and attribute is a
// variable with a feasible range given the choices before it (broadcasting, channel and
// group divisibility, kernel/stride/padding validity, every dim within the size preset),
// chosen uniformly in that range; the whole program must fit the FLOP and byte budget.
// Nodes are built through the IR's factory, so an emitted program is valid by construction.
#pragma once

#include <optional>
#include <random>
#include <string>

#include "ir/graph.h"
#include "synth/structure.h"

namespace drtriton {

struct SizePreset {
  std::string name;
  int64_t batch_lo, batch_hi;      // dim 0 of inputs
  int64_t channel_lo, channel_hi;  // dim 1 of rank >= 3 inputs; conv out_channels
  int64_t spatial_lo, spatial_hi;  // the other dims of inputs
  int64_t feature_lo, feature_hi;  // last dims of rank <= 2 inputs; linear out_features
  double max_flops, max_bytes;
};

// tiny: milliseconds on a CPU; small: a fast GPU test; bench: about 1 to 20 ms on an
// H100-class GPU. Throws std::invalid_argument for another name.
SizePreset size_preset(const std::string& name);

// The sampling range of a float attribute (validity is the op table's; this is what
// programs people write look like).
double sample_float_attr(std::mt19937_64& rng, Op op, const std::string& name);

// The base of a module's attribute name: "fc" for a Linear, "conv", "bn", ...
const char* module_prefix(Op op);

// A graph for the structure, or nothing when no choice within `attempts` fits the budget
// without being degenerate (degenerate.h).
std::optional<Graph> build_program(const std::vector<Step>& steps, const SizePreset& sizes,
                                   std::mt19937_64& rng, int attempts = 32);

}  // namespace drtriton
