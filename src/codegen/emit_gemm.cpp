// The Triton GEMM kernel, with its epilogue (plan_gemm) on the accumulator tile.
#include "codegen/lowering.h"

namespace drtriton::codegen {

std::vector<ValueId> Lowering::gemm_operands(const Node& n) const {
  if (n.op == Op::Linear) return {n.inputs[0]};
  return {n.inputs[n.op == Op::Addmm ? 1 : 0], n.inputs[n.op == Op::Addmm ? 2 : 1]};
}

// Whether the Triton GEMM `n` writes its operand `in` first rather than evaluating it in its
// loads: an expression of more than a few operations (each element is read many times, as
// attention's), or one that loads more than two tensors an element (a layer norm's input,
// statistics, weight and bias), which would take the K loop's pipeline stages (_gemm_blocks:
// one of three at 128 x 128 fp32) and be recomputed by every tile of the other operand, where
// that operand spans more than one tile.
bool Lowering::gemm_writes_first(const Node& n, ValueId in) {
  constexpr int kInlineCost = 3;
  if (is_buffer(in)) return false;
  const Shape& product = g_.value(n.output).type.shape;
  bool left = in == gemm_operands(n)[0];
  int64_t other_side = left ? product.back() : product[product.size() - 2];
  return cost(in) > kInlineCost || (other_side > 128 && tensors_read(in) > 2);
}

// A GEMM as one Triton kernel, in the tiles of Triton's matmul tutorial: a program computes
// a BLOCK_M x BLOCK_N tile of the product over K in BLOCK_K steps, programs grouped GROUP_M
// row blocks at a time so that neighbours share operand tiles in L2; a batch entry per
// program_id(1). The operands are read as expressions (a transposed view, a scaled input
// fuse into the loads). fp32 operands go through tf32x3, three TF32 products that come to
// fp32 accuracy on tensor cores (plain tl.dot on fp32 is one TF32 product, too inaccurate
// for the verifier); fp16 and bf16 ones give their own exact products, into fp32. The tile
// of the product plus its bias is the value of the GEMM's node in the kernel's memo, and the
// kernel writes the epilogue's last value `root` (plan_gemm) from it.
void Lowering::lower_gemm(const Node& n, ValueId root) {
  const bool linear = n.op == Op::Linear;
  std::vector<ValueId> operands = gemm_operands(n);
  for (ValueId in : operands)
    if (gemm_writes_first(n, in)) materialize(in);
  ValueId out = n.output;
  std::vector<std::string> os = shape_of(out);
  const size_t r = os.size();
  // A Linear's rows are all its leading dims; the others multiply matrices per batch entry.
  std::vector<std::string> batch =
      linear ? std::vector<std::string>{} : std::vector<std::string>(os.begin(), os.end() - 2);
  std::vector<std::string> row_shape(os.begin() + (linear ? 0 : r - 2), os.end() - 1);
  std::vector<std::string> as = shape_of(operands[0]);
  std::string m_py = product(row_shape), n_py = os[r - 1], k_py = as.back();
  DType dtype = g_.value(out).type.dtype;
  // A dim of a literal 1 leaves the offsets without that axis: then the operands and the
  // store are made blocks of the tile's shape (tl.dot and tl.store take no broadcast).
  const bool degenerate = m_py == "1" || n_py == "1" || k_py == "1";
  // Before the GEMM's kernel: a K-major copy of the right operand may come first.
  std::optional<KMajor> tma;
  if (!degenerate) tma = k_major_operands(n, operands);

  Kernel k("k" + std::to_string(kernels_.size()) + "_" + n.schema().name);
  k.touch(static_cast<int>(&n - g_.nodes().data()));
  k.line("pid = " + program_id());
  k.line("blocks_m = tl.cdiv(M, BLOCK_M)");
  k.line("group = GROUP_M * tl.cdiv(N, BLOCK_N)");
  k.line("first_m = pid // group * GROUP_M");
  k.line("group_m = tl.minimum(blocks_m - first_m, GROUP_M)");
  k.line("m0 = (first_m + pid % group % group_m) * BLOCK_M");
  k.line("n0 = (pid % group // group_m) * BLOCK_N");
  k.line("rows = m0 + tl.arange(0, BLOCK_M)[:, None]");
  k.line("cols = n0 + tl.arange(0, BLOCK_N)[None, :]");
  std::vector<std::string> lead =
      decompose(k, int64_index_ ? "tl.program_id(1).to(tl.int64)" : "tl.program_id(1)", batch);
  std::vector<std::string> row_dims = decompose(k, "rows", row_shape);
  // An operand's batch dims, right-aligned with the output's: size 1 broadcasts.
  auto batch_dims = [&](ValueId in) {
    const Shape& si = g_.value(in).type.shape;
    const Shape& so = g_.value(out).type.shape;
    std::vector<std::string> dims;
    size_t nb = si.size() - 2, skip = batch.size() - nb;
    for (size_t d = 0; d < nb; ++d)
      dims.push_back(si[d] == 1 && so[skip + d] != 1 ? "0" : lead[skip + d]);
    return dims;
  };
  // fp16 operands are multiplied as fp16. bf16 ones stay fp32 (as loaded) under one TF32
  // pass, which holds a bf16 value exactly, so the products are bf16's (and Triton's
  // interpreter has no bf16 dot).
  // A matrix-vector product (M or N a literal 1, K not): no tl.dot, whose tiles are 16 wide at
  // least, but products in fp32 summed along K, over tiles one row or column wide.
  const bool vector = (m_py == "1") != (n_py == "1") && k_py != "1";
  std::string dot_type = dtype == DType::F16 && !vector ? "tl.float16" : "";
  std::string precision = dtype == DType::F16 ? ""
                          : dtype == DType::BF16
                              ? ", input_precision=\"tf32\""
                              : ", input_precision=\"" + options_.knobs.dot_precision + "\"";
  auto operand = [&](const std::string& e, bool loaded, const std::string& mask) {
    // Padding must add nothing: an expression of a masked load need not be 0 there.
    std::string x = loaded && !degenerate ? e : "tl.where(" + mask + ", " + e + ", 0.0)";
    return dot_type.empty() ? x : x + ".to(" + dot_type + ")";
  };
  // A matrix-vector product (a dim of 1) is memory-bound, and eager's runs a reduction tree
  // whose error hardly grows with K: its K loop sums with compensation (Kahan), else a long
  // K (131072 values of one sign) errs more than the verifier's floor.
  const bool compensated = degenerate && dtype == DType::F32;
  k.line("acc = tl.zeros([BLOCK_M, BLOCK_N], tl.float32)");
  if (compensated) k.line("comp = tl.zeros([BLOCK_M, BLOCK_N], tl.float32)");
  // A product whose one reader is its epilogue's tril or triu (tril(A @ B)): a tile that
  // mask zeroes whole skips the K loop, about half the products of a square matrix.
  std::string k_end = "K";
  if (!linear && !degenerate && root != out && users_[out] == 1) {
    int reader = consumers_[out].at(0);
    const Node& m = g_.nodes()[reader];
    if ((m.op == Op::Tril || m.op == Op::Triu) && epilogue_nodes_.count(reader)) {
      std::string d = std::to_string(attr_int(m.attrs, "diagonal"));
      std::string zeroed =
          m.op == Op::Tril ? "n0 - (m0 + BLOCK_M - 1) > " + d : "n0 + BLOCK_N - 1 - m0 < " + d;
      k.line("k_end = tl.where(" + zeroed + ", 0, K)");
      k_end = "k_end";
    }
  }
  k.line("for k0 in range(0, " + k_end + ", BLOCK_K):");
  k.push();
  if (tma) {  // each operand's rows past M or N (another batch entry's) are not stored
    k.line("if TMA:");
    k.push();
    k.line(std::string("a = a_desc.load([") + (tma->a_batched ? "tl.program_id(1) * M + " : "") +
           "m0, k0])");
    k.line(std::string("b = b_desc.load([") + (tma->w_batched ? "tl.program_id(1) * N + " : "") +
           "n0, k0]).T");
    k.pop();
    k.line("else:");
    k.push();
  }
  k.line("ka = k0 + tl.arange(0, BLOCK_K)[None, :]");
  k.line("kb = k0 + tl.arange(0, BLOCK_K)[:, None]");
  k.line("a_mask = (rows < M) & (ka < K)");
  k.line("b_mask = (kb < K) & (cols < N)");
  std::vector<std::string> a_dims = linear ? row_dims : batch_dims(operands[0]);
  if (!linear) a_dims.push_back(row_dims[0]);
  a_dims.push_back("ka");
  // Loads in the K loop, per operand: each takes shared memory per pipeline stage.
  auto loads_since = [&](size_t line) {
    int loads = 0;
    for (size_t i = line; i < k.body().size(); ++i)
      for (size_t at = k.body()[i].find("tl.load("); at != std::string::npos;
           at = k.body()[i].find("tl.load(", at + 1))
        ++loads;
    return loads;
  };
  // An operand's K-major copy `var` [.., rows, K] (k_major_operands), read at `dims`.
  auto copied = [&](const std::string& var, ValueId of, const std::vector<std::string>& dims,
                    const std::string& rows, const std::string& mask) {
    std::vector<std::string> shape = shape_of(of);
    shape.resize(shape.size() - 2);
    shape.insert(shape.end(), {rows, k_py});
    return operand(load_at(k, var, linearize(k, dims, shape), mask, "0.0", low_precision(out)),
                   true, mask);
  };
  size_t a_from = k.body().size();
  if (tma && tma->a_copied) {  // A's K-major copy [.., M, K]
    k.line("a = " + copied(tma->a, operands[0], a_dims, row_shape[0], "a_mask"));
  } else {
    k.line("a = " + operand(emit(k, operands[0], Index{a_dims, "a_mask", "", {}}),
                            is_buffer(operands[0]), "a_mask"));
  }
  int a_loads = loads_since(a_from);
  size_t b_from = k.body().size();
  std::string b;
  if (linear) {  // the weight [N, K] read transposed
    b = load_at(k, param_var(n, "weight"), linearize(k, {"cols", "kb"}, {n_py, k_py}), "b_mask",
                "0.0", low_precision(out));
    b = operand(b, true, "b_mask");
  } else if (tma && tma->copied) {  // B's K-major copy [.., N, K], as a Linear's weight
    std::vector<std::string> w_dims = batch_dims(operands[1]);
    w_dims.insert(w_dims.end(), {"cols", "kb"});
    b = copied(tma->w, operands[1], w_dims, n_py, "b_mask");
  } else {
    std::vector<std::string> b_dims = batch_dims(operands[1]);
    b_dims.push_back("kb");
    b_dims.push_back("cols");
    b = operand(emit(k, operands[1], Index{b_dims, "b_mask", "", {}}), is_buffer(operands[1]),
                "b_mask");
  }
  k.line("b = " + b);
  int b_loads = loads_since(b_from);
  if (tma) k.pop();
  std::string tile_product = vector ? n_py == "1" ? "tl.sum(a * tl.trans(b), axis=1)[:, None]"
                                                  : "tl.sum(tl.trans(a) * b, axis=0)[None, :]"
                                    : "tl.dot(a, b" + precision + ")";
  if (compensated) {
    k.line("step = " + tile_product + " - comp");
    k.line("total = acc + step");
    k.line("comp = (total - acc) - step");
    k.line("acc = total");
  } else if (vector) {
    k.line("acc += " + tile_product);
  } else {
    k.line("acc = tl.dot(a, b, acc" + precision + ")");
  }
  k.pop();

  k.line("mask = (rows < M) & (cols < N)");
  std::vector<std::string> out_dims = lead;
  out_dims.insert(out_dims.end(), row_dims.begin(), row_dims.end());
  out_dims.push_back("cols");
  Index tile{out_dims, "mask", "", {}};
  std::string value = "acc";
  if (n.op == Op::Addmm) {
    ValueId bias = n.inputs[0];
    value = k.assign("acc + " + emit(k, bias, broadcast_index(bias, out, tile)));
  } else if (has_param(n, "bias")) {  // one bias per output feature: a row of them
    value = k.assign(
        "acc + " + load_at(k, param_var(n, "bias"), "cols", "cols < N", "0.0", low_precision(out)));
  }
  k.remember(value_key(out, tile), value);
  std::string result = emit(k, root, tile);
  DType root_dtype = g_.value(root).type.dtype;
  std::vector<std::string> rs = shape_of(root);
  std::string buf = alloc(rs, root_dtype);
  std::string offset = linearize(k, out_dims, rs);
  if (degenerate) offset = "mask.to(tl.int32) * 0 + " + offset;
  k.line("tl.store(" + k.pointer(buf) + " + " + offset + ", " + rounded(root_dtype, result) +
         ", mask=mask)");

  int itemsize = dtype == DType::F32 ? 4 : 2;
  if (tma)
    forward_.push_back(gemm_tma_line(tma->a, tma->w, m_py, n_py, k_py, product(batch), itemsize));
  else
    forward_.push_back(gemm_blocks_line(m_py, n_py, k_py, product(batch), itemsize,
                                        std::max(0, a_loads - 1), std::max(0, b_loads - 1)));
  if (vector)  // the vector's side one wide, K in steps of up to 64
    forward_.push_back(std::string(m_py == "1" ? "BLOCK_M" : "BLOCK_N") +
                       ", BLOCK_K = 1, min(64, triton.next_power_of_2(" + k_py + "))");
  std::vector<std::string> params = {"M", "N", "K"}, args = {m_py, n_py, k_py};
  std::vector<std::string> blocks = {"BLOCK_M", "BLOCK_N", "BLOCK_K", "GROUP_M"};
  std::vector<std::string> block_args = blocks;
  if (tma) {
    params.insert(params.end(), {"a_desc", "b_desc"});
    args.insert(args.end(), {"A_DESC", "B_DESC"});
    blocks.push_back("TMA");
    block_args.push_back("A_DESC is not None");
  }
  finish_kernel(k, params, blocks,
                "(triton.cdiv(" + m_py + ", BLOCK_M) * triton.cdiv(" + n_py + ", BLOCK_N), " +
                    product(batch) + ")",
                args, block_args, gemm_launch_options(options_.knobs));
  buffers_[root] = {buf, true};
}

// TMA reads a GEMM's operands as row-major buffers A [.., M, K] and W [.., N, K] (K
// contiguous, as TF32 tensor-core products take them), through 2-d descriptors over all their
// rows: a batched operand's rows of entry b start at b * M (or b * N). Hopper's bulk copies
// were 1.25x faster than pointer loads for tf32x3 (bench/gemm_split.py); _gemm_tma decides at
// run time whether the buffers allow them. A is a buffer as it is (a Linear's rows flattened);
// W is a Linear's weight, the buffer X of a transposed view B = X^T, or, for fp32, a K-major
// copy of a row-major B written first (one pass over B), which the pointer loads then read
// too. An operand's batch dims must be none or the product's own. TMA coordinates are 32-bit.
std::optional<Lowering::KMajor> Lowering::k_major_operands(const Node& n,
                                                           const std::vector<ValueId>& operands) {
  DType dtype = g_.value(n.output).type.dtype;
  if (int64_index_ || (dtype != DType::F32 && dtype != DType::F16)) return std::nullopt;
  const Shape& product_shape = g_.value(n.output).type.shape;
  auto row_major = [&](ValueId v) {
    return is_buffer(v) && !channels_last_.count(buffers_.at(v).var);
  };
  auto batch_fits = [&](ValueId v, bool& batched) {  // none, or the product's own
    const Shape& s = g_.value(v).type.shape;
    batched = s.size() > 2;
    return !batched || (s.size() == product_shape.size() &&
                        std::equal(s.begin(), s.end() - 2, product_shape.begin()));
  };
  // The row-major buffer X of a transposed view V = X^T, if v is one.
  auto transposed_buffer = [&](ValueId v) -> std::optional<ValueId> {
    const Value& vv = g_.value(v);
    if (vv.kind != ValueKind::Node) return std::nullopt;
    const Node& view = g_.nodes()[vv.node];
    if (!k_contiguous_view(view, vv.type.rank(), true) || !row_major(view.inputs[0]))
      return std::nullopt;
    return view.inputs[0];
  };
  // A batch of copies of one row-major matrix X (X.unsqueeze(0).expand(E, -1, -1)): every
  // entry reads X's rows.
  auto repeated_matrix = [&](ValueId v) -> std::optional<ValueId> {
    while (!is_buffer(v) && g_.value(v).kind == ValueKind::Node) {
      const Node& view = g_.nodes()[g_.value(v).node];
      int64_t dim = view.op == Op::Unsqueeze ? attr_int(view.attrs, "dim") : -1;
      bool leading = view.op == Op::Unsqueeze && (dim == 0 || dim == -g_.value(v).type.rank());
      if (view.op != Op::Expand && !leading) return std::nullopt;
      v = view.inputs[0];
    }
    if (!row_major(v) || g_.value(v).type.rank() != 2) return std::nullopt;
    return v;
  };
  KMajor ops;
  ValueId a = operands[0];
  if (n.op == Op::Linear) {
    if (!row_major(a)) return std::nullopt;
    ops.a = buffers_.at(a).var;
    ops.w = param_var(n, "weight");
    return ops;
  }
  ValueId b = operands[1];
  if (!batch_fits(a, ops.a_batched) || !batch_fits(b, ops.w_batched)) return std::nullopt;
  // The copies are written only once both operands qualify: a copy the GEMM then does not
  // read would be a wasted pass (the verifier's no-op test rejected one in netvlad_head).
  std::optional<ValueId> a_copy_of;
  if (row_major(a)) {
    ops.a = buffers_.at(a).var;
  } else if (std::optional<ValueId> x = repeated_matrix(a)) {
    ops.a = buffers_.at(*x).var;
    ops.a_batched = false;
  } else if (std::optional<ValueId> x = transposed_buffer(a); x && dtype == DType::F32) {
    // A = X^T is M-contiguous, which TF32 products do not take: written K-major first (A^T @ B
    // at 2048x4096x2048, both read as they were, ran at 0.62x of cuBLAS on an H200).
    a_copy_of = x;
  } else {
    return std::nullopt;
  }
  if (!is_buffer(b)) {  // B = X^T, X a row-major buffer: X is W
    std::optional<ValueId> x = transposed_buffer(b);
    if (!x) return std::nullopt;
    ops.w = buffers_.at(*x).var;
  } else if (dtype != DType::F32 || !row_major(b)) {
    return std::nullopt;  // fp16 takes B as it is
  } else {
    ops.copied = true;  // both loads read B's copy: the kernel's pointer loads too
  }
  if (a_copy_of) {
    ops.a = k_major_copy(*a_copy_of);
    ops.a_copied = true;
  }
  if (ops.copied) ops.w = k_major_copy(b);
  return ops;
}

// A kernel writing B [.., K, N] transposed, [.., N, K], in 64 x 64 tiles: its loads run
// along N and its stores along K, both contiguous (Triton transposes the tile in shared
// memory).
std::string Lowering::k_major_copy(ValueId b) {
  std::vector<std::string> s = shape_of(b);
  std::vector<std::string> batch(s.begin(), s.end() - 2), shape_t = batch;
  std::string k_py = s[s.size() - 2], n_py = s.back();
  shape_t.push_back(n_py);
  shape_t.push_back(k_py);
  DType dtype = g_.value(b).type.dtype;
  std::string out = alloc(shape_t, dtype);
  Kernel k("k" + std::to_string(kernels_.size()) + "_k_major");
  k.line("kk = " + program_id() + " * BLOCK_K + tl.arange(0, BLOCK_K)[None, :]");
  k.line("nn = tl.program_id(1) * BLOCK_N + tl.arange(0, BLOCK_N)[:, None]");
  k.line("mask = (kk < K) & (nn < N)");
  std::vector<std::string> dims = decompose(k, "tl.program_id(2)", batch);
  dims.push_back("kk");
  dims.push_back("nn");
  std::string value = emit(k, b, Index{dims, "mask", "", {}});
  k.line("tl.store(" + k.pointer(out) + " + (tl.program_id(2) * N + nn) * K + kk, " +
         rounded(dtype, value) + ", mask=mask)");
  finish_kernel(
      k, {"K", "N"}, {"BLOCK_K", "BLOCK_N"},
      "(triton.cdiv(" + k_py + ", 64), triton.cdiv(" + n_py + ", 64), " + product(batch) + ")",
      {k_py, n_py}, {"64", "64"});
  return out;
}

}  // namespace drtriton::codegen
