// The lowering of codegen.h (internal to codegen): one pass over the graph that decides what
// becomes a buffer and which nodes each kernel computes (plan.cpp), writes the kernels
// (emit_*.cpp, with the launch configurations of schedule.h) and assembles the solution
// (solution.cpp).
#pragma once

#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "codegen/codegen.h"
#include "codegen/kernel.h"
#include "codegen/pointwise.h"
#include "codegen/schedule.h"

namespace drtriton::codegen {

// How one operand of the forward is held: a tensor variable in the forward, or nothing
// (an expression, evaluated inside whichever kernel reads it).
struct Buffer {
  std::string var;
  bool written_by_kernel = false;
};

// The dims a reduction, softmax or log-softmax node reduces, each in 0..rank-1, in order.
std::vector<int> reduced_dims(const Node& n, int rank);

// A reduction over a regrouped view of its input: rows enumerate `kept`, columns `reduced`;
// `to_input` maps (row index, column index) to an index of the input, `row_of` maps an
// index of the normalized output back to its row's index.
struct ReducePlan {
  std::vector<std::string> kept, reduced;
  int64_t traced_rows = 1, traced_cols = 1;  // their products at the traced sizes
  // Consecutive rows are consecutive in memory (the innermost dim is kept: a sum over the
  // middle dim, a batch norm's channels in channels-last): the tile then spans many rows
  // (_tile_rows), so that its loads run along them.
  bool rows_contiguous = false;
  std::function<std::vector<std::string>(const std::vector<std::string>&,
                                         const std::vector<std::string>&)>
      to_input;
  std::function<std::vector<std::string>(const std::vector<std::string>&)> row_of;
};

// One statistic of a statistics kernel: its recipe ("sum", "max_sumexp", "var", ...), the
// node it is for, whose attributes (eps, correction) its results read, and the value it
// reduces (-1: the kernel's input; another of the same rows, as the products and norms of a
// cosine similarity, shares the column loop too).
struct Statistic {
  std::string what;
  const Node* node;
  ValueId input = -1;
};

// Whether `view`, computing a GEMM's right operand B [.., K, N] of `rank` dims from its input
// X, keeps K as X's last dim (K-contiguous: TF32 tensor-core products take B as stored), and,
// with `only_last_two`, moves no other dim (X is then [.., N, K], read as a Linear's weight).
bool k_contiguous_view(const Node& view, int rank, bool only_last_two);

// One dim of a sliding window (pools, depthwise convolutions): positions start + j * dilation
// for j < size, inside the input where they are in [0, stop). Offsets (j * dilation) under
// `first_inside` may fall before the input (padding), those over `last_inside` past its end
// (or the window's stop): the others need no check.
struct WindowDim {
  std::string start, stop;
  int64_t size = 1, dilation = 1;
  int64_t first_inside = 0, last_inside = -1;
};

// A loop the trace unrolled (loops.cpp): `steps` copies of a body of `length` nodes from node
// `first` on; copy i reads input `over` at index i of dim `dim` (a select), and reads the copy
// before's result at each offset of `carried` where the first copy reads the value mapped there.
struct StepLoop {
  int first = 0, length = 0, steps = 0;
  ValueId over = -1;
  int dim = 0;
  std::map<int, ValueId> carried;
};
std::optional<StepLoop> find_step_loop(const Graph& g);
// The solution's loop variable, a kernel argument that is no constexpr (one compile, not one
// a step).
inline constexpr const char* kStep = "step";

// The lowering's state and steps. One Lowering lowers one graph: run() walks the nodes in
// order, and each node either stays an expression or writes a buffer through an emitter.
class Lowering {
 public:
  Lowering(const Graph& g, const CodegenOptions& options,
           std::optional<StepLoop> loop = std::nullopt)
      : g_(g), options_(options), loop_(std::move(loop)) {
    const std::string& layout = options.knobs.layout;
    nhwc_ = layout == "channels_last" || (layout == "auto" && prefers_channels_last());
  }

  // The whole solution: lower_graph, then the Python file around its kernels and forward.
  GeneratedSolution run();

