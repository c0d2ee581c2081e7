// The factory: shapes, defaults and normalization, parameters and cost of built graphs.
#include <gtest/gtest.h>

#include "ir/text.h"

namespace drtriton {
namespace {

TensorType f32(Shape s) {
  return {DType::F32, std::move(s)};
}

TEST(Graph, FactoryInfersShapesAndFillsDefaults) {
  Graph g;
  ValueId x = g.add_input("x", f32({8, 3, 32, 32}));
  ValueId c = g.add_node(Op::Conv2d, {x},
                         {{"in_channels", int64_t{3}},
                          {"out_channels", int64_t{16}},
                          {"kernel_size", int64_t{3}},
                          {"stride", int64_t{2}},
                          {"padding", int64_t{1}}},
                         "conv");
  EXPECT_EQ(g.value(c).type, f32({8, 16, 16, 16}));
  const Node& n = g.nodes()[0];
  EXPECT_EQ(attr_ints(n.attrs, "dilation"), (std::vector<int64_t>{1, 1}));
  EXPECT_EQ(attr_int(n.attrs, "groups"), 1);
  EXPECT_TRUE(attr_bool(n.attrs, "bias"));
  EXPECT_EQ(g.value(c).name, "0");  // unnamed values are numbered
}

TEST(Graph, SymAttrsNameNumberAttributesOfNodes) {
  Graph g = parse_graph(
      "input %x : f32[8,3]\n"
      "%d = div_scalar(%x) {other=8.0}\n"
      "%s = sum(%d) {dim=[1]}\n"
      "return %s\n");
  ValueId d = g.find_value("d");
  g.set_sym_attr(d, "other", "s0");
  EXPECT_EQ(g.nodes()[0].sym_attrs, (std::map<std::string, std::string>{{"other", "s0"}}));
  EXPECT_EQ(attr_float(g.nodes()[0].attrs, "other"), 8.0);                // the traced value stays
  EXPECT_THROW(g.set_sym_attr(d, "alpha", "s0"), IrError);                // div_scalar has no alpha
  EXPECT_THROW(g.set_sym_attr(g.find_value("s"), "dim", "s0"), IrError);  // a list
  EXPECT_THROW(g.set_sym_attr(g.find_value("x"), "other", "s0"), IrError);  // an input
}

TEST(Graph, NegativeDimsAreNormalized) {
  Graph g = parse_graph(
      "input %x : f32[2,3,4]\n"
      "%s = sum(%x) {dim=[-1,0], keepdim=true}\n"
      "%t = transpose(%x) {dim0=-1, dim1=0}\n"
      "%r = reshape(%x) {shape=[-1,4]}\n"
      "return %s, %t, %r\n");
  EXPECT_EQ(print_graph(g),
            "input %x : f32[2,3,4]\n"
            "%s : f32[1,3,1] = sum(%x) {dim=[0,2], keepdim=true}\n"
            "%t : f32[4,3,2] = transpose(%x) {dim0=0, dim1=2}\n"
            "%r : f32[6,4] = reshape(%x) {shape=[6,4]}\n"
            "return %s, %t, %r\n");
}

TEST(Graph, ModuleParamsUseStateDictNames) {
  Graph g = parse_graph(
      "input %x : f32[4,3,8,8]\n"
      "%1 = conv_transpose2d(%x) {module=\"up\", in_channels=3, out_channels=6, kernel_size=[2,2], "
      "stride=[2,2], groups=3}\n"
      "%2 = batch_norm2d(%1) {module=\"bn\", num_features=6}\n"
      "return %2\n");
  EXPECT_EQ(g.value(g.outputs()[0]).type, f32({4, 6, 16, 16}));
  auto up = g.node_params(g.nodes()[0]);
  ASSERT_EQ(up.size(), 2u);
  EXPECT_EQ(up[0].name, "up.weight");
  EXPECT_EQ(up[0].type, f32({3, 2, 2, 2}));  // [in, out/groups, k, k]
  auto bn = g.node_params(g.nodes()[1]);
  ASSERT_EQ(bn.size(), 5u);
  EXPECT_EQ(bn[2].name, "bn.running_mean");
  EXPECT_TRUE(bn[2].is_buffer);
  EXPECT_EQ(bn[4].type, (TensorType{DType::I64, {}}));
}

TEST(Graph, IoBytesCountEachInputParameterAndOutputOnce) {
  Graph g = parse_graph(
      "input %x : f32[4,8]\n"
      "%a = linear(%x) {module=\"fc\", in_features=8, out_features=6}\n"
      "%b = relu(%a)\n"
      "%c = linear(%b) {module=\"fc2\", in_features=6, out_features=6}\n"
      "%d = linear(%c) {module=\"fc2\", in_features=6, out_features=6}\n"
      "return %d\n");
  // x, fc (48 + 6), fc2 once (36 + 6), the output: floats of 4 bytes
  EXPECT_EQ(g.io_bytes(), 4 * (32 + 54 + 42 + 24));
  EXPECT_GT(g.bytes(), g.io_bytes());  // run node by node, every intermediate moves too
}

TEST(Graph, MatmulFollowsTorchRules) {
  Graph g = parse_graph(
      "input %a : f32[5,1,4,3]\n"
      "input %b : f32[2,3,7]\n"
      "input %v : f32[3]\n"
      "%m = matmul(%a, %b)\n"
      "%w = matmul(%a, %v)\n"
      "return %m, %w\n");
  EXPECT_EQ(g.value(g.outputs()[0]).type, f32({5, 2, 4, 7}));
  EXPECT_EQ(g.value(g.outputs()[1]).type, f32({5, 1, 4}));
  EXPECT_DOUBLE_EQ(g.node_flops(g.nodes()[0]), 2.0 * 5 * 2 * 4 * 7 * 3);
}

TEST(Graph, PoolsAndConvsAgreeWithPytorchFormulas) {
  // Reference values computed with PyTorch 2.13 on the CPU.
  Graph g = parse_graph(
      "input %x : f32[1,2,11,11]\n"
      "%a = max_pool2d(%x) {kernel_size=[3,3], stride=[2,2], ceil_mode=true}\n"
      "%b = avg_pool2d(%x) {kernel_size=[2,2], stride=[3,3], padding=[1,1], ceil_mode=true}\n"
      "%c = conv2d(%x) {module=\"c\", in_channels=2, out_channels=2, kernel_size=[3,3], "
      "dilation=[2,2], padding=[1,1], stride=[3,3]}\n"
      "%d = conv_transpose2d(%x) {module=\"d\", in_channels=2, out_channels=4, kernel_size=[3,3], "
      "stride=[2,2], padding=[1,1], output_padding=[1,1]}\n"
      "return %a, %b, %c, %d\n");
  EXPECT_EQ(g.value(g.outputs()[0]).type.shape, (Shape{1, 2, 5, 5}));
  EXPECT_EQ(g.value(g.outputs()[1]).type.shape, (Shape{1, 2, 4, 4}));
  EXPECT_EQ(g.value(g.outputs()[2]).type.shape, (Shape{1, 2, 3, 3}));
  EXPECT_EQ(g.value(g.outputs()[3]).type.shape, (Shape{1, 4, 22, 22}));
}

TEST(Graph, DifficultyCountsComputeOpsOnly) {
  Graph g = parse_graph(
      "input %x : f32[4,8]\n"
      "%1 = relu(%x)\n"
      "%2 = reshape(%1) {shape=[32]}\n"
      "%3 = mul_scalar(%2) {other=2.0}\n"
      "return %3\n");
  EXPECT_EQ(g.compute_ops(), 2);
}

TEST(OpTable, CoversOpsMdAndIsConsistent) {
  const auto& ops = all_op_schemas();
  EXPECT_GE(ops.size(), 66u);
  for (const OpSchema& s : ops) {
    SCOPED_TRACE(s.name);
    EXPECT_EQ(find_op(s.name), &s);
    EXPECT_NE(s.infer_shape, nullptr);
    EXPECT_FALSE(s.torch_module.empty() && s.torch_function.empty()) << "no PyTorch spelling";
    for (const AttrSpec& a : s.attrs) {
      if (a.default_value) {
        AttrValue v = *a.default_value;
        EXPECT_FALSE(coerce_attr(a, &v).has_value()) << a.name << ": default outside its range";
      }
    }
  }
}

}  // namespace
}  // namespace drtriton
