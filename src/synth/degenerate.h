// Degenerate programs, which both synthetic distributions reject: a binary op over one
// value (x - x, x + x, torch.maximum(x, x)), or an output that provably does not depend on
// one of the program's inputs (relu(-exp(x)), softmax over a dim of size 1, the sum of a
// softmax along its own dim, ...). The verifier rejects every candidate for such a task,
// so it teaches nothing.
//
// The check is static and cheap (one pass over the nodes): value numbering finds binary
// ops over one value; an interval analysis and a few shape rules find values that are
// provably constant; a value depends on the inputs its operands depend on, except a
// constant value, which depends on none. It cannot prove that an output does depend on an
// input (an algebraic cancellation it does not know would pass), which is why
// tests/python/test_synth.py also runs emitted programs on two input draws.
#pragma once

#include <string>

#include "ir/graph.h"

namespace drtriton {

// Why `graph` is degenerate, naming the node; "" when no rule finds it so.
std::string find_degenerate(const Graph& graph);

}  // namespace drtriton
