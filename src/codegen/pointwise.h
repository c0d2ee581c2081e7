// Elementwise operators in Triton: one formula per operator of the Unary and Binary
// categories, over argument expressions that are already Triton values.
#pragma once

#include <map>
#include <set>
#include <string>
#include <vector>

#include "ir/graph.h"

namespace drtriton {

// Triton device functions the formulas may call (accurate tanh, expm1, log1p, written with
// tl's core operations so that Triton's CPU interpreter runs them too): name -> source.
const std::vector<std::pair<std::string, std::string>>& pointwise_helpers();

// The formula for `node` applied to `args` (one per tensor input). Adds to `helpers` the
// names of the device functions it calls. `scalars` replaces number attributes by
// expressions (a size the kernel takes as an argument). Throws IrError for an operator
// that is not elementwise.
std::string pointwise_formula(const Node& node, const std::vector<std::string>& args,
                              std::set<std::string>& helpers,
                              const std::map<std::string, std::string>& scalars = {});

// A float as a Triton/Python literal: 0.5, 1e-05, float('inf').
std::string float_literal(double value);

}  // namespace drtriton
