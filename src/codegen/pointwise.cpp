#include "codegen/pointwise.h"

#include <cmath>

namespace drtriton {

namespace {

// On the GPU, CUDA's libdevice (accurate to 2 ulps, and a third of the instructions: a
// softplus kernel compiled for sm_90 came to 632 SASS instructions with these forms, 368 with
// libdevice's). Triton's interpreter has no libdevice (_LIBDEVICE is false there): the same
// functions from tl's core operations.
// tanh: a Taylor series below |x| = 0.25 (where 1 - e loses bits), the exponential form above.
constexpr const char* kTanh = R"(@triton.jit
def _tanh(x):
    if _LIBDEVICE:
        r = libdevice.tanh(x)
    else:
        ax = tl.abs(x)
        e = tl.exp(-2.0 * ax)
        big = (1.0 - e) / (1.0 + e)
        x2 = x * x
        small = ax * (1.0 + x2 * (-0.3333333333333333 + x2 * (0.13333333333333333
                      + x2 * (-0.05396825396825397 + x2 * 0.021869488536155203))))
        t = tl.where(ax < 0.25, small, big)
        r = tl.where(x < 0, -t, t)
    return r
)";

// Kahan's forms: exact to a few ulps near zero, where exp(x) - 1 and log(1 + x) cancel.
constexpr const char* kExpm1 = R"(@triton.jit
def _expm1(x):
    if _LIBDEVICE:
        r = libdevice.expm1(x)
    else:
        u = tl.exp(x)
        um1 = u - 1.0
        r = tl.where(um1 == -1.0, -1.0, um1 * x / tl.log(u))
        r = tl.where(u == 1.0, x, r)
        r = tl.where(x > 50.0, u, r)
    return r
)";

constexpr const char* kLog1p = R"(@triton.jit
def _log1p(x):
    if _LIBDEVICE:
        r = libdevice.log1p(x)
    else:
        u = 1.0 + x
        r = tl.log(u) * (x / (u - 1.0))
        r = tl.where(u == 1.0, x, r)
        r = tl.where(x > 1e30, tl.log(x), r)
    return r
)";

// torch.round: to the nearest integer, ties to the even one (floor(x + 0.5) would round
// 2.5 up). x - floor(x) is exact in binary floating point.
constexpr const char* kRoundHalfEven = R"(@triton.jit
def _round_half_even(x):
    f = tl.floor(x)
    d = x - f
    odd = f - 2.0 * tl.floor(f * 0.5) != 0.0
    return tl.where((d > 0.5) | ((d == 0.5) & odd), f + 1.0, f)
)";

constexpr const char* kMul = R"(@triton.jit
def _mul(a, b):
    return a * b
)";

constexpr const char* kSoftplus = R"(@triton.jit
def _softplus(x, beta, threshold):
    bx = x * beta
    return tl.where(bx > threshold, x, _log1p(tl.exp(bx)) / beta)
)";

// fp32 to bf16, rounded to nearest even as the GPU and PyTorch round: the bits are rounded
// here, so that the cast (a truncation in Triton's interpreter) is exact everywhere. NaN is
// cast as it is (adding to its bits could make it infinite).
constexpr const char* kRoundBf16 = R"(@triton.jit
def _round_bf16(x):
    bits = x.to(tl.uint32, bitcast=True)
    bits = (bits + 0x7FFF + ((bits >> 16) & 1)) & 0xFFFF0000
    return tl.where(x != x, x, bits.to(tl.float32, bitcast=True)).to(tl.bfloat16)
)";

std::string call(const std::string& fn, const std::string& x) {
  return fn + "(" + x + ")";
}

// torch.maximum, clamp and friends propagate NaN; tl.maximum drops it by default.
std::string max_of(const std::string& a, const std::string& b) {
  return "tl.maximum(" + a + ", " + b + ", propagate_nan=tl.PropagateNan.ALL)";
}
std::string min_of(const std::string& a, const std::string& b) {
  return "tl.minimum(" + a + ", " + b + ", propagate_nan=tl.PropagateNan.ALL)";
}

}  // namespace

const std::vector<std::pair<std::string, std::string>>& pointwise_helpers() {
  // In dependency order: a helper comes after the helpers it calls.
  static const std::vector<std::pair<std::string, std::string>> helpers = {
      {"_tanh", kTanh},
      {"_expm1", kExpm1},
      {"_log1p", kLog1p},
      {"_softplus", kSoftplus},
      {"_mul", kMul},
      {"_round_bf16", kRoundBf16},
      {"_round_half_even", kRoundHalfEven}};
  return helpers;
}

std::string float_literal(double value) {
  if (std::isnan(value)) return "float('nan')";
  if (std::isinf(value)) return value > 0 ? "float('inf')" : "float('-inf')";
  return float_to_string(value);
}

