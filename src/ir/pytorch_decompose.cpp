#include "ir/pytorch_decompose.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <functional>
#include <limits>
#include <optional>
#include <set>

#include "ir/error.h"
#include "ir/json_form.h"

namespace drtriton {

using json = nlohmann::json;

std::vector<std::string> sym_shape_of(const Graph& g, const Node& n) {
  const Shape& out = g.value(n.output).type.shape;
  const int rank = static_cast<int>(out.size());
  // A parameter's shape is static: its dims are numbers.
  std::vector<std::vector<std::string>> fixed(n.inputs.size());
  auto sym = [&](int input) -> const std::vector<std::string>& {
    const Value& in = g.value(n.inputs.at(input));
    if (in.kind != ValueKind::Param || !in.sym_shape.empty()) return in.sym_shape;
    if (fixed[input].empty())
      for (int64_t d : in.type.shape) fixed[input].push_back(std::to_string(d));
    return fixed[input];
  };
  std::vector<std::string> dims;
  if (n.op == Op::NllLoss)  // the targets' shape, or 0-d
    return std::get<std::string>(n.attrs.at("reduction")) == "none" ? sym(1) : dims;
  switch (n.schema().category) {
    case Category::Unary:
    case Category::Binary:
      // Broadcasting: right-aligned, taken from an input whose dim has the output's size.
      for (int d = 0; d < rank; ++d) {
        std::string found = out[d] == 1 ? "1" : "";
        for (size_t i = 0; i < n.inputs.size() && found.empty(); ++i) {
          const Value& in = g.value(n.inputs[i]);
          int j = d - (rank - in.type.rank());
          if (j >= 0 && !sym(i).empty() && in.type.shape[j] == out[d]) found = sym(i)[j];
        }
        if (found.empty()) return {};
        dims.push_back(found);
      }
      return dims;
    case Category::Reduction: {
      if (sym(0).empty()) return {};
      const int in_rank = static_cast<int>(sym(0).size());
      std::set<int64_t> reduced;
      for (int64_t d : std::get<std::vector<int64_t>>(n.attrs.at("dim")))
        reduced.insert(d < 0 ? d + in_rank : d);
      bool keep = std::get<bool>(n.attrs.at("keepdim"));
      for (int j = 0; j < in_rank; ++j) {
        if (!reduced.count(j))
          dims.push_back(sym(0)[j]);
        else if (keep)
          dims.push_back("1");
      }
      return dims;
    }
    case Category::Normalization: return sym(0);  // the input's shape
    case Category::Layout:
      if (sym(0).empty()) return {};
      if (n.op == Op::Cast || n.op == Op::Clone || n.op == Op::Contiguous || n.op == Op::Identity)
        return sym(0);  // the input's shape
      if (n.op == Op::Permute) {
        for (int64_t d : std::get<std::vector<int64_t>>(n.attrs.at("dims")))
          dims.push_back(sym(0)[d < 0 ? d + rank : d]);
      } else if (n.op == Op::Transpose) {
        dims = sym(0);
        std::swap(dims.at(std::get<int64_t>(n.attrs.at("dim0"))),
                  dims.at(std::get<int64_t>(n.attrs.at("dim1"))));
      } else if (n.op == Op::Unsqueeze) {
        dims = sym(0);
        dims.insert(dims.begin() + std::get<int64_t>(n.attrs.at("dim")), "1");
      } else if (n.op == Op::Squeeze) {
        std::set<int64_t> gone;
        for (int64_t d : std::get<std::vector<int64_t>>(n.attrs.at("dim"))) gone.insert(d);
        for (size_t j = 0; j < sym(0).size(); ++j)
          if (!gone.count(static_cast<int64_t>(j))) dims.push_back(sym(0)[j]);
      } else if (n.op == Op::Pad) {  // F.pad's amounts: the last dim first, (left, right) each
        dims = sym(0);
        const auto& amounts = std::get<std::vector<int64_t>>(n.attrs.at("pad"));
        for (size_t j = 0; j < amounts.size() / 2; ++j) {
          std::string& d = dims.at(dims.size() - 1 - j);
          d = (d.find(' ') == std::string::npos ? d : "(" + d + ")") + " + " +
              std::to_string(amounts[2 * j] + amounts[2 * j + 1]);
        }
      }
      return dims;
    case Category::Anchor: {
      if (n.op != Op::Matmul || sym(0).empty() || sym(1).empty()) return {};
      // Batch dims broadcast; then the rows of the left operand and the columns of the right.
      const Value &a = g.value(n.inputs[0]), &b = g.value(n.inputs[1]);
      for (int d = 0; d < rank - 2; ++d) {
        int ja = d - (rank - a.type.rank()), jb = d - (rank - b.type.rank());
        if (ja >= 0 && a.type.shape[ja] == out[d])
          dims.push_back(sym(0)[ja]);
        else if (jb >= 0 && b.type.shape[jb] == out[d])
          dims.push_back(sym(1)[jb]);
        else
          return {};
      }
      dims.push_back(sym(0)[a.type.rank() - 2]);
      dims.push_back(sym(1).back());
      return dims;
    }
    default: return {};
  }
}

namespace {

// The size expression of the product of `dims` (numbers, or expressions of the input's
// sizes): the numbers multiplied, the expressions joined.
std::string product(const std::vector<std::string>& dims) {
  int64_t known = 1;
  std::vector<std::string> others;
  for (const std::string& d : dims) {
    if (is_digits(d))
      known *= std::stoll(d);
    else
      others.push_back(is_identifier(d) ? d : "(" + d + ")");
  }
  std::string e = known == 1 && !others.empty() ? "" : std::to_string(known);
  for (const std::string& o : others) e += (e.empty() ? "" : "*") + o;
  return e;
}

// A traced number as a Float attribute value: ints and bools widen, non-finite floats parse.
AttrValue coerce_number(const json& v) {
  AttrValue a = attr_from_json(v, "a scalar argument");
  if (std::holds_alternative<bool>(a)) return std::get<bool>(a) ? 1.0 : 0.0;
  if (std::holds_alternative<int64_t>(a)) return static_cast<double>(std::get<int64_t>(a));
  if (!std::holds_alternative<double>(a))
    throw IrError("scalar argument " + v.dump() + " is not a number");
  return a;
}

// Adds the nodes of one composition, named after the traced node.
class Composer {
 public:
  Composer(Graph& g, std::string name) : g_(g), name_(std::move(name)) {}

  ValueId op(const char* op_name, std::vector<ValueId> ins, Attrs attrs = {}) {
    ValueId id = add(op_name, std::move(ins), std::move(attrs));
    std::vector<std::string> sym = sym_shape_of(g_, g_.nodes().back());
    if (!sym.empty()) g_.set_sym_shape(id, std::move(sym));
    return id;
  }
  // A node whose sizes the composition knows where sym_shape_of cannot tell them (an expand
  // to a size the input has elsewhere, a reshape that merges dims): `dims` are its symbolic
  // shape, kept where one of them is an expression of the input's sizes.
  ValueId shaped(const char* op_name, std::vector<ValueId> ins, Attrs attrs,
                 std::vector<std::string> dims) {
    ValueId id = add(op_name, std::move(ins), std::move(attrs));
    if (std::any_of(dims.begin(), dims.end(), [](const std::string& d) { return !is_digits(d); }))
      g_.set_sym_shape(id, std::move(dims));
    return id;
  }
  // x's dims as size expressions: its symbolic shape, else its sizes.
  std::vector<std::string> sym(ValueId x) const {
    const Value& v = g_.value(x);
    if (!v.sym_shape.empty()) return v.sym_shape;
    std::vector<std::string> dims;
    for (int64_t d : v.type.shape) dims.push_back(std::to_string(d));
    return dims;
  }
  ValueId scalar(const char* op_name, ValueId x, double other) {
    return op(op_name, {x}, {{"other", other}});
  }
  // 0, 1, ..., count - 1 in `dtype` ("i64", "f32").
  ValueId arange(int64_t count, const std::string& dtype) {
    return op(
        "arange", {},
        {{"start", 0.0}, {"end", static_cast<double>(count)}, {"step", 1.0}, {"dtype", dtype}});
  }
  // PyTorch's `reduction` argument of the losses: 0 none, 1 mean, 2 sum (over everything).
  ValueId reduce(ValueId x, int64_t reduction) {
    if (reduction == 0) return x;
    if (reduction != 1 && reduction != 2)
      throw IrError("reduction = " + std::to_string(reduction) + " is not supported");
    std::vector<int64_t> all(g_.value(x).type.rank());
    for (size_t d = 0; d < all.size(); ++d) all[d] = static_cast<int64_t>(d);
    return op(reduction == 1 ? "mean" : "sum", {x}, {{"dim", all}});
  }
  // A 0-d tensor of `like`'s dtype, or of `dtype`, holding `number` (a traced scalar:
  // {"float": "-inf"} too).
  ValueId constant(const json& number, ValueId like) {
    return constant(number, std::string(dtype_name(g_.value(like).type.dtype)));
  }
  ValueId constant(const json& number, const std::string& dtype) {
    double v = std::get<double>(coerce_number(number));
    return op("full", {}, {{"size", std::vector<int64_t>{}}, {"value", v}, {"dtype", dtype}});
  }
  int rank(ValueId x) const { return g_.value(x).type.rank(); }
  DType dtype(ValueId x) const { return g_.value(x).type.dtype; }
  int64_t size(ValueId x, int dim) const { return g_.value(x).type.shape.at(dim); }
  std::vector<int64_t> shape(ValueId x) const { return g_.value(x).type.shape; }

 private:
  ValueId add(const char* op_name, std::vector<ValueId> ins, Attrs attrs) {
    return g_.add_node(find_op(op_name)->op, ins, std::move(attrs), "",
                       name_ + "__" + std::to_string(++steps_));
  }

