// drtriton bench: every program of a folder through a policy (the built-in compiler, or
// model:/endpoint: answers sampled by python -m drtriton.policy), each solution
// judged by the verifier with eager and torch.compile timings and by KernelBench's own
// protocol, then the table the field reports (correct by each, KernelBench-native, fast_p
// against eager and against torch.compile, geometric means).
//
// OUT/results.jsonl gets one line per program as soon as its chunk is judged, so a bench
// that stops (Ctrl-C, a lost machine) resumes where it stopped: programs already there are
// not done again, and the table is always made from that file alone.
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <csignal>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <memory>
#include <set>
#include <sstream>
#include <thread>

#include "cli/commands.h"
#include "cli/io.h"
#include "eval/verdict_cache.h"
#include "eval/verifier.h"
#include "ir/pytorch_import.h"

namespace fs = std::filesystem;
using json = nlohmann::json;

namespace drtriton::cli {

namespace {

struct BenchArgs {
  std::string dir, out, device, gpus, cache, policy = "compiler";
  int workers = 0, chunk = 8, limit = 0;
  double timeout = 300, budget = 0;  // budget: --search's seconds per program, 0: none
  bool no_compile = false, no_kernelbench = false, search = false;
  int max_ops = 5, variants = 2;
  Sampling sampling;
  CodegenKnobs knobs;
};

// The policy a results folder holds, as its rows name it ("compiler", "compiler+search").
std::string policy_label(const BenchArgs& a) {
  return a.policy + (a.search ? "+search" : "");
}

struct Program {
  std::string id, path;
};

// SIGINT or SIGTERM: the bench stops after the chunk in hand, which is not recorded (its
// sampler or verifier workers may have died of the same signal, and a verdict cut short is
// no verdict), and exits 128 + the signal; a second signal ends it at once.
std::atomic<int> stop_signal{0};

extern "C" void ask_stop(int sig) {
  if (stop_signal.exchange(sig) != 0) {
    std::signal(sig, SIG_DFL);
    std::raise(sig);
  }
}

void stop_on_signals() {
  struct sigaction action {};
  action.sa_handler = ask_stop;
  action.sa_flags = SA_RESTART;
  sigemptyset(&action.sa_mask);
  sigaction(SIGINT, &action, nullptr);
  sigaction(SIGTERM, &action, nullptr);
}

// The KernelBench-format programs under `dir` (any depth, sorted): .py files that define
// Model, get_inputs and get_init_inputs. The id is the path below `dir`, without ".py".
std::vector<Program> find_programs(const std::string& dir) {
  if (!fs::is_directory(dir)) throw CliError(dir + ": no such folder");
  std::vector<Program> programs;
  for (const auto& e : fs::recursive_directory_iterator(dir)) {
    if (!e.is_regular_file() || e.path().extension() != ".py") continue;
    std::string text = read_file(e.path().string());
    if (text.find("class Model") == std::string::npos ||
        text.find("def get_inputs") == std::string::npos ||
        text.find("def get_init_inputs") == std::string::npos)
      continue;
    std::string id = fs::relative(e.path(), dir).replace_extension("").generic_string();
    programs.push_back({id, e.path().string()});
  }
  std::sort(programs.begin(), programs.end(),
            [](const Program& a, const Program& b) { return a.id < b.id; });
  if (programs.empty()) throw CliError(dir + ": no KernelBench-format program (.py with Model)");
  return programs;
}

// The rows of an earlier run, by id; a line that is not a row is an error naming it.
std::map<std::string, json> read_results(const fs::path& file) {
  std::map<std::string, json> rows;
  if (!fs::exists(file)) return rows;
  std::ifstream in(file);
  std::string line;
  for (int n = 1; std::getline(in, line); ++n) {
    if (line.empty()) continue;
    json row = json::parse(line, nullptr, false);
    if (!row.is_object() || !row.contains("id")) {
      throw CliError(file.string() + ":" + std::to_string(n) +
                     ": not a bench row (remove the line or the file to start again)");
    }
    rows[row["id"].get<std::string>()] = row;
  }
  return rows;
}

double number_or_zero(const json& v, const char* key) {
  return v.contains(key) && v[key].is_number() ? v[key].get<double>() : 0.0;
}

// One program's row from its verdict (or the stage that stopped it before the verifier).
// Why a program's verdict would say nothing of its kernels (null when it would): the
// verifier saw the same output for different inputs, or the program is random where the
// verifier could not judge it (in eval mode too; or only eval mode was judged). A dropout
// that follows the module's mode is judged in both modes, so its program is no such case.
json degenerate_reason(const json& verdict) {
  json flags = verdict.value("flags", json::array());
  auto has = [&](const char* f) { return std::find(flags.begin(), flags.end(), f) != flags.end(); };
  if (has("task_output_constant")) return "the output does not depend on the inputs";
  if (has("random_in_eval_mode")) return "random as written, in eval mode too";
  if (has("eval_mode_forced_by_dropout"))
    return "random as written (active dropout), judged in eval mode only";
  return json();
}

json result_row(const Program& p, const std::string& stage, const std::string& reason,
                const json& verdict, int kernels, int library_calls) {
  json row = {{"id", p.id},
              {"path", p.path},
              {"stage", stage},
              {"passed", false},
              {"failed_stage", stage},
              {"reason", reason},
              {"kernels", kernels},
              {"library_calls", library_calls}};
  if (!verdict.is_object()) return row;
  row["passed"] = verdict.value("passed", false);
  row["failed_stage"] = verdict.value("failed_stage", json());
  row["reason"] = verdict.value("reason", json());
  row["kernelbench_native"] = verdict.value("kernelbench_native", json());
  for (const char* key : {"speedup_eager", "speedup_compile"})
    row[key] = verdict.contains(key) ? verdict[key] : json();
  row["timing_ms"] = verdict.value("timing_ms", json());
  row["degenerate"] = degenerate_reason(verdict);
  json flags = verdict.value("flags", json::array());
  row["timing_noisy"] = std::find(flags.begin(), flags.end(), "timing_noisy") != flags.end();
  return row;
}

// KernelBench's own protocol (python -m drtriton.kernelbench_protocol) on each task and its
// solution: {correct, reason, ...}, or {correct: null, reason} where it could not run.
std::vector<json> kernelbench_protocol(const std::vector<std::string>& tasks,
                                       const std::vector<std::string>& solutions,
                                       const std::string& device, const fs::path& out) {
  fs::path rows_file = out / "kernelbench.tmp.jsonl";
  std::vector<std::string> args = {"--device", device, "--out", rows_file.string()};
  for (size_t i = 0; i < tasks.size(); ++i) {
    args.push_back(fs::absolute(tasks[i]).string());
    args.push_back(fs::absolute(solutions[i]).string());
  }
  // On the CPU the solutions' kernels run in Triton's interpreter, as in the verifier.
  if (device == "cpu") ::setenv("TRITON_INTERPRET", "1", 1);
  int status = run_python_module("drtriton.kernelbench_protocol", args, true);
  std::vector<json> rows(tasks.size(), json{{"correct", nullptr},
                                            {"reason", "the KernelBench protocol stopped (exit " +
                                                           std::to_string(status) + ")"}});
  std::ifstream in(rows_file);
  std::string line;
  for (size_t k = 0; k < rows.size() && std::getline(in, line); ++k) {
    json row = json::parse(line, nullptr, false);
    if (row.is_object()) rows[k] = row;
  }
  std::error_code ec;
  fs::remove(rows_file, ec);
  return rows;
}

// A program's candidates before the verifier: its solutions (one from the compiler, up to
// --samples from a sampling policy) with their kernel and library-call counts, or the row
// of the stage that stopped it.
// Where a program's solution is kept (OUT/solutions/ID.py), for KernelBench's protocol and
// for the user.
std::string keep_solution(const fs::path& out, const Program& p, const std::string& source) {
  fs::path file = out / "solutions" / (p.id + ".py");
  fs::create_directories(file.parent_path());
  write_output(file.string(), source);
  return file.string();
}

int count_kernels(const std::string& source) {
  int kernels = 0;
  for (size_t at = source.find("@triton.jit"); at != std::string::npos;
       at = source.find("@triton.jit", at + 1))
    ++kernels;
  return kernels;
}

struct Candidates {
  std::vector<std::string> sources;
  std::vector<std::pair<int, int>> counts;
  json row;
  json work;  // work_of the traced graph, for the roofline (null: not traced)
};

// The built-in compiler's solution for each program of a chunk (traced in parallel).
std::vector<Candidates> compile_chunk(const std::vector<Program>& chunk, const BenchArgs& a) {
  std::vector<std::string> paths;
  for (const Program& p : chunk) paths.push_back(p.path);
  int processes = std::max(1, std::min(4, a.workers));
  std::vector<ImportedProgram> imported =
      import_programs(paths, trace_programs(paths, processes), processes);
  std::vector<Candidates> out(chunk.size());
  for (size_t i = 0; i < chunk.size(); ++i) {
    const ImportedProgram& program = imported[i];
    if (!program.error.empty()) {
      out[i].row = result_row(chunk[i], program.traced.is_null() ? "trace" : "compile",
                              program.error, json(), 0, 0);
      continue;
    }
    try {
      const Graph& graph = program.graph;
      out[i].work = work_of(graph);
      CodegenOptions options = codegen_options(program.traced, chunk[i].path);
      options.knobs = a.knobs;
      GeneratedSolution solution = generate_solution(graph, options);
      out[i].sources = {solution.source};
      out[i].counts = {{solution.kernels, solution.library_calls}};
    } catch (const std::exception& e) {
      out[i].row = result_row(chunk[i], "compile", e.what(), json(), 0, 0);
    }
  }
  return out;
}

// A sampling policy's answers for each program of a chunk, asked in one batch.
std::vector<Candidates> sample_chunk(const std::vector<Program>& chunk, const BenchArgs& a) {
  std::vector<std::string> paths;
  for (const Program& p : chunk) paths.push_back(p.path);
  std::vector<std::vector<std::string>> answers = sample_answers(a.policy, paths, a.sampling);
  std::vector<Candidates> out(chunk.size());
  for (size_t i = 0; i < chunk.size(); ++i) {
    if (answers[i].empty()) {
      out[i].row = result_row(chunk[i], "answer",
                              "none of " + std::to_string(a.sampling.samples) +
                                  " samples held a ```python block with class ModelNew",
                              json(), 0, 0);
      continue;
    }
    for (const std::string& source : answers[i]) {
      out[i].sources.push_back(source);
      out[i].counts.push_back(
          {count_kernels(source), 0});  // a model's library calls are not counted
    }
  }
  return out;
}

// One chunk: the candidates of each program (compiled, or sampled from --policy), all judged
// in one batch; a program's row is its fastest accepted candidate's, or its first one's
// rejection. The solutions are kept in OUT/solutions/ and judged by KernelBench's own
// protocol too.
// The programs' candidates (compiled, or sampled from --policy), all judged in one batch; a
// program's row is its fastest accepted candidate's, or its first one's rejection.
std::vector<json> answer_chunk(const std::vector<Program>& chunk, PoolJudge& judge,
                               const BenchArgs& a, const std::string& device, const fs::path& out) {
  std::vector<Candidates> candidates =
      a.policy == "compiler" ? compile_chunk(chunk, a) : sample_chunk(chunk, a);
  std::vector<VerifyRequest> requests;
  std::vector<size_t> first;  // each program's first request
  for (size_t i = 0; i < chunk.size(); ++i) {
    first.push_back(requests.size());
    if (candidates[i].sources.empty()) continue;
    const std::string task = read_file(chunk[i].path);
    for (const std::string& source : candidates[i].sources) {
      VerifyRequest r;
      r.task = task;
      r.candidate = source;
      r.options.device = device;
      if (a.no_compile) r.options.compile = false;
      requests.push_back(std::move(r));
    }
  }
  std::vector<json> verdicts = requests.empty() ? std::vector<json>{} : judge(requests);
  std::vector<json> rows(chunk.size());
  for (size_t i = 0; i < chunk.size(); ++i) {
    const Candidates& c = candidates[i];
    if (c.sources.empty()) {
      rows[i] = c.row;
      continue;
    }
    std::vector<json> mine(verdicts.begin() + first[i],
                           verdicts.begin() + first[i] + c.sources.size());
    size_t best = std::max(0, fastest_accepted(mine));
    rows[i] =
        result_row(chunk[i], "verify", "", mine[best], c.counts[best].first, c.counts[best].second);
    if (c.work.is_object()) rows[i].update(c.work);
    if (a.policy != "compiler") {  // the answers that were judged
      rows[i]["samples"] = c.sources.size();
      rows[i]["samples_passed"] = std::count_if(
          mine.begin(), mine.end(), [](const json& v) { return v.value("passed", false); });
    }
    rows[i]["solution"] = keep_solution(out, chunk[i], c.sources[best]);
  }
  return rows;
}

// --search: each program through the test-time search (search_program), judged by the
// bench's pool; its report kept as OUT/search/ID.json, a summary in the row.
std::vector<json> search_chunk(const std::vector<Program>& chunk, PoolJudge& judge,
                               const BenchArgs& a, const std::string& device, const fs::path& out) {
  SearchOptions o;
  o.policy = a.policy;
  o.device = device;
  o.max_ops = a.max_ops;
  o.variants = a.variants;
  o.sampling = a.sampling;
  o.time_compile = !a.no_compile;
  o.budget_s = a.budget;
  o.knobs = a.knobs;
  o.workers = judge.workers();
  judge.start();  // not in the first program's budget
  std::vector<json> rows;
  for (const Program& p : chunk) {
    SearchOutcome found;
    o.started = std::chrono::steady_clock::now();
    try {
      found = search_program(p.path, o, std::ref(judge));
    } catch (const std::exception& e) {  // not traced, nothing covers it, no finalist passed
      rows.push_back(result_row(p, "search", e.what(), json(), 0, 0));
      continue;
    }
    fs::path report = out / "search" / (p.id + ".json");
    fs::create_directories(report.parent_path());
    write_output(report.string(), found.report.dump(1) + "\n");
    if (!found.error.empty()) {
      rows.push_back(result_row(p, "search", found.error, json(), 0, 0));
      rows.back()["search"] = {{"report", report.string()}};
      continue;
    }
    json row = result_row(p, "verify", "", found.verdict, count_kernels(found.source), 0);
    row.update(found.report["work"]);
    json cover = json::array();
    for (const json& e : found.report["cover"]) cover.push_back({e["begin"], e["end"]});
    row["search"] = {{"chosen", found.report["chosen"]},
                     {"whole_answer", found.report["whole_answer"]},
                     {"cover", cover},
                     {"operators", found.report["operators"]},
                     {"candidates", found.report["candidates"]},
                     {"accepted", found.report["accepted"]},
                     {"budget_hit", found.report["budget_hit"]},
                     {"report", report.string()}};
    row["solution"] = keep_solution(out, p, found.source);
    rows.push_back(row);
  }
  return rows;
}

// One chunk's rows, each with KernelBench's own protocol's verdict on the solution it kept.
std::vector<json> bench_chunk(const std::vector<Program>& chunk, PoolJudge& judge,
                              const BenchArgs& a, const std::string& device, const fs::path& out) {
  std::vector<json> rows = a.search ? search_chunk(chunk, judge, a, device, out)
                                    : answer_chunk(chunk, judge, a, device, out);
  std::vector<size_t> judged;
  std::vector<std::string> solutions;
  for (size_t i = 0; i < rows.size(); ++i) {
    rows[i]["policy"] = policy_label(a);
    if (rows[i].contains("solution")) {
      judged.push_back(i);
      solutions.push_back(rows[i]["solution"].get<std::string>());
    }
  }
  if (!a.no_kernelbench && !judged.empty()) {
    std::vector<std::string> tasks;
    for (size_t i : judged) tasks.push_back(chunk[i].path);
    std::vector<json> verdicts_kb = kernelbench_protocol(tasks, solutions, device, out);
    for (size_t k = 0; k < judged.size(); ++k) rows[judged[k]]["kernelbench"] = verdicts_kb[k];
  }
  return rows;
}

// One program's outcome in a line, for --verbose: "conv_block: correct, 1.31x eager".
std::string outcome_line(const json& row) {
  std::string line = row.value("id", std::string("?")) + ": ";
  if (!row.value("passed", false)) {
    return line + "rejected at " + verdict_text(row, "failed_stage", "?") + ": " +
           verdict_text(row, "reason", "") + "\n";
  }
  char speed[48] = "";
  if (double s = number_or_zero(row, "speedup_eager"); s > 0)
    std::snprintf(speed, sizeof speed, ", %.2fx eager", s);
  return line + "correct" + speed + "\n";
}

std::string percent(int part, int whole) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f%%", whole ? 100.0 * part / whole : 0.0);
  return buf;
}

std::string geomean(const std::vector<double>& v) {
  if (v.empty()) return "-";
  double s = 0;
  for (double x : v) s += std::log(x);
  // Two significant digits below 0.1 (Triton's CPU interpreter is ~1000x slower than eager).
  double mean = std::exp(s / static_cast<double>(v.size()));
  char buf[32];
  std::snprintf(buf, sizeof buf, mean < 0.1 ? "%.2gx" : "%.2fx", mean);
  return buf;
}

// FLOP/s of an fp32-accurate product: fp32's, or three-pass TF32's (a third of TF32's) where
// that is faster (python/drtriton/ceilings.py, product_rate).
double product_rate(const json& ceilings) {
  double fp32 = ceilings["flops_per_s"].get<double>();
  return ceilings.value("product_flops_per_s",
                        std::max(fp32, ceilings.value("tf32_flops_per_s", 0.0) / 3));
}

// The table: fast_p is the share of all programs that are correct and more than p times as
// fast as the baseline (fast_0: correct), as KernelBench defines it.
std::string summary_table(const std::vector<Program>& programs,
                          const std::map<std::string, json>& rows, const std::string& device,
                          const json& ceilings) {
  int n = 0, compiled = 0, correct = 0, native = 0, kb_correct = 0, kb_judged = 0;
  std::map<std::string, std::vector<double>> speedups;
  std::map<std::string, std::map<double, int>> fast;
  const std::vector<double> ps = {1.0, 1.2, 2.0};
  const std::vector<std::pair<std::string, std::string>> baselines = {
      {"speedup_eager", "eager"}, {"speedup_compile", "torch.compile"}};
  std::map<std::string, int> failed_at;
  std::vector<std::string> degenerate;  // "id: why", reported apart, never counted as wins
  std::vector<std::string> noisy;       // correct, timed while other GPU work ran: not timed
  std::vector<double> fractions;        // of the machine's limit, per correct program
  double seconds = 0;                   // the rows' shares of their chunks' wall time
  for (const Program& p : programs) {
    auto it = rows.find(p.id);
    if (it == rows.end()) continue;
    const json& r = it->second;
    seconds += number_or_zero(r, "seconds");
    if (r.contains("degenerate") && r["degenerate"].is_string()) {
      degenerate.push_back(p.id + ": " + r["degenerate"].get<std::string>() +
                           (r.value("passed", false) ? " (correct)" : " (not correct)"));
      continue;
    }
    ++n;
    compiled += r.value("stage", "") == "verify";
    if (const json kb = r.value("kernelbench", json());
        kb.is_object() && kb["correct"].is_boolean()) {
      ++kb_judged;
      kb_correct += kb["correct"].get<bool>();
    }
    if (!r.value("passed", false)) {
      std::string stage =
          r["failed_stage"].is_string() ? r["failed_stage"].get<std::string>() : "?";
      ++failed_at[stage];
      continue;
    }
    ++correct;
    native += r.value("kernelbench_native", false) == true;
    if (r.value("timing_noisy", false) == true) {
      noisy.push_back(p.id);
      continue;
    }
    if (r.contains("limit_fraction") && r["limit_fraction"].is_number())
      fractions.push_back(r["limit_fraction"].get<double>());
    for (const auto& [key, name] : baselines) {
      double s = number_or_zero(r, key.c_str());
      if (s <= 0) continue;
      speedups[name].push_back(s);
      for (double p : ps) fast[name][p] += s > p;
    }
  }
  std::ostringstream t;
  t << "drtriton bench: " << n + degenerate.size() << " of " << programs.size()
    << " programs done, on " << device;
  if (!degenerate.empty()) t << "; " << degenerate.size() << " degenerate, apart from the tables";
  t << "\n\n| programs | compiled | correct (verifier) | KernelBench-native and correct | "
       "correct (KernelBench protocol) |\n"
    << "| --- | --- | --- | --- | --- |\n| " << n << " | " << compiled << " ("
    << percent(compiled, n) << ") | " << correct << " (" << percent(correct, n) << ") | " << native
    << " (" << percent(native, n) << ") | "
    << (kb_judged ? std::to_string(kb_correct) + " (" + percent(kb_correct, n) + ")" : "-")
    << " |\n\n"
    << "| against | timed | fast_0 | fast_1 | fast_1.2 | fast_2 | geomean speedup (correct) |\n"
    << "| --- | --- | --- | --- | --- | --- | --- |\n";
  for (const auto& [key, name] : baselines) {
    t << "| " << name << " | " << speedups[name].size() << " | " << percent(correct, n);
    for (double p : ps) t << " | " << percent(fast[name][p], n);
    t << " | " << geomean(speedups[name]) << " |\n";
  }
  if (!fractions.empty() && ceilings.is_object()) {
    std::sort(fractions.begin(), fractions.end());
    char line[320];
    std::snprintf(line, sizeof line,
                  "\nshare of the machine's limit (correct programs): median %.3g%%, best %.3g%% "
                  "(measured: %.2f TB/s, %.1f TFLOP/s fp32, %.1f for fp32-accurate products, "
                  "%.1f for convolutions; plots in plots/)\n",
                  100 * fractions[fractions.size() / 2], 100 * fractions.back(),
                  ceilings["bytes_per_s"].get<double>() / 1e12,
                  ceilings["flops_per_s"].get<double>() / 1e12, product_rate(ceilings) / 1e12,
                  ceilings.value("conv_flops_per_s", ceilings["flops_per_s"].get<double>()) / 1e12);
    t << line;
  }
  if (seconds > 0) {
    char line[160];
    std::snprintf(line, sizeof line,
                  "\ntime spent: %.0f s answering and judging, %.1f s a program (the rows' "
                  "shares of their chunks' wall time)\n",
                  seconds, seconds / static_cast<double>(n + degenerate.size()));
    t << line;
  }
  if (!failed_at.empty()) {
    t << "\nnot correct, by the stage that stopped them:";
    for (const auto& [stage, count] : failed_at) t << " " << stage << " " << count << ";";
    t << "\n";
  }
  if (!noisy.empty()) {
    t << "\ncorrect, but timed while other GPU work ran (timing_noisy), so not counted as timed:";
    for (const std::string& id : noisy) t << " " << id;
    t << "\n";
  }
  if (!degenerate.empty()) {
    t << "\ndegenerate programs (their speedups say nothing of the kernels):\n";
    for (const std::string& d : degenerate) t << "  " << d << "\n";
  }
  return t.str();
}

// The machine's ceilings (python -m drtriton.ceilings), measured once per results folder;
// null when the measurement failed (the table then has no roofline line).
json ceilings_for(const fs::path& out, const std::string& device, bool measure) {
  fs::path file = out / "ceilings.json";
  if (!fs::exists(file) && measure) {
    int status =
        run_python_module("drtriton.ceilings", {"--device", device, "--out", file.string()},
                          /*quiet_stdout=*/true);
    if (status != 0) info() << "drtriton bench: measuring the ceilings failed; no roofline\n";
  }
  if (!fs::exists(file)) return json();
  json c = json::parse(read_file(file.string()), nullptr, false);
  return c.is_object() && c.contains("bytes_per_s") && c.contains("flops_per_s") ? c : json();
}

// The share of the machine's limit a correct program reaches: the time no kernel can beat,
// max(other flops / fp32 FLOP/s + convolution flops / their FLOP/s, io_bytes / bandwidth),
// over the candidate's median time. Convolutions have a ceiling of their own since cuDNN
// runs them on TF32 by default (eager too); ceilings from before it count them as fp32.
json limit_fraction(const json& row, const json& ceilings) {
  if (!ceilings.is_object() || !row.value("passed", false) || !row.contains("flops")) return json();
  const json t = row.value("timing_ms", json());
  if (!t.is_object() || !t.contains("candidate") || !t["candidate"].is_object()) return json();
  double ms = t["candidate"].value("median", 0.0);
  if (ms <= 0) return json();
  double fp32 = ceilings["flops_per_s"].get<double>();
  double conv = row.value("conv_flops", 0.0);
  double compute_s = (row["flops"].get<double>() - conv) / product_rate(ceilings) +
                     conv / ceilings.value("conv_flops_per_s", fp32);
  double limit_s =
      std::max(compute_s, row["io_bytes"].get<double>() / ceilings["bytes_per_s"].get<double>());
  return limit_s / (ms / 1e3);
}

void run_bench(const BenchArgs& a) {
  std::string device = !a.device.empty() ? a.device : default_device(a.gpus);
  std::vector<int> gpus = pool_gpus(device, a.gpus);
  std::vector<Program> programs = find_programs(a.dir);
  if (a.limit > 0 && static_cast<size_t>(a.limit) < programs.size()) programs.resize(a.limit);
  fs::path out = a.out.empty() ? fs::path(a.dir).filename().string() + "_bench" : a.out;
  fs::create_directories(out);
  fs::path results = out / "results.jsonl";
  std::map<std::string, json> rows = read_results(results);
  for (const auto& [id, row] : rows) {  // one policy per results file: a table of one policy
    std::string policy = row.value("policy", std::string("compiler"));
    if (policy != policy_label(a)) {
      throw CliError(results.string() + ": " + id + " was answered by " + policy + ", not " +
                     policy_label(a) + " (give this bench another --out)");
    }
  }
  std::vector<Program> todo;
  for (const Program& p : programs)
    if (!rows.count(p.id)) todo.push_back(p);
  info() << "drtriton bench: " << programs.size() << " programs in " << a.dir << ", "
         << programs.size() - todo.size() << " done before, " << todo.size() << " to do, on "
         << device << ", policy " << policy_label(a) << " -> " << out.string() << "\n";
  json ceilings = ceilings_for(out, device, !todo.empty());
  if (!todo.empty()) {
    PoolJudge judge(pool_devices(gpus, a.workers),
                    a.cache.empty() ? (out / "verdicts.sqlite").string() : a.cache, a.timeout);
    Progress progress{"bench", static_cast<int>(todo.size())};
    std::ofstream append(results, std::ios::app);
    stop_on_signals();
    // A search judges each program on its own: a chunk of one loses nothing to a stop.
    const size_t chunk_size = a.search ? 1 : a.chunk;
    for (size_t start = 0; start < todo.size(); start += chunk_size) {
      std::vector<Program> chunk(todo.begin() + start,
                                 todo.begin() + std::min(todo.size(), start + chunk_size));
      std::vector<json> judged;
      auto begun = std::chrono::steady_clock::now();
      try {
        judged = bench_chunk(chunk, judge, a, device, out);
      } catch (const std::exception&) {
        if (!stop_signal) throw;
      }
      if (stop_signal) {
        info() << "\ndrtriton bench: stopped by a signal; " << start
               << " programs of this run kept, the rest are done when the same command runs "
                  "again\n";
        break;
      }
      // Each program's share of its chunk's wall time (answered and judged together).
      double share =
          std::chrono::duration<double>(std::chrono::steady_clock::now() - begun).count() /
          static_cast<double>(chunk.size());
      for (json& row : judged) {
        row["limit_fraction"] = limit_fraction(row, ceilings);
        row["seconds"] = share;
        if (verbose()) info() << "\n" << outcome_line(row);
        append << row.dump() << "\n";
        rows[row["id"].get<std::string>()] = row;
      }
      append.flush();  // a chunk judged is a chunk kept, however the run ends
      progress(static_cast<int>(std::min(todo.size(), start + chunk_size)));
    }
  }
  std::string table = summary_table(programs, rows, device, ceilings);
  write_output((out / "summary.md").string(), table);
  std::cout << table;
  // Plots from the rows alone (python -m drtriton.bench_plots); the table stands without them.
  if (run_python_module("drtriton.bench_plots", {out.string()}, /*quiet_stdout=*/true) != 0)
    info() << "drtriton bench: the plots failed (see above); the table is complete\n";
  if (stop_signal) throw ExitStatus{128 + stop_signal};
}

}  // namespace

