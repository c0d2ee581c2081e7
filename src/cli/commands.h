// Each stage registers its subcommands on the one CLI11 app. A subcommand's callback runs
// during parsing and reports failures by throwing CliError or IrError; main turns them
// into one line and an exit status.
#pragma once

#include <CLI/CLI.hpp>
#include <chrono>
#include <exception>
#include <functional>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "codegen/codegen.h"
#include "eval/pool_devices.h"
#include "eval/verdict.h"
#include "eval/verifier.h"
#include "eval/worker_pool.h"
#include "synth/dataset.h"

namespace drtriton::cli {

void add_ir_commands(CLI::App& app);       // ops, emit, import, check
void add_synth_commands(CLI::App& app);    // synth, synth-stats
void add_eval_commands(CLI::App& app);     // verify, serve
void add_convert_commands(CLI::App& app);  // convert
void add_learn_commands(CLI::App& app);    // pairs, train
void add_bench_commands(CLI::App& app);    // bench
void add_search_commands(CLI::App& app);   // search

// Shared between subcommands.
// The traced graph of a program: a .py file through python/drtriton/frontend.py, or a .json
// the frontend wrote earlier.
nlohmann::json load_traced(const std::string& path);
// A program traced and imported. Where import has no operator for some of its calls, the
// program is traced again through torch's own decompositions of them (the frontend's
// --decompose), a few rounds at most; if that does not import either, the first error.
struct ImportedProgram {
  nlohmann::json traced;  // the trace that imported (or the first one)
  Graph graph;
  std::string error;           // empty: imported
  std::exception_ptr failure;  // what import threw first (with `error`)
};
// Throws what import_traced threw first, or CliError (a .json traced graph: imported as it
// is).
ImportedProgram import_program(const std::string& path);
// The same for many programs whose first traces (trace_programs) are `traced`; the traces
// again run in `processes` Pythons. Never throws for one program: its `error` says why.
std::vector<ImportedProgram> import_programs(const std::vector<std::string>& paths,
                                             std::vector<nlohmann::json> traced, int processes);
// `python -m MODULE_ARGS --batch LIST` over many files (distinct paths) in `processes`
// Pythons, each taking its share, so that torch is imported once per process, not once per
// file: one entry per path, in order, the JSON line the module wrote for it (its "source" is
// the path) or, where its process stopped before, {"source": path, "error": "<path>: WHAT
// stopped: <its last line of stderr>"}. `progress` is called with the number done so far.
std::vector<nlohmann::json> run_python_batches(const std::string& module_args,
                                               const std::vector<std::string>& paths, int processes,
                                               const std::function<void(int)>& progress,
                                               const std::string& what);
// The traced graphs of many programs (.py files) through python -m drtriton.frontend
// --dynamic --batch: the traced graph or {"source": path, "error": "<one line>"} per path.
std::vector<nlohmann::json> trace_programs(const std::vector<std::string>& paths, int processes,
                                           const std::function<void(int)>& progress = {});
// Makes synthesize draw again every program whose output is the same on two input draws
// (python -m drtriton.numeric_check, in o.jobs processes per round; a progress bar, and a
// line for each program that does not run, on stderr). o.jobs must be set.
void use_numeric_check(SynthOptions& o);
// "the numeric check drew 12 of 2000 programs again (14 redraws in all) ..." on stderr.
void print_numeric_redraws(const std::vector<ProgramRecord>& records);
// What codegen needs of a traced graph besides the graph: Model.__init__'s signature and
// source, the reference's state_dict (ModelNew builds the same entries). `where` is the
// program's path (its file name heads the solution; errors name it).
CodegenOptions codegen_options(const nlohmann::json& traced, const std::string& where);
// --knob NAME=VALUE, repeatable, on a command that compiles: each sets one of `knobs`
// (set_knob of codegen.h) as it is parsed, so that a bad setting is a usage error naming the
// knob and its values before any work.
void add_knob_option(CLI::App& command, CodegenKnobs& knobs);
// The verifier workers' configuration (devices left to the caller): `worker_command` instead
// of python -m drtriton.worker when not empty; `sandbox` is auto, on or off.
PoolConfig worker_config(const std::string& worker_command, const std::string& sandbox);
// --gpus LIST on a command that judges on a pool: one help text, and a bad list is a usage
// error naming the option (parse_gpu_list of src/eval/pool_devices.h) before any work.
void add_gpus_option(CLI::App& command, std::string& gpus);
// The device when --device is not given: cuda when --gpus names GPUs or a GPU is visible
// (visible_gpus), else cpu.
std::string default_device(const std::string& gpus);
// The GPUs a pool judging on `device` uses: none for cpu (with a --gpus list, a usage
// error: they exclude each other), else the --gpus list or every visible GPU; a GPU that is
// not visible is a usage error naming --gpus (or --device, when none is visible).
std::vector<int> pool_gpus(const std::string& device, const std::string& gpus);
// A pool's devices: `workers` spread round robin over `gpus`, or CPU workers when there are
// none; 0 workers: default_workers (one per core, at most 8 per GPU).
std::vector<std::string> pool_devices(const std::vector<int>& gpus, int workers);
// A verifier pool that judges many batches (the search judges in rounds, bench in chunks):
// started at the first batch, since workers take seconds to start and a caller may have
// nothing to judge; a JudgeFn through std::ref.
class PoolJudge {
 public:
  // `worker_command` and `sandbox` as for worker_config.
  PoolJudge(std::vector<std::string> devices, std::string cache_path, double timeout_s,
            const std::string& worker_command = "", const std::string& sandbox = "auto");
  ~PoolJudge();
  // Starts the workers now rather than at the first batch: for a caller that times its
  // batches (the search's budget), so that they do not count the workers' start. Returns
  // once one worker is ready (the others join as they come up), so a batch answered from the
  // cache waits for one worker's start, not for all of them.
  void start();
  // The verdicts of `requests` (one device kind, not empty), in order. Before the workers
  // start, a batch that the cache holds whole is answered under the identity that one short
  // process reports (probe_identity): a warm `convert --tune` then starts no worker.
  std::vector<nlohmann::json> operator()(const std::vector<VerifyRequest>& requests);
  int workers() const { return static_cast<int>(config_.devices.size()); }
  bool started() const { return verifier_ != nullptr; }  // whether workers were started

