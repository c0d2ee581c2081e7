// Programs of the --dist real distribution: built around anchors, as real blocks are, from
// the table of real_table.h. A template is drawn by weight among those that admit the
// difficulty; its blocks are planned (the tails share the compute ops the other blocks
// leave); then the graph is built value by value through the IR's factory. Each tail is a
// walk over the table's families: each idiom is tried on a copy of the program and kept
// only if every op applies (rank, domain, magnitude, shapes), so the walk never needs to
// backtrack further than one idiom.
#pragma once

#include <optional>
#include <random>

#include "ir/graph.h"
#include "synth/program.h"
#include "synth/real_table.h"

namespace drtriton {

struct RealProgram {
  Graph graph;
  std::string template_name;
};

// A graph of exactly `difficulty` compute ops within the preset's FLOP and byte budget, with
// an output of at least the table's min_output elements unless its last tail reduces, not
// degenerate (degenerate.h), using only ops of `vocab` (all, if empty) and `target` if set;
// nothing when `attempts` draws found none.
std::optional<RealProgram> build_real_program(const RealTable& table, int difficulty,
                                              const SizePreset& preset, std::mt19937_64& rng,
                                              std::optional<Op> target = std::nullopt,
                                              const std::vector<Op>& vocab = {}, int attempts = 64);

}  // namespace drtriton