  Graph& g_;
  std::string name_;
  int steps_ = 0;
};

// A factory's dtype (eye, linspace) in the IR's spelling, float32 where none is asked for;
// one outside `allowed` is refused by name.
std::string factory_dtype(const std::map<std::string, json>& args, const std::string& what,
                          const std::vector<std::string>& allowed) {
  auto it = args.find("dtype");
  if (it == args.end() || it->second.is_null()) return "f32";
  std::optional<std::string> ir = ir_dtype_of(it->second);
  if (!ir || std::find(allowed.begin(), allowed.end(), *ir) == allowed.end())
    throw IrError(what + " of dtype " + torch_name_of(it->second) + " is not supported");
  return *ir;
}

// PyTorch's `reduction` argument of the losses: 0 none, 1 mean (its default), 2 sum.
int64_t reduction_of(const std::map<std::string, json>& args) {
  return args.count("reduction") ? args.at("reduction").get<int64_t>() : 1;
}

// The same as nll_loss's attribute spells it.
std::string reduction_name(const std::map<std::string, json>& args) {
  int64_t r = reduction_of(args);
  if (r < 0 || r > 2) throw IrError("reduction = " + std::to_string(r) + " is not supported");
  return r == 0 ? "none" : r == 1 ? "mean" : "sum";
}

// nll_loss of log-probabilities `logp` against integer class targets.
ValueId nll_loss(Composer& c, ValueId logp, ValueId target,
                 const std::map<std::string, json>& args) {
  Attrs attrs = {{"reduction", reduction_name(args)}};
  if (args.count("ignore_index")) attrs["ignore_index"] = args.at("ignore_index").get<int64_t>();
  return c.op("nll_loss", {logp, target}, attrs);
}

// A list of ints the trace gave as numbers (sizes computed in forward would be expressions).
std::vector<int64_t> int_list(const std::map<std::string, json>& args, const char* name) {
  auto it = args.find(name);
  if (it == args.end() || !it->second.is_array())
    throw IrError(std::string(name) + " is not a list of ints");
  std::vector<int64_t> ints;
  for (const json& v : it->second) {
    if (!v.is_number_integer())
      throw IrError(std::string(name) + " = " + it->second.dump() +
                    ": only plain ints are supported");
    ints.push_back(v.get<int64_t>());
  }
  return ints;
}

double number(const std::map<std::string, json>& args, const char* name, double fallback) {
  auto it = args.find(name);
  return it == args.end() || it->second.is_null() ? fallback : it->second.get<double>();
}

// Copies of x along each dim d: outer[d] copies of the whole dim one after another (as
// x.repeat tiles) and inner[d] copies of each element in a row (as repeat_interleave): a unit
// dim before d and one after it, expanded to the counts and merged into d. The counts may
// name more dims than x has: x is then seen with unit dims in front.
ValueId copies(Composer& c, ValueId x, const std::vector<int64_t>& outer,
               const std::vector<int64_t>& inner) {
  const size_t front = outer.size() - c.rank(x);
  std::vector<std::string> dims = c.sym(x);
  dims.insert(dims.begin(), front, "1");
  std::vector<int64_t> sizes = c.shape(x);
  sizes.insert(sizes.begin(), front, 1);
  std::vector<int64_t> unit_shape, wide_shape, out_shape;
  std::vector<std::string> unit_dims, wide_dims, out_dims;
  auto copy_dim = [&](int64_t count) {  // a unit dim, expanded to count
    unit_shape.push_back(1), unit_dims.push_back("1");
    wide_shape.push_back(count), wide_dims.push_back(std::to_string(count));
  };
  for (size_t d = 0; d < outer.size(); ++d) {
    if (outer[d] > 1) copy_dim(outer[d]);
    unit_shape.push_back(sizes[d]), unit_dims.push_back(dims[d]);
    wide_shape.push_back(sizes[d]), wide_dims.push_back(dims[d]);
    if (inner[d] > 1) copy_dim(inner[d]);
    out_shape.push_back(outer[d] * inner[d] * sizes[d]);
    out_dims.push_back(product({std::to_string(outer[d] * inner[d]), dims[d]}));
  }
  ValueId unit = c.shaped("reshape", {x}, {{"shape", unit_shape}}, unit_dims);
  ValueId wide = c.shaped("expand", {unit}, {{"size", wide_shape}}, wide_dims);
  return c.shaped("reshape", {wide}, {{"shape", out_shape}}, out_dims);
}

// x.repeat(repeats): the whole tensor tiled.
ValueId repeat(Composer& c, ValueId x, const std::vector<int64_t>& repeats) {
  if (repeats.size() < static_cast<size_t>(c.rank(x)))
    throw IrError("repeat with fewer repeats than the tensor has dims");
  for (int64_t r : repeats)
    if (r < 1) throw IrError("repeat " + std::to_string(r) + " times (an empty tensor)");
  return copies(c, x, repeats, std::vector<int64_t>(repeats.size(), 1));
}

// torch.repeat_interleave(x, r, dim): each element r times in a row along dim; without dim,
// over the flattened tensor.
ValueId repeat_interleave(Composer& c, ValueId x, int64_t r, const json& dim_arg) {
  if (r < 1) throw IrError("repeat_interleave " + std::to_string(r) + " times (an empty tensor)");
  if (dim_arg.is_null()) {  // flattened first
    int64_t n = 1;
    for (int64_t size : c.shape(x)) n *= size;
    x = c.shaped("reshape", {x}, {{"shape", std::vector<int64_t>{n}}}, {product(c.sym(x))});
  }
  const int rank = c.rank(x);
  int64_t dim = dim_arg.is_null() ? 0 : dim_arg.get<int64_t>();
  if (dim < -rank || dim >= rank) throw IrError("repeat_interleave dim " + std::to_string(dim));
  std::vector<int64_t> inner(rank, 1);
  inner[dim < 0 ? dim + rank : dim] = r;
  return copies(c, x, std::vector<int64_t>(rank, 1), inner);
}

// An adaptive max pool whose output size divides the input's (torch 2.11's trace keeps it
// whole, 2.13's decomposes it): a max pool whose window and stride are the ratio. Windows of
// varying size (an output that does not divide) have no drtriton form.
ValueId adaptive_max_pool(Composer& c, const std::vector<ValueId>& in,
                          const std::map<std::string, json>& args) {
  ValueId x = in.at(0);
  const json& sizes = args.at("output_size");
  const int n = static_cast<int>(sizes.size());
  std::vector<int64_t> window;
  for (int d = 0; d < n; ++d) {
    int64_t size = c.size(x, c.rank(x) - n + d);
    int64_t out = sizes[d].is_null() ? size : sizes[d].get<int64_t>();
    if (out < 1 || size % out != 0)
      throw IrError("adaptive max pool from " + std::to_string(size) + " to " +
                    std::to_string(out) + ": windows of different sizes are not supported");
    window.push_back(size / out);
  }
  std::string pool = "max_pool" + std::to_string(n) + "d";
  return c.op(pool.c_str(), {x}, {{"kernel_size", window}, {"stride", window}});
}

// Each vector along x's last dim as the diagonal of a square matrix (torch.diag_embed; diag
// of a vector): x[..., i] kept where i == j, the square following the vector's length.
ValueId diagonal_matrices(Composer& c, ValueId x) {
  ValueId column = c.op("unsqueeze", {x}, {{"dim", int64_t{c.rank(x)}}});
  std::vector<int64_t> shape = c.shape(x);
  shape.push_back(shape.back());
  std::vector<std::string> dims = c.sym(x);
  dims.push_back(dims.back());
  ValueId square = c.shaped("expand", {column}, {{"size", shape}}, dims);
  return c.op("tril", {c.op("triu", {square})});
}

// The diagonal at `offset` of x's matrices over dims dim1 and dim2, as a last dim
// (torch.diagonal, diag of a matrix): the matrices masked to that diagonal (tril of triu) and
// summed across it. Where the diagonal is shorter than the dim summed into, a slice from the
// end cuts it, which follows the sizes of a square matrix.
ValueId diagonal(Composer& c, ValueId x, int64_t offset, int64_t dim1, int64_t dim2) {
  const int rank = c.rank(x);
  if (rank < 2) throw IrError("diagonal of a tensor of rank " + std::to_string(rank));
  dim1 = dim1 < 0 ? dim1 + rank : dim1;
  dim2 = dim2 < 0 ? dim2 + rank : dim2;
  if (dim1 == dim2) throw IrError("diagonal with dim1 equal to dim2");
  std::vector<int64_t> order;
  for (int64_t d = 0; d < rank; ++d)
    if (d != dim1 && d != dim2) order.push_back(d);
  order.push_back(dim1);
  order.push_back(dim2);
  if (order[rank - 2] != rank - 2 || order[rank - 1] != rank - 1)
    x = c.op("permute", {x}, {{"dims", order}});
  const int64_t n = c.size(x, rank - 2), m = c.size(x, rank - 1);
  const int64_t length = offset >= 0 ? std::min(n, m - offset) : std::min(n + offset, m);
  if (length <= 0) throw IrError("diagonal at offset " + std::to_string(offset) + " is empty");
  Attrs band = {{"diagonal", offset}};
  ValueId masked = c.op("tril", {c.op("triu", {x}, band)}, band);
  // offset >= 0: x[i, i + offset], summed over the columns of row i; else over rows
  const int64_t across = offset >= 0 ? rank - 1 : rank - 2;
  ValueId d = c.op("sum", {masked}, {{"dim", std::vector<int64_t>{across}}});
  const int64_t summed_into = offset >= 0 ? n : m;
  if (length < summed_into)
    d = c.op("slice", {d},
             {{"dim", int64_t{rank - 2}}, {"start", int64_t{0}}, {"end", length - summed_into}});
  return d;
}

// One step of a recurrent cell (`kind`: "gru" for nn.GRUCell, "tanh" or "relu" for nn.RNNCell)
// on input x and hidden state h, with weights w_ih [G*H, I] and w_hh [G*H, H] and optional
// biases: the two products, then the gates as PyTorch's cells compute them (a GRU's new state
// is n + z * (h - n)).
ValueId recurrent_cell_step(Composer& c, const std::string& kind, const std::vector<ValueId>& in) {
  if (in.size() != 4 && in.size() != 6)
    throw IrError(kind + " cell with one bias and not the other is not supported");
  auto product = [&](ValueId v, ValueId w, int bias) {
    ValueId wt = c.op("transpose", {w}, {{"dim0", int64_t{0}}, {"dim1", int64_t{1}}});
    ValueId y = c.op("matmul", {v, wt});
    return in.size() == 6 ? c.op("add", {y, in[bias]}) : y;
  };
  ValueId x = in.at(0), h = in.at(1);
  ValueId gi = product(x, in.at(2), 4), gh = product(h, in.at(3), 5);
  if (kind != "gru") return c.op(kind.c_str(), {c.op("add", {gi, gh})});
  const int64_t hidden = c.size(in.at(3), 1);
  auto gate = [&](ValueId g, int64_t k) {
    return c.op("slice", {g},
                {{"dim", int64_t{1}}, {"start", k * hidden}, {"end", (k + 1) * hidden}});
  };
  ValueId r = c.op("sigmoid", {c.op("add", {gate(gi, 0), gate(gh, 0)})});
  ValueId z = c.op("sigmoid", {c.op("add", {gate(gi, 1), gate(gh, 1)})});
  ValueId n = c.op("tanh", {c.op("add", {gate(gi, 2), c.op("mul", {gate(gh, 2), r})})});
  return c.op("add", {n, c.op("mul", {z, c.op("sub", {h, n})})});
}

// torch.cdist: the p-norm of x1's row i minus x2's row j, over the last dim, for every pair
// (batch dims broadcast); each difference is an expression inside the reduction's kernel.
ValueId cdist(Composer& c, ValueId x1, ValueId x2, double p) {
  ValueId d = c.op("sub", {c.op("unsqueeze", {x1}, {{"dim", int64_t{c.rank(x1) - 1}}}),
                           c.op("unsqueeze", {x2}, {{"dim", int64_t{c.rank(x2) - 2}}})});
  const std::vector<int64_t> last = {-1};
  if (p == 2) return c.op("norm", {d}, {{"dim", last}});
  if (p <= 0) throw IrError("cdist with p = " + json(p).dump() + " is not supported");
  ValueId a = c.op("abs", {d});
  if (std::isinf(p)) return c.op("amax", {a}, {{"dim", last}});
  if (p == 1) return c.op("sum", {a}, {{"dim", last}});
  ValueId s = c.op("sum", {c.op("pow", {a}, {{"exponent", p}})}, {{"dim", last}});
  return c.op("pow", {s}, {{"exponent", 1 / p}});
}

// p-norm distance of PyTorch's pairwise_distance: ||x - y + eps|| over the last dim.
ValueId pairwise_distance(Composer& c, ValueId x, ValueId y, double eps) {
  ValueId d = c.scalar("add_scalar", c.op("sub", {x, y}), eps);
  return c.op("norm", {d}, {{"dim", std::vector<int64_t>{-1}}});
}

// einsum in general: each operand permuted to the order of all letters (the output's, then
// the summed ones) with unit dims for the letters it lacks, the product of all (one
// broadcasting expression), summed over the letters the output drops. Memory is no
// concern: the product is an expression that fuses into the sum's kernel.
ValueId einsum_by_product(Composer& c, const std::vector<std::string>& operands,
                          const std::string& out, const std::vector<ValueId>& in) {
  std::string letters = out;
  for (const std::string& o : operands)
    for (char ch : o)
      if (letters.find(ch) == std::string::npos) letters += ch;
  ValueId product = -1;
  for (size_t i = 0; i < in.size(); ++i) {
    const std::string& o = operands[i];
    std::vector<int64_t> dims;  // o's dims in the order of `letters`
    for (char ch : letters)
      if (o.find(ch) != std::string::npos) dims.push_back(static_cast<int64_t>(o.find(ch)));
    ValueId x = in[i];
    bool same = true;
    for (size_t d = 0; d < dims.size(); ++d) same = same && dims[d] == static_cast<int64_t>(d);
    if (!same) x = c.op("permute", {x}, {{"dims", dims}});
    for (size_t d = 0; d < letters.size(); ++d)
      if (o.find(letters[d]) == std::string::npos)
        x = c.op("unsqueeze", {x}, {{"dim", static_cast<int64_t>(d)}});
    product = product < 0 ? x : c.op("mul", {product, x});
  }
  if (letters.size() == out.size()) return product;
  std::vector<int64_t> summed;
  for (size_t d = out.size(); d < letters.size(); ++d) summed.push_back(static_cast<int64_t>(d));
  return c.op("sum", {product}, {{"dim", summed}});
}

// einsum as permute, matmul, permute where it is one matrix product of two operands:
// "bik,kj->bij", "bijl,lk->bijk", "ebd,be->bd". One contracted letter; the left operand's
// other letters are batch letters (also in the right operand) then rows; the right operand
// contributes at most one column letter (none: a matrix-vector product, a unit column added
// and dropped again). Any other form is a product and a sum (einsum_by_product).
ValueId einsum(Composer& c, const std::string& spec, const std::vector<ValueId>& in) {
  std::string eq;
  for (char ch : spec)
    if (ch != ' ') eq += ch;
  const size_t arrow = eq.find("->");
  std::vector<std::string> operands;
  const std::string inputs = eq.substr(0, arrow);
  for (size_t at = 0;;) {
    size_t comma = inputs.find(',', at);
    operands.push_back(inputs.substr(at, comma == std::string::npos ? comma : comma - at));
    if (comma == std::string::npos) break;
    at = comma + 1;
  }
  if (operands.size() != in.size())
    throw IrError("einsum '" + spec + "' names " + std::to_string(operands.size()) +
                  " operands, but has " + std::to_string(in.size()));
  // '...' as letters of its own (capitals the equation does not use), right-aligned across
  // operands as broadcasting aligns them; without '->' the output is the ellipsis, then the
  // letters that appear once, in alphabetical order (PyTorch's implicit form).
  std::string spare;
  for (char ch = 'Z'; ch >= 'A' && spare.size() < 8; --ch)
    if (eq.find(ch) == std::string::npos) spare.insert(spare.begin(), ch);
  size_t ellipsis = 0;
  for (size_t i = 0; i < operands.size(); ++i) {
    size_t dots = operands[i].find("...");
    if (dots == std::string::npos) continue;
    const int explicit_letters = static_cast<int>(operands[i].size()) - 3;
    const int covered = c.rank(in[i]) - explicit_letters;
    if (covered < 0 || static_cast<size_t>(covered) > spare.size())
      throw IrError("einsum '" + spec + "': operand " + std::to_string(i) + " has rank " +
                    std::to_string(c.rank(in[i])));
    ellipsis = std::max(ellipsis, static_cast<size_t>(covered));
    operands[i].replace(dots, 3, spare.substr(spare.size() - covered));
  }
  const std::string broadcast = spare.substr(spare.size() - ellipsis);
  std::string out;
  if (arrow != std::string::npos) {
    out = eq.substr(arrow + 2);
    size_t dots = out.find("...");
    if (dots != std::string::npos) out.replace(dots, 3, broadcast);
  } else {
    std::string once;
    for (char ch = 'A'; ch <= 'z'; ++ch) {
      if (!std::isalpha(static_cast<unsigned char>(ch)) || broadcast.find(ch) != std::string::npos)
        continue;
      size_t n = 0;
      for (const std::string& o : operands) n += std::count(o.begin(), o.end(), ch);
      if (n == 1) once += ch;
    }
    out = broadcast + once;
  }
  if (eq.find('.') != std::string::npos &&
      (out.find('.') != std::string::npos ||
       std::any_of(operands.begin(), operands.end(),
                   [](const std::string& o) { return o.find('.') != std::string::npos; })))
    throw IrError("einsum '" + spec + "': a '.' that is not one '...'");
  for (char ch : out)
    if (std::none_of(operands.begin(), operands.end(),
                     [&](const std::string& o) { return o.find(ch) != std::string::npos; }))
      throw IrError("einsum '" + spec + "': output letter '" + ch + "' is in no operand");
  for (size_t i = 0; i < in.size(); ++i) {
    const std::string& o = operands[i];
    if (static_cast<int>(o.size()) != c.rank(in[i]))
      throw IrError("einsum '" + spec + "': operand " + std::to_string(i) + " has rank " +
                    std::to_string(c.rank(in[i])));
    for (size_t j = 0; j < o.size(); ++j)
      if (o.find(o[j]) != j)
        throw IrError("einsum '" + spec + "': a repeated letter (a diagonal) is not supported");
  }
  auto has = [](const std::string& s, char ch) { return s.find(ch) != std::string::npos; };
  std::string batch, rows, contracted, cols;
  bool summed_alone = false;
  if (in.size() == 2) {
    const std::string &a = operands[0], &b = operands[1];
    for (char ch : a) {
      if (has(b, ch) && has(out, ch))
        batch += ch;
      else if (has(b, ch))
        contracted += ch;
      else if (has(out, ch))
        rows += ch;
      else
        summed_alone = true;
    }
    for (char ch : b) {
      if (!has(a, ch) && has(out, ch))
        cols += ch;
      else if (!has(a, ch))
        summed_alone = true;
    }
  }
  if (in.size() != 2 || summed_alone || contracted.size() != 1 || cols.size() > 1 || rows.empty() ||
      (!batch.empty() && rows.size() != 1) ||
      out.size() != batch.size() + rows.size() + cols.size())
    return einsum_by_product(c, operands, out, in);
  const std::string &a = operands[0], &b = operands[1];
  auto permute = [&](ValueId x, const std::string& from, const std::string& to) {
    std::vector<int64_t> dims;
    for (char ch : to) dims.push_back(static_cast<int64_t>(from.find(ch)));
    bool same = true;
    for (size_t i = 0; i < dims.size(); ++i) same = same && dims[i] == static_cast<int64_t>(i);
    return same ? x : c.op("permute", {x}, {{"dims", dims}});
  };
  // matmul broadcasts the left operand's leading rows against a 2-d right operand.
  ValueId lhs = permute(in[0], a, batch + rows + contracted);
  ValueId rhs = permute(in[1], b, batch + contracted + cols);
  if (cols.empty()) rhs = c.op("unsqueeze", {rhs}, {{"dim", int64_t{-1}}});
  ValueId product = c.op("matmul", {lhs, rhs});
  if (cols.empty()) product = c.op("squeeze", {product}, {{"dim", std::vector<int64_t>{-1}}});
  return permute(product, batch + rows + cols, out);
}

// log(1 + x), exact to a few ulps near 0 (Goldberg's form: log(u) * x / (u - 1), u = 1 + x),
// where log(1 + x) would lose x's digits to the rounding of 1 + x.
ValueId log1p(Composer& c, ValueId x) {
  ValueId u = c.scalar("add_scalar", x, 1.0);
  ValueId r = c.op("mul", {c.op("log", {u}), c.op("div", {x, c.scalar("sub_scalar", u, 1.0)})});
  r = c.op("where", {c.scalar("eq_scalar", u, 1.0), x, r});
  return c.op("where", {c.scalar("gt_scalar", x, 1e30), c.op("log", {x}), r});
}

// exp(x) - 1, exact to a few ulps near 0 (Kahan's form: (u - 1) * x / log(u), u = exp(x)).
ValueId expm1(Composer& c, ValueId x) {
  ValueId u = c.op("exp", {x});
  ValueId um1 = c.scalar("sub_scalar", u, 1.0);
  ValueId r = c.op("mul", {um1, c.op("div", {x, c.op("log", {u})})});
  r = c.op("where", {c.scalar("eq_scalar", um1, -1.0), c.constant(-1.0, x), r});
  r = c.op("where", {c.scalar("eq_scalar", u, 1.0), x, r});
  return c.op("where", {c.scalar("gt_scalar", x, 50.0), u, r});
}

constexpr double kPi = 3.141592653589793;
constexpr double kInf = std::numeric_limits<double>::infinity();

// The two tensor inputs of a binary function composed here; a number in either place (PyTorch's
// Scalar overloads) is refused by name.
std::pair<ValueId, ValueId> two_tensors(const std::vector<ValueId>& in, const char* function) {
  if (in.size() != 2)
    throw IrError(std::string(function) + " of a number is not supported (of two tensors it is)");
  return {in[0], in[1]};
}

// r with the sign of x, for the odd functions that compute r from |x|.
ValueId with_sign_of(Composer& c, ValueId r, ValueId x) {
  return c.op("where", {c.scalar("lt_scalar", x, 0.0), c.op("neg", {r}), r});
}

// x < 0, or x is -0 (whose reciprocal is -inf): the sign atan2 reads, as IEEE's signbit.
ValueId sign_bit(Composer& c, ValueId x) {
  ValueId zero = c.scalar("eq_scalar", x, 0.0);
  return c.scalar("lt_scalar", c.op("where", {zero, c.op("reciprocal", {x}), x}), 0.0);
}

// atan(x), Cephes' single-precision form (2 ulps): |x| is brought into [0, tan(pi/8)] through
// atan(x) = pi/2 - atan(1/x) above tan(3pi/8) and pi/4 + atan((x-1)/(x+1)) above tan(pi/8),
// where an odd polynomial of degree 9 holds.
ValueId atan(Composer& c, ValueId x) {
  ValueId ax = c.op("abs", {x});
  ValueId big = c.scalar("gt_scalar", ax, 2.414213562373095);
  ValueId mid = c.scalar("gt_scalar", ax, 0.41421356237309503);
  ValueId reduced = c.op("div", {c.scalar("sub_scalar", ax, 1.0), c.scalar("add_scalar", ax, 1.0)});
  ValueId t = c.op("where", {mid, reduced, ax});
  t = c.op("where", {big, c.op("neg", {c.op("reciprocal", {ax})}), t});
  ValueId base = c.op("where", {mid, c.constant(kPi / 4, x), c.constant(0.0, x)});
  base = c.op("where", {big, c.constant(kPi / 2, x), base});
  ValueId z = c.op("square", {t});
  ValueId p =
      c.scalar("add_scalar", c.scalar("mul_scalar", z, 8.05374449538e-2), -1.38776856032e-1);
  p = c.scalar("add_scalar", c.op("mul", {p, z}), 1.99777106478e-1);
  p = c.scalar("add_scalar", c.op("mul", {p, z}), -3.33329491539e-1);
  p = c.op("add", {c.op("mul", {c.op("mul", {p, z}), t}), t});
  ValueId r = c.op("add", {base, p});
  return with_sign_of(c, r, x);
}

// atan2(y, x) from atan of the smaller magnitude over the larger (at most 1), then the
// octant; both zero is 0 (pi where x is negative), both infinite pi/4 (3pi/4).
ValueId atan2(Composer& c, ValueId y, ValueId x) {
  ValueId ay = c.op("abs", {y}), ax = c.op("abs", {x});
  ValueId steep = c.op("gt", {ay, ax});
  ValueId r =
      atan(c, c.op("div", {c.op("where", {steep, ax, ay}), c.op("where", {steep, ay, ax})}));
  r = c.op("where", {steep, c.scalar("rsub_scalar", r, kPi / 2), r});
  r = c.op("where", {c.op("eq", {ay, ax}), c.constant(kPi / 4, r), r});
  ValueId zeros = c.op("where", {c.scalar("eq_scalar", ay, 0.0), c.constant(0.0, r), r});
  r = c.op("where", {c.scalar("eq_scalar", ax, 0.0), zeros, r});
  r = c.op("where", {sign_bit(c, x), c.scalar("rsub_scalar", r, kPi), r});
  return c.op("where", {sign_bit(c, y), c.op("neg", {r}), r});
}

// The inverse hyperbolic functions through log1p, exact near 0 where log(x + ...) cancels; past
// 1e18 (x^2 would overflow float32) through log(2x).
ValueId asinh(Composer& c, ValueId x) {
  ValueId ax = c.op("abs", {x});
  ValueId ax2 = c.op("square", {ax});
  ValueId root = c.scalar("add_scalar", c.op("sqrt", {c.scalar("add_scalar", ax2, 1.0)}), 1.0);
  ValueId r = log1p(c, c.op("add", {ax, c.op("div", {ax2, root})}));
  ValueId huge = c.scalar("add_scalar", c.op("log", {ax}), std::log(2.0));
  r = c.op("where", {c.scalar("gt_scalar", ax, 1e18), huge, r});
  return with_sign_of(c, r, x);
}

// log1p(t + sqrt(t) sqrt(t + 2)), t = x - 1 (exact for x near 1): NaN below 1, as PyTorch's.
ValueId acosh(Composer& c, ValueId x) {
  ValueId t = c.scalar("sub_scalar", x, 1.0);
  ValueId root = c.op("mul", {c.op("sqrt", {t}), c.op("sqrt", {c.scalar("add_scalar", t, 2.0)})});
  ValueId r = log1p(c, c.op("add", {t, root}));
  ValueId huge = c.scalar("add_scalar", c.op("log", {x}), std::log(2.0));
  return c.op("where", {c.scalar("gt_scalar", x, 1e18), huge, r});
}

// log1p(2|x| / (1 - |x|)) / 2 with x's sign: infinite at 1, NaN past it.
ValueId atanh(Composer& c, ValueId x) {
  ValueId ax = c.op("abs", {x});
  ValueId ratio = c.op("div", {c.scalar("mul_scalar", ax, 2.0), c.scalar("rsub_scalar", ax, 1.0)});
  ValueId r = c.scalar("mul_scalar", log1p(c, ratio), 0.5);
  return with_sign_of(c, r, x);
}

// any / all over dim (or everything): the maximum / minimum of the values as 0 and 1.
ValueId any_all(Composer& c, const std::vector<ValueId>& in,
                const std::map<std::string, json>& args, bool any) {
  ValueId x = in.at(0);
  if (c.dtype(x) != DType::Bool) x = c.scalar("ne_scalar", x, 0.0);
  x = c.op("cast", {x}, {{"dtype", std::string("f32")}});
  std::vector<int64_t> dims;
  json dim = args.count("dim") ? args.at("dim") : json();
  if (dim.is_number_integer()) {
    dims.push_back(dim.get<int64_t>());
  } else if (dim.is_array()) {
    dims = dim.get<std::vector<int64_t>>();
  } else {
    for (int d = 0; d < c.rank(x); ++d) dims.push_back(d);
  }
  bool keep = args.count("keepdim") && args.at("keepdim") == true;
  ValueId y = c.op(any ? "amax" : "amin", {x}, {{"dim", dims}, {"keepdim", keep}});
  return c.scalar("gt_scalar", y, 0.5);
}

using Rule = std::function<ValueId(Composer&, const std::vector<ValueId>&,
                                   const std::map<std::string, json>&)>;

const std::map<std::string, Rule>& rules() {
  static const Rule cdist_rule = [](Composer& c, const std::vector<ValueId>& in,
                                    const std::map<std::string, json>& args) {
    return cdist(c, in.at(0), in.at(1), number(args, "p", 2.0));
  };
  static const auto unary = [](ValueId (*composed)(Composer&, ValueId)) -> Rule {
    return [composed](Composer& c, const std::vector<ValueId>& in,
                      const std::map<std::string, json>&) { return composed(c, in.at(0)); };
  };
  static const auto cell = [](const char* kind) -> Rule {
    return [kind](Composer& c, const std::vector<ValueId>& in, const std::map<std::string, json>&) {
      return recurrent_cell_step(c, kind, in);
    };
  };
  static const std::map<std::string, Rule> table = {
      {"aten::mse_loss",
       [](Composer& c, const std::vector<ValueId>& in, const std::map<std::string, json>& args) {
         ValueId d = c.op("sub", {in.at(0), in.at(1)});
         return c.reduce(c.op("square", {d}), args.at("reduction").get<int64_t>());
       }},
      {"aten::l1_loss",
       [](Composer& c, const std::vector<ValueId>& in, const std::map<std::string, json>& args) {
         ValueId d = c.op("sub", {in.at(0), in.at(1)});
         return c.reduce(c.op("abs", {d}), reduction_of(args));
       }},
      {"aten::smooth_l1_loss",
       [](Composer& c, const std::vector<ValueId>& in, const std::map<std::string, json>& args) {
         double beta = number(args, "beta", 1.0);
         ValueId d = c.op("sub", {in.at(0), in.at(1)});
         ValueId ad = c.op("abs", {d});
         ValueId loss = ad;
         if (beta > 0) {  // 0.5 d^2 / beta inside the band, |d| - beta / 2 outside
           ValueId inside = c.scalar("mul_scalar", c.op("square", {d}), 0.5 / beta);
           ValueId outside = c.scalar("sub_scalar", ad, 0.5 * beta);
           loss = c.op("where", {c.scalar("lt_scalar", ad, beta), inside, outside});
         }
         return c.reduce(loss, args.at("reduction").get<int64_t>());
       }},
      {"aten::huber_loss",
       [](Composer& c, const std::vector<ValueId>& in, const std::map<std::string, json>& args) {
         double delta = number(args, "delta", 1.0);
         ValueId d = c.op("sub", {in.at(0), in.at(1)});
         ValueId ad = c.op("abs", {d});
         ValueId inside = c.scalar("mul_scalar", c.op("square", {d}), 0.5);
         ValueId outside = c.scalar("mul_scalar", c.scalar("sub_scalar", ad, 0.5 * delta), delta);
         ValueId loss = c.op("where", {c.scalar("lt_scalar", ad, delta), inside, outside});
         return c.reduce(loss, args.at("reduction").get<int64_t>());
       }},
      {"aten::kl_div",
       [](Composer& c, const std::vector<ValueId>& in, const std::map<std::string, json>& args) {
         ValueId input = in.at(0), target = in.at(1), loss;
         if (args.count("log_target") && args.at("log_target") == true) {
           loss = c.op("mul", {c.op("exp", {target}), c.op("sub", {target, input})});
         } else {
           // xlogy(t, t) - t * input; xlogy is 0 where t is 0 (where drops log(0)'s NaN).
           ValueId xlogx = c.op("mul", {target, c.op("log", {target})});
           ValueId zero = c.scalar("mul_scalar", target, 0.0);
           xlogx = c.op("where", {c.scalar("gt_scalar", target, 0.0), xlogx, zero});
           loss = c.op("sub", {xlogx, c.op("mul", {target, input})});
         }
         return c.reduce(loss, args.at("reduction").get<int64_t>());
       }},
      {"aten::cosine_similarity",
       [](Composer& c, const std::vector<ValueId>& in, const std::map<std::string, json>& args) {
         int64_t dim = args.count("dim") ? args.at("dim").get<int64_t>() : 1;
         double eps = number(args, "eps", 1e-8);
         Attrs over = {{"dim", std::vector<int64_t>{dim}}};
         ValueId dot = c.op("sum", {c.op("mul", {in.at(0), in.at(1)})}, over);
         ValueId n0 = c.op("clamp_min", {c.op("norm", {in.at(0)}, over)}, {{"min", eps}});
         ValueId n1 = c.op("clamp_min", {c.op("norm", {in.at(1)}, over)}, {{"min", eps}});
         return c.op("div", {dot, c.op("mul", {n0, n1})});
       }},
      {"aten::triplet_margin_loss",
       [](Composer& c, const std::vector<ValueId>& in, const std::map<std::string, json>& args) {
         if (number(args, "p", 2.0) != 2.0)
           throw IrError("triplet_margin_loss with p != 2 is not supported");
         if (args.count("swap") && args.at("swap") == true)
           throw IrError("triplet_margin_loss with swap=True is not supported");
         double eps = number(args, "eps", 1e-6), margin = number(args, "margin", 1.0);
         ValueId ap = pairwise_distance(c, in.at(0), in.at(1), eps);
         ValueId an = pairwise_distance(c, in.at(0), in.at(2), eps);
         ValueId gap = c.scalar("add_scalar", c.op("sub", {ap, an}), margin);
         ValueId loss = c.op("clamp_min", {gap}, {{"min", 0.0}});
         return c.reduce(loss, reduction_of(args));
       }},
      // Cross entropy: log_softmax over the class dim, then with class targets nll_loss (a
      // gather of each target's log-probability, reduced), with class probabilities as
      // targets -sum(target * logp) over the class dim. Label smoothing e as PyTorch's, its
      // e / C * -sum(logp) written as e * -mean(logp) (C follows the sizes): added to
      // (1 - e) times the loss, with class targets averaged over those not ignore_index.
      {"aten::cross_entropy_loss",
       [](Composer& c, const std::vector<ValueId>& in, const std::map<std::string, json>& args) {
         if (in.size() != 2) throw IrError("cross_entropy with class weights is not supported");
         ValueId x = in[0], target = in[1];
         const std::vector<int64_t> classes = {c.rank(x) == 1 ? 0 : 1};
         const double e = number(args, "label_smoothing", 0.0);
         const int64_t reduction = reduction_of(args);
         ValueId logp = c.op("log_softmax", {x}, {{"dim", classes[0]}});
         auto smoothed = [&](ValueId loss) {  // (1 - e) loss + e * -mean(logp) per sample
           ValueId uniform = c.op("neg", {c.op("mean", {logp}, {{"dim", classes}})});
           return c.op("add",
                       {c.scalar("mul_scalar", loss, 1.0 - e), c.scalar("mul_scalar", uniform, e)});
         };
         if (c.rank(target) == c.rank(x)) {
           ValueId loss =
               c.op("neg", {c.op("sum", {c.op("mul", {target, logp})}, {{"dim", classes}})});
           return c.reduce(e != 0.0 ? smoothed(loss) : loss, reduction);
         }
         if (e == 0.0) return nll_loss(c, logp, target, args);
         // Per sample, so that ignore_index masks both terms; the mean is over those kept.
         std::map<std::string, json> each = args;
         each["reduction"] = 0;
         ValueId kept = c.scalar("ne_scalar", target, number(args, "ignore_index", -100.0));
         ValueId loss = smoothed(nll_loss(c, logp, target, each));
         loss = c.op("where", {kept, loss, c.constant(0, loss)});
         if (reduction != 1) return c.reduce(loss, reduction);
         ValueId count = c.op("cast", {c.reduce(kept, 2)},  // the targets kept, as a float
                              {{"dtype", std::string(dtype_name(c.dtype(loss)))}});
         return c.op("div", {c.reduce(loss, 2), count});
       }},
      {"aten::nll_loss",
       [](Composer& c, const std::vector<ValueId>& in, const std::map<std::string, json>& args) {
         if (in.size() != 2) throw IrError("nll_loss with class weights is not supported");
         return nll_loss(c, in[0], in[1], args);
       }},
      {"drtriton::mul_by_mask",  // x * mask (bool): PyTorch's promotion, exactly (0 * inf is NaN)
       [](Composer& c, const std::vector<ValueId>& in, const std::map<std::string, json>&) {
         ValueId x = in.at(0), mask = in.at(1);
         return c.op("where", {mask, x, c.scalar("mul_scalar", x, 0.0)});
       }},
      {"aten::masked_fill",  // value where the mask holds, else x: where(mask, value, x)
       [](Composer& c, const std::vector<ValueId>& in, const std::map<std::string, json>& args) {
         ValueId x = in.at(0), mask = in.at(1);
         ValueId value = in.size() > 2 ? in[2] : c.constant(args.at("value"), x);
         return c.op("where", {mask, value, x});
       }},
      {"aten::unfold",  // x.unfold(dim, size, step) in windows that neither overlap nor
                        // skip (step == size; a ViT's patches): dim split into (count, size),
                        // the window dim moved last; a remainder shorter than size is dropped
                        // (by a slice of these sizes: other sizes must keep it a multiple)
       [](Composer& c, const std::vector<ValueId>& in, const std::map<std::string, json>& args) {
         ValueId x = in.at(0);
         const int rank = c.rank(x);
         int64_t d = args.at("dimension").get<int64_t>();
         d = d < 0 ? d + rank : d;
         const int64_t size = args.at("size").get<int64_t>(), step = args.at("step").get<int64_t>();
         if (step != size)
           throw IrError("unfold with step " + std::to_string(step) + " other than its size " +
                         std::to_string(size) + " (windows that overlap or skip) is not supported");
         const int64_t count = c.size(x, static_cast<int>(d)) / size;
         if (count == 0) throw IrError("unfold of a dim shorter than its window");
         std::vector<std::string> dims = c.sym(x);
         if (count * size != c.size(x, static_cast<int>(d))) {
           x = c.op("slice", {x}, {{"dim", d}, {"start", int64_t{0}}, {"end", count * size}});
           dims = c.sym(x);
         }
         std::vector<int64_t> shape = c.shape(x);
         shape[d] = count;
         shape.insert(shape.begin() + d + 1, size);
         dims[d] = is_digits(dims[d]) ? std::to_string(count)
                                      : "((" + dims[d] + ")//" + std::to_string(size) + ")";
         dims.insert(dims.begin() + d + 1, std::to_string(size));
         x = c.shaped("reshape", {x}, {{"shape", shape}}, dims);
         if (d == rank - 1) return x;  // the window dim is last already
         std::vector<int64_t> order;
         for (int64_t i = 0; i <= rank; ++i)
           if (i != d + 1) order.push_back(i);
         order.push_back(d + 1);
         return c.op("permute", {x}, {{"dims", order}});
       }},
      {"aten::repeat",
       [](Composer& c, const std::vector<ValueId>& in, const std::map<std::string, json>& args) {
         return repeat(c, in.at(0), int_list(args, "repeats"));
       }},
      {"aten::repeat_interleave",
       [](Composer& c, const std::vector<ValueId>& in, const std::map<std::string, json>& args) {
         if (in.size() != 1 || !args.count("repeats") || !args.at("repeats").is_number_integer())
           throw IrError(
               "repeat_interleave with a tensor of repeats is not supported (give an int)");
         return repeat_interleave(c, in[0], args.at("repeats").get<int64_t>(),
                                  args.count("dim") ? args.at("dim") : json());
       }},
      {"aten::diag_embed",  // each last-dim vector its diagonal matrix, in the last two dims
       [](Composer& c, const std::vector<ValueId>& in, const std::map<std::string, json>& args) {
         for (auto [name, fallback] : {std::pair{"offset", 0}, {"dim1", -2}, {"dim2", -1}})
           if (args.count(name) && !args.at(name).is_null() && args.at(name) != fallback)
             throw IrError("diag_embed with " + std::string(name) + " = " + args.at(name).dump() +
                           " is not supported");
         return diagonal_matrices(c, in.at(0));
       }},
      {"aten::cdist", cdist_rule},  // pairwise p-norm distances of the rows of x1 and x2
      {"aten::_cdist_forward", cdist_rule},
      {"aten::bilinear",  // y = x1^T W[o] x2 + b[o] per output o (nn.Bilinear)
       [](Composer& c, const std::vector<ValueId>& in, const std::map<std::string, json>&) {
         ValueId x1 = in.at(0), x2 = in.at(1), w = in.at(2);
         if (c.rank(w) != 3) throw IrError("bilinear with a weight of rank other than 3");
         const int64_t outs = c.size(w, 0), left = c.size(w, 1), right = c.size(w, 2);
         // x1 @ W as one matrix product: W as [left, outs * right] (the features follow
         // the inputs' sizes)
         const std::vector<std::string> wdims = c.sym(w);
         ValueId wt = c.op("permute", {w}, {{"dims", std::vector<int64_t>{1, 0, 2}}});
         wt = c.shaped("reshape", {wt}, {{"shape", std::vector<int64_t>{left, outs * right}}},
                       {wdims[1], product({wdims[0], wdims[2]})});
         ValueId t = c.op("matmul", {x1, wt});
         std::vector<int64_t> shape = c.shape(x1);
         std::vector<std::string> dims = c.sym(x1);
         shape.back() = outs, dims.back() = wdims[0];
         shape.push_back(right), dims.push_back(wdims[2]);
         t = c.shaped("reshape", {t}, {{"shape", shape}}, dims);  // [..., outs, right]
         ValueId x2_row = c.op("unsqueeze", {x2}, {{"dim", int64_t{c.rank(x2) - 1}}});
         ValueId y = c.op("sum", {c.op("mul", {t, x2_row})}, {{"dim", std::vector<int64_t>{-1}}});
         return in.size() > 3 ? c.op("add", {y, in[3]}) : y;
       }},
      {"aten::diag",  // a vector's diagonal matrix (a[i] kept where i == j), a matrix's diagonal
       [](Composer& c, const std::vector<ValueId>& in, const std::map<std::string, json>& args) {
         const int64_t offset = static_cast<int64_t>(number(args, "diagonal", 0));
         if (c.rank(in.at(0)) == 2) return diagonal(c, in[0], offset, 0, 1);
         if (c.rank(in[0]) != 1 || offset != 0)
           throw IrError("diag of a vector off the main diagonal is not supported");
         return diagonal_matrices(c, in[0]);
       }},
      {"drtriton::diagonal_matmul",  // diag(v) @ x is v[:, None] * x; x @ diag(v) is x * v
       [](Composer& c, const std::vector<ValueId>& in, const std::map<std::string, json>& args) {
         const bool left = args.at("diagonal_left").get<bool>();
         ValueId v = in.at(left ? 0 : 1), x = in.at(left ? 1 : 0);
         if (left && c.rank(x) > 1) v = c.op("unsqueeze", {v}, {{"dim", int64_t{1}}});
         return left ? c.op("mul", {v, x}) : c.op("mul", {x, v});
       }},
      {"aten::diagonal",
       [](Composer& c, const std::vector<ValueId>& in, const std::map<std::string, json>& args) {
         return diagonal(c, in.at(0), static_cast<int64_t>(number(args, "offset", 0)),
                         static_cast<int64_t>(number(args, "dim1", 0)),
                         static_cast<int64_t>(number(args, "dim2", 1)));
       }},
      {"aten::trace",  // the sum of a matrix's main diagonal
       [](Composer& c, const std::vector<ValueId>& in, const std::map<std::string, json>&) {
         if (c.rank(in.at(0)) != 2) throw IrError("trace of a tensor that is not a matrix");
         return c.op("sum", {diagonal(c, in[0], 0, 0, 1)}, {{"dim", std::vector<int64_t>{0}}});
       }},
      {"aten::linear",  // weights the program reads itself (nn.MultiheadAttention's in_proj):
                        // x @ w.T + b; a Linear module's call is one linear node instead
       [](Composer& c, const std::vector<ValueId>& in, const std::map<std::string, json>&) {
         if (c.rank(in.at(1)) != 2) throw IrError("linear with a weight of rank other than 2");
         ValueId w = c.op("transpose", {in[1]}, {{"dim0", int64_t{0}}, {"dim1", int64_t{1}}});
         ValueId y = c.op("matmul", {in[0], w});
         return in.size() > 2 ? c.op("add", {y, in[2]}) : y;
       }},
      {"aten::layer_norm",  // F.layer_norm with parameters the program reads itself, or none
       [](Composer& c, const std::vector<ValueId>& in, const std::map<std::string, json>& args) {
         ValueId x = in.at(0);
         const int n = static_cast<int>(args.at("normalized_shape").size());
         std::vector<int64_t> dims;
         for (int d = c.rank(x) - n; d < c.rank(x); ++d) dims.push_back(d);
         Attrs over = {{"dim", dims}, {"keepdim", true}};
         ValueId centered = c.op("sub", {x, c.op("mean", {x}, over)});
         ValueId var = c.op("mean", {c.op("square", {centered})}, over);
         ValueId rstd = c.op("rsqrt", {c.scalar("add_scalar", var, number(args, "eps", 1e-5))});
         ValueId y = c.op("mul", {centered, rstd});
         size_t next = 1;  // the affine tensors that are given (None ones are in args)
         if (!args.count("weight")) y = c.op("mul", {y, in.at(next++)});
         if (!args.count("bias")) y = c.op("add", {y, in.at(next)});
         return y;
       }},
      {"aten::nan_to_num",  // NaN (x != x), +inf and -inf replaced; infinities by default
                            // with the dtype's largest finite values, as PyTorch does
       [](Composer& c, const std::vector<ValueId>& in, const std::map<std::string, json>& args) {
         ValueId x = in.at(0);
         DType dtype = c.dtype(x);
         if (!is_floating(dtype)) return c.op("clone", {x});
         const double largest = dtype == DType::F16    ? 65504.0
                                : dtype == DType::BF16 ? 3.3895313892515355e38
                                : dtype == DType::F64  ? std::numeric_limits<double>::max()
                                                       : std::numeric_limits<float>::max();
         auto given = [&](const char* name, double otherwise) {
           return args.count(name) && !args.at(name).is_null()
                      ? json(std::get<double>(coerce_number(args.at(name))))
                      : json(otherwise);
         };
         ValueId y = c.op(
             "where", {c.scalar("eq_scalar", x, kInf), c.constant(given("posinf", largest), x), x});
         y = c.op("where",
                  {c.scalar("eq_scalar", x, -kInf), c.constant(given("neginf", -largest), x), y});
         return c.op("where", {c.op("ne", {x, x}), c.constant(given("nan", 0.0), x), y});
       }},
      {"aten::log_sigmoid",  // -softplus(-x): x itself below -20, where exp(x) vanishes
       [](Composer& c, const std::vector<ValueId>& in, const std::map<std::string, json>&) {
         ValueId minus = c.op("neg", {in.at(0)});
         return c.op("neg", {c.op("softplus", {minus}, {{"beta", 1.0}, {"threshold", 20.0}})});
       }},
      {"aten::einsum",
       [](Composer& c, const std::vector<ValueId>& in, const std::map<std::string, json>& args) {
         return einsum(c, args.at("equation").get<std::string>(), in);
       }},
      {"aten::hardshrink",  // x where |x| > lambd, else 0
       [](Composer& c, const std::vector<ValueId>& in, const std::map<std::string, json>& args) {
         ValueId x = in.at(0);
         ValueId outside = c.scalar("gt_scalar", c.op("abs", {x}), number(args, "lambd", 0.5));
         return c.op("where", {outside, x, c.constant(0, x)});
       }},
      {"aten::softshrink",  // x - clamp(x, -lambd, lambd): x -+ lambd outside the band, else 0
       [](Composer& c, const std::vector<ValueId>& in, const std::map<std::string, json>& args) {
         ValueId x = in.at(0);
         double lambd = number(args, "lambd", 0.5);
         return c.op("sub", {x, c.op("clamp", {x}, {{"min", -lambd}, {"max", lambd}})});
       }},
      {"aten::threshold",  // x where x > threshold, else value
       [](Composer& c, const std::vector<ValueId>& in, const std::map<std::string, json>& args) {
         ValueId x = in.at(0);
         ValueId above = c.scalar("gt_scalar", x, number(args, "threshold", 0.0));
         return c.op("where", {above, x, c.constant(args.at("value"), x)});
       }},
      {"aten::celu",  // alpha * elu(x / alpha)
       [](Composer& c, const std::vector<ValueId>& in, const std::map<std::string, json>& args) {
         double alpha = number(args, "alpha", 1.0);
         if (alpha == 0) throw IrError("celu with alpha = 0");
         if (alpha == 1) return c.op("elu", {in.at(0)}, {{"alpha", 1.0}});
         ValueId y = c.op("elu", {c.scalar("div_scalar", in.at(0), alpha)}, {{"alpha", 1.0}});
         return c.scalar("mul_scalar", y, alpha);
       }},
      {"aten::prelu",  // x where x > 0, else weight * x; one weight per channel (dim 1)
       [](Composer& c, const std::vector<ValueId>& in, const std::map<std::string, json>&) {
         ValueId x = in.at(0), w = in.at(1);
         if (c.rank(w) != 1) throw IrError("prelu with a weight of rank other than 1");
         if (c.size(w, 0) > 1 && c.rank(x) > 2) {  // [C] -> [C, 1, ...] against dims 1..
           std::vector<int64_t> shape(c.rank(x) - 1, 1);
           shape[0] = c.size(w, 0);
           w = c.op("reshape", {w}, {{"shape", shape}});
         }
         ValueId positive = c.scalar("gt_scalar", x, 0.0);
         return c.op("where", {positive, x, c.op("mul", {w, x})});
       }},
      {"drtriton::where_scalar",  // torch.where with a number for self, other or both
       [](Composer& c, const std::vector<ValueId>& in, const std::map<std::string, json>& args) {
         size_t next = 1;  // the tensors after the condition, in order
         std::optional<ValueId> self, other;
         if (!args.count("self")) self = in.at(next++);
         if (!args.count("other")) other = in.at(next++);
         // A number takes the tensor's dtype, as PyTorch promotes; two numbers make float32,
         // or int64 when both are integers.
         std::string dtype = "f32";
         if (self || other) {
           dtype = dtype_name(c.dtype(self ? *self : *other));
         } else if (args.at("self").is_number_integer() && args.at("other").is_number_integer()) {
           dtype = "i64";
         }
         return c.op("where", {in.at(0), self ? *self : c.constant(args.at("self"), dtype),
                               other ? *other : c.constant(args.at("other"), dtype)});
       }},
      {"drtriton::clamp_tensor",  // clamp with tensor bounds: maximum, then minimum
       [](Composer& c, const std::vector<ValueId>& in, const std::map<std::string, json>& args) {
         size_t next = 1;  // the tensor bounds, in order; a missing one is a null argument
         ValueId x = in.at(0);
         if (!args.count("min")) x = c.op("maximum", {x, in.at(next++)});
         if (!args.count("max")) x = c.op("minimum", {x, in.at(next++)});
         return x;
       }},
      {"drtriton::pow_scalar_base",  // b ** x = exp(x ln b) for a base b > 0
       [](Composer& c, const std::vector<ValueId>& in, const std::map<std::string, json>& args) {
         const double base = std::get<double>(coerce_number(args.at("self")));
         if (!(base > 0)) throw IrError("pow of a base <= 0 is not supported");
         return c.op("exp", {c.scalar("mul_scalar", in.at(0), std::log(base))});
       }},
      {"drtriton::pow_tensor",  // x ** y elementwise: exp(y ln x), its sign and edges PyTorch's
       [](Composer& c, const std::vector<ValueId>& in, const std::map<std::string, json>&) {
         ValueId x = in.at(0), y = in.at(1);
         // A negative base takes an integer exponent (|x| ** y, negated for an odd one); with
         // any other, ln x is NaN and so is the result, as PyTorch's.
         ValueId integral = c.op("eq", {y, c.op("floor", {y})});
         ValueId halves =
             c.scalar("mul_scalar", c.op("floor", {c.scalar("mul_scalar", y, 0.5)}), 2.0);
         ValueId odd = c.scalar("eq_scalar", c.op("sub", {y, halves}), 1.0);
         ValueId base = c.op("where", {integral, c.op("abs", {x}), x});
         ValueId a = c.op("exp", {c.op("mul", {y, c.op("log", {base})})});
         ValueId r = c.op("where", {c.scalar("lt_scalar", x, 0.0),
                                    c.op("where", {odd, c.op("neg", {a}), a}), a});
         // x ** 0 and 1 ** y are 1, NaN or not
         ValueId one = c.constant(1.0, a);
         r = c.op("where", {c.scalar("eq_scalar", y, 0.0), one, r});
         return c.op("where", {c.scalar("eq_scalar", x, 1.0), one, r});
       }},
      {"aten::log1p", unary(log1p)},
      {"aten::expm1", unary(expm1)},
      {"aten::atan", unary(atan)},
      {"aten::atan2",
       [](Composer& c, const std::vector<ValueId>& in, const std::map<std::string, json>&) {
         return atan2(c, in.at(0), in.at(1));
       }},
      {"aten::logaddexp",  // max + log1p(exp(-|a - b|)); an infinite max is the result itself
       [](Composer& c, const std::vector<ValueId>& in, const std::map<std::string, json>&) {
         auto [a, b] = two_tensors(in, "logaddexp");
         ValueId m = c.op("maximum", {a, b});
         ValueId gap = c.op("neg", {c.op("abs", {c.op("sub", {a, b})})});
         ValueId r = c.op("add", {m, log1p(c, c.op("exp", {gap}))});
         return c.op("where", {c.scalar("eq_scalar", c.op("abs", {m}), kInf), m, r});
       }},
      {"aten::hypot",  // max * sqrt(1 + (min / max)^2): no overflow of the squares; inf wins
       [](Composer& c, const std::vector<ValueId>& in, const std::map<std::string, json>&) {
         auto [a, b] = two_tensors(in, "hypot");
         ValueId x = c.op("abs", {a}), y = c.op("abs", {b});
         ValueId m = c.op("maximum", {x, y}), n = c.op("minimum", {x, y});
         ValueId q = c.op("div", {n, m});
         ValueId r =
             c.op("mul", {m, c.op("sqrt", {c.scalar("add_scalar", c.op("mul", {q, q}), 1.0)})});
         r = c.op("where", {c.scalar("eq_scalar", m, 0.0), m, r});
         // hypot(inf, NaN) is inf, as C's: either infinity decides
         r = c.op("where", {c.scalar("eq_scalar", y, kInf), y, r});
         return c.op("where", {c.scalar("eq_scalar", x, kInf), x, r});
       }},
      {"aten::xlogy",  // x log y, 0 where x is 0, NaN where y is
       [](Composer& c, const std::vector<ValueId>& in, const std::map<std::string, json>&) {
         auto [x, y] = two_tensors(in, "xlogy");
         ValueId r = c.op("mul", {x, c.op("log", {y})});
         r = c.op("where", {c.scalar("eq_scalar", x, 0.0), c.constant(0.0, r), r});
         return c.op("where", {c.op("ne", {y, y}), y, r});
       }},
      {"aten::asin",  // atan(x / sqrt((1 - x)(1 + x))): +-pi/2 at +-1, NaN past them
       [](Composer& c, const std::vector<ValueId>& in, const std::map<std::string, json>&) {
         ValueId x = in.at(0);
         ValueId cos =
             c.op("sqrt",
                  {c.op("mul", {c.scalar("rsub_scalar", x, 1.0), c.scalar("add_scalar", x, 1.0)})});
         return atan(c, c.op("div", {x, cos}));
       }},
      {"aten::acos",  // 2 atan(sqrt((1 - x) / (1 + x))): exact near 1, pi at -1
       [](Composer& c, const std::vector<ValueId>& in, const std::map<std::string, json>&) {
         ValueId x = in.at(0);
         ValueId ratio =
             c.op("div", {c.scalar("rsub_scalar", x, 1.0), c.scalar("add_scalar", x, 1.0)});
         return c.scalar("mul_scalar", atan(c, c.op("sqrt", {ratio})), 2.0);
       }},
      {"aten::tan",
       [](Composer& c, const std::vector<ValueId>& in, const std::map<std::string, json>&) {
         return c.op("div", {c.op("sin", {in.at(0)}), c.op("cos", {in.at(0)})});
       }},
      {"aten::asinh", unary(asinh)},
      {"aten::acosh", unary(acosh)},
      {"aten::atanh", unary(atanh)},
      {"aten::sinh",  // (expm1(x) - expm1(-x)) / 2: no cancellation near 0
       [](Composer& c, const std::vector<ValueId>& in, const std::map<std::string, json>&) {
         ValueId x = in.at(0);
         ValueId d = c.op("sub", {expm1(c, x), expm1(c, c.op("neg", {x}))});
         return c.scalar("mul_scalar", d, 0.5);
       }},
      {"aten::cosh",
       [](Composer& c, const std::vector<ValueId>& in, const std::map<std::string, json>&) {
         ValueId x = in.at(0);
         ValueId sum = c.op("add", {c.op("exp", {x}), c.op("exp", {c.op("neg", {x})})});
         return c.scalar("mul_scalar", sum, 0.5);
       }},
      {"aten::log2",
       [](Composer& c, const std::vector<ValueId>& in, const std::map<std::string, json>&) {
         return c.scalar("mul_scalar", c.op("log", {in.at(0)}), 1.0 / std::log(2.0));
       }},
      {"aten::exp2",  // exp(x ln 2): the rounding of x ln 2 is the condition of exp2 itself
       [](Composer& c, const std::vector<ValueId>& in, const std::map<std::string, json>&) {
         return c.op("exp", {c.scalar("mul_scalar", in.at(0), std::log(2.0))});
       }},
      {"aten::log10",
       [](Composer& c, const std::vector<ValueId>& in, const std::map<std::string, json>&) {
         return c.scalar("mul_scalar", c.op("log", {in.at(0)}), 1.0 / std::log(10.0));
       }},
      {"aten::isnan",  // NaN is the one value unequal to itself
       [](Composer& c, const std::vector<ValueId>& in, const std::map<std::string, json>&) {
         return c.op("ne", {in.at(0), in.at(0)});
       }},
      {"aten::isinf",
       [](Composer& c, const std::vector<ValueId>& in, const std::map<std::string, json>&) {
         return c.scalar("eq_scalar", c.op("abs", {in.at(0)}), kInf);
       }},
      {"aten::any",
       [](Composer& c, const std::vector<ValueId>& in, const std::map<std::string, json>& args) {
         return any_all(c, in, args, true);
       }},
      {"aten::all",
       [](Composer& c, const std::vector<ValueId>& in, const std::map<std::string, json>& args) {
         return any_all(c, in, args, false);
       }},
      {"aten::binary_cross_entropy",  // PyTorch's: logs clamped at -100, log1p(-p) for 1 - p
       [](Composer& c, const std::vector<ValueId>& in, const std::map<std::string, json>& args) {
         ValueId p = in.at(0), y = in.at(1);
         ValueId log_p = c.op("clamp_min", {c.op("log", {p})}, {{"min", -100.0}});
         ValueId log_q = c.op("clamp_min", {log1p(c, c.op("neg", {p}))}, {{"min", -100.0}});
         ValueId loss = c.op("sub", {c.op("mul", {c.scalar("sub_scalar", y, 1.0), log_q}),
                                     c.op("mul", {y, log_p})});
         if (in.size() > 2) loss = c.op("mul", {loss, in.at(2)});  // weight
         return c.reduce(loss, reduction_of(args));
       }},
      {"aten::cosine_embedding_loss",  // 1 - cos where y = 1, max(cos - margin, 0) where y = -1
       [](Composer& c, const std::vector<ValueId>& in, const std::map<std::string, json>& args) {
         ValueId a = in.at(0), b = in.at(1), y = in.at(2);
         constexpr double kEps = 1e-12;  // PyTorch's, added to each squared magnitude
         Attrs over = {{"dim", std::vector<int64_t>{c.rank(a) - 1}}};
         ValueId dot = c.op("sum", {c.op("mul", {a, b})}, over);
         ValueId aa = c.scalar("add_scalar", c.op("sum", {c.op("square", {a})}, over), kEps);
         ValueId bb = c.scalar("add_scalar", c.op("sum", {c.op("square", {b})}, over), kEps);
         ValueId cos = c.op("div", {dot, c.op("sqrt", {c.op("mul", {aa, bb})})});
         ValueId zero = c.constant(0.0, cos);
         ValueId near = c.scalar("rsub_scalar", cos, 1.0);
         ValueId far = c.op("clamp_min", {c.scalar("sub_scalar", cos, number(args, "margin", 0.0))},
                            {{"min", 0.0}});
         ValueId loss = c.op("add", {c.op("where", {c.scalar("eq_scalar", y, 1.0), near, zero}),
                                     c.op("where", {c.scalar("eq_scalar", y, -1.0), far, zero})});
         return c.reduce(loss, reduction_of(args));
       }},
      {"aten::adaptive_avg_pool1d",  // the 2-d pool of a [N, C, 1, L] view
       [](Composer& c, const std::vector<ValueId>& in, const std::map<std::string, json>& args) {
         ValueId x = c.op("unsqueeze", {in.at(0)}, {{"dim", int64_t{-2}}});
         std::vector<int64_t> size = args.at("output_size").get<std::vector<int64_t>>();
         ValueId y = c.op("adaptive_avg_pool2d", {x},
                          {{"output_size", std::vector<int64_t>{1, size.at(0)}}});
         return c.op("squeeze", {y}, {{"dim", std::vector<int64_t>{-2}}});
       }},
      {"aten::adaptive_max_pool1d", adaptive_max_pool},
      {"aten::adaptive_max_pool2d", adaptive_max_pool},
      {"aten::adaptive_max_pool3d", adaptive_max_pool},
      {"aten::outer",  // a[i] * b[j]: a column times a row
       [](Composer& c, const std::vector<ValueId>& in, const std::map<std::string, json>&) {
         return c.op("mul", {c.op("unsqueeze", {in.at(0)}, {{"dim", int64_t{1}}}),
                             c.op("unsqueeze", {in.at(1)}, {{"dim", int64_t{0}}})});
       }},
      {"aten::one_hot",  // t[..., None] == arange(classes), as int64 (the trace fixes the count)
       [](Composer& c, const std::vector<ValueId>& in, const std::map<std::string, json>& args) {
         int64_t classes = args.count("num_classes") ? args.at("num_classes").get<int64_t>() : -1;
         if (classes < 1)
           throw IrError("one_hot needs num_classes (a count read from the data is not supported)");
         ValueId all = c.arange(classes, "i64");
         ValueId t = c.op("unsqueeze", {in.at(0)}, {{"dim", int64_t{c.rank(in.at(0))}}});
         return c.op("cast", {c.op("eq", {t, all})}, {{"dtype", std::string("i64")}});
       }},
      {"aten::eye",  // arange(n)[:, None] == arange(m), in the dtype asked for
       [](Composer& c, const std::vector<ValueId>&, const std::map<std::string, json>& args) {
         int64_t n = args.at("n").get<int64_t>();
         int64_t m = args.count("m") && !args.at("m").is_null() ? args.at("m").get<int64_t>() : n;
         ValueId rows = c.op("unsqueeze", {c.arange(n, "i64")}, {{"dim", int64_t{1}}});
         return c.op(
             "cast", {c.op("eq", {rows, c.arange(m, "i64")})},
             {{"dtype", factory_dtype(args, "eye", {"f32", "f16", "bf16", "i64", "bool"})}});
       }},
      // PyTorch's two halves: start + i * step below steps / 2, end - (steps - 1 - i) * step above
      {"aten::linspace",
       [](Composer& c, const std::vector<ValueId>&, const std::map<std::string, json>& args) {
         for (const char* number : {"start", "end", "steps"})
           if (!args.count(number) || !args.at(number).is_number())
             throw IrError(std::string("linspace with a tensor ") + number + " is not supported");
         const double start = args.at("start").get<double>(), end = args.at("end").get<double>();
         const int64_t steps = args.at("steps").get<int64_t>();
         const std::string dtype = factory_dtype(args, "linspace", {"f32", "f16", "bf16"});
         if (steps < 2) throw IrError("linspace of fewer than 2 steps is not supported");
         ValueId i = c.arange(steps, "f32");
         const double step = (end - start) / static_cast<double>(steps - 1);
         ValueId low = c.scalar("add_scalar", c.scalar("mul_scalar", i, step), start);
         ValueId from_end = c.scalar("rsub_scalar", i, static_cast<double>(steps - 1));
         ValueId high = c.scalar("rsub_scalar", c.scalar("mul_scalar", from_end, step), end);
         ValueId value =
             c.op("where", {c.scalar("lt_scalar", i, static_cast<double>(steps / 2)), low, high});
         return dtype == "f32" ? value : c.op("cast", {value}, {{"dtype", dtype}});
       }},
      {"aten::diff",  // x[1:] - x[:-1] along dim, n times
       [](Composer& c, const std::vector<ValueId>& in, const std::map<std::string, json>& args) {
         for (const char* edge : {"prepend", "append"})
           if (args.count(edge) && !args.at(edge).is_null())
             throw IrError(std::string("diff with ") + edge + " is not supported");
         int64_t n = args.count("n") ? args.at("n").get<int64_t>() : 1;
         int64_t dim = args.count("dim") ? args.at("dim").get<int64_t>() : -1;
         if (n < 1) throw IrError("diff with n = " + std::to_string(n) + " is not supported");
         ValueId x = in.at(0);
         for (int64_t k = 0; k < n; ++k) {
           ValueId later = c.op(
               "slice", {x},
               {{"dim", dim}, {"start", int64_t{1}}, {"end", std::numeric_limits<int64_t>::max()}});
           ValueId earlier =
               c.op("slice", {x}, {{"dim", dim}, {"start", int64_t{0}}, {"end", int64_t{-1}}});
           x = c.op("sub", {later, earlier});
         }
         return x;
       }},
      {"aten::logit",  // log(z / (1 - z)), z = x clamped to [eps, 1 - eps] when eps is given
       [](Composer& c, const std::vector<ValueId>& in, const std::map<std::string, json>& args) {
         ValueId z = in.at(0);
         if (args.count("eps") && !args.at("eps").is_null()) {
           double eps = args.at("eps").get<double>();
           z = c.op("clamp", {z}, {{"min", eps}, {"max", 1.0 - eps}});
         }
         return c.op("log", {c.op("div", {z, c.scalar("rsub_scalar", z, 1.0)})});
       }},
      {"aten::heaviside",  // values where x == 0, else 1 above zero and 0 below
       [](Composer& c, const std::vector<ValueId>& in, const std::map<std::string, json>&) {
         ValueId x = in.at(0);
         ValueId step =
             c.op("where", {c.scalar("gt_scalar", x, 0.0), c.constant(1, x), c.constant(0, x)});
         return c.op("where", {c.scalar("eq_scalar", x, 0.0), in.at(1), step});
       }},
      {"aten::rrelu",  // in eval mode the slope is fixed: (lower + upper) / 2
       [](Composer& c, const std::vector<ValueId>& in, const std::map<std::string, json>& args) {
         if (args.count("training") && args.at("training") == true)
           throw IrError("rrelu in training mode (a random slope per element) is not supported");
         double slope = (number(args, "lower", 1.0 / 8) + number(args, "upper", 1.0 / 3)) / 2;
         return c.op("leaky_relu", {in.at(0)}, {{"negative_slope", slope}});
       }},
      {"aten::gru_cell", cell("gru")},  // nn.GRUCell and nn.RNNCell: one step each
      {"aten::rnn_tanh_cell", cell("tanh")},
      {"aten::rnn_relu_cell", cell("relu")},
      {"aten::linalg_norm",  // the Frobenius (2-) norm over dim, or over everything
       [](Composer& c, const std::vector<ValueId>& in, const std::map<std::string, json>& args) {
         ValueId x = in.at(0);
         json ord = args.count("ord") ? args.at("ord") : json();
         if (!ord.is_null() && ord != "fro" && ord != 2)
           throw IrError("linalg.norm with ord = " + ord.dump() + " is not supported");
         json dim = args.count("dim") ? args.at("dim") : json();
         std::vector<int64_t> dims;
         if (dim.is_null()) {
           for (int d = 0; d < c.rank(x); ++d) dims.push_back(d);
         } else {
           dims = dim.get<std::vector<int64_t>>();
         }
         if (ord == 2 && dims.size() != 1)
           throw IrError("linalg.norm with ord = 2 over two dims (a matrix norm) is not supported");
         bool keep = args.count("keepdim") && args.at("keepdim") == true;
         return c.op("norm", {x}, {{"dim", dims}, {"keepdim", keep}});
       }},
  };
  return table;
}

}  // namespace

std::string torch_name_of(const json& torch_name) {
  return torch_name.is_string() ? torch_name.get<std::string>() : torch_name.dump();
}

std::optional<std::string> ir_dtype_of(const json& torch_name) {
  static const std::map<std::string, std::string> names = {
      {"float32", "f32"}, {"float16", "f16"}, {"bfloat16", "bf16"}, {"float64", "f64"},
      {"int64", "i64"},   {"int32", "i32"},   {"bool", "bool"}};
  auto it = names.find(torch_name_of(torch_name));
  if (it == names.end()) return std::nullopt;
  return it->second;
}

bool is_composed(const std::string& target) {
  return rules().count(target) > 0;
}

bool composes_real_function(const std::string& target) {
  static const std::set<std::string> real = {
      "aten::log1p", "aten::expm1", "aten::atan",  "aten::atan2",     "aten::asin",  "aten::acos",
      "aten::tan",   "aten::asinh", "aten::acosh", "aten::atanh",     "aten::sinh",  "aten::cosh",
      "aten::log2",  "aten::exp2",  "aten::log10", "aten::logaddexp", "aten::hypot", "aten::xlogy"};
  return real.count(target) > 0;
}

bool composed_on_import(const Value& v) {
  return v.kind == ValueKind::Node && v.name.find("__") != std::string::npos;
}

ValueId compose_call(Graph& g, const std::string& target, const std::vector<ValueId>& inputs,
                     const std::map<std::string, json>& args, const std::string& name) {
  Composer c(g, name);
  return rules().at(target)(c, inputs, args);
}

}  // namespace drtriton
