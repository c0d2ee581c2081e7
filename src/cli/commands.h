// Each stage registers its subcommands on the one CLI11 app. A subcommand's callback runs
// during parsing and reports failures by throwing CliError or IrError; main turns them
// into one line and an exit status.
#pragma once

#include <CLI/CLI.hpp>

namespace drtriton::cli {

void add_ir_commands(CLI::App& app);     // ops, emit, import, check
void add_synth_commands(CLI::App& app);  // synth, synth-stats
void add_eval_commands(CLI::App& app);   // verify, serve

}  // namespace drtriton::cli
