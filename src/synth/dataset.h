// Datasets of synthetic programs: N programs at a difficulty or a range of them, each
// with a structure drawn uniformly (or, for coverage, uniformly among the structures that
// contain a given operator), shapes and attributes by constraint solving, and its IR,
// PyTorch source and cost. Every program derives from its own seed, so the output is the
// same byte for byte whatever the number of threads.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "synth/program.h"
#include "synth/real_table.h"

namespace drtriton {

// uniform: every valid structure equally likely (exact counting, docs/design.md, CSP-DAG);
// real: programs built around anchors as real blocks are (real_program.h), the default
// for training data.
enum class Distribution { Uniform, Real };

struct ProgramRecord {
  std::string id;
  uint64_t seed = 0;
  int difficulty = 0;
  std::vector<std::string> ops;
  std::string structure, ir, pytorch;
  double flops = 0;
  int64_t bytes = 0;
  std::string dist;         // "uniform" or "real"
  int redraws = 0;          // draws before this one that failed (no shapes in budget, degenerate)
  int numeric_redraws = 0;  // seeds drawn before this one that the numeric check flagged
  nlohmann::json to_json() const;
};

struct SynthOptions {
  Distribution dist = Distribution::Uniform;
  std::shared_ptr<const RealTable> real_table;  // for Real; nullptr: the shipped table
  int count = 100;
  int difficulty_lo = 1, difficulty_hi = 1;  // each program's difficulty: uniform in range
  uint64_t seed = 1;
  std::vector<Op> ops;  // the vocabulary
  int cover = 0;        // every op of the vocabulary in at least this many programs
  SizePreset sizes = size_preset("tiny");
  int jobs = 1;
  // The numeric check (an output that is the same on two input draws, which the static one
  // cannot rule out; it runs PyTorch, so the caller supplies it): one flag per program
  // given, true for those to draw again. Empty: no check.
  std::function<std::vector<bool>(const std::vector<ProgramRecord>&)> numeric_check;
};

// The default vocabulary: every operator but the four that compute nothing (clone,
// contiguous, identity, dropout), which a dataset can still name explicitly.
std::vector<Op> default_vocabulary();

// The seed of the fixed evaluation suites; training data may not use it.
constexpr uint64_t kSuiteSeed = 0x5eed5017e;

// How many times a program may be drawn again after failing the numeric check.
constexpr int kMaxNumericRedraws = 20;

// Throws std::invalid_argument for options that cannot be met (an operator that cannot
// appear at the requested difficulty, more coverage than programs, a program that still
// fails the numeric check after kMaxNumericRedraws redraws). `progress` is called with the
// number of finished programs. With a numeric check, the flagged programs are drawn again
// from seeds derived from their own, in rounds, so the output still does not depend on `jobs`.
std::vector<ProgramRecord> synthesize(const SynthOptions& options,
                                      const std::function<void(int)>& progress = {});

}  // namespace drtriton
