// drtriton search: test-time search (docs/design.md, Test-time search). Every contiguous
// fragment of 1 to --max-ops operators becomes a program of its own (src/ir/fragment.h); the
// policy answers each fragment and the whole program; the verifier judges every answer; the
// fastest cover of the program by verified fragments is a shortest path over operator
// positions; the cover's solutions are composed into one (python -m drtriton.compose) and
// the composition is judged as a whole against the best whole-program answer: times are
// never assumed to add. With --budget the ranges are asked and judged in rounds, the whole
// program first and the shortest fragments next, until the next round no longer fits.
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <limits>
#include <map>
#include <memory>
#include <random>
#include <set>
#include <thread>

#include "cli/commands.h"
#include "cli/io.h"
#include "codegen/codegen.h"
#include "ir/fragment.h"
#include "ir/pytorch_emit.h"
#include "ir/pytorch_import.h"

namespace fs = std::filesystem;
using json = nlohmann::json;

namespace drtriton::cli {

namespace {

struct SearchArgs {
  std::string program, out, report, cache, gpus;
  double timeout = 300;
  bool no_compile_timing = false;
  SearchOptions options;
};

constexpr double kUnmeasured = std::numeric_limits<double>::infinity();

// A range of operators with its own task: edge 0 is the whole program, the others fragments.
struct Edge {
  int begin = 0, end = 0;
  std::string task_path, task;
  std::vector<ValueId> inputs, outputs;  // the whole graph's values (fragments only)
  std::vector<std::string> ops;
  std::string error;  // why it has no candidates ("" when it has)
  std::vector<std::string> candidates;
  // Each candidate's origin: "defaults", "layout=nchw", "sample 2".
  std::vector<std::string> labels;
  std::vector<json> verdicts;
  int best = -1;  // the fastest accepted candidate
  double best_ms = kUnmeasured;
};

std::string one_line(std::string s) {
  std::replace(s.begin(), s.end(), '\n', ' ');
  return s.size() > 160 ? s.substr(0, 157) + "..." : s;
}

// Up to `variants` solutions with distinct text: `knobs` (the defaults unless --knob), then its
// neighbours with one knob changed (tuning_space's order: layout, sizes and GEMM route first,
// the choices that decide most), then drawn knobs. `labels`, where given, gets each one's origin.
std::vector<std::string> compiler_answers(const json& traced, const std::string& where,
                                          const CodegenKnobs& knobs, int variants, uint64_t seed,
                                          std::vector<std::string>* labels = nullptr) {
  Graph graph = import_traced(traced);
  CodegenOptions options = codegen_options(traced, where);
  std::vector<std::pair<std::string, CodegenKnobs>> tries = {{"defaults", knobs}};
  for (const KnobChange& change : tuning_space(knobs))
    tries.push_back({change.label(), change.knobs});
  std::mt19937_64 rng(seed);
  std::vector<std::string> out;
  std::set<std::string> seen;
  for (size_t attempt = 0; static_cast<int>(out.size()) < variants &&
                           attempt < tries.size() + 16 * static_cast<size_t>(variants);
       ++attempt) {
    const bool listed = attempt < tries.size();
    options.knobs = listed ? tries[attempt].second : draw_knobs(rng);
    std::string source = generate_solution(graph, options).source;
    if (!seen.insert(source).second) continue;
    out.push_back(source);
    if (labels) labels->push_back(listed ? tries[attempt].first : "drawn knobs");
  }
  return out;
}

// The fragments' tasks, written to `dir` as f_BEGIN_END.py (edges[0], the program, is given).
void write_fragments(const Graph& whole, int max_ops, const fs::path& dir,
                     std::vector<Edge>& edges) {
  int n = static_cast<int>(whole.nodes().size());
  for (int b = 0; b < n; ++b) {
    for (int e = b + 1; e <= std::min(n, b + max_ops); ++e) {
      if (b == 0 && e == n) continue;  // the program itself
      Edge edge;
      edge.begin = b;
      edge.end = e;
      for (int i = b; i < e; ++i) edge.ops.push_back(whole.nodes()[i].schema().name);
      try {
        Fragment f = extract_fragment(whole, b, e);
        edge.inputs = f.inputs;
        edge.outputs = f.outputs;
        edge.task = emit_pytorch(f.graph);
        edge.task_path =
            (dir / ("f_" + std::to_string(b) + "_" + std::to_string(e) + ".py")).string();
        write_output(edge.task_path, edge.task);
      } catch (const std::exception& ex) {
        edge.error = std::string("not a program of its own: ") + ex.what();
      }
      edges.push_back(std::move(edge));
    }
  }
}

// The candidates of the edges `asked` (the program, edge 0, first when it is among them)
// from the policy, asked in one batch.
void ask_policy(const SearchOptions& a, const json& traced, const std::vector<int>& asked,
                std::vector<Edge>& edges) {
  std::vector<std::string> paths;
  for (int i : asked) paths.push_back(edges[i].task_path);
  if (a.policy != "compiler") {
    std::vector<std::vector<std::string>> answers = sample_answers(a.policy, paths, a.sampling);
    for (size_t k = 0; k < asked.size(); ++k) {
      edges[asked[k]].candidates = answers[k];
      for (size_t i = 0; i < answers[k].size(); ++i)
        edges[asked[k]].labels.push_back("sample " + std::to_string(i + 1));
      if (answers[k].empty()) edges[asked[k]].error = "no sample held a ModelNew";
    }
    return;
  }
  // The compiler: the program is traced already, its fragments are traced here in parallel.
  bool whole = !asked.empty() && asked[0] == 0;
  std::vector<std::string> fragment_paths(paths.begin() + whole, paths.end());
  int jobs = std::clamp(static_cast<int>(std::thread::hardware_concurrency()), 1, 4);
  Progress progress{"trace", static_cast<int>(fragment_paths.size()), "fragments"};
  std::vector<json> traces = trace_programs(fragment_paths, jobs, progress);
  progress(static_cast<int>(fragment_paths.size()));
  if (whole) traces.insert(traces.begin(), traced);
  for (size_t k = 0; k < asked.size(); ++k) {
    Edge& edge = edges[asked[k]];
    if (traces[k].contains("error")) {
      edge.error = "trace: " + one_line(traces[k].value("error", "?"));
      continue;
    }
    try {
      edge.candidates =
          compiler_answers(traces[k], edge.task_path, a.knobs, a.variants, asked[k], &edge.labels);
    } catch (const std::exception& ex) {
      edge.error = "compile: " + one_line(ex.what());
    }
  }
}

VerifyRequest request_for(const SearchOptions& a, const std::string& task,
                          const std::string& candidate, bool time_compile) {
  VerifyRequest r;
  r.task = task;
  r.candidate = candidate;
  r.options.device = a.device;
  r.options.eval_mode = a.eval_mode;
  if (!time_compile) r.options.compile = false;
  return r;
}

// The candidates of the edges `asked` in one batch; each edge's fastest accepted one. Returns
// the number judged.
int judge_candidates(const SearchOptions& a, const JudgeFn& judge, const std::vector<int>& asked,
                     std::vector<Edge>& edges) {
  std::vector<VerifyRequest> requests;
  for (int i : asked)
    for (const std::string& c : edges[i].candidates)
      requests.push_back(request_for(a, edges[i].task, c, false));
  info() << "drtriton search: judging " << requests.size() << " candidates on " << a.device << "\n";
  std::vector<json> verdicts = requests.empty() ? std::vector<json>{} : judge(requests);
  size_t k = 0;
  for (int i : asked) {
    Edge& e = edges[i];
    for (size_t c = 0; c < e.candidates.size(); ++c) e.verdicts.push_back(verdicts[k++]);
    e.best = fastest_accepted(e.verdicts);
    if (e.best >= 0) e.best_ms = candidate_ms(e.verdicts[e.best]);
    if (e.best < 0 && e.error.empty() && !e.verdicts.empty())
      e.error = "rejected: " + one_line(e.verdicts[0].value("reason", "?"));
  }
  return static_cast<int>(requests.size());
}

// One round of the search: ranges asked in one batch, then judged in one batch.
struct Round {
  int ranges = 0, candidates = 0;
  double ask_s = 0, judge_s = 0;
};

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

// The edges to ask, in rounds that leave a useful search wherever a budget stops it: the
// whole program first (an answer on its own), then the fragments by length, shortest first
// (fragments of one operator cover the program alone, longer ones fuse more). The whole
// program's round also takes the first `fill` fragments: judging runs in waves of the
// workers, and its answers alone left most of its wave idle (a 30 s budget judged the two
// answers of each whole program on eight workers, and no fragment). Without a budget, one
// round: one batch for the policy and one for the pool, which is faster.
std::vector<std::vector<int>> plan_rounds(const std::vector<Edge>& edges, bool budgeted, int fill) {
  std::vector<std::vector<int>> rounds;
  if (edges[0].error.empty()) rounds.push_back({0});
  std::map<int, std::vector<int>> by_length;  // edges come ordered by where they begin
  for (size_t i = 1; i < edges.size(); ++i)
    if (edges[i].error.empty()) by_length[edges[i].end - edges[i].begin].push_back(i);
  for (auto& [length, ids] : by_length) rounds.push_back(ids);
  if (budgeted && edges[0].error.empty()) {
    for (size_t r = 1; r < rounds.size() && fill > 0; ++r) {
      int moved = std::min(fill, static_cast<int>(rounds[r].size()));
      rounds[0].insert(rounds[0].end(), rounds[r].begin(), rounds[r].begin() + moved);
      rounds[r].erase(rounds[r].begin(), rounds[r].begin() + moved);
      fill -= moved;
    }
    rounds.erase(std::remove_if(rounds.begin(), rounds.end(),
                                [](const std::vector<int>& r) { return r.empty(); }),
                 rounds.end());
  }
  if (budgeted || rounds.size() < 2) return rounds;
  std::vector<int> all;
  for (const std::vector<int>& r : rounds) all.insert(all.end(), r.begin(), r.end());
  return {all};
}

// Judging runs in waves of `workers` candidates at once.
double waves(double candidates, int workers) {
  return std::max(1.0, std::ceil(candidates / std::max(1, workers)));
}

// Seconds `ranges` more ranges should take, going by the last round: asking in proportion to
// its ranges; judging as many candidates per range as it had, each wave of them as long as
// one of its waves.
double estimate_s(const Round& last, int ranges, int workers) {
  double candidates = static_cast<double>(last.candidates) / last.ranges * ranges;
  return last.ask_s / last.ranges * ranges +
         last.judge_s / waves(last.candidates, workers) * waves(candidates, workers);
}

std::string seconds_text(double s) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f s", s);
  return buf;
}

// Asks and judges the rounds in order. With a budget, a round after the first takes only
// as many of its ranges as the estimate says fit in what is left, less a reserve for the
// finalists (the longest wave so far: they are one wave); the rest of it becomes the next
// round, estimated from this one's times. The search stops when not one range fits: the
// skipped edges, in the order they would have come, say so. `trace_s`: what the whole
// program's trace took, the compiler's asking for it.
std::vector<int> ask_and_judge(const SearchOptions& a, const json& traced, double trace_s,
                               const JudgeFn& judge, std::vector<Edge>& edges,
                               std::vector<Round>& done) {
  // The fragments that fit beside the whole program in one wave of the workers.
  int per_range = std::max(1, a.policy == "compiler" ? a.variants : a.sampling.samples);
  int fill = std::max(0, a.workers / per_range - 1);
  std::vector<std::vector<int>> rounds = plan_rounds(edges, a.budget_s > 0, fill);
  std::vector<int> skipped;
  double reserve_s = 0;
  for (size_t r = 0; r < rounds.size(); ++r) {
    std::vector<int> batch = rounds[r];
    if (a.budget_s > 0 && !done.empty()) {
      double left_s = a.budget_s - seconds_since(a.started) - reserve_s;
      size_t fit = batch.size();
      while (fit > 0 && estimate_s(done.back(), static_cast<int>(fit), a.workers) > left_s) --fit;
      if (verbose()) {
        info() << "  round " << done.size() << ": " << fit << " of " << batch.size()
               << " ranges fit in " << seconds_text(left_s) << " (" << seconds_text(reserve_s)
               << " kept for the finalists)\n";
      }
      if (fit == 0) {
        for (size_t later = r; later < rounds.size(); ++later)
          skipped.insert(skipped.end(), rounds[later].begin(), rounds[later].end());
        break;
      }
      if (fit < batch.size()) {
        rounds.insert(rounds.begin() + r + 1, std::vector<int>(batch.begin() + fit, batch.end()));
        batch.resize(fit);
      }
    }
    Round round;
    round.ranges = static_cast<int>(batch.size());
    auto begun = std::chrono::steady_clock::now();
    ask_policy(a, traced, batch, edges);
    round.ask_s = seconds_since(begun) + (a.policy == "compiler" && batch[0] == 0 ? trace_s : 0);
    begun = std::chrono::steady_clock::now();
    round.candidates = judge_candidates(a, judge, batch, edges);
    round.judge_s = seconds_since(begun);
    reserve_s = std::max(reserve_s, round.judge_s / waves(round.candidates, a.workers));
    done.push_back(round);
  }
  for (int i : skipped) edges[i].error = "not asked: the budget ran out";
  return skipped;
}

// The fastest cover of positions 0..n by edges with an accepted candidate (Dijkstra on a
// DAG is a forward pass): edge indices in order, empty when none covers the program.
std::vector<int> fastest_cover(const std::vector<Edge>& edges, int n) {
  std::vector<double> dist(n + 1, kUnmeasured);
  std::vector<int> via(n + 1, -1);
  dist[0] = 0;
  for (int pos = 0; pos < n; ++pos) {
    if (dist[pos] == kUnmeasured) continue;
    for (size_t i = 0; i < edges.size(); ++i) {
      const Edge& e = edges[i];
      if (e.begin != pos || e.best < 0) continue;
      if (dist[pos] + e.best_ms < dist[e.end]) {
        dist[e.end] = dist[pos] + e.best_ms;
        via[e.end] = static_cast<int>(i);
      }
    }
  }
  std::vector<int> path;
  for (int pos = n; pos > 0 && via[pos] >= 0; pos = edges[via[pos]].begin) path.push_back(via[pos]);
  std::reverse(path.begin(), path.end());
  return dist[n] == kUnmeasured ? std::vector<int>{} : path;
}

// A Python name for a value of the whole graph: forward arguments keep theirs.
std::string variable(const Graph& g, ValueId v) {
  const Value& value = g.value(v);
  if (value.kind == ValueKind::Input && !std::isdigit(static_cast<unsigned char>(value.name[0])) &&
      value.name.rfind("_f", 0) != 0)
    return value.name;
  return "v_" + value.name;
}

// The cover's solutions as one (python -m drtriton.compose), `base` giving ModelNew.__init__.
std::string compose(const Graph& whole, const std::vector<Edge>& edges,
                    const std::vector<int>& cover, const std::string& base, const fs::path& dir) {
  json spec = {{"base", base},
               {"inputs", json::array()},
               {"outputs", json::array()},
               {"steps", json::array()}};
  for (ValueId v : whole.inputs()) spec["inputs"].push_back(variable(whole, v));
  for (ValueId v : whole.outputs()) spec["outputs"].push_back(variable(whole, v));
  for (int i : cover) {
    const Edge& e = edges[i];
    json step = {
        {"source", e.candidates[e.best]}, {"inputs", json::array()}, {"outputs", json::array()}};
    for (ValueId v : e.inputs) step["inputs"].push_back(variable(whole, v));
    for (ValueId v : e.outputs) step["outputs"].push_back(variable(whole, v));
    spec["steps"].push_back(step);
  }
  std::string spec_path = (dir / "compose.json").string(), out = (dir / "composed.py").string();
  write_output(spec_path, spec.dump(1));
  int status = run_python_module("drtriton.compose", {spec_path, "-o", out});
  if (status != 0)
    throw CliError("composing the cover failed (exit " + std::to_string(status) + ")");
  return read_file(out);
}

json edge_json(const Edge& e) {
  json candidates = json::array();
  for (size_t i = 0; i < e.verdicts.size(); ++i) {
    const json& v = e.verdicts[i];
    candidates.push_back({{"label", i < e.labels.size() ? json(e.labels[i]) : json()},
                          {"passed", v.value("passed", false)},
                          {"reason", v.value("reason", json())},
                          {"ms", candidate_ms(v) == kUnmeasured ? json() : json(candidate_ms(v))}});
  }
  return {{"begin", e.begin},
          {"end", e.end},
          {"ops", e.ops},
          {"error", e.error.empty() ? json() : json(e.error)},
          {"candidates", candidates},
          {"best_ms", e.best < 0 ? json() : json(e.best_ms)}};
}

std::string default_output(const std::string& program) {
  fs::path p(program);
  return (p.parent_path() / (p.stem().string() + "_triton.py")).string();
}

std::string default_report(const std::string& out) {
  fs::path p(out);
  return (p.parent_path() / (p.stem().string() + ".search.json")).string();
}

std::string ms_text(double ms) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.4g ms", ms);
  return buf;
}

