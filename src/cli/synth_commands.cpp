// drtriton synth and synth-stats: datasets of synthetic programs and what is in them
// (one or several datasets, side by side).
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <memory>
#include <set>
#include <sstream>
#include <thread>

#include "cli/commands.h"
#include "cli/io.h"
#include "ir/text.h"
#include "synth/dataset.h"
#include "synth/degenerate.h"

namespace fs = std::filesystem;
using json = nlohmann::json;

namespace drtriton::cli {

namespace {

std::vector<Op> parse_op_list(const std::string& list, const char* flag) {
  std::vector<Op> ops;
  std::stringstream in(list);
  for (std::string name; std::getline(in, name, ',');) {
    if (name.empty()) continue;
    const OpSchema* s = find_op(name);
    if (!s)
      throw CliError(std::string(flag) + ": unknown operator '" + name +
                     "' (drtriton ops lists them)");
    if (!s->sampled && std::string(flag) == "--ops")
      throw CliError(std::string(flag) + ": the generator does not draw '" + name +
                     "' yet (import and convert know it)");
    ops.push_back(s->op);
  }
  return ops;
}

void parse_difficulty(const std::string& text, SynthOptions& o) {
  size_t colon = text.find(':');
  try {
    size_t used = 0;
    o.difficulty_lo = std::stoi(text.substr(0, colon), &used);
    if (used != (colon == std::string::npos ? text.size() : colon)) throw std::invalid_argument("");
    o.difficulty_hi =
        colon == std::string::npos ? o.difficulty_lo : std::stoi(text.substr(colon + 1), &used);
    if (colon != std::string::npos && used != text.size() - colon - 1)
      throw std::invalid_argument("");
  } catch (const std::exception&) {
    throw CliError("--difficulty: expected K or A:B, got '" + text + "'");
  }
}

void write_jsonl(const std::string& path, const std::vector<ProgramRecord>& records) {
  write_atomic(path, [&](std::ostream& out) {
    for (const ProgramRecord& r : records) out << r.to_json().dump() << "\n";
  });
}

void write_programs(const std::string& dir, const std::vector<ProgramRecord>& records) {
  fs::create_directories(dir);
  for (const ProgramRecord& r : records)
    write_output((fs::path(dir) / (r.id + ".py")).string(), r.pytorch);
}

SizePreset size_preset_or_error(const std::string& name) {
  try {
    return size_preset(name);
  } catch (const std::invalid_argument& e) {
    throw CliError(std::string("--size: ") + e.what());
  }
}

// One flag per program, in order: its output is the same on two input draws, or not finite
// (python -m drtriton.numeric_check --batch in `processes` Pythons).
std::vector<bool> numeric_check(const std::vector<ProgramRecord>& programs, int processes) {
  static std::atomic<int> calls{0};
  ScratchDir dir{fs::temp_directory_path() /
                 ("drtriton-check-" + std::to_string(::getpid()) + "-" + std::to_string(calls++))};
  fs::create_directories(dir.path);
  std::vector<std::string> paths;
  for (const ProgramRecord& r : programs) {
    paths.push_back((dir.path / (r.id + ".py")).string());
    write_output(paths.back(), r.pytorch);
  }
  // Each process imports torch first (seconds) and then checks a program in milliseconds:
  // a round of a few redrawn programs needs no more than one.
  processes = std::min(processes, static_cast<int>(paths.size() + 99) / 100);
  Progress progress{"numeric check", static_cast<int>(paths.size())};
  std::vector<json> docs =
      run_python_batches("drtriton.numeric_check", paths, processes, progress, "the numeric check");
  progress(static_cast<int>(paths.size()));
  std::vector<bool> flagged;
  for (size_t i = 0; i < docs.size(); ++i) {
    // A program without a verdict: the check itself is broken (its Python has no torch).
    // The error names the program's scratch file first, which says nothing to the user.
    if (docs[i].contains("error"))
      throw CliError(docs[i]["error"].get<std::string>().substr(paths[i].size() + 2));
    flagged.push_back(!docs[i].value("varies", false));
    // A program that does not run is a bug of the generator: drawn again, but said.
    if (docs[i].value("raised", false)) {
      if (!quiet())
        std::fprintf(stderr, "numeric check: %s raised %s; drawn again\n", programs[i].id.c_str(),
                     docs[i].value("why", std::string("?")).c_str());
    }
  }
  return flagged;
}

struct SynthArgs {
  int count = 100;
  std::string difficulty = "1:5", out, ops, exclude, size, emit_dir, suite;
  std::string dist = "real", dist_file;
  uint64_t seed = 1;
  int cover = 0, jobs = 0;
  bool count_structures = false, numeric_check = false;
  double max_flops = 0, max_bytes = 0;
};

void run_synth(const SynthArgs& a) {
  SynthOptions o;
  // Training data defaults to tiny programs; the evaluation suites to GPU-sized ones.
  o.sizes = size_preset_or_error(!a.size.empty() ? a.size : a.suite.empty() ? "tiny" : "bench");
  if (a.max_flops > 0) o.sizes.max_flops = a.max_flops;
  if (a.max_bytes > 0) o.sizes.max_bytes = a.max_bytes;
  o.jobs =
      a.jobs > 0 ? a.jobs : static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  std::vector<Op> vocab = a.ops.empty() ? default_vocabulary() : parse_op_list(a.ops, "--ops");
  std::vector<Op> excluded = parse_op_list(a.exclude, "--exclude");
  for (Op op : excluded) vocab.erase(std::remove(vocab.begin(), vocab.end(), op), vocab.end());
  if (vocab.empty()) throw CliError("--ops/--exclude leave no operator to sample");
  o.ops = vocab;
  if (a.numeric_check) use_numeric_check(o);
  if (a.dist == "real") {
    o.dist = Distribution::Real;
    o.real_table = std::make_shared<RealTable>(
        load_real_table(a.dist_file.empty() ? default_real_table_path() : a.dist_file));
  } else if (a.dist != "uniform") {
    throw CliError("--dist: expected uniform or real, got '" + a.dist + "'");
  } else if (!a.dist_file.empty()) {
    throw CliError("--dist-file: only --dist real reads a table");
  }
  if (!a.suite.empty()) {
    // The fixed evaluation suites: --count programs (default 100) at each of difficulties
    // 1, 2, 5 and 20.
    std::vector<ProgramRecord> all;
    for (int k : {1, 2, 5, 20}) {
      o.count = a.count;
      o.difficulty_lo = o.difficulty_hi = k;
      o.seed = kSuiteSeed + static_cast<uint64_t>(k);
      Progress progress{"synth", o.count};
      std::vector<ProgramRecord> records = synthesize(o, progress);
      char dir[16];
      std::snprintf(dir, sizeof dir, "d%02d", k);
      for (ProgramRecord& r : records) r.id = std::string(dir) + "_" + r.id;
      write_programs((fs::path(a.suite) / dir).string(), records);
      all.insert(all.end(), records.begin(), records.end());
    }
    write_jsonl((fs::path(a.suite) / "suite.jsonl").string(), all);
    if (!quiet()) std::fprintf(stderr, "wrote %zu programs to %s\n", all.size(), a.suite.c_str());
    if (a.numeric_check) print_numeric_redraws(all);
    return;
  }
  if (a.count_structures) {
    parse_difficulty(a.difficulty, o);
    for (int k = o.difficulty_lo; k <= o.difficulty_hi; ++k) {
      auto start = std::chrono::steady_clock::now();
      StructureSpace space({o.ops, k, std::nullopt});
      double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
      std::printf("difficulty %2d: %s structures (%.3g; %zu abstract states, counted in %.2f s)\n",
                  k, space.count().to_string().c_str(), space.count().to_double(),
                  space.state_count(), s);
    }
    return;
  }
  if (a.out.empty()) throw CliError("--out is required (or --suite DIR)");
  if (a.seed >= kSuiteSeed && a.seed < kSuiteSeed + 100) {
    throw CliError("--seed " + std::to_string(a.seed) + " is reserved for the evaluation suites");
  }
  check_output_path(a.out);  // before minutes of generating, not after
  o.count = a.count;
  o.seed = a.seed;
  o.cover = a.cover;
  parse_difficulty(a.difficulty, o);
  auto start = std::chrono::steady_clock::now();
  Progress progress{"synth", o.count};
  std::vector<ProgramRecord> records = synthesize(o, progress);
  write_jsonl(a.out, records);
  if (!a.emit_dir.empty()) write_programs(a.emit_dir, records);
  double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  if (!quiet())
    std::fprintf(stderr, "wrote %zu programs to %s in %.2f s (%.0f programs/s, %d jobs)\n",
                 records.size(), a.out.c_str(), s, records.size() / std::max(s, 1e-9), o.jobs);
  if (a.numeric_check) print_numeric_redraws(records);
  // Uniformity holds over structures whose shapes fit the preset; say how many did not.
  if (o.dist != Distribution::Uniform) return;
  int redraws = 0;
  for (const ProgramRecord& r : records) redraws += r.redraws;
  std::fprintf(
      stderr,
      "%d structures were drawn again because no shapes fit the size budget (%.2f%% of draws)\n",
      redraws, 100.0 * redraws / std::max<size_t>(1, records.size() + redraws));
}

// What synth-stats counts of one dataset. Anchor and layout shares count programs that
// contain any op of the category; the output size is the returned value's element count.
struct DatasetStats {
  std::string path;
  int n = 0, with_anchor = 0, with_layout = 0, degenerate = 0;
  std::map<std::string, int> programs_with, occurrences;
  std::map<int, int> difficulty, length, output_log2;
  std::map<std::pair<std::string, std::string>, int> pairs;
  std::vector<int> lengths;
  std::vector<int64_t> outputs;
  std::vector<std::string> degenerate_examples;
};

DatasetStats read_stats(const std::string& path) {
  if (!fs::exists(path)) throw CliError(path + ": no such file");
  std::ifstream in(path);
  DatasetStats d;
  d.path = path;
  int line_no = 0;
  for (std::string line; std::getline(in, line);) {
    ++line_no;
    if (line.empty()) continue;
    json r = json::parse(line, nullptr, false);
    if (r.is_discarded() || !r.contains("ops") || !r["ops"].is_array() ||
        !r.contains("difficulty") || !r.contains("ir") || !r["ir"].is_string()) {
      throw CliError(path + ":" + std::to_string(line_no) +
                     ": not a synth record (needs \"ops\", \"difficulty\" and \"ir\")");
    }
    ++d.n;
    ++d.difficulty[r["difficulty"].get<int>()];
    std::set<std::string> seen;
    bool anchor = false, layout = false;
    for (const json& op : r["ops"]) {
      std::string name = op.get<std::string>();
      ++d.occurrences[name];
      seen.insert(name);
      if (const OpSchema* s = find_op(name)) {
        anchor |= s->category == Category::Anchor;
        layout |= s->category == Category::Layout;
      }
    }
    d.with_anchor += anchor;
    d.with_layout += layout;
    int len = static_cast<int>(r["ops"].size());
    ++d.length[len];
    d.lengths.push_back(len);
    for (const std::string& a : seen) {
      ++d.programs_with[a];
      for (const std::string& b : seen)
        if (a < b) ++d.pairs[{a, b}];
    }
    Graph g;
    try {
      g = parse_graph(r["ir"].get<std::string>(), path + ":" + std::to_string(line_no));
    } catch (const IrError& e) {
      throw CliError(e.what());
    }
    int64_t out = g.value(g.outputs().at(0)).type.numel();
    d.outputs.push_back(out);
    ++d.output_log2[static_cast<int>(
        std::floor(std::log2(static_cast<double>(std::max<int64_t>(out, 1)))))];
    std::string why = find_degenerate(g);
    if (!why.empty()) {
      ++d.degenerate;
      if (d.degenerate_examples.size() < 5)
        d.degenerate_examples.push_back(r.value("id", "line " + std::to_string(line_no)) + ": " +
                                        why);
    }
  }
  return d;
}

template <typename T>
T median(std::vector<T> v) {
  if (v.empty()) return T{};
  std::nth_element(v.begin(), v.begin() + v.size() / 2, v.end());
  return v[v.size() / 2];
}

json stats_json(const DatasetStats& d) {
  json j = {{"source", d.path},
            {"programs", d.n},
            {"with_anchor", d.with_anchor},
            {"with_layout", d.with_layout},
            {"degenerate", d.degenerate},
            {"programs_with", d.programs_with},
            {"occurrences", d.occurrences},
            {"difficulty", json::object()},
            {"length", json::object()},
            {"output_log2", json::object()},
            {"pairs", json::array()}};
  for (auto& [k, c] : d.difficulty) j["difficulty"][std::to_string(k)] = c;
  for (auto& [k, c] : d.length) j["length"][std::to_string(k)] = c;
  for (auto& [k, c] : d.output_log2) j["output_log2"][std::to_string(k)] = c;
  for (auto& [p, c] : d.pairs) j["pairs"].push_back({p.first, p.second, c});
  return j;
}

// One column per dataset, so that two distributions read side by side.
void run_stats(const std::vector<std::string>& paths, const std::string& plots_dir) {
  std::vector<DatasetStats> all;
  for (const std::string& p : paths) all.push_back(read_stats(p));
  auto row = [&](const char* label, auto&& cell) {
    std::printf("  %-26s", label);
    for (const DatasetStats& d : all) std::printf(" %14s", cell(d).c_str());
    std::printf("\n");
  };
  auto pct = [](int part, int n) {
    char b[32];
    std::snprintf(b, sizeof b, "%.1f%%", 100.0 * part / std::max(n, 1));
    return std::string(b);
  };
  for (size_t i = 0; i < all.size(); ++i)
    std::printf("[%zu] %d programs in %s\n", i + 1, all[i].n, all[i].path.c_str());
  std::printf("\nsummary:\n  %-26s", "");
  for (size_t i = 0; i < all.size(); ++i)
    std::printf(" %14s", ("[" + std::to_string(i + 1) + "]").c_str());
  std::printf("\n");
  row("anchor share", [&](const DatasetStats& d) { return pct(d.with_anchor, d.n); });
  row("layout-op share", [&](const DatasetStats& d) { return pct(d.with_layout, d.n); });
  row("degenerate programs", [&](const DatasetStats& d) { return std::to_string(d.degenerate); });
  row("ops per program (median)",
      [&](const DatasetStats& d) { return std::to_string(median(d.lengths)); });
  row("output elements (median)",
      [&](const DatasetStats& d) { return std::to_string(median(d.outputs)); });
  row("outputs under 2048 elems", [&](const DatasetStats& d) {
    return pct(static_cast<int>(std::count_if(d.outputs.begin(), d.outputs.end(),
                                              [](int64_t e) { return e < 2048; })),
               d.n);
  });
  for (const DatasetStats& d : all)
    for (const std::string& e : d.degenerate_examples)
      std::printf("  degenerate in %s: %s\n", d.path.c_str(), e.c_str());

  std::printf("\ncoverage (programs containing each operator of the table):\n  %-26s", "operator");
  for (size_t i = 0; i < all.size(); ++i)
    std::printf(" %14s", ("[" + std::to_string(i + 1) + "]").c_str());
  std::printf("\n");
  std::vector<int> missing(all.size(), 0);
  for (const OpSchema& s : all_op_schemas()) {
    std::printf("  %-26s", s.name.c_str());
    for (size_t i = 0; i < all.size(); ++i) {
      auto it = all[i].programs_with.find(s.name);
      int p = it == all[i].programs_with.end() ? 0 : it->second;
      missing[i] += p == 0;
      std::printf(" %14d", p);
    }
    std::printf("\n");
  }
  for (size_t i = 0; i < all.size(); ++i)
    std::printf("  [%zu] %d of %zu operators appear\n", i + 1,
                static_cast<int>(all_op_schemas().size()) - missing[i], all_op_schemas().size());

  for (const DatasetStats& d : all) {
    std::printf("\ndifficulty histogram of %s:\n", d.path.c_str());
    int most = 1;
    for (auto& [k, c] : d.difficulty) most = std::max(most, c);
    for (auto& [k, c] : d.difficulty)
      std::printf("  %3d %7d %s\n", k, c, std::string(40 * c / most, '#').c_str());
    std::vector<std::pair<int, std::pair<std::string, std::string>>> top;
    for (auto& [p, c] : d.pairs) top.push_back({c, p});
    std::sort(top.rbegin(), top.rend());
    std::printf("most frequent operator pairs (programs containing both):\n");
    for (size_t i = 0; i < std::min<size_t>(10, top.size()); ++i) {
      std::printf("  %-22s %-22s %7d\n", top[i].second.first.c_str(), top[i].second.second.c_str(),
                  top[i].first);
    }
  }
  // The plots are drawn by matplotlib from these numbers.
  json stats = {{"datasets", json::array()}, {"ops", json::array()}};
  for (const DatasetStats& d : all) stats["datasets"].push_back(stats_json(d));
  for (const OpSchema& s : all_op_schemas()) stats["ops"].push_back(s.name);
  fs::create_directories(plots_dir);
  fs::path stats_path = fs::path(plots_dir) / "stats.json";
  write_output(stats_path.string(), stats.dump() + "\n");
  std::string cmd = "PYTHONPATH=" + shell_quote(python_path()) + " " +
                    shell_quote(python_executable()) + " -m drtriton.synth_plots " +
                    shell_quote(stats_path.string()) + " " + shell_quote(plots_dir);
  std::fflush(stdout);
  if (std::system(cmd.c_str()) != 0) throw CliError(plots_dir + ": plotting failed (see above)");
}

}  // namespace

void use_numeric_check(SynthOptions& o) {
  o.numeric_check = [jobs = o.jobs](const std::vector<ProgramRecord>& programs) {
    return numeric_check(programs, jobs);
  };
}

void print_numeric_redraws(const std::vector<ProgramRecord>& records) {
  int programs = 0, redraws = 0;
  for (const ProgramRecord& r : records) {
    programs += r.numeric_redraws > 0;
    redraws += r.numeric_redraws;
  }
  if (!quiet())
    std::fprintf(stderr,
                 "the numeric check drew %d of %zu programs again (%d redraws in all): their "
                 "output did not change with their inputs\n",
                 programs, records.size(), redraws);
}

void add_synth_commands(CLI::App& app) {
  auto a = std::make_shared<SynthArgs>();
  auto* synth =
      app.add_subcommand("synth", "Write a dataset of random, valid, checkable programs (CSP-DAG)");
  synth->add_option("--count", a->count, "Number of programs (with --suite: per difficulty)")
      ->check(CLI::NonNegativeNumber);
  synth->add_option("--dist", a->dist,
                    "Distribution: real (built around anchors like real blocks; the default) or "
                    "uniform (every valid structure equally likely)");
  synth->add_option("--dist-file", a->dist_file,
                    "The --dist real table to use (default: src/synth/real_dist.json)");
  synth->add_option("--difficulty", a->difficulty,
                    "Compute operators per program: K or A:B (uniform in A..B)");
  synth->add_option("--seed", a->seed, "Dataset seed; each program derives its own");
  synth->add_option("--out", a->out, "Output JSONL file");
  synth->add_option("--ops", a->ops,
                    "Vocabulary: comma-separated operators (default: all but the no-ops)");
  synth->add_option("--exclude", a->exclude, "Operators to leave out of the vocabulary");
  synth->add_option("--cover", a->cover, "Every operator of the vocabulary in at least M programs")
      ->check(CLI::NonNegativeNumber);
  synth->add_option("--size", a->size,
                    "Size preset: tiny (CPU, ms; the default), small, bench (GPU, ~1-20 ms; "
                    "the default of --suite)");
  synth->add_option("--max-flops", a->max_flops, "FLOP budget per program (overrides the preset)");
  synth->add_option("--max-bytes", a->max_bytes, "Byte budget per program (overrides the preset)");
  synth->add_option("--jobs", a->jobs,
                    "Threads (default: all cores); the output does not depend on it");
  synth->add_option("--emit-dir", a->emit_dir, "Also write each program as DIR/<id>.py");
  synth->add_option("--suite", a->suite,
                    "Write the fixed evaluation suites (difficulty 1, 2, 5, 20) to DIR");
  synth->add_flag("--numeric-check", a->numeric_check,
                  "Run every program on two input draws in PyTorch (CPU) and draw again those "
                  "whose output does not change");
  synth->add_flag("--count-structures", a->count_structures,
                  "Print the exact number of valid structures at each difficulty and exit");
  synth->callback([a] {
    try {
      run_synth(*a);
    } catch (const std::invalid_argument& e) {
      throw CliError(e.what());
    }
  });

  auto stats_in = std::make_shared<std::pair<std::vector<std::string>, std::string>>();
  auto* stats = app.add_subcommand(
      "synth-stats",
      "Anchor and layout-op shares, degenerate programs, program length, output size, coverage, "
      "difficulty and co-occurrence of one or more datasets, side by side, with plots");
  stats->add_option("data", stats_in->first, "JSONL files that drtriton synth wrote")->required();
  stats->add_option("--plots", stats_in->second,
                    "Folder for the PNG plots (default: DATA_plots, after the first file)");
  stats->callback([stats_in] {
    std::string dir = stats_in->second.empty()
                          ? fs::path(stats_in->first[0]).replace_extension("").string() + "_plots"
                          : stats_in->second;
    run_stats(stats_in->first, dir);
  });
}

}  // namespace drtriton::cli
