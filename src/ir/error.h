// IrError: an error a user can cause (a bad program, bad IR text, a bad attribute). Its
// message says what was wrong and where; callers add the place (file and line) they know.
#pragma once

#include <stdexcept>
#include <string>

namespace drtriton {

struct IrError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

}  // namespace drtriton