 private:
  // ---- plan.cpp: sizes, buffers, and which nodes a kernel computes ----
  // The walk over the nodes: each becomes an expression or writes a buffer; a value read
  // more than once is written once when recomputing it costs more than the recompute limit.
  void lower_graph();
  std::vector<std::string> shape_of(ValueId v);
  std::string dim_var(const std::string& expr);
  std::string numel_py(ValueId v) { return product(shape_of(v)); }
  bool is_buffer(ValueId v) const { return buffers_.count(v) > 0; }
  // A new buffer (torch.empty in the forward); NHWC (NDHWC) in memory if `channels_last`.
  std::string alloc(const std::vector<std::string>& shape, DType dtype, bool channels_last = false);
  int cost(ValueId v);
  int tensors_read(ValueId v);
  std::optional<ValueId> reshaped_buffer(ValueId v);
  // The values `v`'s readers reach through elementwise nodes only (`v` included), and the
  // other nodes that read them (node index -> the values it reads of them).
  struct ElementwiseRegion {
    std::set<ValueId> values;
    std::map<int, std::set<ValueId>> readers;
  };
  ElementwiseRegion elementwise_region(ValueId v);
  bool evaluated_in_one_kernel(ValueId v);
  bool rereads_one_tensor(ValueId v);
  bool read_by_window(ValueId v);
  bool recomputed_by_pools(ValueId v);
  bool reads_window(ValueId v, bool pools = true);
  // A convolution whose output channels each read one input channel (groups = in_channels:
  // depthwise; or one input channel) over at most kMaxConvWindow positions: an expression,
  // a window like a pool's (emit_depthwise_conv), not a library call (the depthwise knob).
  bool is_depthwise_conv(const Node& n) const;
  // groups = in_channels over at most 49 positions (7x7): a window an expression may unroll.
  bool depthwise_window(const Node& n) const;
  // A 2-d depthwise convolution over several channels under depthwise=auto: cuDNN's where the
  // program runs channels-last, else unrolled.
  bool depthwise_by_layout(const Node& n) const;
  int64_t conv_positions(const Node& n) const;  // the product of its kernel sizes
  std::string param_var(const Node& n, const std::string& rel);
  bool has_param(const Node& n, const std::string& rel) const;
  // The dtype of the module's state entry `rel` ("running_var"); f32 when it is unknown.
  DType state_dtype(const Node& n, const std::string& rel) const;
  // A load of a state entry of that dtype, as kernels hold values: fp16 and bf16 in fp32.
  std::string widened(DType dtype, const std::string& load) const {
    return dtype == DType::F16 || dtype == DType::BF16 ? load + ".to(tl.float32)" : load;
  }
  // Layout knob: 4-d and 5-d values that read a channels-last buffer are written channels-last
  // (those a convolution takes, or several kernels read), or else NCHW in tiles.
  bool channels_last() const { return nhwc_; }
  bool prefers_channels_last() const;  // layout=auto's choice for this graph
  // A convolution that layout=auto runs NCHW inside a channels-last program: cuDNN would run
  // it on TF32 in NHWC and on fp32 in NCHW.
  bool keeps_nchw(const Node& n) const;
  // Whether `v`'s expression reads memory whose channels vary fastest: a channels-last buffer,
  // or a row-major [N, H, W, C] one seen through permute(0, 3, 1, 2) (with any layout knob).
  bool reads_channels_last(ValueId v);
  // A permute of a 4-d or 5-d value between NCHW and channels-last order: +1 for (0, 2, 3, 1),
  // into [N, H, W, C]; -1 for (0, 3, 1, 2), back; 0 for any other node.
  static int channels_permute(const Node& n);
  bool wants_channels_last(ValueId v) {
    int rank = g_.value(v).type.rank();
    return (rank == 4 || rank == 5) && reads_channels_last(v);
  }
  std::string conv_operand(ValueId v);
  std::string as_tensor(ValueId v);  // a buffer or a torch view of one, for library calls
  bool triton_gemm(const Node& n) const;
  bool gemm_pays(const Node& n) const;
  void plan_gemm(const Node& n);

  // ---- emit_pointwise.cpp: a kernel's launch, and the kernel that writes a value ----
  void finish_kernel(Kernel& k, const std::vector<std::string>& extra_params,
                     const std::vector<std::string>& constexprs, const std::string& grid,
                     const std::vector<std::string>& extra_args,
                     const std::vector<std::string>& constexpr_args,
                     const std::vector<std::string>& launch_options = {});
  std::string materialize(ValueId v, bool channels_last = false);
  std::string kernel_name(const Node& n, const std::string& what) const {
    return "k" + std::to_string(kernels_.size()) + "_" + n.schema().name + "_" + what;
  }

  // ---- emit_expr.cpp: element expressions, evaluated inside whichever kernel reads them ----
  std::string emit(Kernel& k, ValueId v, const Index& idx);
  // What a kernel remembers `v` at `idx` by: emit's memo, which the GEMM epilogue fills
  // with the accumulator so that the chain reading the product reads the tile.
  static std::string value_key(ValueId v, const Index& idx) {
    return "value " + std::to_string(v) + "[" + join(idx.dims, ",") + "] if " + idx.mask;
  }
  std::string emit_node(Kernel& k, const Node& n, const Index& idx);
  std::string arange_value(Kernel& k, const Node& n, const Index& idx);
  std::string load(Kernel& k, const std::string& var, ValueId v, const Index& idx);
  Index broadcast_index(ValueId in, ValueId out, const Index& idx);
  std::string emit_pool(Kernel& k, const Node& n, const Index& idx);
  std::string emit_depthwise_conv(Kernel& k, const Node& n, const Index& idx);
  std::string adaptive_window_sum(Kernel& k, const Node& n, const Index& idx,
                                  const std::vector<WindowDim>& window);
  std::string emit_dropout(Kernel& k, const Node& n, const Index& idx);

