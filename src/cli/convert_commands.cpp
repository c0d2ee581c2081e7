// drtriton convert: a KernelBench-format program in, a verified Triton solution out, with
// the built-in compiler (src/codegen) as the policy.
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <limits>
#include <map>
#include <memory>
#include <set>

#include "cli/commands.h"
#include "cli/io.h"
#include "codegen/codegen.h"
#include "ir/pytorch_import.h"

namespace fs = std::filesystem;
using json = nlohmann::json;

namespace drtriton::cli {

namespace {

struct ConvertArgs {
  std::string program, out, device, gpus, cache, policy = "compiler";
  bool verify = false, no_verify = false, json = false, eval_mode = false, search = false,
       tune = false, no_compile_timing = false;
  double timeout = 300, budget = 0;  // budget: --search's seconds, 0: none
  Sampling sampling;
  CodegenKnobs knobs;
};

constexpr const char* kModelPolicy = "model:";
constexpr const char* kEndpointPolicy = "endpoint:";

}  // namespace

std::string policy_spec_error(const std::string& p) {
  auto names = [&](const char* prefix) {
    return p.rfind(prefix, 0) == 0 && p.size() > std::strlen(prefix);
  };
  return p == "compiler" || names(kModelPolicy) || names(kEndpointPolicy)
             ? std::string()
             : "expected compiler, model:CKPT or endpoint:URL, got '" + p + "'";
}

std::vector<std::vector<std::string>> sample_answers(const std::string& policy,
                                                     const std::vector<std::string>& programs,
                                                     const Sampling& sampling) {
  if (policy.rfind(kModelPolicy, 0) == 0 && !fs::is_directory(policy.substr(6)))
    throw CliError("--policy " + policy + ": no such checkpoint folder");
  fs::path dir = fs::temp_directory_path() / ("drtriton-samples-" + std::to_string(::getpid()));
  fs::remove_all(dir);
  auto number = [](double v) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%g", v);
    return std::string(buf);
  };
  std::vector<std::string> args = {"--policy",      policy,
                                   "--samples",     std::to_string(sampling.samples),
                                   "--temperature", number(sampling.temperature),
                                   "--top-p",       number(sampling.top_p),
                                   "--out-dir",     dir.string()};
  for (const std::string& program : programs) {
    args.push_back("--program");
    args.push_back(program);
  }
  int status = run_python_module("drtriton.policy", args, /*quiet_stdout=*/true);
  if (status != 0) {
    fs::remove_all(dir);
    throw CliError("--policy " + policy + ": sampling failed (exit " + std::to_string(status) +
                   ", see above)");
  }
  // DIR/pKKK_sSSS.py: sample SSS of program KKK, for those that held an answer.
  std::vector<std::vector<std::string>> answers(programs.size());
  std::vector<std::string> files;
  if (fs::is_directory(dir)) {
    for (const auto& e : fs::directory_iterator(dir)) files.push_back(e.path().string());
  }
  std::sort(files.begin(), files.end());
  for (const std::string& f : files) {
    std::string name = fs::path(f).filename().string();
    size_t k = std::stoul(name.substr(1, name.find('_') - 1));
    if (k < answers.size()) answers[k].push_back(read_file(f));
  }
  fs::remove_all(dir);
  return answers;
}

double candidate_ms(const json& verdict) {
  const json* t = &verdict;
  for (const char* key : {"timing_ms", "candidate", "median"}) {
    if (!t->is_object() || !t->contains(key) || (*t)[key].is_null())
      return std::numeric_limits<double>::infinity();
    t = &(*t)[key];
  }
  return t->is_number() ? t->get<double>() : std::numeric_limits<double>::infinity();
}

int fastest_accepted(const std::vector<json>& verdicts) {
  int best = -1;
  for (size_t i = 0; i < verdicts.size(); ++i) {
    if (verdicts[i].value("passed", false) &&
        (best < 0 || candidate_ms(verdicts[i]) < candidate_ms(verdicts[best])))
      best = static_cast<int>(i);
  }
  return best;
}

