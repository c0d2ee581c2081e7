// The built-in compiler: a graph in, a KernelBench-format solution out (a `ModelNew` whose
// forward runs Triton kernels, plus library matmul/convolution calls in the default mode).
//
// How a graph becomes kernels (lowering.h):
// - Every value is either a buffer (a tensor in memory: inputs, parameters, library
//   results, reduction results) or an element expression over buffers. Elementwise ops,
//   layout ops (views, permutes, cat) and pooling windows are expressions; they cost no
//   memory traffic of their own and fuse into whatever kernel reads them.
// - A kernel writes a buffer: a pointwise kernel evaluates an expression over its whole
//   shape; a statistics kernel reduces an expression over some dims (sums, means, max,
//   softmax's max and sum of exponentials, norms' mean and 1/std) in row tiles.
// - Normalizations are statistics plus an expression: softmax is exp(x - max) / sum, with
//   max and sum from one statistics kernel, so what follows it fuses into the same
//   pointwise kernel.
// - Sizes are computed at run time from the inputs' shapes and the parameters' (Value::
//   sym_shape, StateEntry::sym_shape), so the solution runs on other input sizes than the
//   traced ones, and its text does not change with the channel and feature counts.
#pragma once

#include <random>
#include <string>
#include <utility>
#include <vector>

#include "ir/graph.h"

