// Fragments: a contiguous run of a graph's nodes (in their order, which is topological) as a
// program of its own, for test-time search (docs/design.md, Test-time search). A fragment
// reads what earlier nodes, the graph's inputs and its free parameters give it, and returns
// what later nodes or the graph's outputs read. Module ops keep their module names, so the
// fragment's state_dict keys are the whole program's: a solution of the fragment reads its
// weights where a solution of the whole program would (`self.get_parameter("conv.weight")`).
#pragma once

#include <vector>

#include "ir/graph.h"

namespace drtriton {

struct Fragment {
  int begin = 0, end = 0;        // nodes [begin, end) of the whole graph
  std::vector<ValueId> inputs;   // the whole graph's values it reads, in argument order
  std::vector<ValueId> outputs;  // the whole graph's values it returns, in order
  Graph graph;                   // the fragment as a graph of its own
};

// Throws IrError when the range is empty or out of bounds, or when the fragment computes
// nothing that is read after it (every value it defines is dead).
Fragment extract_fragment(const Graph& whole, int begin, int end);

}  // namespace drtriton