namespace {

std::vector<StateEntry> state_of(const json& traced, const std::string& where) {
  std::vector<StateEntry> state;
  for (const json& p : traced.value("params", json::array())) {
    std::string kind = p.value("kind", "");
    bool attribute = p.value("attribute", false);  // a plain tensor attribute of the model
    if (kind != "parameter" && kind != "buffer" && !attribute) continue;  // constants are not
    StateEntry e;
    e.key = p.value("target", "");
    if (!parse_dtype(p.value("dtype", ""), &e.type.dtype)) {
      throw CliError(where + ": parameter " + e.key + " has an unknown dtype");
    }
    for (const json& d : p.value("shape", json::array())) e.type.shape.push_back(d.get<int64_t>());
    for (const json& d : p.value("sym_shape", json::array())) {
      if (!d.is_string()) throw CliError(where + ": parameter " + e.key + " has a bad sym_shape");
      e.sym_shape.push_back(d.get<std::string>());
    }
    e.is_buffer = kind == "buffer";
    e.is_attribute = attribute;
    e.persistent = p.value("persistent", true);
    state.push_back(e);
  }
  return state;
}

}  // namespace

CodegenOptions codegen_options(const json& traced, const std::string& where) {
  CodegenOptions options;
  options.init_params = traced.value("init_signature", "");
  options.state = state_of(traced, where);
  if (const json& init = traced.value("init_source", json()); init.is_object()) {
    options.init_method = init.value("init", "");
    options.init_support = init.value("support", "");
  }
  options.source_name = fs::path(where).filename().string();
  return options;
}

void add_knob_option(CLI::App& command, CodegenKnobs& knobs) {
  command.add_option_function<std::vector<std::string>>(
      "--knob",
      [&knobs](const std::vector<std::string>& settings) {
        for (const std::string& s : settings) {
          size_t eq = s.find('=');
          if (eq == std::string::npos)
            throw CLI::ValidationError("--knob", "expected NAME=VALUE, got '" + s + "'");
          try {
            set_knob(knobs, s.substr(0, eq), s.substr(eq + 1));
          } catch (const std::invalid_argument& e) {
            throw CLI::ValidationError("--knob", e.what());
          }
        }
      },
      "A codegen knob, NAME=VALUE, repeatable: gemm=auto|triton|library (who computes Linear and "
      "matmul), gemm_tile=auto|MxNxK (a Triton GEMM's largest tile), "
      "layout=auto|nchw|channels_last "
      "(of convolutions), sizes=static|dynamic (kernel sizes as constants or arguments), "
      "dot_precision=tf32x3|ieee (fp32 products in tl.dot), depthwise=auto|triton|library (who "
      "computes a depthwise convolution), pointwise_block, tile_elements, "
      "num_warps, recompute_limit (docs/cli.md)");
}

