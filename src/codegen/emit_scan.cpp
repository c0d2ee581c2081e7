// Cumulative sums and products.
#include "codegen/lowering.h"

namespace drtriton::codegen {

// A scan along one dim, in row tiles: each column block is scanned and carried on by its
// total (cumsum: +, from 0; cumprod: *, from 1).
void Lowering::lower_scan(const Node& n) {
  ValueId in = n.inputs[0];
  int rank = g_.value(in).type.rank();
  int64_t d = attr_int(n.attrs, "dim");
  const int scan_dim = static_cast<int>(d < 0 ? d + rank : d);
  ReducePlan plan = plan_dims(in, {scan_dim});
  std::vector<std::string> shape = shape_of(n.output);
  DType dtype = g_.value(n.output).type.dtype;
  std::string out = alloc(shape, dtype);
  // A scan read only by a flip of its dim (suffix sums: flip, cumsum, flip) stores its tiles
  // flipped, as that flip's buffer, rather than leave the flip a pass of its own.
  const Node* flip = nullptr;
  if (users_[n.output] == 1 && consumers_[n.output].size() == 1) {
    const Node& c = g_.nodes()[consumers_[n.output][0]];
    if (c.op == Op::Flip && attr_ints(c.attrs, "dims").size() == 1 &&
        (attr_ints(c.attrs, "dims")[0] + rank) % rank == scan_dim)
      flip = &c;
  }
  const bool is_product = n.op == Op::Cumprod;
  Kernel k("k" + std::to_string(kernels_.size()) + "_" + n.schema().name);
  k.line("rows = " + program_id() + " * BLOCK_M + tl.arange(0, BLOCK_M)[:, None]");
  k.line("row_mask = rows < ROWS");
  std::vector<std::string> kidx = decompose(k, "rows", plan.kept);
  // Products in float64: a scan multiplies sub-ranges in a tree order, and a sub-range's
  // product can overflow float32 where the running product (which eager computes) does
  // not (1e-30 * 1e30 * 1e30): float64's range holds every product of float32 factors that
  // stays within float32 at the end.
  k.line(is_product ? "carry = tl.full([BLOCK_M, 1], 1.0, tl.float64)"
                    : "carry = tl.zeros([BLOCK_M, 1], tl.float32)");
  k.line("for c0 in range(0, COLS, BLOCK_R):");
  k.push();
  k.line("cols = c0 + tl.arange(0, BLOCK_R)[None, :]");
  k.line("m = row_mask & (cols < COLS)");
  std::vector<std::string> ridx = decompose(k, "cols", plan.reduced);
  std::vector<std::string> full = plan.to_input(kidx, ridx);
  std::string x = emit(k, in, Index{full, "m", "", {}});
  std::string t = k.assign(is_product ? "tl.where(m, " + x + ", 1.0).to(tl.float64)"
                                      : "tl.where(m, " + x + ", 0.0)");
  std::vector<std::string> at = full;
  if (flip) at[scan_dim] = k.flipped(shape[scan_dim], full[scan_dim]);
  std::string off = linearize(k, at, shape);
  if (is_digits(off)) off = "m.to(tl.int32) * 0 + " + off;  // a block of pointers for a block
  if (is_product) {
    helpers_.insert("_mul");  // tl has no product reduction: a combine function
    k.line("tl.store(" + k.pointer(out) + " + " + off + ", " +
           rounded(dtype, "(tl.associative_scan(" + t + ", 1, _mul) * carry)" +
                              (dtype == DType::F64 ? "" : ".to(tl.float32)")) +
           ", mask=m)");
    k.line("carry = carry * tl.reduce(" + t + ", 1, _mul)[:, None]");
  } else {
    k.line("tl.store(" + k.pointer(out) + " + " + off + ", " +
           rounded(dtype, "tl.cumsum(" + t + ", axis=1) + carry") + ", mask=m)");
    k.line("carry = carry + tl.sum(" + t + ", axis=1)[:, None]");
  }
  k.pop();
  if (flip) k.touch(static_cast<int>(flip - g_.nodes().data()));
  std::string rows_py = product(plan.kept), cols_py = product(plan.reduced);
  forward_.push_back(tile_line(false, rows_py, cols_py));
  finish_kernel(k, {"ROWS", "COLS"}, {"BLOCK_M", "BLOCK_R"},
                "(triton.cdiv(" + rows_py + ", BLOCK_M),)", {rows_py, cols_py},
                {"BLOCK_M", "BLOCK_R"});
  buffers_[flip ? flip->output : n.output] = {out, true};
}

}  // namespace drtriton::codegen
