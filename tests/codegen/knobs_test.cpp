// The codegen knobs (CodegenKnobs in codegen.h) change the solution's text where they say,
// and the defaults are the compiler's own choices. That the variants still compute the same
// thing is the verifier's to judge (tests/python/test_pairs.py); here, only the lines that
// matter, FileCheck style.
#include <gtest/gtest.h>

#include <stdexcept>
#include <string>

#include "codegen/codegen.h"
#include "ir/text.h"

namespace drtriton {
namespace {

// tanh(exp(x)) costs three operations and has two readers (the row sum and the subtraction):
// the defaults write it once; a high recompute limit evaluates it in both kernels. The row
// sum is returned too, so that it keeps its statistics kernel (else the sum and the
// subtraction would be one kernel, lower_in_one_pass).
constexpr const char* kSharedValue = R"(input %x : f32[8,64]
%1 = exp(%x)
%2 = tanh(%1)
%3 = sum(%2) {dim=[1], keepdim=true}
%4 = sub(%2, %3)
return %4, %3
)";

GeneratedSolution compile(const CodegenKnobs& knobs) {
  CodegenOptions options;
  options.knobs = knobs;
  return generate_solution(parse_graph(kSharedValue), options);
}

int count(const std::string& text, const std::string& what) {
  int n = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

TEST(CodegenKnobs, DefaultsAreTheCompilersOwnChoices) {
  GeneratedSolution s = compile({});
  // the row sum and the output, each evaluating the shared value (it loads one tensor of its
  // size, as reading it back would: rereads_one_tensor)
  EXPECT_EQ(s.kernels, 2);
  EXPECT_EQ(count(s.source, "BLOCK=1024"), 1);
  // the row sum's rows fit in registers: whole-row tiles of 4096 elements, a warp each 1024
  // columns (its own WARPS; no launch's num_warps is fixed)
  EXPECT_EQ(count(s.source, "4096 // block_r"), 1);
  EXPECT_EQ(count(s.source, "num_warps"), count(s.source, "num_warps=WARPS"));
}

TEST(CodegenKnobs, PointwiseBlockSetsBlockAndGrid) {
  CodegenKnobs k;
  k.pointwise_block = 256;
  GeneratedSolution s = compile(k);
  EXPECT_EQ(count(s.source, "BLOCK=256"), 1);
  EXPECT_EQ(count(s.source, "triton.cdiv((8 * 64), 256)"), 1);  // the grid
  EXPECT_EQ(count(s.source, "1024),)"), 0);
}

// Under static sizes a pointwise kernel's element count is a constant, and so is its mask
// where the blocks tile it exactly; under dynamic sizes both are read at run time.
TEST(CodegenKnobs, StaticSizesMakeTheTailMaskAConstant) {
  GeneratedSolution fixed = compile({});
  EXPECT_EQ(count(fixed.source, "N: tl.constexpr"), 1) << fixed.source;
  EXPECT_EQ(count(fixed.source, "if N % BLOCK == 0:"), 1) << fixed.source;
  EXPECT_EQ(count(fixed.source, "mask = tl.full([BLOCK], 1, tl.int1)"), 1) << fixed.source;
  CodegenKnobs k;
  k.sizes = "dynamic";
  GeneratedSolution dynamic = compile(k);
  EXPECT_EQ(count(dynamic.source, "N: tl.constexpr"), 0) << dynamic.source;
  EXPECT_EQ(count(dynamic.source, "if N % BLOCK"), 0) << dynamic.source;
  EXPECT_EQ(count(dynamic.source, "mask = offs < N"), 1) << dynamic.source;
}

TEST(CodegenKnobs, TileElementsSetTheRowTile) {
  CodegenKnobs k;
  k.tile_elements = 16384;
  GeneratedSolution s = compile(k);
  EXPECT_EQ(count(s.source, "16384 // block_r"), 1);
  EXPECT_EQ(count(s.source, "4096"), 0);
}

TEST(CodegenKnobs, NumWarpsOnEveryLaunch) {
  CodegenKnobs k;
  k.num_warps = 8;
  GeneratedSolution s = compile(k);
  EXPECT_EQ(count(s.source, ", num_warps=8)"), s.kernels);
}

TEST(CodegenKnobs, RecomputeLimitDecidesWhatIsWritten) {
  CodegenKnobs recompute;
  recompute.recompute_limit = 3;  // tanh(exp(x)) costs 3: not more than the limit
  GeneratedSolution s = compile(recompute);
  EXPECT_EQ(s.kernels, 2);
  EXPECT_EQ(count(s.source, "tl.exp(("), 2);  // evaluated in both kernels

  CodegenKnobs materialize;
  materialize.recompute_limit = 0;
  GeneratedSolution m = compile(materialize);
  EXPECT_EQ(m.kernels, 3);
  EXPECT_EQ(count(m.source, "tl.exp(("), 1);
}

TEST(CodegenKnobs, OutOfRangeIsRefused) {
  CodegenKnobs k;
  k.pointwise_block = 1000;
  EXPECT_THROW(compile(k), std::invalid_argument);
  k = {};
  k.tile_elements = 512;
  EXPECT_THROW(compile(k), std::invalid_argument);
  k = {};
  k.num_warps = 3;
  EXPECT_THROW(compile(k), std::invalid_argument);
  k = {};
  k.recompute_limit = -1;
  EXPECT_THROW(compile(k), std::invalid_argument);
  k = {};
  k.layout = "nhwc";
  EXPECT_THROW(compile(k), std::invalid_argument);
}

// A pointwise conv's ReLU feeds a grouped conv (two channels a group: a library call, where
// a depthwise one would be an expression), whose tanh is the output.
constexpr const char* kConvChain = R"(input %x : f32[2,4,9,7]
%1 = conv2d(%x) {module="conv1", in_channels=4, out_channels=6, kernel_size=[1,1]}
%2 = relu(%1)
%3 = conv2d(%2) {module="conv2", in_channels=6, out_channels=6, kernel_size=[3,3], padding=[1,1], groups=3}
%4 = tanh(%3)
return %4
)";

GeneratedSolution compile_convs(const std::string& layout) {
  CodegenOptions options;
  options.knobs.layout = layout;
  return generate_solution(parse_graph(kConvChain), options);
}

TEST(CodegenKnobs, LayoutNchwLeavesConvolutionsAsTheyAre) {
  GeneratedSolution s = compile_convs("nchw");
  EXPECT_EQ(count(s.source, "channels_last"), 0);
  EXPECT_EQ(count(s.source, ").contiguous()\n"), 2);  // both convolutions' results
}

TEST(CodegenKnobs, LayoutChannelsLastRunsConvolutionsNhwc) {
  GeneratedSolution s = compile_convs("channels_last");
  EXPECT_EQ(s.kernels, 3);
  // The program's input transposed into NHWC by a kernel of channel-by-position tiles
  // (loads along the positions, stores along the channels), both results NHWC, the weights
  // stored so once.
  EXPECT_EQ(count(s.source, "tl.store(buf0_ptr + (n * S + s) * C + c, "), 1);
  EXPECT_EQ(count(s.source, "F.conv2d(buf0, "), 1);
  EXPECT_EQ(count(s.source, ").contiguous(memory_format=torch.channels_last)\n"), 2);
  EXPECT_EQ(count(s.source,
                  "conv.weight = nn.Parameter(conv.weight.detach().contiguous("
                  "memory_format=torch.channels_last))"),
            2);
  // The ReLU the second conv takes is written NHWC in memory order: it loads the first
  // conv's result at its own offsets.
  EXPECT_EQ(count(s.source, "dtype=torch.float32, memory_format=torch.channels_last)"), 2);
  EXPECT_EQ(count(s.source, "tl.load(lib0_ptr + offs, mask=mask"), 1);
  EXPECT_EQ(count(s.source, "F.conv2d(buf1, "), 1);
  // The output is contiguous NCHW, written in channel-by-position tiles.
  EXPECT_EQ(count(s.source, "tl.store(buf2_ptr + (n * C + c) * S + s, "), 1);
  EXPECT_EQ(count(s.source, "BLOCK_C = min(32, triton.next_power_of_2(6))"), 1);
  EXPECT_EQ(count(s.source, "BLOCK_C = min(32, triton.next_power_of_2(4))"), 1);
}

// layout=auto (the default): channels-last for 2-d convolutions of 16 input and 64 output
// channels with only elementwise work after them; NCHW where the only convolution is one that
// cuDNN would run on TF32 channels-last and on fp32 NCHW (keeps_nchw: 8 input channels, 16 in and
// 32 out at 3x3, 16 out), where a grouped convolution (several channels a group) or a pool is
// there.
TEST(CodegenKnobs, LayoutAutoTakesChannelsLastWhereKernelsReadAlongTheChannels) {
  auto compile_auto = [](const std::string& ir) {
    return generate_solution(parse_graph(ir), CodegenOptions{}).source;
  };
  const std::string conv_relu = compile_auto(R"(input %x : f32[2,16,9,7]
%1 = conv2d(%x) {module="conv", in_channels=16, out_channels=64, kernel_size=[3,3], padding=[1,1]}
%2 = relu(%1)
return %2
)");
  EXPECT_EQ(count(conv_relu, ").contiguous(memory_format=torch.channels_last)\n"), 1);
  const std::string few_inputs = compile_auto(R"(input %x : f32[2,8,9,7]
%1 = conv2d(%x) {module="conv", in_channels=8, out_channels=32, kernel_size=[3,3], padding=[1,1]}
%2 = relu(%1)
return %2
)");
  EXPECT_EQ(count(few_inputs, "channels_last"), 0);
  const std::string few_channels = compile_auto(R"(input %x : f32[2,16,9,7]
%1 = conv2d(%x) {module="conv", in_channels=16, out_channels=16, kernel_size=[3,3], padding=[1,1]}
%2 = relu(%1)
return %2
)");
  EXPECT_EQ(count(few_channels, "channels_last"), 0);
  // keeps_nchw's cases from cuDNN's choices on an H100 (docs/results/conv_precision_h100_1206f.md)
  auto conv_alone = [&](int in, int out, int kernel, int stride, const char* op = "conv2d") {
    const std::string k = std::to_string(kernel), s = std::to_string(stride);
    return count(
               compile_auto("input %x : f32[2," + std::to_string(in) + ",16,16]\n%1 = " + op +
                            "(%x) {module=\"conv\", in_channels=" + std::to_string(in) +
                            ", out_channels=" + std::to_string(out) + ", kernel_size=[" + k + "," +
                            k + "], stride=[" + s + "," + s + "]}\n%2 = relu(%1)\nreturn %2\n"),
               "channels_last") > 0;
  };
  EXPECT_FALSE(conv_alone(16, 32, 3, 1));  // 16 in, 32 out, 3x3
  EXPECT_TRUE(conv_alone(16, 32, 5, 1));   // a 5x5 is TF32 in both
  EXPECT_FALSE(conv_alone(32, 64, 4, 2));  // an even kernel of stride 2
  EXPECT_TRUE(conv_alone(32, 64, 3, 2));   // an odd one passed (resnet_cifar_small)
  EXPECT_FALSE(conv_alone(32, 32, 3, 2));  // unless it has 32 outputs
  EXPECT_FALSE(conv_alone(16, 64, 3, 2));  // or 16 inputs
  EXPECT_TRUE(conv_alone(32, 128, 4, 2));  // 128 outputs are TF32 both ways
  EXPECT_FALSE(conv_alone(64, 128, 1, 2));
  EXPECT_TRUE(conv_alone(64, 128, 3, 2));
  EXPECT_FALSE(conv_alone(64, 64, 1, 2, "conv_transpose2d"));
  EXPECT_FALSE(conv_alone(64, 64, 5, 1, "conv_transpose2d"));
  EXPECT_TRUE(conv_alone(64, 64, 4, 2, "conv_transpose2d"));
  EXPECT_EQ(count(compile_auto(kConvChain), "channels_last"), 0);  // groups of two channels
  const std::string conv_pool = compile_auto(R"(input %x : f32[2,4,9,7]
%1 = conv2d(%x) {module="conv", in_channels=4, out_channels=6, kernel_size=[3,3], padding=[1,1]}
%2 = max_pool2d(%1) {kernel_size=[2,2]}
return %2
)");
  EXPECT_EQ(count(conv_pool, "channels_last"), 0);
  // Work that reads along the channels or pools space takes channels-last, and so do batch,
  // group and instance norms (their statistics read each position's channels as rows) and a
  // concatenation of channels.
  auto channels_last_after_conv = [&](const std::string& after) {
    return count(compile_auto("input %x : f32[2,16,9,7]\n"
                              "%1 = conv2d(%x) {module=\"conv\", in_channels=16, out_channels=64, "
                              "kernel_size=[3,3], padding=[1,1]}\n" +
                              after),
                 ").contiguous(memory_format=torch.channels_last)\n") == 1;
  };
  EXPECT_TRUE(channels_last_after_conv("%2 = softmax(%1) {dim=1}\nreturn %2\n"));
  EXPECT_TRUE(channels_last_after_conv("%2 = amin(%1) {dim=[1], keepdim=true}\nreturn %2\n"));
  EXPECT_TRUE(channels_last_after_conv("%2 = mean(%1) {dim=[2,3]}\nreturn %2\n"));
  EXPECT_TRUE(channels_last_after_conv("%2 = max_pool2d(%1) {kernel_size=[2,2]}\nreturn %2\n"));
  // A classifier head: the last feature map flattened into a Linear.
  EXPECT_TRUE(channels_last_after_conv(
      "%2 = flatten(%1) {start_dim=1, end_dim=3}\n%3 = linear(%2) {module=\"fc\", "
      "in_features=4032, out_features=10}\nreturn %3\n"));
  EXPECT_FALSE(channels_last_after_conv("%2 = flatten(%1) {start_dim=2, end_dim=3}\nreturn %2\n"));
  EXPECT_FALSE(channels_last_after_conv("%2 = softmax(%1) {dim=3}\nreturn %2\n"));
  EXPECT_TRUE(channels_last_after_conv(
      "%2 = batch_norm2d(%1) {module=\"bn\", num_features=64}\nreturn %2\n"));
  EXPECT_TRUE(channels_last_after_conv(
      "%2 = instance_norm2d(%1) {module=\"norm\", num_features=64}\nreturn %2\n"));
  EXPECT_TRUE(channels_last_after_conv("%2 = cat(%1, %1) {dim=1}\nreturn %2\n"));
}

// The command line's --knob NAME=VALUE: one parser, whose errors name the allowed values.
TEST(CodegenKnobs, SetKnobNamesTheValues) {
  CodegenKnobs k;
  set_knob(k, "gemm", "library");
  EXPECT_EQ(k.gemm, "library");
  set_knob(k, "pointwise_block", "256");
  EXPECT_EQ(k.pointwise_block, 256);
  try {
    set_knob(k, "gemm", "cublas");
    FAIL() << "gemm=cublas accepted";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("gemm takes auto, triton or library"), std::string::npos)
        << e.what();
  }
  EXPECT_THROW(set_knob(k, "pointwise_block", "300"), std::invalid_argument);
  EXPECT_THROW(set_knob(k, "num_warps", "4x"), std::invalid_argument);
  EXPECT_THROW(set_knob(k, "blocks", "4"), std::invalid_argument);
  EXPECT_EQ(k.pointwise_block, 256);  // a refused value changes nothing
  set_knob(k, "gemm_tile", "128x256x32");
  EXPECT_EQ(k.gemm_tile, "128x256x32");
  for (const char* bad : {"128x256", "128x256x32x1", "96x128x32", "128x512x32", "128x128x8",
                          "128X128X32", "128x128x32 "})
    EXPECT_THROW(set_knob(k, "gemm_tile", bad), std::invalid_argument) << bad;
  EXPECT_EQ(k.gemm_tile, "128x256x32");
  set_knob(k, "dot_precision", "ieee");
  EXPECT_EQ(k.dot_precision, "ieee");
  EXPECT_THROW(set_knob(k, "dot_precision", "tf32"), std::invalid_argument);  // too inaccurate
}