namespace {

std::string default_output(const std::string& program) {
  fs::path p(program);
  return (p.parent_path() / (p.stem().string() + "_triton.py")).string();
}

// Whether and where a conversion is judged, decided once before any work.
struct Judging {
  bool verify = false;    // asked for (--verify, --device), or a GPU to verify on
  std::string device;     // cpu or cuda: --device, else cuda with --gpus or a visible GPU
  std::vector<int> gpus;  // the pool's GPUs (none on the CPU)
};

Judging judging_of(const ConvertArgs& a) {
  Judging j;
  j.device = a.device.empty() ? default_device(a.gpus) : a.device;
  j.verify = !a.no_verify && (a.verify || j.device == "cuda" || !a.device.empty());
  // A --gpus list is checked even when nothing is verified: a usage error either way.
  if (j.verify || !a.gpus.empty()) j.gpus = pool_gpus(j.device, a.gpus);
  return j;
}

// The requests that judge `candidates` of one task as convert asks (device, eval mode).
std::vector<VerifyRequest> candidate_requests(const std::string& task,
                                              const std::vector<std::string>& candidates,
                                              const ConvertArgs& a, const Judging& judging) {
  std::vector<VerifyRequest> requests(candidates.size());
  for (size_t i = 0; i < candidates.size(); ++i) {
    requests[i].task = task;
    requests[i].candidate = candidates[i];
    requests[i].options.device = judging.device;
    requests[i].options.eval_mode = a.eval_mode;
    if (a.no_compile_timing) requests[i].options.compile = false;
  }
  return requests;
}

// A sampling policy (`--policy model:CKPT` or `endpoint:URL`): SAMPLES answers (python -m
// drtriton.policy), all verified in one pool; the fastest accepted one is the solution.
void run_sampling_policy(const ConvertArgs& a, const Judging& judging) {
  if (!has_extension(a.program, ".py")) {
    throw CliError(a.program + ": a policy reads the program's source (.py), not a traced graph");
  }
  std::string task =
      read_file(a.program);  // a missing program: the user's error, before the model loads
  std::vector<std::string> sources = sample_answers(a.policy, {a.program}, a.sampling)[0];
  if (sources.empty()) {
    throw CliError(a.program + ": none of " + std::to_string(a.sampling.samples) +
                   " samples held a ```python block with class ModelNew");
  }
  std::string out = a.out.empty() ? default_output(a.program) : a.out;
  if (!judging.verify) {
    write_output(out, sources[0]);
    info() << "drtriton convert: " << a.program << " -> " << out << " (sample 1 of "
           << sources.size() << " answers, not verified: no GPU; --verify runs the checks "
           << "in Triton's interpreter)\n";
    return;
  }
  std::vector<json> verdicts =
      verify_many(candidate_requests(task, sources, a, judging), a.cache, a.timeout, judging.gpus);
  for (size_t i = 0; i < verdicts.size(); ++i) {
    if (!verdicts[i].value("passed", false)) {
      info() << "  sample " << i + 1 << ": rejected at "
             << verdict_text(verdicts[i], "failed_stage", "?") << ": "
             << verdict_text(verdicts[i], "reason", "") << "\n";
    }
  }
  int best = fastest_accepted(verdicts);
  if (best < 0) {
    throw CliError(a.program + ": none of " + std::to_string(sources.size()) +
                   " answers passed the verifier (" + std::to_string(a.sampling.samples) +
                   " samples)");
  }
  write_output(out, sources[best]);
  info() << "drtriton convert: " << a.program << " -> " << out << " (answer " << best + 1 << " of "
         << sources.size() << " from " << a.policy << ", the fastest accepted)\n";
  report_verdict(verdicts[best], a.json, out);
}

// Seconds since `start`, for --verbose.
double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

// --search: the test-time search (search_commands.cpp) with its defaults, this command's
// policy and sampling; its verdict is the composition's or the best whole answer's.
void run_search_convert(const ConvertArgs& a, const Judging& judging) {
  if (!judging.verify) {
    throw CliError("--search judges every fragment's answers: it needs a GPU or --device cpu");
  }
  SearchOptions o;
  o.policy = a.policy;
  o.device = judging.device;
  o.sampling = a.sampling;
  o.eval_mode = a.eval_mode;
  o.time_compile = !a.no_compile_timing;
  o.budget_s = a.budget;
  o.knobs = a.knobs;
  PoolJudge judge(pool_devices(judging.gpus, 0), a.cache, a.timeout);
  o.workers = judge.workers();
  if (o.budget_s > 0) judge.start();  // the workers' start is not in the budget
  o.started = std::chrono::steady_clock::now();
  SearchOutcome found = search_program(a.program, o, std::ref(judge));
  if (!found.error.empty()) throw CliError(found.error + " (drtriton search --report keeps it)");
  std::string out = a.out.empty() ? default_output(a.program) : a.out;
  write_output(out, found.source);
  info() << "drtriton convert: " << a.program << " -> " << out
         << " (search: " << found.report["chosen"].get<std::string>() << ", "
         << found.report["candidates"].get<int>() << " candidates judged)\n";
  report_verdict(found.verdict, a.json, out);
}

// The verdict cache of --tune without --cache: $XDG_CACHE_HOME/drtriton/tune.sqlite, else
// ~/.cache/drtriton/tune.sqlite. Its keys hold the task, the solution's text, the GPU's name
// and the software versions, so a verdict is reused only where it still holds.
std::string default_tuning_cache() {
  const char* xdg = std::getenv("XDG_CACHE_HOME");
  const char* home = std::getenv("HOME");
  fs::path dir = xdg && *xdg ? fs::path(xdg) : fs::path(home && *home ? home : ".") / ".cache";
  dir /= "drtriton";
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec)
    throw CliError("--tune: cannot make the cache folder " + dir.string() + ": " + ec.message());
  return (dir / "tune.sqlite").string();
}

