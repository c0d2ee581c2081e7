// Statistics kernels (sums, extrema, means and variances, online softmax, arg extrema) in row
// tiles or split columns, and what runs on them: reductions, global pools, nll_loss.
#include <algorithm>
#include <numeric>

#include "codegen/lowering.h"

namespace drtriton::codegen {

namespace {

// The statistics of a recipe, in two steps: `partial` statistics over a range of columns
// (a whole row, or one chunk of it), and `finish`, which turns them into the results. A
// long row with few rows to spread over the GPU is split: one kernel writes every chunk's
// partial statistics, a second combines them (Chan's formula for means and variances).
struct Recipe {
  std::vector<std::string> partial;  // names of the partial statistics
  bool splittable = true;
};

// Statistics of one accumulator per lane, combined by a sum or an extremum: several of them
// over one input share a kernel's column loop.
bool one_pass(const std::string& what) {
  return what == "sum" || what == "mean" || what == "norm" || what == "rms" || what == "max" ||
         what == "min";
}

Recipe recipe_of(const std::string& what) {
  if (what == "sum" || what == "isum" || what == "mean" || what == "norm" || what == "rms")
    return {{"s"}};
  if (what == "max" || what == "min") return {{"m"}};
  if (what == "max_sumexp" || what == "logsumexp") return {{"m", "s"}};
  if (what == "var" || what == "std" || what == "mean_rstd" || what == "batch_norm")
    return {{"n", "mean", "m2"}};
  if (what == "prod") return {{"p"}, false};
  if (what == "argmax" || what == "argmin") return {{"i"}, false};
  throw IrError("codegen: no statistics recipe " + what);
}

}  // namespace

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
    p.rows_contiguous = kept_dims == std::vector<int>{1};
  }
  int rank = static_cast<int>(shape.size());
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

