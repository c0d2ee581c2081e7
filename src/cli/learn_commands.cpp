// drtriton pairs: the supervised warm-up pairs (docs/design.md, Policies: the built-in compiler is
// the teacher). Synthetic programs from a seed space of their own, each traced by the
// frontend and compiled over several codegen knob settings (CodegenKnobs), every candidate
// judged by the verifier on one worker pool; the accepted pairs are written as JSON lines, one
// per pair, with their verdicts, and a report says what was made, what was rejected and which
// operators the pairs cover. src/cli/README.md describes the steps. Also `drtriton train`,
// which hands the training loops to Python.
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <map>
#include <memory>
#include <random>
#include <set>
#include <thread>

#include "cli/commands.h"
#include "cli/io.h"
#include "eval/sha256.h"
#include "eval/verdict_cache.h"
#include "eval/verifier.h"
#include "ir/pytorch_import.h"
#include "synth/dataset.h"

namespace fs = std::filesystem;
using json = nlohmann::json;

namespace drtriton::cli {

namespace {

struct PairsArgs {
  int count = 100, variants = 2, workers = 0, jobs = 0;
  std::string difficulty = "1:5", out, rejected, dist = "real", device, size = "tiny", cache;
  uint64_t seed = 1;
  double timeout = 300;
  bool compile_timing = false;
};

// One solution of one program: `error` when the compiler failed, else `solution`, and the
// verdict once judged.
struct Candidate {
  size_t program = 0;
  int variant = 0;  // 0: the compiler's defaults
  CodegenKnobs knobs;
  std::string solution, error_stage, error;
  json verdict;
  std::string id(const std::vector<ProgramRecord>& programs) const {
    return programs[program].id + "_v" + std::to_string(variant);
  }
};

// What the run did, for the report.
struct PairsStats {
  int duplicates = 0, short_of_variants = 0, traced_ok = 0;
  double synth_s = 0, trace_s = 0, compile_s = 0, verify_s = 0;
};

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

// SplitMix64's finalizer: a bijection that scatters nearby inputs.
uint64_t scatter(uint64_t x) {
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

// Seeds of their own: the dataset seed of `pairs --seed S` is a hash of S under this tag, not
// S, so no --seed here reproduces `synth --seed S` (which may be a model's test data) nor the
// evaluation suites' dataset seeds (kSuiteSeed + difficulty, checked below). Per-program
// seeds derive from the dataset seed as in synth, so they meet a suite's only by a 64-bit
// coincidence.
constexpr uint64_t kPairsDomain = 0x7061697273000000ull;     // "pairs"
constexpr uint64_t kVariantsDomain = 0x6b6e6f6273000000ull;  // "knobs"

uint64_t pairs_dataset_seed(uint64_t seed) {
  uint64_t s = scatter(kPairsDomain ^ scatter(seed));
  if (s >= kSuiteSeed && s < kSuiteSeed + 100) {
    throw CLI::ValidationError(
        "--seed", std::to_string(seed) + " maps onto an evaluation suite's seed; choose another");
  }
  return s;
}

// --difficulty K or A:B with 1 <= A <= B <= kMaxDifficulty; a usage error names the flag.
std::pair<int, int> parse_difficulty(const std::string& text) {
  auto bad = [&](const std::string& why) {
    return CLI::ValidationError("--difficulty", why + ", got '" + text + "'");
  };
  size_t colon = text.find(':');
  auto number = [&](const std::string& part) {
    size_t used = 0;
    int v = 0;
    try {
      v = std::stoi(part, &used);
    } catch (const std::exception&) {
      throw bad("expected K or A:B");
    }
    if (used != part.size()) throw bad("expected K or A:B");
    return v;
  };
  int lo = number(text.substr(0, colon));
  int hi = colon == std::string::npos ? lo : number(text.substr(colon + 1));
  if (lo < 1 || hi < lo || hi > kMaxDifficulty) {
    throw bad("expected 1 <= A <= B <= " + std::to_string(kMaxDifficulty));
  }
  return {lo, hi};
}

int default_jobs() {
  return static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
}

// Step 1: the programs, as `drtriton synth --numeric-check` makes them (same generator, same
// records).
std::vector<ProgramRecord> synthesize_programs(const PairsArgs& a) {
  SynthOptions o;
  try {
    o.sizes = size_preset(a.size);
  } catch (const std::invalid_argument& e) {
    throw CLI::ValidationError("--size", e.what());
  }
  std::tie(o.difficulty_lo, o.difficulty_hi) = parse_difficulty(a.difficulty);
  o.count = a.count;
  o.seed = pairs_dataset_seed(a.seed);
  o.jobs = a.jobs > 0 ? a.jobs : default_jobs();
  o.ops = default_vocabulary();
  if (a.dist == "real") {
    o.dist = Distribution::Real;
    o.real_table = std::make_shared<RealTable>(load_real_table(default_real_table_path()));
  }
  // The verifier rejects every candidate for a program that ignores its inputs (its no-op
  // test): no pair could come of it.
  use_numeric_check(o);
  Progress progress{"synth", o.count};
  try {
    std::vector<ProgramRecord> programs = synthesize(o, progress);
    print_numeric_redraws(programs);
    return programs;
  } catch (const std::invalid_argument& e) {
    throw CliError(e.what());
  }
}

// Step 2: each program's traced graph (or {"error"}), many programs per Python process.
std::vector<json> trace_all(const std::vector<ProgramRecord>& programs, const fs::path& dir,
                            int jobs) {
  fs::create_directories(dir);
  std::vector<std::string> paths;
  for (const ProgramRecord& r : programs) {
    paths.push_back((dir / (r.id + ".py")).string());
    write_output(paths.back(), r.pytorch);
  }
  Progress progress{"trace", static_cast<int>(paths.size())};
  std::vector<json> traced = trace_programs(paths, jobs, progress);
  progress(static_cast<int>(paths.size()));  // ends the line even when some failed
  return traced;
}

json knobs_json(const CodegenKnobs& k) {
  return {{"pointwise_block", k.pointwise_block},
          {"tile_elements", k.tile_elements},
          {"num_warps", k.num_warps},
          {"recompute_limit", k.recompute_limit},
          {"gemm", k.gemm},
          {"gemm_tile", k.gemm_tile},
          {"layout", k.layout},
          {"sizes", k.sizes},
          {"dot_precision", k.dot_precision},
          {"depthwise", k.depthwise}};
}

// Step 3: up to `variants` candidates per traced program with distinct solution text: the
// defaults first, then knob settings drawn from the program's seed (redrawn, a bounded number
// of times, when they give a solution this program already has). A pair seen before (the same
// program text and solution text, from another program) is a duplicate and is left out.
std::vector<Candidate> compile_candidates(const std::vector<ProgramRecord>& programs,
                                          const std::vector<json>& traced, int variants,
                                          PairsStats& stats) {
  std::vector<Candidate> out;
  std::set<std::string> seen_pairs;
  for (size_t p = 0; p < programs.size(); ++p) {
    if (traced[p].contains("error")) {
      const json& error = traced[p]["error"];
      Candidate c{p,     0,       {},
                  "",    "trace", error.is_string() ? error.get<std::string>() : error.dump(),
                  json()};
      out.push_back(c);
      continue;
    }
    ++stats.traced_ok;
    Graph graph;
    CodegenOptions options;
    try {
      graph = import_traced(traced[p]);
      options = codegen_options(traced[p], programs[p].id + ".py");
    } catch (const std::exception& e) {
      out.push_back({p, 0, {}, "", "import", e.what(), json()});
      continue;
    }
    std::mt19937_64 rng(scatter(programs[p].seed ^ kVariantsDomain));
    std::set<std::string> texts;
    int made = 0;
    for (int attempt = 0; made < variants && attempt < 16 * variants; ++attempt) {
      options.knobs = attempt == 0 ? CodegenKnobs{} : draw_knobs(rng);
      Candidate c{p, made, options.knobs, "", "", "", json()};
      try {
        c.solution = generate_solution(graph, options).source;
      } catch (const std::exception& e) {
        c.error_stage = "compile";
        c.error = e.what();
        out.push_back(c);
        ++made;
        continue;
      }
      if (!texts.insert(c.solution).second) continue;  // this program has it already
      ++made;
      if (!seen_pairs.insert(sha256_hex(programs[p].pytorch + '\0' + c.solution)).second) {
        ++stats.duplicates;
        continue;
      }
      out.push_back(std::move(c));
    }
    stats.short_of_variants += made < variants;
  }
  return out;
}

// Step 4: every compiled candidate to the verifier (default options, torch.compile's timing
// only with --compile-timing), in two batches
// on one pool: the defaults' solution of every program first, then the other variants, which
// then find their task's reference timing (eager and torch.compile, the slow part on a CPU)
// in the cache instead of measuring it again.
void verify_candidates(std::vector<Candidate>& candidates,
                       const std::vector<ProgramRecord>& programs, const PairsArgs& a,
                       const std::string& device, const fs::path& work) {
  std::vector<size_t> first, rest;
  for (size_t i = 0; i < candidates.size(); ++i) {
    if (!candidates[i].error_stage.empty()) continue;
    (candidates[i].variant == 0 ? first : rest).push_back(i);
  }
  if (first.empty() && rest.empty()) return;
  PoolConfig config = worker_config("", "auto");
  config.devices = pool_devices(pool_gpus(device, ""), a.workers);
  config.run_timeout_s = a.timeout;
  config.compile_timeout_s = std::min(config.compile_timeout_s, a.timeout);
  VerdictCache cache(a.cache.empty() ? (work / "verdicts.sqlite").string() : a.cache);
  WorkerPool pool(config);
  Verifier verifier(pool, &cache);
  int total = static_cast<int>(first.size() + rest.size());
  std::atomic<bool> finished{false};
  std::thread progress_thread([&] {
    Progress progress{"verify", total, "candidates"};
    for (; !finished; std::this_thread::sleep_for(std::chrono::milliseconds(200)))
      progress(static_cast<int>(verifier.verdicts_served()));
    progress(total);
  });
  auto verify_batch = [&](const std::vector<size_t>& batch) {
    std::vector<VerifyRequest> requests;
    for (size_t i : batch) {
      VerifyRequest r;
      r.task = programs[candidates[i].program].pytorch;
      r.candidate = candidates[i].solution;
      r.options.device = device;
      // The warm-up learns from correct solutions; timing torch.compile too (the slowest
      // part of a verdict) is asked for by --compile-timing.
      if (!a.compile_timing) r.options.compile = false;
      requests.push_back(std::move(r));
    }
    std::vector<json> verdicts = verifier.verify_batch(requests);
    for (size_t k = 0; k < batch.size(); ++k) candidates[batch[k]].verdict = std::move(verdicts[k]);
  };
  try {
    verify_batch(first);
    verify_batch(rest);
  } catch (...) {
    finished = true;
    progress_thread.join();
    throw;
  }
  finished = true;
  progress_thread.join();
}

bool accepted(const Candidate& c) {
  return c.error_stage.empty() && c.verdict.is_object() && c.verdict.value("passed", false);
}

// Step 5: the accepted pairs, one JSON line each (the schema the trainer reads); with
// --rejected, the others in the same form, where a candidate that never reached the verifier
// has the verdict {"passed": false, "failed_stage": "trace" | "import" | "compile", "reason"}.
json pair_json(const Candidate& c, const std::vector<ProgramRecord>& programs) {
  const ProgramRecord& r = programs[c.program];
  json verdict =
      c.error_stage.empty()
          ? c.verdict
          : json{{"passed", false}, {"failed_stage", c.error_stage}, {"reason", c.error}};
  return {{"id", c.id(programs)},           {"seed", r.seed},
          {"difficulty", r.difficulty},     {"ops", r.ops},
          {"program", r.pytorch},           {"solution", c.solution},
          {"variant", knobs_json(c.knobs)}, {"verdict", verdict}};
}

void write_pairs(const std::string& path, const std::vector<Candidate>& candidates,
                 const std::vector<ProgramRecord>& programs, bool accepted_ones) {
  write_atomic(path, [&](std::ostream& out) {
    for (const Candidate& c : candidates) {
      if (accepted(c) == accepted_ones) out << dump_json(pair_json(c, programs)) << "\n";
    }
  });
}

// Where a candidate failed, and why, in one line.
std::pair<std::string, std::string> rejection(const Candidate& c) {
  if (!c.error_stage.empty()) return {c.error_stage, c.error};
  std::string stage = verdict_text(c.verdict, "failed_stage", "");
  if (stage.empty()) stage = "after " + verdict_text(c.verdict, "stage", "none");
  return {stage, verdict_text(c.verdict, "reason", "?")};
}

// Step 6: counts, rejections by stage (a few ids each, with the reason), operator coverage.
void print_report(const std::vector<Candidate>& candidates,
                  const std::vector<ProgramRecord>& programs, const PairsStats& s,
                  const PairsArgs& a, const std::string& device) {
  int judged = 0, passed = 0;
  std::map<std::string, std::vector<std::string>> rejected;  // stage -> "id: reason"
  std::map<std::string, int> pairs_with;
  for (const Candidate& c : candidates) {
    judged += c.error_stage.empty();
    if (accepted(c)) {
      ++passed;
      std::set<std::string> ops(programs[c.program].ops.begin(), programs[c.program].ops.end());
      for (const std::string& op : ops) ++pairs_with[op];
      continue;
    }
    auto [stage, reason] = rejection(c);
    if (reason.size() > 200) reason = reason.substr(0, 197) + "...";
    rejected[stage].push_back(c.id(programs) + ": " + reason);
  }
  double total_s = s.synth_s + s.trace_s + s.compile_s + s.verify_s;
  std::printf(
      "drtriton pairs: %zu programs (%d traced), %zu candidates (%d judged), %d accepted, "
      "%zu rejected, %d duplicates left out -> %s\n",
      programs.size(), s.traced_ok, candidates.size(), judged, passed, candidates.size() - passed,
      s.duplicates, a.out.c_str());
  if (s.short_of_variants > 0) {
    std::printf("  %d programs have fewer than %d distinct solutions\n", s.short_of_variants,
                a.variants);
  }
  std::printf("  verifier accepted %d of %d judged candidates (%.1f%%) on %s\n", passed, judged,
              100.0 * passed / std::max(judged, 1), device.c_str());
  for (const auto& [stage, items] : rejected) {
    std::printf("  rejected at %s: %zu\n", stage.c_str(), items.size());
    for (size_t i = 0; i < std::min<size_t>(3, items.size()); ++i)
      std::printf("    %s\n", items[i].c_str());
  }
  std::printf(
      "  time: %.1f s (synth %.1f, trace %.1f = %.2f programs/s, compile %.1f, verify %.1f)"
      ", %.1f pairs per minute\n",
      total_s, s.synth_s, s.trace_s, programs.size() / std::max(s.trace_s, 1e-9), s.compile_s,
      s.verify_s, 60.0 * passed / std::max(total_s, 1e-9));

  std::vector<Op> vocab = default_vocabulary();
  std::vector<std::string> missing;
  for (const OpSchema& op : all_op_schemas()) {
    if (pairs_with.count(op.name)) continue;
    bool sampled = std::find(vocab.begin(), vocab.end(), op.op) != vocab.end();
    missing.push_back(op.name + (sampled ? "" : " (not sampled)"));
  }
  std::printf("coverage: %zu of %zu operators of the table appear in accepted pairs\n",
              pairs_with.size(), all_op_schemas().size());
  int column = 0;
  for (const OpSchema& op : all_op_schemas()) {
    auto it = pairs_with.find(op.name);
    if (it == pairs_with.end()) continue;
    std::printf("  %-22s %5d%s", op.name.c_str(), it->second, ++column % 3 == 0 ? "\n" : "");
  }
  if (column % 3 != 0) std::printf("\n");
  std::string list;
  for (const std::string& m : missing) list += (list.empty() ? "" : ", ") + m;
  std::printf("  missing (%zu): %s\n", missing.size(), missing.empty() ? "none" : list.c_str());
}

void run_pairs(const PairsArgs& a) {
  if (a.out.empty()) throw CLI::ValidationError("--out", "is required");
  check_output_path(a.out);  // before minutes of work, not after
  check_output_path(a.rejected);
  parse_difficulty(a.difficulty);
  std::string device = !a.device.empty() ? a.device : default_device("");
  pool_gpus(device, "");  // --device cuda with no GPU visible: a usage error before the work
  ScratchDir work{fs::temp_directory_path() / ("drtriton-pairs-" + std::to_string(::getpid()))};
  PairsStats stats;

  auto start = std::chrono::steady_clock::now();
  std::vector<ProgramRecord> programs = synthesize_programs(a);
  stats.synth_s = seconds_since(start);

  start = std::chrono::steady_clock::now();
  std::vector<json> traced =
      trace_all(programs, work.path / "programs", a.jobs > 0 ? a.jobs : default_jobs());
  stats.trace_s = seconds_since(start);

  start = std::chrono::steady_clock::now();
  std::vector<Candidate> candidates = compile_candidates(programs, traced, a.variants, stats);
  stats.compile_s = seconds_since(start);

  start = std::chrono::steady_clock::now();
  verify_candidates(candidates, programs, a, device, work.path);
  stats.verify_s = seconds_since(start);

  write_pairs(a.out, candidates, programs, true);
  if (!a.rejected.empty()) write_pairs(a.rejected, candidates, programs, false);
  print_report(candidates, programs, stats, a, device);
}

}  // namespace

void add_learn_commands(CLI::App& app) {
  auto a = std::make_shared<PairsArgs>();
  auto* pairs = app.add_subcommand(
      "pairs",
      "Write supervised warm-up pairs: synthetic programs and the compiler's verified solutions");
  pairs->add_option("--count", a->count, "Number of programs (default 100)")
      ->check(CLI::NonNegativeNumber);
  pairs->add_option("--difficulty", a->difficulty,
                    "Compute operators per program: K or A:B (default 1:5)");
  pairs->add_option("--out", a->out, "Output JSONL file of accepted pairs")->required();
  pairs->add_option("--rejected", a->rejected,
                    "Also write the rejected candidates, in the same form, to this JSONL file");
  pairs->add_option("--seed", a->seed,
                    "Dataset seed (default 1); pairs hash it into a seed space of their own");
  pairs->add_option("--dist", a->dist, "Program distribution: real (default) or uniform")
      ->check(CLI::IsMember({"real", "uniform"}));
  pairs
      ->add_option("--variants", a->variants,
                   "Solutions per program, each with other codegen knobs (default 2; the first "
                   "uses the compiler's defaults)")
      ->check(CLI::Range(1, 64));
  pairs
      ->add_option("--device", a->device, "Verify on cpu or cuda (default: cuda if there is a GPU)")
      ->check(CLI::IsMember({"cpu", "cuda"}));
  pairs
      ->add_option("--workers", a->workers,
                   "Verifier workers (default: one per core on cpu; up to 8 per GPU on cuda)")
      ->check(CLI::Range(1, 256));
  pairs
      ->add_option("--jobs", a->jobs,
                   "Threads for synthesis and Python processes for tracing (default: all cores)")
      ->check(CLI::Range(1, 256));
  pairs->add_option("--size", a->size, "Size preset of the programs: tiny (default), small, bench");
  pairs->add_option("--cache", a->cache,
                    "SQLite verdict cache to read and write (default: one for this run only)");
  pairs->add_flag("--compile-timing", a->compile_timing,
                  "Also time torch.compile in every verdict (off: the pairs need correctness, and "
                  "eager timing stays)");
  pairs->add_option("--timeout", a->timeout, "Seconds one verification may run (default 300)")
      ->check(CLI::PositiveNumber);
  pairs->callback([a] { run_pairs(*a); });

  // The trainers are Python (PyTorch autograd, transformers): `drtriton train sft ARGS` is
  // `python -m drtriton.learn.sft ARGS` (and rl likewise), every argument (--help too)
  // passed on unchanged.
  auto* train = app.add_subcommand(
      "train", "Train a policy (sft: the supervised warm-up; rl: curriculum RL, DRPO or GRPO)");
  train->require_subcommand(1);
  const std::pair<const char*, const char*> trainers[] = {
      {"sft", "Supervised warm-up on pairs (python -m drtriton.learn.sft; --help lists its flags)"},
      {"rl",
       "Curriculum RL with the verifier as reward (python -m drtriton.learn.rl; --help lists "
       "its flags)"}};
  for (const auto& [name, help] : trainers) {
    auto* trainer = train->add_subcommand(name, help);
    // Every argument after the trainer's name is the Python trainer's, none the parent's
    // (-q and -v go before `train`).
    trainer->prefix_command();
    trainer->fallthrough(false);
    trainer->set_help_flag();
    trainer->callback([trainer, module = std::string("drtriton.learn.") + name] {
      int status = run_python_module(module, trainer->remaining());
      if (status != 0) throw ExitStatus(status);
    });
  }
}

}  // namespace drtriton::cli
