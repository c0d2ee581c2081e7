// Library calls: convolutions, matmuls under gemm=library (or of a vector), recurrent layers.
#include "codegen/lowering.h"

namespace drtriton::codegen {

void Lowering::lower_anchor(const Node& n) {
  if (n.op == Op::Lstm || n.op == Op::Gru || n.op == Op::Rnn) return lower_recurrent(n);
  ValueId out = n.output;
  int rank = g_.value(out).type.rank();
  // A 2-d or 3-d (transposed) convolution in the channels-last layout: its input, its weight
  // and its result NHWC (NDHWC) in memory.
  bool is_conv = n.op >= Op::Conv1d && n.op <= Op::Conv3d;
  bool is_transposed = n.op >= Op::ConvTranspose1d && n.op <= Op::ConvTranspose3d;
  bool nhwc =
      channels_last() && (is_conv || is_transposed) && (rank == 4 || rank == 5) && !keeps_nchw(n);
  std::string format = memory_format(rank);
  std::vector<std::string> ins;
  for (ValueId in : n.inputs) {
    std::string tensor = nhwc ? conv_operand(in) : as_tensor(in);
    // cuDNN takes the layout of its input: an NCHW convolution reads the program's input as
    // it came (contiguous), else an NCHW copy.
    if (!nhwc && g_.value(in).kind == ValueKind::Input) tensor = python_name(g_.value(in).name);
    if (!nhwc && channels_last_.count(tensor)) tensor += ".contiguous()";
    ins.push_back(tensor);
  }
  std::string weight = n.op == Op::Linear || is_conv || is_transposed ? param_var(n, "weight") : "";
  // The weight is stored channels-last by __init__ (model_class), not converted per call.
  if (nhwc) channels_last_weights_.insert({n.module, format});
  // The bias is added by the kernel that reads the result (an expression: raw_), unless only
  // library calls read it: then the library adds it, rather than a kernel written for that.
  const bool has_bias = n.op != Op::Addmm && has_param(n, "bias");
  const bool library_bias = has_bias && read_by_library_only(out);
  const std::string bias = library_bias ? param_var(n, "bias") : "None";
  std::string call;
  auto ints = [&](const char* name) {
    std::vector<std::string> items;
    for (int64_t x : attr_ints(n.attrs, name)) items.push_back(std::to_string(x));
    return tuple(items);
  };
  int spatial = 0;
  switch (n.op) {
    case Op::Linear:
      call = "F.linear(" + ins[0] + ", " + weight + (bias == "None" ? "" : ", " + bias) + ")";
      break;
    case Op::Matmul: call = "torch.matmul(" + ins[0] + ", " + ins[1] + ")"; break;
    case Op::Bmm: call = "torch.bmm(" + ins[0] + ", " + ins[1] + ")"; break;
    case Op::Addmm: call = "torch.mm(" + ins[1] + ", " + ins[2] + ")"; break;
    case Op::Conv1d:
    case Op::Conv2d:
    case Op::Conv3d:
      spatial = 1 + static_cast<int>(n.op) - static_cast<int>(Op::Conv1d);
      call = "F.conv" + std::to_string(spatial) + "d(" + ins[0] + ", " + weight + ", " + bias +
             ", " + ints("stride") + ", " + ints("padding") + ", " + ints("dilation") + ", " +
             std::to_string(attr_int(n.attrs, "groups")) + ")";
      break;
    case Op::ConvTranspose1d:
    case Op::ConvTranspose2d:
    case Op::ConvTranspose3d:
      spatial = 1 + static_cast<int>(n.op) - static_cast<int>(Op::ConvTranspose1d);
      call = "F.conv_transpose" + std::to_string(spatial) + "d(" + ins[0] + ", " + weight + ", " +
             bias + ", " + ints("stride") + ", " + ints("padding") + ", " + ints("output_padding") +
             ", " + std::to_string(attr_int(n.attrs, "groups")) + ", " + ints("dilation") + ")";
      break;
    default: throw IrError("codegen: no lowering for " + n.schema().name);
  }
  std::string var = "lib" + std::to_string(library_calls_++);
  computes_.push_back({var, {current_node_}});
  forward_.push_back(var + " = " + call + ".contiguous(" + (nhwc ? "memory_format=" + format : "") +
                     ")");
  if (nhwc) channels_last_.insert(var);
  if (n.op == Op::Addmm || (has_bias && !library_bias)) {
    raw_[out] = var;  // the node's value is an expression: this plus the bias
  } else {
    buffers_[out] = {var, false};
  }
}

// Is every reader of `v` a library call (a convolution, a matmul left to cuBLAS), and `v` no
// output of the program? Then no kernel would take its expression in.
bool Lowering::read_by_library_only(ValueId v) {
  const std::vector<ValueId>& outputs = g_.outputs();
  if (consumers_[v].empty() || std::find(outputs.begin(), outputs.end(), v) != outputs.end())
    return false;
  for (int c : consumers_[v]) {
    const Node& n = g_.nodes()[c];
    bool conv = n.op >= Op::Conv1d && n.op <= Op::ConvTranspose3d && !is_depthwise_conv(n);
    bool matmul = (n.op == Op::Linear || n.op == Op::Matmul || n.op == Op::Bmm) && !triton_gemm(n);
    if (inside_attention_.count(c) || attentions_.count(c) || !(conv || matmul)) return false;
  }
  return true;
}

// A recurrent layer is one library call (cuDNN's fused RNN on a GPU) on the module's own
// weights, as nn.LSTM/GRU/RNN make it; each node reading one of its results shares it. A
// layer without state inputs starts from zeros, as the module does when given none.
void Lowering::lower_recurrent(const Node& n) {
  std::vector<std::string> ins;
  for (ValueId in : n.inputs) ins.push_back(as_tensor(in));
  std::string key = n.module + "(" + join(ins, ", ") + ")";
  auto it = recurrent_calls_.find(key);
  if (it == recurrent_calls_.end()) {
    int states = n.op == Op::Lstm ? 2 : 1;
    const std::string x = ins[0];  // a copy: ins grows below
    if (ins.size() == 1) {
      int64_t dirs = attr_bool(n.attrs, "bidirectional") ? 2 : 1;
      std::string batch = shape_of(n.inputs[0])[attr_bool(n.attrs, "batch_first") ? 0 : 1];
      std::string shape = tuple({std::to_string(attr_int(n.attrs, "num_layers") * dirs), batch,
                                 std::to_string(attr_int(n.attrs, "hidden_size"))});
      for (int i = 0; i < states; ++i)
        ins.push_back("torch.zeros(" + shape + ", device=device, dtype=" + x + ".dtype)");
    }
    std::vector<std::string> weights;
    for (const ParamSpec& p : g_.node_params(n))
      weights.push_back(param_var(n, p.name.substr(n.module.size() + 1)));
    std::string fn = n.op == Op::Lstm  ? "torch.lstm"
                     : n.op == Op::Gru ? "torch.gru"
                                       : "torch.rnn_" + attr_str(n.attrs, "nonlinearity");
    std::string hx = states == 2 ? "[" + ins[1] + ", " + ins[2] + "]" : ins[1];
    auto flag = [&](const char* name) { return attr_bool(n.attrs, name) ? "True" : "False"; };
    std::string var = "lib" + std::to_string(library_calls_++);
    computes_.push_back({var, {current_node_}});
    forward_.push_back(var + " = " + fn + "(" + x + ", " + hx + ", [" + join(weights, ", ") +
                       "], " + flag("bias") + ", " +
                       std::to_string(attr_int(n.attrs, "num_layers")) + ", " +
                       float_literal(attr_float(n.attrs, "dropout")) + ", self.training, " +
                       flag("bidirectional") + ", " + flag("batch_first") + ")");
    it = recurrent_calls_.emplace(key, var).first;
  }
  // The output sequence of a batch-first layer is a transposed view: copy what is not
  // contiguous, as kernels read buffers in row-major order.
  int64_t result = attr_int(n.attrs, "result");
  std::string var = it->second + "_" + std::to_string(result);
  forward_.push_back(var + " = " + it->second + "[" + std::to_string(result) + "].contiguous()");
  buffers_[n.output] = {var, false};
}

}  // namespace drtriton::codegen
