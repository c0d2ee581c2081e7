// drtriton convert: a KernelBench-format program in, a verified Triton solution out, with
// the built-in compiler (src/codegen) as the policy.
#include <filesystem>
#include <iostream>
#include <memory>

#include "cli/commands.h"
#include "cli/io.h"
#include "codegen/codegen.h"
#include "ir/pytorch_import.h"

namespace fs = std::filesystem;
using json = nlohmann::json;

namespace drtriton::cli {

namespace {

struct ConvertArgs {
  std::string program, out, device, cache;
  bool verify = false, no_verify = false, json = false;
  double timeout = 300;
};

// The reference's state_dict as the frontend listed it: ModelNew declares the same entries.
std::vector<StateEntry> state_of(const json& traced, const std::string& where) {
  std::vector<StateEntry> state;
  for (const json& p : traced.value("params", json::array())) {
    std::string kind = p.value("kind", "");
    if (kind != "parameter" && kind != "buffer") continue;  // lifted constants are not state
    StateEntry e;
    e.key = p.value("target", "");
    if (!parse_dtype(p.value("dtype", ""), &e.type.dtype)) {
      throw CliError(where + ": parameter " + e.key + " has an unknown dtype");
    }
    for (const json& d : p.value("shape", json::array())) e.type.shape.push_back(d.get<int64_t>());
    e.is_buffer = kind == "buffer";
    e.persistent = p.value("persistent", true);
    state.push_back(e);
  }
  return state;
}

std::string default_output(const std::string& program) {
  fs::path p(program);
  return (p.parent_path() / (p.stem().string() + "_triton.py")).string();
}

void run_convert(const ConvertArgs& a) {
  json traced = load_traced(a.program);
  Graph graph = import_traced(traced);
  CodegenOptions options;
  options.init_params = traced.value("init_signature", "");
  options.state = state_of(traced, a.program);
  options.source_name = fs::path(a.program).filename().string();
  GeneratedSolution solution = generate_solution(graph, options);
  std::string out = a.out.empty() ? default_output(a.program) : a.out;
  write_output(out, solution.source);
  std::cerr << "drtriton convert: " << a.program << " -> " << out << " (" << solution.kernels
            << " Triton kernel" << (solution.kernels == 1 ? "" : "s") << ", "
            << solution.library_calls << " library call" << (solution.library_calls == 1 ? "" : "s")
            << ")\n";

  bool gpu = !a.device.empty() ? a.device == "cuda" : !list_gpus().empty();
  bool verify = !a.no_verify && (a.verify || gpu || !a.device.empty());
  if (!verify) {
    if (!a.no_verify) {
      std::cerr << "drtriton convert: not verified (no GPU; --verify runs the checks in "
                   "Triton's interpreter)\n";
    }
    return;
  }
  if (!has_extension(a.program, ".py")) {
    throw CliError(a.program + ": verifying needs the program's source (.py), not a traced graph");
  }
  VerifyRequest request;
  request.task = read_file(a.program);
  request.candidate = solution.source;
  request.options.device = a.device.empty() ? (gpu ? "cuda" : "cpu") : a.device;
  report_verdict(verify_once(request, a.cache, "", a.timeout), a.json, out);
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
  auto* verify =
      convert->add_flag("--verify", a->verify, "Verify even without a GPU (Triton's interpreter)");
  convert->add_flag("--no-verify", a->no_verify, "Only write the solution")->excludes(verify);
  convert->add_flag("--json", a->json, "Print the verdict as JSON");
  convert->add_option("--cache", a->cache, "SQLite verdict cache (default: none)");
  convert->add_option("--timeout", a->timeout, "Seconds the verification may run (default 300)")
      ->check(CLI::PositiveNumber);
  convert->callback([a] { run_convert(*a); });
}

}  // namespace drtriton::cli