// The report's range entries, for the table on stdout.
std::string range_text(const json& e) {
  std::string ops;
  for (const json& op : e["ops"]) ops += (ops.empty() ? "" : " ") + op.get<std::string>();
  return "[" + std::to_string(e["begin"].get<int>()) + "," + std::to_string(e["end"].get<int>()) +
         ") " + ops;
}

std::string ratio_text(const json& v, const char* key) {
  if (!v.contains(key) || !v[key].is_number()) return "-";
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.2fx", v[key].get<double>());
  return buf;
}

void print_report(const json& r, const std::string& out, const std::string& report) {
  int with_candidate = 0;
  for (const json& e : r["edges"]) with_candidate += !e["best_ms"].is_null();
  std::printf(
      "search: %s, %d operators, %zu ranges (the program and %zu fragments), %d with an "
      "accepted candidate; %d of %d candidates accepted\n",
      r["program"].get<std::string>().c_str(), r["operators"].get<int>(), r["edges"].size(),
      r["edges"].size() - 1, with_candidate, r["accepted"].get<int>(), r["candidates"].get<int>());
  std::printf("fastest cover (%s in all, fragments timed alone):\n",
              ms_text(r["cover_sum_ms"].get<double>()).c_str());
  for (const json& e : r["cover"])
    std::printf("  %-48s %s\n", range_text(e).c_str(), ms_text(e["best_ms"].get<double>()).c_str());
  for (const json& f : r["finalists"]) {
    const json& v = f["verdict"];
    std::string what = v.value("passed", false) ? ms_text(candidate_ms(v))
                                                : "rejected: " + one_line(v.value("reason", "?"));
    std::printf("%-9s %s\n", f["name"].get<std::string>().c_str(), what.c_str());
  }
  if (r["budget_s"].is_number()) {
    std::string hit = r["budget_hit"].get<bool>()
                          ? "hit, " + std::to_string(r["skipped"].size()) + " ranges left unasked"
                          : "not hit";
    std::printf("budget %g s: %s (%zu round%s, %.1f s in all)\n", r["budget_s"].get<double>(),
                hit.c_str(), r["rounds"].size(), r["rounds"].size() == 1 ? "" : "s",
                r["seconds"].get<double>());
  }
  if (r["whole_answer"].is_string())
    std::printf("fastest whole answer: %s\n", r["whole_answer"].get<std::string>().c_str());
  std::printf("chosen: %s -> %s (%s eager, %s torch.compile); report %s\n",
              r["chosen"].get<std::string>().c_str(), out.c_str(),
              ratio_text(r, "speedup_eager").c_str(), ratio_text(r, "speedup_compile").c_str(),
              report.c_str());
}