// --tune: the solution under the given knobs and under each setting of tuning_space (one
// knob changed), all judged in one pool; where two or more knobs beat the given setting on
// their own, their best values together are judged as well. The fastest accepted solution
// is written. Verdicts are cached (--cache, else default_tuning_cache()), so converting the
// same program again on the same GPU judges nothing again.
void run_tuned_convert(const ConvertArgs& a, const Judging& judging, const Graph& graph,
                       CodegenOptions options, const std::string& out) {
  if (!judging.verify) throw CliError("--tune times solutions: it needs a GPU or --device cpu");
  if (!has_extension(a.program, ".py")) {
    throw CliError(a.program + ": --tune needs the program's source (.py), not a traced graph");
  }
  struct Tried {
    std::string label;        // "as given", "layout=channels_last", ...
    std::string knob, value;  // the one knob changed (none: as given, or the winners together)
    std::string source;
    json verdict;
  };
  std::vector<Tried> tried;
  std::set<std::string> seen;  // settings that give the same text are judged once
  auto add = [&](const std::string& label, const CodegenKnobs& knobs, const std::string& knob = "",
                 const std::string& value = "") {
    options.knobs = knobs;
    std::string source = generate_solution(graph, options).source;
    if (seen.insert(source).second) tried.push_back({label, knob, value, source, json()});
  };
  add("as given", a.knobs);
  for (const KnobChange& change : tuning_space(a.knobs))
    add(change.label(), change.knobs, change.name, change.value);
  const std::string task = read_file(a.program);
  const std::string cache = a.cache.empty() ? default_tuning_cache() : a.cache;
  // One pool for both rounds: a warm convert then waits for one worker's start, not two.
  std::vector<std::string> devices = pool_devices(judging.gpus, 0);
  devices.resize(std::min(devices.size(), tried.size()));
  PoolJudge pool(devices, cache, a.timeout);
  auto judge = [&](size_t from) {
    std::vector<std::string> sources;
    for (size_t i = from; i < tried.size(); ++i) sources.push_back(tried[i].source);
    std::vector<json> verdicts = pool(candidate_requests(task, sources, a, judging));
    for (size_t i = from; i < tried.size(); ++i) tried[i].verdict = verdicts[i - from];
  };
  judge(0);
  // Each knob's fastest value where it beat the given setting, then all of them together.
  auto ms = [](const Tried& t) {
    return t.verdict.value("passed", false) ? candidate_ms(t.verdict)
                                            : std::numeric_limits<double>::infinity();
  };
  std::map<std::string, std::pair<double, std::string>> best_value;  // knob -> (ms, value)
  for (size_t i = 1; i < tried.size(); ++i) {
    const std::string& knob = tried[i].knob;
    if (ms(tried[i]) < ms(tried[0]) &&
        (!best_value.count(knob) || ms(tried[i]) < best_value[knob].first))
      best_value[knob] = {ms(tried[i]), tried[i].value};
  }
  if (best_value.size() >= 2) {
    CodegenKnobs together = a.knobs;
    std::string label;
    for (const auto& [knob, v] : best_value) {
      set_knob(together, knob, v.second);
      label += (label.empty() ? "" : " ") + knob + "=" + v.second;
    }
    size_t before = tried.size();
    add(label, together);
    if (tried.size() > before) judge(before);
  }
  int cached = 0;
  size_t best = 0;
  for (size_t i = 0; i < tried.size(); ++i) {
    cached += tried[i].verdict.value("cached", false);
    if (ms(tried[i]) < ms(tried[best])) best = i;
  }
  info() << "drtriton convert --tune: " << tried.size() << " distinct solutions judged (" << cached
         << " from the cache " << cache << (pool.started() ? "" : "; no verifier worker started")
         << ")\n";
  for (size_t i = 0; i < tried.size(); ++i) {
    char line[256];
    if (tried[i].verdict.value("passed", false)) {
      std::snprintf(line, sizeof line, "  %-44s %10.4f ms%s\n", tried[i].label.c_str(),
                    candidate_ms(tried[i].verdict), i == best ? "  <- chosen" : "");
    } else {
      std::snprintf(line, sizeof line, "  %-44s rejected at %s\n", tried[i].label.c_str(),
                    verdict_text(tried[i].verdict, "failed_stage", "?").c_str());
    }
    info() << line;
  }
  if (!tried[best].verdict.value("passed", false)) {
    report_verdict(tried[0].verdict, a.json, out);
    throw CliError(a.program + ": none of " + std::to_string(tried.size()) +
                   " tuned solutions passed the verifier");
  }
  write_output(out, tried[best].source);
  info() << "drtriton convert: " << a.program << " -> " << out << " (tuned: " << tried[best].label
         << ")\n";
  report_verdict(tried[best].verdict, a.json, out);
}