  // ---- emit_library.cpp: library calls (convolutions, matmuls, recurrent layers) ----
  void lower_anchor(const Node& n);
  bool read_by_library_only(ValueId v);
  void lower_recurrent(const Node& n);

  // ---- emit_gemm.cpp ----
  void lower_gemm(const Node& n, ValueId root);
  // A GEMM's operands (A, then B; a Linear's input alone), and whether the GEMM writes one
  // first rather than evaluating it in its loads.
  std::vector<ValueId> gemm_operands(const Node& n) const;
  bool gemm_writes_first(const Node& n, ValueId in);
  // The forward variables of a GEMM's operands as TMA reads them, A [.., M, K] and
  // W [.., N, K], both row-major; `batched`: rows of several batch entries; `copied`: W is a
  // K-major copy of the right operand, `a_copied`: A one of the left operand (the transposed
  // view of a buffer), which every load of it reads.
  struct KMajor {
    std::string a, w;
    bool a_batched = false, w_batched = false, copied = false, a_copied = false;
  };
  std::optional<KMajor> k_major_operands(const Node& n, const std::vector<ValueId>& operands);
  std::string k_major_copy(ValueId b);

  // ---- emit_reduce.cpp: statistics kernels, reductions, global pools, nll_loss ----
  int memory_innermost(ValueId v);
  ReducePlan plan_dims(ValueId in, const std::vector<int>& reduced);
  // `element` gives the reduced value at an index of `in` (default: `in`'s own value);
  // `result` is the results' type (argmax and argmin: int64): fp32, the statistics of a
  // normalization, or a reduction's own output type (fp16 rounds once, from fp32, at the store).
  // Several statistics of one plan ("max_sumexp", "var", "mean", ...) share one column loop
  // (horizontal fusion: each input is read once); each gets its buffers.
  std::vector<std::vector<std::string>> stats_kernel(const std::vector<Statistic>& stats,
                                                     ValueId in, const ReducePlan& plan,
                                                     const Element& element = nullptr,
                                                     DType result = DType::F32);
  std::vector<std::string> stats_kernel(const std::string& what, ValueId in, const ReducePlan& plan,
                                        const Node& n, const Element& element = nullptr,
                                        DType result = DType::F32) {
    return stats_kernel({{what, &n}}, in, plan, element, result)[0];
  }
  void lower_statistics(const Node& n);
  bool available(ValueId v, int before);
  bool same_rows(ValueId in, ValueId other);
  bool is_global_pool(const Node& n) const;
  void lower_global_pool(const Node& n);
  void lower_nll_loss(const Node& n);
  std::string nll_term(Kernel& k, const Node& n, const Index& idx, bool count);

  // ---- emit_norm.cpp: normalizations ----
  void lower_normalization(const Node& n);
  bool lower_in_one_pass(const std::vector<Statistic>& stats, const std::vector<int>& dims);
  const Node* next_stage(const ElementwiseRegion& chain, ValueId in, const std::vector<int>& dims);
  std::optional<std::set<ValueId>> row_chain(ValueId r, ValueId in, const std::vector<int>& dims);
  const Node* group_norm_under_mean(const Node& mean);
  bool folds_into_mean(const Node& norm);
  void lower_mean_of_group_norm(const Node& mean, const Node& norm);
  void lower_batch_norm(const Node& n, const ReducePlan& plan);
  void lower_instance_norm(const Node& n, const ReducePlan& plan);
  // What a norm with running statistics reads from its node: eps, momentum (NaN for
  // momentum=None) and the forward variables of running_mean and running_var.
  struct RunningStats {
    std::string eps;
    double momentum;
    std::string mean, var;
  };
  RunningStats running_stats(const Node& n);
  void indent_forward_since(size_t line);

  // ---- loops.cpp: a loop the trace unrolled, lowered once inside a Python loop ----
  void open_step_loop();
  void close_step_loop();
  bool reads_step(const Node& n) const;  // a select of the loop's input at the step

  // ---- emit_scan.cpp, emit_attention.cpp ----
  void lower_scan(const Node& n);
  // Attention by hand, (q @ k.transpose(-2, -1)) * scale, masked_fill(mask, -inf) or not, a
  // softmax over the keys, then @ v, where nothing else reads the scores: one attention
  // kernel as for an sdpa node.
  struct Attention {
    ValueId q, key, v;
    std::string scale;  // forward's expression; empty: PyTorch's default, 1/sqrt(head dim)
    // The where that masks the scores (-1: none): its condition, and its value.
    ValueId mask = -1, masked = -1;
    bool drop_when_true = true;  // the condition says where the scores become -inf
    std::set<int> inside;        // the scores, their scaling, masking and softmax
  };
  void plan_attention();
  void lower_attention(const Attention& a, bool causal, ValueId out);