void run_search(SearchArgs a) {
  a.options.started = std::chrono::steady_clock::now();
  if (!has_extension(a.program, ".py")) {
    throw CliError(a.program + ": search reads the program's source (.py), not a traced graph");
  }
  std::string out = a.out.empty() ? default_output(a.program) : a.out;
  std::string report = a.report.empty() ? default_report(out) : a.report;
  check_output_path(out);
  check_output_path(report);
  read_file(a.program);  // a missing program: named before anything starts
  if (a.options.device.empty() && default_device(a.gpus) == "cpu") {
    json traced = import_program(a.program).traced;
    write_output(out, compiler_answers(traced, a.program, a.options.knobs, 1, 0).front());
    info() << "drtriton search: " << a.program << " -> " << out
           << " (the compiler's solution, not searched and not verified: no GPU; --device cpu "
              "searches with Triton's interpreter)\n";
    return;
  }
  if (a.options.device.empty()) a.options.device = "cuda";
  if (a.no_compile_timing) a.options.time_compile = false;
  PoolJudge judge(pool_devices(pool_gpus(a.options.device, a.gpus), 0), a.cache, a.timeout);
  a.options.workers = judge.workers();
  judge.start();  // the workers' start is no round's: it would inflate the budget's estimates
  SearchOutcome found = search_program(a.program, a.options, std::ref(judge));
  if (!found.error.empty()) {
    write_output(report, found.report.dump(1) + "\n");
    throw CliError(found.error + "; report " + report);
  }
  write_output(out, found.source);
  found.report["solution"] = out;
  write_output(report, found.report.dump(1) + "\n");
  print_report(found.report, out, report);
}

}  // namespace