std::string pointwise_formula(const Node& node, const std::vector<std::string>& args,
                              std::set<std::string>& helpers,
                              const std::map<std::string, std::string>& scalars) {
  const Attrs& a = node.attrs;
  auto f = [&](const char* name) {
    auto it = scalars.find(name);
    return it != scalars.end() ? it->second : float_literal(attr_float(a, name));
  };
  auto use = [&](const char* helper) {
    helpers.insert(helper);
    if (std::string(helper) == "_softplus") helpers.insert("_log1p");
    return std::string(helper);
  };
  const std::string x = args.empty() ? "" : "(" + args[0] + ")";
  const std::string y = args.size() > 1 ? "(" + args[1] + ")" : "";
  switch (node.op) {
    case Op::Relu: return "tl.where(" + x + " < 0, 0.0, " + x + ")";
    case Op::Sigmoid: return call("tl.sigmoid", x);
    case Op::Tanh: return call(use("_tanh"), x);
    case Op::Gelu:
      if (attr_str(a, "approximate") == "tanh") {
        return "0.5 * " + x + " * (1.0 + " + use("_tanh") + "(0.7978845608028654 * (" + x +
               " + 0.044715 * " + x + " * " + x + " * " + x + ")))";
      }
      return "0.5 * " + x + " * (1.0 + tl.erf(" + x + " * 0.7071067811865476))";
    case Op::Mish:
      return x + " * " + use("_tanh") + "(" + use("_softplus") + "(" + x + ", 1.0, 20.0))";
    case Op::Hardswish: return x + " * " + min_of(max_of(x + " + 3.0", "0.0"), "6.0") + " / 6.0";
    case Op::Hardsigmoid: return min_of(max_of(x + " + 3.0", "0.0"), "6.0") + " / 6.0";
    case Op::Hardtanh: return min_of(max_of(x, f("min_val")), f("max_val"));
    case Op::LeakyRelu:
      return "tl.where(" + x + " > 0, " + x + ", " + x + " * " + f("negative_slope") + ")";
    case Op::Elu:
      return "tl.where(" + x + " > 0, " + x + ", " + f("alpha") + " * " + use("_expm1") + x + ")";
    case Op::Selu:
      return "1.0507009873554805 * tl.where(" + x + " > 0, " + x + ", 1.6732632423543772 * " +
             use("_expm1") + x + ")";
    case Op::Softplus:
      return use("_softplus") + "(" + x + ", " + f("beta") + ", " + f("threshold") + ")";
    case Op::Silu: return x + " * tl.sigmoid(" + x + ")";
    case Op::Exp: return call("tl.exp", x);
    case Op::Log: return call("tl.log", x);
    case Op::Abs: return call("tl.abs", x);
    case Op::Sqrt: return call("tl.sqrt_rn", x);
    case Op::Rsqrt: return "1.0 / tl.sqrt_rn(" + x + ")";
    case Op::Neg: return "-" + x;
    case Op::Reciprocal: return "1.0 / " + x;
    case Op::Square: return x + " * " + x;
    case Op::Pow: {
      double e = attr_float(a, "exponent");
      if (e == 1) return x;
      if (e == 2) return x + " * " + x;
      if (e == 3) return x + " * " + x + " * " + x;
      if (e == 0.5) return call("tl.sqrt_rn", x);
      if (e == -1) return "1.0 / " + x;
      if (e == 0) return "tl.full(" + x + ".shape, 1.0, tl.float32)";
      // x ** e = exp(e log x) for x > 0 (the operator's domain); 0 ** e = 0 for e > 0.
      return "tl.where(" + x + " == 0, " + (e > 0 ? "0.0" : "float('inf')") + ", tl.exp(" +
             float_literal(e) + " * tl.log(" + x + ")))";
    }
    case Op::Clamp: return min_of(max_of(x, f("min")), f("max"));
    case Op::ClampMin: return max_of(x, f("min"));
    case Op::ClampMax: return min_of(x, f("max"));
    case Op::Erf: return call("tl.erf", x);
    case Op::Sin: return call("tl.sin", x);
    case Op::Cos: return call("tl.cos", x);
    case Op::Sign: return "((" + x + " > 0).to(tl.float32) - (" + x + " < 0).to(tl.float32))";
    case Op::Round: return call(use("_round_half_even"), x);
    case Op::Floor: return call("tl.floor", x);
    case Op::Ceil: return call("tl.ceil", x);
    case Op::Trunc: return "tl.where(" + x + " < 0, tl.ceil(" + x + "), tl.floor(" + x + "))";
    case Op::AddScalar: return x + " + " + f("other");
    case Op::SubScalar: return x + " - " + f("other");
    case Op::RsubScalar: return f("other") + " - " + x;
    case Op::MulScalar: return x + " * " + f("other");
    case Op::DivScalar: return x + " / " + f("other");
    case Op::GtScalar: return x + " > " + f("other");
    case Op::LtScalar: return x + " < " + f("other");
    case Op::GeScalar: return x + " >= " + f("other");
    case Op::LeScalar: return x + " <= " + f("other");
    case Op::EqScalar: return x + " == " + f("other");
    case Op::NeScalar: return x + " != " + f("other");
    case Op::LogicalNot: return x + " == 0";
    case Op::Add: return x + " + " + y;
    case Op::Sub: return x + " - " + y;
    case Op::Mul: return x + " * " + y;
    case Op::Div: return x + " / " + y;
    case Op::Maximum: return max_of(x, y);
    case Op::Minimum: return min_of(x, y);
    case Op::Gt: return x + " > " + y;
    case Op::Lt: return x + " < " + y;
    case Op::Ge: return x + " >= " + y;
    case Op::Le: return x + " <= " + y;
    case Op::Eq: return x + " == " + y;
    case Op::Ne: return x + " != " + y;
    case Op::Where: return "tl.where(" + args[0] + ", " + args[1] + ", " + args[2] + ")";
    default: break;
  }
  throw IrError("codegen: " + node.schema().name + " is not an elementwise operator");
}

}  // namespace drtriton