void run_convert(const ConvertArgs& a) {
  Judging judging = judging_of(a);
  if (a.search) return run_search_convert(a, judging);
  if (a.tune && a.policy != "compiler")
    throw CliError("--tune measures the built-in compiler's knobs: not with --policy " + a.policy);
  if (a.policy != "compiler") return run_sampling_policy(a, judging);
  auto start = std::chrono::steady_clock::now();
  ImportedProgram program = import_program(a.program);
  const json& traced = program.traced;
  const Graph& graph = program.graph;
  double trace_s = seconds_since(start);
  CodegenOptions options = codegen_options(traced, a.program);
  options.knobs = a.knobs;
  std::string out = a.out.empty() ? default_output(a.program) : a.out;
  if (a.tune) return run_tuned_convert(a, judging, graph, options, out);
  GeneratedSolution solution = generate_solution(graph, options);
  if (verbose()) {
    char line[160];
    std::snprintf(line, sizeof line, "  trace and import %.2f s, compile %.3f s, %zu bytes\n",
                  trace_s, seconds_since(start) - trace_s, solution.source.size());
    info() << line;
  }
  write_output(out, solution.source);
  info() << "drtriton convert: " << a.program << " -> " << out << " (" << solution.kernels
         << " Triton kernel" << (solution.kernels == 1 ? "" : "s") << ", " << solution.library_calls
         << " library call" << (solution.library_calls == 1 ? "" : "s") << ")\n";

  if (!judging.verify) {
    if (!a.no_verify) {
      info() << "drtriton convert: not verified (no GPU; --verify runs the checks in "
                "Triton's interpreter)\n";
    }
    return;
  }
  if (!has_extension(a.program, ".py")) {
    throw CliError(a.program + ": verifying needs the program's source (.py), not a traced graph");
  }
  const std::string task = read_file(a.program);
  auto verify = [&](const std::string& source) {
    VerifyRequest request = candidate_requests(task, {source}, a, judging).front();
    auto verify_start = std::chrono::steady_clock::now();
    json verdict = verify_once(request, a.cache, "", a.timeout, judging.gpus);
    if (verbose()) {
      char line[64];
      std::snprintf(line, sizeof line, "  verify %.1f s\n", seconds_since(verify_start));
      info() << line;
    }
    return verdict;
  };
  json verdict = verify(solution.source);
  // A rejected solution is not the end: the same program on the conservative routes (cuBLAS
  // products, fp32 FMAs in the dots) is judged too, and written where it passes.
  if (!verdict.value("passed", false)) {
    options.knobs = fallback_knobs(a.knobs);
    GeneratedSolution safe = generate_solution(graph, options);
    if (safe.source != solution.source) {
      info() << "drtriton convert: rejected at " << verdict_text(verdict, "failed_stage", "?")
             << " (" << verdict_text(verdict, "reason", "") << "); judging it on the "
             << "conservative routes (gemm=library, dot_precision=ieee)\n";
      json second = verify(safe.source);
      if (second.value("passed", false)) {
        write_output(out, safe.source);
        info() << "drtriton convert: " << out << " rewritten: the conservative solution passed\n";
        verdict = second;
      }
    }
  }
  report_verdict(verdict, a.json, out);
}

}  // namespace

