// Operator attributes: typed values with declared defaults and valid ranges.
// A node's attributes are always complete after construction: every attribute of its
// operator is present (defaults filled in) and inside its range.
#pragma once

#include <cstdint>
#include <limits>
#include <map>
#include <optional>
#include <string>
#include <variant>
#include <vector>

namespace drtriton {

enum class AttrType { Int, Float, Bool, Ints, Str };

using AttrValue = std::variant<int64_t, double, bool, std::vector<int64_t>, std::string>;
using Attrs = std::map<std::string, AttrValue>;

struct AttrSpec {
  std::string name;  // PyTorch's own argument name (module constructor and aten schema)
  AttrType type = AttrType::Int;
  std::optional<AttrValue> default_value;  // none: the attribute is required
  // Valid range of an Int or Float, or of every element of Ints.
  double lo = -std::numeric_limits<double>::infinity();
  double hi = std::numeric_limits<double>::infinity();
  int length = 0;                    // Ints: exact length; 0 means any length >= min_length
  int min_length = 0;                // Ints with length 0
  std::vector<std::string> choices;  // Str: the allowed values
  // A size the program declares once (channels, features): emitted as a named constant.
  bool is_size = false;
  // Ints whose default is another attribute's value (a pool's stride is its kernel_size).
  std::string default_from;
  // A Float that PyTorch also takes as None: NaN stands for None (in range, printed None).
  bool none_is_nan = false;
};

AttrType attr_type_of(const AttrValue& value);
std::string_view attr_type_name(AttrType type);

// The text form: 3, 0.5, true, [1,2], "tanh". Floats print shortest round-trip and
// always with a '.', 'e', "inf" or "nan" so that they parse back as floats.
std::string attr_to_string(const AttrValue& value);
// Python's spelling: 3, 0.5, True, [1, 2], 'tanh'.
std::string attr_to_python(const AttrValue& value);
std::string float_to_string(double value);

// Convert a parsed value to the spec's type where that loses nothing (an Int literal
// for a Float attribute, a single Int for an Ints of known length); else an error string.
std::optional<std::string> coerce_attr(const AttrSpec& spec, AttrValue* value);

// Does a complete node's attribute hold its default (or its default_from attribute's value)?
bool is_default_attr(const AttrSpec& spec, const Attrs& attrs);

int64_t attr_int(const Attrs& attrs, const std::string& name);
double attr_float(const Attrs& attrs, const std::string& name);
bool attr_bool(const Attrs& attrs, const std::string& name);
const std::vector<int64_t>& attr_ints(const Attrs& attrs, const std::string& name);
const std::string& attr_str(const Attrs& attrs, const std::string& name);

}  // namespace drtriton