std::string budget_error(const std::string& seconds) {
  char* end = nullptr;
  double s = std::strtod(seconds.c_str(), &end);
  bool ok = !seconds.empty() && *end == '\0' && std::isfinite(s) && s > 0;
  return ok ? "" : "expected seconds above 0, got '" + seconds + "'";
}

SearchOutcome search_program(const std::string& program, const SearchOptions& a,
                             const JudgeFn& judge) {
  std::string task = read_file(program);
  auto begun = std::chrono::steady_clock::now();
  ImportedProgram imported = import_program(program);
  const json& traced = imported.traced;
  const Graph& whole = imported.graph;
  double trace_s = seconds_since(begun);
  int n = static_cast<int>(whole.nodes().size());

  ScratchDir scratch{fs::temp_directory_path() /
                     ("drtriton-search-" + std::to_string(::getpid()) + "-" +
                      std::to_string(std::hash<std::string>{}(program)))};
  fs::path dir = a.work.empty() ? scratch.path : fs::path(a.work);
  fs::create_directories(dir);
  std::vector<Edge> edges(1);
  edges[0].end = n;
  edges[0].task_path = program;
  edges[0].task = task;
  if (a.fragments_only) edges[0].error = "not asked (--fragments-only)";
  for (const Node& node : whole.nodes()) edges[0].ops.push_back(node.schema().name);
  write_fragments(whole, a.max_ops, dir, edges);
  info() << "drtriton search: " << program << ": " << n << " operators, " << edges.size() - 1
         << " fragments of 1 to " << a.max_ops << "\n";
  std::vector<Round> rounds;
  std::vector<int> skipped = ask_and_judge(a, traced, trace_s, judge, edges, rounds);
  if (!skipped.empty()) {
    info() << "drtriton search: the budget (" << a.budget_s << " s) leaves " << skipped.size()
           << " of " << edges.size() << " ranges unasked\n";
  }

  SearchOutcome found;
  std::vector<int> cover = fastest_cover(edges, n);
  // The finalists, judged again (torch.compile timed): the best whole-program answer and the
  // composition of the cover, where it is more than that one answer.
  std::vector<std::pair<std::string, std::string>> finalists;  // (name, source)
  std::vector<json> final_verdicts;
  std::string compose_error;
  if (cover.empty()) {
    found.error = program + ": no verified candidates cover the program (" +
                  (edges[0].error.empty() ? "the whole program's were rejected" : edges[0].error) +
                  "; the report lists every range's verdicts)";
  } else {
    if (edges[0].best >= 0) finalists.push_back({"whole", edges[0].candidates[edges[0].best]});
    if (!(cover.size() == 1 && cover[0] == 0)) {
      std::string base = edges[0].best >= 0
                             ? edges[0].candidates[edges[0].best]
                             : compiler_answers(traced, program, a.knobs, 1, 0).front();
      try {
        finalists.push_back({"composed", compose(whole, edges, cover, base, dir)});
      } catch (const CliError& e) {
        compose_error = e.what();
        info() << "drtriton search: " << compose_error << "\n";
      }
    }
    // Without torch.compile timed, the whole-program finalist's request is the one its round
    // made: that verdict stands, and only the composition is judged.
    bool whole_judged = !a.time_compile && edges[0].best >= 0;
    std::vector<VerifyRequest> requests;
    for (size_t i = whole_judged ? 1 : 0; i < finalists.size(); ++i)
      requests.push_back(request_for(a, task, finalists[i].second, a.time_compile));
    if (!requests.empty()) final_verdicts = judge(requests);
    if (whole_judged)
      final_verdicts.insert(final_verdicts.begin(), edges[0].verdicts[edges[0].best]);
    int chosen = fastest_accepted(final_verdicts);
    if (finalists.empty()) {
      found.error = program + ": " + compose_error;
    } else if (chosen < 0) {
      found.error = program + ": no finalist passed the verifier as a whole (" +
                    one_line(final_verdicts[0].value("reason", "?")) + ")";
    } else {
      found.source = finalists[chosen].second;
      found.verdict = final_verdicts[chosen];
      found.chosen = finalists[chosen].first;
    }
  }

  double cover_ms = 0;
  json cover_json = json::array();
  for (int i : cover) {
    cover_ms += edges[i].best_ms;
    cover_json.push_back(edge_json(edges[i]));
  }
  json finals = json::array();
  for (size_t i = 0; i < final_verdicts.size(); ++i)
    finals.push_back({{"name", finalists[i].first}, {"verdict", final_verdicts[i]}});
  json ranges = json::array();
  int accepted = 0, candidates = 0;
  for (const Edge& e : edges) {
    ranges.push_back(edge_json(e));
    candidates += static_cast<int>(e.candidates.size());
    for (const json& v : e.verdicts) accepted += v.value("passed", false);
  }
  json skipped_json = json::array(), rounds_json = json::array();
  for (int i : skipped) skipped_json.push_back({edges[i].begin, edges[i].end});
  for (const Round& r : rounds) {
    rounds_json.push_back({{"ranges", r.ranges},
                           {"candidates", r.candidates},
                           {"ask_s", r.ask_s},
                           {"judge_s", r.judge_s}});
  }
  // Which of the whole program's answers was fastest ("defaults", "layout=nchw", ...).
  const Edge& program_edge = edges[0];
  json whole_answer = program_edge.best >= 0 && program_edge.best < int(program_edge.labels.size())
                          ? json(program_edge.labels[program_edge.best])
                          : json();
  auto from_verdict = [&](const char* key) {
    return found.verdict.is_object() ? found.verdict.value(key, json()) : json();
  };
  found.report = {{"program", program},
                  {"policy", a.policy},
                  {"device", a.device},
                  {"operators", n},
                  {"work", work_of(whole)},
                  {"max_ops", a.max_ops},
                  {"candidates", candidates},
                  {"accepted", accepted},
                  {"edges", ranges},
                  {"cover", cover_json},
                  {"cover_sum_ms", cover.empty() ? json() : json(cover_ms)},
                  {"compose_error", compose_error.empty() ? json() : json(compose_error)},
                  {"finalists", finals},
                  {"chosen", found.chosen.empty() ? json() : json(found.chosen)},
                  {"whole_answer", whole_answer},
                  {"error", found.error.empty() ? json() : json(found.error)},
                  {"speedup_eager", from_verdict("speedup_eager")},
                  {"speedup_compile", from_verdict("speedup_compile")},
                  {"budget_s", a.budget_s > 0 ? json(a.budget_s) : json()},
                  {"budget_hit", !skipped.empty()},
                  {"skipped", skipped_json},
                  {"rounds", rounds_json},
                  {"workers", a.workers},
                  {"seconds", seconds_since(a.started)}};
  return found;
}