void add_convert_commands(CLI::App& app) {
  auto a = std::make_shared<ConvertArgs>();
  auto* convert = app.add_subcommand(
      "convert", "Compile a KernelBench-format program into a Triton solution (ModelNew)");
  convert
      ->add_option("program", a->program,
                   "The program (.py with Model, get_inputs, "
                   "get_init_inputs), or a traced graph (.json)")
      ->required();
  convert->add_option("-o,--out", a->out, "Output file (default: PROGRAM_triton.py beside it)");
  convert
      ->add_option("--device", a->device,
                   "Verify on cpu (Triton's interpreter) or cuda (default: cuda if there is a GPU)")
      ->check(CLI::IsMember({"cpu", "cuda"}));
  add_gpus_option(*convert, a->gpus);
  auto* verify =
      convert->add_flag("--verify", a->verify, "Verify even without a GPU (Triton's interpreter)");
  auto* no_verify =
      convert->add_flag("--no-verify", a->no_verify, "Only write the solution")->excludes(verify);
  convert->add_flag("--json", a->json, "Print the verdict as JSON");
  // The program is traced in training mode either way: a solution follows self.training
  // (BatchNorm's batch or running statistics), so only the judging changes.
  convert->add_flag("--eval-mode", a->eval_mode, "Verify the modules after .eval()");
  convert->add_flag("--no-compile-timing", a->no_compile_timing,
                    "Do not time torch.compile (its first call takes seconds, more on the CPU); "
                    "the verdict then has no speedup_compile");
  convert->add_option("--cache", a->cache, "SQLite verdict cache (default: none)");
  convert->add_option("--timeout", a->timeout, "Seconds the verification may run (default 300)")
      ->check(CLI::PositiveNumber);
  convert
      ->add_option("--policy", a->policy,
                   "Who writes the solution: compiler (default, the built-in compiler), "
                   "model:CKPT (samples from a trained checkpoint) or endpoint:URL[#MODEL] (an "
                   "OpenAI-compatible server); of sampled answers, the fastest verified one")
      ->check(policy_spec_error);
  add_sampling_options(*convert, a->sampling);
  add_knob_option(*convert, a->knobs);
  auto* search = convert->add_flag(
      "--search", a->search,
      "Test-time search (drtriton search with its defaults): the fastest verified "
      "cover of the program by its fragments' answers, or the best whole answer");
  convert
      ->add_flag("--tune", a->tune,
                 "Judge the solution under other knob settings too (one knob changed each: "
                 "layout, gemm, blocks, tiles, warps; then the winners together) and keep the "
                 "fastest accepted; verdicts are cached (--cache, else "
                 "~/.cache/drtriton/tune.sqlite)")
      ->excludes(search)
      ->excludes(no_verify);
  convert
      ->add_option("--budget", a->budget,
                   "With --search: seconds of wall time the search may take (default: no "
                   "limit); see drtriton search --budget")
      ->check(budget_error)
      ->needs(search);
  convert->callback([a] { run_convert(*a); });
}

void add_sampling_options(CLI::App& command, Sampling& sampling) {
  command.add_option("--samples", sampling.samples, "Answers a sampling policy draws (default 8)")
      ->check(CLI::Range(1, 256));
  command
      .add_option("--temperature", sampling.temperature,
                  "Sampling temperature; 0: greedy (default 0.8)")
      ->check(CLI::Range(0.0, 10.0));
  command.add_option("--top-p", sampling.top_p, "Nucleus sampling mass (default 0.95)")
      ->check(CLI::Range(0.0, 1.0));
}

}  // namespace drtriton::cli
