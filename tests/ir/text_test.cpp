// The text and JSON forms round-trip: print(parse(print(g))) == print(g) byte for byte,
// and the JSON form reads back into the same graph, on every graph the tests know.
#include "ir/text.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "ir/json_form.h"

namespace drtriton {
namespace {

namespace fs = std::filesystem;

std::string read(const fs::path& p) {
  std::ifstream in(p);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

std::vector<fs::path> test_graphs() {
  std::vector<fs::path> files;
  fs::path root(DRTRITON_SOURCE_DIR);
  for (const char* dir : {"tests/ir/op_cases", "examples"}) {
    if (!fs::exists(root / dir)) continue;
    for (const auto& e : fs::directory_iterator(root / dir)) {
      if (e.path().extension() == ".ir") files.push_back(e.path());
    }
  }
  std::sort(files.begin(), files.end());
  return files;
}

TEST(TextForm, PrintParsePrintIsIdentical) {
  auto files = test_graphs();
  ASSERT_GE(files.size(), 97u) << "expected one case per operator in tests/ir/op_cases";
  for (const fs::path& file : files) {
    SCOPED_TRACE(file.string());
    Graph g = parse_graph(read(file), file.string());
    std::string once = print_graph(g);
    std::string twice = print_graph(parse_graph(once, "printed"));
    EXPECT_EQ(once, twice);
  }
}

TEST(JsonForm, RoundTripsToTheSameGraph) {
  for (const fs::path& file : test_graphs()) {
    SCOPED_TRACE(file.string());
    Graph g = parse_graph(read(file), file.string());
    nlohmann::json j = graph_to_json(g);
    Graph back = graph_from_json(nlohmann::json::parse(j.dump()), "json");
    EXPECT_EQ(print_graph(g), print_graph(back));
  }
}

TEST(TextForm, PrintsTypesAndOnlyNonDefaultAttributes) {
  Graph g = parse_graph(
      "input %x : f32[2,3,8,8]\n"
      "%c = conv2d(%x) {module=\"conv\", in_channels=3, out_channels=4, kernel_size=3, "
      "stride=[1,1]}\n"
      "%p = max_pool2d(%c) {kernel_size=[2,2], stride=[2,2]}\n"
      "%g = gelu(%p) {approximate=\"tanh\"}\n"
      "return %g\n");
  EXPECT_EQ(print_graph(g),
            "input %x : f32[2,3,8,8]\n"
            "%c : f32[2,4,6,6] = conv2d(%x) {module=\"conv\", in_channels=3, out_channels=4, "
            "kernel_size=[3,3]}\n"
            "%p : f32[2,4,3,3] = max_pool2d(%c) {kernel_size=[2,2]}\n"
            "%g : f32[2,4,3,3] = gelu(%p) {approximate=\"tanh\"}\n"
            "return %g\n");
}

TEST(TextForm, FloatsKeepTheirValueAndType) {
  Graph g = parse_graph(
      "input %x : f32[4]\n"
      "%a = mul_scalar(%x) {other=0.1}\n"
      "%b = add_scalar(%a) {other=3}\n"
      "%c = clamp(%b) {min=-inf, max=1e-7}\n"
      "return %c\n");
  std::string text = print_graph(g);
  EXPECT_NE(text.find("{other=0.1}"), std::string::npos) << text;
  EXPECT_NE(text.find("{other=3.0}"), std::string::npos) << text;
  EXPECT_NE(text.find("{min=-inf, max=1e-07}"), std::string::npos) << text;
}

}  // namespace
}  // namespace drtriton