// A statistics kernel: `what` names the recipe; returns one buffer per statistic, each
// with one element per row of the plan.
std::vector<std::string> Lowering::stats_kernel(const std::string& what, ValueId in,
                                                const ReducePlan& plan, const Node& n,
                                                const Element& element, DType result,
                                                const std::vector<std::string>& siblings) {
  Recipe recipe = recipe_of(what);
  std::vector<std::string> whats = {what};  // the kernel's statistics, one partial each
  whats.insert(whats.end(), siblings.begin(), siblings.end());
  for (const std::string& w : whats)
    if (whats.size() > 1 && !one_pass(w)) throw IrError("codegen: " + w + " shares no kernel");
  bool split = recipe.splittable && split_rows(plan.traced_rows, plan.traced_cols);

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

  // Opens a loop over the columns [lo, hi), one BLOCK_R tile at a time, and returns the
  // input index of the tile's elements under mask `m`; the caller closes it with k.pop().
  auto columns = [&]() {
    k.line("for c0 in range(lo, hi, BLOCK_R):");
    k.push();
    k.line("cols = c0 + tl.arange(0, BLOCK_R)[None, :]");
    k.line("m = row_mask & (cols < hi)");
    return Index{plan.to_input(kidx, decompose(k, "cols", plan.reduced)), "m", "", {}};
  };
  auto value = [&](const Index& idx) { return element ? element(k, idx) : emit(k, in, idx); };
  // An integer or bool sum ("isum") accumulates in int64, exactly, as PyTorch does.
  const bool integer = what == "isum";
  // One pass accumulating term(x) lane by lane: combine is "sum", "product", or a tl
  // function of two tensors ("maximum").
  auto pass = [&](const std::string& acc, const std::string& init,
                  const std::function<std::string(const std::string&)>& term,
                  const std::string& combine) {
    k.line(acc + " = tl.full([BLOCK_M, BLOCK_R], " + init + ", " +
           (integer ? "tl.int64" : "tl.float32") + ")");
    std::string x = value(columns());
    std::string t = k.assign("tl.where(m, " + term(x) + ", " + init + ")");
    k.line(acc + " = " +
           (combine == "sum"       ? acc + " + " + t
            : combine == "product" ? acc + " * " + t
                                   : "tl." + combine + "(" + acc + ", " + t + ")"));
    k.pop();
  };
  auto reduce = [&](const std::string& acc, const std::string& how) {
    return k.assign("tl." + how + "(" + acc + ", axis=1)[:, None]");
  };
  auto identity = [](const std::string& x) { return x; };
  auto square = [](const std::string& x) { return x + " * " + x; };

  // The partial statistics over [lo, hi).
  std::vector<std::string> part;
  if (one_pass(what)) {
    // One accumulator per statistic, all updated from one read of the input.
    auto init = [](const std::string& w) {
      return w == "max" ? "float('-inf')" : w == "min" ? "float('inf')" : "0.0";
    };
    std::vector<std::string> accs;
    for (size_t i = 0; i < whats.size(); ++i) {
      accs.push_back(whats.size() == 1 ? "acc" : "acc" + std::to_string(i));
      k.line(accs[i] + " = tl.full([BLOCK_M, BLOCK_R], " + init(whats[i]) + ", tl.float32)");
    }
    std::string x = value(columns());
    for (size_t i = 0; i < whats.size(); ++i) {
      const std::string& w = whats[i];
      bool squared = w == "norm" || w == "rms";
      std::string t = k.assign("tl.where(m, " + (squared ? square(x) : x) + ", " + init(w) + ")");
      k.line(accs[i] + " = " +
             (w == "max" || w == "min" ? "tl." + std::string(w == "max" ? "maximum" : "minimum") +
                                             "(" + accs[i] + ", " + t + ")"
                                       : accs[i] + " + " + t));
    }
    k.pop();
    for (size_t i = 0; i < whats.size(); ++i)
      part.push_back(reduce(accs[i], whats[i] == "max" || whats[i] == "min" ? whats[i] : "sum"));
  } else if (integer) {
    pass(
        "acc", "0", [](const std::string& x) { return x + ".to(tl.int64)"; }, "sum");
    part = {reduce("acc", "sum")};
  } else if (what == "prod") {
    helpers_.insert("_mul");  // tl has no product reduction: tl.reduce with a combine function
    pass("acc", "1.0", identity, "product");
    part = {k.assign("tl.reduce(acc, 1, _mul)[:, None]")};
  } else if (what == "max_sumexp" || what == "logsumexp") {
    // One read of the input (an online softmax): each lane keeps its maximum and its sum of
    // exponentials relative to it, rescaled when the maximum grows; the lanes combine after.
    k.line("mx = tl.full([BLOCK_M, BLOCK_R], float('-inf'), tl.float32)");
    k.line("se = tl.zeros([BLOCK_M, BLOCK_R], tl.float32)");
    std::string x = k.assign("tl.where(m, " + value(columns()) + ", float('-inf'))");
    std::string top = k.assign("tl.maximum(mx, " + x + ")");
    // A lane that has seen only -inf keeps a sum of 0 (exp(-inf - -inf) would be NaN).
    std::string shift = k.assign("tl.where(" + top + " == float('-inf'), 0.0, " + top + ")");
    k.line("se = se * tl.exp(mx - " + shift + ") + tl.exp(" + x + " - " + shift + ")");
    k.line("mx = " + top);
    k.pop();
    std::string mx = reduce("mx", "max");
    std::string safe = k.assign("tl.where(" + mx + " == float('-inf'), 0.0, " + mx + ")");
    part = {safe, k.assign("tl.sum(se * tl.exp(mx - " + safe + "), axis=1)[:, None]")};
  } else if (recipe.partial.size() == 3) {  // counts, means and squared deviations
    // One read of the input (Welford): each lane keeps its count, mean and sum of squared
    // deviations; Chan's formula combines the lanes.
    std::string count =
        k.assign("(hi - lo) * 1.0");  // a float, also when Triton made COLS a constant
    k.line("cnt = tl.zeros([BLOCK_M, BLOCK_R], tl.float32)");
    k.line("mean = tl.zeros([BLOCK_M, BLOCK_R], tl.float32)");
    k.line("m2 = tl.zeros([BLOCK_M, BLOCK_R], tl.float32)");
    std::string x = value(columns());
    k.line("cnt = cnt + m.to(tl.float32)");
    std::string delta = k.assign("tl.where(m, " + x + " - mean, 0.0)");
    k.line("mean = mean + " + delta + " / tl.maximum(cnt, 1.0)");
    k.line("m2 = m2 + " + delta + " * tl.where(m, " + x + " - mean, 0.0)");
    k.pop();
    std::string all = k.assign("tl.sum(cnt * mean, axis=1)[:, None] / " + count);
    std::string d = k.assign("mean - " + all);
    part = {count, all, reduce("m2 + cnt * " + d + " * " + d, "sum")};
  } else {  // argmax, argmin
    bool is_max = what == "argmax";
    std::string init = is_max ? "float('-inf')" : "float('inf')";
    k.line("best = tl.full([BLOCK_M, BLOCK_R], " + init + ", tl.float32)");
    k.line("where = tl.zeros([BLOCK_M, BLOCK_R], tl.int64)");
    std::string x = value(columns());
    // Strictly better only: along a lane the first of equal values stays.
    std::string better = k.assign("m & (" + x + (is_max ? " > " : " < ") + "best)");
    k.line("best = tl.where(" + better + ", " + x + ", best)");
    k.line("where = tl.where(" + better + ", cols.to(tl.int64), where)");
    k.pop();
    std::string top = reduce("best", is_max ? "max" : "min");
    part = {k.assign("tl.min(tl.where(best == " + top +
                     ", where, 9223372036854775807), axis=1)[:, None]")};
  }

  std::string eps = n.schema().find_attr("eps") ? float_literal(attr_float(n.attrs, "eps")) : "0.0";
  // The results of statistic `what` from its (combined) partial statistics `p`, in kernel `kk`.
  auto finish_one = [&](Kernel& kk, const std::string& what,
                        const std::vector<std::string>& p) -> std::vector<std::string> {
    if (what == "mean") return {kk.assign(p[0] + " / COLS")};
    if (what == "norm") return {kk.assign("tl.sqrt_rn(" + p[0] + ")")};
    if (what == "rms") return {kk.assign("1.0 / tl.sqrt_rn(" + p[0] + " / COLS + " + eps + ")")};
    if (what == "logsumexp") return {kk.assign(p[0] + " + tl.log(" + p[1] + ")")};
    if (what == "mean_rstd") {
      return {p[1], kk.assign("1.0 / tl.sqrt_rn(" + p[2] + " / COLS + " + eps + ")")};
    }
    if (what == "batch_norm") {  // also the unbiased variance, which the running_var takes
      return {p[1], kk.assign("1.0 / tl.sqrt_rn(" + p[2] + " / COLS + " + eps + ")"),
              kk.assign(p[2] + " / (COLS - 1)")};
    }
    if (what == "var" || what == "std") {
      std::string count = offset_by("COLS", -attr_int(n.attrs, "correction"));
      std::string var = kk.assign(p[2] + " / tl.maximum(" + count + ", 0)");
      return {what == "std" ? kk.assign("tl.sqrt_rn(" + var + ")") : var};
    }
    return p;
  };
  // Every statistic's results: of a one-pass group, one partial each.
  auto finish = [&](Kernel& kk, const std::vector<std::string>& p) {
    if (whats.size() == 1) return finish_one(kk, what, p);
    std::vector<std::string> results;
    for (size_t i = 0; i < whats.size(); ++i)
      results.push_back(finish_one(kk, whats[i], {p[i]})[0]);
    return results;
  };

  std::string rows_py = product(plan.kept), cols_py = product(plan.reduced);
  std::vector<std::string> row_shape =
      plan.kept.empty() ? std::vector<std::string>{} : std::vector<std::string>{rows_py};
  DType dtype = what.rfind("arg", 0) == 0 || integer ? DType::I64 : result;
  auto store_results = [&](Kernel& kk, const std::vector<std::string>& results) {
    std::vector<std::string> vars;
    for (const std::string& r : results) {
      std::string var = alloc(row_shape, dtype);
      kk.line("tl.store(" + kk.pointer(var) + " + rows, " + rounded(dtype, r) + ", mask=row_mask)");
      vars.push_back(var);
    }
    return vars;
  };
  // Tiles of about knobs.tile_elements (4096): whole rows when they fit, several rows when short.
  forward_.push_back(tile_line(plan.rows_contiguous, rows_py, cols_py));
  if (!split) {
    std::vector<std::string> vars = store_results(k, finish(k, part));
    finish_kernel(k, {"ROWS", "COLS"}, {"BLOCK_M", "BLOCK_R"},
                  "(triton.cdiv(" + rows_py + ", BLOCK_M),)", {rows_py, cols_py},
                  {"BLOCK_M", "BLOCK_R"});
    return vars;
  }
  // Split: chunk statistics into [ROWS, SPLIT] buffers, then one combining kernel.
  forward_.push_back(split_line(rows_py, cols_py));
  std::vector<std::string> partial_vars;
  for (const std::string& p : part) {
    std::string var = alloc(row_shape.empty() ? std::vector<std::string>{"SPLIT"}
                                              : std::vector<std::string>{rows_py, "SPLIT"},
                            dtype);
    k.line("tl.store(" + k.pointer(var) + " + rows * SPLIT + tl.program_id(1), " + p +
           ", mask=row_mask)");
    partial_vars.push_back(var);
  }
  finish_kernel(k, {"ROWS", "COLS", "SPLIT", "CHUNK"}, {"BLOCK_M", "BLOCK_R"},
                "(triton.cdiv(" + rows_py + ", BLOCK_M), SPLIT)",
                {rows_py, cols_py, "SPLIT", "CHUNK"}, {"BLOCK_M", "BLOCK_R"});

  Kernel c(base + "_stats");
  c.line("rows = " + pid + " * BLOCK_M + tl.arange(0, BLOCK_M)[:, None]");
  c.line("row_mask = rows < ROWS");
  c.line("parts = tl.arange(0, BLOCK_S)[None, :]");
  c.line("pm = row_mask & (parts < SPLIT)");
  std::vector<std::string> loaded;
  // The partial statistic i is of whats[i] in a one-pass group, else of `what`'s recipe.
  auto statistic = [&](size_t i) { return whats.size() > 1 ? whats[i] : what; };
  auto kind = [&](size_t i) {
    const std::string w = statistic(i);
    return whats.size() == 1 ? recipe.partial[i] : w == "max" || w == "min" ? "m" : "s";
  };
  for (size_t i = 0; i < partial_vars.size(); ++i) {
    std::string other = kind(i) == "m" ? (statistic(i) == "min" ? "float('inf')" : "float('-inf')")
                        : integer      ? "0"
                                       : "0.0";
    loaded.push_back(c.assign("tl.load(" + c.pointer(partial_vars[i]) +
                              " + rows * SPLIT + parts, mask=pm, other=" + other + ")"));
  }
  auto sum = [&](const std::string& x) { return c.assign("tl.sum(" + x + ", axis=1)[:, None]"); };
  std::vector<std::string> combined;
  if (whats.size() > 1 || (recipe.partial.size() == 1 && recipe.splittable)) {
    // Sums add up; extrema take the extremum of the chunks'.
    for (size_t i = 0; i < loaded.size(); ++i)
      combined.push_back(
          kind(i) == "s" ? sum(loaded[i])
                         : c.assign("tl." + statistic(i) + "(" + loaded[i] + ", axis=1)[:, None]"));
  } else if (recipe.partial.size() == 2) {  // max and sum of exponentials
    std::string mx = c.assign("tl.max(" + loaded[0] + ", axis=1)[:, None]");
    std::string safe = c.assign("tl.where(" + mx + " == float('-inf'), 0.0, " + mx + ")");
    combined = {safe, sum(loaded[1] + " * tl.exp(" + loaded[0] + " - " + safe + ")")};
  } else {  // counts, means, M2: Chan's combination
    std::string total = sum(loaded[0]);
    std::string mean = c.assign(sum(loaded[0] + " * " + loaded[1]) + " / " + total);
    std::string d = c.assign(loaded[1] + " - " + mean);
    combined = {total, mean, sum(loaded[2] + " + " + loaded[0] + " * " + d + " * " + d)};
  }
  std::vector<std::string> vars = store_results(c, finish(c, combined));
  finish_kernel(c, {"ROWS", "COLS", "SPLIT"}, {"BLOCK_M", "BLOCK_S"},
                "(triton.cdiv(" + rows_py + ", BLOCK_M),)", {rows_py, cols_py, "SPLIT"},
                {"BLOCK_M", split_block()});
  return vars;
}

