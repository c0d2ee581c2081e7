// Data-driven error tests: every case in tests/ir/errors/*.ir is bad IR that must be
// rejected with exactly the message its "# expect-error:" line gives. Adding a case
// means adding text, not C++.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "ir/text.h"

namespace drtriton {
namespace {

struct ErrorCase {
  std::string file;
  int line;  // where the case starts in its file
  std::string expected;
  std::string text;
};

std::vector<ErrorCase> load_cases() {
  std::vector<ErrorCase> cases;
  std::filesystem::path dir = std::filesystem::path(DRTRITON_SOURCE_DIR) / "tests/ir/errors";
  std::vector<std::filesystem::path> files;
  for (const auto& e : std::filesystem::directory_iterator(dir)) files.push_back(e.path());
  std::sort(files.begin(), files.end());
  for (const auto& path : files) {
    std::ifstream in(path);
    std::string line;
    int number = 0;
    ErrorCase current{path.filename().string(), 1, "", ""};
    auto flush = [&] {
      if (!current.expected.empty()) cases.push_back(current);
      current = {path.filename().string(), number + 1, "", ""};
    };
    const std::string marker = "# expect-error: ";
    while (std::getline(in, line)) {
      ++number;
      if (line == "# -----") {
        flush();
      } else if (line.rfind(marker, 0) == 0) {
        current.expected = line.substr(marker.size());
        current.line = number + 1;
      } else if (!current.expected.empty()) {
        current.text += line + "\n";
      }
    }
    flush();
  }
  return cases;
}

TEST(ErrorCases, EachCaseGivesItsExactMessage) {
  std::vector<ErrorCase> cases = load_cases();
  ASSERT_GE(cases.size(), 30u) << "the error case files were not found or are nearly empty";
  for (const ErrorCase& c : cases) {
    SCOPED_TRACE(c.file + ":" + std::to_string(c.line));
    try {
      parse_graph(c.text, "case");
      ADD_FAILURE() << "accepted bad IR; expected: " << c.expected;
    } catch (const IrError& e) {
      EXPECT_EQ(std::string(e.what()), c.expected);
    }
  }
}

}  // namespace
}  // namespace drtriton