// What convert judges where a solution is rejected: cuBLAS products and fp32 FMAs, the
// rest of the knobs as given.
TEST(CodegenKnobs, FallbackKeepsAllButTheProductRoutes) {
  CodegenKnobs k;
  k.pointwise_block = 512;
  k.layout = "channels_last";
  CodegenKnobs safe = fallback_knobs(k);
  EXPECT_EQ(safe.gemm, "library");
  EXPECT_EQ(safe.dot_precision, "ieee");
  EXPECT_EQ(safe.pointwise_block, 512);
  EXPECT_EQ(safe.layout, "channels_last");
}

// gemm_tile caps the GEMM helper's tile; "auto" leaves its choice by element size.
TEST(CodegenKnobs, GemmTileCapsTheTile) {
  constexpr const char* kProduct = R"(input %x : f32[64,48]
input %w : f32[48,40]
%1 = matmul(%x, %w)
%2 = relu(%1)
return %2
)";
  auto helper = [&](const std::string& tile) {
    CodegenOptions options;
    options.knobs.gemm = "triton";
    options.knobs.gemm_tile = tile;
    return generate_solution(parse_graph(kProduct), options).source;
  };
  std::string wide = helper("128x256x64"), automatic = helper("auto");
  EXPECT_EQ(count(wide, "block_m = min(128, "), 1);
  EXPECT_EQ(count(wide, "block_n = min(256, "), 1);
  EXPECT_EQ(count(wide, "block_k = min(64, "), 1);
  EXPECT_EQ(count(automatic, "block_n = min(128, "), 1);
  EXPECT_EQ(count(automatic, "block_k = min(64 if itemsize == 2 or tma else 32, "), 1);
}

