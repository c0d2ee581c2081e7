#include "synth/real_table.h"

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <stdexcept>

namespace drtriton {

using json = nlohmann::json;

namespace {

// Generic names an idiom may use for an op family whose variant the value's rank picks.
const std::map<std::string, std::vector<Op>>& generic_ops() {
  static const std::map<std::string, std::vector<Op>> g = {
      {"batch_norm", {Op::BatchNorm1d, Op::BatchNorm2d, Op::BatchNorm3d}},
      {"instance_norm", {Op::InstanceNorm2d, Op::InstanceNorm3d}},
      {"max_pool", {Op::MaxPool1d, Op::MaxPool2d, Op::MaxPool3d}},
      {"avg_pool", {Op::AvgPool1d, Op::AvgPool2d, Op::AvgPool3d}},
      {"adaptive_avg_pool", {Op::AdaptiveAvgPool2d, Op::AdaptiveAvgPool3d}},
  };
  return g;
}

// The block kinds of real_program.cpp, with the compute ops each adds and the ops it may use
// beside its activation (residual, mlp) or anchors (anchor).
struct BlockKind {
  int cost;
  std::vector<Op> ops;
};
const std::map<std::string, BlockKind>& block_kinds() {
  static const std::map<std::string, BlockKind> k = {
      {"anchor", {1, {}}},
      {"linear", {1, {Op::Linear}}},
      {"conv", {1, {Op::Conv1d, Op::Conv2d, Op::Conv3d}}},
      {"conv_transpose", {1, {Op::ConvTranspose1d, Op::ConvTranspose2d, Op::ConvTranspose3d}}},
      {"matmul", {1, {Op::Matmul}}},
      {"bmm", {1, {Op::Bmm}}},
      {"addmm", {1, {Op::Addmm}}},
      {"branches", {2, {Op::Conv1d, Op::Conv2d, Op::Conv3d, Op::Linear, Op::Cat}}},
      {"seq_conv", {1, {Op::Transpose, Op::Conv1d}}},
      {"residual",
       {7,
        {Op::Conv1d, Op::Conv2d, Op::Conv3d, Op::BatchNorm1d, Op::BatchNorm2d, Op::BatchNorm3d,
         Op::GroupNorm, Op::Add}}},
      {"mlp", {5, {Op::LayerNorm, Op::Linear, Op::Add}}},
      {"attention",
       {10,
        {Op::LayerNorm, Op::Linear, Op::Reshape, Op::Transpose, Op::Permute, Op::Matmul,
         Op::MulScalar, Op::Softmax, Op::Add}}},
      {"attention_1head", {7, {Op::Linear, Op::Transpose, Op::Bmm, Op::MulScalar, Op::Softmax}}},
      {"tail", {0, {}}},
  };
  return k;
}

// An error about the table: the file, then where in it.
[[noreturn]] void fail(const std::string& file, const std::string& where, const std::string& why) {
  throw std::invalid_argument(file + ": " + where + ": " + why);
}

double weight_of(const json& w, const std::string& file, const std::string& where) {
  if (!w.is_number() || w.get<double>() < 0)
    fail(file, where, "a weight must be a number >= 0, got " + w.dump());
  return w.get<double>();
}

// Ops an idiom may hold: elementwise, reductions, normalizations, pooling and the layout ops
// a model puts between blocks (flatten, reshape, squeeze, unsqueeze, permute). Anchors are
// blocks.
bool idiom_op(Op op) {
  Category c = op_schema(op).category;
  if (c == Category::Anchor) return false;
  if (c != Category::Layout) return true;
  return op == Op::Flatten || op == Op::Reshape || op == Op::Squeeze || op == Op::Unsqueeze ||
         op == Op::Permute;
}

RealToken parse_token(const std::string& text, const std::string& file, const std::string& where) {
  RealToken t;
  t.text = text;
  std::vector<std::string> parts;
  std::stringstream in(text);
  for (std::string p; std::getline(in, p, ':');) parts.push_back(p);
  if (parts.empty() || parts[0].empty()) fail(file, where, "empty op in '" + text + "'");
  auto generic = generic_ops().find(parts[0]);
  if (generic != generic_ops().end()) {
    t.ops = generic->second;
  } else if (const OpSchema* s = find_op(parts[0])) {
    if (!idiom_op(s->op))
      fail(file, where,
           "'" + parts[0] +
               "' cannot be part of an idiom (anchors are blocks; transpose and "
               "cat appear only inside block kinds)");
    t.ops = {s->op};
  } else {
    fail(file, where, "unknown operator '" + parts[0] + "' (drtriton ops lists them)");
  }
  const OpSchema& s = op_schema(t.ops[0]);
  bool binary = s.category == Category::Binary && t.ops[0] != Op::Where;
  bool has_dims =
      s.category == Category::Reduction || t.ops[0] == Op::Softmax || t.ops[0] == Op::LogSoftmax;
  bool adaptive = t.ops[0] == Op::AdaptiveAvgPool2d || t.ops[0] == Op::AdaptiveAvgPool3d;
  for (size_t i = 1; i < parts.size(); ++i) {
    const std::string& a = parts[i];
    if (binary && (a == "param" || a == "prev" || a == "skip" || a == "input") &&
        t.operand.empty()) {
      t.operand = a;
    } else if (has_dims && (a == "spatial" || a == "channel" || a == "last") && t.dims.empty()) {
      t.dims = a;
    } else if (has_dims && a == "keep" && s.category == Category::Reduction) {
      t.keep = true;
    } else if (adaptive && a == "global") {
      t.global = true;
    } else {
      fail(file, where,
           "'" + text + "': '" + a + "' is not an argument of " + parts[0] +
               " (binary ops: param, prev, skip, input; reductions and softmax: spatial, "
               "channel, last, keep; adaptive pools: global)");
    }
  }
  if (binary && t.operand.empty()) t.operand = "param";
  return t;
}

RealIdiom parse_idiom(const std::string& text, double weight, const std::string& file,
                      const std::string& where) {
  RealIdiom idiom;
  idiom.text = text;
  idiom.weight = weight;
  std::stringstream in(text);
  for (std::string tok; in >> tok;) {
    idiom.tokens.push_back(parse_token(tok, file, where));
    if (op_schema(idiom.tokens.back().ops[0]).category != Category::Layout) ++idiom.cost;
  }
  if (idiom.tokens.empty()) fail(file, where, "an idiom needs at least one op");
  if (idiom.tokens[0].operand == "prev")
    fail(file, where,
         "'" + text + "' starts with ':prev', which is its own input (a binary op over one value)");
  return idiom;
}

RealRange parse_range(const json& j, const std::string& file, const std::string& where) {
  if (!j.is_array() || j.size() != 2 || !j[0].is_number_integer() || !j[1].is_number_integer() ||
      j[0].get<int64_t>() < 1 || j[1].get<int64_t>() < j[0].get<int64_t>())
    fail(file, where, "expected [lo, hi] with 1 <= lo <= hi, got " + j.dump());
  return {j[0].get<int64_t>(), j[1].get<int64_t>()};
}

const json& field(const json& j, const char* name, const std::string& file,
                  const std::string& where) {
  if (!j.is_object() || !j.contains(name))
    fail(file, where, std::string("missing field '") + name + "'");
  return j.at(name);
}

}  // namespace

int real_block_cost(const std::string& kind) {
  return block_kinds().at(kind).cost;
}

const RealSizes& RealTable::sizes_for(const std::string& preset) const {
  auto it = sizes.find(preset);
  if (it == sizes.end())
    throw std::invalid_argument(source + ": sizes: no entry for the size preset '" + preset + "'");
  return it->second;
}

std::string default_real_table_path() {
  // An installed binary (the Python package's drtriton/_bin/) has the table beside it; a
  // build reads the one of its source tree, so an edit there needs no rebuild.
  std::error_code ec;
  std::filesystem::path beside =
      std::filesystem::read_symlink("/proc/self/exe", ec).parent_path() / "real_dist.json";
  if (!ec && std::filesystem::exists(beside)) return beside.string();
  return (std::filesystem::path(DRTRITON_SOURCE_DIR) / "src" / "synth" / "real_dist.json").string();
}

RealTable load_real_table(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw std::invalid_argument(path + ": cannot read the --dist real table");
  json j;
  try {
    j = json::parse(in);
  } catch (const json::parse_error& e) {
    // nlohmann's message says "at line L, column C".
    throw std::invalid_argument(path + ": not valid JSON: " + e.what());
  }
  const std::string& f = path;
  RealTable t;
  t.source = path;
  if (!j.is_object()) fail(f, "top level", "expected an object");
  for (const auto& [key, value] : j.items()) {
    static const std::set<std::string> known = {"about", "templates",  "anchors", "families",
                                                "tail",  "final_only", "sizes"};
    if (!known.count(key))
      fail(f, key,
           "unknown field (expected one of about, templates, anchors, families, tail, final_only, "
           "sizes)");
  }

  for (const auto& [name, w] : field(j, "anchors", f, "top level").items()) {
    const OpSchema* s = find_op(name);
    if (!s || s->category != Category::Anchor) fail(f, "anchors." + name, "not an anchor operator");
    t.anchors.push_back({s->op, weight_of(w, f, "anchors." + name)});
  }

  const json& families = field(j, "families", f, "top level");
  if (!families.is_object()) fail(f, "families", "expected an object of families");
  for (const auto& [name, idioms] : families.items()) {
    RealFamily fam;
    fam.name = name;
    if (!idioms.is_object() || idioms.empty())
      fail(f, "families." + name, "expected an object {\"idiom\": weight, ...}");
    for (const auto& [text, w] : idioms.items()) {
      std::string where = "families." + name + ".\"" + text + "\"";
      fam.idioms.push_back(parse_idiom(text, weight_of(w, f, where), f, where));
    }
    t.families[name] = std::move(fam);
  }
  if (j.contains("final_only")) {
    for (const json& name : j["final_only"]) {
      if (!name.is_string() || !t.families.count(name.get<std::string>()))
        fail(f, "final_only", "not a family: " + name.dump());
      t.families[name.get<std::string>()].final_only = true;
    }
  }

  const json& tail = field(j, "tail", f, "top level");
  if (!tail.is_object() || !tail.contains("start"))
    fail(f, "tail", "expected an object with a \"start\" row");
  for (const auto& [from, row] : tail.items()) {
    if (from != "start" && !t.families.count(from))
      fail(f, "tail." + from, "not a family (rows are \"start\" and family names)");
    if (!row.is_object()) fail(f, "tail." + from, "expected {\"family\": weight, ...}");
    for (const auto& [to, w] : row.items()) {
      if (!t.families.count(to)) fail(f, "tail." + from + "." + to, "not a family");
      t.tail[from].push_back({to, weight_of(w, f, "tail." + from + "." + to)});
    }
  }
  for (const auto& [name, fam] : t.families) {
    bool drawn_by_tail = false;
    for (const auto& [from, row] : t.tail)
      for (const auto& [to, w] : row) drawn_by_tail |= to == name && w > 0;
    if (drawn_by_tail && !t.tail.count(name) && !fam.final_only)
      fail(f, "tail", "family '" + name + "' has no row: what may follow it?");
  }

  std::set<Op> tail_ops;
  for (const auto& [name, fam] : t.families)
    for (const RealIdiom& idiom : fam.idioms)
      for (const RealToken& tok : idiom.tokens) tail_ops.insert(tok.ops.begin(), tok.ops.end());
  const json& templates = field(j, "templates", f, "top level");
  if (!templates.is_array() || templates.empty())
    fail(f, "templates", "expected a non-empty list of templates");
  for (size_t i = 0; i < templates.size(); ++i) {
    const json& tj = templates[i];
    std::string where = "templates[" + std::to_string(i) + "]";
    RealTemplate tp;
    tp.name = tj.value("name", where);
    where += " (\"" + tp.name + "\")";
    tp.weight = weight_of(field(tj, "weight", f, where), f, where + ".weight");
    if (tj.contains("difficulty")) {
      RealRange r = parse_range(tj["difficulty"], f, where + ".difficulty");
      tp.difficulty_lo = static_cast<int>(r.lo);
      tp.difficulty_hi = static_cast<int>(r.hi);
    }
    const json& blocks = field(tj, "blocks", f, where);
    if (!blocks.is_array() || blocks.empty())
      fail(f, where + ".blocks", "expected a list of blocks");
    for (const json& b : blocks) {
      if (!b.is_string()) fail(f, where + ".blocks", "a block is a string, got " + b.dump());
      std::string text = b.get<std::string>();
      RealBlock block;
      if (block_kinds().count(text)) {
        block.kind = text;
        const std::vector<Op>& ops = block_kinds().at(text).ops;
        tp.ops.insert(ops.begin(), ops.end());
        if (text == "anchor")
          for (const auto& [op, w] : t.anchors) tp.ops.insert(op);
        if (text == "tail") tp.ops.insert(tail_ops.begin(), tail_ops.end());
        if ((text == "residual" || text == "mlp") && t.families.count("activation"))
          for (const RealIdiom& idiom : t.families["activation"].idioms)
            if (idiom.tokens.size() == 1) tp.ops.insert(idiom.tokens[0].ops[0]);
      } else if (text[0] == '@') {
        block.kind = "family";
        block.family = text.substr(1);
        if (!t.families.count(block.family))
          fail(f, where + ".blocks", "'" + text + "': no family '" + block.family + "'");
        for (const RealIdiom& idiom : t.families[block.family].idioms)
          for (const RealToken& tok : idiom.tokens) tp.ops.insert(tok.ops.begin(), tok.ops.end());
      } else {
        block.kind = "idiom";
        block.idiom = parse_idiom(text, 1, f, where + ".blocks");
        for (const RealToken& tok : block.idiom.tokens)
          tp.ops.insert(tok.ops.begin(), tok.ops.end());
      }
      tp.blocks.push_back(std::move(block));
    }
    t.templates.push_back(std::move(tp));
  }

  const json& sizes = field(j, "sizes", f, "top level");
  if (!sizes.is_object()) fail(f, "sizes", "expected {\"tiny\": {...}, ...}");
  for (const auto& [preset, sj] : sizes.items()) {
    std::string where = "sizes." + preset;
    RealSizes z;
    std::pair<const char*, RealRange*> ranges[] = {
        {"batch", &z.batch},       {"channels", &z.channels}, {"spatial", &z.spatial},
        {"features", &z.features}, {"tokens", &z.tokens},     {"head_dim", &z.head_dim}};
    for (auto& [name, range] : ranges)
      *range = parse_range(field(sj, name, f, where), f, where + "." + name);
    const json& m = field(sj, "min_output", f, where);
    if (!m.is_number_integer() || m.get<int64_t>() < 1)
      fail(f, where + ".min_output", "expected a positive integer, got " + m.dump());
    z.min_output = m.get<int64_t>();
    t.sizes[preset] = z;
  }
  return t;
}

}  // namespace drtriton
