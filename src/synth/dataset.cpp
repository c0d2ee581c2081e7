#include "synth/dataset.h"

#include <atomic>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <thread>

#include "ir/pytorch_emit.h"
#include "ir/text.h"
#include "synth/real_program.h"

namespace drtriton {

nlohmann::json ProgramRecord::to_json() const {
  return {{"id", id},           {"seed", seed},           {"difficulty", difficulty},
          {"ops", ops},         {"structure", structure}, {"ir", ir},
          {"pytorch", pytorch}, {"flops", flops},         {"bytes", bytes},
          {"dist", dist}};
}

std::vector<Op> default_vocabulary() {
  std::vector<Op> ops;
  for (const OpSchema& s : all_op_schemas()) {
    if (s.op == Op::Clone || s.op == Op::Contiguous || s.op == Op::Identity ||
        s.op == Op::Dropout || !s.sampled)
      continue;
    ops.push_back(s.op);
  }
  return ops;
}

namespace {

// SplitMix64: decorrelates the per-program seeds derived from one dataset seed.
uint64_t mix(uint64_t x) {
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

// Mixed into a program's seed to draw it again after the numeric check flagged it.
constexpr uint64_t kNumericRedrawTag = 0x6e756d6572696300ull;  // "numeric"

struct Plan {
  uint64_t seed;
  int difficulty;
  std::optional<Op> target;  // coverage: the structure must use this op
};

ProgramRecord record_of(int index, const Plan& plan, int difficulty, const Graph& g,
                        std::string structure, const char* dist, int redraws) {
  ProgramRecord r;
  char id[32];
  std::snprintf(id, sizeof id, "p%06d", index);
  r.id = id;
  r.seed = plan.seed;
  r.difficulty = difficulty;
  for (const Node& n : g.nodes()) r.ops.push_back(n.schema().name);
  r.structure = std::move(structure);
  r.ir = print_graph(g);
  r.pytorch = emit_pytorch(g);
  r.flops = g.flops();
  r.bytes = g.bytes();
  r.dist = dist;
  r.redraws = redraws;
  return r;
}

// A graph for one planned program; a structure whose shapes cannot be solved within
// budget (or only degenerately) is replaced by another draw from the same space.
ProgramRecord make_program(int index, const Plan& plan, const StructureSpace& space,
                           const SizePreset& sizes) {
  std::mt19937_64 rng(plan.seed);
  for (int attempt = 0; attempt < 200; ++attempt) {
    std::vector<Step> steps = space.sample(rng, plan.difficulty);
    std::optional<Graph> g = build_program(steps, sizes, rng);
    if (g)
      return record_of(index, plan, plan.difficulty, *g, structure_text(steps), "uniform", attempt);
  }
  throw std::runtime_error(
      "no program of difficulty " + std::to_string(plan.difficulty) +
      " fits the size budget; raise --max-flops/--max-bytes or choose a larger --size");
}

// A --dist real program; for coverage, where the target cannot appear at the planned
// difficulty, the next one in the range (cyclically) where it can.
ProgramRecord make_real_program(int index, const Plan& plan, const RealTable& table,
                                const SynthOptions& o, const std::vector<Op>& vocab) {
  std::mt19937_64 rng(plan.seed);
  const int span = o.difficulty_hi - o.difficulty_lo + 1;
  for (int step = 0; step < (plan.target ? span : 1); ++step) {
    int k = o.difficulty_lo + (plan.difficulty - o.difficulty_lo + step) % span;
    for (int round = 0; round < 4; ++round) {
      std::optional<RealProgram> p = build_real_program(table, k, o.sizes, rng, plan.target, vocab);
      if (p) return record_of(index, plan, k, p->graph, "real: " + p->template_name, "real", round);
    }
  }
  std::string range = std::to_string(o.difficulty_lo) + ":" + std::to_string(o.difficulty_hi);
  if (plan.target) {
    throw std::invalid_argument("operator " + op_schema(*plan.target).name +
                                " cannot appear in a --dist real program of difficulty " + range +
                                " with this vocabulary and table (" + table.source + ")");
  }
  throw std::invalid_argument("no --dist real program of difficulty " +
                              std::to_string(plan.difficulty) +
                              " fits the size budget with this vocabulary and table (" +
                              table.source + "); try --dist uniform or a larger --size");
}

}  // namespace

std::vector<ProgramRecord> synthesize(const SynthOptions& o,
                                      const std::function<void(int)>& progress) {
  if (o.count < 0) throw std::invalid_argument("--count must be at least 0");
  if (o.difficulty_lo < 1 || o.difficulty_hi < o.difficulty_lo ||
      o.difficulty_hi > kMaxDifficulty) {
    throw std::invalid_argument("--difficulty must be K or A:B with 1 <= A <= B <= " +
                                std::to_string(kMaxDifficulty));
  }
  std::vector<Op> vocab = o.ops.empty() ? default_vocabulary() : o.ops;
  if (static_cast<int64_t>(o.cover) * static_cast<int64_t>(vocab.size()) > o.count) {
    throw std::invalid_argument("--cover " + std::to_string(o.cover) + " needs at least " +
                                std::to_string(o.cover * vocab.size()) + " programs for " +
                                std::to_string(vocab.size()) + " operators; --count is " +
                                std::to_string(o.count));
  }
  // The unconstrained space (every difficulty of the range), shared read-only by the threads;
  // the real distribution's table instead.
  const bool real = o.dist == Distribution::Real;
  std::shared_ptr<const RealTable> table = o.real_table;
  if (real && !table)
    table = std::make_shared<RealTable>(load_real_table(default_real_table_path()));
  std::unique_ptr<StructureSpace> space;
  if (!real)
    space = std::make_unique<StructureSpace>(SpaceOptions{vocab, o.difficulty_hi, std::nullopt});
  // Plan every program from its own seed; the first cover * |vocab| programs each must
  // use one operator, round robin.
  std::vector<Plan> plans(o.count);
  const int span = o.difficulty_hi - o.difficulty_lo + 1;
  for (int i = 0; i < o.count; ++i) {
    uint64_t seed = mix(o.seed ^ mix(static_cast<uint64_t>(i)));
    plans[i] = {seed, o.difficulty_lo + static_cast<int>(mix(seed) % static_cast<uint64_t>(span)),
                std::nullopt};
    if (i < o.cover * static_cast<int>(vocab.size())) plans[i].target = vocab[i % vocab.size()];
  }
  // Work is grouped by coverage target, so a thread builds each constrained space once;
  // unconstrained programs go in chunks.
  auto group_work = [&](const std::vector<int>& indices) {
    std::map<int, std::vector<int>> by_target;
    std::vector<std::pair<int, std::vector<int>>> work;
    for (int i : indices) {
      if (plans[i].target) {
        by_target[static_cast<int>(*plans[i].target)].push_back(i);
        continue;
      }
      if (work.empty() || work.back().second.size() >= 256) work.push_back({-1, {}});
      work.back().second.push_back(i);
    }
    work.insert(work.begin(), by_target.begin(), by_target.end());
    return work;
  };
  std::vector<ProgramRecord> records(o.count);
  std::atomic<int> done{0};
  std::mutex progress_mutex;
  bool redrawing = false;  // the progress bar counts the planned programs only
  auto report = [&](int n) {
    if (!progress || redrawing) return;
    std::lock_guard<std::mutex> lock(progress_mutex);
    progress(n);
  };
  std::vector<std::pair<int, std::vector<int>>> work;
  std::atomic<size_t> next_group{0};
  std::mutex error_mutex;
  std::string error;  // of the first failing group in work order, so the same on any --jobs
  size_t error_group = SIZE_MAX;
  auto worker = [&] {
    for (size_t g; (g = next_group++) < work.size();) {
      const auto& [target, members] = work[g];
      try {
        std::unique_ptr<StructureSpace> own;  // this target's space
        for (int i : members) {
          Plan plan = plans[i];
          if (real) {
            records[i] = make_real_program(i, plan, *table, o, o.ops);
            report(++done);
            continue;
          }
          const StructureSpace* drawn_from = space.get();
          if (target >= 0) {
            // Where the op cannot appear at the planned difficulty, the next one in the
            // range (cyclically) that admits it.
            if (!own)
              own = std::make_unique<StructureSpace>(
                  SpaceOptions{vocab, o.difficulty_hi, static_cast<Op>(target)});
            drawn_from = nullptr;
            for (int step = 0; step < span && !drawn_from; ++step) {
              int k = o.difficulty_lo + (plan.difficulty - o.difficulty_lo + step) % span;
              if (!own->count(k).is_zero()) {
                drawn_from = own.get();
                plan.difficulty = k;
              }
            }
            if (!drawn_from) {
              throw std::invalid_argument(
                  "operator " + op_schema(static_cast<Op>(target)).name +
                  " cannot appear in a program of difficulty " + std::to_string(o.difficulty_lo) +
                  ":" + std::to_string(o.difficulty_hi) + " with this vocabulary");
            }
          }
          records[i] = make_program(i, plan, *drawn_from, o.sizes);
          report(++done);
        }
      } catch (const std::exception& e) {
        std::lock_guard<std::mutex> lock(error_mutex);
        if (g < error_group) error = e.what(), error_group = g;
        next_group = work.size();
      }
    }
  };
  // Builds the programs of `indices` into `records` on o.jobs threads.
  auto build = [&](const std::vector<int>& indices) {
    work = group_work(indices);
    next_group = 0;
    error_group = SIZE_MAX;
    std::vector<std::thread> threads;
    for (int t = 1; t < std::max(1, o.jobs); ++t) threads.emplace_back(worker);
    worker();
    for (std::thread& t : threads) t.join();
    if (!error.empty()) throw std::invalid_argument(error);
  };
  std::vector<int> pending(o.count);
  for (int i = 0; i < o.count; ++i) pending[i] = i;
  build(pending);
  if (!o.numeric_check) return records;
  // Each round checks the programs drawn in the last one and draws the flagged ones again,
  // from a seed that depends only on their previous one.
  for (int round = 1; !pending.empty(); ++round) {
    std::vector<ProgramRecord> drawn;
    for (int i : pending) drawn.push_back(records[i]);
    std::vector<bool> flagged = o.numeric_check(drawn);
    std::vector<int> again;
    for (size_t k = 0; k < pending.size(); ++k)
      if (flagged.at(k)) again.push_back(pending[k]);
    if (!again.empty() && round > kMaxNumericRedraws) {
      const ProgramRecord& r = records[again[0]];
      std::string ops;
      for (const std::string& op : r.ops) ops += (ops.empty() ? "" : " ") + op;
      throw std::invalid_argument(
          std::to_string(again.size()) +
          (again.size() == 1 ? " program still fails" : " programs still fail") +
          " the numeric check after " + std::to_string(kMaxNumericRedraws) + " redraws (" + r.id +
          " of difficulty " + std::to_string(r.difficulty) + ": " + ops +
          "); this vocabulary and difficulty leave too few programs whose output depends on "
          "their inputs");
    }
    if (again.empty()) break;
    for (int i : again) plans[i].seed = mix(plans[i].seed ^ kNumericRedrawTag);
    redrawing = true;
    build(again);
    for (int i : again) records[i].numeric_redraws = round;
    pending = std::move(again);
  }
  return records;
}

}  // namespace drtriton
