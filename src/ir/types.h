// Tensor types: element dtype and a static shape. drtriton programs are fully static:
// every dimension is a known positive integer (KernelBench programs fix their sizes).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace drtriton {

enum class DType { F32, F16, BF16, F64, I64, I32, Bool };

using Shape = std::vector<int64_t>;

struct TensorType {
  DType dtype = DType::F32;
  Shape shape;

  int rank() const { return static_cast<int>(shape.size()); }
  int64_t numel() const;
  int64_t bytes() const;
  bool operator==(const TensorType&) const = default;
};

// "f32", "i64", ...; the spelling of the text form and the JSON form.
std::string_view dtype_name(DType dtype);
bool parse_dtype(std::string_view name, DType* out);
// PyTorch's spelling, "torch.float32".
std::string_view dtype_torch_name(DType dtype);
int dtype_size(DType dtype);
bool is_floating(DType dtype);

// "f32[128,3,32,32]"; a 0-d tensor prints as "f32[]".
std::string to_string(const TensorType& type);
// "[128,3,32,32]"
std::string shape_string(const Shape& shape);

// NumPy/PyTorch broadcasting of two shapes; false when they do not broadcast.
bool broadcast_shapes(const Shape& a, const Shape& b, Shape* out);

}  // namespace drtriton