 private:
  PoolConfig config_;
  std::string cache_path_;
  std::unique_ptr<VerdictCache> cache_;
  std::unique_ptr<WorkerPool> pool_;
  std::unique_ptr<Verifier> verifier_;
  bool probed_ = false;                            // whether probe_identity was asked
  std::optional<WorkerIdentity> probed_identity_;  // and its answer
};
// One verdict from a pool of one worker (an empty device: cuda when there is a GPU), on the
// first of `gpus` (none: GPU 0) for cuda.
nlohmann::json verify_once(VerifyRequest request, const std::string& cache_path,
                           const std::string& worker_command, double timeout_s,
                           const std::vector<int>& gpus = {}, const std::string& sandbox = "auto");
// The verdicts of many requests (one device kind), in order, from one pool spread over
// `gpus` (none: CPU workers), no more workers than requests.
std::vector<nlohmann::json> verify_many(const std::vector<VerifyRequest>& requests,
                                        const std::string& cache_path, double timeout_s,
                                        const std::vector<int>& gpus);
// Policies other than the built-in compiler (python -m drtriton.policy): how they sample.
struct Sampling {
  int samples = 8;
  double temperature = 0.8, top_p = 0.95;
};
void add_sampling_options(CLI::App& command, Sampling& sampling);
// "" for a valid --policy (compiler, model:CKPT, endpoint:URL[#MODEL]), else why not.
std::string policy_spec_error(const std::string& policy);
// The answers of a sampling policy for each program (.py paths), asked in one batch: the
// sources of the samples that held a ModelNew block (maybe none).
std::vector<std::vector<std::string>> sample_answers(const std::string& policy,
                                                     const std::vector<std::string>& programs,
                                                     const Sampling& sampling);
// Test-time search (search_commands.cpp, docs/design.md): how, and with what it judges.
struct SearchOptions {
  std::string policy = "compiler", device = "", work = "";  // work: "" a scratch folder
  int max_ops = 5, variants = 2;
  Sampling sampling;
  CodegenKnobs knobs;  // the compiler's first answer's (--knob); its variants are drawn
  bool eval_mode = false, time_compile = true, fragments_only = false;
  // The budget: seconds of wall time from `started` (0: no limit), its finalists judged
  // whatever the time; `workers`, the judge's, for its estimate of a round's time.
  double budget_s = 0;
  std::chrono::steady_clock::time_point started = std::chrono::steady_clock::now();
  int workers = 1;
};
// "" for a number of seconds above 0 (--budget), else why not.
std::string budget_error(const std::string& seconds);
using JudgeFn =
    std::function<std::vector<nlohmann::json>(const std::vector<VerifyRequest>& requests)>;
struct SearchOutcome {
  std::string source, chosen;  // the solution, and which finalist it is (whole, composed)
  nlohmann::json verdict;      // its verdict as a whole program
  nlohmann::json report;       // every range's candidates and verdicts, the cover, the finalists
  std::string error;           // why there is no solution ("" when there is one)
};
// `error` is set when no accepted answers cover the program or no finalist passes; the
// report is complete either way. Throws CliError for a program that cannot be traced.
SearchOutcome search_program(const std::string& program, const SearchOptions& options,
                             const JudgeFn& judge);
// A verdict's median candidate time in ms (infinity where it has none).
double candidate_ms(const nlohmann::json& verdict);
// The work a program must do, for the roofline: {"flops", "conv_flops" (the share done by
// convolutions, which cuDNN runs on TF32 by default), "io_bytes"}.
nlohmann::json work_of(const Graph& g);
// The index of the fastest verdict that passed (its candidate's median time), or -1.
int fastest_accepted(const std::vector<nlohmann::json>& verdicts);
// The verdict as a table a person reads.
void print_verdict(const nlohmann::json& verdict);
// Prints the verdict (a table, or JSON); throws CliError "CANDIDATE: rejected: reason"
// when it did not pass.
void report_verdict(const nlohmann::json& verdict, bool as_json, const std::string& candidate);

}  // namespace drtriton::cli
