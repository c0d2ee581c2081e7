#include "ir/shape_rules.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <string>

#include "ir/error.h"

namespace drtriton::rules {

namespace {

[[noreturn]] void fail(const std::string& message) {
  throw IrError(message);
}

std::string str(int64_t v) {
  return std::to_string(v);
}

// PyTorch's dim convention: -rank <= dim < rank, negative counting from the end.
int64_t normalize_dim(int64_t dim, int rank, const std::string& what) {
  if (dim < -rank || dim >= rank) {
    fail(what + " = " + str(dim) + " is out of range for a tensor of rank " + str(rank));
  }
  return dim < 0 ? dim + rank : dim;
}

void require_rank(const TensorType& t, int rank, const std::string& what) {
  if (t.rank() != rank) {
    fail(what + " must have rank " + str(rank) + ", got " + to_string(t));
  }
}

void require_min_rank(const TensorType& t, int rank, const std::string& what) {
  if (t.rank() < rank) {
    fail(what + " must have rank at least " + str(rank) + ", got " + to_string(t));
  }
}

void require_indices(const TensorType& t, const std::string& what) {
  if (t.dtype != DType::I64 && t.dtype != DType::I32)
    fail(what + " (the indices) must hold integers, got " + to_string(t));
}

void require_same_dtype(const Ins& in) {
  for (size_t i = 1; i < in.size(); ++i) {
    if (in[i].dtype != in[0].dtype) {
      fail("input " + str(i) + " has dtype " + std::string(dtype_name(in[i].dtype)) +
           " but input 0 has " + std::string(dtype_name(in[0].dtype)) +
           " (drtriton does not promote dtypes)");
    }
  }
}

void require_channels(const TensorType& t, int64_t channels, const std::string& attr) {
  if (t.shape[1] != channels) {
    fail("input 0 " + to_string(t) + " has " + str(t.shape[1]) + " channels at dim 1, but " + attr +
         " = " + str(channels));
  }
}

int64_t product(const Shape& s, size_t begin, size_t end) {
  int64_t n = 1;
  for (size_t i = begin; i < end; ++i) n *= s[i];
  return n;
}

// Output length of a sliding window (convolution, pooling) along one dimension.
int64_t window_out(int64_t len, int64_t kernel, int64_t stride, int64_t pad, int64_t dilation,
                   bool ceil_mode) {
  int64_t span = len + 2 * pad - dilation * (kernel - 1) - 1;
  if (span < 0) return 0;
  int64_t out = (ceil_mode ? (span + stride - 1) / stride : span / stride) + 1;
  // A ceil-mode window must start inside the input or its left padding (PyTorch's rule).
  if (ceil_mode && (out - 1) * stride >= len + pad) --out;
  return out;
}

}  // namespace

TensorType same_shape(const Ins& in, Attrs&) {
  return in[0];
}

// Dropout2d/3d draw one number per (sample, channel): the input needs both dims.
TensorType channel_dropout(const Ins& in, Attrs& attrs) {
  if (in[0].rank() < 2) fail("needs an (N, C, ...) input, got " + to_string(in[0]));
  return same_shape(in, attrs);
}

// An integer tensor clamped by a fractional bound is floating in PyTorch; drtriton keeps
// clamp's dtype, so such a bound is refused (bool has no order to clamp by).
TensorType clamp_bounds(const Ins& in, Attrs& attrs) {
  if (in[0].dtype == DType::Bool) fail("input 0 is bool, which clamp cannot order");
  if (!is_floating(in[0].dtype)) {
    for (const char* bound : {"min", "max"}) {
      auto it = attrs.find(bound);
      if (it == attrs.end()) continue;
      double v = attr_float(attrs, bound);
      if (std::floor(v) != v)
        fail(std::string(bound) + " = " + float_to_string(v) +
             " is not an integer, and input 0 is " + to_string(in[0]) +
             " (PyTorch's result would be floating)");
    }
  }
  return in[0];
}

TensorType broadcast(const Ins& in, Attrs&) {
  require_same_dtype(in);
  TensorType out = in[0];
  if (!broadcast_shapes(in[0].shape, in[1].shape, &out.shape)) {
    fail("inputs " + to_string(in[0]) + " and " + to_string(in[1]) + " do not broadcast");
  }
  return out;
}

TensorType compare(const Ins& in, Attrs& attrs) {
  TensorType out = broadcast(in, attrs);
  out.dtype = DType::Bool;
  return out;
}

TensorType compare_scalar(const Ins& in, Attrs&) {
  return {DType::Bool, in[0].shape};
}

TensorType full(const Ins&, Attrs& attrs) {
  TensorType out{DType::F32, attr_ints(attrs, "size")};
  parse_dtype(attr_str(attrs, "dtype"), &out.dtype);  // one of the attribute's choices
  return out;
}

TensorType arange(const Ins&, Attrs& attrs) {
  double start = attr_float(attrs, "start"), end = attr_float(attrs, "end");
  double step = attr_float(attrs, "step");
  if (step == 0) fail("step = 0");
  double n = std::ceil((end - start) / step);  // torch.arange's length
  if (!(n >= 1))
    fail("arange(" + float_to_string(start) + ", " + float_to_string(end) + ", " +
         float_to_string(step) + ") is empty");
  TensorType out{DType::I64, {static_cast<int64_t>(n)}};
  parse_dtype(attr_str(attrs, "dtype"), &out.dtype);  // one of the attribute's choices
  return out;
}

TensorType cast(const Ins& in, Attrs& attrs) {
  TensorType out = in[0];
  parse_dtype(attr_str(attrs, "dtype"), &out.dtype);  // one of the attribute's choices
  return out;
}

TensorType div_scalar(const Ins& in, Attrs& attrs) {
  if (attr_float(attrs, "other") == 0) fail("division by the scalar 0");
  return in[0];
}

TensorType where(const Ins& in, Attrs&) {
  if (in[0].dtype != DType::Bool) {
    fail("input 0 (the condition) must be bool, got " + to_string(in[0]));
  }
  require_same_dtype({in[1], in[2]});
  TensorType out = in[1];
  Shape s;
  if (!broadcast_shapes(in[0].shape, in[1].shape, &s) ||
      !broadcast_shapes(s, in[2].shape, &out.shape)) {
    fail("inputs " + to_string(in[0]) + ", " + to_string(in[1]) + " and " + to_string(in[2]) +
         " do not broadcast");
  }
  return out;
}

TensorType linear(const Ins& in, Attrs& attrs) {
  require_min_rank(in[0], 1, "input 0");
  int64_t features = attr_int(attrs, "in_features");
  if (in[0].shape.back() != features) {
    fail("input 0 " + to_string(in[0]) + " has " + str(in[0].shape.back()) +
         " features in its last dim, but in_features = " + str(features));
  }
  TensorType out = in[0];
  out.shape.back() = attr_int(attrs, "out_features");
  return out;
}

TensorType matmul(const Ins& in, Attrs&) {
  require_same_dtype(in);
  require_min_rank(in[0], 1, "input 0");
  require_min_rank(in[1], 1, "input 1");
  // torch.matmul: a 1-d operand gains a dimension (prepended on the left, appended on the
  // right) that the result drops again; leading dims broadcast as batch dims.
  Shape a = in[0].shape, b = in[1].shape;
  bool a_vec = a.size() == 1, b_vec = b.size() == 1;
  if (a_vec) a.insert(a.begin(), 1);
  if (b_vec) b.push_back(1);
  int64_t k = a.back();
  if (b[b.size() - 2] != k) {
    fail("inputs " + to_string(in[0]) + " and " + to_string(in[1]) +
         " cannot be multiplied: inner dims " + str(k) + " and " + str(b[b.size() - 2]) +
         " differ");
  }
  Shape batch;
  Shape a_batch(a.begin(), a.end() - 2), b_batch(b.begin(), b.end() - 2);
  if (!broadcast_shapes(a_batch, b_batch, &batch)) {
    fail("the batch dims of " + to_string(in[0]) + " and " + to_string(in[1]) +
         " do not broadcast");
  }
  Shape out = batch;
  if (!a_vec) out.push_back(a[a.size() - 2]);
  if (!b_vec) out.push_back(b.back());
  return {in[0].dtype, out};
}

TensorType bmm(const Ins& in, Attrs&) {
  require_same_dtype(in);
  require_rank(in[0], 3, "input 0");
  require_rank(in[1], 3, "input 1");
  if (in[0].shape[0] != in[1].shape[0] || in[0].shape[2] != in[1].shape[1]) {
    fail("inputs " + to_string(in[0]) + " and " + to_string(in[1]) +
         " are not [b,n,k] and [b,k,m]");
  }
  return {in[0].dtype, {in[0].shape[0], in[0].shape[1], in[1].shape[2]}};
}

TensorType addmm(const Ins& in, Attrs&) {
  require_same_dtype(in);
  require_rank(in[1], 2, "input 1");
  require_rank(in[2], 2, "input 2");
  if (in[1].shape[1] != in[2].shape[0]) {
    fail("inputs 1 and 2 " + to_string(in[1]) + " and " + to_string(in[2]) +
         " are not [n,k] and [k,m]");
  }
  Shape out = {in[1].shape[0], in[2].shape[1]}, b;
  if (in[0].rank() > 2 || !broadcast_shapes(in[0].shape, out, &b) || b != out) {
    fail("input 0 (the bias) " + to_string(in[0]) + " does not broadcast to " + shape_string(out));
  }
  return {in[0].dtype, out};
}

namespace {

// Common checks of convolutions; returns the spatial rank.
int check_conv(const TensorType& x, const Attrs& attrs) {
  const auto& kernel = attr_ints(attrs, "kernel_size");
  int spatial = static_cast<int>(kernel.size());
  require_rank(x, spatial + 2, "input 0");
  int64_t in_ch = attr_int(attrs, "in_channels"), out_ch = attr_int(attrs, "out_channels");
  int64_t groups = attr_int(attrs, "groups");
  require_channels(x, in_ch, "in_channels");
  if (in_ch % groups != 0 || out_ch % groups != 0) {
    fail("groups = " + str(groups) + " must divide in_channels = " + str(in_ch) +
         " and out_channels = " + str(out_ch));
  }
  return spatial;
}

}  // namespace

TensorType sdpa(const Ins& in, Attrs&) {
  require_same_dtype(in);
  if (!is_floating(in[0].dtype)) fail("attention needs floating inputs, got " + to_string(in[0]));
  const char* names[] = {"query", "key", "value"};
  for (int i = 0; i < 3; ++i) require_min_rank(in[i], 2, names[i]);
  const Shape &q = in[0].shape, &k = in[1].shape, &v = in[2].shape;
  const size_t r = q.size();
  // PyTorch broadcasts the batch dims of the math path only; its fused kernels, and ours,
  // take one batch shape.
  if (k.size() != r || v.size() != r || !std::equal(q.begin(), q.end() - 2, k.begin()) ||
      !std::equal(q.begin(), q.end() - 2, v.begin())) {
    fail("query " + to_string(in[0]) + ", key " + to_string(in[1]) + " and value " +
         to_string(in[2]) + " do not share their batch dims");
  }
  if (k[r - 1] != q[r - 1])
    fail("query and key have head dims " + str(q[r - 1]) + " and " + str(k[r - 1]));
  if (v[r - 2] != k[r - 2])
    fail("key and value have sequence lengths " + str(k[r - 2]) + " and " + str(v[r - 2]));
  Shape out = q;
  out[r - 1] = v[r - 1];
  return {in[0].dtype, out};
}

TensorType conv(const Ins& in, Attrs& attrs) {
  int spatial = check_conv(in[0], attrs);
  const auto &k = attr_ints(attrs, "kernel_size"), &s = attr_ints(attrs, "stride");
  const auto &p = attr_ints(attrs, "padding"), &d = attr_ints(attrs, "dilation");
  TensorType out = in[0];
  out.shape[1] = attr_int(attrs, "out_channels");
  for (int i = 0; i < spatial; ++i) {
    int64_t len = in[0].shape[2 + i];
    out.shape[2 + i] = window_out(len, k[i], s[i], p[i], d[i], false);
    if (out.shape[2 + i] < 1) {
      fail("kernel_size " + str(k[i]) + " (dilation " + str(d[i]) +
           ") is larger than spatial dim " + str(2 + i) + " of input 0 (" + str(len) +
           " plus padding " + str(2 * p[i]) + ")");
    }
  }
  return out;
}

TensorType conv_transpose(const Ins& in, Attrs& attrs) {
  int spatial = check_conv(in[0], attrs);
  const auto &k = attr_ints(attrs, "kernel_size"), &s = attr_ints(attrs, "stride");
  const auto &p = attr_ints(attrs, "padding"), &d = attr_ints(attrs, "dilation");
  const auto& op = attr_ints(attrs, "output_padding");
  TensorType out = in[0];
  out.shape[1] = attr_int(attrs, "out_channels");
  for (int i = 0; i < spatial; ++i) {
    if (op[i] >= std::max(s[i], d[i])) {
      fail("output_padding " + str(op[i]) + " must be smaller than stride or dilation (" +
           str(std::max(s[i], d[i])) + ")");
    }
    int64_t len = (in[0].shape[2 + i] - 1) * s[i] - 2 * p[i] + d[i] * (k[i] - 1) + op[i] + 1;
    if (len < 1) fail("padding " + str(p[i]) + " leaves no output in spatial dim " + str(2 + i));
    out.shape[2 + i] = len;
  }
  return out;
}

namespace {

TensorType reduce_over(const TensorType& x, std::vector<int64_t> dims, bool keepdim) {
  TensorType out = x;
  std::sort(dims.rbegin(), dims.rend());
  for (int64_t d : dims) {
    if (keepdim) {
      out.shape[d] = 1;
    } else {
      out.shape.erase(out.shape.begin() + d);
    }
  }
  return out;
}

}  // namespace

TensorType reduce_dims(const Ins& in, Attrs& attrs) {
  auto dims = attr_ints(attrs, "dim");
  for (auto& d : dims) d = normalize_dim(d, in[0].rank(), "dim");
  std::sort(dims.begin(), dims.end());
  if (std::adjacent_find(dims.begin(), dims.end()) != dims.end()) {
    fail("dim " + attr_to_string(attrs["dim"]) + " names a dimension twice");
  }
  attrs["dim"] = dims;
  return reduce_over(in[0], dims, attr_bool(attrs, "keepdim"));
}

// PyTorch sums integers and bools into int64, exactly.
TensorType sum_dims(const Ins& in, Attrs& attrs) {
  TensorType out = reduce_dims(in, attrs);
  if (!is_floating(out.dtype)) out.dtype = DType::I64;
  return out;
}

TensorType reduce_dim(const Ins& in, Attrs& attrs) {
  int64_t d = normalize_dim(attr_int(attrs, "dim"), in[0].rank(), "dim");
  attrs["dim"] = d;
  return reduce_over(in[0], {d}, attr_bool(attrs, "keepdim"));
}

TensorType arg_reduce(const Ins& in, Attrs& attrs) {
  TensorType out = reduce_dim(in, attrs);
  out.dtype = DType::I64;
  return out;
}

TensorType along_dim(const Ins& in, Attrs& attrs) {
  attrs["dim"] = normalize_dim(attr_int(attrs, "dim"), in[0].rank(), "dim");
  return in[0];
}

namespace {

// Training-mode batch statistics need more than one value per channel.
TensorType batch_norm(const Ins& in, const Attrs& attrs, std::vector<int> ranks) {
  const TensorType& x = in[0];
  if (std::find(ranks.begin(), ranks.end(), x.rank()) == ranks.end()) {
    std::string allowed;
    for (int r : ranks) allowed += (allowed.empty() ? "" : " or ") + str(r);
    fail("input 0 must have rank " + allowed + ", got " + to_string(x));
  }
  require_channels(x, attr_int(attrs, "num_features"), "num_features");
  if (x.numel() / x.shape[1] < 2) {
    fail("input 0 " + to_string(x) +
         " has one value per channel; training-mode batch statistics need more");
  }
  return x;
}

TensorType instance_norm(const Ins& in, const Attrs& attrs, int rank) {
  require_rank(in[0], rank, "input 0");
  // PyTorch checks num_features only where it sizes something (affine weights, running
  // stats); otherwise any channel count normalizes, with a warning.
  if (attr_bool(attrs, "affine") || attr_bool(attrs, "track_running_stats"))
    require_channels(in[0], attr_int(attrs, "num_features"), "num_features");
  if (product(in[0].shape, 2, in[0].shape.size()) < 2) {
    fail("input 0 " + to_string(in[0]) + " has one spatial element; instance norm needs more");
  }
  return in[0];
}

}  // namespace

TensorType batch_norm1d(const Ins& in, Attrs& attrs) {
  return batch_norm(in, attrs, {2, 3});
}
TensorType batch_norm2d(const Ins& in, Attrs& attrs) {
  return batch_norm(in, attrs, {4});
}
TensorType batch_norm3d(const Ins& in, Attrs& attrs) {
  return batch_norm(in, attrs, {5});
}
TensorType instance_norm2d(const Ins& in, Attrs& attrs) {
  return instance_norm(in, attrs, 4);
}
TensorType instance_norm3d(const Ins& in, Attrs& attrs) {
  return instance_norm(in, attrs, 5);
}

TensorType group_norm(const Ins& in, Attrs& attrs) {
  require_min_rank(in[0], 2, "input 0");
  int64_t channels = attr_int(attrs, "num_channels"), groups = attr_int(attrs, "num_groups");
  require_channels(in[0], channels, "num_channels");
  if (channels % groups != 0) {
    fail("num_groups = " + str(groups) + " must divide num_channels = " + str(channels));
  }
  // PyTorch's own check: each group's statistics need more than one value.
  if (in[0].shape[0] * (channels / groups) * product(in[0].shape, 2, in[0].shape.size()) < 2) {
    fail("input 0 " + to_string(in[0]) + " has one value per group; group statistics need more");
  }
  return in[0];
}

TensorType trailing_norm(const Ins& in, Attrs& attrs) {
  const auto& norm_shape = attr_ints(attrs, "normalized_shape");
  const Shape& s = in[0].shape;
  if (norm_shape.size() > s.size() ||
      !std::equal(norm_shape.begin(), norm_shape.end(), s.end() - norm_shape.size())) {
    fail("normalized_shape " + shape_string(norm_shape) + " is not the trailing dims of input 0 " +
         to_string(in[0]));
  }
  return in[0];
}

namespace {

TensorType pool(const Ins& in, Attrs& attrs, bool has_dilation) {
  const auto& k = attr_ints(attrs, "kernel_size");
  int spatial = static_cast<int>(k.size());
  require_rank(in[0], spatial + 2, "input 0");
  const auto &s = attr_ints(attrs, "stride"), &p = attr_ints(attrs, "padding");
  std::vector<int64_t> ones(spatial, 1);
  const auto& d = has_dilation ? attr_ints(attrs, "dilation") : ones;
  bool ceil_mode = attr_bool(attrs, "ceil_mode");
  TensorType out = in[0];
  for (int i = 0; i < spatial; ++i) {
    if (2 * p[i] > k[i]) {
      fail("padding " + str(p[i]) + " must be at most half of kernel_size " + str(k[i]));
    }
    int64_t len = in[0].shape[2 + i];
    out.shape[2 + i] = window_out(len, k[i], s[i], p[i], d[i], ceil_mode);
    if (out.shape[2 + i] < 1) {
      fail("kernel_size " + str(k[i]) + " is larger than spatial dim " + str(2 + i) +
           " of input 0 (" + str(len) + ")");
    }
  }
  return out;
}

}  // namespace

TensorType max_pool(const Ins& in, Attrs& attrs) {
  return pool(in, attrs, true);
}
TensorType avg_pool(const Ins& in, Attrs& attrs) {
  return pool(in, attrs, false);
}

TensorType adaptive_pool(const Ins& in, Attrs& attrs) {
  const auto& size = attr_ints(attrs, "output_size");
  require_rank(in[0], static_cast<int>(size.size()) + 2, "input 0");
  TensorType out = in[0];
  std::copy(size.begin(), size.end(), out.shape.begin() + 2);
  return out;
}

TensorType reshape(const Ins& in, Attrs& attrs) {
  auto shape = attr_ints(attrs, "shape");
  int64_t known = 1;
  int inferred = -1;
  for (size_t i = 0; i < shape.size(); ++i) {
    if (shape[i] == -1) {
      if (inferred >= 0) fail("shape " + shape_string(shape) + " has more than one -1");
      inferred = static_cast<int>(i);
    } else {
      known *= shape[i];
    }
  }
  int64_t numel = in[0].numel();
  if (inferred >= 0 && known > 0 && numel % known == 0) shape[inferred] = numel / known;
  if (product(shape, 0, shape.size()) != numel || (inferred >= 0 && shape[inferred] == -1)) {
    fail("cannot reshape " + to_string(in[0]) + " (" + str(numel) + " elements) to " +
         attr_to_string(attrs["shape"]));
  }
  attrs["shape"] = shape;
  return {in[0].dtype, shape};
}

TensorType flatten(const Ins& in, Attrs& attrs) {
  int rank = std::max(in[0].rank(), 1);
  int64_t start = normalize_dim(attr_int(attrs, "start_dim"), rank, "start_dim");
  int64_t end = normalize_dim(attr_int(attrs, "end_dim"), rank, "end_dim");
  if (start > end) fail("start_dim " + str(start) + " comes after end_dim " + str(end));
  attrs["start_dim"] = start;
  attrs["end_dim"] = end;
  const Shape& s = in[0].shape;
  if (s.empty()) return {in[0].dtype, {1}};
  Shape out(s.begin(), s.begin() + start);
  out.push_back(product(s, start, end + 1));
  out.insert(out.end(), s.begin() + end + 1, s.end());
  return {in[0].dtype, out};
}

TensorType permute(const Ins& in, Attrs& attrs) {
  auto dims = attr_ints(attrs, "dims");
  int rank = in[0].rank();
  if (static_cast<int>(dims.size()) != rank) {
    fail("dims " + shape_string(dims) + " must list all " + str(rank) + " dims of input 0");
  }
  std::vector<bool> seen(rank);
  TensorType out = in[0];
  for (int i = 0; i < rank; ++i) {
    dims[i] = normalize_dim(dims[i], rank, "dims");
    if (seen[dims[i]]) fail("dims " + attr_to_string(attrs["dims"]) + " is not a permutation");
    seen[dims[i]] = true;
    out.shape[i] = in[0].shape[dims[i]];
  }
  attrs["dims"] = dims;
  return out;
}

TensorType flip(const Ins& in, Attrs& attrs) {
  auto dims = attr_ints(attrs, "dims");
  std::vector<bool> seen(in[0].rank());
  for (int64_t& d : dims) {
    d = normalize_dim(d, in[0].rank(), "dims");
    if (seen[d]) fail("dims " + attr_to_string(attrs["dims"]) + " lists a dim twice");
    seen[d] = true;
  }
  attrs["dims"] = dims;
  return in[0];
}

// PyTorch's slice: negative bounds count from the end, then both clamp to [0, size].
TensorType slice(const Ins& in, Attrs& attrs) {
  int64_t d = normalize_dim(attr_int(attrs, "dim"), in[0].rank(), "dim");
  int64_t size = in[0].shape[d], step = attr_int(attrs, "step");
  auto bound = [&](int64_t v) { return std::clamp(v < 0 ? v + size : v, int64_t{0}, size); };
  int64_t start = bound(attr_int(attrs, "start")), end = bound(attr_int(attrs, "end"));
  attrs["dim"] = d;
  TensorType out = in[0];
  out.shape[d] = end > start ? (end - start + step - 1) / step : 0;
  if (out.shape[d] == 0) fail("slice of dim " + str(d) + " of " + to_string(in[0]) + " is empty");
  return out;
}

TensorType select(const Ins& in, Attrs& attrs) {
  int64_t d = normalize_dim(attr_int(attrs, "dim"), in[0].rank(), "dim");
  int64_t size = in[0].shape[d], index = attr_int(attrs, "index");
  if (index < -size || index >= size)
    fail("index " + str(index) + " is out of range for dim " + str(d) + " of " + to_string(in[0]));
  attrs["dim"] = d;
  TensorType out = in[0];
  out.shape.erase(out.shape.begin() + d);
  return out;
}

TensorType expand(const Ins& in, Attrs& attrs) {
  auto size = attr_ints(attrs, "size");
  const Shape& s = in[0].shape;
  if (size.size() < s.size())
    fail("size " + shape_string(size) + " has fewer dims than input 0 " + to_string(in[0]));
  size_t lead = size.size() - s.size();
  for (size_t i = 0; i < size.size(); ++i) {
    int64_t have = i < lead ? -1 : s[i - lead];
    if (size[i] == -1) {
      if (i < lead) fail("size " + shape_string(size) + ": a new dim cannot be -1");
      size[i] = have;
    } else if (i >= lead && have != 1 && have != size[i]) {
      fail("cannot expand dim " + str(i - lead) + " of " + to_string(in[0]) + " to " +
           str(size[i]));
    }
  }
  attrs["size"] = size;
  return {in[0].dtype, size};
}

TensorType roll(const Ins& in, Attrs& attrs) {
  auto shifts = attr_ints(attrs, "shifts"), dims = attr_ints(attrs, "dims");
  if (shifts.size() != dims.size())
    fail("shifts " + shape_string(shifts) + " and dims " + shape_string(dims) +
         " must have the same length (a roll of the flattened tensor is not supported)");
  for (int64_t& d : dims) d = normalize_dim(d, in[0].rank(), "dims");
  attrs["dims"] = dims;
  return in[0];
}

TensorType pad(const Ins& in, Attrs& attrs) {
  auto amounts = attr_ints(attrs, "pad");
  if (amounts.size() % 2 != 0 || amounts.size() > 2 * in[0].shape.size())
    fail("pad " + shape_string(amounts) + " must have a (left, right) pair for each of the last " +
         "dims of input 0 " + to_string(in[0]));
  const std::string mode = attr_str(attrs, "mode");
  if (mode != "constant" && attr_float(attrs, "value") != 0.0)
    fail("mode \"" + mode + "\" takes no value");
  TensorType out = in[0];
  for (size_t j = 0; j < amounts.size() / 2; ++j) {
    int64_t& size = out.shape[out.shape.size() - 1 - j];
    // PyTorch's limits: a reflection mirrors inside the dim, a circular pad wraps it once.
    for (int64_t amount : {amounts[2 * j], amounts[2 * j + 1]}) {
      if (mode == "reflect" && amount >= size)
        fail("pad " + shape_string(amounts) +
             " in mode \"reflect\" must be less than the dim it pads in " + to_string(in[0]));
      if (mode == "circular" && amount > size)
        fail("pad " + shape_string(amounts) +
             " in mode \"circular\" must be at most the dim it pads in " + to_string(in[0]));
      if (mode != "constant" && amount < 0)
        fail("pad " + shape_string(amounts) + ": only mode \"constant\" takes negative amounts");
    }
    size += amounts[2 * j] + amounts[2 * j + 1];
    if (size <= 0) fail("pad " + shape_string(amounts) + " leaves nothing of " + to_string(in[0]));
  }
  return out;
}

TensorType upsample(const Ins& in, Attrs& attrs) {
  const auto& size = attr_ints(attrs, "size");
  require_rank(in[0], static_cast<int>(size.size()) + 2, "input 0");
  TensorType out = in[0];
  std::copy(size.begin(), size.end(), out.shape.begin() + 2);
  return out;
}

TensorType transpose(const Ins& in, Attrs& attrs) {
  int rank = in[0].rank();
  int64_t a = normalize_dim(attr_int(attrs, "dim0"), rank, "dim0");
  int64_t b = normalize_dim(attr_int(attrs, "dim1"), rank, "dim1");
  attrs["dim0"] = std::min(a, b);
  attrs["dim1"] = std::max(a, b);
  TensorType out = in[0];
  std::swap(out.shape[a], out.shape[b]);
  return out;
}

TensorType unsqueeze(const Ins& in, Attrs& attrs) {
  int64_t d = normalize_dim(attr_int(attrs, "dim"), in[0].rank() + 1, "dim");
  attrs["dim"] = d;
  TensorType out = in[0];
  out.shape.insert(out.shape.begin() + d, 1);
  return out;
}

TensorType squeeze(const Ins& in, Attrs& attrs) {
  auto dims = attr_ints(attrs, "dim");
  for (auto& d : dims) {
    d = normalize_dim(d, in[0].rank(), "dim");
    if (in[0].shape[d] != 1) {
      fail("dim " + str(d) + " of input 0 " + to_string(in[0]) + " has size " +
           str(in[0].shape[d]) + ", not 1");
    }
  }
  std::sort(dims.begin(), dims.end());
  dims.erase(std::unique(dims.begin(), dims.end()), dims.end());
  attrs["dim"] = dims;
  return reduce_over(in[0], dims, false);
}

TensorType cat(const Ins& in, Attrs& attrs) {
  require_same_dtype(in);
  require_min_rank(in[0], 1, "input 0");
  int64_t d = normalize_dim(attr_int(attrs, "dim"), in[0].rank(), "dim");
  attrs["dim"] = d;
  TensorType out = in[0];
  for (size_t i = 1; i < in.size(); ++i) {
    Shape a = in[0].shape, b = in[i].shape;
    if (a.size() == b.size()) a[d] = b[d];
    if (a != b) {
      fail("input " + str(i) + " " + to_string(in[i]) + " does not match input 0 " +
           to_string(in[0]) + " outside dim " + str(d));
    }
    out.shape[d] += in[i].shape[d];
  }
  return out;
}

TensorType embedding(const Ins& in, Attrs& attrs) {
  require_indices(in[0], "input 0");
  TensorType out{DType::F32, in[0].shape};
  parse_dtype(attr_str(attrs, "dtype"), &out.dtype);  // the weight's
  out.shape.push_back(attr_int(attrs, "embedding_dim"));
  return out;
}

TensorType index_select(const Ins& in, Attrs& attrs) {
  require_indices(in[1], "input 1");
  require_min_rank(in[1], 1, "input 1");
  int64_t d = normalize_dim(attr_int(attrs, "dim"), in[0].rank(), "dim");
  attrs["dim"] = d;
  TensorType out = in[0];
  out.shape.erase(out.shape.begin() + d);
  out.shape.insert(out.shape.begin() + d, in[1].shape.begin(), in[1].shape.end());
  return out;
}

// torch.gather: out[i] = x[i with i[dim] replaced by index[i]]; the index may be smaller
// than x in the other dims, never larger.
TensorType gather(const Ins& in, Attrs& attrs) {
  const TensorType &x = in[0], &index = in[1];
  require_indices(index, "input 1");
  require_rank(index, x.rank(), "input 1");
  int64_t d = normalize_dim(attr_int(attrs, "dim"), x.rank(), "dim");
  attrs["dim"] = d;
  for (int i = 0; i < x.rank(); ++i)
    if (i != d && index.shape[i] > x.shape[i])
      fail("input 1 " + to_string(index) + " is larger than input 0 " + to_string(x) + " in dim " +
           str(i));
  return {x.dtype, index.shape};
}

TensorType nll_loss(const Ins& in, Attrs& attrs) {
  const TensorType &x = in[0], &target = in[1];
  if (target.dtype != DType::I64 && target.dtype != DType::I32)
    fail("input 1 (the targets) must hold integer classes, got " + to_string(target));
  // [C] with a 0-d target, or [N, C, d1, ...] with a target [N, d1, ...].
  Shape expect = x.shape;
  require_min_rank(x, 1, "input 0");
  expect.erase(expect.begin() + (x.rank() == 1 ? 0 : 1));
  if (target.shape != expect)
    fail("input 1 " + to_string(target) + " must have the shape of input 0 " + to_string(x) +
         " without its class dim, " + shape_string(expect));
  TensorType out{x.dtype, target.shape};
  if (attr_str(attrs, "reduction") != "none") out.shape.clear();
  return out;
}

namespace {

// nn.LSTM, nn.GRU and nn.RNN: the output sequence [T, B, D * H] ([B, T, D * H] batch first)
// and final states [L * D, B, H]; initial states, when given, have the final states' shape.
TensorType recurrent(const Ins& in, Attrs& attrs, int states) {
  const TensorType& x = in[0];
  if (x.rank() != 3)
    fail("input 0 (the sequence) must have rank 3 (unbatched sequences are not supported), got " +
         to_string(x));
  if (x.shape[2] != attr_int(attrs, "input_size"))
    fail("input 0 " + to_string(x) + " has " + str(x.shape[2]) +
         " features in its last dim, but input_size = " + str(attr_int(attrs, "input_size")));
  if (in.size() != 1 && static_cast<int>(in.size()) != 1 + states)
    fail(std::string("takes the sequence and ") + (states == 2 ? "h0 and c0" : "h0") +
         ", or the sequence alone (zero initial states); got " + str(in.size()) + " inputs");
  int64_t dirs = attr_bool(attrs, "bidirectional") ? 2 : 1;
  int64_t hidden = attr_int(attrs, "hidden_size");
  int64_t batch = x.shape[attr_bool(attrs, "batch_first") ? 0 : 1];
  TensorType state{x.dtype, {attr_int(attrs, "num_layers") * dirs, batch, hidden}};
  for (size_t i = 1; i < in.size(); ++i) {
    if (in[i] != state)
      fail("input " + str(i) + " (an initial state) must be " + to_string(state) + ", got " +
           to_string(in[i]));
  }
  int64_t result = attr_int(attrs, "result");
  if (result > states)
    fail("result = " + str(result) + " is out of range: the layer has " + str(states + 1) +
         " results (the output sequence, then its final states)");
  if (result > 0) return state;
  TensorType out = x;
  out.shape[2] = dirs * hidden;
  return out;
}

// weight_ih_l{k}, weight_hh_l{k}, bias_ih_l{k}, bias_hh_l{k} per layer and direction (the
// reverse one suffixed "_reverse"), in nn.RNNBase's order: its _flat_weights.
std::vector<ParamSpec> recurrent_params(const Attrs& attrs, int64_t gates) {
  int64_t hidden = attr_int(attrs, "hidden_size"), rows = gates * hidden;
  int64_t dirs = attr_bool(attrs, "bidirectional") ? 2 : 1;
  std::vector<ParamSpec> p;
  for (int64_t layer = 0; layer < attr_int(attrs, "num_layers"); ++layer) {
    int64_t in = layer == 0 ? attr_int(attrs, "input_size") : dirs * hidden;
    for (int64_t d = 0; d < dirs; ++d) {
      std::string suffix = "_l" + str(layer) + (d ? "_reverse" : "");
      p.push_back({"weight_ih" + suffix, {DType::F32, {rows, in}}});
      p.push_back({"weight_hh" + suffix, {DType::F32, {rows, hidden}}});
      if (attr_bool(attrs, "bias")) {
        p.push_back({"bias_ih" + suffix, {DType::F32, {rows}}});
        p.push_back({"bias_hh" + suffix, {DType::F32, {rows}}});
      }
    }
  }
  return p;
}

}  // namespace

TensorType lstm(const Ins& in, Attrs& attrs) {
  return recurrent(in, attrs, 2);
}
TensorType gru(const Ins& in, Attrs& attrs) {
  return recurrent(in, attrs, 1);
}

std::vector<ParamSpec> embedding_params(const Attrs& attrs) {
  TensorType weight{DType::F32,
                    {attr_int(attrs, "num_embeddings"), attr_int(attrs, "embedding_dim")}};
  parse_dtype(attr_str(attrs, "dtype"), &weight.dtype);
  return {{"weight", weight}};
}
std::vector<ParamSpec> lstm_params(const Attrs& attrs) {
  return recurrent_params(attrs, 4);
}
std::vector<ParamSpec> gru_params(const Attrs& attrs) {
  return recurrent_params(attrs, 3);
}
std::vector<ParamSpec> rnn_params(const Attrs& attrs) {
  return recurrent_params(attrs, 1);
}

std::vector<ParamSpec> linear_params(const Attrs& attrs) {
  int64_t in_f = attr_int(attrs, "in_features"), out_f = attr_int(attrs, "out_features");
  std::vector<ParamSpec> p = {{"weight", {DType::F32, {out_f, in_f}}}};
  if (attr_bool(attrs, "bias")) p.push_back({"bias", {DType::F32, {out_f}}});
  return p;
}

namespace {

std::vector<ParamSpec> conv_like_params(const Attrs& attrs, bool transposed) {
  int64_t in_ch = attr_int(attrs, "in_channels"), out_ch = attr_int(attrs, "out_channels");
  int64_t groups = attr_int(attrs, "groups");
  // nn.ConvTranspose stores its weight as [in, out/groups, k...], nn.Conv as [out, in/groups,
  // k...].
  Shape w = transposed ? Shape{in_ch, out_ch / groups} : Shape{out_ch, in_ch / groups};
  for (int64_t k : attr_ints(attrs, "kernel_size")) w.push_back(k);
  std::vector<ParamSpec> p = {{"weight", {DType::F32, w}}};
  if (attr_bool(attrs, "bias")) p.push_back({"bias", {DType::F32, {out_ch}}});
  return p;
}

}  // namespace

std::vector<ParamSpec> conv_params(const Attrs& a) {
  return conv_like_params(a, false);
}
std::vector<ParamSpec> conv_transpose_params(const Attrs& a) {
  return conv_like_params(a, true);
}

std::vector<ParamSpec> batch_norm_params(const Attrs& attrs) {
  int64_t c = attr_int(attrs, "num_features");
  std::vector<ParamSpec> p;
  if (attr_bool(attrs, "affine")) {
    p.push_back({"weight", {DType::F32, {c}}});
    p.push_back({"bias", {DType::F32, {c}}});
  }
  if (attr_bool(attrs, "track_running_stats")) {
    p.push_back({"running_mean", {DType::F32, {c}}, true});
    p.push_back({"running_var", {DType::F32, {c}}, true});
    p.push_back({"num_batches_tracked", {DType::I64, {}}, true});
  }
  return p;
}

std::vector<ParamSpec> group_norm_params(const Attrs& attrs) {
  int64_t c = attr_int(attrs, "num_channels");
  if (!attr_bool(attrs, "affine")) return {};
  return {{"weight", {DType::F32, {c}}}, {"bias", {DType::F32, {c}}}};
}

std::vector<ParamSpec> layer_norm_params(const Attrs& attrs) {
  const auto& s = attr_ints(attrs, "normalized_shape");
  std::vector<ParamSpec> p;
  if (!attr_bool(attrs, "elementwise_affine")) return p;
  p.push_back({"weight", {DType::F32, s}});
  if (attr_bool(attrs, "bias")) p.push_back({"bias", {DType::F32, s}});
  return p;
}

std::vector<ParamSpec> rms_norm_params(const Attrs& attrs) {
  if (!attr_bool(attrs, "elementwise_affine")) return {};
  return {{"weight", {DType::F32, attr_ints(attrs, "normalized_shape")}}};
}

namespace {

// Two matrix products per step, layer and direction (input and hidden weights), each
// gates * hidden rows long.
double recurrent_flops(const Ins& in, const Attrs& attrs, int64_t gates) {
  double steps = static_cast<double>(in[0].numel() / in[0].shape.back());  // T * B
  double rows = static_cast<double>(gates * attr_int(attrs, "hidden_size"));
  double hidden = static_cast<double>(attr_int(attrs, "hidden_size"));
  double dirs = attr_bool(attrs, "bidirectional") ? 2 : 1, total = 0;
  for (int64_t layer = 0; layer < attr_int(attrs, "num_layers"); ++layer) {
    double width = layer == 0 ? static_cast<double>(attr_int(attrs, "input_size")) : dirs * hidden;
    total += dirs * 2.0 * steps * rows * (width + hidden);
  }
  return total;
}

}  // namespace

double lstm_flops(const Ins& in, const TensorType&, const Attrs& attrs) {
  return recurrent_flops(in, attrs, 4);
}
double gru_flops(const Ins& in, const TensorType&, const Attrs& attrs) {
  return recurrent_flops(in, attrs, 3);
}
double rnn_flops(const Ins& in, const TensorType&, const Attrs& attrs) {
  return recurrent_flops(in, attrs, 1);
}

double linear_flops(const Ins&, const TensorType& out, const Attrs& attrs) {
  return 2.0 * static_cast<double>(out.numel()) *
         static_cast<double>(attr_int(attrs, "in_features"));
}

double matmul_flops(const Ins& in, const TensorType& out, const Attrs&) {
  // The contraction length is input 1's second-to-last dim (or its only dim).
  const TensorType& b = in[in.size() - 1];
  int64_t k = b.rank() >= 2 ? b.shape[b.rank() - 2] : b.shape[0];
  return 2.0 * static_cast<double>(std::max<int64_t>(out.numel(), 1)) * static_cast<double>(k);
}

double sdpa_flops(const Ins& in, const TensorType& out, const Attrs&) {
  // Scores (2 L S E per batch entry), their softmax (about 5 L S) and the weighted sum of
  // values (2 L S Ev).
  const TensorType& k = in[1];
  double rows = static_cast<double>(out.numel()) /
                static_cast<double>(std::max<int64_t>(out.shape.back(), 1));
  double keys = static_cast<double>(k.shape[k.rank() - 2]);
  double e = static_cast<double>(k.shape.back()), ev = static_cast<double>(out.shape.back());
  return rows * keys * (2 * e + 2 * ev + 5);
}

double conv_flops(const Ins&, const TensorType& out, const Attrs& attrs) {
  const auto& k = attr_ints(attrs, "kernel_size");
  double per_out = static_cast<double>(attr_int(attrs, "in_channels") / attr_int(attrs, "groups"));
  for (int64_t x : k) per_out *= static_cast<double>(x);
  return 2.0 * static_cast<double>(out.numel()) * per_out;
}

double conv_transpose_flops(const Ins& in, const TensorType&, const Attrs& attrs) {
  // Every input element scatters into out_channels/groups times the kernel volume.
  const auto& k = attr_ints(attrs, "kernel_size");
  double per_in = static_cast<double>(attr_int(attrs, "out_channels") / attr_int(attrs, "groups"));
  for (int64_t x : k) per_in *= static_cast<double>(x);
  return 2.0 * static_cast<double>(in[0].numel()) * per_in;
}

double pool_flops(const Ins&, const TensorType& out, const Attrs& attrs) {
  double window = 1;
  auto it = attrs.find("kernel_size");
  if (it != attrs.end()) {
    for (int64_t x : std::get<std::vector<int64_t>>(it->second)) window *= static_cast<double>(x);
  }
  return static_cast<double>(out.numel()) * window;
}

double no_flops(const Ins&, const TensorType&, const Attrs&) {
  return 0;
}

}  // namespace drtriton::rules