void add_search_commands(CLI::App& app) {
  auto a = std::make_shared<SearchArgs>();
  auto* search = app.add_subcommand(
      "search",
      "Test-time search: the fastest verified cover of a program by solutions of its "
      "fragments (1 to --max-ops operators), composed and verified as a whole");
  search->add_option("program", a->program, "The program (.py with Model, get_inputs, ...)")
      ->required();
  search->add_option("-o,--out", a->out, "Output file (default: PROGRAM_triton.py beside it)");
  search->add_option("--report", a->report,
                     "JSON report: every fragment's candidates and verdicts, the cover, the "
                     "finalists (default: OUT's stem + .search.json)");
  search
      ->add_option("--device", a->options.device,
                   "Verify on cpu (Triton's interpreter) or cuda (default: cuda if there is a "
                   "GPU; without one, the compiler's solution is written unsearched)")
      ->check(CLI::IsMember({"cpu", "cuda"}));
  add_gpus_option(*search, a->gpus);
  search
      ->add_option("--max-ops", a->options.max_ops,
                   "The longest fragment, in operators (default 5)")
      ->check(CLI::Range(1, 16));
  search
      ->add_option("--variants", a->options.variants,
                   "Candidates per fragment from the compiler: its defaults, then one knob "
                   "changed (layout, sizes, gemm, ...), then drawn knobs (default 2)")
      ->check(CLI::Range(1, 16));
  search
      ->add_option("--budget", a->options.budget_s,
                   "Seconds of wall time for the search (default: no limit): the whole program "
                   "is asked first, then fragments by length, shortest first; a round starts only "
                   "when its estimated time fits, and the finalists are always judged")
      ->check(budget_error);
  search
      ->add_option("--policy", a->options.policy,
                   "Who answers each fragment: compiler (default), model:CKPT or "
                   "endpoint:URL[#MODEL] (--samples answers each)")
      ->check(policy_spec_error);
  add_sampling_options(*search, a->options.sampling);
  search->add_option("--work", a->options.work,
                     "Keep the fragments' programs and the composition here (default: a "
                     "scratch folder, removed)");
  search->add_flag("--fragments-only", a->options.fragments_only,
                   "Do not ask for the whole program (a policy whose context it would not fit): "
                   "the answer is a composition; its ModelNew.__init__ is the compiler's");
  add_knob_option(*search, a->options.knobs);
  search->add_flag("--eval-mode", a->options.eval_mode, "Verify the modules after .eval()");
  search->add_flag("--no-compile-timing", a->no_compile_timing,
                   "Do not time torch.compile for the finalists");
  search->add_option("--cache", a->cache, "SQLite verdict cache (default: none)");
  search->add_option("--timeout", a->timeout, "Seconds a verdict may run (default 300)")
      ->check(CLI::PositiveNumber);
  search->callback([a] { run_search(*a); });
}

}  // namespace drtriton::cli