// depthwise: a 2-d 3x3 depthwise convolution over 32 channels is cuDNN's under "library";
// under "triton" an expression unrolled in the kernel that writes its ReLU (its nine weights
// loaded there). Under "auto" it is unrolled alone (NCHW), and cuDNN's channels-last beside a
// 3x3 convolution or read as rows of channels (a ConvNeXt block's permute).
TEST(CodegenKnobs, DepthwiseChoosesExpressionOrLibrary) {
  const std::string depthwise =
      "input %x : f32[2,32,9,7]\n%1 = conv2d(%x) {module=\"dw\", in_channels=32, "
      "out_channels=32, kernel_size=[3,3], padding=[1,1], groups=32}\n";
  auto solution = [&](const std::string& rest, const std::string& route) {
    CodegenOptions options;
    options.knobs.depthwise = route;
    return generate_solution(parse_graph(depthwise + rest), options).source;
  };
  const std::string alone = "%2 = relu(%1)\nreturn %2\n";
  for (const char* route : {"triton", "auto"}) {
    EXPECT_EQ(count(solution(alone, route), "F.conv2d("), 0) << route;
    EXPECT_EQ(count(solution(alone, route), "p_dw_weight_ptr + t2 * 9 + 8, "), 1) << route;
  }
  EXPECT_EQ(count(solution(alone, "library"), "F.conv2d("), 1);
  EXPECT_EQ(count(solution(alone, "library"), "p_dw_weight_ptr"), 0);
  const std::string beside_conv =
      "%2 = conv2d(%1) {module=\"pw\", in_channels=32, out_channels=32, kernel_size=[3,3], "
      "padding=[1,1]}\nreturn %2\n";
  const std::string as_rows = "%2 = permute(%1) {dims=[0,2,3,1]}\n%3 = relu(%2)\nreturn %3\n";
  for (const std::string& rest : {beside_conv, as_rows}) {
    const std::string source = solution(rest, "auto");
    EXPECT_EQ(count(source, ", 32).contiguous(memory_format=torch.channels_last)"), 1) << rest;
    EXPECT_EQ(count(source, "p_dw_weight_ptr"), 0) << rest;
  }
  // auto unrolls the other kinds: one input channel (groups = 1), a 1-d depthwise convolution.
  for (const char* conv : {"conv2d(%x) {module=\"c\", in_channels=1, out_channels=8, "
                           "kernel_size=[3,3], padding=[1,1], groups=1}",
                           "conv1d(%y) {module=\"c\", in_channels=4, out_channels=4, "
                           "kernel_size=[3], padding=[1], groups=4}"}) {
    const std::string graph = std::string("input %x : f32[2,1,9,7]\ninput %y : f32[2,4,9]\n") +
                              "%1 = " + conv + "\n%2 = relu(%1)\nreturn %2\n";
    EXPECT_EQ(count(generate_solution(parse_graph(graph), {}).source, "F.conv"), 0) << conv;
  }
  CodegenKnobs k;
  set_knob(k, "depthwise", "library");
  EXPECT_EQ(k.depthwise, "library");
  EXPECT_THROW(set_knob(k, "depthwise", "cudnn"), std::invalid_argument);
}

}  // namespace
}  // namespace drtriton
