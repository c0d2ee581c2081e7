// Normalizations: statistics kernels, and the expression over them (emit_node) that the
// next kernel fuses; batch and instance norms with running statistics.
#include <algorithm>
#include <cmath>

#include "codegen/lowering.h"

namespace drtriton::codegen {

void Lowering::lower_normalization(const Node& n) {
  ValueId in = n.inputs[0];
  std::vector<std::string> shape = shape_of(in);
  int rank = static_cast<int>(shape.size());
  ReducePlan plan;
  switch (n.op) {
    case Op::Softmax:
    case Op::LogSoftmax:
    case Op::LayerNorm:
    case Op::RmsNorm: return lower_statistics(n);  // with the input's other statistics
    case Op::BatchNorm1d:
    case Op::BatchNorm2d:
    case Op::BatchNorm3d: {
      std::vector<int> dims = {0};
      for (int d = 2; d < rank; ++d) dims.push_back(d);
      plan = plan_dims(in, dims);
      if (attr_bool(n.attrs, "track_running_stats")) return lower_batch_norm(n, plan);
      break;
    }
    case Op::InstanceNorm2d:
    case Op::InstanceNorm3d: {
      std::vector<int> dims;
      for (int d = 2; d < rank; ++d) dims.push_back(d);
      plan = plan_dims(in, dims);
      if (attr_bool(n.attrs, "track_running_stats")) return lower_instance_norm(n, plan);
      break;
    }
    case Op::GroupNorm: {
      // Rows are (sample, group); a group's columns are its channels times the spatial dims.
      int64_t groups = attr_int(n.attrs, "num_groups");
      int64_t per = g_.value(in).type.shape[1] / groups;
      std::string G = std::to_string(groups), P = std::to_string(per);
      plan.kept = {shape[0], G};
      plan.reduced = {P};
      plan.traced_rows = g_.value(in).type.shape[0] * groups;
      plan.traced_cols = g_.value(in).type.numel() / plan.traced_rows;
      for (int d = 2; d < rank; ++d) plan.reduced.push_back(shape[d]);
      // Channels-last: a group's channels vary fastest (the memory order), after the positions.
      bool channels_inner = wants_channels_last(in);
      if (channels_inner)
        std::rotate(plan.reduced.begin(), plan.reduced.begin() + 1, plan.reduced.end());
      plan.to_input = [=](const std::vector<std::string>& ki, const std::vector<std::string>& ri) {
        std::string channel = channels_inner ? ri.back() : ri[0];
        std::vector<std::string> idx = {ki[0], "(" + ki[1] + " * " + P + " + " + channel + ")"};
        for (size_t i = channels_inner ? 0 : 1; i < ri.size() - (channels_inner ? 1 : 0); ++i)
          idx.push_back(ri[i]);
        return idx;
      };
      plan.row_of = [=](const std::vector<std::string>& full) {
        return std::vector<std::string>{full[0], "(" + full[1] + " // " + P + ")"};
      };
      break;
    }
    default: throw IrError("codegen: no lowering for " + n.schema().name);
  }
  stats_[n.output] = stats_kernel("mean_rstd", in, plan, n);
  plans_[n.output] = plan;
}

// A mean of a group norm's output over its positions, or over its channels and positions,
// where nothing else reads the norm: the norm's output is not written, and the mean is taken
// from each channel's sum and sum of squares (lower_mean_of_group_norm).
const Node* Lowering::group_norm_under_mean(const Node& mean) {
  if (mean.op != Op::Mean || g_.value(mean.inputs[0]).kind != ValueKind::Node) return nullptr;
  const Node& norm = g_.nodes()[g_.value(mean.inputs[0]).node];
  const int rank = g_.value(norm.output).type.rank();
  if (norm.op != Op::GroupNorm || users_[norm.output] != 1 ||
      g_.value(norm.output).type.dtype != DType::F32)
    return nullptr;
  std::vector<int> dims = reduced_dims(mean, rank), positions;
  for (int d = 2; d < rank; ++d) positions.push_back(d);
  std::vector<int> channels_too = positions;
  channels_too.insert(channels_too.begin(), 1);
  // (An empty dim list means every dim: never a norm's positions alone.)
  return !dims.empty() && (dims == positions || dims == channels_too) ? &norm : nullptr;
}

bool Lowering::folds_into_mean(const Node& norm) {
  auto readers = consumers_.find(norm.output);
  return readers != consumers_.end() && readers->second.size() == 1 &&
         group_norm_under_mean(g_.nodes()[readers->second[0]]) == &norm;
}

// Such a mean is linear in the normalized values: per channel c of group g,
// weight_c * (mean_c - mean_g) * rstd_g + bias_c, then averaged over the channels when they
// are reduced. One statistics kernel sums each channel's values and squares in float64 (the
// input read once, not twice); a kernel per sample finishes (and, for [N, C], where a
// channel's sum is its value, reads the input itself). With equal weights in a group
// the channels' deviations cancel exactly, where a sum of normalized fp32 values leaves
// rounding noise several times eager's (fused/conv3d_groupnorm_mean was rejected so: its
// output is mathematically zero).
void Lowering::lower_mean_of_group_norm(const Node& mean, const Node& norm) {
  const ValueId x = norm.inputs[0];
  const std::vector<std::string> shape = shape_of(x);
  const int rank = static_cast<int>(shape.size());
  std::vector<int> positions;
  for (int d = 2; d < rank; ++d) positions.push_back(d);
  const std::string groups = std::to_string(attr_int(norm.attrs, "num_groups"));
  const std::string per = "(" + shape[1] + " // " + groups + ")";
  const std::string count = product({shape.begin() + 2, shape.end()});

  size_t computed = computes_.size();
  std::vector<std::vector<std::string>> sums;
  if (!positions.empty())
    sums = stats_kernel({{"sum64", &norm}, {"sumsq64", &norm}}, x, plan_dims(x, positions), nullptr,
                        DType::F64);

  Kernel k(kernel_name(mean, "of_group_norm"));
  k.line("n = " + program_id());
  k.line("g = tl.arange(0, BLOCK_G)[:, None]");
  k.line("m = (g < G) & (tl.arange(0, BLOCK_P)[None, :] < P)");
  k.line("c = g * P + tl.arange(0, BLOCK_P)[None, :]");
  auto at = [&](const std::string& var) {
    return k.assign("tl.load(" + k.pointer(var) + " + n * (G * P) + c, mask=m, other=0.0)");
  };
  std::string sum, squares;
  if (positions.empty()) {
    sum = k.assign("(" + emit(k, x, Index{{"n", "c"}, "m", "", {}}) + ").to(tl.float64)");
    squares = k.assign(sum + " * " + sum);
  } else {
    sum = at(sums[0][0]);
    squares = at(sums[1][0]);
  }
  std::string group_mean = k.assign("tl.sum(" + sum + ", axis=1)[:, None] / (P * S)");
  std::string var = k.assign("tl.maximum(tl.sum(" + squares + ", axis=1)[:, None] / (P * S) - " +
                             group_mean + " * " + group_mean + ", 0.0)");
  std::string y = k.assign("(" + sum + " / S - " + group_mean + ") / tl.sqrt(" + var + " + " +
                           float_literal(attr_float(norm.attrs, "eps")) + ")");
  for (const char* rel : {"weight", "bias"}) {
    if (!has_param(norm, rel)) continue;
    std::string p = k.assign("tl.load(" + k.pointer(param_var(norm, rel)) +
                             " + c, mask=m, other=0.0).to(tl.float64)");
    y = k.assign(y + (std::string(rel) == "weight" ? " * " : " + ") + p);
  }
  const std::string out = alloc(shape_of(mean.output), DType::F32);
  if (reduced_dims(mean, rank).front() == 1) {  // over the channels too: one value a sample
    k.line("tl.store(" + k.pointer(out) + " + n, (tl.sum(tl.where(m, " + y +
           ", 0.0)) / (G * P)).to(tl.float32))");
  } else {
    k.line("tl.store(" + k.pointer(out) + " + n * (G * P) + c, " + y + ".to(tl.float32), mask=m)");
  }
  finish_kernel(k, {"G", "P", "S"}, {"BLOCK_G", "BLOCK_P"}, "(" + shape[0] + ",)",
                {groups, per, count},
                {"triton.next_power_of_2(" + groups + ")", "triton.next_power_of_2(" + per + ")"});
  for (size_t i = computed; i < computes_.size(); ++i)  // the kernels' header lines
    computes_[i].second.insert(
        {static_cast<int>(&norm - g_.nodes().data()), static_cast<int>(&mean - g_.nodes().data())});
  buffers_[mean.output] = {out, true};
}

Lowering::RunningStats Lowering::running_stats(const Node& n) {
  return {float_literal(attr_float(n.attrs, "eps")), attr_float(n.attrs, "momentum"),
          param_var(n, "running_mean"), param_var(n, "running_var")};
}

// A batch norm with running statistics follows `self.training`, as nn.BatchNorm does. In
// training mode: the batch statistics, and a one-program kernel that folds them into the
// module's running_mean and running_var (momentum, or 1/num_batches_tracked for
// momentum=None: a cumulative average) and counts the batch. In eval mode: the running
// statistics themselves, no statistics kernel and no update. Both branches fill the same
// mean and 1/std variables, so the kernels that read the normalized value serve both modes.
void Lowering::lower_batch_norm(const Node& n, const ReducePlan& plan) {
  const std::string rows_py = product(plan.kept);
  const std::string block = one_program_block(rows_py);  // one block of channels
  const auto [eps, momentum, running_mean, running_var] = running_stats(n);

  forward_.push_back("if self.training:");
  size_t train_from = forward_.size();
  std::vector<std::string> st = stats_kernel("batch_norm", n.inputs[0], plan, n);
  Kernel u(kernel_name(n, "running"));
  u.line("rows = tl.arange(0, BLOCK)");
  u.line("mask = rows < ROWS");
  std::string tracked = u.pointer(param_var(n, "num_batches_tracked"));
  u.line("tracked = tl.load(" + tracked + ") + 1");
  u.line("tl.store(" + tracked + ", tracked)");
  u.line(std::isnan(momentum) ? "momentum = 1.0 / tracked.to(tl.float32)"
                              : "momentum = " + float_literal(momentum));
  const std::pair<std::string, std::string> updates[] = {{running_mean, st[0]},
                                                         {running_var, st[2]}};
  // fp16 and bf16 running statistics are updated in fp32 and rounded once, as PyTorch does.
  const DType stats = state_dtype(n, "running_var");
  for (const auto& [running, batch] : updates) {
    std::string ptr = u.pointer(running) + " + rows";
    std::string old = u.assign(widened(stats, "tl.load(" + ptr + ", mask=mask)"));
    std::string now = u.assign("tl.load(" + u.pointer(batch) + " + rows, mask=mask)");
    u.line("tl.store(" + ptr + ", " +
           rounded(stats, "(1.0 - momentum) * " + old + " + momentum * " + now) + ", mask=mask)");
  }
  finish_kernel(u, {"ROWS"}, {"BLOCK"}, "(1,)", {rows_py}, {block});
  indent_forward_since(train_from);

  forward_.push_back("else:");
  size_t eval_from = forward_.size();
  forward_.push_back(st[0] + " = " + running_mean);
  Kernel e(kernel_name(n, "eval"));
  e.line("rows = tl.arange(0, BLOCK)");
  e.line("mask = rows < ROWS");
  std::string var = e.assign(
      widened(stats, "tl.load(" + e.pointer(running_var) + " + rows, mask=mask, other=1.0)"));
  e.line("tl.store(" + e.pointer(st[1]) + " + rows, 1.0 / tl.sqrt_rn(" + var + " + " + eps +
         "), mask=mask)");
  forward_.push_back(st[1] + " = torch.empty(" + tuple({rows_py}) +
                     ", device=device, dtype=torch.float32)");
  finish_kernel(e, {"ROWS"}, {"BLOCK"}, "(1,)", {rows_py}, {block});
  indent_forward_since(eval_from);
  stats_[n.output] = {st[0], st[1]};
  plans_[n.output] = plan;
}

// An instance norm with running statistics follows `self.training` as nn.InstanceNorm does.
// In training mode: each instance's own statistics and, unless momentum is None (which
// PyTorch reads as 0: no update), a one-program kernel that folds the batch's average of
// the instance means and of their unbiased variances into running_mean and running_var
// (num_batches_tracked is not counted). In eval mode: every instance normalized by its
// channel's running statistics, spread over the (sample, channel) rows.
void Lowering::lower_instance_norm(const Node& n, const ReducePlan& plan) {
  const std::string batch = plan.kept[0], channels = plan.kept[1];
  const std::string rows_py = product(plan.kept);
  const auto [eps, momentum, running_mean, running_var] = running_stats(n);
  const DType stats = state_dtype(n, "running_var");  // fp16 and bf16: updated in fp32

  forward_.push_back("if self.training:");
  size_t train_from = forward_.size();
  std::vector<std::string> st = stats_kernel("batch_norm", n.inputs[0], plan, n);
  if (!std::isnan(momentum)) {
    Kernel u(kernel_name(n, "running"));
    u.line("chans = tl.arange(0, BLOCK)");
    u.line("mask = chans < C");
    u.line("mean = tl.zeros([BLOCK], tl.float32)");
    u.line("var = tl.zeros([BLOCK], tl.float32)");
    u.line("for b in range(0, B):");
    u.push();
    u.line("mean += tl.load(" + u.pointer(st[0]) + " + b * C + chans, mask=mask)");
    u.line("var += tl.load(" + u.pointer(st[2]) + " + b * C + chans, mask=mask)");
    u.pop();
    for (const auto& [running, batch_stat] : {std::pair{running_mean, std::string("mean")},
                                              std::pair{running_var, std::string("var")}}) {
      std::string ptr = u.pointer(running) + " + chans";
      u.line("tl.store(" + ptr + ", " +
             rounded(stats, float_literal(1.0 - momentum) + " * " +
                                widened(stats, "tl.load(" + ptr + ", mask=mask)") + " + " +
                                float_literal(momentum) + " * (" + batch_stat + " / B)") +
             ", mask=mask)");
    }
    finish_kernel(u, {"B", "C"}, {"BLOCK"}, "(1,)", {batch, channels},
                  {one_program_block(channels)});
  }
  indent_forward_since(train_from);

  forward_.push_back("else:");
  size_t eval_from = forward_.size();
  std::vector<std::string> running = {alloc({rows_py}, DType::F32), alloc({rows_py}, DType::F32)};
  Kernel e(kernel_name(n, "eval"));
  e.line("rows = " + program_id() + " * BLOCK + tl.arange(0, BLOCK)");
  e.line("mask = rows < ROWS");
  e.line("chans = rows % C");
  e.line("tl.store(" + e.pointer(running[0]) + " + rows, " +
         widened(stats, "tl.load(" + e.pointer(running_mean) + " + chans, mask=mask)") +
         ", mask=mask)");
  std::string var =
      e.assign(widened(stats, "tl.load(" + e.pointer(running_var) + " + chans, mask=mask)"));
  e.line("tl.store(" + e.pointer(running[1]) + " + rows, 1.0 / tl.sqrt_rn(" + var + " + " + eps +
         "), mask=mask)");
  const std::string rows_block = stats_rows_block();
  finish_kernel(e, {"ROWS", "C"}, {"BLOCK"}, "(triton.cdiv(" + rows_py + ", " + rows_block + "),)",
                {rows_py, channels}, {rows_block});
  // Both branches leave the statistics in the same variables for the kernels that follow.
  forward_.push_back(st[0] + ", " + st[1] + " = " + running[0] + ", " + running[1]);
  indent_forward_since(eval_from);
  stats_[n.output] = {st[0], st[1]};
  plans_[n.output] = plan;
}

// The forward's lines from `line` on go inside the block the line before opens.
void Lowering::indent_forward_since(size_t line) {
  for (size_t i = line; i < forward_.size(); ++i) forward_[i] = "    " + forward_[i];
}

}  // namespace drtriton::codegen
