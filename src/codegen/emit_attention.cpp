// Scaled dot-product attention as one flash-attention kernel.
#include <algorithm>
#include <limits>

#include "codegen/lowering.h"

namespace drtriton::codegen {

// Attention as one kernel (flash attention): a program takes BLOCK_M query rows of one
// batch entry and runs over the keys BLOCK_N at a time, keeping the softmax's running
// maximum and sum (online softmax), so the L x S scores never reach memory. The reference's
// SDPA makes no matmul library call, so neither does this: both products are tl.dot in
// three TF32 products ("tf32x3", as the GEMM's: on the tensor cores, and as accurate as fp32
// FMAs here; Triton's default for fp32 on NVIDIA GPUs, one TF32 product, is far less
// accurate than the verifier allows, and "ieee", the dot_precision knob's other value, leaves
// the tensor cores idle). Query, key and value
// are read as expressions, so the views that split heads, and a bias, fuse into the loads; a longer
// expression is written first, since each key and value is read once per block of query rows.
void Lowering::lower_attention(const Attention& a, bool causal, ValueId output) {
  constexpr int kInlineCost = 3;  // a library result plus its bias, through any views
  const ValueId q = a.q, key = a.key, v = a.v;
  const bool masked = a.mask >= 0;
  for (ValueId in : {q, key, v})
    if (cost(in) > kInlineCost) materialize(in);
  if (masked && cost(a.mask) > kInlineCost) materialize(a.mask);
  for (ValueId in : {q, v}) {
    int64_t head = g_.value(in).type.shape.back();
    if (head > 128)
      throw IrError("codegen: sdpa with a head dim of " + std::to_string(head) +
                    "; the attention kernel takes head dims up to 128");
  }
  std::vector<std::string> qs = shape_of(q), ks = shape_of(key), vs = shape_of(v);
  const size_t r = qs.size();
  std::vector<std::string> batch(qs.begin(), qs.end() - 2);
  Kernel k("k" + std::to_string(kernels_.size()) + "_sdpa");
  std::string L = k.size(qs[r - 2]), S = k.size(ks[r - 2]), E = k.size(qs[r - 1]),
              EV = k.size(vs[r - 1]);
  auto at = [&](const std::vector<std::string>& lead, const std::string& row,
                const std::string& col) {
    std::vector<std::string> dims = lead;
    dims.push_back(row);
    dims.push_back(col);
    return dims;
  };
  // Each operand in fp32, zero where its block runs past the tensor (padded head dims
  // must add nothing to the dot products).
  auto operand = [&](ValueId x, const std::vector<std::string>& dims, const std::string& mask) {
    std::string e = emit(k, x, Index{dims, mask, "", {}});
    if (g_.value(x).type.dtype != DType::F32) e += ".to(tl.float32)";
    return "tl.where(" + mask + ", " + e + ", 0.0)";
  };
  k.line("m_blocks = tl.cdiv(" + L + ", BLOCK_M)");
  k.line("pid = " + program_id());
  k.line("block = pid % m_blocks");
  std::vector<std::string> lead = decompose(k, "(pid // m_blocks)", batch);
  k.line("rows = block * BLOCK_M + tl.arange(0, BLOCK_M)[:, None]");
  k.line("dq = tl.arange(0, BLOCK_D)[None, :]");
  k.line("dv = tl.arange(0, BLOCK_DV)[None, :]");
  k.line("q_mask = (rows < " + L + ") & (dq < " + E + ")");
  // qk_scale holds log2(e), so exp2 gives the softmax's exp.
  k.line("q = " + operand(q, at(lead, "rows", "dq"), "q_mask") + " * qk_scale");
  k.line("m_i = tl.full([BLOCK_M], float(\"-inf\"), tl.float32)");
  k.line("l_i = tl.zeros([BLOCK_M], tl.float32)");
  k.line("acc = tl.zeros([BLOCK_M, BLOCK_DV], tl.float32)");
  // The weighted values are summed with compensation (Kahan) from one key block to the
  // next, and the blocks hold 32 keys (_attention_blocks): a thousand equal values, summed
  // plainly 64 at a time, came to eight times eager's error.
  k.line("comp = tl.zeros([BLOCK_M, BLOCK_DV], tl.float32)");
  // PyTorch's causal mask keeps key j for query i when j <= i (aligned at the top left), so
  // the keys past this block's last row are skipped, and every row keeps key 0.
  k.line(std::string("for n0 in range(0, ") +
         (causal ? "tl.minimum(" + S + ", (block + 1) * BLOCK_M)" : S) + ", BLOCK_N):");
  k.push();
  k.line("cols = n0 + tl.arange(0, BLOCK_N)[None, :]");
  k.line("dk = tl.arange(0, BLOCK_D)[:, None]");
  k.line("k_mask = (cols < " + S + ") & (dk < " + E + ")");
  k.line("kt = " + operand(key, at(lead, "cols", "dk"), "k_mask"));  // transposed: [D, N]
  const std::string precision = "input_precision=\"" + options_.knobs.dot_precision + "\"";
  k.line("s = tl.dot(q, kt, " + precision + ")");
  k.line("s = tl.where(" + (causal ? "(cols < " + S + ") & (cols <= rows)" : "cols < " + S) +
         ", s, float(\"-inf\"))");
  if (masked) {  // the program's mask, read at the scores' positions (a broadcast buffer)
    Index at_scores{at(lead, "rows", "cols"), "(rows < " + L + ") & (cols < " + S + ")", "", {}};
    std::string drop = emit(k, a.mask, broadcast_index(a.mask, a.masked, at_scores));
    k.line("s = tl.where(" + std::string(a.drop_when_true ? "" : "~") + "(" + drop +
           "), float(\"-inf\"), s)");
  }
  k.line("m_new = tl.maximum(m_i, tl.max(s, 1))");
  k.line("alpha = tl.exp2(m_i - m_new)");
  k.line("p = tl.exp2(s - m_new[:, None])");
  k.line("l_i = l_i * alpha + tl.sum(p, 1)");
  k.line("keys = n0 + tl.arange(0, BLOCK_N)[:, None]");
  k.line("v_mask = (keys < " + S + ") & (dv < " + EV + ")");
  k.line("vb = " + operand(v, at(lead, "keys", "dv"), "v_mask"));
  k.line("scaled = acc * alpha[:, None]");
  k.line("step = tl.dot(p, vb, " + precision + ") - comp * alpha[:, None]");
  k.line("acc = scaled + step");
  k.line("comp = (acc - scaled) - step");
  k.line("m_i = m_new");
  k.pop();
  std::vector<std::string> os = shape_of(output);
  DType out_dtype = g_.value(output).type.dtype;
  std::string out = alloc(os, out_dtype);
  k.line("tl.store(" + k.pointer(out) + " + " + linearize(k, at(lead, "rows", "dv"), os) + ", " +
         rounded(out_dtype, "acc / l_i[:, None]") + ", mask=(rows < " + L + ") & (dv < " + EV +
         "))");
  std::string qk_scale =
      "(" + (a.scale.empty() ? qs[r - 1] + " ** -0.5" : a.scale) + ") * 1.4426950408889634";
  forward_.push_back(attention_blocks_line(qs[r - 2], ks[r - 2], qs[r - 1], vs[r - 1]));
  std::vector<std::string> blocks = {"BLOCK_M", "BLOCK_N", "BLOCK_D", "BLOCK_DV"};
  finish_kernel(k, {"qk_scale"}, blocks,
                "(" + product(batch) + " * triton.cdiv(" + qs[r - 2] + ", BLOCK_M),)", {qk_scale},
                blocks);
  computes_.back().second.insert(a.inside.begin(), a.inside.end());
  buffers_[output] = {out, true};
}

namespace {

// k.transpose(-2, -1), or a permute that swaps the last two dims only.
bool swaps_last_two(const Graph& g, const Node& n) {
  const int r = g.value(n.output).type.rank();
  if (n.op == Op::Transpose) {
    int64_t a = attr_int(n.attrs, "dim0"), b = attr_int(n.attrs, "dim1");
    a = a < 0 ? a + r : a;
    b = b < 0 ? b + r : b;
    return std::min(a, b) == r - 2 && std::max(a, b) == r - 1;
  }
  if (n.op != Op::Permute) return false;
  std::vector<int64_t> dims = attr_ints(n.attrs, "dims");
  for (int d = 0; d < r; ++d) {
    int64_t want = d == r - 2 ? r - 1 : d == r - 1 ? r - 2 : d;
    if (dims[d] != want && dims[d] != want - r) return false;
  }
  return r >= 2;
}

}  // namespace

// Finds the attention by hand that lower_graph makes one kernel (Attention, lowering.h).
void Lowering::plan_attention() {
  auto node_of = [&](ValueId v) -> const Node* {
    const Value& val = g_.value(v);
    return val.kind == ValueKind::Node ? &g_.nodes()[val.node] : nullptr;
  };
  auto index_of = [&](const Node* n) { return static_cast<int>(n - g_.nodes().data()); };
  auto product = [](const Node* n) { return n && (n->op == Op::Bmm || n->op == Op::Matmul); };
  auto read_once = [&](const Node* n) { return users_[n->output] == 1; };
  for (const Node& pv : g_.nodes()) {
    if (!product(&pv)) continue;
    std::set<int> inside;
    const Node* softmax = node_of(pv.inputs[0]);
    // A dropout of p = 0 on the probabilities (minGPT's attn_dropout) is the identity.
    if (softmax && softmax->op == Op::Dropout && attr_float(softmax->attrs, "p") == 0 &&
        read_once(softmax)) {
      inside.insert(index_of(softmax));
      softmax = node_of(softmax->inputs[0]);
    }
    if (!softmax || softmax->op != Op::Softmax || !read_once(softmax)) continue;
    const TensorType& probs = g_.value(softmax->output).type;
    const int r = probs.rank();
    int64_t dim = attr_int(softmax->attrs, "dim");
    if (r < 3 || (dim < 0 ? dim + r : dim) != r - 1) continue;
    inside.insert(index_of(softmax));
    const Node* scores = node_of(softmax->inputs[0]);
    Attention a;
    // masked_fill(mask, -inf): where(mask, -inf, scores), or where(keep, scores, -inf).
    auto minus_inf = [&](ValueId x) {
      const Node* f = node_of(x);
      return f && f->op == Op::Full && g_.value(x).type.rank() == 0 &&
             attr_float(f->attrs, "value") == -std::numeric_limits<double>::infinity();
    };
    if (scores && scores->op == Op::Where && read_once(scores) &&
        minus_inf(scores->inputs[1]) != minus_inf(scores->inputs[2])) {
      a.drop_when_true = minus_inf(scores->inputs[1]);
      a.mask = scores->inputs[0];
      a.masked = scores->output;
      inside.insert(index_of(scores));
      scores = node_of(scores->inputs[a.drop_when_true ? 2 : 1]);
    }
    const Node* scaling = nullptr;
    if (scores && (scores->op == Op::MulScalar || scores->op == Op::DivScalar) &&
        read_once(scores)) {
      scaling = scores;
      inside.insert(index_of(scores));
      scores = node_of(scores->inputs[0]);
    }
    // The scores have the probabilities' shape (a mask broadcast over more does not fit).
    if (!product(scores) || !read_once(scores) ||
        g_.value(scores->output).type.shape != probs.shape)
      continue;
    const Node* kt = node_of(scores->inputs[1]);
    if (!kt || !swaps_last_two(g_, *kt)) continue;
    inside.insert(index_of(scores));
    ValueId q = scores->inputs[0], key = kt->inputs[0], v = pv.inputs[1];
    const Shape &qs = g_.value(q).type.shape, &ks = g_.value(key).type.shape,
                &vs = g_.value(v).type.shape;
    // One batch shape (no broadcasting), fp32, head dims the kernel takes.
    bool fits = qs.size() == static_cast<size_t>(r) && ks.size() == qs.size() &&
                vs.size() == qs.size() && std::equal(qs.begin(), qs.end() - 2, ks.begin()) &&
                std::equal(qs.begin(), qs.end() - 2, vs.begin()) && qs.back() <= 128 &&
                vs.back() <= 128;
    for (ValueId x : {q, key, v, pv.output}) fits = fits && g_.value(x).type.dtype == DType::F32;
    if (!fits) continue;
    a.scale = "1.0";
    if (scaling) {
      // A number computed from sizes (1 / math.sqrt(k.size(-1))) is computed in forward.
      auto sym = scaling->sym_attrs.find("other");
      std::string c = sym != scaling->sym_attrs.end()
                          ? dim_var(sym->second)
                          : float_to_string(attr_float(scaling->attrs, "other"));
      a.scale = scaling->op == Op::MulScalar ? c : "1.0 / " + c;
    }
    a.q = q, a.key = key, a.v = v, a.inside = inside;
    attentions_[index_of(&pv)] = a;
    inside_attention_.insert(inside.begin(), inside.end());
  }
}

}  // namespace drtriton::codegen
