// Fragments for test-time search: what a range of nodes reads and returns, module names kept.
#include "ir/fragment.h"

#include <gtest/gtest.h>

#include "ir/text.h"

namespace drtriton {
namespace {

// x -> linear -> relu -> (mul with the linear's output: a value read past the next node) -> sum
Graph program() {
  return parse_graph(
      "input %x : f32[4,8]\n"
      "param %scale : f32[6]\n"
      "%l = linear(%x) {module=\"fc\", in_features=8, out_features=6}\n"
      "%r = relu(%l)\n"
      "%m = mul(%r, %l)\n"
      "%s = mul(%m, %scale)\n"
      "%t = sum(%s) {dim=[1]}\n"
      "return %t, %r\n");
}

std::vector<std::string> names(const Graph& g, const std::vector<ValueId>& ids) {
  std::vector<std::string> out;
  for (ValueId v : ids) out.push_back(g.value(v).name);
  return out;
}

TEST(Fragment, ReadsEarlierValuesAndReturnsWhatLaterNodesRead) {
  Graph g = program();
  Fragment f = extract_fragment(g, 1, 3);  // relu, mul
  EXPECT_EQ(names(g, f.inputs), (std::vector<std::string>{"l"}));
  // %m feeds the next node; %r is a program output
  EXPECT_EQ(names(g, f.outputs), (std::vector<std::string>{"m", "r"}));
  ASSERT_EQ(f.graph.nodes().size(), 2u);
  EXPECT_EQ(f.graph.inputs().size(), 1u);
  EXPECT_EQ(f.graph.outputs().size(), 2u);
}

TEST(Fragment, KeepsModuleNamesAndFreeParameters) {
  Graph g = program();
  Fragment first = extract_fragment(g, 0, 1);
  EXPECT_EQ(first.graph.nodes()[0].module, "fc");
  EXPECT_EQ(first.graph.node_params(first.graph.nodes()[0])[0].name, "fc.weight");
  // the linear's output is read by relu and by the mul two nodes on: returned once
  EXPECT_EQ(names(g, first.outputs), (std::vector<std::string>{"l"}));
  Fragment scaled = extract_fragment(g, 3, 5);
  ASSERT_EQ(scaled.graph.params().size(), 1u);
  EXPECT_EQ(scaled.graph.value(scaled.graph.params()[0]).name, "scale");
  EXPECT_EQ(names(g, scaled.inputs), (std::vector<std::string>{"m"}));  // params are not arguments
}

TEST(Fragment, RefusesEmptyRangesAndDeadCode) {
  Graph g = program();
  EXPECT_THROW(extract_fragment(g, 2, 2), IrError);
  EXPECT_THROW(extract_fragment(g, 0, 6), IrError);
  Graph dead = parse_graph(
      "input %x : f32[4]\n"
      "%a = relu(%x)\n"
      "%b = neg(%x)\n"
      "return %b\n");
  EXPECT_THROW(extract_fragment(dead, 0, 1), IrError);
  EXPECT_NO_THROW(extract_fragment(dead, 1, 2));
}

}  // namespace
}  // namespace drtriton
