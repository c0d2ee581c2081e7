// drtriton: the command line. Each subcommand reads its input, runs one stage and writes
// its output atomically: on any error it prints one line naming the place, exits non-zero
// and leaves no partial output file.
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "ir/json_form.h"
#include "ir/pytorch_emit.h"
#include "ir/pytorch_import.h"
#include "ir/text.h"

namespace fs = std::filesystem;
using namespace drtriton;
using json = nlohmann::json;

namespace {

// A user-facing failure: the message is printed as "drtriton: <message>".
struct CliError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

std::string read_file(const std::string& path) {
  if (!fs::exists(path)) throw CliError(path + ": no such file");
  if (fs::is_directory(path)) throw CliError(path + ": is a directory, not a file");
  std::ifstream in(path, std::ios::binary);
  if (!in) throw CliError(path + ": cannot be read");
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

// Write through a temporary file in the same folder and rename it into place, so a
// reader never sees half a file and a failure leaves nothing behind.
void write_output(const std::string& path, const std::string& text) {
  if (path.empty() || path == "-") {
    std::cout << text;
    return;
  }
  fs::path target(path);
  fs::path tmp = target;
  tmp += ".tmp" + std::to_string(::getpid());
  {
    std::ofstream out(tmp, std::ios::binary);
    if (!out) throw CliError(path + ": cannot be written");
    out << text;
    if (!out.flush()) {
      fs::remove(tmp);
      throw CliError(path + ": write failed");
    }
  }
  fs::rename(tmp, target);
}

bool has_extension(const std::string& path, const char* ext) {
  return fs::path(path).extension() == ext;
}

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

std::string shell_quote(const std::string& s) {
  std::string q = "'";
  for (char c : s) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return q + "'";
}

// The Python that has PyTorch: $DRTRITON_PYTHON, else the project's virtual environment.
std::string python_executable() {
  if (const char* p = std::getenv("DRTRITON_PYTHON")) return p;
  fs::path venv = fs::path(DRTRITON_SOURCE_DIR) / ".venv/bin/python";
  return fs::exists(venv) ? venv.string() : "python3";
}

// Run python/drtriton/frontend.py on a program and return the traced graph it writes.
json trace_program(const std::string& path) {
  if (!fs::exists(path)) throw CliError(path + ": no such file");
  fs::path dir = fs::temp_directory_path() / ("drtriton-" + std::to_string(::getpid()));
  fs::create_directories(dir);
  fs::path out = dir / "traced.json", err = dir / "stderr.txt";
  std::string cmd =
      "PYTHONPATH=" + shell_quote((fs::path(DRTRITON_SOURCE_DIR) / "python").string()) + " " +
      shell_quote(python_executable()) + " -m drtriton.frontend " + shell_quote(path) + " -o " +
      shell_quote(out.string()) + " 2>" + shell_quote(err.string());
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
    std::printf("%-22s %-14s %5s  %s\n", s.name.c_str(),
                std::string(category_name(s.category)).c_str(),
                s.arity < 0 ? "n" : std::to_string(s.arity).c_str(), attrs.c_str());
  }
  std::printf("%zu operators\n", all_op_schemas().size());
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"drtriton: PyTorch programs to fast, verified Triton kernels"};
  app.require_subcommand(1);

  bool ops_json = false;
  auto* ops = app.add_subcommand("ops", "List the operator table");
  ops->add_flag("--json", ops_json, "Print the table as JSON");

  std::string emit_in, emit_out;
  auto* emit = app.add_subcommand("emit", "Write a graph as a KernelBench-format PyTorch program");
  emit->add_option("graph", emit_in, "Graph in IR text (.ir) or JSON (.json) form")->required();
  emit->add_option("-o,--output", emit_out, "Output .py file (default: standard output)");

  std::string import_in, import_out;
  bool import_json = false;
  auto* import = app.add_subcommand("import", "Trace a KernelBench-format program into a graph");
  import
      ->add_option("program", import_in,
                   "The program (.py) with Model, get_inputs, get_init_inputs, or the "
                   "traced graph (.json) that python -m drtriton.frontend wrote")
      ->required();
  import->add_option("-o,--output", import_out, "Output graph: .ir text, .json (default: stdout)");
  import->add_flag("--json", import_json, "Write the JSON form");

  std::string check_in;
  bool check_json = false;
  auto* check = app.add_subcommand("check", "Parse and verify a graph; print it back");
  check->add_option("graph", check_in, "Graph in IR text (.ir) or JSON (.json) form")->required();
  check->add_flag("--json", check_json, "Print the JSON form instead of a summary");

  std::string names;
  bool known = false;
  for (const CLI::App* sub : app.get_subcommands({})) {
    names += (names.empty() ? "" : ", ") + sub->get_name();
    known = known || (argc > 1 && sub->get_name() == argv[1]);
  }
  if (argc > 1 && argv[1][0] != '-' && !known) {
    std::cerr << "drtriton: unknown command '" << argv[1] << "' (commands: " << names << ")\n";
    return 2;
  }
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    int code = app.exit(e);  // prints the help or the usage error
    return code == 0 ? 0 : 2;
  }

  try {
    if (*ops) {
      if (ops_json) {
        std::cout << ops_to_json().dump(2) << "\n";
      } else {
        print_ops_table();
      }
    } else if (*emit) {
      write_output(emit_out, emit_pytorch(load_graph(emit_in)));
    } else if (*import) {
      // A .json input is a traced program that frontend.py already wrote.
      json traced;
      if (!has_extension(import_in, ".py") && !has_extension(import_in, ".json")) {
        throw CliError(import_in + ": expected a Python program (.py) or a traced graph (.json)");
      }
      if (has_extension(import_in, ".json")) {
        traced = json::parse(read_file(import_in), nullptr, false);
        if (traced.is_discarded()) throw CliError(import_in + ": not valid JSON");
      } else {
        traced = trace_program(import_in);
      }
      Graph g = import_traced(traced);
      write_output(import_out, format_graph(g, import_out, import_json));
    } else if (*check) {
      Graph g = load_graph(check_in);
      if (check_json) {
        std::cout << graph_to_json(g).dump(2) << "\n";
      } else {
        std::cout << print_graph(g);
        std::printf("# ok: %zu inputs, %zu params, %zu nodes (%d compute), %.4g GFLOP, %.4g MB\n",
                    g.inputs().size(), g.params().size(), g.nodes().size(), g.compute_ops(),
                    g.flops() / 1e9, static_cast<double>(g.bytes()) / 1e6);
      }
    }
  } catch (const CliError& e) {
    std::cerr << "drtriton: " << e.what() << "\n";
    return 1;
  } catch (const IrError& e) {
    std::cerr << "drtriton: " << e.what() << "\n";
    return 1;
  } catch (const std::exception& e) {
    std::cerr << "drtriton: internal error: " << e.what() << "\n";
    return 3;
  }
  return 0;
}
