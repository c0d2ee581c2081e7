#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>
#include <set>
#include <thread>

#include "cli/commands.h"
#include "cli/io.h"
#include "ir/json_form.h"
#include "ir/pytorch_emit.h"
#include "ir/pytorch_import.h"
#include "ir/text.h"

namespace fs = std::filesystem;
using json = nlohmann::json;

namespace drtriton::cli {

namespace {

Graph load_graph(const std::string& path) {
  std::string text = read_file(path);
  if (has_extension(path, ".json")) {
    json j = json::parse(text, nullptr, false);
    if (j.is_discarded()) throw CliError(path + ": not valid JSON");
    return graph_from_json(j, path);
  }
  return parse_graph(text, path);
}

std::string format_graph(const Graph& g, const std::string& out_path, bool as_json) {
  if (as_json || has_extension(out_path, ".json")) return graph_to_json(g).dump(2) + "\n";
  return print_graph(g);
}

// "--decompose aten::glu.default,..." for the frontend, or nothing.
std::string decompose_flag(const std::vector<std::string>& calls) {
  std::string list;
  for (const std::string& c : calls) list += (list.empty() ? "" : ",") + c;
  return list.empty() ? "" : " --decompose " + shell_quote(list);
}

// Run python/drtriton/frontend.py on a program and return the traced graph it writes.
json trace_program(const std::string& path) {
  if (!fs::exists(path)) throw CliError(path + ": no such file");
  fs::path dir = fs::temp_directory_path() / ("drtriton-" + std::to_string(::getpid()));
  fs::create_directories(dir);
  fs::path out = dir / "traced.json", err = dir / "stderr.txt";
  std::string cmd = "PYTHONPATH=" + shell_quote(python_path()) + " " +
                    shell_quote(python_executable()) + " -m drtriton.frontend --dynamic " +
                    shell_quote(path) + " -o " + shell_quote(out.string()) + " 2>" +
                    shell_quote(err.string());
  int status = std::system(cmd.c_str());
  std::string message;
  if (fs::exists(err)) message = read_file(err.string());
  json traced;
  if (status == 0 && fs::exists(out)) traced = json::parse(read_file(out.string()), nullptr, false);
  fs::remove_all(dir);
  if (status != 0) {
    // The frontend ends its error with one line that names the file and the reason.
    while (!message.empty() && message.back() == '\n') message.pop_back();
    size_t last = message.rfind('\n');
    std::string line = last == std::string::npos ? message : message.substr(last + 1);
    throw CliError(line.empty() ? path + ": the frontend failed" : line);
  }
  if (traced.is_discarded()) throw CliError(path + ": the frontend wrote invalid JSON");
  return traced;
}

void print_ops_table() {
  std::printf("%-22s %-14s %5s  %s\n", "operator", "category", "arity", "attributes");
  for (const OpSchema& s : all_op_schemas()) {
    std::string attrs;
    for (const AttrSpec& a : s.attrs) {
      attrs += (attrs.empty() ? "" : ", ") + a.name;
      if (a.default_value) attrs += "=" + attr_to_string(*a.default_value);
    }
    if (!s.sampled) attrs += std::string(attrs.empty() ? "" : "  ") + "(not drawn by synth yet)";
    std::printf("%-22s %-14s %5s  %s\n", s.name.c_str(),
                std::string(category_name(s.category)).c_str(),
                s.arity < 0 ? "n" : std::to_string(s.arity).c_str(), attrs.c_str());
  }
  std::printf("%zu operators\n", all_op_schemas().size());
}

// "# sym %x: [s77, 3, (s53//2)]" for each value with a symbolic shape, then
// "# sym %div.other = s0" for each number attribute computed from sizes. Comment lines, so
// that the output still parses as IR.
std::string format_sym_shapes(const Graph& g) {
  std::string out;
  for (const Value& v : g.values()) {
    if (v.sym_shape.empty()) continue;
    out += "# sym %" + v.name + ": [";
    for (size_t i = 0; i < v.sym_shape.size(); ++i) out += (i ? ", " : "") + v.sym_shape[i];
    out += "]\n";
  }
  for (const Node& n : g.nodes())
    for (const auto& [attr, expr] : n.sym_attrs)
      out += "# sym %" + g.value(n.output).name + "." + attr + " = " + expr + "\n";
  return out;
}

}  // namespace

std::vector<json> run_python_batches(const std::string& module_args,
                                     const std::vector<std::string>& paths, int processes,
                                     const std::function<void(int)>& progress,
                                     const std::string& what) {
  std::vector<json> docs(paths.size());
  if (paths.empty()) return docs;
  std::map<std::string, size_t> index_of;
  for (size_t i = 0; i < paths.size(); ++i) index_of[paths[i]] = i;
  if (index_of.size() != paths.size()) throw std::logic_error("run_python_batches: paths repeat");
  processes = std::max(1, std::min<int>(processes, static_cast<int>(paths.size())));
  static std::atomic<int> calls{0};
  fs::path dir = fs::temp_directory_path() /
                 ("drtriton-batch-" + std::to_string(::getpid()) + "-" + std::to_string(calls++));
  fs::create_directories(dir);
  std::mutex mutex;
  int done = 0;
  // Process p takes paths p, p + P, p + 2P, ...: programs come in no particular order of
  // cost, so each gets a fair share. Its lines arrive as each file is done.
  auto run = [&](int p) {
    fs::path list = dir / ("list-" + std::to_string(p)),
             err = dir / ("stderr-" + std::to_string(p));
    {
      std::ofstream out(list);
      for (size_t i = p; i < paths.size(); i += processes) out << paths[i] << "\n";
    }
    std::string cmd = "PYTHONPATH=" + shell_quote(python_path()) + " " +
                      shell_quote(python_executable()) + " -m " + module_args + " --batch " +
                      shell_quote(list.string()) + " 2>" + shell_quote(err.string());
    FILE* pipe = ::popen(cmd.c_str(), "r");
    if (!pipe) return;
    char* line = nullptr;
    size_t capacity = 0;
    while (::getline(&line, &capacity, pipe) > 0) {
      json doc = json::parse(line, nullptr, false);
      if (doc.is_discarded() || !doc.contains("source") || !doc["source"].is_string()) continue;
      auto it = index_of.find(doc["source"].get<std::string>());
      if (it == index_of.end()) continue;
      std::lock_guard<std::mutex> lock(mutex);
      docs[it->second] = std::move(doc);
      if (progress) progress(++done);
    }
    std::free(line);
    ::pclose(pipe);
  };
  std::vector<std::thread> threads;
  for (int p = 0; p < processes; ++p) threads.emplace_back(run, p);
  for (std::thread& t : threads) t.join();
  // A file without a line: its process stopped early; say what it last wrote.
  std::string why;
  for (int p = 0; p < processes; ++p) {
    fs::path err = dir / ("stderr-" + std::to_string(p));
    std::string text = fs::exists(err) ? read_file(err.string()) : "";
    while (!text.empty() && text.back() == '\n') text.pop_back();
    if (!text.empty())
      why = text.substr(text.rfind('\n') == std::string::npos ? 0 : text.rfind('\n') + 1);
  }
  fs::remove_all(dir);
  for (size_t i = 0; i < paths.size(); ++i) {
    if (docs[i].is_null()) {
      docs[i] = {{"source", paths[i]},
                 {"error", paths[i] + ": " + what + " stopped" + (why.empty() ? "" : ": " + why)}};
    }
  }
  return docs;
}

std::vector<json> trace_programs(const std::vector<std::string>& paths, int processes,
                                 const std::function<void(int)>& progress) {
  return run_python_batches("drtriton.frontend --dynamic", paths, processes, progress,
                            "the frontend");
}

// Calls of an ImportError that torch can decompose (the frontend marks their nodes in `doc`
// "decomposes") and that are not in `tried` yet, added to it; empty when there is none: then
// tracing the program again cannot help.
std::vector<std::string> new_calls(const ImportError& e, const json& doc,
                                   std::set<std::string>& tried) {
  std::set<std::string> decomposable;
  for (const json& n : doc.value("nodes", json::array()))
    if (n.value("decomposes", false))
      decomposable.insert(n.value("target", "") + "." + n.value("overload", ""));
  std::vector<std::string> added;
  for (const std::string& c : e.calls)
    if (decomposable.count(c) && tried.insert(c).second) added.push_back(c);
  return added;
}

// How many times a program is traced again through more decompositions (a decomposition may
// bring calls that need one of their own).
constexpr int kDecomposeRounds = 3;

std::vector<ImportedProgram> import_programs(const std::vector<std::string>& paths,
                                             std::vector<json> traced, int processes) {
  std::vector<ImportedProgram> out(paths.size());
  std::vector<std::set<std::string>> tried(paths.size());
  std::vector<size_t> again;  // programs to trace again, this round
  auto import_one = [&](size_t i, json doc, bool first) {
    if (doc.contains("error")) {
      if (first) out[i].error = doc["error"].get<std::string>();
      return false;
    }
    try {
      out[i].graph = import_traced(doc);
      out[i].traced = std::move(doc);
      out[i].error.clear();
      out[i].failure = nullptr;
      return false;
    } catch (const ImportError& e) {
      bool again = !new_calls(e, doc, tried[i]).empty();
      if (first) {
        out[i].error = e.what();
        out[i].failure = std::current_exception();
        out[i].traced = std::move(doc);
      }
      return again;
    } catch (const std::exception& e) {
      if (first) out[i].error = e.what(), out[i].failure = std::current_exception();
      return false;
    }
  };
  for (size_t i = 0; i < paths.size(); ++i)
    if (import_one(i, std::move(traced[i]), true)) again.push_back(i);
  for (int round = 0; round < kDecomposeRounds && !again.empty(); ++round) {
    // One frontend run per round: every program traced with the union of the calls (a
    // decomposition of a call a program does not make changes nothing in it).
    std::set<std::string> calls;
    std::vector<std::string> again_paths;
    for (size_t i : again) {
      calls.insert(tried[i].begin(), tried[i].end());
      again_paths.push_back(paths[i]);
    }
    std::vector<json> docs = run_python_batches(
        "drtriton.frontend --dynamic" + decompose_flag({calls.begin(), calls.end()}), again_paths,
        processes, {}, "the frontend");
    std::vector<size_t> next;
    for (size_t k = 0; k < again.size(); ++k)
      if (import_one(again[k], std::move(docs[k]), false)) next.push_back(again[k]);
    again = std::move(next);
  }
  return out;
}

ImportedProgram import_program(const std::string& path) {
  json traced = load_traced(path);
  if (!has_extension(path, ".py")) return {traced, import_traced(traced), ""};
  ImportedProgram program = std::move(import_programs({path}, {std::move(traced)}, 1).front());
  if (program.failure) std::rethrow_exception(program.failure);
  return program;
}

json load_traced(const std::string& path) {
  if (!has_extension(path, ".py") && !has_extension(path, ".json")) {
    throw CliError(path + ": expected a Python program (.py) or a traced graph (.json)");
  }
  if (!has_extension(path, ".json")) return trace_program(path);
  // A .json input is a traced program that frontend.py already wrote.
  json traced = json::parse(read_file(path), nullptr, false);
  if (traced.is_discarded()) throw CliError(path + ": not valid JSON");
  return traced;
}

void add_ir_commands(CLI::App& app) {
  auto* ops = app.add_subcommand("ops", "List the operator table");
  auto ops_json = std::make_shared<bool>(false);
  ops->add_flag("--json", *ops_json, "Print the table as JSON");
  ops->callback([ops_json] {
    if (*ops_json) {
      std::cout << ops_to_json().dump(2) << "\n";
    } else {
      print_ops_table();
    }
  });

  struct InOut {
    std::string in, out;
    bool json = false;
    bool sym = false;
  };
  auto emit_args = std::make_shared<InOut>();
  auto* emit = app.add_subcommand("emit", "Write a graph as a KernelBench-format PyTorch program");
  emit->add_option("graph", emit_args->in, "Graph in IR text (.ir) or JSON (.json) form")
      ->required();
  emit->add_option("-o,--output", emit_args->out, "Output .py file (default: standard output)");
  emit->callback(
      [emit_args] { write_output(emit_args->out, emit_pytorch(load_graph(emit_args->in))); });

  auto import_args = std::make_shared<InOut>();
  auto* import = app.add_subcommand("import", "Trace a KernelBench-format program into a graph");
  import
      ->add_option("program", import_args->in,
                   "The program (.py) with Model, get_inputs, get_init_inputs, or the "
                   "traced graph (.json) that python -m drtriton.frontend wrote")
      ->required();
  import->add_option("-o,--output", import_args->out,
                     "Output graph: .ir text, .json (default: stdout)");
  import->add_flag("--json", import_args->json, "Write the JSON form");
  import->add_flag("--sym", import_args->sym,
                   "After the IR text, list each value's shape over the input sizes as "
                   "comments: # sym %x: [s77, 3, (s53//2)]; and each number computed from "
                   "sizes: # sym %div.other = s0");
  import->callback([import_args] {
    const InOut& a = *import_args;
  if (a.sym && (a.json || has_extension(a.out, ".json")))
    throw CliError("--sym adds comment lines to the IR text, not to the JSON form");
  Graph g = import_program(a.in).graph;
  std::string text = format_graph(g, a.out, a.json);
  if (a.sym) text += format_sym_shapes(g);
  write_output(a.out, text);
});

auto check_args = std::make_shared<InOut>();
auto* check = app.add_subcommand("check", "Parse and verify a graph; print it back");
check->add_option("graph", check_args->in, "Graph in IR text (.ir) or JSON (.json) form")
    ->required();
check->add_flag("--json", check_args->json, "Print the JSON form instead of a summary");
auto work = std::make_shared<bool>(false);
check->add_flag("--work", *work,
                "Print what a roofline counts instead: flops, conv_flops, io_bytes (JSON)");
check->callback([check_args, work] {
  Graph g = load_graph(check_args->in);
  if (*work) {
    std::cout << work_of(g).dump() << "\n";
    return;
  }
  if (check_args->json) {
    std::cout << graph_to_json(g).dump(2) << "\n";
    return;
  }
  std::cout << print_graph(g);
  std::printf("# ok: %zu inputs, %zu params, %zu nodes (%d compute), %.4g GFLOP, %.4g MB\n",
              g.inputs().size(), g.params().size(), g.nodes().size(), g.compute_ops(),
              g.flops() / 1e9, static_cast<double>(g.bytes()) / 1e6);
});
}  // namespace drtriton::cli

}  // namespace drtriton::cli
