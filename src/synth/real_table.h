// The table of the --dist real distribution (real_dist.json, or a user's edited copy):
// templates of blocks, anchor weights, families of idioms, the tail's transitions between
// families and the sizes per preset. Loaded and checked once, before any program is
// drawn; a bad edit is an error that names the file and the field (and, for JSON syntax,
// the line). src/synth/README.md describes every field.
#pragma once

#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "ir/op_schema.h"

namespace drtriton {

// One op of an idiom: "add:skip", "mean:spatial:keep", "batch_norm".
struct RealToken {
  std::string text;
  std::vector<Op> ops;  // the op, or a generic name's variants by rank (batch_norm{1,2,3}d)
  std::string operand;  // binary ops: param (default), prev, skip, input
  std::string dims;     // reductions, softmax: spatial, channel, last; "" chooses
  bool keep = false;    // reductions: keepdim
  bool global = false;  // adaptive pools: output size 1
};

// A short op sequence applied to the current value; its cost is its compute ops.
struct RealIdiom {
  std::string text;
  std::vector<RealToken> tokens;
  int cost = 0;
  double weight = 1;
};

struct RealFamily {
  std::string name;
  std::vector<RealIdiom> idioms;
  bool final_only = false;  // only as the program's last idiom
};

// What a template's block is: a kind the builder knows (real_program.cpp), one idiom drawn
// from a family ('@family'), or a literal idiom.
struct RealBlock {
  std::string kind;    // anchor, linear, ..., tail; "family" or "idiom"
  std::string family;  // kind "family"
  RealIdiom idiom;     // kind "idiom"
};

struct RealTemplate {
  std::string name;
  double weight = 1;
  int difficulty_lo = 1, difficulty_hi = 1 << 30;
  std::vector<RealBlock> blocks;
  std::set<Op> ops;  // every op its blocks can produce (coverage draws only these)
};

struct RealRange {
  int64_t lo = 1, hi = 1;
};

struct RealSizes {
  RealRange batch, channels, spatial, features, tokens, head_dim;
  int64_t min_output = 1;
};

struct RealTable {
  std::string source;  // the file, for messages
  std::vector<RealTemplate> templates;
  std::vector<std::pair<Op, double>> anchors;
  std::map<std::string, RealFamily> families;
  // tail[from]: the next family's weights after `from` ("start": a tail's first).
  std::map<std::string, std::vector<std::pair<std::string, double>>> tail;
  std::map<std::string, RealSizes> sizes;  // by --size preset

  // The sizes for a preset; throws std::invalid_argument naming the file when absent.
  const RealSizes& sizes_for(const std::string& preset) const;
};

// The compute ops each block kind of the builder adds (a tail: those it is given).
// Throws std::out_of_range for an unknown kind.
int real_block_cost(const std::string& kind);

// The table shipped with drtriton: src/synth/real_dist.json, or the copy beside an installed
// binary (the Python package's drtriton/_bin/real_dist.json).
std::string default_real_table_path();
// Throws std::invalid_argument "FILE: FIELD: what is wrong".
RealTable load_real_table(const std::string& path);

}  // namespace drtriton