namespace {

// The dims a reduction node reduces, each in 0..rank-1.
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

// The statistics recipe of a reduction node ("sum", "argmax", ...).
std::string recipe_name(const Graph& g, const Node& n) {
  switch (n.op) {
    case Op::Sum: return is_floating(g.value(n.inputs[0]).type.dtype) ? "sum" : "isum";
    case Op::Mean: return "mean";
    case Op::Max:
    case Op::Amax: return "max";
    case Op::Min:
    case Op::Amin: return "min";
    case Op::Logsumexp: return "logsumexp";
    case Op::Var: return "var";
    case Op::Std: return "std";
    case Op::Norm: return "norm";
    case Op::Prod: return "prod";
    case Op::Argmax: return "argmax";
    case Op::Argmin: return "argmin";
    default: throw IrError("codegen: no lowering for " + n.schema().name);
  }
}

}  // namespace

// A reduction, and with it every later one-pass reduction of the same input over the same
// dims into the same dtype (`x.mean(1)`, `x.amax(1)`, `x.sum(1)`): one kernel reads the input
// once for all of them (horizontal fusion). Their turn in the walk then finds them done.
void Lowering::lower_reduction(const Node& n) {
  if (is_buffer(n.output)) return;  // computed with an earlier sibling
  ValueId in = n.inputs[0];
  int rank = g_.value(in).type.rank();
  std::vector<int> dims = reduced_dims(n, rank);
  std::string what = recipe_name(g_, n);
  DType dtype = g_.value(n.output).type.dtype;
  std::vector<const Node*> members = {&n};
  std::vector<std::string> siblings;
  if (one_pass(what)) {
    for (const Node& m : g_.nodes()) {
      const Op ops[] = {Op::Sum, Op::Mean, Op::Max, Op::Amax, Op::Min, Op::Amin, Op::Norm};
      if (&m <= &n || std::find(std::begin(ops), std::end(ops), m.op) == std::end(ops) ||
          m.inputs[0] != in || g_.value(m.output).type.dtype != dtype ||
          !one_pass(recipe_name(g_, m)) || reduced_dims(m, rank) != dims)
        continue;
      members.push_back(&m);
      siblings.push_back(recipe_name(g_, m));
    }
  }
  ReducePlan plan = plan_dims(in, dims);
  size_t computed = computes_.size();
  std::vector<std::string> vars = stats_kernel(what, in, plan, n, nullptr, dtype, siblings);
  for (size_t i = computed; i < computes_.size(); ++i)  // the kernels' header lines
    for (const Node* m : members)
      computes_[i].second.insert(static_cast<int>(m - g_.nodes().data()));
  // Each statistic's buffer holds the rows in its output's order; view it in its shape.
  for (size_t i = 0; i < members.size(); ++i) {
    const std::string& var = vars[i];
    forward_.push_back(var + " = " + var + ".view(" + tuple(shape_of(members[i]->output)) + ")");
    buffers_[members[i]->output] = {var, true};
  }
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