  // ---- solution.cpp: the Python file ----
  std::string header(const std::string& body);
  std::string contents() const;
  std::string model_class();

  // ---- What every emitter shares ----
  // The first grid axis's program index: 64-bit when some tensor is too large for 32-bit
  // offsets.
  std::string program_id() const {
    return int64_index_ ? "tl.program_id(0).to(tl.int64)" : "tl.program_id(0)";
  }
  // What a store of a `dtype` tensor writes: bf16 rounded to nearest even (_round_bf16).
  std::string rounded(DType dtype, const std::string& x) {
    if (dtype != DType::BF16) return x;
    helpers_.insert("_round_bf16");
    return "_round_bf16(" + x + ")";
  }

  // fp16 and bf16 values (and the parameters of a module whose output is one) are loaded
  // into fp32.
  bool low_precision(ValueId v) const {
    DType dtype = g_.value(v).type.dtype;
    return dtype == DType::F16 || dtype == DType::BF16;
  }
  // A value cast to `dtype` as kernels hold it: floating values in fp32, fp16 and bf16 ones
  // rounded to their precision first (as PyTorch rounds on the cast); bool as a comparison;
  // integers truncated toward zero.
  std::string cast_to(DType from, DType dtype, const std::string& x) {
    std::string fp32 = is_floating(from) ? x : x + ".to(tl.float32)";
    switch (dtype) {
      case DType::F16: return x + ".to(tl.float16).to(tl.float32)";
      case DType::BF16: return rounded(DType::BF16, fp32) + ".to(tl.float32)";
      case DType::Bool: return "(" + x + " != 0)";
      case DType::I64: return x + ".to(tl.int64)";
      case DType::I32: return x + ".to(tl.int32)";
      case DType::F32: return fp32;
      default:
        throw IrError("codegen: no cast to " + std::string(dtype_name(dtype)) + " in a kernel");
    }
  }

  const Graph& g_;
  const CodegenOptions& options_;
  std::optional<StepLoop> loop_;
  size_t loop_from_ = 0;                    // the loop body's first forward line
  std::map<ValueId, Buffer> outside_loop_;  // carried values, as held before the loop
  bool nhwc_ = false;  // convolutions run channels-last (the layout knob, or auto's choice)
  std::map<ValueId, Buffer> buffers_;
  std::map<ValueId, std::string> raw_;  // anchor results before their bias
  std::map<ValueId, std::vector<std::string>> stats_;
  std::map<ValueId, ReducePlan> plans_;
  std::map<ValueId, int> users_, cost_;
  std::map<ValueId, std::vector<int>> consumers_;  // the nodes (indices) reading each value
  // Triton GEMMs waiting for their epilogue's last value (root -> the GEMM's node index),
  // and the nodes taken.
  std::map<ValueId, int> gemm_roots_;
  // Values another kernel computes inside and never writes: a GEMM epilogue's, a one-pass
  // normalization's on the way to its output.
  std::set<ValueId> computed_inside_;
  // A reduction's value in registers, per row of the one-pass kernel being made
  // (lower_in_one_pass): emit answers every read of it with that variable.
  std::map<ValueId, std::string> row_values_;
  std::set<int> epilogue_nodes_;
  std::map<int, Attention> attentions_;  // by the index of the product with v
  std::set<int> inside_attention_;       // every Attention's `inside`
  std::set<std::string> channels_last_;  // forward variables held channels-last in memory
  std::map<ValueId, bool> reads_cl_;
  std::set<std::pair<std::string, std::string>> channels_last_weights_;  // module, format
  std::map<std::string, std::string> dim_vars_;  // expression -> forward variable
  std::vector<std::string> forward_;             // forward's lines, after the prologue
  std::vector<std::string> prologue_;
  std::vector<std::string> kernels_;  // kernel sources
  std::set<std::string> helpers_;
  std::map<std::string, std::string> param_vars_;       // state key -> forward variable
  std::map<std::string, std::string> recurrent_calls_;  // module and inputs -> results tuple
  std::map<int, int> dropout_slots_;  // a dropout node's index -> its seed's in dropout_seeds
  int next_buffer_ = 0, library_calls_ = 0;
  int current_node_ = -1;  // the node being lowered (index), -1 after the last
  // What each kernel and library call computes: (its name, the nodes), in launch order.
  std::vector<std::pair<std::string, std::set<int>>> computes_;
  bool int64_index_ = false;
};

}  // namespace drtriton::codegen
