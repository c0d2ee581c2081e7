// Element expressions: what a kernel computes for one value at an index, the loads of
// buffers, the layout ops as index arithmetic, dropout, pooling windows and depthwise
// convolutions.
#include <cmath>
#include <functional>
#include <numeric>
#include <set>

#include "codegen/lowering.h"

namespace drtriton::codegen {

std::string Lowering::load(Kernel& k, const std::string& var, ValueId v, const Index& idx) {
  std::vector<std::string> shape = shape_of(v);
  std::string offset =
      !idx.linear.empty() &&
              idx.linear_shape == (channels_last_.count(var) ? channels_last_shape(shape) : shape)
          ? idx.linear
      : channels_last_.count(var) ? linearize(k, memory_order(idx.dims), memory_order(shape))
                                  : linearize(k, idx.dims, shape);
  return load_at(k, var, offset, load_mask(idx, idx.dims),
                 is_floating(g_.value(v).type.dtype) ? "0.0" : "0", low_precision(v));
}

// The index of input `in` that an elementwise op reads for its output index: broadcast
// dims (size 1 in the input, not in the output) read element 0.
Index Lowering::broadcast_index(ValueId in, ValueId out, const Index& idx) {
  const Shape& si = g_.value(in).type.shape;
  const Shape& so = g_.value(out).type.shape;
  Index r{{}, idx.mask, "", {}, idx.outer_mask, idx.invariant};
  size_t lead = so.size() - si.size();
  for (size_t d = 0; d < si.size(); ++d) {
    r.dims.push_back(si[d] == 1 && so[d + lead] != 1 ? "0" : idx.dims[d + lead]);
  }
  if (si == so) {
    r.linear = idx.linear;
    r.linear_shape = idx.linear_shape;
  }
  return r;
}

std::string Lowering::emit(Kernel& k, ValueId v, const Index& idx) {
  auto row_value = row_values_.find(v);
  if (row_value != row_values_.end()) return row_value->second;
  auto b = buffers_.find(v);
  if (b != buffers_.end()) return load(k, b->second.var, v, idx);
  const Value& val = g_.value(v);
  if (val.kind != ValueKind::Node) {
    throw IrError("codegen: %" + val.name + " has no buffer");
  }
  std::string key = value_key(v, idx);
  if (const std::string* t = k.find(key)) return *t;
  k.touch(val.node);
  std::string t = emit_node(k, g_.nodes()[val.node], idx);
  k.remember(key, t);
  return t;
}

// torch.arange's element at its index: start + index * step, in integers where the result and
// both numbers are integers (exact at any size), else in fp32 and cast as PyTorch casts.
std::string Lowering::arange_value(Kernel& k, const Node& n, const Index& idx) {
  std::string i = idx.dims.at(0);
  // A literal index (a size-1 dim) would make a Python number: make it a block.
  if (is_digits(i)) i = "(" + idx.mask + ").to(tl.int32) * 0 + " + i;
  double start = attr_float(n.attrs, "start"), step = attr_float(n.attrs, "step");
  DType dtype = g_.value(n.output).type.dtype;
  auto whole = [](double x) { return x == std::floor(x) && std::abs(x) < 1e15; };
  if (!is_floating(dtype) && whole(start) && whole(step)) {
    auto integer = [](double x) { return std::to_string(static_cast<int64_t>(x)); };
    return k.assign(
        cast_to(DType::I64, dtype,
                "((" + i + ").to(tl.int64) * " + integer(step) + " + " + integer(start) + ")"));
  }
  return k.assign(cast_to(
      DType::F32, dtype,
      "((" + i + ").to(tl.float32) * " + float_literal(step) + " + " + float_literal(start) + ")"));
}

std::string Lowering::emit_node(Kernel& k, const Node& n, const Index& idx) {
  const OpSchema& s = n.schema();
  ValueId out = n.output;
  if (n.op == Op::Triu || n.op == Op::Tril) {  // zero on one side of a diagonal
    std::string x = emit(k, n.inputs[0], idx);
    size_t r = idx.dims.size();
    std::string row = idx.dims[r - 2], col = idx.dims[r - 1];
    // Literal indices (size-1 dims) would make the condition a Python bool: make it a block.
    if (is_digits(row) && is_digits(col)) col = "(" + idx.mask + ").to(tl.int32) * 0 + " + col;
    std::string diagonal = std::to_string(attr_int(n.attrs, "diagonal"));
    std::string keep =
        "(" + col + " - " + row + (n.op == Op::Triu ? " >= " : " <= ") + diagonal + ")";
    if (g_.value(out).type.dtype == DType::Bool) return k.assign(keep + " & (" + x + ")");
    return k.assign("tl.where(" + keep + ", " + x + ", 0.0)");
  }
  if (n.op == Op::NllLoss) {  // per target, or a reduction's sum (over its count, for a mean)
    const std::string& reduction = attr_str(n.attrs, "reduction");
    if (reduction == "none") return nll_term(k, n, idx, false);
    const std::vector<std::string>& st = stats_.at(out);
    std::string sum = load_at(k, st[0], "0", idx.mask, "0.0");
    return reduction == "sum" ? sum
                              : k.assign(sum + " / " + load_at(k, st[1], "0", idx.mask, "1.0"));
  }
  if (n.op == Op::Full) {  // one value everywhere, as a block shaped like the mask
    const std::string& m = idx.mask;
    double value = attr_float(n.attrs, "value");
    if (g_.value(out).type.dtype == DType::Bool)
      return k.assign("(" + m + ") " + (value != 0 ? "==" : "!=") + " (" + m + ")");
    std::string v = float_literal(value);
    // An fp16 or bf16 tensor holds the value rounded to its precision (-0.1 is not -0.1).
    DType dtype = g_.value(out).type.dtype;
    return k.assign(cast_to(DType::F32, dtype, "tl.where(" + m + ", " + v + ", " + v + ")"));
  }
  if (n.op == Op::Arange) return arange_value(k, n, idx);
  if (s.category == Category::Unary || s.category == Category::Binary) {
    std::vector<std::string> args;
    for (ValueId in : n.inputs) args.push_back(emit(k, in, broadcast_index(in, out, idx)));
    // A number computed from sizes (`x / x.size(0)`) is a kernel argument, like a dim.
    std::map<std::string, std::string> scalars;
    for (const auto& [attr, expr] : n.sym_attrs) scalars[attr] = k.size(dim_var(expr));
    if (is_integer_clamp(g_, n))
      for (const char* bound : {"min", "max"})
        if (n.attrs.count(bound) && !scalars.count(bound))
          scalars[bound] = std::to_string(static_cast<int64_t>(attr_float(n.attrs, bound)));
    return k.assign(pointwise_formula(n, args, helpers_, scalars));
  }
  if (is_depthwise_conv(n)) return emit_depthwise_conv(k, n, idx);
  if (s.category == Category::Anchor) {  // library result plus its bias
    std::string acc = load(k, raw_.at(out), out, idx);
    if (n.op == Op::Addmm) {
      ValueId bias = n.inputs[0];
      return k.assign(acc + " + " + emit(k, bias, broadcast_index(bias, out, idx)));
    }
    // The bias is per output feature (a Linear's last dim) or per channel (dim 1).
    std::string bias = param_var(n, "bias");
    int channel = n.op == Op::Linear ? static_cast<int>(idx.dims.size()) - 1 : 1;
    std::string b = load_at(k, bias, idx.dims[channel], load_mask(idx, {idx.dims[channel]}), "0.0",
                            low_precision(out));
    return k.assign(acc + " + " + b);
  }
  if (s.category == Category::Normalization) {
    ValueId x = n.inputs[0];
    std::string xv = emit(k, x, idx);
    const ReducePlan& plan = plans_.at(out);
    std::vector<std::string> row_dims = plan.row_of(idx.dims);
    std::string row = linearize(k, row_dims, plan.kept);
    std::vector<std::string> st;
    for (const std::string& var : stats_.at(out))
      st.push_back(load_at(k, var, row, load_mask(idx, row_dims), "1.0"));
    if (n.op == Op::Softmax) return k.assign("tl.exp(" + xv + " - " + st[0] + ") / " + st[1]);
    if (n.op == Op::LogSoftmax) {
      return k.assign(xv + " - " + st[0] + " - tl.log(" + st[1] + ")");
    }
    std::string y = n.op == Op::RmsNorm ? k.assign(xv + " * " + st[0])
                                        : k.assign("(" + xv + " - " + st[0] + ") * " + st[1]);
    // Affine parameters: per channel (batch, group, instance norms) or over the trailing
    // normalized dims (layer and RMS norms).
    bool trailing = n.op == Op::LayerNorm || n.op == Op::RmsNorm;
    std::vector<ParamSpec> params = g_.node_params(n);
    for (const ParamSpec& p : params) {
      if (p.is_buffer) continue;
      std::string rel = p.name.substr(n.module.size() + 1);
      std::string var = param_var(n, rel);
      std::vector<std::string> pdims, pshape;
      if (trailing) {
        size_t r = p.type.shape.size();
        pdims.assign(idx.dims.end() - r, idx.dims.end());
        std::vector<std::string> full = shape_of(out);
        pshape.assign(full.end() - r, full.end());
      } else {
        pdims = {idx.dims[1]};
        pshape = {shape_of(out)[1]};
      }
      std::string off = linearize(k, pdims, pshape);
      std::string pv = load_at(k, var, off, load_mask(idx, pdims), "0.0", low_precision(out));
      y = k.assign(rel == "weight" ? y + " * " + pv : y + " + " + pv);
    }
    return y;
  }
  if (s.category == Category::Pooling) return emit_pool(k, n, idx);
  if (s.category == Category::Layout) {
    ValueId in = n.inputs.empty() ? -1 : n.inputs[0];
    std::vector<std::string> ishape = in >= 0 ? shape_of(in) : std::vector<std::string>{};
    std::vector<std::string> oshape = shape_of(out);
    switch (n.op) {
      case Op::Dropout:
      case Op::Dropout2d:
      case Op::Dropout3d:
      case Op::AlphaDropout:
        if (drops(n)) return emit_dropout(k, n, idx);
        [[fallthrough]];
      case Op::Clone:
      case Op::Contiguous:
      case Op::Identity: return emit(k, in, idx);
      case Op::Cast: {
        std::string x = emit(k, in, idx);
        std::string y = cast_to(g_.value(in).type.dtype, g_.value(out).type.dtype, x);
        return y == x ? x : k.assign(y);
      }
      case Op::Permute:
      case Op::Transpose: {
        std::vector<int64_t> perm;
        if (n.op == Op::Permute) {
          perm = attr_ints(n.attrs, "dims");
        } else {
          perm.resize(oshape.size());
          std::iota(perm.begin(), perm.end(), 0);
          std::swap(perm[attr_int(n.attrs, "dim0")], perm[attr_int(n.attrs, "dim1")]);
        }
        Index r{std::vector<std::string>(ishape.size()), idx.mask, "", {}};
        for (size_t d = 0; d < perm.size(); ++d) r.dims[perm[d]] = idx.dims[d];
        return emit(k, in, r);
      }
      case Op::Flip: {
        Index r{idx.dims, idx.mask, "", {}};
        for (int64_t d : attr_ints(n.attrs, "dims")) r.dims[d] = k.flipped(ishape[d], idx.dims[d]);
        return emit(k, in, r);
      }
      case Op::Slice: {  // input index = start + i * step, start counted from the end if < 0
        int64_t d = attr_int(n.attrs, "dim"), start = attr_int(n.attrs, "start");
        int64_t step = attr_int(n.attrs, "step");
        std::string first = start >= 0
                                ? std::to_string(start)
                                : "(" + k.size(ishape[d]) + " - " + std::to_string(-start) + ")";
        Index r{idx.dims, idx.mask, "", {}};
        r.dims[d] = "(" + first + " + " + idx.dims[d] +
                    (step == 1 ? "" : " * " + std::to_string(step)) + ")";
        return emit(k, in, r);
      }
      case Op::Select: {
        int64_t d = attr_int(n.attrs, "dim"), index = attr_int(n.attrs, "index");
        Index r{idx.dims, idx.mask, "", {}};
        std::string at = reads_step(n) ? k.size(kStep)
                         : index >= 0
                             ? std::to_string(index)
                             : "(" + k.size(ishape[d]) + " - " + std::to_string(-index) + ")";
        r.dims.insert(r.dims.begin() + d, at);
        return emit(k, in, r);
      }
      case Op::Expand: return emit(k, in, broadcast_index(in, out, idx));
      case Op::Embedding: {  // row ids[i...] of the weight; an id out of range reads 0
        Index r{idx.dims, idx.mask, "", {}};
        std::string column = r.dims.back();
        r.dims.pop_back();
        std::string id = emit(k, in, r);
        std::string rows = std::to_string(attr_int(n.attrs, "num_embeddings"));
        std::string width = std::to_string(attr_int(n.attrs, "embedding_dim"));
        std::string valid = k.assign("(" + id + " >= 0) & (" + id + " < " + rows + ")");
        return load_at(k, param_var(n, "weight"), id + " * " + width + " + " + column,
                       "(" + idx.mask + ") & " + valid, "0.0", low_precision(out));
      }
      case Op::IndexSelect:
      case Op::Gather: {
        // index_select: out[a, j..., b] = in[a, index[j...], b]; gather: out[i] =
        // in[i with i[dim] = index[i]]. A negative index counts from the end (x[-1]); one
        // out of range reads 0 rather than outside the tensor.
        const int64_t d = attr_int(n.attrs, "dim");
        const int span = n.op == Op::Gather ? 0 : g_.value(n.inputs[1]).type.rank();
        Index at = idx;  // gather's index has the output's shape
        if (n.op == Op::IndexSelect)
          at = Index{{idx.dims.begin() + d, idx.dims.begin() + d + span}, idx.mask, "", {}};
        std::string i = emit(k, n.inputs[1], at), size = k.size(ishape[d]);
        i = k.assign("tl.where(" + i + " < 0, " + i + " + " + size + ", " + i + ")");
        std::string valid = k.assign("(" + i + " >= 0) & (" + i + " < " + size + ")");
        Index r{idx.dims, "(" + idx.mask + ") & " + valid, "", {}};
        r.dims.erase(r.dims.begin() + d, r.dims.begin() + d + (span ? span : 1));
        r.dims.insert(r.dims.begin() + d, i);
        return emit(k, in, r);
      }
      case Op::Roll: {  // out[i] = in[(i - shift) mod n], with (-shift) mod n taken in Python
        Index r{idx.dims, idx.mask, "", {}};
        auto shifts = attr_ints(n.attrs, "shifts"), dims = attr_ints(n.attrs, "dims");
        for (size_t j = 0; j < dims.size(); ++j) {
          const std::string& len = ishape[dims[j]];
          std::string back =
              is_digits(len) ? std::to_string(((-shifts[j]) % std::stoll(len) + std::stoll(len)) %
                                              std::stoll(len))
                             : dim_var("(" + std::to_string(-shifts[j]) + ") % " + len);
          r.dims[dims[j]] =
              "((" + r.dims[dims[j]] + " + " + k.size(back) + ") % " + k.size(len) + ")";
        }
        return emit(k, in, r);
      }
      case Op::Pad: {
        // Constant: in[i - left] where that is inside the input, else the value. The other
        // modes fold i - left back inside: mirrored (reflect), clamped (replicate) or
        // wrapped (circular).
        auto amounts = attr_ints(n.attrs, "pad");
        const std::string mode = attr_str(n.attrs, "mode");
        Index r{idx.dims, idx.mask, "", {}};
        std::string inside;
        for (size_t j = 0; j < amounts.size() / 2; ++j) {
          size_t d = ishape.size() - 1 - j;
          std::string at = "(" + idx.dims[d] + " - " + std::to_string(amounts[2 * j]) + ")";
          std::string size = k.size(ishape[d]);
          if (mode == "constant") {
            r.dims[d] = at;
            inside += (inside.empty() ? "(" : " & (") + at + " >= 0) & (" + at + " < " + size + ")";
          } else if (amounts[2 * j] != 0 || amounts[2 * j + 1] != 0) {
            at = k.assign(at);
            r.dims[d] = k.assign(
                mode == "reflect"
                    ? "tl.where(" + at + " < 0, -" + at + ", tl.where(" + at + " >= " + size +
                          ", 2 * (" + size + " - 1) - " + at + ", " + at + "))"
                : mode == "replicate" ? "tl.minimum(tl.maximum(" + at + ", 0), " + size + " - 1)"
                                      : "(" + at + " % " + size + " + " + size + ") % " + size);
          }
        }
        if (mode != "constant") return emit(k, in, r);
        inside = k.assign(inside);
        r.mask = "(" + idx.mask + ") & " + inside;
        std::string v = emit(k, in, r);
        return k.assign("tl.where(" + inside + ", " + v + ", " +
                        float_literal(attr_float(n.attrs, "value")) + ")");
      }
      case Op::Upsample2d: {
        // PyTorch's source coordinates, in float32 as it computes them: nearest reads
        // min(floor(dst * step), in - 1); bilinear weighs the two neighbours of
        // max((dst + 0.5) * step - 0.5, 0) (dst * step with align_corners).
        const bool bilinear = attr_str(n.attrs, "mode") == "bilinear";
        const bool corners = bilinear && attr_bool(n.attrs, "align_corners");
        std::vector<std::string> lo(2), hi(2), frac(2);
        for (int j = 0; j < 2; ++j) {
          const int d = 2 + j;
          std::string in_size = k.size(ishape[d]), out_size = k.size(oshape[d]);
          double given = attr_float(n.attrs, j == 0 ? "scale_h" : "scale_w");
          std::string step = corners     ? "((" + in_size + " - 1) / max(" + out_size + " - 1, 1))"
                             : given > 0 ? float_literal(given)
                                         : "(" + in_size + " / " + out_size + ")";
          std::string dst = idx.dims[d] + ".to(tl.float32)";
          if (!bilinear) {
            lo[j] = k.assign("tl.minimum(tl.floor(" + dst + " * " + step + ").to(tl.int32), " +
                             in_size + " - 1)");
            continue;
          }
          std::string src =
              k.assign(corners ? dst + " * " + step
                               : "tl.maximum((" + dst + " + 0.5) * " + step + " - 0.5, 0.0)");
          lo[j] = k.assign(src + ".to(tl.int32)");  // src >= 0: truncation is floor
          hi[j] = k.assign("tl.minimum(" + lo[j] + " + 1, " + in_size + " - 1)");
          frac[j] = k.assign(src + " - " + lo[j] + ".to(tl.float32)");
        }
        auto at = [&](const std::string& h, const std::string& w) {
          Index r{idx.dims, idx.mask, "", {}};
          r.dims[2] = h;
          r.dims[3] = w;
          return emit(k, in, r);
        };
        if (!bilinear) return at(lo[0], lo[1]);
        std::string top = k.assign("(1.0 - " + frac[1] + ") * " + at(lo[0], lo[1]) + " + " +
                                   frac[1] + " * " + at(lo[0], hi[1]));
        std::string bottom = k.assign("(1.0 - " + frac[1] + ") * " + at(hi[0], lo[1]) + " + " +
                                      frac[1] + " * " + at(hi[0], hi[1]));
        return k.assign("(1.0 - " + frac[0] + ") * " + top + " + " + frac[0] + " * " + bottom);
      }
      case Op::Cat: {
        int dim = static_cast<int>(attr_int(n.attrs, "dim"));
        std::string offset = "0";
        std::string result;
        for (size_t i = 0; i < n.inputs.size(); ++i) {
          ValueId part = n.inputs[i];
          std::string len = k.size(shape_of(part)[dim]);
          std::string end = offset == "0" ? len : "(" + offset + " + " + len + ")";
          std::string inside = k.assign("(" + idx.dims[dim] + " >= " + offset + ") & (" +
                                        idx.dims[dim] + " < " + end + ")");
          Index r = idx;
          r.linear.clear();
          r.dims[dim] = offset == "0" ? idx.dims[dim] : "(" + idx.dims[dim] + " - " + offset + ")";
          r.mask = "(" + idx.mask + ") & " + inside;
          std::string v = emit(k, part, r);
          result =
              result.empty() ? v : k.assign("tl.where(" + inside + ", " + v + ", " + result + ")");
          offset = end;
        }
        return result;
      }
      default: {  // reshape, flatten, squeeze, unsqueeze: the same elements in the same order
        Index r{{}, idx.mask, idx.linear, idx.linear_shape};
        std::string lin = !idx.linear.empty() && idx.linear_shape == oshape
                              ? idx.linear
                              : linearize(k, idx.dims, oshape);
        if (lin != "0") lin = k.assign(lin);
        r.dims = decompose(k, lin, ishape);
        r.linear = lin;
        r.linear_shape = ishape;
        return emit(k, in, r);
      }
    }
  }
  throw IrError("codegen: no lowering for " + s.name);
}

// Dropout in training mode, as nn.Dropout: each element zeroed with probability p, the others
// scaled by 1/(1-p). The uniform number is Philox's (tl.rand) at the element's offset in the
// dropout's output, keyed by the node's seed, which the forward draws from PyTorch's
// generator on every call: every kernel that recomputes the value draws the same mask, and
// torch.manual_seed makes a run reproducible. In eval mode TRAINING is False and the value
// is the input (a branch on a constexpr: nothing of it is compiled).
std::string Lowering::emit_dropout(Kernel& k, const Node& n, const Index& idx) {
  std::string x = emit(k, n.inputs[0], idx);
  std::vector<std::string> shape = shape_of(n.output);
  // The random number's offset: the element's, or for whole channels its (sample, channel).
  std::string offset;
  if (n.op == Op::Dropout2d || n.op == Op::Dropout3d) {
    offset = linearize(k, {idx.dims[0], idx.dims[1]}, {shape[0], shape[1]});
  } else {
    offset = !idx.linear.empty() && idx.linear_shape == shape ? idx.linear
                                                              : linearize(k, idx.dims, shape);
  }
  // tl.rand takes a block of offsets: a literal one (a single element) is made one.
  if (is_digits(offset)) offset = "(" + idx.mask + ").to(tl.int32) * 0 + " + offset;
  int node = static_cast<int>(&n - g_.nodes().data());
  int slot = dropout_slots_.emplace(node, static_cast<int>(dropout_slots_.size())).first->second;
  double p = attr_float(n.attrs, "p");
  std::string keep = "tl.rand(" + k.dropout_seed(slot) + ", " + offset + ") >= " + float_literal(p);
  if (n.op == Op::AlphaDropout) {
    // PyTorch's alpha dropout: kept a * x + b, dropped a * alpha' + b, with alpha' = -1.758...
    // (SELU's negative saturation), a = ((1 - p)(1 + p alpha'^2))^-1/2, b = -a alpha' p.
    const double alpha = 1.7580993408473766;
    double a = 1.0 / std::sqrt((alpha * alpha * p + 1) * (1 - p));
    return k.assign("tl.where(" + keep + ", " + x + " * " + float_literal(a) + " + " +
                    float_literal(alpha * a * p) + ", " + float_literal(-alpha * a * (1 - p)) +
                    ") if TRAINING else " + x);
  }
  return k.assign("tl.where(" + keep + ", " + x + " * " + float_literal(1.0 / (1.0 - p)) +
                  ", 0.0) if TRAINING else " + x);
}

namespace {

// A window's output index along one dim. A literal one (a size-1 dim) would make the
// window's bounds Python constants, and a block mask cannot be combined with a Python bool:
// it becomes a block of indices.
std::string window_index(Kernel& k, const Index& idx, const std::string& o) {
  return is_digits(o) ? k.assign("(" + idx.mask + ").to(tl.int32) * 0 + " + o) : o;
}

// The dims before the window's (from `first` on) are the same at every position of it (in
// a window inside another, only those the outer one kept).
std::set<std::string> outside_window(const Index& idx, int first) {
  std::set<std::string> same;
  for (int d = 0; d < first; ++d) {
    if (idx.outer_mask.empty() || idx.invariant.count(idx.dims[d])) same.insert(idx.dims[d]);
  }
  return same;
}

// The offsets of a window (kernel, stride, padding, dilation; output length PyTorch's
// window_out) that stay inside an input of any length at every output position: from the
// padding on, and up to dilation * (kernel - 1) - padding, where the last output's window
// ends at most `padding` past the input. In ceil mode the last window only starts inside it.
WindowDim sliding_window(std::string start, std::string stop, int64_t kernel, int64_t padding,
                         int64_t dilation, bool ceil_mode) {
  int64_t last = ceil_mode ? 0 : dilation * (kernel - 1) - padding;
  return {std::move(start), std::move(stop), kernel, dilation, padding, last};
}

// Each position of a window over the trailing dims of `idx`, in order. `visit` gets the index
// the input is read at (masked where it is not valid) and the validity ("" where every
// position of the window is inside the input).
void for_each_position(Kernel& k, const Index& idx, const std::vector<WindowDim>& window,
                       const std::set<std::string>& same,
                       const std::function<void(const Index&, const std::string&)>& visit) {
  int sp = static_cast<int>(window.size());
  int first = static_cast<int>(idx.dims.size()) - sp;
  int64_t positions = 1;
  for (const WindowDim& w : window) positions *= w.size;
  for (int64_t p = 0; p < positions; ++p) {
    Index r = idx;
    r.linear.clear();
    r.outer_mask = idx.outer_mask.empty() ? idx.mask : idx.outer_mask;
    r.invariant = same;
    std::vector<std::string> conds;
    int64_t rest = p;
    for (int d = sp - 1; d >= 0; --d) {
      const WindowDim& w = window[d];
      int64_t off = rest % w.size * w.dilation;
      rest /= w.size;
      std::string pos = named(k, offset_by(w.start, off));
      if (off < w.first_inside) conds.push_back("(" + pos + " >= 0)");
      if (off > w.last_inside) conds.push_back("(" + pos + " < " + w.stop + ")");
      r.dims[first + d] = pos;
    }
    std::string valid = conds.empty() ? "" : k.assign(join(conds, " & "));
    if (!valid.empty()) r.mask = "(" + idx.mask + ") & " + valid;
    visit(r, valid);
  }
}

}  // namespace

// A pooling window, unrolled: each position reads the input expression, masked where the
// window may leave the input (padding, ceil mode, adaptive bounds).
std::string Lowering::emit_pool(Kernel& k, const Node& n, const Index& idx) {
  ValueId in = n.inputs[0];
  std::vector<std::string> ishape = shape_of(in);
  const Shape& ocon = g_.value(n.output).type.shape;
  const Shape& icon = g_.value(in).type.shape;
  int rank = static_cast<int>(ishape.size());
  bool adaptive = n.op == Op::AdaptiveAvgPool2d || n.op == Op::AdaptiveAvgPool3d;
  bool is_max = n.op == Op::MaxPool1d || n.op == Op::MaxPool2d || n.op == Op::MaxPool3d;
  bool ceil_mode = !adaptive && attr_bool(n.attrs, "ceil_mode");
  int sp = adaptive ? static_cast<int>(attr_ints(n.attrs, "output_size").size())
                    : static_cast<int>(attr_ints(n.attrs, "kernel_size").size());
  int first = rank - sp;
  std::vector<WindowDim> window(sp);
  std::vector<std::string> sizes;  // an average's divisor, a factor a dim
  for (int d = 0; d < sp; ++d) {
    std::string o = window_index(k, idx, idx.dims[first + d]);
    std::string len = k.size(ishape[first + d]);
    if (adaptive) {
      int64_t out_n = ocon[first + d];
      std::string start = k.assign("(" + o + " * " + len + ") // " + std::to_string(out_n));
      std::string stop = k.assign("((" + o + " + 1) * " + len + " + " + std::to_string(out_n - 1) +
                                  ") // " + std::to_string(out_n));
      // Where the size is fixed, the windows' widths are known (17 -> 7 has 3 and 4): as many
      // positions as the widest, and no check within the narrowest.
      int64_t len_n = icon[first + d], narrowest = len_n, widest = 0;
      for (int64_t i = 0; i < out_n; ++i) {
        int64_t width = ((i + 1) * len_n + out_n - 1) / out_n - i * len_n / out_n;
        narrowest = std::min(narrowest, width);
        widest = std::max(widest, width);
      }
      window[d] = {start, stop, widest, 1, 0, narrowest - 1};
      sizes.push_back("(" + stop + " - " + start + ")");
      continue;
    }
    int64_t ks = attr_ints(n.attrs, "kernel_size")[d];
    int64_t st = attr_ints(n.attrs, "stride")[d];
    int64_t pad = attr_ints(n.attrs, "padding")[d];
    int64_t dilation = is_max ? attr_ints(n.attrs, "dilation")[d] : 1;
    std::string start = named(k, offset_by(scaled(o, st), -pad));
    window[d] = sliding_window(start, len, ks, pad, dilation, ceil_mode);
    if (is_max) continue;
    if (!attr_bool(n.attrs, "count_include_pad")) {  // the positions inside the input
      sizes.push_back(k.assign("tl.minimum(" + offset_by(start, ks) + ", " + len +
                               ") - tl.maximum(" + start + ", 0)"));
    } else if (ceil_mode) {  // padding counts, but not a ceil-mode window past it
      sizes.push_back(k.assign("tl.minimum(" + offset_by(start, ks) + ", " + offset_by(len, pad) +
                               ") - " + start));
    } else {
      sizes.push_back(std::to_string(ks));
    }
  }
  // An adaptive window over a size known only at run time has a width known only then:
  // loops over the widest window, masked past each window's own stop.
  bool runtime_window = false;
  for (int d = 0; adaptive && d < sp; ++d)
    runtime_window = runtime_window || !is_digits(ishape[first + d]);
  std::string acc;
  if (runtime_window) {
    acc = adaptive_window_sum(k, n, idx, window);
  } else {
    for_each_position(
        k, idx, window, outside_window(idx, first), [&](const Index& r, const std::string& valid) {
          std::string v = emit(k, in, r);
          std::string term = valid.empty() ? v
                             : is_max      ? "tl.where(" + valid + ", " + v + ", float('-inf'))"
                                           : "tl.where(" + valid + ", " + v + ", 0.0)";
          acc = acc.empty() ? k.assign(term)
                : is_max    ? k.assign("tl.maximum(" + acc + ", " + term + ")")
                            : k.assign(acc + " + " + term);
        });
  }
  if (is_max) return acc;
  bool constant = std::all_of(sizes.begin(), sizes.end(), is_digits);
  if (constant) {
    int64_t count = 1;
    for (const std::string& f : sizes) count *= std::stoll(f);
    return k.assign(acc + " / " + std::to_string(count) + ".0");
  }
  return k.assign(acc + " / (" + join(sizes, " * ") + ").to(tl.float32)");
}

// A depthwise convolution, unrolled like a pool's window: output channel c reads input
// channel c // (out_channels / groups), each position its input times the weight
// w[c, 0, position], zero where the window leaves the input (padding); plus the bias.
std::string Lowering::emit_depthwise_conv(Kernel& k, const Node& n, const Index& idx) {
  ValueId in = n.inputs[0];
  std::vector<std::string> ishape = shape_of(in);
  const std::vector<int64_t>& ks = attr_ints(n.attrs, "kernel_size");
  int sp = static_cast<int>(ks.size());
  int first = static_cast<int>(ishape.size()) - sp;
  bool widen = low_precision(n.output);
  int64_t positions = conv_positions(n);
  int64_t per_group = attr_int(n.attrs, "out_channels") / attr_int(n.attrs, "groups");
  std::string channel = idx.dims[1];
  std::string weight = param_var(n, "weight");
  std::vector<WindowDim> window(sp);
  for (int d = 0; d < sp; ++d) {
    std::string o = window_index(k, idx, idx.dims[first + d]);
    int64_t pad = attr_ints(n.attrs, "padding")[d];
    std::string start = named(k, offset_by(scaled(o, attr_ints(n.attrs, "stride")[d]), -pad));
    window[d] = sliding_window(start, k.size(ishape[first + d]), ks[d], pad,
                               attr_ints(n.attrs, "dilation")[d], /*ceil_mode=*/false);
  }
  std::set<std::string> same = outside_window(idx, first);
  std::string in_channel = attr_int(n.attrs, "in_channels") == 1 ? "0"
                           : per_group == 1                      ? channel
                           : is_digits(channel)
                               ? std::to_string(std::stoll(channel) / per_group)  // x[:, 5]
                               : named(k, channel + " // " + std::to_string(per_group));
  if (same.count(channel)) same.insert(in_channel);
  Index at = idx;
  at.dims[1] = in_channel;
  std::string acc;
  int64_t p = 0;
  for_each_position(k, at, window, same, [&](const Index& r, const std::string& valid) {
    std::string x = emit(k, in, r);
    std::string offset = is_digits(channel) ? std::to_string(std::stoll(channel) * positions + p)
                                            : offset_by(scaled(channel, positions), p);
    ++p;
    std::string w = load_at(k, weight, offset, load_mask(idx, {channel}), "0.0", widen);
    std::string term = (valid.empty() ? x : "tl.where(" + valid + ", " + x + ", 0.0)") + " * " + w;
    acc = k.assign(acc.empty() ? term : acc + " + " + term);
  });
  if (has_param(n, "bias")) {
    std::string b =
        load_at(k, param_var(n, "bias"), channel, load_mask(idx, {channel}), "0.0", widen);
    acc = k.assign(acc + " + " + b);
  }
  // An fp16 or bf16 convolution's output is rounded to its precision, as PyTorch stores it.
  DType dtype = g_.value(n.output).type.dtype;
  return widen ? k.assign(cast_to(DType::F32, dtype, acc)) : acc;
}

// The sum over an adaptive average pool's window, in loops each as wide as the widest window
// of the run-time size (len / out where out divides len, else ceil(len / out) + 1): positions
// past a window's own stop are masked. Sizes given as constants unroll the loops
// (tl.static_range).
std::string Lowering::adaptive_window_sum(Kernel& k, const Node& n, const Index& idx,
                                          const std::vector<WindowDim>& window) {
  ValueId in = n.inputs[0];
  std::vector<std::string> ishape = shape_of(in);
  const Shape& ocon = g_.value(n.output).type.shape;
  int sp = static_cast<int>(window.size());
  int first = static_cast<int>(ishape.size()) - sp;
  // The sum takes the whole index's shape from the start: a loop-carried value must keep
  // its shape, and the window's start may vary along fewer axes than the loads (Triton
  // refuses to compile the loop otherwise; its interpreter does not check).
  std::string zero = "(" + window[0].start + " * 0)";
  if (!idx.mask.empty()) zero = "(" + zero + " + tl.where(" + idx.mask + ", 0, 0))";
  std::string acc = k.assign(zero + ".to(tl.float32)");
  bool unrolled = options_.knobs.sizes == "static";
  std::vector<std::string> pos(sp);
  for (int d = 0; d < sp; ++d) {
    std::string out_n = std::to_string(ocon[first + d]);
    std::string len = k.size(ishape[first + d]);
    std::string widest = "(" + len + " + " + out_n + " - 1) // " + out_n + " + (" + len + " % " +
                         out_n + " + " + out_n + " - 1) // " + out_n;
    pos[d] = k.tmp();
    std::string step = k.tmp();
    k.line("for " + step + " in " + (unrolled ? "tl.static_range(" : "range(0, ") + widest + "):");
    k.push();
    k.line(pos[d] + " = " + window[d].start + " + " + step);
  }
  Index r = idx;
  r.linear.clear();
  r.outer_mask = idx.outer_mask.empty() ? idx.mask : idx.outer_mask;
  r.invariant.clear();
  std::vector<std::string> conds;
  for (int d = 0; d < sp; ++d) {
    conds.push_back("(" + pos[d] + " < " + window[d].stop + ")");
    r.dims[first + d] = pos[d];
  }
  std::string valid = k.assign(join(conds, " & "));
  r.mask = "(" + idx.mask + ") & " + valid;
  std::string v = emit(k, in, r);
  k.line(acc + " = " + acc + " + tl.where(" + valid + ", " + v + ", 0.0)");
  for (int d = 0; d < sp; ++d) k.pop();
  return acc;
}

}  // namespace drtriton::codegen
