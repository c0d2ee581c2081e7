#include "ir/attr.h"

#include <cassert>
#include <charconv>
#include <cmath>
#include <stdexcept>

namespace drtriton {

AttrType attr_type_of(const AttrValue& value) {
  return static_cast<AttrType>(value.index());
}

std::string_view attr_type_name(AttrType type) {
  switch (type) {
    case AttrType::Int: return "int";
    case AttrType::Float: return "float";
    case AttrType::Bool: return "bool";
    case AttrType::Ints: return "int list";
    case AttrType::Str: return "string";
  }
  return "?";
}

std::string float_to_string(double value) {
  if (std::isnan(value)) return "nan";
  if (std::isinf(value)) return value > 0 ? "inf" : "-inf";
  char buf[64];
  auto [end, ec] = std::to_chars(buf, buf + sizeof buf, value);
  assert(ec == std::errc() && "a double always fits in 64 characters");
  std::string s(buf, end);
  if (s.find_first_of(".e") == std::string::npos) s += ".0";
  return s;
}

namespace {

std::string ints_to_string(const std::vector<int64_t>& v, const char* sep) {
  std::string s = "[";
  for (size_t i = 0; i < v.size(); ++i) {
    if (i) s += sep;
    s += std::to_string(v[i]);
  }
  return s + "]";
}

}  // namespace

std::string attr_to_string(const AttrValue& value) {
  switch (attr_type_of(value)) {
    case AttrType::Int: return std::to_string(std::get<int64_t>(value));
    case AttrType::Float: return float_to_string(std::get<double>(value));
    case AttrType::Bool: return std::get<bool>(value) ? "true" : "false";
    case AttrType::Ints: return ints_to_string(std::get<std::vector<int64_t>>(value), ",");
    case AttrType::Str: return "\"" + std::get<std::string>(value) + "\"";
  }
  return "";
}

std::string attr_to_python(const AttrValue& value) {
  switch (attr_type_of(value)) {
    case AttrType::Float: {
      double v = std::get<double>(value);
      if (std::isinf(v)) return v > 0 ? "float('inf')" : "float('-inf')";
      if (std::isnan(v)) return "float('nan')";
      return float_to_string(v);
    }
    case AttrType::Bool: return std::get<bool>(value) ? "True" : "False";
    case AttrType::Ints: return ints_to_string(std::get<std::vector<int64_t>>(value), ", ");
    case AttrType::Str: return "'" + std::get<std::string>(value) + "'";
    case AttrType::Int: break;
  }
  return attr_to_string(value);
}

std::optional<std::string> coerce_attr(const AttrSpec& spec, AttrValue* value) {
  AttrType have = attr_type_of(*value);
  if (have == AttrType::Int && spec.type == AttrType::Float) {
    *value = static_cast<double>(std::get<int64_t>(*value));
    have = AttrType::Float;
  }
  if (have == AttrType::Int && spec.type == AttrType::Ints) {
    // PyTorch accepts kernel_size=3 for (3, 3); the IR always stores the list.
    int n = spec.length > 0 ? spec.length : 1;
    *value = std::vector<int64_t>(n, std::get<int64_t>(*value));
    have = AttrType::Ints;
  }
  if (have != spec.type) {
    return "attribute '" + spec.name + "' must be " + std::string(attr_type_name(spec.type)) +
           ", got " + attr_to_string(*value);
  }
  auto out_of_range = [&](double x) { return x < spec.lo || x > spec.hi; };
  auto range_text = [&] {
    auto bound = [](double b) {
      return std::isinf(b) ? std::string(b > 0 ? "inf" : "-inf")
                           : (b == std::floor(b) ? std::to_string(static_cast<int64_t>(b))
                                                 : float_to_string(b));
    };
    return "[" + bound(spec.lo) + ", " + bound(spec.hi) + "]";
  };
  switch (spec.type) {
    case AttrType::Int:
      if (out_of_range(static_cast<double>(std::get<int64_t>(*value))))
        return "attribute '" + spec.name + "' = " + attr_to_string(*value) + " is outside " +
               range_text();
      break;
    case AttrType::Float: {
      double v = std::get<double>(*value);
      if ((std::isnan(v) && !spec.none_is_nan) || out_of_range(v))
        return "attribute '" + spec.name + "' = " + attr_to_string(*value) + " is outside " +
               range_text();
      break;
    }
    case AttrType::Ints: {
      const auto& v = std::get<std::vector<int64_t>>(*value);
      if (spec.length > 0 && static_cast<int>(v.size()) != spec.length)
        return "attribute '" + spec.name + "' must have " + std::to_string(spec.length) +
               " elements, got " + attr_to_string(*value);
      if (static_cast<int>(v.size()) < spec.min_length)
        return "attribute '" + spec.name + "' must have at least " +
               std::to_string(spec.min_length) + " elements, got " + attr_to_string(*value);
      for (int64_t x : v)
        if (out_of_range(static_cast<double>(x)))
          return "attribute '" + spec.name + "' = " + attr_to_string(*value) +
                 " has an element outside " + range_text();
      break;
    }
    case AttrType::Str: {
      const auto& s = std::get<std::string>(*value);
      if (!spec.choices.empty()) {
        bool ok = false;
        std::string all;
        for (const auto& c : spec.choices) {
          ok = ok || c == s;
          all += (all.empty() ? "" : ", ") + ("\"" + c + "\"");
        }
        if (!ok) return "attribute '" + spec.name + "' = \"" + s + "\" is not one of " + all;
      }
      break;
    }
    case AttrType::Bool: break;
  }
  return std::nullopt;
}

bool is_default_attr(const AttrSpec& spec, const Attrs& attrs) {
  const AttrValue& v = attrs.at(spec.name);
  if (spec.default_value) return v == *spec.default_value;
  if (!spec.default_from.empty()) return v == attrs.at(spec.default_from);
  return false;
}

namespace {

template <typename T>
const T& get_attr(const Attrs& attrs, const std::string& name) {
  auto it = attrs.find(name);
  if (it == attrs.end() || !std::holds_alternative<T>(it->second))
    throw std::logic_error("internal: attribute '" + name + "' missing or of another type");
  return std::get<T>(it->second);
}

}  // namespace

int64_t attr_int(const Attrs& a, const std::string& n) {
  return get_attr<int64_t>(a, n);
}
double attr_float(const Attrs& a, const std::string& n) {
  return get_attr<double>(a, n);
}
bool attr_bool(const Attrs& a, const std::string& n) {
  return get_attr<bool>(a, n);
}
const std::vector<int64_t>& attr_ints(const Attrs& a, const std::string& n) {
  return get_attr<std::vector<int64_t>>(a, n);
}
const std::string& attr_str(const Attrs& a, const std::string& n) {
  return get_attr<std::string>(a, n);
}

}  // namespace drtriton
