// drtriton: the command line. Each subcommand reads its input, runs one stage and writes
// its output atomically: on any error it prints one line naming the place, exits non-zero
// (1: bad input, 2: bad usage, 3: internal error) and leaves no partial output file.
#include <iostream>

#include "cli/commands.h"
#include "cli/io.h"
#include "ir/error.h"

using namespace drtriton;

int main(int argc, char** argv) {
  CLI::App app{"drtriton: PyTorch programs to fast, verified Triton kernels"};
  app.require_subcommand(1);
  // One version for the binary and the Python package: CMake reads python/drtriton/__init__.py.
  app.set_version_flag("--version", "drtriton " DRTRITON_VERSION);
  // Before or after the command's name: `drtriton -q convert x.py`, `drtriton convert x.py -q`.
  app.fallthrough();
  auto* quiet = app.add_flag_callback(
      "-q,--quiet", [] { cli::set_verbosity(cli::Verbosity::Quiet); },
      "Say nothing on stderr but errors (no progress, no notes)");
  app.add_flag_callback(
         "-v,--verbose", [] { cli::set_verbosity(cli::Verbosity::Verbose); },
         "Also say each step's time and each program's outcome as it comes")
      ->excludes(quiet);
  cli::add_ir_commands(app);
  cli::add_synth_commands(app);
  cli::add_eval_commands(app);
  cli::add_convert_commands(app);
  cli::add_learn_commands(app);
  cli::add_bench_commands(app);
  cli::add_search_commands(app);

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
  } catch (const cli::ExitStatus& e) {
    return e.code;
  } catch (const cli::CliError& e) {
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
