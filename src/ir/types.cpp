#include "ir/types.h"

#include <algorithm>

namespace drtriton {

namespace {

struct DTypeInfo {
  DType dtype;
  const char* name;
  const char* torch_name;
  int size;
};

constexpr DTypeInfo kDTypes[] = {
    {DType::F32, "f32", "torch.float32", 4},    {DType::F16, "f16", "torch.float16", 2},
    {DType::BF16, "bf16", "torch.bfloat16", 2}, {DType::F64, "f64", "torch.float64", 8},
    {DType::I64, "i64", "torch.int64", 8},      {DType::I32, "i32", "torch.int32", 4},
    {DType::Bool, "bool", "torch.bool", 1},
};

const DTypeInfo& info(DType dtype) {
  return kDTypes[static_cast<int>(dtype)];
}

}  // namespace

int64_t TensorType::numel() const {
  int64_t n = 1;
  for (int64_t d : shape) n *= d;
  return n;
}

int64_t TensorType::bytes() const {
  return numel() * dtype_size(dtype);
}

std::string_view dtype_name(DType dtype) {
  return info(dtype).name;
}
std::string_view dtype_torch_name(DType dtype) {
  return info(dtype).torch_name;
}
int dtype_size(DType dtype) {
  return info(dtype).size;
}

bool is_floating(DType dtype) {
  return dtype == DType::F32 || dtype == DType::F16 || dtype == DType::BF16 || dtype == DType::F64;
}

bool parse_dtype(std::string_view name, DType* out) {
  for (const DTypeInfo& d : kDTypes) {
    if (name == d.name) {
      *out = d.dtype;
      return true;
    }
  }
  return false;
}

std::string shape_string(const Shape& shape) {
  std::string s = "[";
  for (size_t i = 0; i < shape.size(); ++i) {
    if (i) s += ",";
    s += std::to_string(shape[i]);
  }
  return s + "]";
}

std::string to_string(const TensorType& type) {
  return std::string(dtype_name(type.dtype)) + shape_string(type.shape);
}

bool broadcast_shapes(const Shape& a, const Shape& b, Shape* out) {
  size_t rank = std::max(a.size(), b.size());
  Shape result(rank);
  for (size_t i = 0; i < rank; ++i) {
    // Align from the right, as PyTorch does; a missing dimension counts as 1.
    int64_t da = i < rank - a.size() ? 1 : a[i - (rank - a.size())];
    int64_t db = i < rank - b.size() ? 1 : b[i - (rank - b.size())];
    if (da != db && da != 1 && db != 1) return false;
    result[i] = da == 1 ? db : da;
  }
  *out = std::move(result);
  return true;
}

}  // namespace drtriton