namespace drtriton {

// One tensor of the reference's state_dict: ModelNew declares the same ones so that one
// state_dict loads into both.
struct StateEntry {
  std::string key;  // "fc.weight", "bn.running_mean"
  TensorType type;
  bool is_buffer = false;
  bool persistent = true;
  // A plain tensor attribute (self.h0 = torch.randn(...) in __init__): in no state_dict, so
  // only a copy of Model.__init__ builds it; forward moves it to the inputs' device first.
  bool is_attribute = false;
  // One size expression per dim ("s4", "3"), as the frontend's dynamic export found them:
  // a bare symbol that no input has is read from this tensor's shape at run time. Empty
  // when the program was traced without symbols.
  std::vector<std::string> sym_shape;
};

// Choices that change the solution's text and speed, never what it computes: the
// defaults are the compiler's own, and `drtriton pairs --variants` draws others to teach
// a model more than one way to write a program. generate_solution throws
// std::invalid_argument for a value out of range.
struct CodegenKnobs {
  // BLOCK of a pointwise kernel: elements per program (a power of two, 64 to 8192).
  int pointwise_block = 1024;
  // Elements of a statistics kernel's row tile (`_tile`, a power of two, 1024 to 65536):
  // BLOCK_R covers a row up to 1024, BLOCK_M as many rows as fit the rest; an eighth of it
  // over rows next to each other in memory (`_tile_rows`: 64 rows by a few columns). A
  // one-pass normalization keeps rows of up to four tiles in registers (row_fits).
  int tile_elements = 4096;
  // num_warps of every kernel launch: 1, 2, 4, 8 or 16; 0 leaves it to Triton (4).
  int num_warps = 0;
  // A value read by several consumers is written to memory once when evaluating it inline
  // costs more than this many operations (cost counts elementwise ops; layout ops are free,
  // a pooling window costs 8 times its input); else each consumer recomputes it. 0
  // materializes every shared value, a large limit recomputes nearly all.
  int recompute_limit = 2;
  // Who computes a Linear, matmul, bmm or addmm: "triton", a Triton GEMM kernel with the
  // bias and the elementwise chain after it in its epilogue (fp32 inputs through three-pass
  // TF32, tf32x3, more accurate than cuBLAS fp32 on an H200), "library", cuBLAS followed
  // by a kernel that adds the bias and reads on, or "auto", the Triton GEMM where it was
  // measured to be faster (large products, operands in the layout tensor cores take) and
  // cuBLAS elsewhere. A matmul of a vector stays a library call.
  std::string gemm = "auto";
  // The largest tile of a Triton GEMM, "MxNxK" (M and N powers of two in 16..256, K in
  // 16..128), or "auto": 128 x 128 with K steps of 32 fp32 or 64 fp16 elements. Either way a
  // product too small to fill the GPU takes smaller tiles, and the pipeline's stages are
  // fitted to shared memory.
  std::string gemm_tile = "auto";
  // Memory layout of 2-d and 3-d (transposed) convolutions: "nchw", "channels_last"
  // (cuDNN on NHWC / NDHWC input, weight and output, as Inductor runs them), or "auto":
  // channels-last for a program whose library convolutions are 2-d, ungrouped and some
  // larger than 1x1, followed by work that reads along the channels or not at all
  // (Lowering::prefers_channels_last), else NCHW. The logical shapes stay NCHW; kernels read a
  // channels-last buffer through its permuted strides, write the buffers they hand to a convolution
  // channels-last, and the program's outputs in the reference's contiguous layout.
  std::string layout = "auto";
  // How a kernel takes the sizes it reads: "static", as tl.constexpr (a compile per shape,
  // as Inductor's static shapes): index arithmetic then divides by constants, a multiply and
  // a shift, where a runtime divisor costs about 20 instructions (a BatchNorm epilogue
  // kernel compiled for sm_90 went from 432 SASS instructions to 184; on an H200 the fused
  // corpus ran 9% faster); or "dynamic", as runtime arguments (one compile serves every
  // shape of the same divisibility).
  std::string sizes = "static";
  // The input precision of fp32 products on the tensor cores (the attention kernel, a Triton
  // GEMM): "tf32x3", three TF32 products that come to fp32 FMAs' accuracy, or "ieee", fp32
  // FMAs (tensor cores idle, slower; convert falls back to it where a tf32x3 solution is
  // rejected).
  std::string dot_precision = "tf32x3";
  // Who computes a depthwise convolution (groups = input channels) of at most 49 positions:
  // "triton", an expression unrolled over its window inside the kernel that reads it (fused
  // into an activation or residual after it), "library", a cuDNN call in the program's layout
  // (on channels-last input cuDNN's NHWC depthwise kernel), or "auto": "library" for a 2-d one
  // over several channels in a channels-last program, "triton" for the rest
  // (Lowering::is_depthwise_conv).
  std::string depthwise = "auto";
};

// Other knob settings than the defaults, for candidates that differ in text and speed only
// (`pairs --variants`, `search --variants`): each knob from a short list that holds its default.
CodegenKnobs draw_knobs(std::mt19937_64& rng);

// The knob settings `convert --tune` measures against `base`, one knob changed each
// ("layout", "channels_last"): the other layout, size passing and GEMM routes, a smaller and a
// larger pointwise block and statistics tile, 4 and 8 warps, fp32 dots in ieee, two caps on a
// GEMM's tile (longer K steps, a smaller tile), depthwise convolutions unrolled. Settings equal
// to base's are left out. Each with base's knobs under the change (convert --tune, search).
struct KnobChange {
  std::string name, value;
  CodegenKnobs knobs;
  std::string label() const { return name + "=" + value; }
};
std::vector<KnobChange> tuning_space(const CodegenKnobs& base);

// `base` on the most conservative routes, for convert to try where base's solution is
// rejected: cuBLAS for every product (gemm=library) and fp32 FMAs in the dots left
// (dot_precision=ieee), the layouts and launches of base.
CodegenKnobs fallback_knobs(const CodegenKnobs& base);

// Sets the knob `name` ("pointwise_block", "gemm", ...) from its text form, as the command
// line's `--knob NAME=VALUE` gives it; throws std::invalid_argument naming the knob and
// the values it takes.
void set_knob(CodegenKnobs& knobs, const std::string& name, const std::string& value);

struct CodegenOptions {
  std::string init_params;  // Model.__init__'s parameters after self: "in_f, out_f=10"
  std::vector<StateEntry> state;
  // Model.__init__'s source as a method (dedented), and the module-level statements it needs:
  // ModelNew copies them, so that under one seed it builds the parameters and buffers the
  // reference builds. Empty: ModelNew declares each entry of `state` uninitialized instead
  // (the verifier loads the reference's state_dict; KernelBench's harness does not).
  std::string init_method;
  std::string init_support;
  std::string source_name;  // for the header comment
  CodegenKnobs knobs;
};

struct GeneratedSolution {
  std::string source;  // the Python file
  int kernels = 0;     // @triton.jit kernels in it
  int library_calls = 0;
};

// The largest solution generate_solution writes: beyond it Triton's compile takes too long
// to be of use, so it throws instead.
constexpr size_t kMaxSolutionBytes = 200 * 1024;

// Throws IrError naming the operator when a node cannot be lowered, or the solution would be
// over kMaxSolutionBytes.
GeneratedSolution generate_solution(const Graph& graph, const CodegenOptions& options);

}  // namespace drtriton