json work_of(const Graph& g) {
  double conv = 0;
  for (const Node& n : g.nodes()) {
    switch (n.op) {
      case Op::Conv1d:
      case Op::Conv2d:
      case Op::Conv3d:
      case Op::ConvTranspose1d:
      case Op::ConvTranspose2d:
      case Op::ConvTranspose3d: conv += g.node_flops(n); break;
      default: break;
    }
  }
  return {{"flops", g.flops()}, {"conv_flops", conv}, {"io_bytes", g.io_bytes()}};
}

void add_bench_commands(CLI::App& app) {
  auto a = std::make_shared<BenchArgs>();
  auto* bench = app.add_subcommand(
      "bench",
      "Every KernelBench-format program of a folder through a policy (the built-in compiler "
      "by default) and the verifier: correct, KernelBench-native, fast_p against eager and "
      "torch.compile (resumable)");
  bench->add_option("dir", a->dir, "Folder of programs (.py with Model, get_inputs, ...)")
      ->required();
  bench->add_option("--out", a->out,
                    "Folder for results.jsonl, summary.md and the verdict cache (default: "
                    "DIR_bench); programs already in its results.jsonl are not done again");
  bench
      ->add_option("--device", a->device,
                   "cpu (Triton's interpreter) or cuda (default: cuda "
                   "if there is a GPU)")
      ->check(CLI::IsMember({"cpu", "cuda"}));
  add_gpus_option(*bench, a->gpus);
  bench
      ->add_option("--workers", a->workers,
                   "Verifier workers, spread over the GPUs (default: one per core, at most 8 "
                   "per GPU)")
      ->check(CLI::NonNegativeNumber);
  bench
      ->add_option("--chunk", a->chunk,
                   "Programs traced, compiled and judged at a time "
                   "(default 8; --search: 1)")
      ->check(CLI::PositiveNumber);
  bench->add_option("--limit", a->limit, "The first N programs only")->check(CLI::PositiveNumber);
  bench->add_option("--timeout", a->timeout, "Seconds a verdict may run (default 300)")
      ->check(CLI::PositiveNumber);
  bench->add_option("--cache", a->cache, "SQLite verdict cache (default: OUT/verdicts.sqlite)");
  add_knob_option(*bench, a->knobs);
  bench->add_flag("--no-compile", a->no_compile,
                  "Do not time torch.compile (the slowest part of a verdict on a CPU)");
  bench->add_flag("--no-kernelbench", a->no_kernelbench,
                  "Do not also judge the solutions by KernelBench's own protocol (seed 42, "
                  "no weight copying, 5 trials, allclose at 1e-4)");
  bench
      ->add_option("--policy", a->policy,
                   "Who writes the solutions: compiler (default), model:CKPT or "
                   "endpoint:URL[#MODEL]; of a program's sampled answers, the fastest verified")
      ->check(policy_spec_error);
  add_sampling_options(*bench, a->sampling);
  auto* search =
      bench->add_flag("--search", a->search,
                      "Each program through the test-time search (drtriton search): its fragments "
                      "answered and judged, the fastest verified cover composed and judged whole");
  bench->add_option("--max-ops", a->max_ops, "With --search: the longest fragment (default 5)")
      ->check(CLI::Range(1, 16));
  bench
      ->add_option("--variants", a->variants,
                   "With --search and the compiler: candidates per fragment (default 2)")
      ->check(CLI::Range(1, 16));
  bench
      ->add_option("--budget", a->budget,
                   "With --search: seconds of wall time each program's search may take (default: "
                   "no limit); see drtriton search --budget")
      ->check(budget_error)
      ->needs(search);
  bench->callback([a] { run_bench(*a); });
}

}  // namespace drtriton::cli
