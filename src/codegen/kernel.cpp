// The kernel builder's helpers (kernel.h): text, index algebra, loads.
#include "codegen/kernel.h"

#include <cctype>

namespace drtriton::codegen {

std::string product(const std::vector<std::string>& factors) {
  std::vector<std::string> kept;
  for (const auto& f : factors) {
    if (f != "1") kept.push_back(f);
  }
  if (kept.empty()) return "1";
  if (kept.size() == 1) return kept[0];
  std::string s;
  for (size_t i = 0; i < kept.size(); ++i) s += (i ? " * " : "") + kept[i];
  return "(" + s + ")";
}

std::string join(const std::vector<std::string>& items, const std::string& sep) {
  std::string s;
  for (size_t i = 0; i < items.size(); ++i) s += (i ? sep : "") + items[i];
  return s;
}

std::string python_name(std::string s) {
  for (char& c : s) {
    if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
  }
  return s;
}

std::string offset_by(const std::string& a, int64_t b) {
  return b == 0 ? a : b > 0 ? a + " + " + std::to_string(b) : a + " - " + std::to_string(-b);
}
std::string scaled(const std::string& a, int64_t f) {
  return f == 1 ? a : a + " * " + std::to_string(f);
}

std::string tuple(const std::vector<std::string>& items) {
  return items.size() == 1 ? "(" + items[0] + ",)" : "(" + join(items, ", ") + ")";
}

bool is_dropout(Op op) {
  return op == Op::Dropout || op == Op::Dropout2d || op == Op::Dropout3d || op == Op::AlphaDropout;
}

bool drops(const Node& n) {
  return is_dropout(n.op) && attr_float(n.attrs, "p") > 0;
}

std::vector<std::string> decompose(Kernel& k, const std::string& linear,
                                   const std::vector<std::string>& shape) {
  std::vector<std::string> idx(shape.size());
  std::vector<std::string> inner;
  for (int d = static_cast<int>(shape.size()) - 1; d >= 0; --d) {
    std::string stride = k.size_product(inner);
    std::string q = stride == "1" ? linear : "(" + linear + " // " + stride + ")";
    if (shape[d] == "1" || linear == "0") {
      idx[d] = "0";  // a literal, so that loads see a broadcast scalar
    } else {
      idx[d] = k.assign(d == 0 ? q : q + " % " + k.size(shape[d]));
      k.note_digit(idx[d], {linear, shape, static_cast<size_t>(d)});
    }
    inner.insert(inner.begin(), shape[d]);
  }
  return idx;
}

std::vector<std::string> memory_order(std::vector<std::string> dims) {
  std::rotate(dims.begin() + 1, dims.begin() + 2, dims.end());
  return dims;
}
std::vector<std::string> channels_last_shape(const std::vector<std::string>& shape) {
  std::vector<std::string> marked = memory_order(shape);
  marked.push_back("channels_last");
  return marked;
}
std::string memory_format(size_t rank) {
  return rank == 4 ? "torch.channels_last" : "torch.channels_last_3d";
}
std::vector<std::string> logical_order(std::vector<std::string> dims) {
  std::rotate(dims.begin() + 1, dims.end() - 1, dims.end());
  return dims;
}

// The dims idx[d..] that are consecutive digits of one decomposed number over the same sizes:
// how many (1 where idx[d] is not such a digit).
static size_t digit_run(const Kernel& k, const std::vector<std::string>& idx,
                        const std::vector<std::string>& shape, size_t d) {
  const Kernel::Digit* first = k.digit(idx[d]);
  if (!first || first->shape[first->dim] != shape[d]) return 1;
  size_t n = 1;
  for (; d + n < idx.size() && first->dim + n < first->shape.size(); ++n) {
    const Kernel::Digit* next = k.digit(idx[d + n]);
    if (!next || next->linear != first->linear || next->shape != first->shape ||
        next->dim != first->dim + n || shape[d + n] != first->shape[first->dim + n])
      break;
  }
  return n;
}

std::string linearize(Kernel& k, const std::vector<std::string>& idx,
                      const std::vector<std::string>& shape) {
  std::vector<std::string> terms;
  for (size_t d = 0; d < idx.size();) {
    size_t run = digit_run(k, idx, shape, d);
    std::string value = idx[d];
    if (run > 1) {  // digits dim..dim+run-1 of one number: (linear // after) % their sizes
      const Kernel::Digit& digit = *k.digit(idx[d]);
      auto from = digit.shape.begin() + static_cast<std::ptrdiff_t>(digit.dim);
      std::string after =
          k.size_product({from + static_cast<std::ptrdiff_t>(run), digit.shape.end()});
      std::string quotient =
          after == "1" ? digit.linear : "(" + digit.linear + " // " + after + ")";
      value = digit.dim == 0
                  ? quotient
                  : "(" + quotient + " % " +
                        k.size_product({from, from + static_cast<std::ptrdiff_t>(run)}) + ")";
    }
    size_t last = d + run - 1;
    if (run > 1 || (shape[d] != "1" && idx[d] != "0")) {
      std::vector<std::string> inner(shape.begin() + static_cast<std::ptrdiff_t>(last) + 1,
                                     shape.end());
      std::string stride = k.size_product(inner);
      terms.push_back(stride == "1" ? value : value + " * " + stride);
    }
    d += run;
  }
  return terms.empty() ? "0" : "(" + join(terms, " + ") + ")";
}

std::string load_at(Kernel& k, const std::string& var, const std::string& offset,
                    const std::string& mask, const std::string& other, bool widen) {
  // An element every lane reads (a broadcast scalar: a constant offset, x[:, 5]'s channel)
  // is one unmasked scalar load, whatever the mask: a block mask needs a block of pointers.
  const bool scalar = is_digits(offset);
  std::string key = "load " + var + "[" + offset + "]" + (scalar ? "" : " if " + mask);
  if (const std::string* t = k.find(key)) return *t;
  std::string pointer = offset == "0" ? k.pointer(var) : k.pointer(var) + " + " + offset;
  std::string load = scalar ? "tl.load(" + pointer + ")"
                            : "tl.load(" + pointer + ", mask=" + mask + ", other=" + other + ")";
  std::string t = k.assign(widen ? load + ".to(tl.float32)" : load);
  k.remember(key, t);
  return t;
}

std::string load_mask(const Index& idx, const std::vector<std::string>& dims) {
  bool same =
      !idx.outer_mask.empty() && std::all_of(dims.begin(), dims.end(), [&](const std::string& d) {
        return is_digits(d) || idx.invariant.count(d) > 0;
      });
  return same ? idx.outer_mask : idx.mask;
}

std::string named(Kernel& k, const std::string& expr) {
  return is_identifier(expr) ? expr : k.assign(expr);
}

}  // namespace drtriton::codegen
