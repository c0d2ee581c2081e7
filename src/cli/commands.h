// Each stage registers its subcommands on the one CLI11 app. A subcommand's callback runs
// during parsing and reports failures by throwing CliError or IrError; main turns them
// into one line and an exit status.
#pragma once

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "eval/verdict.h"

namespace drtriton::cli {

void add_ir_commands(CLI::App& app);       // ops, emit, import, check
void add_synth_commands(CLI::App& app);    // synth, synth-stats
void add_eval_commands(CLI::App& app);     // verify, serve
void add_convert_commands(CLI::App& app);  // convert

// Shared between subcommands.
// The traced graph of a program: a .py file through python/drtriton/frontend.py, or a .json
// the frontend wrote earlier.
nlohmann::json load_traced(const std::string& path);
// The GPU indices `nvidia-smi -L` lists (none on a machine without a GPU).
std::vector<int> list_gpus();
// One verdict from a pool of one worker (an empty device: cuda when there is a GPU).
nlohmann::json verify_once(VerifyRequest request, const std::string& cache_path,
                           const std::string& worker_command, double timeout_s);
// The verdict as a table a person reads.
void print_verdict(const nlohmann::json& verdict);
// Prints the verdict (a table, or JSON); throws CliError "CANDIDATE: rejected: reason"
// when it did not pass.
void report_verdict(const nlohmann::json& verdict, bool as_json, const std::string& candidate);

}  // namespace drtriton::cli
