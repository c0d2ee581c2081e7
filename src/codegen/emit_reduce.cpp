// Statistics kernels (sums, extrema, means and variances, online softmax, arg extrema) in row
// tiles or split columns, and what runs on them: reductions, normalizations' statistics,
// global pools, nll_loss.
#include <algorithm>
#include <map>
#include <memory>
#include <numeric>
#include <optional>
#include <set>

#include "codegen/lowering.h"

namespace drtriton::codegen {

namespace {

// The accumulator a statistic keeps in each lane of the column loop. Statistics of one kind
// share it (a softmax's and a logsumexp's online softmax, a mean's and a sum's sum).
std::string accumulator_kind(const std::string& what) {
  if (what == "sum" || what == "mean") return "sum";
  if (what == "norm" || what == "rms") return "sumsq";
  if (what == "max_sumexp" || what == "logsumexp") return "softmax";
  if (what == "var" || what == "std" || what == "mean_rstd" || what == "batch_norm")
    return "welford";
  if (what == "isum" || what == "max" || what == "min" || what == "prod" || what == "argmax" ||
      what == "argmin" || what == "sum64" || what == "sumsq64")
    return what;
  throw IrError("codegen: no statistics recipe " + what);
}

// Kinds that share a column loop with others: floating accumulators combined by sums,
// extrema, the online softmax's rescaling or Chan's formula. An integer sum (int64), a
// product and the arg extrema keep a kernel each.
bool shares_loop(const std::string& kind) {
  return kind == "sum" || kind == "sumsq" || kind == "max" || kind == "min" || kind == "softmax" ||
         kind == "welford" || kind == "sum64" || kind == "sumsq64";
}

// One accumulator of a statistics kernel: `init` before the column loop, `update` for each
// tile `x` of the input (under mask m), `lanes` after it (the partial statistics over the
// columns [lo, hi)); when a long row is split into chunks, a second kernel loads every
// chunk's partials (`identity` where a chunk is past the row's end) and `combine`s them.
struct Accumulator {
  std::function<void()> init;
  std::function<void(const std::string& x)> update;
  std::function<std::vector<std::string>()> lanes;
  // The partial statistics of a tile `x` that holds whole rows, straight from it (as `lanes`
  // would give them); where unset, init, one update and lanes.
  std::function<std::vector<std::string>(const std::string& x)> whole;
  std::vector<std::string> identity;
  std::function<std::vector<std::string>(Kernel& c, const std::vector<std::string>& loaded)>
      combine;
};

// An accumulator's partial statistics of a tile that holds whole rows: its own `whole`, else
// init, one update and lanes. `tile` emits the tile's load (after init, as the loop does).
template <typename Tile>
std::vector<std::string> whole_rows_of(Accumulator& a, Tile tile) {
  if (a.whole) return a.whole(tile());
  a.init();
  a.update(tile());
  return a.lanes();
}

std::string lane_reduce(Kernel& k, const std::string& how, const std::string& x) {
  return k.assign("tl." + how + "(" + x + ", axis=1)[:, None]");
}

// The accumulator of `kind` in kernel k, its tensors' names ending in `tag` (acc, or mx and
// se, or Welford's; tags tell apart several of a kind).
Accumulator accumulator(Kernel& k, const std::string& kind, const std::string& tag,
                        bool exact_mean) {
  Accumulator a;
  if (kind == "softmax") {
    // An online softmax over each row: its maximum so far and its sum of exponentials
    // relative to it, rescaled when a tile raises the maximum; chunks combine the same way.
    // One exponential an element: kept per lane, the rescaling took a second one per element
    // (a logsumexp over rows of 1,024 ran at 0.58x of torch.compile's on an H200).
    std::string mx = "mx" + tag, se = "se" + tag;
    a.init = [&k, mx, se] {
      k.line(mx + " = tl.full([BLOCK_M, 1], float('-inf'), tl.float32)");
      k.line(se + " = tl.zeros([BLOCK_M, 1], tl.float32)");
    };
    a.update = [&k, mx, se](const std::string& value) {
      std::string x = k.assign("tl.where(m, " + value + ", float('-inf'))");
      std::string top = k.assign("tl.maximum(" + mx + ", " + lane_reduce(k, "max", x) + ")");
      // A row that has seen only -inf keeps a sum of 0 (exp(-inf - -inf) would be NaN).
      std::string shift = k.assign("tl.where(" + top + " == float('-inf'), 0.0, " + top + ")");
      k.line(se + " = " + se + " * tl.exp(" + mx + " - " + shift + ") + " +
             lane_reduce(k, "sum", "tl.exp(" + x + " - " + shift + ")"));
      k.line(mx + " = " + top);
    };
    a.lanes = [&k, mx, se] {
      return std::vector<std::string>{
          k.assign("tl.where(" + mx + " == float('-inf'), 0.0, " + mx + ")"), se};
    };
    // A whole row in registers: its maximum, then its sum of exponentials (no rescaling).
    a.whole = [&k](const std::string& value) {
      std::string top = lane_reduce(k, "max", "tl.where(m, " + value + ", float('-inf'))");
      std::string shift = k.assign("tl.where(" + top + " == float('-inf'), 0.0, " + top + ")");
      return std::vector<std::string>{
          shift, lane_reduce(k, "sum", "tl.where(m, tl.exp(" + value + " - " + shift + "), 0.0)")};
    };
    a.identity = {"float('-inf')", "0.0"};
    a.combine = [](Kernel& c, const std::vector<std::string>& p) {
      std::string mx = lane_reduce(c, "max", p[0]);
      std::string safe = c.assign("tl.where(" + mx + " == float('-inf'), 0.0, " + mx + ")");
      return std::vector<std::string>{
          safe, lane_reduce(c, "sum", p[1] + " * tl.exp(" + p[0] + " - " + safe + ")")};
    };
  } else if (kind == "welford") {
    // Counts, means and sums of squared deviations: Welford's update in each lane, Chan's
    // formula across lanes and chunks. Each lane works on its values less its first one (the
    // shift): rows of values close together (std far below the mean) keep their digits. A
    // mean that is a result itself (`exact_mean`: a mean, a batch norm's running mean) comes
    // from a compensated (Kahan) sum of the raw values: rebuilt from the shifts it carries
    // each update's rounding, far above its own where the mean is small beside the spread
    // (a batch norm's running mean was rejected on an H200); a plain running sum of values
    // close together loses more. A mean that only centres (a layer norm's) needs neither.
    auto count = std::make_shared<std::string>();
    std::string cnt = "cnt" + tag, mean = "mean" + tag, m2 = "m2" + tag, shift = "shift" + tag,
                sum = "sum" + tag, lost = "lost" + tag;
    a.init = [&k, count, cnt, mean, m2, shift, sum, lost, exact_mean] {
      *count = k.assign("(hi - lo) * 1.0");  // a float, also when Triton made COLS a constant
      std::vector<std::string> accs = {cnt, mean, m2, shift};
      if (exact_mean) accs.insert(accs.end(), {sum, lost});
      for (const std::string& acc : accs)
        k.line(acc + " = tl.zeros([BLOCK_M, BLOCK_R], tl.float32)");
    };
    a.update = [&k, cnt, mean, m2, shift, sum, lost, exact_mean](const std::string& x) {
      k.line(shift + " = tl.where(m & (" + cnt + " == 0), " + x + ", " + shift + ")");
      k.line(cnt + " = " + cnt + " + m.to(tl.float32)");
      if (exact_mean) {
        std::string term = k.assign("tl.where(m, " + x + ", 0.0) - " + lost);
        std::string next = k.assign(sum + " + " + term);
        k.line(lost + " = (" + next + " - " + sum + ") - " + term);
        k.line(sum + " = " + next);
      }
      std::string y = k.assign(x + " - " + shift);
      std::string delta = k.assign("tl.where(m, " + y + " - " + mean + ", 0.0)");
      // A lane inside the row at this tile was inside it at every tile before (its column
      // only grows), so its count is the tile's number: one reciprocal a tile, not a division
      // an element (masked lanes add a zero delta). The update runs in a column loop over
      // c0 from lo in steps of BLOCK_R (stats_kernel, lower_in_one_pass).
      std::string inverse = k.assign("1.0 / ((c0 - lo) // BLOCK_R + 1)");
      k.line(mean + " = " + mean + " + " + delta + " * " + inverse);
      k.line(m2 + " = " + m2 + " + " + delta + " * tl.where(m, " + y + " - " + mean + ", 0.0)");
    };
    a.lanes = [&k, count, cnt, mean, m2, shift, sum, lost, exact_mean] {
      // The lanes' means relative to one reference near them all, the shifts' average.
      std::string ref =
          k.assign("tl.sum(" + cnt + " * " + shift + ", axis=1)[:, None] / " + *count);
      std::string lane_mean = k.assign(shift + " - " + ref + " + " + mean);
      std::string all =
          k.assign("tl.sum(" + cnt + " * " + lane_mean + ", axis=1)[:, None] / " + *count);
      std::string d = k.assign(lane_mean + " - " + all);
      std::string shifted = k.assign(ref + " + " + all);
      // count, mean, m2, and the mean from the shifts: chunks' deviations from each other
      // are taken between those (one rounding of the mean's size each, not one per lane).
      return std::vector<std::string>{
          *count,
          exact_mean ? k.assign(lane_reduce(k, "sum", sum + " - " + lost) + " / " + *count)
                     : shifted,
          lane_reduce(k, "sum", m2 + " + " + cnt + " * " + d + " * " + d), shifted};
    };
    // A whole row in registers: its mean, then the squared deviations from it (two passes
    // over registers, more exact than Welford's update).
    a.whole = [&k](const std::string& x) {
      std::string count = k.assign("(hi - lo) * 1.0");
      std::string mean_of =
          k.assign(lane_reduce(k, "sum", "tl.where(m, " + x + ", 0.0)") + " / " + count);
      std::string d = k.assign("tl.where(m, " + x + " - " + mean_of + ", 0.0)");
      return std::vector<std::string>{count, mean_of, lane_reduce(k, "sum", d + " * " + d),
                                      mean_of};
    };
    a.identity = {"0.0", "0.0", "0.0", "0.0"};
    a.combine = [exact_mean](Kernel& c, const std::vector<std::string>& p) {
      std::string total = lane_reduce(c, "sum", p[0]);
      auto average = [&](const std::string& of) {
        return c.assign(lane_reduce(c, "sum", p[0] + " * " + of) + " / " + total);
      };
      std::string shifted = average(p[3]);
      std::string d = c.assign(p[3] + " - " + shifted);
      return std::vector<std::string>{
          total, exact_mean ? average(p[1]) : shifted,
          lane_reduce(c, "sum", p[2] + " + " + p[0] + " * " + d + " * " + d), shifted};
    };
  } else if (kind == "argmax" || kind == "argmin") {
    // Column indices in int32 while the loop runs (half the registers and instructions of
    // int64; a row of 2^31 floats would be 8 GB), int64 in the result, as torch's.
    bool is_max = kind == "argmax";
    std::string init = is_max ? "float('-inf')" : "float('inf')";
    a.init = [&k, init] {
      k.line("best = tl.full([BLOCK_M, BLOCK_R], " + init + ", tl.float32)");
      k.line("where = tl.zeros([BLOCK_M, BLOCK_R], tl.int32)");
    };
    a.update = [&k, is_max](const std::string& x) {
      // Strictly better only: along a lane the first of equal values stays.
      std::string better = k.assign("m & (" + x + (is_max ? " > " : " < ") + "best)");
      k.line("best = tl.where(" + better + ", " + x + ", best)");
      k.line("where = tl.where(" + better + ", cols.to(tl.int32), where)");
    };
    a.lanes = [&k, is_max] {
      std::string top = lane_reduce(k, is_max ? "max" : "min", "best");
      return std::vector<std::string>{k.assign("tl.min(tl.where(best == " + top +
                                               ", where, 2147483647), axis=1)[:, None]"
                                               ".to(tl.int64)")};
    };
  } else {
    // One tensor: sum, sumsq and isum add terms up, max and min keep the extremum, prod
    // multiplies (tl has no product reduction: tl.reduce with a combine function, _mul).
    // sum64 and sumsq64 add in float64 (a mean of a group norm's channels).
    bool extremum = kind == "max" || kind == "min";
    bool wide = kind == "sum64" || kind == "sumsq64";
    std::string init = kind == "max"    ? "float('-inf')"
                       : kind == "min"  ? "float('inf')"
                       : kind == "isum" ? "0"  // an integer or bool sum is exact, in int64
                       : kind == "prod" ? "1.0"
                                        : "0.0";
    std::string acc = "acc" + tag;
    auto term_of = [kind, wide](const std::string& x) {
      std::string t = wide ? "(" + x + ").to(tl.float64)" : x;
      return kind == "sumsq" || kind == "sumsq64" ? t + " * " + t
             : kind == "isum"                     ? x + ".to(tl.int64)"
                                                  : t;
    };
    a.init = [&k, acc, init, kind, wide] {
      k.line(acc + " = tl.full([BLOCK_M, BLOCK_R], " + init + ", " +
             (kind == "isum" ? "tl.int64"
              : wide         ? "tl.float64"
                             : "tl.float32") +
             ")");
    };
    a.update = [&k, acc, init, kind, extremum, term_of](const std::string& x) {
      std::string t = k.assign("tl.where(m, " + term_of(x) + ", " + init + ")");
      k.line(acc + " = " +
             (extremum ? "tl." + std::string(kind == "max" ? "maximum" : "minimum") + "(" + acc +
                             ", " + t + ")"
              : kind == "prod" ? acc + " * " + t
                               : acc + " + " + t));
    };
    std::string how = extremum ? kind : "sum";
    a.lanes = [&k, acc, how, kind] {
      return std::vector<std::string>{kind == "prod"
                                          ? k.assign("tl.reduce(" + acc + ", 1, _mul)[:, None]")
                                          : lane_reduce(k, how, acc)};
    };
    if (kind != "prod") {  // a whole row in registers: one reduction of the tile
      a.whole = [&k, init, how, term_of](const std::string& x) {
        return std::vector<std::string>{
            lane_reduce(k, how, "tl.where(m, " + term_of(x) + ", " + init + ")")};
      };
    }
    a.identity = {init};
    a.combine = [how](Kernel& c, const std::vector<std::string>& p) {
      return std::vector<std::string>{lane_reduce(c, how, p[0])};
    };
  }
  return a;
}

// The accumulators a statistics kernel keeps for `stats` (of `in`, or each of its own input):
// one of each kind for each input, and the one each statistic reads (a mean reads Welford's,
// when a variance of its input keeps one).
struct AccumulatorPlan {
  std::vector<std::pair<std::string, ValueId>> kinds;  // (kind, input)
  std::vector<size_t> reads;
  std::set<size_t> exact_means;  // the Welford accumulators whose mean is a result itself
};

AccumulatorPlan plan_accumulators(const std::vector<Statistic>& stats, ValueId in) {
  auto input_of = [in](const Statistic& s) { return s.input < 0 ? in : s.input; };
  auto welford_of = [&](ValueId x) {
    return std::any_of(stats.begin(), stats.end(), [&](const Statistic& s) {
      return input_of(s) == x && accumulator_kind(s.what) == "welford";
    });
  };
  AccumulatorPlan plan;
  for (const Statistic& s : stats) {
    ValueId x = input_of(s);
    std::string kind = s.what == "mean" && welford_of(x) ? "welford" : accumulator_kind(s.what);
    if (stats.size() > 1 && !shares_loop(kind))
      throw IrError("codegen: " + s.what + " shares no kernel");
    auto key = std::make_pair(kind, x);
    size_t at = std::find(plan.kinds.begin(), plan.kinds.end(), key) - plan.kinds.begin();
    if (at == plan.kinds.size()) plan.kinds.push_back(key);
    plan.reads.push_back(at);
    if (kind == "welford" && (s.what == "mean" || s.what == "batch_norm"))
      plan.exact_means.insert(at);
  }
  return plan;
}

// The accumulators of `kinds` in kernel k. Those of one tensor are acc, or acc0, acc1, ...
// when there are several; the second of a kind of several tensors (an online softmax,
// Welford's) takes the tag 1.
std::vector<Accumulator> make_accumulators(Kernel& k, const AccumulatorPlan& plan) {
  const auto& kinds = plan.kinds;
  auto one_tensor = [](const std::string& kind) { return kind != "softmax" && kind != "welford"; };
  size_t tensors = std::count_if(kinds.begin(), kinds.end(),
                                 [&](const auto& kind) { return one_tensor(kind.first); });
  std::vector<Accumulator> accs;
  std::map<std::string, int> of_kind;
  for (size_t i = 0, t = 0; i < kinds.size(); ++i) {
    const std::string& kind = kinds[i].first;
    int before = of_kind[kind]++;
    std::string tag = one_tensor(kind) ? (tensors == 1 ? "" : std::to_string(t++))
                      : before         ? std::to_string(before)
                                       : "";
    accs.push_back(accumulator(k, kind, tag, plan.exact_means.count(i) > 0));
  }
  return accs;
}

// The results of statistic `what` (of `node`) from its accumulator's (combined) partials
// `p` (Accumulator::lanes), in kernel kk.
std::vector<std::string> finish_statistic(Kernel& kk, const std::string& what, const Node& node,
                                          const std::vector<std::string>& p) {
  std::string eps =
      node.schema().find_attr("eps") ? float_literal(attr_float(node.attrs, "eps")) : "0.0";
  if (what == "mean") return {p.size() == 4 ? p[1] : kk.assign(p[0] + " / COLS")};
  if (what == "norm") return {kk.assign("tl.sqrt_rn(" + p[0] + ")")};
  if (what == "rms") return {kk.assign("1.0 / tl.sqrt_rn(" + p[0] + " / COLS + " + eps + ")")};
  if (what == "logsumexp") {  // +inf where the maximum is (its sum is NaN there), as torch's
    return {kk.assign("tl.where(" + p[0] + " == float('inf'), " + p[0] + ", " + p[0] +
                      " + tl.log(" + p[1] + "))")};
  }
  if (what == "mean_rstd") {
    return {p[1], kk.assign("1.0 / tl.sqrt_rn(" + p[2] + " / COLS + " + eps + ")")};
  }
  if (what == "batch_norm") {  // also the unbiased variance, which the running_var takes
    return {p[1], kk.assign("1.0 / tl.sqrt_rn(" + p[2] + " / COLS + " + eps + ")"),
            kk.assign(p[2] + " / (COLS - 1)")};
  }
  if (what == "var" || what == "std") {
    std::string count = offset_by("COLS", -attr_int(node.attrs, "correction"));
    std::string var = kk.assign(p[2] + " / tl.maximum(" + count + ", 0)");
    return {what == "std" ? kk.assign("tl.sqrt_rn(" + var + ")") : var};
  }
  return p;
}

}  // namespace

// The dim of `v` along which the memory its expression reads is contiguous: the last, the
// channels of a channels-last value, or wherever a transpose or permute moved that dim of
// the tensor under it (an elementwise node: of its first input of the same shape).
int Lowering::memory_innermost(ValueId v) {
  const Value& val = g_.value(v);
  const int rank = val.type.rank();
  if (rank == 0) return 0;
  if (wants_channels_last(v)) return 1;
  if (is_buffer(v) || val.kind != ValueKind::Node) return rank - 1;
  const Node& n = g_.nodes()[val.node];
  auto axis = [&](int64_t d) { return static_cast<int>(d < 0 ? d + rank : d); };
  switch (n.op) {
    case Op::Transpose: {
      int inner = memory_innermost(n.inputs[0]);
      int d0 = axis(attr_int(n.attrs, "dim0")), d1 = axis(attr_int(n.attrs, "dim1"));
      return inner == d0 ? d1 : inner == d1 ? d0 : inner;
    }
    case Op::Permute: {
      std::vector<int64_t> dims = attr_ints(n.attrs, "dims");
      int inner = memory_innermost(n.inputs[0]);
      for (int d = 0; d < rank; ++d)
        if (axis(dims[d]) == inner) return d;
      return rank - 1;
    }
    case Op::Clone:
    case Op::Contiguous:
    case Op::Identity:
    case Op::Cast: return memory_innermost(n.inputs[0]);
    default: break;
  }
  Category category = n.schema().category;
  if (category != Category::Unary && category != Category::Binary) return rank - 1;
  for (ValueId in : n.inputs)
    if (g_.value(in).type.shape == val.type.shape) return memory_innermost(in);
  return rank - 1;
}

ReducePlan Lowering::plan_dims(ValueId in, const std::vector<int>& reduced) {
  std::vector<std::string> shape = shape_of(in);
  ReducePlan p;
  std::vector<int> kept_dims, red_dims;
  for (int d = 0; d < static_cast<int>(shape.size()); ++d) {
    bool r = std::find(reduced.begin(), reduced.end(), d) != reduced.end();
    (r ? red_dims : kept_dims).push_back(d);
    (r ? p.reduced : p.kept).push_back(shape[d]);
    (r ? p.traced_cols : p.traced_rows) *= g_.value(in).type.shape[d];
  }
  if (wants_channels_last(in)) {
    // Columns in memory order: the channels, when reduced, vary fastest.
    auto c = std::find(red_dims.begin(), red_dims.end(), 1);
    if (c != red_dims.end()) {
      std::rotate(c, c + 1, red_dims.end());
      p.reduced.clear();
      for (int d : red_dims) p.reduced.push_back(shape[d]);
    }
  }
  int rank = static_cast<int>(shape.size());
  // Rows lie next to each other in memory when the input's innermost dim (the channels, in
  // channels-last) is the last kept one, as in a sum over the middle dim of [B, N, M]: the
  // tiles then take many rows and few columns, so that loads run along the rows.
  int innermost = memory_innermost(in);
  p.rows_contiguous = !red_dims.empty() && !kept_dims.empty() && kept_dims.back() == innermost;
  p.to_input = [=](const std::vector<std::string>& ki, const std::vector<std::string>& ri) {
    std::vector<std::string> idx(rank);
    for (size_t i = 0; i < kept_dims.size(); ++i) idx[kept_dims[i]] = ki[i];
    for (size_t i = 0; i < red_dims.size(); ++i) idx[red_dims[i]] = ri[i];
    return idx;
  };
  p.row_of = [=](const std::vector<std::string>& full) {
    std::vector<std::string> ki;
    for (int d : kept_dims) ki.push_back(full[d]);
    return ki;
  };
  return p;
}

// A statistics kernel computing `stats` (of one input and plan) in one column loop, which
// reads the input once; returns each statistic's buffers, one element per row of the plan.
std::vector<std::vector<std::string>> Lowering::stats_kernel(const std::vector<Statistic>& stats,
                                                             ValueId in, const ReducePlan& plan,
                                                             const Element& element, DType result) {
  AccumulatorPlan acc_plan = plan_accumulators(stats, in);
  const auto& kinds = acc_plan.kinds;
  const auto& reads = acc_plan.reads;
  // A product and the arg extrema have no combining step: whole rows in one kernel.
  bool splittable = std::none_of(kinds.begin(), kinds.end(), [](const auto& kind) {
    return kind.first == "prod" || kind.first == "argmax" || kind.first == "argmin";
  });
  bool split = splittable && split_rows(plan.traced_rows, plan.traced_cols, plan.rows_contiguous);

  const Node& n = *stats[0].node;
  std::string base = "k" + std::to_string(kernels_.size()) + "_" + n.schema().name;
  Kernel k(base + (split ? "_partial" : "_stats"));
  std::string pid = program_id();
  k.line("rows = " + pid + " * BLOCK_M + tl.arange(0, BLOCK_M)[:, None]");
  k.line("row_mask = rows < ROWS");
  if (split) {
    k.line("lo = tl.program_id(1) * CHUNK");
    k.line("hi = tl.minimum(lo + CHUNK, COLS)");
  } else {
    k.line("lo = 0");
    k.line("hi = COLS");
  }
  std::vector<std::string> kidx = decompose(k, "rows", plan.kept);

  std::vector<Accumulator> accs = make_accumulators(k, acc_plan);
  if (std::any_of(kinds.begin(), kinds.end(),
                  [](const auto& kind) { return kind.first == "prod"; }))
    helpers_.insert("_mul");

  // Rows over trailing dims that fit in registers (row_fits) are loaded whole, one tile of
  // rows a program (_row_tile), and each statistic taken straight from the tile; others are
  // read in a loop over the columns, one BLOCK_R tile at a time. Either way each input is
  // read once for every accumulator.
  const bool whole_rows =
      !split && !plan.rows_contiguous && row_fits(plan.traced_cols, options_.knobs);
  auto value_at = [&](size_t i, const Index& at) {
    ValueId x = kinds[i].second;
    return element && x == in ? element(k, at) : emit(k, x, at);
  };
  std::vector<std::vector<std::string>> part;  // each accumulator's
  if (whole_rows) {
    k.line("cols = tl.arange(0, BLOCK_R)[None, :]");
    k.line("m = row_mask & (cols < hi)");
    Index idx{plan.to_input(kidx, decompose(k, "cols", plan.reduced)), "m", "", {}};
    for (size_t i = 0; i < accs.size(); ++i)
      part.push_back(whole_rows_of(accs[i], [&] { return value_at(i, idx); }));
  } else {
    for (Accumulator& a : accs) a.init();
    k.line("for c0 in range(lo, hi, BLOCK_R):");
    k.push();
    k.line("cols = c0 + tl.arange(0, BLOCK_R)[None, :]");
    k.line("m = row_mask & (cols < hi)");
    Index idx{plan.to_input(kidx, decompose(k, "cols", plan.reduced)), "m", "", {}};
    for (size_t i = 0; i < accs.size(); ++i) accs[i].update(value_at(i, idx));
    k.pop();
    for (Accumulator& a : accs) part.push_back(a.lanes());
  }

  std::string rows_py = product(plan.kept), cols_py = product(plan.reduced);
  std::vector<std::string> row_shape =
      plan.kept.empty() ? std::vector<std::string>{} : std::vector<std::string>{rows_py};
  const std::string& kind0 = kinds[0].first;
  DType dtype = kind0 == "argmax" || kind0 == "argmin" || kind0 == "isum" ? DType::I64 : result;
  // Every statistic's results, finished from the partials p and stored by kernel kk.
  auto store_results = [&](Kernel& kk, const std::vector<std::vector<std::string>>& p) {
    std::vector<std::vector<std::string>> results;
    for (size_t i = 0; i < stats.size(); ++i)
      results.push_back(finish_statistic(kk, stats[i].what, *stats[i].node, p[reads[i]]));
    std::vector<std::vector<std::string>> vars;
    for (const std::vector<std::string>& rs : results) {
      vars.emplace_back();
      for (const std::string& r : rs) {
        std::string var = alloc(row_shape, dtype);
        kk.line("tl.store(" + kk.pointer(var) + " + rows, " + rounded(dtype, r) +
                ", mask=row_mask)");
        vars.back().push_back(var);
      }
    }
    return vars;
  };
  // Tiles of about knobs.tile_elements (4096): whole rows when they fit, several rows when short.
  // Welford's accumulators (count, mean, m2, shift, and a compensated sum for an exact mean, in
  // each lane) take a quarter of that: on an H100 a variance over rows of 1024 ran 1.20 ms in
  // 4096-element tiles (three accumulators), 0.81 in 1024 (bench/knob_sweep.py,
  // docs/results/corpus_gpu_h100_compile.md). Float64 sums take half (two registers a lane).
  auto any_kind = [&](auto pick) { return std::any_of(kinds.begin(), kinds.end(), pick); };
  bool welford = any_kind([](const auto& kind) { return kind.first == "welford"; });
  bool wide = any_kind([](const auto& kind) { return kind.first.ends_with("64"); });
  forward_.push_back(whole_rows ? row_tile_line(rows_py, cols_py)
                                : tile_line(plan.rows_contiguous, rows_py, cols_py,
                                            plan.rows_contiguous ? 0
                                            : welford            ? options_.knobs.tile_elements / 4
                                            : wide               ? options_.knobs.tile_elements / 2
                                                                 : 0));
  if (!split) {
    std::vector<std::vector<std::string>> vars = store_results(k, part);
    finish_kernel(
        k, {"ROWS", "COLS"}, {"BLOCK_M", "BLOCK_R"}, "(triton.cdiv(" + rows_py + ", BLOCK_M),)",
        {rows_py, cols_py}, {"BLOCK_M", "BLOCK_R"},
        whole_rows ? row_tile_launch_options(options_.knobs) : std::vector<std::string>{});
    return vars;
  }
  // Split: chunk statistics into [ROWS, SPLIT] buffers, then one combining kernel.
  forward_.push_back(split_line(rows_py, cols_py));
  std::vector<std::vector<std::string>> partial_vars;
  for (const std::vector<std::string>& ps : part) {
    partial_vars.emplace_back();
    for (const std::string& p : ps) {
      std::string var = alloc(row_shape.empty() ? std::vector<std::string>{"SPLIT"}
                                                : std::vector<std::string>{rows_py, "SPLIT"},
                              dtype);
      k.line("tl.store(" + k.pointer(var) + " + rows * SPLIT + tl.program_id(1), " + p +
             ", mask=row_mask)");
      partial_vars.back().push_back(var);
    }
  }
  finish_kernel(k, {"ROWS", "COLS", "SPLIT", "CHUNK"}, {"BLOCK_M", "BLOCK_R"},
                "(triton.cdiv(" + rows_py + ", BLOCK_M), SPLIT)",
                {rows_py, cols_py, "SPLIT", "CHUNK"}, {"BLOCK_M", "BLOCK_R"});

  Kernel c(base + "_stats");
  c.line("rows = " + pid + " * BLOCK_M + tl.arange(0, BLOCK_M)[:, None]");
  c.line("row_mask = rows < ROWS");
  c.line("parts = tl.arange(0, BLOCK_S)[None, :]");
  c.line("pm = row_mask & (parts < SPLIT)");
  std::vector<std::vector<std::string>> loaded(accs.size());
  for (size_t a = 0; a < accs.size(); ++a)
    for (size_t i = 0; i < partial_vars[a].size(); ++i)
      loaded[a].push_back(
          c.assign("tl.load(" + c.pointer(partial_vars[a][i]) +
                   " + rows * SPLIT + parts, mask=pm, other=" + accs[a].identity[i] + ")"));
  std::vector<std::vector<std::string>> combined;
  for (size_t a = 0; a < accs.size(); ++a) combined.push_back(accs[a].combine(c, loaded[a]));
  std::vector<std::vector<std::string>> vars = store_results(c, combined);
  finish_kernel(c, {"ROWS", "COLS", "SPLIT"}, {"BLOCK_M", "BLOCK_S"},
                "(triton.cdiv(" + rows_py + ", BLOCK_C),)", {rows_py, cols_py, "SPLIT"},
                {"BLOCK_C", split_block()});
  return vars;
}

std::vector<int> reduced_dims(const Node& n, int rank) {
  std::vector<int> dims;
  const AttrSpec* dim_spec = n.schema().find_attr("dim");
  if (dim_spec && dim_spec->type == AttrType::Ints) {
    for (int64_t d : attr_ints(n.attrs, "dim"))
      dims.push_back(static_cast<int>(d < 0 ? d + rank : d));
  } else {
    int64_t d = attr_int(n.attrs, "dim");
    dims.push_back(static_cast<int>(d < 0 ? d + rank : d));
  }
  std::sort(dims.begin(), dims.end());
  return dims;
}

namespace {

// What a node asks of a statistics kernel: its statistic ("sum", "argmax", "max_sumexp", ...),
// the dims of its input it reduces, and the results' type. Reductions, and the normalizations
// whose statistics are a reduction over some dims of their input: softmax and log_softmax
// (the maximum and sum of exponentials), layer norms (mean and 1/std), RMS norms (1/rms).
struct Request {
  std::string what;
  std::vector<int> dims;
  DType result;
};

std::optional<Request> request_of(const Graph& g, const Node& n) {
  int rank = g.value(n.inputs[0]).type.rank();
  DType dtype = g.value(n.output).type.dtype;
  switch (n.op) {
    case Op::Sum:
      return Request{is_floating(g.value(n.inputs[0]).type.dtype) ? "sum" : "isum",
                     reduced_dims(n, rank), dtype};
    case Op::Mean: return Request{"mean", reduced_dims(n, rank), dtype};
    case Op::Max:
    case Op::Amax: return Request{"max", reduced_dims(n, rank), dtype};
    case Op::Min:
    case Op::Amin: return Request{"min", reduced_dims(n, rank), dtype};
    case Op::Logsumexp: return Request{"logsumexp", reduced_dims(n, rank), dtype};
    case Op::Var: return Request{"var", reduced_dims(n, rank), dtype};
    case Op::Std: return Request{"std", reduced_dims(n, rank), dtype};
    case Op::Norm: return Request{"norm", reduced_dims(n, rank), dtype};
    case Op::Prod: return Request{"prod", reduced_dims(n, rank), dtype};
    case Op::Argmax: return Request{"argmax", reduced_dims(n, rank), dtype};
    case Op::Argmin: return Request{"argmin", reduced_dims(n, rank), dtype};
    case Op::Softmax:
    case Op::LogSoftmax: return Request{"max_sumexp", reduced_dims(n, rank), DType::F32};
    case Op::LayerNorm:
    case Op::RmsNorm: {
      int k = static_cast<int>(attr_ints(n.attrs, "normalized_shape").size());
      std::vector<int> dims;
      for (int d = rank - k; d < rank; ++d) dims.push_back(d);
      return Request{n.op == Op::RmsNorm ? "rms" : "mean_rstd", dims, DType::F32};
    }
    default: return std::nullopt;
  }
}

}  // namespace

// Whether a kernel made at node `before` can compute v: an input, a parameter or a buffer, a
// value of an earlier node that no other kernel computes inside, or an elementwise expression
// of such values (emitted inline, as its own kernel would).
bool Lowering::available(ValueId v, int before) {
  std::set<ValueId> seen;  // each value once: shared subexpressions would make the walk exponential
  std::vector<ValueId> todo = {v};
  while (!todo.empty()) {
    ValueId x = todo.back();
    todo.pop_back();
    const Value& value = g_.value(x);
    if (!seen.insert(x).second || value.kind != ValueKind::Node || is_buffer(x)) continue;
    if (gemm_roots_.count(x) || computed_inside_.count(x) || epilogue_nodes_.count(value.node))
      return false;
    if (value.node < before) continue;
    const Node& n = g_.nodes()[value.node];
    Category c = n.schema().category;
    if (c != Category::Unary && c != Category::Binary) return false;
    todo.insert(todo.end(), n.inputs.begin(), n.inputs.end());
  }
  return true;
}

// Whether `other` has `in`'s rows: the same shape (traced and symbolic), dtype and layout, so
// that a kernel over `in`'s tiles reads it at the same index.
bool Lowering::same_rows(ValueId in, ValueId other) {
  return g_.value(in).type == g_.value(other).type && shape_of(in) == shape_of(other) &&
         wants_channels_last(in) == wants_channels_last(other);
}

// A node's statistics kernel (a reduction's, or a softmax's, layer or RMS norm's), and with
// it every later node's over the same dims into the same results' type whose accumulators can
// share a column loop: of the same input (`x.softmax(1)`, `x.logsumexp(1)`, `x.var(1)`), or of
// another with the same rows that is there already (`(a * b).sum(1)`, `a.norm(dim=1)`,
// `b.norm(dim=1)` of a cosine similarity). One kernel reads each input once for all of them
// (horizontal fusion). Their turn in the walk then finds them done. A reduction's result is
// a buffer, a normalization's its statistics.
void Lowering::lower_statistics(const Node& n) {
  if (is_buffer(n.output) || stats_.count(n.output) || computed_inside_.count(n.output))
    return;  // with an earlier sibling
  ValueId in = n.inputs[0];
  std::optional<Request> request = request_of(g_, n);
  if (!request) throw IrError("codegen: no lowering for " + n.schema().name);
  std::vector<Statistic> stats = {{request->what, &n}};
  // Accumulators of other inputs add registers: a group of several inputs stops at this many
  // accumulator tensors (an online softmax keeps two; Welford's four to six, in a quarter of
  // the tile, count as three).
  constexpr int kMaxTensors = 6;
  auto tensors = [](const std::string& kind) {
    return kind == "welford" ? 3 : kind == "softmax" ? 2 : 1;
  };
  int at = static_cast<int>(&n - g_.nodes().data());
  if (shares_loop(accumulator_kind(request->what))) {
    int held = tensors(accumulator_kind(request->what));
    std::set<std::pair<std::string, ValueId>> kept = {{accumulator_kind(request->what), in}};
    for (const Node& m : g_.nodes()) {
      if (&m <= &n || m.inputs.empty() || is_buffer(m.output) || stats_.count(m.output))
        continue;  // done, with an earlier kernel
      std::optional<Request> other = request_of(g_, m);
      if (!other || !shares_loop(accumulator_kind(other->what)) || other->dims != request->dims ||
          other->result != request->result)
        continue;
      ValueId x = m.inputs[0];
      if (x == in) {
        stats.push_back({other->what, &m});
        continue;
      }
      if (!same_rows(in, x) || !available(x, at)) continue;  // reduced in the same loop
      std::string kind = accumulator_kind(other->what);
      if (other->what == "mean" && kept.count({"welford", x})) kind = "welford";  // reads it
      int more = kept.count({kind, x}) ? 0 : tensors(kind);
      if (held + more > kMaxTensors) continue;
      held += more;
      kept.insert({kind, x});
      stats.push_back({other->what, &m, x});
    }
  }
  // A normalization, or a floating reduction that shares a column loop (not a product, an
  // integer sum or an arg extremum), over fp32 rows.
  bool one_pass = n.schema().category == Category::Normalization ||
                  (shares_loop(accumulator_kind(request->what)) && request->result == DType::F32 &&
                   g_.value(in).type.dtype == DType::F32);
  if (one_pass && lower_in_one_pass(stats, request->dims)) {
    for (const Statistic& s : stats)  // the kernel's header line
      computes_.back().second.insert(static_cast<int>(s.node - g_.nodes().data()));
    return;
  }
  ReducePlan plan = plan_dims(in, request->dims);
  size_t computed = computes_.size();
  std::vector<std::vector<std::string>> results =
      stats_kernel(stats, in, plan, nullptr, request->result);
  for (size_t i = computed; i < computes_.size(); ++i)  // the kernels' header lines
    for (const Statistic& s : stats)
      computes_[i].second.insert(static_cast<int>(s.node - g_.nodes().data()));
  for (size_t i = 0; i < stats.size(); ++i) {
    ValueId out = stats[i].node->output;
    if (stats[i].node->schema().category == Category::Normalization) {
      stats_[out] = results[i];
      plans_[out] = plan;
      continue;
    }
    // A reduction's buffer holds the rows in its output's order; view it in its shape.
    const std::string& var = results[i][0];
    forward_.push_back(var + " = " + var + ".view(" + tuple(shape_of(out)) + ")");
    buffers_[out] = {var, true};
  }
}

// The values a one-pass kernel of reduction r of `in` over `dims` computes: r, what reads it
// at its rows (elementwise nodes, unsqueezes, squeezes and expands), and what elementwise
// nodes make of those at `in`'s shape (x / x.norm(dim=-1, keepdim=True)). Nothing when another
// node reads them, or a value has neither shape (a row value broadcast against other
// columns), or a row value meets `in`'s shape other than as r with keepdim would: x.sum(1) of a
// square x, subtracted from it, broadcasts along the rows, each element reading another row's
// sum, which the kernel does not hold.
std::optional<std::set<ValueId>> Lowering::row_chain(ValueId r, ValueId in,
                                                     const std::vector<int>& dims) {
  const Shape& full = g_.value(in).type.shape;
  const int rank = static_cast<int>(full.size());
  Shape kept = full;  // r's shape with keepdim
  for (int d : dims) kept[d] = 1;
  int64_t rows = 1;
  for (int64_t d : g_.value(r).type.shape) rows *= d;
  auto aligned = [&](const Shape& shape) {  // right-aligned against in's rank, as broadcasting
    Shape a(rank, 1);
    for (size_t i = 0; i < shape.size(); ++i) a[rank - shape.size() + i] = shape[i];
    return a;
  };
  std::set<ValueId> values = {r};
  std::vector<ValueId> todo = {r};
  while (!todo.empty()) {
    ValueId v = todo.back();
    todo.pop_back();
    const Shape& shape = g_.value(v).type.shape;
    bool at_rows = shape != full;
    int64_t count = 1;
    for (int64_t d : shape) count *= d;
    if (at_rows && (count != rows || static_cast<int>(shape.size()) > rank)) return std::nullopt;
    for (int c : consumers_[v]) {
      const Node& m = g_.nodes()[c];
      Category category = m.schema().category;
      bool broadcast = m.op == Op::Unsqueeze || m.op == Op::Squeeze || m.op == Op::Expand;
      if (category != Category::Unary && category != Category::Binary && !(at_rows && broadcast))
        return std::nullopt;
      if (at_rows && g_.value(m.output).type.shape == full && aligned(shape) != kept)
        return std::nullopt;
      if (values.insert(m.output).second) todo.push_back(m.output);
    }
  }
  return values;
}

// A softmax, log-softmax, layer or RMS norm over trailing rows, whose value only elementwise
// nodes of its shape read on the way to one program output (or through further such
// normalizations over the same rows, next_stage), or a reduction over trailing rows
// whose value only reaches one program output through elementwise nodes and broadcasts
// (row_chain): one kernel per tile of rows computes the statistics and writes that output (a
// persistent reduction, as Inductor's), where a statistics kernel and a second pass would read
// the rows from memory twice. Rows that fit in a tile (row_fits) are loaded once and kept in
// registers; longer ones are read in two loops, statistics then output, the second finding
// them in L2. Few long rows stay with the split statistics kernels, which spread a row over
// many programs. Returns whether it did.
bool Lowering::lower_in_one_pass(const std::vector<Statistic>& stats,
                                 const std::vector<int>& dims) {
  const Node& n = *stats[0].node;
  ValueId in = n.inputs[0], y = n.output;
  int rank = g_.value(in).type.rank();
  bool trailing = true;
  for (size_t i = 0; i < dims.size(); ++i)
    trailing = trailing && dims[i] == rank - static_cast<int>(dims.size() - i);
  ReducePlan plan = plan_dims(in, dims);
  bool fits = row_fits(plan.traced_cols, options_.knobs);
  // Rows over a middle dim (an RMS norm or softmax over channels) take the one pass where a
  // tile holds 32 or more of them, next to each other in memory: its loads run along them.
  // Over the channels of a channels-last input, each row lies whole in memory, as a trailing
  // one does (loads along the channels; an NCHW output's stores along the rows).
  constexpr int64_t kMaxMiddleCols = 128;  // 32 rows of a 4096-element tile
  const bool channels_inner = wants_channels_last(in) && dims == std::vector<int>{1};
  if (!trailing && !channels_inner && !(plan.rows_contiguous && plan.traced_cols <= kMaxMiddleCols))
    return false;
  if ((wants_channels_last(in) && !channels_inner) ||
      (!fits && split_rows(plan.traced_rows, plan.traced_cols, plan.rows_contiguous)))
    return false;
  const bool reduction = n.schema().category == Category::Reduction;
  std::set<ValueId> values, made;   // made: the statistics' own values
  std::vector<const Node*> stages;  // normalizations after n's, in the same kernel
  std::set<ValueId> exits;          // values of the chain that later nodes read
  for (const Statistic& st : stats) {
    if (st.input >= 0 || (stats.size() > 1 && st.node->schema().category != Category::Reduction))
      return false;  // several: reductions of `in` only
    made.insert(st.node->output);
  }
  if (reduction) {
    for (const Statistic& st : stats) {
      std::optional<std::set<ValueId>> chain = row_chain(st.node->output, in, dims);
      if (!chain) return false;
      values.insert(chain->begin(), chain->end());
    }
  } else {
    // The chain from y: elementwise nodes of y's shape, each reading only the chain and what
    // exists already (values of earlier nodes); one of its values is the program's output. A
    // softmax, log-softmax, layer or RMS norm over the same rows that reads the chain is one
    // more stage of this kernel, its statistics from the row in registers (a softmax, then a
    // log-softmax of it over the channels: one kernel, where each took its own).
    ElementwiseRegion chain = elementwise_region(y);
    while (const Node* next = fits ? next_stage(chain, in, dims) : nullptr) {
      values.insert(chain.values.begin(), chain.values.end());
      stages.push_back(next);
      chain = elementwise_region(next->output);
    }
    values.insert(chain.values.begin(), chain.values.end());
    // After two normalizations or more, the chain may end in a value that other nodes read
    // (a pool): the kernel writes it for them, as the last stage's kernel would have; so it
    // may where Triton GEMMs would write it first (a layer norm before a wide Linear).
    auto written_for_gemm = [&](const std::pair<const int, std::set<ValueId>>& reader) {
      const Node& m = g_.nodes()[reader.first];
      return triton_gemm(m) && std::all_of(reader.second.begin(), reader.second.end(),
                                           [&](ValueId v) { return gemm_writes_first(m, v); });
    };
    if (!chain.readers.empty()) {
      if (stages.empty() &&
          !std::all_of(chain.readers.begin(), chain.readers.end(), written_for_gemm))
        return false;
      for (const auto& [reader, read] : chain.readers) exits.insert(read.begin(), read.end());
    }
  }
  const Shape& full = g_.value(in).type.shape;
  const std::vector<ValueId>& outputs = g_.outputs();
  int at = static_cast<int>(&n - g_.nodes().data());
  std::vector<ValueId> returned;
  for (ValueId v : values) {
    if (gemm_roots_.count(v) || computed_inside_.count(v) ||
        (!reduction && g_.value(v).type.shape != full))
      return false;
    size_t times = std::count(outputs.begin(), outputs.end(), v);
    if (times > 1 || (times == 1 && !consumers_[v].empty())) return false;
    if (times == 1) returned.push_back(v);
  }
  for (ValueId v : exits) {
    if (wants_channels_last(v)) return false;  // its readers want it written channels-last
    returned.push_back(v);
  }
  if (returned.size() != 1 || g_.value(returned[0]).type.shape != full) return false;
  for (ValueId v : values) {
    if (made.count(v)) continue;
    for (ValueId w : g_.nodes()[g_.value(v).node].inputs)
      if (!values.count(w) && g_.value(w).kind == ValueKind::Node && g_.value(w).node >= at)
        return false;
  }
  ValueId result = returned[0];

  std::string rows_py = product(plan.kept), cols_py = product(plan.reduced);
  std::string out = alloc(shape_of(result), g_.value(result).type.dtype);
  Kernel k(kernel_name(n, "rows"));
  k.line("rows = " + program_id() + " * BLOCK_M + tl.arange(0, BLOCK_M)[:, None]");
  k.line("row_mask = rows < ROWS");
  std::vector<std::string> row_dims = decompose(k, "rows", plan.kept);
  // The element index of a tile of columns `cols` (a line of the kernel sets them).
  auto tile = [&] {
    k.line("m = row_mask & (cols < COLS)");
    std::vector<std::string> at = plan.to_input(row_dims, decompose(k, "cols", plan.reduced));
    if (trailing || channels_inner)
      return Index{at, "m", "rows * COLS + cols",
                   trailing ? shape_of(in) : channels_last_shape(shape_of(in))};
    return Index{at, "m", "", {}};
  };
  // The statistics' accumulators, as a statistics kernel's: over the one tile of a row that
  // fits, else in a first loop over the row.
  AccumulatorPlan acc_plan = plan_accumulators(stats, in);
  k.line("lo = 0");
  k.line("hi = COLS");
  std::vector<Accumulator> accs = make_accumulators(k, acc_plan);
  std::vector<std::vector<std::string>> lanes;
  std::optional<Index> whole;  // a row that fits: its one tile
  if (fits) {                  // as a statistics kernel's whole rows (stats_kernel)
    k.line("cols = tl.arange(0, BLOCK_R)[None, :]");
    whole = tile();
    std::string x = emit(k, in, *whole);
    for (Accumulator& a : accs) lanes.push_back(whole_rows_of(a, [&] { return x; }));
  } else {
    for (Accumulator& a : accs) a.init();
    k.line("for c0 in range(0, COLS, BLOCK_R):");
    k.push();
    k.line("cols = c0 + tl.arange(0, BLOCK_R)[None, :]");
    Index idx = tile();
    for (Accumulator& a : accs) a.update(emit(k, in, idx));
    k.pop();
    for (Accumulator& a : accs) lanes.push_back(a.lanes());
  }
  std::vector<std::vector<std::string>> part;  // each statistic's partials
  for (size_t i = 0; i < stats.size(); ++i) part.push_back(lanes[acc_plan.reads[i]]);
  if (reduction) {
    // Each reduced value, in registers, answers every read of it in this kernel, all at the
    // tile's rows.
    for (size_t i = 0; i < stats.size(); ++i)
      row_values_[stats[i].node->output] =
          finish_statistic(k, stats[i].what, *stats[i].node, part[i])[0];
  } else {
    // Per row, what the statistics kernel would have written. The normalization's expression
    // (emit) loads its statistics at the row: here they are values already, which answer
    // those loads.
    std::string row = linearize(k, row_dims, plan.kept);
    auto hold = [&](const Node& node, const std::vector<std::string>& st, const std::string& tag) {
      std::vector<std::string> names;
      for (size_t i = 0; i < st.size(); ++i) {
        names.push_back("row_statistic" + tag + std::to_string(i));
        k.remember("load " + names.back() + "[" + row + "] if m", st[i]);
      }
      stats_[node.output] = names;
      plans_[node.output] = plan;
    };
    hold(n, finish_statistic(k, stats[0].what, n, part[0]), "");
    for (size_t s = 0; s < stages.size(); ++s) {  // the row is in registers (fits)
      const Node& m = *stages[s];
      std::vector<Statistic> own = {{request_of(g_, m)->what, &m}};
      Accumulator acc = make_accumulators(k, plan_accumulators(own, m.inputs[0]))[0];
      std::vector<std::string> p = whole_rows_of(acc, [&] { return emit(k, m.inputs[0], *whole); });
      hold(m, finish_statistic(k, own[0].what, m, p), std::to_string(s + 1) + "_");
    }
  }
  // The output: from the row in registers, or (second loop) from the row read again.
  DType dtype = g_.value(result).type.dtype;
  auto store = [&](const Index& idx) {
    std::string offset = trailing ? "rows * COLS + cols" : linearize(k, idx.dims, shape_of(result));
    k.line("tl.store(" + k.pointer(out) + " + " + offset + ", " +
           rounded(dtype, emit(k, result, idx)) + ", mask=m)");
  };
  if (fits) {
    store(*whole);
  } else {
    k.line("for c0 in range(0, COLS, BLOCK_R):");
    k.push();
    k.line("cols = c0 + tl.arange(0, BLOCK_R)[None, :]");
    store(tile());
    k.pop();
  }
  // A row read twice (past row_fits) is read again from L2 only while the rows in flight
  // fit there: one row a program (1024 columns a tile). Four rows of 16,384 a program (a
  // softmax on an H200, 0.201 ms against Inductor's 0.153) held about 100 MB in flight, past
  // the 50 MB of L2, so that the second read came from memory.
  forward_.push_back(fits ? row_tile_line(rows_py, cols_py)
                          : tile_line(false, rows_py, cols_py, kMaxTileCols));
  finish_kernel(k, {"ROWS", "COLS"}, {"BLOCK_M", "BLOCK_R"},
                "(triton.cdiv(" + rows_py + ", BLOCK_M),)", {rows_py, cols_py},
                {"BLOCK_M", "BLOCK_R"},
                fits ? row_tile_launch_options(options_.knobs) : std::vector<std::string>{});
  for (ValueId v : made) row_values_.erase(v);
  buffers_[result] = {out, true};
  for (ValueId v : values)
    if (v != result) computed_inside_.insert(v);
  return true;
}

// The normalization that is a later stage of a one-pass kernel over `in`'s rows (dims) whose
// chain so far is `chain`: the chain's one reader, a softmax, log-softmax, layer or RMS norm
// over the same dims of a chain value with `in`'s type and layout; else none.
const Node* Lowering::next_stage(const ElementwiseRegion& chain, ValueId in,
                                 const std::vector<int>& dims) {
  if (chain.readers.size() != 1) return nullptr;  // none (the end), or several
  const auto& [index, read] = *chain.readers.begin();
  const Node& m = g_.nodes()[index];
  std::optional<Request> r = request_of(g_, m);
  if (!r || m.schema().category != Category::Normalization || r->dims != dims ||
      (r->what != "max_sumexp" && r->what != "mean_rstd" && r->what != "rms"))
    return nullptr;
  ValueId x = m.inputs[0];
  bool only_input = read.size() == 1 && *read.begin() == x;
  return only_input && same_rows(in, x) ? &m : nullptr;
}

// An adaptive pool to one element per map: its window is the whole map, at every input
// size, so it is a mean over the spatial dims (a statistics kernel), not an unrolled window
// (a 64x64 map would be 4096 inlined reads).
bool Lowering::is_global_pool(const Node& n) const {
  if (n.op != Op::AdaptiveAvgPool2d && n.op != Op::AdaptiveAvgPool3d) return false;
  for (int64_t o : attr_ints(n.attrs, "output_size"))
    if (o != 1) return false;
  return true;
}

void Lowering::lower_global_pool(const Node& n) {
  ValueId in = n.inputs[0];
  int rank = g_.value(in).type.rank();
  int spatial = static_cast<int>(attr_ints(n.attrs, "output_size").size());
  std::vector<int> dims;
  for (int d = rank - spatial; d < rank; ++d) dims.push_back(d);
  std::string var =
      stats_kernel("mean", in, plan_dims(in, dims), n, nullptr, g_.value(n.output).type.dtype)[0];
  forward_.push_back(var + " = " + var + ".view(" + tuple(shape_of(n.output)) + ")");
  buffers_[n.output] = {var, true};
}

// nll_loss at one target index: -logp[n, target, d...], 0 where the target is ignore_index
// (or out of range); with `count`, 1 where it counts toward a mean, else 0.
std::string Lowering::nll_term(Kernel& k, const Node& n, const Index& idx, bool count) {
  ValueId logp = n.inputs[0];
  std::string target = emit(k, n.inputs[1], idx);
  int class_dim = g_.value(logp).type.rank() == 1 ? 0 : 1;
  std::string classes = k.size(shape_of(logp)[class_dim]);
  std::string valid =
      k.assign("(" + target + " != " + std::to_string(attr_int(n.attrs, "ignore_index")) + ") & (" +
               target + " >= 0) & (" + target + " < " + classes + ")");
  if (count) return k.assign(valid + ".to(tl.float32)");
  Index at{idx.dims, "(" + idx.mask + ") & " + valid, "", {}};
  at.dims.insert(at.dims.begin() + class_dim, target);
  return k.assign("tl.where(" + valid + ", -" + emit(k, logp, at) + ", 0.0)");
}

// A reduced nll_loss: the sum over every target (a statistics kernel), and for a mean the
// count of targets that are not ignore_index (a second one); emit_node divides.
void Lowering::lower_nll_loss(const Node& n) {
  if (attr_str(n.attrs, "reduction") == "none") return;  // an expression per target
  ValueId target = n.inputs[1];
  std::vector<int> all(g_.value(target).type.rank());
  std::iota(all.begin(), all.end(), 0);
  ReducePlan plan = plan_dims(target, all);
  auto term = [&](bool count) -> Element {
    return [this, &n, count](Kernel& k, const Index& idx) { return nll_term(k, n, idx, count); };
  };
  stats_[n.output] = {stats_kernel("sum", target, plan, n, term(false))[0]};
  if (attr_str(n.attrs, "reduction") == "mean")
    stats_[n.output].push_back(stats_kernel("sum", target, plan, n, term(true))[0]);
}

}  // namespace drtriton::codegen
